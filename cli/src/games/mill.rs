//! Mill setup for every command: the rules from the arguments, a position from its text, the
//! state of a position as JSON.

use crate::args::RuleArgs;
use crate::error::CliError;
use retro_engine::mill::{Mill, Position, Profile};
use serde_json::{json, Value};

/// Builds the game from `--variant` and `--rule` settings.
pub fn game(rules: &RuleArgs) -> Result<Mill, CliError> {
    let mut profile = Profile::preset(rules.mill_variant()).map_err(CliError::input)?;
    // All settings first, then the check that the stones fit: their order does not matter.
    profile
        .set_all(rules.rules.iter().map(String::as_str))
        .map_err(CliError::input)?;
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
            "winner": o.loser.map(|l| l.other().name()),
            "loser": o.loser.map(|l| l.name()),
            "reason": o.reason.describe(),
        })),
        "moves": list,
    })
}

/// The board of `p` for drawing (`retro serve`'s page): every point with its grid position
/// (file and rank of its name) and stone, the lines between neighbours, stones in hand.
pub fn board_json(m: &Mill, p: &Position) -> Value {
    let g = m.geo;
    let owner = |i: usize| {
        if p.stones[0] & (1 << i) != 0 {
            json!("white")
        } else if p.stones[1] & (1 << i) != 0 {
            json!("black")
        } else {
            Value::Null
        }
    };
    let points: Vec<Value> = (0..g.points)
        .map(|i| {
            let name = g.names[i].as_bytes();
            json!({
                "name": g.names[i],
                "x": name[0] - b'a',
                "y": name[1] - b'1',
                "stone": owner(i),
                "marked": p.marked & (1 << i) != 0,
            })
        })
        .collect();
    let mut lines = Vec::new();
    for i in 0..g.points {
        for j in i + 1..g.points {
            if g.adjacent[i] & (1 << j) != 0 {
                lines.push(json!([g.names[i], g.names[j]]));
            }
        }
    }
    json!({
        "size": 2 * g.rings + 1,
        "points": points,
        "lines": lines,
        "hand": {"white": p.hand[0], "black": p.hand[1]},
    })
}

/// Every move of `p` (whole moves, removals included) with the position it leads to and the
/// points it names in order (what a click on the board picks: from, to, removed).
pub fn children_json(m: &Mill, p: &Position) -> Vec<Value> {
    m.children(p, false)
        .into_iter()
        .map(|(text, q)| {
            let path = super::click_path(&text);
            json!({"move": text, "fen": m.format_fen(&q), "path": path})
        })
        .collect()
}
