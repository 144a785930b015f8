//! What both Ô Ăn Quan score solvers (the reference `solve.rs` and `big.rs`) and their
//! checkpoints share: a finished game's value, a move's gain, progress reports, figures.

use retro_engine::oaq::{Oaq, Position};
pub use retro_tables::oaq_table::UNREACHABLE;

/// Sweeps after which a solve gives up (values still changing).
pub const MAX_SWEEPS: u32 = 10_000;

/// The value of a finished game for the side to move: the final collection, own row minus the
/// opponent's (`None` when the game goes on).
pub fn final_value(g: &Oaq, p: &Position) -> Option<i16> {
    let f = g.outcome(p)?;
    let s = p.side.index();
    Some((f.stores[s] - p.stores[s]) - (f.stores[1 - s] - p.stores[1 - s]))
}

/// The gain of a turn for the mover.
pub fn gain(t: &retro_engine::oaq::Turn) -> i16 {
    t.captured - if t.refilled { 5 } else { 0 }
}

/// What a solve reports as it goes.
pub trait OaqProgress: Sync {
    /// Positions marked reachable so far.
    fn reached(&self, _positions: u64) {}
    /// A value sweep finished; `changed` positions moved.
    fn sweep(&self, _sweep: u32, _changed: u64) {}
    /// Part of a value sweep is done: `done` of `total` pieces (called from worker threads).
    fn sweeping(&self, _sweep: u32, _done: u64, _total: u64) {}
    /// A checkpoint could not be used (`why`); the solve starts over.
    fn refused(&self, _path: &std::path::Path, _why: &str) {}
}

impl OaqProgress for () {}

/// Figures of a solve.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Index slots.
    pub slots: u64,
    /// Reachable positions.
    pub positions: u64,
    /// Finished games among them.
    pub terminal: u64,
    /// Moves out of reachable positions.
    pub moves: u64,
    /// Value sweeps until nothing changed.
    pub sweeps: u32,
}

/// Where and how often a long solve saves its state.
pub struct Checkpoints {
    /// The checkpoint file.
    pub path: std::path::PathBuf,
    /// Least time between two checkpoints.
    pub every: std::time::Duration,
}
