//! Mill setup for every command: the rules from the arguments, a position from its text, the
//! state of a position as JSON.

use crate::args::RuleArgs;
use crate::error::CliError;
use retro_engine::mill::{Mill, Position, Profile};
use serde_json::{json, Value};

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

/// The state of `p` as JSON: side to move, phase, whether the game is over and why, moves.
pub fn state_json(m: &Mill, p: &Position, split: bool) -> Value {
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
