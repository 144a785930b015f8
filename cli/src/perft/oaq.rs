//! `retro perft oaq`: leaf counts of Ô Ăn Quan move trees (also what `retro bench` runs).

use crate::args::RuleArgs;
use crate::error::CliError;
use crate::games::oaq::{game, position};
use crate::output;
use retro_engine::oaq::{Oaq, Position};

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
