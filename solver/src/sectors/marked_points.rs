//! The index of sectors whose positions carry marked points besides the stones (Mill's
//! `mark-and-delay` while placing: a stone removed then leaves a point nobody may place on
//! until placing ends).
//!
//! The stones are indexed as in [`BoardIndex`] (their class under the board's symmetries,
//! then the opponent's stones), and the `m` marks are ranked among the points the indexed
//! stones leave free, after the symmetry that took the stones to the indexed ones: slot
//! `s * C(n, m) + r`, with `s` the stones' slot, `n` the free points and `r` the colex rank of
//! the marks squeezed into them. Where the stones have symmetries of their own, positions that
//! differ only by one of them take different slots; each slot is valued as the position it
//! decodes to, so both hold the same value. With `m = 0` the index is [`BoardIndex`]'s.

use crate::sectors::index::{rank_set, spread, squeeze, unrank_set_below, BoardIndex, BINOM};
use retro_engine::mill::Bits;

/// [`BoardIndex`] with `m` marked points.
pub struct MarkedIndex {
    /// The index of the stones.
    pub stones: BoardIndex,
    marks: usize,
    per_stones: u64,
}

impl MarkedIndex {
    /// The index of the positions of `stones` with `m` marked points (`None` when they do not
    /// fit beside the stones).
    pub fn new(stones: BoardIndex, m: usize) -> Option<MarkedIndex> {
        let free = stones.free_points();
        (m <= free).then(|| MarkedIndex {
            stones,
            marks: m,
            per_stones: BINOM[free][m],
        })
    }

    /// Number of slots.
    pub fn size(&self) -> u64 {
        self.stones.size() * self.per_stones
    }

    /// The slot of a position: own stones, opponent stones and marks (the marks on points
    /// neither side holds, as many as the index's).
    pub fn index(&self, own: Bits, opp: Bits, marks: Bits) -> u64 {
        let s = self.stones.index(own, opp);
        if self.marks == 0 {
            return s;
        }
        let (o, p) = self
            .stones
            .unindex(s)
            .expect("the slot of a position holds one");
        let shape = self.stones.shape();
        let sym = (0..shape.symmetries())
            .find(|&g| shape.transform(own, g) == o && shape.transform(opp, g) == p)
            .expect("the indexed stones are an image of the position's");
        let free = shape.all() & !(o | p);
        s * self.per_stones + rank_set(squeeze(shape.transform(marks, sym), free))
    }

    /// The position of a slot as (own stones, opponent stones, marks), or `None` for a
    /// wasted slot.
    pub fn unindex(&self, slot: u64) -> Option<(Bits, Bits, Bits)> {
        let (own, opp) = self.stones.unindex(slot / self.per_stones)?;
        let free = self.stones.shape().all() & !(own | opp);
        let r = slot % self.per_stones;
        let marks = spread(
            unrank_set_below(r, self.marks, free.count_ones() as usize),
            free,
        );
        Some((own, opp, marks))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sectors::index::Shape;
    use retro_engine::mill::geometry::MORRIS16;

    /// Every slot decodes to a position that indexes back to it, and every position of
    /// random stones and marks indexes to a slot whose position is one of its images.
    #[test]
    fn slots_and_positions_round_trip() {
        let shape = Shape::Mill(&MORRIS16);
        for (w, b, m) in [(2, 3, 2), (3, 3, 1), (1, 0, 4), (4, 4, 0)] {
            let idx = MarkedIndex::new(BoardIndex::new(shape, w, b), m).unwrap();
            let mut held = 0;
            for slot in 0..idx.size() {
                if let Some((o, p, k)) = idx.unindex(slot) {
                    assert_eq!(k.count_ones() as usize, m);
                    assert_eq!(k & (o | p), 0);
                    assert_eq!(idx.index(o, p, k), slot, "{w} {b} {m}");
                    held += 1;
                }
            }
            assert!(held > 0);
            let mut s = 12345u64;
            for _ in 0..2000 {
                let mut pick = |from: Bits, n: usize| {
                    let mut set = 0;
                    while (set as Bits).count_ones() < n as u32 {
                        s = s.wrapping_mul(6364136223846793005).wrapping_add(1);
                        let p = (s >> 33) as u32 % 16;
                        if from & 1 << p != 0 {
                            set |= 1 << p;
                        }
                    }
                    set
                };
                let own = pick(shape.all(), w);
                let opp = pick(shape.all() & !own, b);
                let marks = pick(shape.all() & !own & !opp, m);
                let (o, p, k) = idx.unindex(idx.index(own, opp, marks)).unwrap();
                assert!((0..shape.symmetries()).any(|g| shape.transform(own, g) == o
                    && shape.transform(opp, g) == p
                    && shape.transform(marks, g) == k));
            }
        }
    }

    #[test]
    fn too_many_marks_for_the_board_have_no_index() {
        let shape = Shape::Mill(&MORRIS16);
        assert!(MarkedIndex::new(BoardIndex::new(shape, 6, 6), 5).is_none());
        assert!(MarkedIndex::new(BoardIndex::new(shape, 6, 6), 4).is_some());
    }
}
