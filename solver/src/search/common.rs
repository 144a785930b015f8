//! What the searches share: their limits; and for the win/draw/loss searches (Dara, and Mill
//! where no table holds a position) the mate-distance score scale, root results and
//! transposition-table entries.

use retro_tables::value::Value;
use std::time::Duration;

/// Limits of a search.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Deepest iteration (plies).
    pub depth: u32,
    /// Time budget; the deepest iteration finished in time is reported.
    pub time: Option<Duration>,
}

/// Score of a win on the spot; a win in `d` plies scores `MATE - d`.
pub const MATE: i32 = 1_000_000;
/// Scores at least this big (in magnitude) are forced wins or losses.
pub const MATE_BOUND: i32 = MATE - 100_000;

/// The score of a table value at `ply` plies from the root.
pub fn score_of(v: Value, ply: u32) -> i32 {
    match v {
        Value::Win(d) => MATE - (ply as i32 + d as i32),
        Value::Loss(d) => -(MATE - (ply as i32 + d as i32)),
        Value::Draw => 0,
    }
}

/// The forced result a score stands for, if it is in the mate range.
pub fn value_of(score: i32) -> Option<Value> {
    if score >= MATE_BOUND {
        Some(Value::Win((MATE - score) as u16))
    } else if score <= -MATE_BOUND {
        Some(Value::Loss((MATE + score) as u16))
    } else {
        None
    }
}

/// A root move with its score.
#[derive(Clone, Debug)]
pub struct ScoredMove<M> {
    /// The move.
    pub mv: M,
    /// Score for the mover after this move (plies counted from before it).
    pub score: i32,
    /// Whether the score is exact.
    pub proven: bool,
}

/// The result of a search.
#[derive(Clone, Debug)]
pub struct SearchResult<M> {
    /// Score of the position for the side to move.
    pub score: i32,
    /// Depth of the deepest completed iteration.
    pub depth: u32,
    /// Whether the score is exact (every deciding line reached the end or a table).
    pub proven: bool,
    /// Every legal move with its score, best first.
    pub moves: Vec<ScoredMove<M>>,
    /// Positions searched.
    pub nodes: u64,
}

/// How a stored score bounds the true one.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    Exact,
    Lower,
    Upper,
}

/// A transposition-table entry.
#[derive(Clone, Copy)]
pub(crate) struct Entry<M> {
    pub(crate) depth: u32,
    /// Score relative to this node (mate distances counted from it).
    pub(crate) value: i32,
    pub(crate) bound: Bound,
    pub(crate) proven: bool,
    pub(crate) best: M,
}
