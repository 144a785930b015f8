//! The checksums of table files: a word-wise multiply-rotate hash, serial (format versions 1
//! and 2, and the solver's checkpoints) or over four interleaved lanes (version 3), and
//! [`Sums`], what a format version checksums a block at a time. `databases/README.md` gives
//! both hashes in full.

/// The hash's multiplier.
const K: u64 = 0x9E37_79B9_7F4A_7C15;
/// The hash's starting value, before the length is mixed in.
const SEED: u64 = 0x243F_6A88_85A3_08D3;

#[inline(always)]
fn mix(h: u64, w: u64) -> u64 {
    (h.rotate_left(23) ^ w).wrapping_mul(K)
}

/// Streaming 64-bit checksum over a known total length. Every `update` but the last must be
/// a multiple of 8 bytes long.
///
/// Serial ([`Checksum::new`]): one chain over the little-endian words, then each byte left
/// over. Lanes ([`Checksum::lanes`]): word `i` goes into lane `i % 4`, the bytes left over
/// into the lanes that follow, and the four lanes are folded into one at the end. The serial
/// chain waits for each multiply; the lanes run four at once, about four times faster.
pub struct Checksum {
    lanes: [u64; 4],
    /// Words (and left-over bytes) added so far.
    words: u64,
    interleaved: bool,
}

impl Checksum {
    /// Starts a serial checksum (format versions 1 and 2) over `total_len` bytes.
    pub fn new(total_len: u64) -> Checksum {
        Checksum {
            lanes: [SEED ^ total_len, 0, 0, 0],
            words: 0,
            interleaved: false,
        }
    }

    /// Starts a four-lane checksum (format version 3) over `total_len` bytes.
    pub fn lanes(total_len: u64) -> Checksum {
        let h = SEED ^ total_len;
        Checksum {
            lanes: [
                h,
                h.wrapping_add(K),
                h.wrapping_add(K << 1),
                h.wrapping_add(K << 2),
            ],
            words: 0,
            interleaved: true,
        }
    }

    /// Adds bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        if !self.interleaved {
            let h = &mut self.lanes[0];
            let mut chunks = bytes.chunks_exact(8);
            for c in &mut chunks {
                *h = mix(*h, u64::from_le_bytes(c.try_into().expect("8 bytes")));
            }
            for &b in chunks.remainder() {
                *h = mix(*h, b as u64);
            }
            return;
        }
        let n = bytes.len() / 8;
        let word =
            |i: usize| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"));
        // Single words up to lane 0, then four at a time, then single words and bytes again.
        let mut i = 0;
        while i < n && !self.words.is_multiple_of(4) {
            self.add(word(i));
            i += 1;
        }
        let fours_end = i + (n - i) / 4 * 4;
        let l = &mut self.lanes;
        for c in bytes[8 * i..8 * fours_end].chunks_exact(32) {
            let w = |k: usize| u64::from_le_bytes(c[8 * k..8 * k + 8].try_into().expect("8 bytes"));
            l[0] = mix(l[0], w(0));
            l[1] = mix(l[1], w(1));
            l[2] = mix(l[2], w(2));
            l[3] = mix(l[3], w(3));
        }
        self.words += (fours_end - i) as u64;
        for j in fours_end..n {
            self.add(word(j));
        }
        for &b in &bytes[8 * n..] {
            self.add(b as u64);
        }
    }

    #[inline]
    fn add(&mut self, w: u64) {
        let i = (self.words % 4) as usize;
        self.lanes[i] = mix(self.lanes[i], w);
        self.words += 1;
    }

    /// The checksum.
    pub fn finish(self) -> u64 {
        let h = if self.interleaved {
            let [a, b, c, d] = self.lanes;
            mix(mix(mix(a, b), c), d)
        } else {
            self.lanes[0]
        };
        h ^ (h >> 29)
    }
}

/// How a format version checksums a file: the bytes of body a block checksum covers, and the
/// hash (serial in version 2, four lanes in version 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sums {
    block: usize,
    interleaved: bool,
}

impl Sums {
    /// What this crate writes (format version 3): 4 KiB blocks, four-lane hash.
    pub const CURRENT: Sums = Sums {
        block: 4 << 10,
        interleaved: true,
    };

    /// Format version 2: 16 KiB blocks, serial hash.
    pub const V2: Sums = Sums {
        block: 16 << 10,
        interleaved: false,
    };

    /// The scheme of a format version (version 1 has no block checksums: its whole-file
    /// checksum is serial, as version 2's).
    pub fn of(version: u32) -> Sums {
        if version >= 3 {
            Sums::CURRENT
        } else {
            Sums::V2
        }
    }

    /// Bytes of body a block checksum covers (the last block may be shorter).
    pub fn block_bytes(self) -> usize {
        self.block
    }

    /// The base-2 logarithm of [`Sums::block_bytes`] (a power of two): the block of body byte
    /// `i` is `i >> block_shift()`, a shift where a division by a size known only at run time
    /// took a solve's table lookups most of their time.
    #[inline]
    pub fn block_shift(self) -> u32 {
        self.block.trailing_zeros()
    }

    /// Blocks of a body of `body_len` bytes.
    pub fn block_count(self, body_len: u64) -> u64 {
        body_len.div_ceil(self.block as u64)
    }

    /// Size of the trailer after a body of `body_len` bytes: zero padding to a multiple of 8,
    /// the header's and each block's checksum, the checksum of those, the whole-file checksum
    /// and the end magic (`None` if it overflows).
    pub fn trailer_len(self, body_len: u64) -> Option<u64> {
        let pad = body_len.checked_next_multiple_of(8)? - body_len;
        self.block_count(body_len)
            .checked_add(1)?
            .checked_mul(8)?
            .checked_add(pad + 24)
    }

    /// A streaming checksum over `total_len` bytes.
    pub fn hasher(self, total_len: u64) -> Checksum {
        if self.interleaved {
            Checksum::lanes(total_len)
        } else {
            Checksum::new(total_len)
        }
    }

    /// Checksum of a whole byte slice.
    pub fn sum(self, bytes: &[u8]) -> u64 {
        let mut c = self.hasher(bytes.len() as u64);
        c.update(bytes);
        c.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The serial hash as format version 2 defines it, written out.
    fn serial(bytes: &[u8]) -> u64 {
        let mut h = SEED ^ bytes.len() as u64;
        let n = bytes.len() / 8;
        for i in 0..n {
            h = mix(
                h,
                u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()),
            );
        }
        for &b in &bytes[8 * n..] {
            h = mix(h, b as u64);
        }
        h ^ (h >> 29)
    }

    /// The four-lane hash, written out: item `i` (a word, then each byte left over) into lane
    /// `i % 4`.
    fn lanes(bytes: &[u8]) -> u64 {
        let h0 = SEED ^ bytes.len() as u64;
        let mut l = [
            h0,
            h0.wrapping_add(K),
            h0.wrapping_add(K << 1),
            h0.wrapping_add(K << 2),
        ];
        let n = bytes.len() / 8;
        let items = (0..n)
            .map(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()))
            .chain(bytes[8 * n..].iter().map(|&b| b as u64));
        for (i, w) in items.enumerate() {
            l[i % 4] = mix(l[i % 4], w);
        }
        let h = mix(mix(mix(l[0], l[1]), l[2]), l[3]);
        h ^ (h >> 29)
    }

    #[test]
    fn streamed_sums_are_the_written_out_hashes_whatever_the_pieces() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 31 + i / 7) as u8).collect();
        for len in [0, 1, 7, 8, 9, 31, 32, 33, 40, 63, 64, 65, 4096, 4999, 5000] {
            let bytes = &data[..len];
            assert_eq!(Sums::V2.sum(bytes), serial(bytes), "{len}");
            assert_eq!(Sums::CURRENT.sum(bytes), lanes(bytes), "{len}");
            for pieces in [[8usize, 24, 40], [16, 8, 96], [32, 8, 8]] {
                for s in [Sums::V2, Sums::CURRENT] {
                    let mut c = s.hasher(len as u64);
                    let mut at = 0;
                    for p in pieces.iter().cycle() {
                        if at >= len {
                            break;
                        }
                        let n = (*p).min(len - at);
                        c.update(&bytes[at..at + n]);
                        at += n;
                    }
                    assert_eq!(c.finish(), s.sum(bytes), "{len} {pieces:?} {s:?}");
                }
            }
        }
        // The two hashes differ, and each sees a flipped bit anywhere.
        assert_ne!(Sums::V2.sum(&data), Sums::CURRENT.sum(&data));
        for at in [0, 7, 8, 31, 32, 4999] {
            let mut bad = data.clone();
            bad[at] ^= 4;
            for s in [Sums::V2, Sums::CURRENT] {
                assert_ne!(s.sum(&bad), s.sum(&data), "{at} {s:?}");
            }
        }
    }

    #[test]
    fn versions_pick_their_blocks() {
        assert_eq!(Sums::of(1), Sums::V2);
        assert_eq!(Sums::of(2), Sums::V2);
        assert_eq!(Sums::of(3), Sums::CURRENT);
        assert_eq!(Sums::of(crate::format::FORMAT_VERSION), Sums::CURRENT);
        assert_eq!(Sums::CURRENT.block_bytes(), crate::format::BLOCK_BYTES);
        for s in [Sums::CURRENT, Sums::V2] {
            assert_eq!(1 << s.block_shift(), s.block_bytes());
        }
        assert_eq!(Sums::V2.block_count(16 << 10), 1);
        assert_eq!(Sums::CURRENT.block_count(16 << 10), 4);
        assert_eq!(Sums::CURRENT.block_count((16 << 10) + 1), 5);
        assert_eq!(Sums::CURRENT.trailer_len(1), Some(8 * 2 + 7 + 24));
        // A body length from a forged header (two bytes a slot for 2^63 - 1 slots): no
        // trailer length, rather than an overflow while padding it to 8.
        for body in [u64::MAX, u64::MAX - 1, u64::MAX - 6] {
            assert_eq!(Sums::CURRENT.trailer_len(body), None, "{body}");
            assert_eq!(Sums::V2.trailer_len(body), None, "{body}");
        }
    }
}
