//! `retro perft mill`: leaf counts of Mill move trees (also what `retro bench` runs).

use crate::args::RuleArgs;
use crate::error::CliError;
use crate::games::mill::{game, position};
use crate::output;
use rayon::prelude::*;
use retro_engine::mill::{Mill, Position, StepList};
use std::time::Instant;

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
