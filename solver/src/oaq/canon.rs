//! Canonical slots: a position and its mirror (the board turned half a turn, the other side to
//! move) share one value, so only the positions with South to move get a slot.

use crate::oaq::index::OaqIndex;
use retro_engine::oaq::{Oaq, Position, Side};

/// Largest value magnitude this solver stores; beyond it a solve stops.
pub const MAX_FINITE: i8 = 120;

/// The position seen from the other side: the board turned half a turn (cell `i` takes cell
/// `i + 6`), big pieces and stores swapped, the other side to move. Same value for the mover.
pub fn mirror(p: &Position) -> Position {
    let mut q = *p;
    for i in 0..12 {
        q.cells[i] = p.cells[(i + 6) % 12];
    }
    q.big = [p.big[1], p.big[0]];
    q.stores = [p.stores[1], p.stores[0]];
    q.side = p.side.other();
    q
}

/// Slots of the positions with South to move: the dense index without its side digit.
#[derive(Clone, Debug)]
pub struct Canon {
    /// The dense index.
    pub idx: OaqIndex,
}

/// Number of canonical slots of a dense index (the start's included, last).
pub fn canonical_size(idx: &OaqIndex) -> u64 {
    (idx.size() - 1) / 2 + 1
}

/// The canonical slot of a dense slot holding a South-to-move position.
fn of_south_dense(idx: &OaqIndex, d: u64) -> u64 {
    if d == idx.start_slot() {
        return canonical_size(idx) - 1;
    }
    let per = idx.per_composition() / 2;
    d / (2 * per) * per + d % per
}

/// The canonical slot of a position (its mirror's when North is to move).
pub fn canonical_slot(idx: &OaqIndex, p: &Position) -> u64 {
    match p.side {
        Side::South => of_south_dense(idx, idx.rank(p)),
        Side::North => of_south_dense(idx, idx.rank(&mirror(p))),
    }
}

impl Canon {
    /// The canonical slots of a game.
    pub fn new(g: &Oaq) -> Canon {
        Canon {
            idx: OaqIndex::new(g),
        }
    }

    /// Number of canonical slots (the start's included, last).
    pub fn size(&self) -> u64 {
        canonical_size(&self.idx)
    }

    /// The dense slot of the South-to-move position of canonical slot `c`.
    pub fn south_dense(&self, c: u64) -> u64 {
        if c == self.size() - 1 {
            return self.idx.start_slot();
        }
        let per = self.idx.per_composition() / 2;
        c / per * 2 * per + c % per
    }

    /// The canonical slot of a position (its mirror's when North is to move).
    pub fn slot(&self, p: &Position) -> u64 {
        canonical_slot(&self.idx, p)
    }

    /// The South-to-move position of a canonical slot.
    pub fn position(&self, g: &Oaq, c: u64) -> Position {
        self.idx
            .unrank(g, self.south_dense(c))
            .expect("a canonical slot maps into the index")
    }
}
