//! `retro analyse dara`: the endgame tables where they hold the position, else a search.

use crate::args::AnalyseArgs;
use crate::error::CliError;
use crate::games::dara::{game, position};
use crate::output;
use crate::referee::dara::DaraReferee;
use retro_engine::dara::{Dara, Position};
use retro_solver::dara::rules::DaraRules;
use retro_solver::dara::search::{search, value_of, Limits, Tables};
use retro_solver::sectors::db::{Db, ProbeError};
use retro_tables::value::{Value as Val, Wdl};
use serde_json::{json, Value};
use std::time::Instant;

/// The value of a position when it is known for sure: the game is over, or a table holds it.
pub fn exact_value(g: &Dara, t: &Tables, p: &Position) -> Result<Option<Val>, ProbeError> {
    if let Some((loser, _)) = g.outcome(p) {
        return Ok(Some(if loser == p.side {
            Val::Loss(0)
        } else {
            Val::Win(0)
        }));
    }
    if t.covers(p) {
        return t.value(p).map(Some);
    }
    Ok(None)
}

/// [`exact_value`] without the distance: what `--wdl-only` tables know too.
pub fn exact_wdl(g: &Dara, t: &Tables, p: &Position) -> Result<Option<Wdl>, ProbeError> {
    if g.outcome(p).is_some() {
        // A finished game's value comes from its outcome, not from a table.
        return Ok(exact_value(g, t, p)?.map(Val::wdl));
    }
    if t.covers(p) {
        return t.wdl(p).map(Some);
    }
    Ok(None)
}

/// [`table_analysis`] from win/draw/loss alone (`--wdl-only` tables): results without plies
/// ("distances": false), and no principal variation (a line that keeps a won result need not
/// make progress).
fn table_wdl_analysis(g: &Dara, t: &Tables, p: &Position) -> Result<Option<Value>, ProbeError> {
    let Some(v) = exact_wdl(g, t, p)? else {
        return Ok(None);
    };
    let mut list = Vec::new();
    g.moves(p, &mut list);
    let mut scored = Vec::new();
    for (m, q) in &list {
        let Some(c) = exact_wdl(g, t, q)? else {
            return Ok(None);
        };
        scored.push((g.format_move(m), c.parent()));
    }
    scored.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let top = scored.first().map(|s| s.1);
    let mut out = json!({
        "fen": g.format_position(p),
        "result": v.result(),
        "plies": null,
        "distances": false,
        "proven": true,
        "depth": null,
        "source": "tables",
        "best": scored.iter().filter(|s| Some(s.1) == top).map(|s| &s.0).collect::<Vec<_>>(),
        "moves": scored.iter().map(|s| json!({"move": s.0, "result": s.1.result(), "plies": null}))
            .collect::<Vec<_>>(),
    });
    mark_finished(g, p, &mut out);
    Ok(Some(out))
}

/// Marks the analysis of a finished game as such: the rules decide it, tables or none.
fn mark_finished(g: &Dara, p: &Position, out: &mut Value) {
    if g.outcome(p).is_some() {
        out["game_over"] = json!(true);
        out["source"] = json!("rules");
    }
}

fn value_row(text: String, v: Val) -> Value {
    json!({"move": text, "result": v.result(), "plies": v.plies()})
}

/// The analysis of a position the tables hold: every move's value from the tables.
fn table_analysis(
    g: &Dara,
    t: &Tables,
    p: &Position,
    pv: bool,
) -> Result<Option<Value>, ProbeError> {
    let Some(v) = exact_value(g, t, p)? else {
        return Ok(None);
    };
    let mut list = Vec::new();
    g.moves(p, &mut list);
    let mut scored = Vec::new();
    for (m, q) in &list {
        let Some(c) = exact_value(g, t, q)? else {
            return Ok(None);
        };
        scored.push((g.format_move(m), c.parent(), *q));
    }
    scored.sort_by(|a, b| b.1.preference().cmp(&a.1.preference()).then(a.0.cmp(&b.0)));
    let best: Vec<&String> = scored
        .iter()
        .filter(|s| s.1.preference() == scored[0].1.preference())
        .map(|s| &s.0)
        .collect();
    let mut out = json!({
        "fen": g.format_position(p),
        "result": v.result(),
        "plies": v.plies(),
        "proven": true,
        "depth": null,
        "source": "tables",
        "best": best,
        "moves": scored.iter().map(|s| value_row(s.0.clone(), s.1)).collect::<Vec<_>>(),
    });
    mark_finished(g, p, &mut out);
    if pv {
        let mut line = Vec::new();
        let mut cur = *p;
        let limit = if matches!(v, Val::Draw) { 40 } else { 2000 };
        while line.len() < limit && g.outcome(&cur).is_none() {
            let mut ms = Vec::new();
            g.moves(&cur, &mut ms);
            let mut best: Option<(i32, String, Position)> = None;
            for (m, q) in &ms {
                let Some(c) = exact_value(g, t, q)? else {
                    continue;
                };
                let pref = c.parent().preference();
                if best.as_ref().is_none_or(|b| pref > b.0) {
                    best = Some((pref, g.format_move(m), *q));
                }
            }
            let Some((_, text, q)) = best else { break };
            line.push(text);
            cur = q;
        }
        out["pv"] = json!(line);
    }
    Ok(Some(out))
}

/// Result and plies of a search score (`"unknown"` when no forced result was found).
pub fn score_row(score: i32, proven: bool) -> (&'static str, Option<u16>) {
    match value_of(score) {
        Some(v) => (v.result(), v.plies()),
        None if proven => ("draw", None),
        None => ("unknown", None),
    }
}

/// The analysis of a position: from the tables when they hold it, else a search (with `pv`,
/// `"pv": null`: a search's answer has no line).
pub fn analysis_json(
    g: &Dara,
    t: &Tables,
    p: &Position,
    pv: bool,
    limits: Limits,
) -> Result<Value, ProbeError> {
    let from_tables = match table_analysis(g, t, p, pv) {
        Err(e) if e.no_distances() && !pv => table_wdl_analysis(g, t, p),
        r => r,
    };
    if let Some(out) = from_tables? {
        return Ok(out);
    }
    let r = search(g, t, p, limits)?.expect("a finished game has an exact value");
    let moves = r
        .moves
        .iter()
        .map(|m| (g.format_move(&m.mv), m.score, m.proven));
    let mut out = search_json(
        g.format_position(p),
        (r.score, r.proven, r.depth, r.nodes),
        moves.collect(),
    );
    if pv {
        out["pv"] = Value::Null;
    }
    Ok(out)
}

/// The analysis JSON of a win/draw/loss search (Dara, and Mill where no table holds a
/// position): `root` is (score, proven, depth, nodes); `moves` (text, score, proven), best first.
pub fn search_json(
    fen: String,
    root: (i32, bool, u32, u64),
    moves: Vec<(String, i32, bool)>,
) -> Value {
    let (score, proven, depth, nodes) = root;
    let (result, plies) = score_row(score, proven);
    let best: Vec<&String> = moves
        .iter()
        .filter(|m| m.1 == score)
        .map(|m| &m.0)
        .collect();
    let rows: Vec<Value> = moves
        .iter()
        .map(|(text, score, proven)| {
            let (result, plies) = score_row(*score, *proven);
            json!({"move": text, "result": result, "plies": plies, "score": score})
        })
        .collect();
    json!({
        "fen": fen,
        "result": result,
        "plies": plies,
        "proven": proven,
        "depth": depth,
        "source": "search",
        "score": score,
        "best": best,
        "moves": rows,
        "nodes": nodes,
    })
}

/// `retro analyse dara`: from the endgame tables where they hold the position, else by search
/// with the tables at the leaves.
pub fn analyse(a: &AnalyseArgs, record: Option<&[String]>) -> Result<(), CliError> {
    let (rules, dir, fen, pv) = (&a.rules, &a.dir, a.fen.as_deref(), a.pv);
    let (as_json, batch, annotate) = (a.json, a.batch.as_deref(), a.annotate);
    let g = game(rules)?;
    let limits = output::limits(a.depth, a.time)?;
    let db = Db::with_rules(DaraRules { game: g.clone() }, dir);
    let tables = Tables::open(&db);
    if let Some(path) = batch {
        return output::batch(path, |i, line| match g.parse_position(line) {
            Ok(p) => analysis_json(&g, &tables, &p, pv, limits)
                .unwrap_or_else(|e| output::line_error(i, line, e)),
            Err(e) => output::line_error(i, line, e),
        });
    }
    let mut p = position(&g, fen)?;
    let referee = DaraReferee {
        game: g.clone(),
        n_move_rule: rules.n_move_rule()?,
    };
    let rec = record
        .map(|moves| crate::referee::play(&referee, p, moves))
        .transpose()?;
    let start = Instant::now();
    let analyse = |p: &Position| analysis_json(&g, &tables, p, pv, limits).map_err(CliError::other);
    let v = match &rec {
        Some(r) => {
            p = *r.last();
            let mut v = crate::referee::record_json(r, analyse)?;
            if annotate {
                // A position no table holds has no annotation; a table that cannot be read is
                // an error, not a missing annotation.
                let judge = |a: &Position, b: &Position| {
                    use crate::referee::known;
                    let before = known(exact_value(&g, &tables, a), || exact_wdl(&g, &tables, a))?;
                    let after = known(
                        exact_value(&g, &tables, b).map(|v| v.map(Val::parent)),
                        || Ok(exact_wdl(&g, &tables, b)?.map(Wdl::parent)),
                    )?;
                    let change = before
                        .as_ref()
                        .zip(after.as_ref())
                        .and_then(|(b, a)| crate::referee::wdl_change(b, a));
                    Ok::<_, ProbeError>((before, after, change))
                };
                let notes = crate::referee::annotate(r, judge).map_err(CliError::other)?;
                v["annotations"] = json!(notes);
            }
            v
        }
        None => analyse(&p)?,
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
                "Result: {} (side to move)",
                v["result"].as_str().unwrap_or("?")
            );
            return Ok(());
        }
    }
    print!("{}", g.diagram(&p));
    println!("Position: {}", g.format_position(&p));
    let describe = |r: &Value| match (r["result"].as_str(), r["plies"].as_u64()) {
        (Some(res), Some(n)) => format!("{res} in {}", crate::output::plies(n)),
        (Some(res), None) => res.to_string(),
        _ => "?".to_string(),
    };
    if v["source"] == "rules" {
        println!("Value: {} (side to move; the game is over)", describe(&v));
    } else if v["source"] == "tables" {
        println!(
            "Value: {} (side to move; from the endgame tables)",
            describe(&v)
        );
        if v["distances"] == false {
            println!(
                "Distances: not in these tables (win/draw/loss only, compressed with --wdl-only)"
            );
        }
    } else {
        let proven = v["proven"].as_bool().unwrap_or(false);
        println!(
            "Value: {} (side to move; {} at depth {}, score {})",
            describe(&v),
            if proven {
                "proven by search: every deciding line reaches the end or a table"
            } else {
                "search result, not a proven value"
            },
            v["depth"],
            v["score"]
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
        let score = if m["score"].is_null() {
            String::new()
        } else {
            format!("  (score {})", m["score"])
        };
        println!(
            "  {:<10} {}{score}",
            m["move"].as_str().unwrap_or(""),
            describe(m)
        );
    }
    output::print_pv(&v, pv);
    let sectors = tables.sectors();
    if sectors.is_empty() && v["source"] != "rules" {
        println!(
            "No endgame tables in {} (build them with: retro solve dara --max-stones 4 --dir {})",
            db.folder.display(),
            dir.display()
        );
    }
    if !v["nodes"].is_null() {
        println!(
            "({} positions, {:.2} s)",
            v["nodes"],
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
