//! `retro analyse oaq`: the table of a solved game where there is one, else a search.

use crate::args::AnalyseArgs;
use crate::error::CliError;
use crate::games::oaq::{game, open_table, position, Solved};
use crate::output;
use crate::referee::oaq::OaqReferee;
use retro_engine::oaq::{Oaq, Position};
use retro_solver::oaq::index::OaqIndex;
use retro_solver::oaq::search::{search, Limits};
use retro_solver::oaq::table::OaqProbe;
use retro_solver::oaq::values::gain;
use retro_tables::TableError;
use serde_json::{json, Value};
use std::time::Instant;

/// Longest principal variation printed: a line of best moves can go round a cycle (the game
/// has them); it stops at the first position seen twice, or here.
const PV_LIMIT: usize = 1000;

/// A principal variation from the table: the first best move at each ply, to the end of the
/// game or the first position seen again (best play then goes round; the score counts the
/// seeds up to there, the board's for nobody). `None` if the table lacks a position on the way.
fn table_pv(g: &Oaq, table: &Solved, p: &Position) -> Result<Option<Vec<String>>, TableError> {
    let (t, idx) = table;
    let (mut line, mut seen, mut cur) = (Vec::new(), std::collections::HashSet::new(), *p);
    let mut list = Vec::new();
    while line.len() < PV_LIMIT && seen.insert(cur) {
        list.clear();
        g.moves(&cur, &mut list);
        let mut best: Option<(i16, usize)> = None;
        for (i, (_, turn)) in list.iter().enumerate() {
            let Some(child) = t.value(g, idx, &turn.position)? else {
                return Ok(None);
            };
            let score = gain(turn) - child;
            if best.is_none_or(|b| score > b.0) {
                best = Some((score, i));
            }
        }
        let Some((_, i)) = best else { break };
        line.push(g.format_move(&list[i].0));
        cur = list[i].1.position;
    }
    Ok(Some(line))
}

/// The answer of a solved game's table, when it holds the position.
fn table_json(g: &Oaq, table: &Solved, p: &Position) -> Result<Option<Value>, TableError> {
    let (t, idx) = table;
    let Some(v) = t.value(g, idx, p)? else {
        return Ok(None);
    };
    let mut list = Vec::new();
    g.moves(p, &mut list);
    let mut moves = Vec::new();
    for (m, turn) in &list {
        let Some(child) = t.value(g, idx, &turn.position)? else {
            return Ok(None);
        };
        moves.push((g.format_move(m), gain(turn) - child));
    }
    let top = moves.iter().map(|m| m.1).max();
    let best: Vec<&String> = moves
        .iter()
        .filter(|m| Some(m.1) == top)
        .map(|m| &m.0)
        .collect();
    let mut out = json!({
        "fen": g.format_position(p),
        "score": v,
        "proven": true,
        "depth": null,
        "source": "table",
        "best": best,
        "moves": moves.iter().map(|(m, s)| json!({"move": m, "score": s})).collect::<Vec<_>>(),
    });
    if list.is_empty() {
        // The rules decide a finished game (its end collection), as Dara's and Mill's say.
        out["game_over"] = json!(true);
        out["source"] = json!("rules");
    }
    Ok(Some(out))
}

/// One ply judged by the solved game's table: the value before it, the move's value (its gain
/// minus the value left to the opponent), and the seeds it gave away.
fn judge(
    g: &Oaq,
    table: Option<&Solved>,
    p: &Position,
    q: &Position,
) -> Result<crate::referee::Judgement, TableError> {
    let Some((t, idx)) = table else {
        return Ok((None, None, None));
    };
    let before = t.value(g, idx, p)?;
    let mut list = Vec::new();
    g.moves(p, &mut list);
    let after = match list.iter().find(|(_, turn)| turn.position == *q) {
        Some((_, turn)) => t.value(g, idx, q)?.map(|v| gain(turn) - v),
        None => None,
    };
    let change = match (before, after) {
        (Some(b), Some(a)) if a < b => Some(format!("gives away {} seeds", b - a)),
        _ => None,
    };
    Ok((
        before.map(|v| json!({"score": v})),
        after.map(|v| json!({"score": v})),
        change,
    ))
}

/// The analysis of a position: from the solved game's table when it holds it, else a search
/// (an error when the part of the table read is damaged).
///
/// With `pv`, a table's answer has a principal variation (`"pv"`); a search's has `"pv": null`.
pub fn analysis_json(
    g: &Oaq,
    table: Option<&Solved>,
    p: &Position,
    pv: bool,
    limits: Limits,
) -> Result<Value, TableError> {
    let mut out = analysis_value(g, table, p, limits)?;
    if pv {
        out["pv"] = match table {
            Some(t) if out["source"] != "search" => json!(table_pv(g, t, p)?),
            _ => Value::Null,
        };
    }
    Ok(out)
}

/// [`analysis_json`] without the principal variation.
fn analysis_value(
    g: &Oaq,
    table: Option<&Solved>,
    p: &Position,
    limits: Limits,
) -> Result<Value, TableError> {
    if let Some(t) = table {
        if let Some(out) = table_json(g, t, p)? {
            return Ok(out);
        }
    }
    let Some(r) = search(g, p, limits) else {
        let f = g
            .outcome(p)
            .expect("no search result only when the game is over");
        let s = p.side.index();
        let net = (f.stores[s] - p.stores[s]) - (f.stores[1 - s] - p.stores[1 - s]);
        return Ok(json!({
            "fen": g.format_position(p), "score": net, "proven": true, "depth": 0,
            "source": "rules", "best": [], "moves": [], "game_over": true,
        }));
    };
    let best: Vec<String> = r
        .moves
        .iter()
        .filter(|m| m.score == r.score)
        .map(|m| g.format_move(&m.mv))
        .collect();
    let moves: Vec<Value> = r
        .moves
        .iter()
        .map(|m| json!({"move": g.format_move(&m.mv), "score": m.score}))
        .collect();
    Ok(json!({
        "fen": g.format_position(p),
        "score": r.score,
        "proven": r.proven,
        "depth": r.depth,
        "source": "search",
        "best": best,
        "moves": moves,
        "nodes": r.nodes,
    }))
}

/// `retro analyse oaq`: from the game's table when `retro solve oaq` built one for these rules,
/// else by search; scores as future net seeds for the side to move.
pub fn analyse(a: &AnalyseArgs, record: Option<&[String]>) -> Result<(), CliError> {
    let (rules, dir, fen) = (&a.rules, &a.dir, a.fen.as_deref());
    let (as_json, batch, annotate) = (a.json, a.batch.as_deref(), a.annotate);
    let g = game(rules)?;
    let limits = output::limits(a.depth, a.time)?;
    let table = open_table(&g, dir)
        .map_err(CliError::other)?
        .map(|t| (t, OaqIndex::new(&g)));
    if let Some(path) = batch {
        return output::batch(path, |i, line| match g.parse_position(line) {
            Ok(p) => analysis_json(&g, table.as_ref(), &p, a.pv, limits)
                .unwrap_or_else(|e| output::line_error(i, line, e)),
            Err(e) => output::line_error(i, line, e),
        });
    }
    let mut p = position(&g, fen)?;
    let referee = OaqReferee {
        game: g.clone(),
        n_move_rule: rules.n_move_rule()?,
    };
    let rec = record
        .map(|moves| crate::referee::play(&referee, p, moves))
        .transpose()?;
    let start = Instant::now();
    let analyse =
        |p: &Position| analysis_json(&g, table.as_ref(), p, a.pv, limits).map_err(CliError::other);
    let v = match &rec {
        Some(r) => {
            p = *r.last();
            let mut v = crate::referee::record_json(r, analyse)?;
            if annotate {
                let judge = |a: &Position, b: &Position| {
                    judge(&g, table.as_ref(), a, b).map_err(CliError::other)
                };
                v["annotations"] = json!(crate::referee::annotate(r, judge)?);
            }
            v
        }
        None => analysis_json(&g, table.as_ref(), &p, a.pv, limits).map_err(CliError::other)?,
    };
    if as_json {
        println!("{v}");
        return Ok(());
    }
    if let Some(r) = &rec {
        crate::referee::print_annotations(&v);
        crate::referee::print_record_summary(r);
        if r.ended.is_some() {
            print!("{}", g.diagram(&p));
            println!("Position: {}", g.format_position(&p));
            println!(
                "Final stores: south {} north {} ({})",
                v["final_stores"]["south"],
                v["final_stores"]["north"],
                v["winner"]
                    .as_str()
                    .map_or("a draw".to_string(), |w| format!("{w} wins"))
            );
            return Ok(());
        }
    }
    print!("{}", g.diagram(&p));
    println!("Position: {}", g.format_position(&p));
    let proven = v["proven"].as_bool().unwrap_or(false);
    if v["source"] == "table" {
        println!(
            "Score: {} future net seeds for the side to move (proven: from the solved game's table)",
            v["score"]
        );
    } else if v["source"] == "rules" {
        println!(
            "Score: {} future net seeds for the side to move (the game is over: the end \
             collection)",
            v["score"]
        );
    } else {
        println!(
            "Score: {} future net seeds for the side to move ({}, depth {})",
            v["score"],
            if proven {
                "proven: every line reaches the end"
            } else {
                "search result, not a proven value"
            },
            v["depth"]
        );
    }
    let best: Vec<&str> = v["best"]
        .as_array()
        .map(|b| b.iter().filter_map(|x| x.as_str()).collect())
        .unwrap_or_default();
    if !best.is_empty() {
        println!("Best: {}", best.join(" "));
    }
    for m in v["moves"].as_array().into_iter().flatten() {
        println!("  {:<4} {}", m["move"].as_str().unwrap_or(""), m["score"]);
    }
    if let Some(line) = v["pv"].as_array() {
        let names: Vec<&str> = line.iter().filter_map(|b| b.as_str()).collect();
        println!("PV: {}", names.join(" "));
    } else if a.pv {
        println!("PV: none (a principal variation comes from a solved game's table)");
    }
    if v["source"] == "search" {
        println!(
            "({} positions, {:.2} s)",
            v["nodes"],
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
