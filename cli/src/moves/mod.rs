//! `retro moves`: the legal moves and the state of a position, per game.

mod dara;
mod mill;
mod oaq;

use crate::args::{GameKind, MovesArgs};
use crate::error::CliError;

/// Runs `retro moves`.
pub fn run(a: &MovesArgs) -> Result<(), CliError> {
    let (fen, batch) = (a.fen.as_deref(), a.batch.as_deref());
    crate::games::check_split(a.game, a.split)?;
    match a.game {
        GameKind::Mill => mill::moves(&a.rules, fen, a.split, a.json, batch),
        GameKind::Dara => dara::moves(&a.rules, fen, a.json, batch),
        GameKind::Oaq => oaq::moves(&a.rules, fen, a.json, batch),
    }
}
