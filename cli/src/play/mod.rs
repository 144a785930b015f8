//! `retro play mill|dara|oaq`: each game's referee and adviser for the play loop.

pub mod session;

use crate::args::RuleArgs;
use crate::args::{GameKind, PlayArgs};
use crate::error::CliError;
use crate::output;
use crate::play::session::{play, Seats};
use crate::referee::mill::REMOVAL_NODES;
use crate::referee::{dara::DaraReferee, oaq::OaqReferee};
use crate::referee::{planned, Referee};
use retro_engine::mill::Position;
use retro_solver::dara::progress::capture_planner;
use retro_solver::dara::rules::DaraRules;
use retro_solver::mill::removal::RemovalPlanner;
use retro_solver::mill::Db;
use retro_solver::oaq::index::OaqIndex;
use retro_solver::oaq::search::Limits;
use retro_solver::sectors::db::{Db as SectorDb, ProbeError};
use serde_json::{json, Value as Json};
use std::cell::RefCell;
use std::path::Path;

/// Options of `retro play`.
pub struct PlayOpts<'a> {
    /// Where the tables are.
    pub dir: &'a Path,
    /// The start position (default: the game's start).
    pub fen: Option<&'a str>,
    /// Who plays which side (`--as`).
    pub seats: &'a str,
    /// The engine's search limits where no table holds a position.
    pub limits: Limits,
    /// Print a JSON summary at the end.
    pub as_json: bool,
}

/// The stone counts of a stretch of play (on the board and in hand, each side): the counts
/// between two removals or placements.
fn stretch(p: &Position) -> [u32; 4] {
    [
        p.stones[0].count_ones(),
        p.stones[1].count_ones(),
        p.hand[0] as u32,
        p.hand[1] as u32,
    ]
}

/// The Mill adviser's memory across the moves of a game.
#[derive(Default)]
struct MillMemory<'a> {
    /// The removal planners of tables without distances, per winner.
    planners: RefCell<[Option<RemovalPlanner<'a>>; 2]>,
    /// The stretch in which the search for a win that beats the N-move rule last gave up:
    /// its later moves search with a tenth of the budget (seconds a move otherwise, each
    /// giving up again; with few plies left before the rule, where it matters, the search is
    /// small and still ends).
    gave_up: std::cell::Cell<Option<[u32; 4]>>,
    /// Under rules without tables, the last endgame solved whole: it holds every position
    /// the game can reach from there (seconds to solve; once a game).
    closure: RefCell<Option<retro_solver::mill::closure::Closure>>,
}

/// The Mill adviser: the tables; a search where they do not hold the position.
fn mill_advice<'a>(
    db: &'a Db,
    memory: &MillMemory<'a>,
    variant: &str,
    dir: &Path,
    p: &Position,
    limits: Limits,
) -> Result<Json, CliError> {
    match crate::analyse::mill::analyse_json(db, p, false) {
        Ok(mut v) => {
            v["source"] = json!("tables");
            v["proven"] = json!(true);
            if v["distances"] == false {
                // Win/draw/loss tables: any winning move keeps the win, but only one that
                // brings the next removal closer makes progress.
                if let Some((mv, why)) =
                    crate::referee::mill::wdl_move(db, &mut memory.planners.borrow_mut(), p, &v)
                        .map_err(|e| crate::solve::missing::probe_err(db, variant, dir, e))?
                {
                    v["best"] = json!([mv]);
                    v["source"] = json!(why);
                }
            } else if v["result"] == "win" {
                // Never let a won game slip into an N-move draw.
                let here = stretch(p);
                let nodes = if memory.gave_up.get() == Some(here) {
                    REMOVAL_NODES / 10
                } else {
                    REMOVAL_NODES
                };
                let mut gave_up = false;
                let pick =
                    crate::referee::mill::move_beating_the_n_move_rule(db, p, nodes, &mut gave_up)
                        .map_err(|e| crate::solve::missing::probe_err(db, variant, dir, e))?;
                if gave_up {
                    memory.gave_up.set(Some(here));
                }
                if let Some(mv) = pick.filter(|mv| v["best"][0] != mv.as_str()) {
                    v["best"] = json!([mv]);
                    v["source"] = json!("tables, next removal before the N-move rule");
                }
            }
            Ok(v)
        }
        // Rules the solver has no tables for (russian-mill): small endgames are solved on
        // the spot from the positions they reach, as `analyse` does; the rest searched.
        Err(ProbeError::Unsupported { why, .. }) => {
            use crate::analyse::mill::{closure, closure_answer};
            let mut held = memory.closure.borrow_mut();
            let mut answer = held.as_ref().and_then(|c| closure_answer(db.game(), c, p));
            if answer.is_none() {
                if let Ok(c) = closure(db.game(), p, variant, &why) {
                    answer = closure_answer(db.game(), &c, p);
                    *held = Some(c);
                }
            }
            match answer {
                Some(mut v) => {
                    v["source"] = json!("closure");
                    v["proven"] = json!(true);
                    Ok(v)
                }
                None => mill_search(db, variant, dir, p, limits),
            }
        }
        Err(ProbeError::Missing { .. } | ProbeError::RemovalPending) => {
            mill_search(db, variant, dir, p, limits)
        }
        Err(e) => Err(crate::solve::missing::probe_err(db, variant, dir, e)),
    }
}

/// The engine's search where no table holds `p`.
fn mill_search(
    db: &Db,
    variant: &str,
    dir: &Path,
    p: &Position,
    limits: Limits,
) -> Result<Json, CliError> {
    crate::analyse::mill::search_json(db, p, limits)
        .map_err(|e| crate::solve::missing::probe_err(db, variant, dir, e))?
        .ok_or_else(|| CliError::other("the game is over"))
}

/// `retro play mill`.
pub fn mill(rules: &RuleArgs, opts: &PlayOpts) -> Result<(), CliError> {
    let m = crate::games::mill::game(rules)?;
    let start = crate::games::mill::position(&m, opts.fen)?;
    let seats = Seats::parse(opts.seats, m.side_names())?;
    let variant = rules.mill_variant();
    let db = Db::new(m, opts.dir);
    let memory = MillMemory::default();
    let advise = |p: &Position| mill_advice(&db, &memory, variant, opts.dir, p, opts.limits);
    play(db.game(), start, &seats, opts.as_json, &advise)
}

/// `retro play dara`.
pub fn dara(rules: &RuleArgs, opts: &PlayOpts) -> Result<(), CliError> {
    let referee = DaraReferee {
        game: crate::games::dara::game(rules)?,
        n_move_rule: rules.n_move_rule()?,
    };
    let g = &referee.game;
    let start = crate::games::dara::position(g, opts.fen)?;
    let seats = Seats::parse(opts.seats, referee.side_names())?;
    let db = SectorDb::with_rules(DaraRules { game: g.clone() }, opts.dir);
    let tables = retro_solver::dara::search::Tables::open(&db);
    let planners = RefCell::new([None, None]);
    let advise = |p: &retro_engine::dara::Position| {
        let mut v = crate::analyse::dara::analysis_json(g, &tables, p, false, opts.limits)
            .map_err(CliError::other)?;
        if v["distances"] == false {
            let make = |winner| capture_planner(g, &tables, winner, REMOVAL_NODES);
            let plan = planned(
                &mut planners.borrow_mut(),
                make,
                p,
                p.side,
                &v,
                400,
                "capture",
            )
            .map_err(CliError::other)?;
            let mut list = Vec::new();
            g.moves(p, &mut list);
            if let Some((mv, why)) =
                plan.and_then(|(q, why)| list.iter().find(|(_, c)| *c == q).map(|(m, _)| (m, why)))
            {
                v["best"] = json!([g.format_move(mv)]);
                v["source"] = json!(why);
            }
        }
        Ok(v)
    };
    play(&referee, start, &seats, opts.as_json, &advise)
}

/// `retro play oaq`.
pub fn oaq(rules: &RuleArgs, opts: &PlayOpts) -> Result<(), CliError> {
    let referee = OaqReferee {
        game: crate::games::oaq::game(rules)?,
        n_move_rule: rules.n_move_rule()?,
    };
    let g = &referee.game;
    let start = crate::games::oaq::position(g, opts.fen)?;
    let seats = Seats::parse(opts.seats, referee.side_names())?;
    let table = crate::games::oaq::open_table(g, opts.dir)
        .map_err(CliError::other)?
        .map(|t| (t, OaqIndex::new(g)));
    let advise = |p: &retro_engine::oaq::Position| {
        crate::analyse::oaq::analysis_json(g, table.as_ref(), p, false, opts.limits)
            .map_err(CliError::other)
    };
    play(&referee, start, &seats, opts.as_json, &advise)
}

/// Runs `retro play`.
pub fn run(a: &PlayArgs) -> Result<(), CliError> {
    crate::games::refuse_table_folder(&a.dir)?;
    let limits = output::limits(a.depth, a.time)?;
    let opts = PlayOpts {
        dir: &a.dir,
        fen: a.fen.as_deref(),
        seats: &a.seat,
        limits,
        as_json: a.json,
    };
    match a.game {
        GameKind::Mill => mill(&a.rules, &opts),
        GameKind::Dara => dara(&a.rules, &opts),
        GameKind::Oaq => oaq(&a.rules, &opts),
    }
}
