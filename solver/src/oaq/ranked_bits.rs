//! The solver's bit set with a rank directory (in memory; tables store the same blocks, read
//! by `retro_tables::ranked_view`): whether a slot is in the set and, if so, how many set slots
//! come before it, in one cache line. Each 64-byte block holds the count of ones before it and
//! 448 bits.

use crate::oaq::huge::huge_vec;
pub use retro_tables::ranked_view::{blocks_for, RankedView, BLOCK_BYTES, PER_BLOCK};

/// A block of the ranked bit set: the ones before it and 448 bits (one cache line).
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Block {
    before: u64,
    bits: [u64; 7],
}

/// A bit set over canonical slots with a rank directory: whether a slot is reachable and, if
/// so, its position number among the reachable ones, in one cache line.
pub struct Ranked {
    blocks: Vec<Block>,
    ones: u64,
}

impl Ranked {
    /// Builds the directory over plain 64-bit words.
    pub fn build(words: &[u64]) -> Ranked {
        let mut blocks: Vec<Block> = huge_vec(words.len().div_ceil(7), |i| {
            let w = &words[7 * i..(7 * i + 7).min(words.len())];
            let mut b = Block::default();
            b.bits[..w.len()].copy_from_slice(w);
            b
        });
        let mut ones = 0u64;
        for b in &mut blocks {
            b.before = ones;
            ones += b.bits.iter().map(|w| w.count_ones() as u64).sum::<u64>();
        }
        Ranked { blocks, ones }
    }

    /// Set bits.
    pub fn ones(&self) -> u64 {
        self.ones
    }

    /// Whether slot `s` is set.
    pub fn contains(&self, s: u64) -> bool {
        let b = &self.blocks[(s / PER_BLOCK) as usize];
        let o = s % PER_BLOCK;
        b.bits[(o / 64) as usize] >> (o % 64) & 1 == 1
    }

    /// Number of set slots before `s`.
    pub fn rank(&self, s: u64) -> u64 {
        let b = &self.blocks[(s / PER_BLOCK) as usize];
        let o = s % PER_BLOCK;
        let w = (o / 64) as usize;
        let whole: u32 = b.bits[..w].iter().map(|x| x.count_ones()).sum();
        let part = (b.bits[w] & ((1u64 << (o % 64)) - 1)).count_ones();
        b.before + (whole + part) as u64
    }

    /// The plain words back (for checkpoints).
    pub fn words(&self) -> impl Iterator<Item = u64> + '_ {
        self.blocks.iter().flat_map(|b| b.bits)
    }

    /// Number of blocks.
    pub fn block_count(&self) -> usize {
        self.blocks.len()
    }

    /// Block `i` as tables store it: the ones before it, then its 7 words, little-endian.
    pub fn block_bytes(&self, i: usize) -> [u8; BLOCK_BYTES] {
        let b = &self.blocks[i];
        let mut out = [0u8; BLOCK_BYTES];
        out[..8].copy_from_slice(&b.before.to_le_bytes());
        for (k, w) in b.bits.iter().enumerate() {
            out[8 + 8 * k..16 + 8 * k].copy_from_slice(&w.to_le_bytes());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_directory_counts_the_ones_before() {
        let words: Vec<u64> = (0..40u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i << 7))
            .collect();
        let r = Ranked::build(&words);
        let mut before = 0u64;
        for s in 0..40 * 64u64 {
            let set = words[(s / 64) as usize] >> (s % 64) & 1 == 1;
            assert_eq!(r.contains(s), set, "slot {s}");
            assert_eq!(r.rank(s), before, "slot {s}");
            before += set as u64;
        }
        assert_eq!(r.ones(), before);
        assert_eq!(r.words().take(40).collect::<Vec<_>>(), words);
    }

    #[test]
    fn the_stored_blocks_answer_as_the_set() {
        let slots = 40 * 64 - 5;
        let mut words: Vec<u64> = (0..40u64)
            .map(|i| i.wrapping_mul(0xD129_0B2B_5E4D_1F07) ^ (i << 3))
            .collect();
        words[39] &= (1u64 << 59) - 1;
        let r = Ranked::build(&words);
        let bytes: Vec<u8> = (0..r.block_count())
            .flat_map(|i| r.block_bytes(i))
            .collect();
        let view = RankedView::new(&bytes).unwrap();
        assert_eq!(view.check(slots), Ok(r.ones()));
        for s in 0..slots + 200 {
            let expected = (s < slots && r.contains(s)).then(|| r.rank(s));
            assert_eq!(view.rank_of(s), expected, "slot {s}");
        }
        // A wrong count, a bit past the end, a missing block: refused.
        let mut bad = bytes.clone();
        bad[BLOCK_BYTES] ^= 1;
        assert!(RankedView::new(&bad).unwrap().check(slots).is_err());
        let mut bad = bytes.clone();
        let last = bytes.len() - 1;
        bad[last] |= 0x80;
        assert!(RankedView::new(&bad).unwrap().check(slots).is_err());
        let short = &bytes[..bytes.len() - BLOCK_BYTES];
        assert!(RankedView::new(short).unwrap().check(slots).is_err());
        assert!(RankedView::new(&bytes[1..]).is_none());
    }
}
