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

/// The Mill adviser: the tables; a search where they do not hold the position.
fn mill_advice<'a>(
    db: &'a Db,
    planners: &RefCell<[Option<RemovalPlanner<'a>>; 2]>,
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
                    crate::referee::mill::wdl_move(db, &mut planners.borrow_mut(), p, &v)
                        .map_err(|e| crate::solve::missing::probe_err(db, variant, dir, e))?
                {
                    v["best"] = json!([mv]);
                    v["source"] = json!(why);
                }
            } else if v["result"] == "win" {
                // Never let a won game slip into an N-move draw.
                let pick = crate::referee::mill::move_beating_the_n_move_rule(db, p)
                    .map_err(|e| crate::solve::missing::probe_err(db, variant, dir, e))?;
                if let Some(mv) = pick.filter(|mv| v["best"][0] != mv.as_str()) {
                    v["best"] = json!([mv]);
                    v["source"] = json!("tables, next removal before the N-move rule");
                }
            }
            Ok(v)
        }
        Err(ProbeError::Missing { .. } | ProbeError::RemovalPending) => {
            crate::analyse::mill::search_json(db, p, limits)
                .map_err(|e| crate::solve::missing::probe_err(db, variant, dir, e))?
                .ok_or_else(|| CliError::other("the game is over"))
        }
        Err(e) => Err(crate::solve::missing::probe_err(db, variant, dir, e)),
    }
}

/// `retro play mill`.
pub fn mill(rules: &RuleArgs, opts: &PlayOpts) -> Result<(), CliError> {
    let m = crate::games::mill::game(rules)?;
    let start = crate::games::mill::position(&m, opts.fen)?;
    let seats = Seats::parse(opts.seats, m.side_names())?;
    let variant = rules.mill_variant();
    let db = Db::new(m, opts.dir);
    let planners = RefCell::new([None, None]);
    let advise = |p: &Position| mill_advice(&db, &planners, variant, opts.dir, p, opts.limits);
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
        crate::analyse::oaq::analysis_json(g, table.as_ref(), p, opts.limits)
            .map_err(CliError::other)
    };
    play(&referee, start, &seats, opts.as_json, &advise)
}

/// Runs `retro play`.
pub fn run(a: &PlayArgs) -> Result<(), CliError> {
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
