//! `retro perft dara`: leaf counts of Dara move trees (also what `retro bench` runs).

use crate::args::RuleArgs;
use crate::error::CliError;
use crate::games::dara::{game, position, sorted_moves};
use crate::output;
use retro_engine::dara::{Dara, Position};

/// Perft of `p` on `threads` threads (Dara's generator builds every child's position, so there
/// is no bulk counting to switch off).
pub fn perft_count(
    g: &Dara,
    p: &Position,
    depth: u32,
    threads: Option<usize>,
) -> Result<output::PerftSplit, CliError> {
    let roots = sorted_moves(g, p);
    output::perft_roots(threads, &roots, depth, |q, d| g.perft(q, d))
}

/// `retro perft dara`.
pub fn perft(
    rules: &RuleArgs,
    fen: Option<&str>,
    depth: u32,
    divide: bool,
    threads: Option<usize>,
    as_json: bool,
) -> Result<(), CliError> {
    let g = game(rules)?;
    let p = position(&g, fen)?;
    let (parts, nodes, secs) = perft_count(&g, &p, depth, threads)?;
    let title = format!(
        "perft dara ({}) depth {depth}, every move made (the generator builds each child)",
        g.profile.fingerprint()
    );
    output::perft_report(&title, &parts, nodes, secs, divide, as_json);
    Ok(())
}
