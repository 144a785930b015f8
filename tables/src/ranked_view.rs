//! The rank directory of compact tables as stored: 64-byte blocks, each the count of set slots
//! before it (`u64`) and 448 bits (7 `u64` words), little-endian. Whether a slot is set and, if
//! so, how many set slots come before it, in one cache line.

/// Slots per block.
pub const PER_BLOCK: u64 = 448;

/// Bytes of a block in a file.
pub const BLOCK_BYTES: usize = 64;

/// Blocks needed for `slots` slots.
pub fn blocks_for(slots: u64) -> u64 {
    slots.div_ceil(PER_BLOCK)
}

/// A ranked bit set read from bytes laid out as
/// [`Directory::block_bytes`](crate::oaq_compact::Directory::block_bytes) gives them (a
/// memory-mapped table). Out-of-range slots read as absent; [`RankedView::check`] vouches for
/// the counts.
#[derive(Clone, Copy)]
pub struct RankedView<'a> {
    bytes: &'a [u8],
}

impl<'a> RankedView<'a> {
    /// A view over whole blocks (`None` when the length is not a multiple of a block).
    pub fn new(bytes: &'a [u8]) -> Option<RankedView<'a>> {
        bytes
            .len()
            .is_multiple_of(BLOCK_BYTES)
            .then_some(RankedView { bytes })
    }

    fn word(&self, block: usize, k: usize) -> u64 {
        let o = block * BLOCK_BYTES + 8 * k;
        u64::from_le_bytes(self.bytes[o..o + 8].try_into().expect("8 bytes"))
    }

    /// Checks the directory of a set over `slots` slots: the blocks are as many as the slots
    /// need, each block's count is the ones before it and no bit at or past `slots` is set.
    /// Returns the ones.
    pub fn check(&self, slots: u64) -> Result<u64, String> {
        let blocks = self.bytes.len() / BLOCK_BYTES;
        if blocks as u64 != blocks_for(slots) {
            return Err(format!(
                "{blocks} directory blocks for {slots} slots (expected {})",
                blocks_for(slots)
            ));
        }
        let mut ones = 0u64;
        for i in 0..blocks {
            if self.word(i, 0) != ones {
                return Err(format!("directory block {i} has a wrong count"));
            }
            for k in 0..7 {
                let w = self.word(i, 1 + k);
                let first = i as u64 * PER_BLOCK + 64 * k as u64;
                // The word's slots from `keep` on are past the last one (`keep` < 64 here).
                let keep = slots.saturating_sub(first);
                if keep < 64 && w >> keep != 0 {
                    return Err(format!("directory block {i} has bits past the last slot"));
                }
                ones += w.count_ones() as u64;
            }
        }
        Ok(ones)
    }

    /// The number of set slots before `s` when `s` is set; `None` when it is not (or is out
    /// of range).
    pub fn rank_of(&self, s: u64) -> Option<u64> {
        let block = usize::try_from(s / PER_BLOCK).ok()?;
        if block >= self.bytes.len() / BLOCK_BYTES {
            return None;
        }
        let o = s % PER_BLOCK;
        let k = (o / 64) as usize;
        let w = self.word(block, 1 + k);
        if w >> (o % 64) & 1 == 0 {
            return None;
        }
        let whole: u32 = (0..k).map(|j| self.word(block, 1 + j).count_ones()).sum();
        let part = (w & ((1u64 << (o % 64)) - 1)).count_ones();
        Some(self.word(block, 0) + (whole + part) as u64)
    }
}
