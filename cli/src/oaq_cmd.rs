//! `retro moves oaq`, `retro perft oaq` and `retro analyse oaq`.

use crate::error::CliError;
use crate::game_referees::OaqReferee;
use crate::output;
use crate::RuleArgs;
use retro_engine::oaq::{Oaq, OaqProfile, Position};
use retro_solver::oaq::index::OaqIndex;
use retro_solver::oaq::search::{search, Limits};
use retro_solver::oaq::table::OaqProbe;
use retro_solver::oaq::values::gain;
use retro_tables::location::{profile_folder, OAQ_FILE};
use retro_tables::OaqTable;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Builds the game from `--rule` settings (`--variant` is for Mill only).
pub fn game(rules: &RuleArgs) -> Result<Oaq, CliError> {
    rules.no_variant("oaq", "seeds=K,M, big-mandarin=V, quan-non=K")?;
    let mut profile = OaqProfile::default();
    for r in rules.game_rules() {
        profile.set(r).map_err(CliError::input)?;
    }
    Ok(Oaq::new(profile))
}

/// The position of `--fen`, or the start.
pub fn position(g: &Oaq, fen: Option<&str>) -> Result<Position, CliError> {
    match fen {
        Some(f) => g.parse_position(f).map_err(CliError::input),
        None => Ok(g.start()),
    }
}

fn state_json(g: &Oaq, p: &Position) -> Value {
    let mut list = Vec::new();
    g.moves(p, &mut list);
    let moves: Vec<Value> = list
        .iter()
        .map(|(m, t)| {
            json!({
                "move": g.format_move(m),
                "captured": t.captured,
                "refilled": t.refilled,
                "position": g.format_position(&t.position),
            })
        })
        .collect();
    let over = g.outcome(p).map(|f| {
        json!({
            "south": f.stores[0],
            "north": f.stores[1],
            "winner": f.winner.map(|s| s.name()),
        })
    });
    json!({
        "position": g.format_position(p),
        "side": p.side.name(),
        "game_over": over,
        "moves": moves,
    })
}

/// `retro moves oaq`.
pub fn moves(
    rules: &RuleArgs,
    fen: Option<&str>,
    as_json: bool,
    batch: Option<&str>,
) -> Result<(), CliError> {
    let g = game(rules)?;
    if let Some(path) = batch {
        return output::batch(path, |i, line| match g.parse_position(line) {
            Ok(p) => state_json(&g, &p),
            Err(e) => output::line_error(i, line, e),
        });
    }
    let p = position(&g, fen)?;
    if as_json {
        println!("{}", state_json(&g, &p));
        return Ok(());
    }
    print!("{}", g.diagram(&p));
    println!("Position: {}", g.format_position(&p));
    let mut list = Vec::new();
    g.moves(&p, &mut list);
    if list.is_empty() {
        println!("No legal moves.");
    }
    for (m, t) in &list {
        println!(
            "  {:<4} captures {:>3}{}  -> {}",
            g.format_move(m),
            t.captured,
            if t.refilled {
                " (after refilling, -5)"
            } else {
                ""
            },
            g.format_position(&t.position)
        );
    }
    Ok(())
}

/// Perft of `p` on `threads` threads, bulk-counting the last ply (or playing every move).
pub fn perft_count(
    g: &Oaq,
    p: &Position,
    depth: u32,
    bulk: bool,
    threads: Option<usize>,
) -> Result<output::PerftSplit, CliError> {
    let mut list = Vec::new();
    g.moves(p, &mut list);
    let roots: Vec<(String, Position)> = list
        .iter()
        .map(|(m, t)| (g.format_move(m), t.position))
        .collect();
    output::perft_roots(threads, &roots, depth, |q, d| {
        if bulk {
            g.perft(q, d)
        } else {
            g.perft_made(q, d)
        }
    })
}

/// `retro perft oaq`.
pub fn perft(
    rules: &RuleArgs,
    fen: Option<&str>,
    depth: u32,
    bulk: bool,
    divide: bool,
    threads: Option<usize>,
    as_json: bool,
) -> Result<(), CliError> {
    let g = game(rules)?;
    let p = position(&g, fen)?;
    let (parts, nodes, secs) = perft_count(&g, &p, depth, bulk, threads)?;
    let title = format!(
        "perft oaq ({}) depth {depth}, {}",
        g.profile.fingerprint(),
        if bulk {
            "bulk counting at the last ply"
        } else {
            "every move of the last ply played"
        }
    );
    output::perft_report(&title, &parts, nodes, secs, divide, as_json);
    Ok(())
}

/// The answer of a solved game's table, when it holds the position.
fn table_json(g: &Oaq, table: &Solved, p: &Position) -> Option<Value> {
    let (t, idx) = table;
    let v = t.value(g, idx, p)?;
    let mut list = Vec::new();
    g.moves(p, &mut list);
    let mut moves = Vec::new();
    for (m, turn) in &list {
        let child = t.value(g, idx, &turn.position)?;
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
        out["game_over"] = json!(true);
    }
    Some(out)
}

/// One ply judged by the solved game's table: the value before it, the move's value (its gain
/// minus the value left to the opponent), and the seeds it gave away.
fn judge(g: &Oaq, table: Option<&Solved>, p: &Position, q: &Position) -> crate::referee::Judgement {
    let Some((t, idx)) = table else {
        return (None, None, None);
    };
    let before = t.value(g, idx, p);
    let mut list = Vec::new();
    g.moves(p, &mut list);
    let after = list
        .iter()
        .find(|(_, turn)| turn.position == *q)
        .and_then(|(_, turn)| Some(gain(turn) - t.value(g, idx, q)?));
    let change = match (before, after) {
        (Some(b), Some(a)) if a < b => Some(format!("gives away {} seeds", b - a)),
        _ => None,
    };
    (
        before.map(|v| json!({"score": v})),
        after.map(|v| json!({"score": v})),
        change,
    )
}

/// A solved game's table with its index.
pub type Solved = (OaqTable, OaqIndex);

/// The analysis of a position: from the solved game's table when it holds it, else a search.
pub fn analysis_json(g: &Oaq, table: Option<&Solved>, p: &Position, limits: Limits) -> Value {
    if let Some(out) = table.and_then(|t| table_json(g, t, p)) {
        return out;
    }
    let Some(r) = search(g, p, limits) else {
        let f = g
            .outcome(p)
            .expect("no search result only when the game is over");
        let s = p.side.index();
        let net = (f.stores[s] - p.stores[s]) - (f.stores[1 - s] - p.stores[1 - s]);
        return json!({
            "fen": g.format_position(p), "score": net, "proven": true, "depth": 0,
            "best": [], "moves": [], "game_over": true,
        });
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
    json!({
        "fen": g.format_position(p),
        "score": r.score,
        "proven": r.proven,
        "depth": r.depth,
        "source": "search",
        "best": best,
        "moves": moves,
        "nodes": r.nodes,
    })
}

/// `retro analyse oaq`: from the game's table when `retro solve oaq` built one for these rules,
/// else by search; scores as future net seeds for the side to move.
#[allow(clippy::too_many_arguments)]
pub fn analyse(
    rules: &RuleArgs,
    dir: &std::path::Path,
    fen: Option<&str>,
    as_json: bool,
    batch: Option<&str>,
    depth: Option<u32>,
    time: Option<f64>,
    record: Option<&[String]>,
    annotate: bool,
) -> Result<(), CliError> {
    let g = game(rules)?;
    let time = output::time_limit(depth, time)?;
    let limits = Limits {
        depth: depth.unwrap_or(200),
        time,
    };
    let table = open_table(&g, dir)?.map(|t| (t, OaqIndex::new(&g)));
    if let Some(path) = batch {
        return output::batch(path, |i, line| match g.parse_position(line) {
            Ok(p) => analysis_json(&g, table.as_ref(), &p, limits),
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
    let analyse = |p: &Position| Ok(analysis_json(&g, table.as_ref(), p, limits));
    let v = match &rec {
        Some(r) => {
            p = *r.last();
            let mut v = crate::referee::record_json(r, analyse)?;
            if annotate {
                let judge = |a: &Position, b: &Position| judge(&g, table.as_ref(), a, b);
                v["annotations"] = json!(crate::referee::annotate(r, &judge));
            }
            v
        }
        None => analysis_json(&g, table.as_ref(), &p, limits),
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
    println!("Best: {}", best.join(" "));
    for m in v["moves"].as_array().into_iter().flatten() {
        println!("  {:<4} {}", m["move"].as_str().unwrap_or(""), m["score"]);
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

/// Where the table of a game's rules lives under `dir`.
pub fn table_path(g: &Oaq, dir: &Path) -> PathBuf {
    profile_folder(dir, "oaq", &g.profile.fingerprint()).join(OAQ_FILE)
}

/// Opens the table of a game's rules, checking that it was built for them.
pub fn open_table(g: &Oaq, dir: &Path) -> Result<Option<OaqTable>, CliError> {
    let path = table_path(g, dir);
    if !path.exists() {
        return Ok(None);
    }
    let t = OaqTable::open(&path).map_err(CliError::other)?;
    if t.header.fingerprint != g.profile.fingerprint() {
        return Err(CliError::other(format!(
            "{}: table built for other rules ({:?}), expected {:?}",
            path.display(),
            t.header.fingerprint,
            g.profile.fingerprint()
        )));
    }
    Ok(Some(t))
}
