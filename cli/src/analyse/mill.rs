//! `retro analyse mill`: values from the tables, records, the removal distance.

use crate::args::RuleArgs;
use crate::error::CliError;
use crate::games::mill::{game, position};
use crate::solve::plan::PlanFigures;
use retro_engine::mill::{Mill, Position};
use retro_solver::mill::removal::{move_value, move_wdl};
use retro_solver::mill::sectors::start_sector;
use retro_solver::mill::Db;
use retro_solver::sectors::db::ProbeError;
use retro_tables::value::{Value, Wdl};
use serde_json::{json, Value as Json};
use std::path::Path;
use std::time::Instant;

/// The `--rule` flags that turn preset `variant` into the tables' rules (the fields that
/// differ; the N-move rule, a play rule, left out).
fn rule_flags(db: &Db, variant: &str) -> String {
    let Ok(preset) = retro_engine::mill::Profile::preset(variant) else {
        return String::new();
    };
    let base = preset.describe();
    db.game()
        .profile
        .describe()
        .into_iter()
        .zip(base)
        .filter(|((k, v), (_, b))| *k != "n-move-rule" && v != b)
        .map(|((k, v), _)| format!(" --rule {k}={v}"))
        .collect()
}

/// A probe error as a CLI error; a missing table names the solve command that builds it, what
/// that costs (the `--dry-run` figures), and the cheap alternatives when it is a big solve.
pub fn probe_err(db: &Db, variant: &str, dir: &Path, e: ProbeError) -> CliError {
    match e {
        ProbeError::Missing { sector, .. } => {
            let plan = PlanFigures::new(db, &[sector]);
            let flags = rule_flags(db, variant);
            let mut msg = format!(
                "no table for sector {sector} of {variant} in {}\n  build it with: retro solve \
                 mill --variant {variant}{flags} --dir {} --sector {},{},{},{}\n  that solves \
                 {}{} (`--dry-run` shows the plan)",
                db.folder.display(),
                dir.display(),
                sector.w,
                sector.b,
                sector.wf,
                sector.bf,
                plan.summary(),
                if sector == start_sector(&db.game().profile) {
                    ": the whole game, placement included"
                } else {
                    ""
                }
            );
            if plan.slots > 500_000_000 {
                msg.push_str(&format!(
                    "\n  cheaper: `retro solve mill --variant six-mens-morris` (a whole smaller \
                     game, seconds) or `retro solve mill --variant {variant}{flags} --max-stones 4` (the \
                     moving-phase endgames up to 4 against 4, seconds), then analyse positions \
                     inside them"
                ));
            }
            CliError::other(msg)
        }
        other => CliError::other(other),
    }
}

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

/// The analysis of a Mill position from the tables: value, every move's value, best moves.
/// Tables without distances (`--wdl-only`) give results alone ("distances": false), and no
/// principal variation (a line that keeps a won result need not make progress).
pub fn analyse_json(db: &Db, p: &Position, pv: bool) -> Result<Json, ProbeError> {
    match analyse_values(db, p, pv) {
        Err(e) if e.no_distances() && !pv => analyse_wdl(db, p),
        r => r,
    }
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
    let mut rows = Vec::new();
    let mut scored = Vec::new();
    for (mv, q) in &moves {
        let mvv = move_value(db, p, q)?;
        let text = m.format_move(mv);
        rows.push(json!({"move": text, "result": mvv.result(), "plies": mvv.plies()}));
        scored.push((text, mvv, *q));
    }
    let best_pref = scored.iter().map(|(_, v, _)| v.preference()).max();
    let best: Vec<String> = scored
        .iter()
        .filter(|(_, v, _)| Some(v.preference()) == best_pref)
        .map(|(t, _, _)| t.clone())
        .collect();
    let mut out = json!({
        "fen": m.format_fen(p),
        "result": v.result(),
        "plies": v.plies(),
        "best": best,
        "moves": rows,
    });
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
    if let Some(why) = retro_solver::mill::sectors::unsupported(&m.profile) {
        return Err(CliError::input(format!(
            "{} has no tables: {why}",
            rules.mill_variant()
        )));
    }
    let db = Db::new(m, dir);
    if let Some(path) = batch {
        return crate::output::batch(path, |i, line| match db.game().parse_fen(line) {
            Ok(p) => analyse_json(&db, &p, pv).unwrap_or_else(|e| {
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
        analyse_json(&db, p, pv).map_err(|e| probe_err(&db, rules.mill_variant(), dir, e))
    };
    let mut out = match &played {
        Some(rec) => crate::referee::record_json(rec, analyse)?,
        None => analyse(&p)?,
    };
    let distances = out["distances"] != json!(false);
    if (opts.removal || (played.is_some() && distances)) && out["game_over"].is_null() {
        let v = db
            .value(&p)
            .map_err(|e| probe_err(&db, rules.mill_variant(), dir, e))?;
        crate::referee::mill::removal_fields(&db, &p, v, &mut out)
            .map_err(|e| probe_err(&db, rules.mill_variant(), dir, e))?;
    }
    if let (Some(rec), true) = (&played, opts.annotate) {
        // Positions no table holds (a missing sector, a removal pending) have no annotation;
        // a table that cannot be read is an error, not a missing annotation.
        let known = |r: Result<Value, ProbeError>, w: &dyn Fn() -> Result<Wdl, ProbeError>| match r
        {
            Ok(v) => Ok(Some(json!({"result": v.result(), "plies": v.plies()}))),
            Err(ProbeError::Missing { .. } | ProbeError::RemovalPending) => Ok(None),
            Err(e) if e.no_distances() => Ok(Some(json!({"result": w()?.result(), "plies": null}))),
            Err(e) => Err(e),
        };
        let judge = |p: &Position, q: &Position| {
            let before = known(db.value(p), &|| db.wdl(p))?;
            let after = known(move_value(&db, p, q), &|| move_wdl(&db, p, q))?;
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
    let describe = |r: &Json, plies: &Json| match (r.as_str(), plies.as_u64()) {
        (Some("draw"), _) => "draw".to_string(),
        (Some(res), Some(n)) => format!("{res} in {n} plies"),
        (Some(res), None) => res.to_string(),
        _ => "?".to_string(),
    };
    crate::referee::print_annotations(&out);
    if let Some(rec) = &played {
        crate::referee::print_record_summary(rec);
    }
    print!("{}", db.game().diagram(&p));
    println!("FEN: {}", out["fen"].as_str().unwrap_or(""));
    println!(
        "Value: {} (side to move)",
        describe(&out["result"], &out["plies"])
    );
    if out.get("removal_in").is_some() {
        let n = db.game().profile.n_move_rule;
        let left = n.saturating_sub(p.rule50 as u32);
        match (out["removal_in"].as_u64(), out["cursed"].as_bool()) {
            (Some(d), Some(cursed)) => println!(
                "Next removal: within {d} plies under the winner's best play; {}",
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
    if let Some(best) = out["best"].as_array() {
        let names: Vec<&str> = best.iter().filter_map(|b| b.as_str()).collect();
        println!("Best: {}", names.join(" "));
    }
    if let Some(moves) = out["moves"].as_array() {
        for mv in moves {
            println!(
                "  {:<12} {}",
                mv["move"].as_str().unwrap_or(""),
                describe(&mv["result"], &mv["plies"])
            );
        }
    }
    if let Some(line) = out["pv"].as_array() {
        let names: Vec<&str> = line.iter().filter_map(|b| b.as_str()).collect();
        println!("PV: {}", names.join(" "));
    }
    println!("({:.3} ms)", secs * 1e3);
    Ok(())
}
