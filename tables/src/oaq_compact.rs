//! Compact tables of solved Ô Ăn Quan games (encoding 3), what `retro solve oaq` writes: only
//! the positions with South to move are stored (a position and its mirror share one value),
//! and only those that have a value, one byte each, found through a ranked bit set.
//!
//! Body (after the 512-byte header, all little-endian): the ranked bit set over the canonical
//! slots (64-byte blocks, each the count of set slots before it and 448 bits, see
//! [`crate::ranked_view`]), then one `i8` per set slot in slot order, then zero
//! bytes up to a multiple of 8. Header fields beyond the dense table's: the positions reachable
//! from the start at 72 and the canonical slot count at 80; the counts at 32-56 are of the
//! stored values (at 56 the canonical slots without one).

use crate::format::{write_atomic, TableError};
use crate::oaq_header::OaqHeader;
use crate::ranked_view::{blocks_for, RankedView, BLOCK_BYTES, PER_BLOCK};
use std::path::Path;

/// Values written (and tallied) at a time (a multiple of 8).
pub const CHUNK: u64 = 1 << 20;

/// Bytes of the body a compact header announces (`None` if they overflow).
pub fn body_len(h: &OaqHeader) -> Option<u64> {
    let dir = blocks_for(h.canonical_slots).checked_mul(BLOCK_BYTES as u64)?;
    dir.checked_add(h.stored().checked_next_multiple_of(8)?)
}

/// The set of canonical slots that have a value, as a compact table stores it.
pub trait Directory {
    /// Set slots.
    fn ones(&self) -> u64;
    /// Number of blocks.
    fn block_count(&self) -> usize;
    /// Block `i` as stored (see [`crate::ranked_view`]).
    fn block_bytes(&self, i: usize) -> [u8; BLOCK_BYTES];
}

/// Writes a compact table atomically: the header, the set of canonical slots with a value,
/// then the values `fill(from, out)` computes (`out.len()` values from value number `from`, in
/// slot order), streamed a chunk at a time.
pub fn write(
    path: &Path,
    header: &OaqHeader,
    set: &dyn Directory,
    fill: &(dyn Fn(u64, &mut [i8]) + Sync),
) -> Result<(), TableError> {
    let corrupt = |m: &str| TableError::Corrupt(path.to_path_buf(), m.to_string());
    if set.ones() != header.stored()
        || set.block_count() as u64 != blocks_for(header.canonical_slots)
    {
        return Err(corrupt("the header does not describe this set of slots"));
    }
    let body = body_len(header).ok_or_else(|| corrupt("too big"))?;
    let stored = header.stored();
    write_atomic(path, &header.encode(), body, |w| {
        let mut buf = Vec::with_capacity(CHUNK as usize);
        for i in 0..set.block_count() {
            buf.extend_from_slice(&set.block_bytes(i));
            if buf.len() >= CHUNK as usize {
                w.put(&buf)?;
                buf.clear();
            }
        }
        w.put(&buf)?;
        let mut values = vec![0i8; CHUNK as usize];
        for from in (0..stored).step_by(CHUNK as usize) {
            let out = &mut values[..(stored - from).min(CHUNK) as usize];
            fill(from, out);
            buf.clear();
            buf.extend(out.iter().map(|&v| v as u8));
            if from + CHUNK >= stored {
                buf.resize(buf.len().next_multiple_of(8), 0);
            }
            w.put(&buf)?;
        }
        Ok(())
    })
}

/// Adds stored values (`i8` as bytes) to a header's counts, through a histogram (a branch-free
/// pass: this runs over every value each time a table is opened).
pub fn tally_bytes(h: &mut OaqHeader, values: &[u8]) {
    // Four histograms, so that runs of one value do not wait on the same counter.
    let mut hist = [[0u32; 256]; 4];
    let mut quads = values.chunks_exact(4);
    for q in &mut quads {
        for (k, &b) in q.iter().enumerate() {
            hist[k][b as usize] += 1;
        }
    }
    for &b in quads.remainder() {
        hist[0][b as usize] += 1;
    }
    for b in 0..256 {
        let n: u64 = hist.iter().map(|t| t[b] as u64).sum();
        if n > 0 {
            let v = b as u8 as i8 as i16;
            match v {
                0 => h.zero += n,
                x if x > 0 => h.positive += n,
                _ => h.negative += n,
            }
            h.max = h.max.max(v);
            h.min = h.min.min(v);
        }
    }
}

/// Checks a compact header's slot counts: the canonical slots go with the dense ones, and the
/// reachable positions with the stored values (each stored value is a position and perhaps its
/// mirror).
pub fn check_header(h: &OaqHeader) -> Result<(), String> {
    // The canonical slots are the dense ones without the side digit; every reachable position
    // has its value stored (itself or as a mirror), and every stored one is reachable.
    if h.slots.is_multiple_of(2) || h.canonical_slots != (h.slots - 1) / 2 + 1 {
        return Err(format!(
            "{} canonical slots do not go with {} dense slots",
            h.canonical_slots, h.slots
        ));
    }
    if h.reachable < h.stored() || h.reachable > h.stored().saturating_mul(2) {
        return Err(format!(
            "{} reachable positions cannot have {} stored values",
            h.reachable,
            h.stored()
        ));
    }
    Ok(())
}

/// Bytes of a compact body's directory.
fn dir_len(h: &OaqHeader) -> usize {
    (blocks_for(h.canonical_slots) * BLOCK_BYTES as u64) as usize
}

/// The header a compact body implies (counts from the stored values), after checking its
/// directory against the header's slot count and value count, and its padding.
pub fn recount(h: &OaqHeader, body: &[u8]) -> Result<OaqHeader, String> {
    check_header(h)?;
    let dir_len = dir_len(h);
    let (dir, rest) = body.split_at(dir_len.min(body.len()));
    let view = RankedView::new(dir).ok_or("directory of partial blocks")?;
    let ones = view.check(h.canonical_slots)?;
    if ones != h.stored() {
        return Err(format!(
            "the directory has {ones} slots with a value, the header {}",
            h.stored()
        ));
    }
    let (values, padding) = rest.split_at((ones as usize).min(rest.len()));
    if padding.iter().any(|&b| b != 0) {
        return Err("padding after the values is not zero".into());
    }
    let empty = || OaqHeader::empty(&h.fingerprint, h.seeds, h.encoding);
    let mut out = crate::par::map_chunks(values, CHUNK as usize, |c| {
        let mut part = empty();
        tally_bytes(&mut part, c);
        part
    })
    .into_iter()
    .fold(empty(), OaqHeader::merge);
    out.slots = h.slots;
    out.reachable = h.reachable;
    out.canonical_slots = h.canonical_slots;
    out.unreachable = h.canonical_slots.saturating_sub(ones);
    Ok(out)
}

/// Checks a piece of a compact body at body offset `at` on its own: directory blocks whose
/// counts run on (each block's count is the one before it plus that block's set bits) and
/// stay within the values, values within the header's extremes, zero padding.
pub fn check_block(h: &OaqHeader, at: usize, bytes: &[u8]) -> Result<(), String> {
    let dir_len = dir_len(h);
    let stored = h.stored() as usize;
    let end = at + bytes.len();
    let dir = &bytes[..dir_len.saturating_sub(at).min(bytes.len())];
    let mut last: Option<(u64, u64)> = None; // (count, set bits) of the block before
    for e in dir.chunks_exact(BLOCK_BYTES) {
        let word = |k: usize| u64::from_le_bytes(e[8 * k..8 * k + 8].try_into().expect("8"));
        let ones: u64 = (1..8).map(|k| word(k).count_ones() as u64).sum();
        let count = word(0);
        // Checked sums: a crafted count near u64::MAX must not wrap into a small one.
        if last.is_some_and(|(c, n): (u64, u64)| c.checked_add(n) != Some(count))
            || count.checked_add(ones).is_none_or(|t| t > stored as u64)
        {
            return Err("directory counts do not run on".into());
        }
        last = Some((count, ones));
    }
    let values_start = dir_len.max(at);
    let values_end = (dir_len + stored).min(end);
    if values_start < values_end {
        let vals = &bytes[values_start - at..values_end - at];
        if vals
            .iter()
            .any(|&b| !(h.min..=h.max).contains(&(b as i8 as i16)))
        {
            return Err("a value is beyond the header's extremes".into());
        }
    }
    let pad_start = (dir_len + stored).max(at);
    if pad_start < end && bytes[pad_start - at..].iter().any(|&b| b != 0) {
        return Err("padding after the values is not zero".into());
    }
    Ok(())
}

/// The value stored for canonical slot `c` (`None` when it has none), reading the body through
/// `read` (a byte range of the body, checked).
pub fn probe<'a, E>(
    h: &OaqHeader,
    read: impl Fn(std::ops::Range<usize>) -> Result<&'a [u8], E>,
    c: u64,
) -> Result<Option<i16>, E> {
    if c >= h.canonical_slots {
        return Ok(None);
    }
    let block = (c / PER_BLOCK) as usize * BLOCK_BYTES;
    let entry = read(block..block + BLOCK_BYTES)?;
    let view = RankedView::new(entry).expect("one whole block");
    let Some(k) = view.rank_of(c % PER_BLOCK) else {
        return Ok(None);
    };
    // `read` checked the block with `check_block`: its count plus its set bits are at most
    // the values stored, so the rank is below them.
    debug_assert!(k < h.stored());
    let at = dir_len(h).saturating_add(usize::try_from(k).unwrap_or(usize::MAX));
    let v = read(at..at.saturating_add(1))?;
    Ok(Some(v[0] as i8 as i16))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oaq_header::ENCODING_OAQ_COMPACT;

    /// A directory block whose count is near `u64::MAX` (a forged file with its checksums made
    /// good) is refused: the sum with its set bits must not wrap into a small count.
    #[test]
    fn a_directory_count_that_would_wrap_is_refused() {
        let mut h = OaqHeader::empty("fp", [1, 0], ENCODING_OAQ_COMPACT);
        h.canonical_slots = 100;
        h.positive = 3;
        h.unreachable = 97;
        h.max = 2;
        h.min = 1;
        let mut body = vec![0u8; BLOCK_BYTES + 8];
        body[8] = 0b111; // slots 0, 1 and 2 have values
        body[BLOCK_BYTES..BLOCK_BYTES + 3].copy_from_slice(&[1, 2, 1]);
        assert_eq!(check_block(&h, 0, &body), Ok(()));
        for count in [u64::MAX, u64::MAX - 1, u64::MAX - 2, 1] {
            body[..8].copy_from_slice(&count.to_le_bytes());
            assert!(check_block(&h, 0, &body).is_err(), "count {count}");
        }
    }
}
