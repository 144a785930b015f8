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
//! inside the unit, which a pass marks; a win in one ply so found is never searched, and the
//! pass over the losses in 0 takes back the initialisation's mark.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// One sector's marks: which positions may not be searched (some move lets the same side move
/// again or forces plies: few, so few atomic writes) and which wins some move to a kept sector
/// reaches in time.
pub struct Marks {
    excluded: Vec<AtomicU64>,
    chosen: Vec<AtomicU64>,
}

impl Marks {
    /// No marks for a sector of `slots` slots.
    pub fn new(slots: u64) -> Marks {
        let words = slots.div_ceil(64) as usize;
        let zeros = || (0..words).map(|_| AtomicU64::new(0)).collect();
        Marks {
            excluded: zeros(),
            chosen: zeros(),
        }
    }

    /// Some move of slot `s` lets the same side move again or forces plies.
    #[inline]
    pub fn exclude(&self, s: u64) {
        self.excluded[(s / 64) as usize].fetch_or(1 << (s % 64), Relaxed);
    }

    /// Slot `s` is a win in more than one ply whose distance a losing move to a kept sector
    /// gives. A win reached by several such moves is marked once (a read, not a write, after
    /// the first).
    #[inline]
    pub fn choose(&self, s: u64) {
        let (word, bit) = (&self.chosen[(s / 64) as usize], 1 << (s % 64));
        if word.load(Relaxed) & bit == 0 {
            word.fetch_or(bit, Relaxed);
        }
    }

    /// Slot `s` turned out a win in one ply (a move inside the unit to a position with no
    /// move), which is never searched, after the initialisation chose it for a slower win
    /// through a kept sector. Only the pass over the losses in 0 calls it, before any later
    /// pass may choose again.
    #[inline]
    pub fn unchoose(&self, s: u64) {
        let (word, bit) = (&self.chosen[(s / 64) as usize], 1 << (s % 64));
        if word.load(Relaxed) & bit != 0 {
            word.fetch_and(!bit, Relaxed);
        }
    }

    /// The searched wins, one bit a slot: chosen and not excluded.
    pub fn finish(self) -> Vec<u64> {
        self.chosen
            .into_iter()
            .zip(self.excluded)
            .map(|(c, e)| c.into_inner() & !e.into_inner())
            .collect()
    }
}
