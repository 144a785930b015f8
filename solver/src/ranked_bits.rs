//! A bit set with a rank directory: whether a slot is in the set and, if so, how many set slots
//! come before it, in one cache line. Each 64-byte block holds the count of ones before it and
//! 448 bits.

use crate::oaq_solve::huge_pages;
use rayon::prelude::*;

/// A block of the ranked bit set: the ones before it and 448 bits (one cache line).
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Block {
    before: u64,
    bits: [u64; 7],
}

/// Bits per block.
const PER_BLOCK: u64 = 448;

/// A bit set over canonical slots with a rank directory: whether a slot is reachable and, if
/// so, its position number among the reachable ones, in one cache line.
pub struct Ranked {
    blocks: Vec<Block>,
    ones: u64,
}

impl Ranked {
    /// Builds the directory over plain 64-bit words.
    pub fn build(words: &[u64]) -> Ranked {
        let mut blocks: Vec<Block> = words
            .par_chunks(7)
            .map(|w| {
                let mut b = Block::default();
                b.bits[..w.len()].copy_from_slice(w);
                b
            })
            .collect();
        let mut ones = 0u64;
        for b in &mut blocks {
            b.before = ones;
            ones += b.bits.iter().map(|w| w.count_ones() as u64).sum::<u64>();
        }
        huge_pages(&blocks);
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
}
