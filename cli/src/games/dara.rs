//! Dara setup for every command: the rules from the arguments, a position from its text, its
//! moves in notation order, the state of a position as JSON.

use crate::args::RuleArgs;
use crate::error::CliError;
use retro_engine::dara::notation::cell_name;
use retro_engine::dara::{Dara, DaraProfile, Position};
use serde_json::{json, Value};

/// Builds the game from `--rule` settings (`--variant` is for Mill only).
pub fn game(rules: &RuleArgs) -> Result<Dara, CliError> {
    // A play rule, not the game's, but checked by every command that takes it.
    rules.n_move_rule()?;
    rules.no_variant(
        "dara",
        "drop-threes-forbidden=on|off, protected-threes=on|off",
    )?;
    let mut profile = DaraProfile::default();
    for r in rules.game_rules() {
        profile.set(r).map_err(CliError::input)?;
    }
    Ok(Dara::new(profile))
}

/// The position of `--fen`, or the start.
pub fn position(g: &Dara, fen: Option<&str>) -> Result<Position, CliError> {
    match fen {
        Some(f) => g.parse_position(f).map_err(CliError::input),
        None => Ok(g.start()),
    }
}

/// The moves of `p` in notation order, each with its text and the position it leads to.
pub fn sorted_moves(g: &Dara, p: &Position) -> Vec<(String, Position)> {
    let mut list = Vec::new();
    g.moves(p, &mut list);
    let mut out: Vec<(String, Position)> =
        list.iter().map(|(m, q)| (g.format_move(m), *q)).collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The state of `p` as JSON: side to move, phase, whether the game is over and why, moves.
pub fn state_json(g: &Dara, p: &Position) -> Value {
    let moves: Vec<String> = sorted_moves(g, p).into_iter().map(|(m, _)| m).collect();
    let over = g.outcome(p).map(|(loser, why)| {
        json!({"winner": loser.other().name(), "loser": loser.name(), "reason": why.describe()})
    });
    let phase = if over.is_some() {
        "over"
    } else if p.hand[p.side.index()] > 0 {
        "drop"
    } else {
        "move"
    };
    json!({
        "position": g.format_position(p),
        "side": p.side.name(),
        "phase": phase,
        "game_over": over,
        "moves": moves,
    })
}

/// The board of `p` for drawing (`retro serve`'s page): every cell of the 6 x 5 grid with its
/// stone, the lines between orthogonal neighbours, stones in hand.
pub fn board_json(p: &Position) -> Value {
    let mut points = Vec::new();
    let mut lines = Vec::new();
    for i in 0..30u8 {
        let bit = 1 << i;
        let stone = if p.stones[0] & bit != 0 {
            json!("white")
        } else if p.stones[1] & bit != 0 {
            json!("black")
        } else {
            Value::Null
        };
        let (x, y) = (i % 6, i / 6);
        points.push(json!({"name": cell_name(i), "x": x, "y": y, "stone": stone, "marked": false}));
        if x < 5 {
            lines.push(json!([cell_name(i), cell_name(i + 1)]));
        }
        if y < 4 {
            lines.push(json!([cell_name(i), cell_name(i + 6)]));
        }
    }
    json!({
        "size": 6,
        "points": points,
        "lines": lines,
        "hand": {"white": p.hand[0], "black": p.hand[1]},
    })
}

/// Every move of `p` with the position it leads to and the cells it names in order.
pub fn children_json(g: &Dara, p: &Position) -> Vec<Value> {
    sorted_moves(g, p)
        .into_iter()
        .map(|(text, q)| {
            let path = super::click_path(&text);
            json!({"move": text, "fen": g.format_position(&q), "path": path})
        })
        .collect()
}
