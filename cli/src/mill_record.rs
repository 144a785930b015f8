//! Mill game records: a start position plus moves, played with full legality checks and the
//! play rules the solved values ignore (threefold repetition, the N-move rule), and annotated
//! ply by ply from the tables.

use crate::error::CliError;
use retro_engine::mill::{Mill, Position};
use retro_engine::Color;
use retro_solver::db::{Db, ProbeError};
use retro_solver::value::Value;
use serde_json::{json, Value as Json};
use std::collections::HashMap;

/// Why a recorded game ended before its last move was analysed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The rules of the game ended it (a side lost).
    Rules(String),
    /// The same position (board, side to move, stones in hand, pending removals) occurred a
    /// third time.
    Repetition,
    /// The profile's N-move rule: this many plies without a removal or placement.
    NMoveRule(u32),
}

impl Ended {
    /// Short reason for JSON and text.
    pub fn reason(&self) -> String {
        match self {
            Ended::Rules(r) => r.clone(),
            Ended::Repetition => "threefold repetition".into(),
            Ended::NMoveRule(n) => {
                format!("N-move rule ({n} plies without a removal or placement)")
            }
        }
    }
}

/// A played record.
pub struct Played {
    /// The positions: the start, then one after each ply.
    pub positions: Vec<Position>,
    /// The moves as written back in the game's notation.
    pub moves: Vec<String>,
    /// Set when the game ended; with the ply (1-based) at which it did.
    pub ended: Option<(usize, Ended)>,
}

/// Splits a record into move texts (spaces, new lines, commas; `1.`-style numbers skipped).
pub fn split_moves(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .filter(|t| !(t.ends_with('.') && t[..t.len() - 1].chars().all(|c| c.is_ascii_digit())))
        .map(str::to_string)
        .collect()
}

/// What makes two positions "the same" for repetition: board, marked points, side to move,
/// stones in hand and any pending action.
fn repetition_key(p: &Position) -> (u32, u32, u32, u8, u8, Color, i8, i8, bool, bool) {
    (
        p.stones[0],
        p.stones[1],
        p.marked,
        p.hand[0],
        p.hand[1],
        p.side,
        p.pending[0],
        p.pending[1],
        p.placing,
        p.stalemate_removal,
    )
}

/// Plays `moves` from `start`. An illegal move is an error naming its ply; a move after the
/// end of the game is one too.
pub fn play(m: &Mill, start: &Position, moves: &[String]) -> Result<Played, CliError> {
    let mut positions = vec![*start];
    let mut written = Vec::new();
    let mut seen: HashMap<_, u32> = HashMap::new();
    seen.insert(repetition_key(start), 1);
    let mut ended = end_by_rules(m, start).map(|e| (0, e));
    let mut list = Vec::new();
    for (i, text) in moves.iter().enumerate() {
        let ply = i + 1;
        if let Some((at, why)) = &ended {
            return Err(CliError::input(format!(
                "ply {ply}: move '{text}' comes after the end of the game (ply {at}: {})",
                why.reason()
            )));
        }
        let p = *positions.last().expect("the start is there");
        let mv = m
            .parse_move(&p, text)
            .map_err(|e| CliError::input(format!("ply {ply}: move '{text}': {e}")))?;
        m.moves(&p, &mut list);
        let q = list
            .iter()
            .find(|(x, _)| *x == mv)
            .map(|(_, q)| *q)
            .ok_or_else(|| CliError::input(format!("ply {ply}: move '{text}' is not legal")))?;
        written.push(m.format_move(&mv));
        positions.push(q);
        let count = seen.entry(repetition_key(&q)).or_insert(0);
        *count += 1;
        ended = if let Some(e) = end_by_rules(m, &q) {
            Some((ply, e))
        } else if *count >= 3 {
            Some((ply, Ended::Repetition))
        } else {
            let n = m.profile.n_move_rule;
            (n > 0 && q.rule50 as u32 >= n).then_some((ply, Ended::NMoveRule(n)))
        };
    }
    Ok(Played {
        positions,
        moves: written,
        ended,
    })
}

fn end_by_rules(m: &Mill, p: &Position) -> Option<Ended> {
    m.outcome(p)
        .map(|o| Ended::Rules(format!("{} wins ({:?})", o.loser.other().name(), o.reason)))
}

/// A value as JSON: `{"result", "plies"}`.
fn value_json(v: Value) -> Json {
    json!({"result": v.result(), "plies": v.plies()})
}

/// Rank of a result for the mover: 2 win, 1 draw, 0 loss.
fn class(v: Value) -> u8 {
    match v {
        Value::Win(_) => 2,
        Value::Draw => 1,
        Value::Loss(_) => 0,
    }
}

/// One line per ply: the value before it (side to move), the value of the move played (for the
/// mover), and whether the move changed the game-theoretic result. Plies whose positions no
/// table holds get `null` values.
pub fn annotate(
    db: &Db,
    played: &Played,
    move_value: &dyn Fn(&Db, &Position, &Position) -> Result<Value, ProbeError>,
) -> Vec<Json> {
    let m = db.game();
    let mut out = Vec::new();
    for (i, text) in played.moves.iter().enumerate() {
        let (p, q) = (&played.positions[i], &played.positions[i + 1]);
        let before = db.value(p).ok();
        let after = move_value(db, p, q).ok();
        let change = match (before, after) {
            (Some(b), Some(a)) if class(a) < class(b) => Some(match (b, a) {
                (Value::Win(_), Value::Draw) => "win thrown away: now a draw",
                (Value::Win(_), _) => "win thrown away: now a loss",
                _ => "draw thrown away: now a loss",
            }),
            _ => None,
        };
        out.push(json!({
            "ply": i + 1,
            "side": p.side.name(),
            "move": text,
            "before": before.map(value_json),
            "after": after.map(value_json),
            "changes_result": change,
            "fen_after": m.format_fen(q),
        }));
    }
    out
}
