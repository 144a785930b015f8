//! `retro perft`: leaf counts of the move tree, per game.

pub mod dara;
pub mod mill;
pub mod oaq;

use crate::args::{GameKind, PerftArgs};
use crate::error::CliError;

/// Runs `retro perft`.
pub fn run(a: &PerftArgs) -> Result<(), CliError> {
    let (fen, bulk) = (a.fen.as_deref(), !a.no_bulk);
    crate::games::check_split(a.game, a.split)?;
    match a.game {
        GameKind::Mill => mill::perft(
            &a.rules, fen, a.depth, a.split, bulk, a.divide, a.threads, a.json,
        ),
        GameKind::Dara => dara::perft(&a.rules, fen, a.depth, a.divide, a.threads, a.json),
        GameKind::Oaq => oaq::perft(&a.rules, fen, a.depth, bulk, a.divide, a.threads, a.json),
    }
}
