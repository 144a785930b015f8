//! Searched wins marked while a unit is solved, so that compressing its tables need not look
//! at every win's moves again ([`crate::sectors::searched`] says which wins are searched).
//!
//! A win in `d > 1` plies of an equal-material sector is searched when some losing move into a
//! sector that keeps its values has distance `d - 1`, and no move of the position lets the same
//! side move again or forces plies. The solver sees both halves of that: the initialisation
//! looks up every move out of the unit (it keeps the least losing one into a kept sector beside
//! the least of all), and a frontier pass over the losses in `d - 1` reaches every parent inside
//! the unit whose value it makes or finds a win in `d` (every sector of an equal-material unit
//! keeps its values). A win found quicker than the initialisation's stays so only through a move
//! inside the unit, which a pass marks.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// One sector's marks: which positions may be searched (no move lets the same side move again
/// or forces plies) and which wins some move to a kept sector reaches in time.
pub struct Marks {
    eligible: Vec<AtomicU64>,
    chosen: Vec<AtomicU64>,
}

impl Marks {
    /// No marks for a sector of `slots` slots.
    pub fn new(slots: u64) -> Marks {
        let words = slots.div_ceil(64) as usize;
        let zeros = || (0..words).map(|_| AtomicU64::new(0)).collect();
        Marks {
            eligible: zeros(),
            chosen: zeros(),
        }
    }

    /// Slot `s`'s moves neither let the same side move again nor force plies.
    #[inline]
    pub fn eligible(&self, s: u64) {
        self.eligible[(s / 64) as usize].fetch_or(1 << (s % 64), Relaxed);
    }

    /// Slot `s` is a win in more than one ply whose distance a losing move to a kept sector
    /// gives.
    #[inline]
    pub fn choose(&self, s: u64) {
        self.chosen[(s / 64) as usize].fetch_or(1 << (s % 64), Relaxed);
    }

    /// The searched wins, one bit a slot: chosen and eligible.
    pub fn finish(self) -> Vec<u64> {
        self.chosen
            .into_iter()
            .zip(self.eligible)
            .map(|(c, e)| c.into_inner() & e.into_inner())
            .collect()
    }
}
