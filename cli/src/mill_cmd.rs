//! `retro variants`, `retro moves mill` and `retro perft mill`.

use crate::error::CliError;
use crate::output;
use crate::RuleArgs;
use rayon::prelude::*;
use retro_engine::mill::{Mill, Position, Profile, StepList, PRESETS};
use serde_json::{json, Value};
use std::time::Instant;

/// Builds the game from `--variant` and `--rule` settings.
pub fn game(rules: &RuleArgs) -> Result<Mill, CliError> {
    let mut profile = Profile::preset(rules.mill_variant()).map_err(CliError::input)?;
    for r in &rules.rules {
        profile.set(r).map_err(CliError::input)?;
    }
    Ok(Mill::new(profile))
}

/// The position given by `--fen`, or the start position.
pub fn position(m: &Mill, fen: Option<&str>) -> Result<Position, CliError> {
    match fen {
        Some(f) => m.parse_fen(f).map_err(CliError::input),
        None => Ok(m.start()),
    }
}

/// `retro variants`.
pub fn variants(as_json: bool) -> Result<(), CliError> {
    if as_json {
        let list: Vec<Value> = PRESETS
            .iter()
            .map(|p| {
                let prof = Profile::preset(p.name).expect("preset exists");
                let fields: serde_json::Map<String, Value> = prof
                    .describe()
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), json!(v)))
                    .collect();
                json!({"name": p.name, "note": p.note, "fields": fields})
            })
            .collect();
        println!("{}", json!({ "variants": list }));
        return Ok(());
    }
    println!("Mill variants (use --variant NAME; override any field with --rule FIELD=VALUE):\n");
    let default = Profile::default();
    for p in PRESETS {
        let prof = Profile::preset(p.name).expect("preset exists");
        println!("{:<24} {}", p.name, p.note);
        let diff: Vec<String> = prof
            .describe()
            .into_iter()
            .zip(default.describe())
            .filter(|(a, b)| a != b || p.name == "nine-mens-morris")
            .map(|((k, v), _)| format!("{k}={v}"))
            .collect();
        if p.name == "nine-mens-morris" {
            println!("{:<24} {}", "", diff.join(" "));
        } else {
            println!("{:<24} {} (else as nine-mens-morris)", "", diff.join(" "));
        }
    }
    Ok(())
}

fn state_json(m: &Mill, p: &Position, split: bool) -> Value {
    let list: Vec<String> = m.children(p, split).into_iter().map(|(s, _)| s).collect();
    let over = m.outcome(p);
    let si = p.side.index();
    let phase = if over.is_some() {
        "over"
    } else if p.pending[si] != 0 {
        "removing"
    } else if p.hand[si] > 0 {
        "placing"
    } else if m.flies(p, p.side) {
        "flying"
    } else {
        "moving"
    };
    json!({
        "fen": m.format_fen(p),
        "side": p.side.name(),
        "phase": phase,
        "game_over": over.map(|o| json!({
            "winner": o.loser.other().name(),
            "loser": o.loser.name(),
            "reason": o.reason.describe(),
        })),
        "moves": list,
    })
}

/// `retro moves mill`.
pub fn moves(
    rules: &RuleArgs,
    fen: Option<&str>,
    split: bool,
    as_json: bool,
    batch: Option<&str>,
) -> Result<(), CliError> {
    let m = game(rules)?;
    if let Some(path) = batch {
        return output::batch(path, |i, line| match m.parse_fen(line) {
            Ok(p) => state_json(&m, &p, split),
            Err(e) => output::line_error(i, line, e),
        });
    }
    let p = position(&m, fen)?;
    if as_json {
        println!("{}", state_json(&m, &p, split));
        return Ok(());
    }
    print!("{}", m.diagram(&p));
    println!("FEN: {}", m.format_fen(&p));
    let list: Vec<String> = m.children(&p, split).into_iter().map(|(s, _)| s).collect();
    if list.is_empty() {
        println!("No legal moves.");
    } else {
        println!(
            "{} legal moves ({} form):",
            list.len(),
            if split { "split" } else { "compound" }
        );
        for chunk in list.chunks(10) {
            println!("  {}", chunk.join(" "));
        }
    }
    Ok(())
}

/// Perft below each root move, in parallel over the positions two plies down.
fn divide(m: &Mill, p: &Position, depth: u32, split: bool, bulk: bool) -> Vec<(String, u64)> {
    let roots = m.children(p, split);
    let mut tasks: Vec<(usize, Position, u32)> = Vec::new();
    for (i, (_, q)) in roots.iter().enumerate() {
        let grand = if depth >= 3 {
            m.children(q, split)
        } else {
            Vec::new()
        };
        if grand.is_empty() {
            tasks.push((i, *q, depth - 1));
        } else {
            tasks.extend(grand.into_iter().map(|(_, r)| (i, r, depth - 2)));
        }
    }
    let counts: Vec<(usize, u64)> = tasks
        .par_iter()
        .map(|&(i, r, d)| (i, m.perft_with(&r, d, split, bulk)))
        .collect();
    let mut per_root = vec![0u64; roots.len()];
    for (i, n) in counts {
        per_root[i] += n;
    }
    roots.into_iter().map(|(s, _)| s).zip(per_root).collect()
}

/// Perft of `p` on `threads` threads: per-root counts, nodes and seconds, and the threads used.
pub fn perft_count(
    m: &Mill,
    p: &Position,
    depth: u32,
    split: bool,
    bulk: bool,
    threads: Option<usize>,
) -> Result<(output::PerftSplit, usize), CliError> {
    let pool = crate::output::pool(threads)?;
    let threads_used = pool.current_num_threads();
    let start = Instant::now();
    let (nodes, parts) = pool.install(|| {
        let has_moves = {
            let mut l = StepList::default();
            m.steps(p, &mut l);
            !l.is_empty()
        };
        if depth == 0 || m.decided(p) || !has_moves {
            (1, Vec::new())
        } else {
            let parts = divide(m, p, depth, split, bulk);
            (parts.iter().map(|(_, n)| n).sum(), parts)
        }
    });
    Ok(((parts, nodes, start.elapsed().as_secs_f64()), threads_used))
}

/// `retro perft mill`.
#[allow(clippy::too_many_arguments)]
pub fn perft(
    rules: &RuleArgs,
    fen: Option<&str>,
    depth: u32,
    split: bool,
    bulk: bool,
    show_divide: bool,
    threads: Option<usize>,
    as_json: bool,
) -> Result<(), CliError> {
    let m = game(rules)?;
    let p = position(&m, fen)?;
    let ((parts, nodes, secs), threads_used) = perft_count(&m, &p, depth, split, bulk, threads)?;
    let title = format!(
        "perft {} depth {depth} ({} form, {threads_used} thread{}, {})",
        rules.mill_variant(),
        if split { "split" } else { "compound" },
        if threads_used == 1 { "" } else { "s" },
        if !split {
            "every move made"
        } else if bulk {
            "bulk counting at the last ply"
        } else {
            "every step of the last ply made"
        }
    );
    output::perft_report(&title, &parts, nodes, secs, show_divide, as_json);
    Ok(())
}
