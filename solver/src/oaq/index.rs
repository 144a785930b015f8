//! A dense index of Ô Ăn Quan positions without stores: every way to put at most `T` small seeds
//! into the 12 cells (a composition of `T` into 13 parts, the 13th being the seeds off the
//! board), times the side to move, times the big pieces still on the board (big-mandarin rule
//! only). The start position, the only one whose next ply is the first, gets the last slot.
//!
//! Slot of a position: `(composition rank * 2 + side) * B + big` with `B = 4` under the
//! big-mandarin rule (`big = big[0] + 2 big[1]`), else `B = 1`, side 0 South, 1 North. The
//! composition rank orders cell vectors lexicographically by cell 0, then 1, ... 11: the rank is
//! the number of vectors (with the same total room `T`) before it.

use retro_engine::oaq::{Oaq, Position, Side};

/// The index of one rule profile.
#[derive(Clone, Debug)]
pub struct OaqIndex {
    total: usize,
    big: bool,
    /// `count[k][s]`: ways to put exactly `s` seeds into `k` parts (so `count[k + 1][s]` is
    /// the ways to put at most `s` into `k`).
    count: Vec<Vec<u64>>,
    /// Cell vectors with at most `total` seeds.
    compositions: u64,
}

impl OaqIndex {
    /// The index of a game (its total seeds and whether big pieces exist).
    pub fn new(g: &Oaq) -> OaqIndex {
        let total = g.profile.total_seeds() as usize;
        let mut count = vec![vec![0u64; total + 1]; 14];
        count[1].iter_mut().for_each(|c| *c = 1);
        for k in 2..14 {
            let mut run = 0u64;
            let prev = count[k - 1].clone();
            for (c, p) in count[k].iter_mut().zip(prev) {
                run += p;
                *c = run;
            }
        }
        OaqIndex {
            total,
            big: g.profile.big_mandarin.is_some(),
            compositions: count[13][total],
            count,
        }
    }

    /// Slots per cell vector: 2 sides times the big-piece states (4 under the big-mandarin
    /// rule, else 1).
    pub fn per_composition(&self) -> u64 {
        if self.big {
            8
        } else {
            2
        }
    }

    /// Number of slots (the start position's included).
    pub fn size(&self) -> u64 {
        self.compositions * self.per_composition() + 1
    }

    /// The slot of the start position (the first ply).
    pub fn start_slot(&self) -> u64 {
        self.size() - 1
    }

    /// The slot of a position (stores ignored). The first-ply flag must be false unless it is
    /// the start position, which has its own slot.
    pub fn rank(&self, p: &Position) -> u64 {
        if p.first {
            return self.start_slot();
        }
        let mut rem = self.total;
        let mut r = 0u64;
        for i in 0..12 {
            let c = p.cells[i] as usize;
            // Vectors with a smaller count here: the cells after this one and the slack (`parts`
            // parts) take `rem - v` for each `v < c`, a sum of `count[parts]` that telescopes.
            let parts = 12 - i;
            r += self.count[parts + 1][rem] - self.count[parts + 1][rem - c];
            rem -= c;
        }
        let mut slot = r * 2 + (p.side == Side::North) as u64;
        if self.big {
            slot = slot * 4 + p.big[0] as u64 + 2 * p.big[1] as u64;
        }
        slot
    }

    /// The position of a slot (every seed off the board in South's store, see
    /// [`Oaq::with_profile_stores`]); `None` beyond the size.
    pub fn unrank(&self, g: &Oaq, slot: u64) -> Option<Position> {
        if slot >= self.size() {
            return None;
        }
        if slot == self.start_slot() {
            return Some(g.start());
        }
        let mut s = slot;
        let mut big = [false; 2];
        if self.big {
            big = [s & 1 == 1, s & 2 == 2];
            s /= 4;
        }
        let side = if s & 1 == 1 { Side::North } else { Side::South };
        let mut r = s / 2;
        let mut cells = [0u8; 12];
        let mut rem = self.total;
        for (i, cell) in cells.iter_mut().enumerate() {
            let parts = 12 - i;
            // Vectors with count v here: count[parts][rem - v] of them (the rest, with slack).
            let mut v = 0;
            loop {
                let n = self.count[parts][rem - v];
                if r < n {
                    break;
                }
                r -= n;
                v += 1;
            }
            *cell = v as u8;
            rem -= v;
        }
        Some(g.with_profile_stores(Position {
            cells,
            big,
            side,
            stores: [0, 0],
            first: false,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_engine::oaq::OaqProfile;

    #[test]
    fn rank_and_unrank_are_inverse_and_dense() {
        for setting in ["seeds=1,0", "seeds=1,1", "big-mandarin=5;seeds=1,0"] {
            let mut prof = OaqProfile::default();
            for s in setting.split(';') {
                prof.set(s).unwrap();
            }
            let g = Oaq::new(prof);
            let idx = OaqIndex::new(&g);
            let mut seen = 0u64;
            for slot in 0..idx.size() {
                let p = idx.unrank(&g, slot).unwrap();
                assert_eq!(idx.rank(&p), slot, "{setting} slot {slot}");
                let seeds: u32 = p.cells.iter().map(|&c| c as u32).sum();
                assert!(seeds <= g.profile.total_seeds());
                seen += 1;
            }
            assert_eq!(seen, idx.size());
            assert!(idx.unrank(&g, idx.size()).is_none());
        }
    }
}
