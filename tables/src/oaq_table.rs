//! Tables of solved Ô Ăn Quan games: the same header frame, checksum trailer and atomic write
//! as the sector tables, in one of two encodings (`databases/README.md` has the byte layout):
//!
//! - encoding 2, dense: one `i16` per slot of the dense index of the solver's `oaq/index.rs`
//!   (the value for the side to move in future net seeds, [`UNREACHABLE`] for a slot no
//!   reachable position has);
//! - encoding 3, compact ([`crate::oaq_compact`]): what `retro solve oaq` writes, the values of
//!   the positions with South to move only (a position and its mirror share one), one byte each,
//!   behind a ranked bit set of the canonical slots that have one.

use crate::format::{
    write_atomic, Checksum, TableError, END_MAGIC, HEADER_SIZE, MAGIC, TRAILER_SIZE,
};
use crate::oaq_compact;
pub use crate::oaq_header::{
    OaqHeader, ENCODING_OAQ_COMPACT, ENCODING_OAQ_I16, MAX_VALUE, UNREACHABLE,
};
use memmap2::{Advice, Mmap};
use std::fs::File;
use std::path::Path;

/// Writes a dense table atomically (temporary file, fsync, rename), `values` one per slot.
pub fn write(path: &Path, header: &OaqHeader, values: &[i16]) -> Result<(), TableError> {
    if values.len() as u64 != header.slots {
        return Err(TableError::Corrupt(
            path.to_path_buf(),
            "the header does not describe these values".into(),
        ));
    }
    write_atomic(path, &header.encode(), 2 * header.slots, |w| {
        let mut buf = Vec::with_capacity(2 << 20);
        for chunk in values.chunks(1 << 20) {
            buf.clear();
            buf.extend(chunk.iter().flat_map(|v| v.to_le_bytes()));
            w.put(&buf)?;
        }
        Ok(())
    })
}

/// An open, verified Ô Ăn Quan table.
pub struct OaqTable {
    /// The header.
    pub header: OaqHeader,
    map: Mmap,
}

impl OaqTable {
    /// Maps a table and checks its header, length, checksum and value counts (and, compact,
    /// its directory).
    ///
    /// # Safety
    ///
    /// As [`crate::Table::open`]: nothing may modify or truncate the file in place while the
    /// table lives.
    pub unsafe fn open(path: &Path) -> Result<OaqTable, TableError> {
        let io_err = |e| TableError::Io(path.to_path_buf(), e);
        let corrupt = |m: String| TableError::Corrupt(path.to_path_buf(), m);
        let file = File::open(path).map_err(io_err)?;
        // SAFETY: the caller promises the file is not modified in place while mapped.
        let map = unsafe { Mmap::map(&file) }.map_err(io_err)?;
        let header = OaqHeader::decode(path, &map)?;
        let body = match header.encoding {
            ENCODING_OAQ_COMPACT => oaq_compact::body_len(&header),
            _ => header.slots.checked_mul(2),
        };
        let expected = body.and_then(|n| n.checked_add((HEADER_SIZE + TRAILER_SIZE) as u64));
        if expected != Some(map.len() as u64) {
            return Err(corrupt(format!(
                "file is {} bytes but its header asks for {}",
                map.len(),
                expected.map_or("more".into(), |e| e.to_string())
            )));
        }
        let body_end = map.len() - TRAILER_SIZE;
        if &map[body_end + 8..] != END_MAGIC {
            return Err(corrupt("bad end marker".into()));
        }
        let stored = u64::from_le_bytes(map[body_end..body_end + 8].try_into().expect("8 bytes"));
        let _ = map.advise(Advice::Sequential);
        // The checksum (one serial chain) and the recount run side by side.
        let checksum = || {
            let mut sum = Checksum::new(body_end as u64);
            for chunk in map[..body_end].chunks(1 << 20) {
                sum.update(chunk);
            }
            sum.finish()
        };
        let recount = || match header.encoding {
            ENCODING_OAQ_COMPACT => oaq_compact::recount(&header, &map[HEADER_SIZE..body_end]),
            _ => {
                let mut h = OaqHeader::empty(&header.fingerprint, header.seeds, header.encoding);
                h.slots = header.slots;
                h.tally(
                    map[HEADER_SIZE..body_end]
                        .chunks_exact(2)
                        .map(|c| i16::from_le_bytes([c[0], c[1]])),
                );
                h.reachable = h.stored();
                Ok(h)
            }
        };
        let (sum, recount) = std::thread::scope(|s| {
            let sum = s.spawn(checksum);
            let recount = recount();
            (
                sum.join().expect("the checksum thread does not panic"),
                recount,
            )
        });
        if sum != stored {
            return Err(corrupt("checksum mismatch".into()));
        }
        let recount = recount.map_err(corrupt)?;
        if recount != header {
            return Err(corrupt(
                "header counts do not match the stored values".into(),
            ));
        }
        if header.stored() > 0 && (header.max > MAX_VALUE || header.min < -MAX_VALUE) {
            return Err(corrupt(format!(
                "values from {} to {} are outside the ±{MAX_VALUE} a table may store",
                header.min, header.max
            )));
        }
        let _ = map.advise(Advice::Random);
        Ok(OaqTable { header, map })
    }

    /// The code stored in a slot of a dense table (`None` out of range, or a compact table).
    pub fn code(&self, slot: u64) -> Option<i16> {
        if slot >= self.header.slots || self.header.encoding != ENCODING_OAQ_I16 {
            return None;
        }
        let o = HEADER_SIZE + 2 * slot as usize;
        Some(i16::from_le_bytes([self.map[o], self.map[o + 1]]))
    }

    /// The value stored for canonical slot `c` of a compact table (`None`: the slot has no
    /// value, is out of range, or the table is dense).
    pub fn compact_value(&self, c: u64) -> Option<i16> {
        if self.header.encoding != ENCODING_OAQ_COMPACT {
            return None;
        }
        let body = &self.map[HEADER_SIZE..self.map.len() - TRAILER_SIZE];
        oaq_compact::probe(&self.header, body, c)
    }
}

/// Whether a file's header says it is an Ô Ăn Quan table (its encoding field).
pub fn is_oaq_table(bytes: &[u8]) -> bool {
    bytes.len() >= 24 && &bytes[0..8] == MAGIC && {
        let e = u32::from_le_bytes(bytes[20..24].try_into().expect("4 bytes"));
        e == ENCODING_OAQ_I16 || e == ENCODING_OAQ_COMPACT
    }
}
