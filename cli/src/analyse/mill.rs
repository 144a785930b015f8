//! `retro analyse mill`: values from the tables, records, the removal distance.

use crate::args::RuleArgs;
use crate::error::CliError;
use crate::games::mill::{game, position};
use crate::solve::missing::probe_err;
use retro_engine::mill::{Mill, Position};
use retro_solver::mill::probe::{move_value, move_wdl};
use retro_solver::mill::Db;
use retro_solver::sectors::db::ProbeError;
use retro_tables::value::Value;
use serde_json::{json, Value as Json};
use std::path::Path;
use std::time::Instant;

/// The answer of a search where no table holds the position (win/draw/loss, proven or not,
/// as Dara's search answers); `None` when the game is over.
pub fn search_json(
    db: &Db,
    p: &Position,
    limits: retro_solver::mill::search::Limits,
) -> Result<Option<Json>, ProbeError> {
    let m = db.game();
    let Some(r) = retro_solver::mill::search::search(db, p, limits)? else {
        return Ok(None);
    };
    let moves = r
        .moves
        .iter()
        .map(|s| (m.format_move(&s.mv), s.score, s.proven));
    Ok(Some(crate::analyse::dara::search_json(
        m.format_fen(p),
        (r.score, r.proven, r.depth, r.nodes),
        moves.collect(),
    )))
}

/// Prints the best moves and every move's value of an analysis.
fn print_moves(out: &Json) {
    if let Some(best) = out["best"].as_array() {
        let names: Vec<&str> = best.iter().filter_map(|b| b.as_str()).collect();
        if !names.is_empty() {
            println!("Best: {}", names.join(" "));
        }
    }
    if let Some(moves) = out["moves"].as_array() {
        for mv in moves {
            println!(
                "  {:<12} {}",
                mv["move"].as_str().unwrap_or(""),
                crate::output::describe(mv)
            );
        }
    }
}

/// Prints the board, the position text and the value of an analysis.
fn print_head(m: &Mill, p: &Position, out: &Json) {
    print!("{}", m.diagram(p));
    println!("FEN: {}", out["fen"].as_str().unwrap_or(""));
    let why = if out["source"] == "search" {
        let found = if out["proven"] == true {
            "proven by search, every deciding line reaching the end or a table"
        } else {
            "a search result, not a proven value"
        };
        format!(
            "; no table holds the position: {found} at depth {}",
            out["depth"]
        )
    } else if out["game_over"] == true {
        "; the game is over".to_string()
    } else {
        String::new()
    };
    println!(
        "Value: {} (side to move{why})",
        crate::output::describe(out)
    );
}

/// An analysis with distances: the position's value, every move's (its text and value for the
/// mover) and the best moves.
fn values_json(m: &Mill, p: &Position, v: Value, scored: &[(String, Value)]) -> Json {
    let top = scored.iter().map(|(_, v)| v.preference()).max();
    json!({
        "fen": m.format_fen(p),
        "result": v.result(),
        "plies": v.plies(),
        "best": scored.iter().filter(|(_, v)| Some(v.preference()) == top).map(|(t, _)| t)
            .collect::<Vec<_>>(),
        "moves": scored.iter().map(|(t, v)| json!({"move": t, "result": v.result(),
            "plies": v.plies()})).collect::<Vec<_>>(),
    })
}

/// The most positions `analyse` solves for a position of rules no table holds.
const CLOSURE_LIMIT: usize = 5_000_000;

/// The most stones (on the board and in hand) of such a position: 3 against 3 reaches at most
/// about 334,000 positions up to symmetry (5 s; a capture there ends the game, so no mask grows
/// that matters), but 4 against 3 with fresh masks more than 5 million (each capture by the
/// side with 3 can leave any of 16 masks).
const CLOSURE_STONES: u32 = 6;

/// The analysis of a position under rules no table holds (one-time mills): its value and its
/// moves' values, exact, from every position reachable from it, when those are few enough.
pub fn closure_json(m: &Mill, p: &Position, variant: &str, why: &str) -> Result<Json, CliError> {
    let c = closure(m, p, variant, why)?;
    Ok(closure_answer(m, &c, p).expect("a closure holds its root"))
}

/// The analysis of a position under rules no table holds (`why`): its closure's exact values
/// ([`closure_json`]) or, with `search` limits, a search where the closure is too big (no
/// table at its leaves). Bad input (the closure refused) is exit code 2, a table that cannot
/// be read 1.
pub fn closure_or_search(
    db: &Db,
    p: &Position,
    variant: &str,
    why: &str,
    search: Option<retro_solver::mill::search::Limits>,
) -> Result<Json, CliError> {
    match (closure_json(db.game(), p, variant, why), search) {
        (Err(e), Some(limits)) => search_json(db, p, limits)
            .map_err(CliError::other)?
            .ok_or(e),
        (r, _) => r,
    }
}

/// Every position reachable from `p` solved, under rules no table holds (`why`), when `p` has
/// few enough stones and they are few enough.
pub fn closure(
    m: &Mill,
    p: &Position,
    variant: &str,
    why: &str,
) -> Result<retro_solver::mill::closure::Closure, CliError> {
    let stones =
        p.stones[0].count_ones() + p.stones[1].count_ones() + (p.hand[0] + p.hand[1]) as u32;
    if stones > CLOSURE_STONES {
        return Err(CliError::input(format!(
            "{variant} has no tables ({why}); without them only endgames of at most \
             {CLOSURE_STONES} stones in all (3 against 3) are solved, and this \
             position has {stones} (the README gives the figures)"
        )));
    }
    retro_solver::mill::closure::Closure::solve(m, p, CLOSURE_LIMIT).map_err(|e| {
        CliError::input(format!(
            "{variant} has no tables ({why}), and {e}: without tables only small endgames are \
             solved, about 3 against 3 (the README gives the figures)"
        ))
    })
}

/// [`closure_json`]'s answer for `p` from a closure solved already: `None` if `p` is not in it.
pub fn closure_answer(
    m: &Mill,
    c: &retro_solver::mill::closure::Closure,
    p: &Position,
) -> Option<Json> {
    let v = c.value(m, p)?;
    let value = |q: &Position| {
        c.value(m, q)
            .expect("the closure holds every move's result")
    };
    let mut moves = Vec::new();
    m.moves(p, &mut moves);
    let scored: Vec<(String, Value)> = moves
        .iter()
        .map(|(mv, q)| {
            let c = value(q);
            (
                m.format_move(mv),
                if q.side == p.side {
                    c.later()
                } else {
                    c.parent()
                },
            )
        })
        .collect();
    let mut out = values_json(m, p, v, &scored);
    out["exact"] = json!("closure");
    out["positions"] = json!(c.len());
    Some(out)
}

/// A probe's answer, `None` where no table holds the position (a missing sector, a removal
/// pending).
fn held<T>(r: Result<T, ProbeError>) -> Result<Option<T>, ProbeError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(ProbeError::Missing { .. } | ProbeError::RemovalPending) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The analysis of a Mill position from the tables: value, every move's value, best moves.
/// Tables without distances (`--wdl-only`) give results alone ("distances": false), and no
/// principal variation (a line that keeps a won result need not make progress).
///
/// A finished game's analysis says so (`"game_over": true`, `"source": "rules"`), as Dara's
/// and Ô Ăn Quan's do.
pub fn analyse_json(db: &Db, p: &Position, pv: bool) -> Result<Json, ProbeError> {
    let mut out = match analyse_values(db, p, pv) {
        Err(e) if e.no_distances() && !pv => analyse_wdl(db, p),
        r => r,
    }?;
    if db.game().outcome(p).is_some() {
        out["game_over"] = json!(true);
        out["source"] = json!("rules");
    }
    Ok(out)
}

/// [`analyse_json`] from win/draw/loss alone.
fn analyse_wdl(db: &Db, p: &Position) -> Result<Json, ProbeError> {
    let m: &Mill = db.game();
    let v = db.wdl(p)?;
    let mut moves = Vec::new();
    m.moves(p, &mut moves);
    let mut scored = Vec::new();
    for (mv, q) in &moves {
        scored.push((m.format_move(mv), move_wdl(db, p, q)?));
    }
    let top = scored.iter().map(|(_, w)| *w).max();
    Ok(json!({
        "fen": m.format_fen(p),
        "result": v.result(),
        "plies": null,
        "distances": false,
        "best": scored.iter().filter(|(_, w)| Some(*w) == top).map(|(t, _)| t).collect::<Vec<_>>(),
        "moves": scored.iter().map(|(t, w)| json!({"move": t, "result": w.result(), "plies": null}))
            .collect::<Vec<_>>(),
    }))
}

/// [`analyse_json`] with distances.
fn analyse_values(db: &Db, p: &Position, pv: bool) -> Result<Json, ProbeError> {
    let m: &Mill = db.game();
    let v = db.value(p)?;
    let mut moves = Vec::new();
    m.moves(p, &mut moves);
    let mut scored = Vec::new();
    for (mv, q) in &moves {
        scored.push((m.format_move(mv), move_value(db, p, q)?));
    }
    let mut out = values_json(m, p, v, &scored);
    if pv {
        let mut line = Vec::new();
        let mut cur = *p;
        let limit = if matches!(v, Value::Draw) { 40 } else { 2000 };
        while line.len() < limit && m.outcome(&cur).is_none() {
            let mut ms = Vec::new();
            m.moves(&cur, &mut ms);
            let mut best: Option<(i32, String, Position)> = None;
            for (mv, q) in &ms {
                let pref = move_value(db, &cur, q)?.preference();
                if best.as_ref().is_none_or(|b| pref > b.0) {
                    best = Some((pref, m.format_move(mv), *q));
                }
            }
            let Some((_, t, q)) = best else { break };
            line.push(t);
            cur = q;
        }
        out["pv"] = json!(line);
    }
    Ok(out)
}

/// Options of `retro analyse mill`.
pub struct AnalyseOpts {
    /// Add a principal variation.
    pub pv: bool,
    /// Print JSON.
    pub as_json: bool,
    /// Moves to play from the position first.
    pub record: Option<Vec<String>>,
    /// Annotate every ply of the record.
    pub annotate: bool,
    /// Add the distance to the next removal and whether the N-move rule draws the win.
    pub removal: bool,
    /// Where no table holds the position: search with these limits (`--search`).
    pub search: Option<retro_solver::mill::search::Limits>,
}

/// A position's analysis from the tables or, with `search` limits, by search where no table
/// holds it (a sector not solved, a removal pending). With `pv`, a search's answer has
/// `"pv": null` (it has no line).
pub fn analyse_or_search(
    db: &Db,
    p: &Position,
    pv: bool,
    search: Option<retro_solver::mill::search::Limits>,
) -> Result<Json, ProbeError> {
    match (analyse_json(db, p, pv), search) {
        (Err(e @ (ProbeError::Missing { .. } | ProbeError::RemovalPending)), Some(limits)) => {
            // A game that is over has no search: the tables' error stands.
            let Some(mut out) = search_json(db, p, limits)? else {
                return Err(e);
            };
            if pv {
                out["pv"] = Json::Null;
            }
            Ok(out)
        }
        (r, _) => r,
    }
}

/// `retro analyse mill`.
pub fn analyse(
    rules: &RuleArgs,
    dir: &Path,
    fen: Option<&str>,
    batch: Option<&str>,
    opts: &AnalyseOpts,
) -> Result<(), CliError> {
    let (pv, as_json) = (opts.pv, opts.as_json);
    let m = game(rules)?;
    let no_tables = retro_solver::mill::sectors::unsupported(&m.profile);
    if let Some(why) = no_tables {
        if pv || opts.record.is_some() || opts.removal {
            return Err(CliError::input(format!(
                "{} has no tables ({why}): only a position's value and its moves' values, \
                 from the positions reachable from it, can be given without them",
                rules.mill_variant()
            )));
        }
    }
    let db = Db::new(m, dir);
    if let Some(why) = no_tables {
        let variant = rules.mill_variant();
        let answer = |p: &Position| {
            closure_or_search(&db, p, variant, why, opts.search).map_err(|mut e| {
                if opts.search.is_none() {
                    e.message.push_str("; --search answers by search instead");
                }
                e
            })
        };
        if let Some(path) = batch {
            return crate::output::batch(path, |i, line| match db.game().parse_fen(line) {
                Ok(p) => {
                    answer(&p).unwrap_or_else(|e| crate::output::line_error(i, line, e.message))
                }
                Err(e) => crate::output::line_error(i, line, e),
            });
        }
        let p = position(db.game(), fen)?;
        let start = Instant::now();
        let out = answer(&p)?;
        let secs = start.elapsed().as_secs_f64();
        if as_json {
            println!("{out}");
            return Ok(());
        }
        print_head(db.game(), &p, &out);
        print_moves(&out);
        if out["exact"] == "closure" {
            println!(
                "Exact: {variant} has no tables ({why}); these values come from solving the {} \
                 positions reachable from this one",
                out["positions"]
            );
        }
        println!("({:.3} ms)", secs * 1e3);
        return Ok(());
    }
    if let Some(path) = batch {
        return crate::output::batch(path, |i, line| match db.game().parse_fen(line) {
            Ok(p) => analyse_or_search(&db, &p, pv, opts.search).unwrap_or_else(|e| {
                let msg = probe_err(&db, rules.mill_variant(), dir, e).message;
                crate::output::line_error(i, line, msg)
            }),
            Err(e) => crate::output::line_error(i, line, e),
        });
    }
    let mut p = position(db.game(), fen)?;
    let start = Instant::now();
    let mut played = None;
    if let Some(moves) = &opts.record {
        let rec = crate::referee::play(db.game(), p, moves)?;
        p = *rec.last();
        played = Some(rec);
    }
    let analyse = |p: &Position| {
        analyse_or_search(&db, p, pv, opts.search).map_err(|e| {
            let missing = matches!(e, ProbeError::Missing { .. });
            let mut err = probe_err(&db, rules.mill_variant(), dir, e);
            if missing {
                err.message.push_str(
                    "\n  or answer by search, with the tables at its leaves: add --search \
                     (--time, --depth)",
                );
            }
            err
        })
    };
    let mut out = match &played {
        Some(rec) => crate::referee::record_json(rec, analyse)?,
        None => analyse(&p)?,
    };
    let distances = out["distances"] != json!(false);
    let searched = out["source"] == "search";
    if opts.removal && searched {
        // The removal search reads the tables, which do not hold this position.
        out["removal_in"] = Json::Null;
        out["cursed"] = Json::Null;
    }
    if (opts.removal || played.is_some()) && out["game_over"].is_null() && !searched {
        let v = db
            .wdl(&p)
            .map_err(|e| probe_err(&db, rules.mill_variant(), dir, e))?;
        crate::referee::mill::removal_fields(&db, &p, v, &mut out)
            .map_err(|e| probe_err(&db, rules.mill_variant(), dir, e))?;
    }
    if let (Some(rec), true) = (&played, opts.annotate) {
        // Positions no table holds (a missing sector, a removal pending) have no annotation;
        // a table that cannot be read is an error, not a missing annotation.
        use crate::referee::known;
        let judge = |p: &Position, q: &Position| {
            let before = known(held(db.value(p)), || held(db.wdl(p)))?;
            let after = known(held(move_value(&db, p, q)), || held(move_wdl(&db, p, q)))?;
            let change = before
                .as_ref()
                .zip(after.as_ref())
                .and_then(|(b, a)| crate::referee::wdl_change(b, a));
            Ok((before, after, change))
        };
        let notes = crate::referee::annotate(rec, judge)
            .map_err(|e| probe_err(&db, rules.mill_variant(), dir, e))?;
        out["annotations"] = json!(notes);
    }
    let secs = start.elapsed().as_secs_f64();
    if as_json {
        println!("{out}");
        return Ok(());
    }
    crate::referee::print_annotations(&out);
    if let Some(rec) = &played {
        crate::referee::print_record_summary(rec);
    }
    print_head(db.game(), &p, &out);
    if searched && opts.removal {
        println!("Next removal: not known (the search for it reads the tables, which do not hold the position)");
    } else if out.get("removal_in").is_some() {
        let n = db.game().profile.n_move_rule;
        let left = n.saturating_sub(p.rule50 as u32);
        match (out["removal_in"].as_u64(), out["cursed"].as_bool()) {
            (Some(d), Some(cursed)) => println!(
                "Next removal: within {} under the winner's best play; {}",
                crate::output::plies(d),
                match (n, cursed) {
                    (0, _) => "no N-move rule".to_string(),
                    (_, true) => format!(
                        "only {left} plies left before the N-move rule: the win is cursed (a draw under the rule)"
                    ),
                    (_, false) => format!("{left} plies left before the N-move rule: the win stands"),
                }
            ),
            (None, Some(true)) => println!(
                "Next removal: the winner cannot force one within the {left} plies left before the N-move rule: the win is cursed"
            ),
            _ => println!("Next removal: not found within the search budget"),
        }
    }
    if !distances {
        println!("Distances: not in these tables (win/draw/loss only, compressed with --wdl-only)");
    }
    print_moves(&out);
    crate::output::print_pv(&out, pv);
    println!("({:.3} ms)", secs * 1e3);
    Ok(())
}
