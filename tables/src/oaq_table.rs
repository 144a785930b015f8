//! Tables of solved Ô Ăn Quan games: the same header frame, checksum trailer and atomic write
//! as the sector tables, in one of two encodings (`databases/README.md` has the byte layout):
//!
//! - encoding 2, dense: one `i16` per slot of the dense index of the solver's `oaq/index.rs`
//!   (the value for the side to move in future net seeds, [`UNREACHABLE`] for a slot no
//!   reachable position has);
//! - encoding 3, compact ([`crate::oaq_compact`]): what `retro solve oaq` writes, the values of
//!   the positions with South to move only (a position and its mirror share one), one byte each,
//!   behind a ranked bit set of the canonical slots that have one.

use crate::format::{write_atomic, TableError, MAGIC};
use crate::mapped::Mapped;
use crate::oaq_compact;
pub use crate::oaq_header::{
    OaqHeader, ENCODING_OAQ_COMPACT, ENCODING_OAQ_I16, MAX_VALUE, UNREACHABLE,
};
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

/// An open Ô Ăn Quan table: its header (checked) and its mapped body, each block checked when
/// first read ([`OaqTable::verify`] checks them all and recounts the values).
pub struct OaqTable {
    /// The header.
    pub header: OaqHeader,
    file: Mapped,
}

/// What a header says on its own: the counts add up, the extremes can be stored, and a compact
/// header's slot counts agree.
fn check_header(h: &OaqHeader) -> Result<(), String> {
    let slots = match h.encoding {
        ENCODING_OAQ_COMPACT => {
            oaq_compact::check_header(h)?;
            h.canonical_slots
        }
        _ => h.slots,
    };
    let counted = [h.zero, h.negative, h.unreachable]
        .iter()
        .try_fold(h.positive, |sum, &n| sum.checked_add(n));
    if counted != Some(slots) {
        return Err("header counts do not add up".into());
    }
    if h.stored() > 0 && (h.max > MAX_VALUE || h.min < -MAX_VALUE || h.min > h.max) {
        return Err(format!(
            "values from {} to {} are outside the ±{MAX_VALUE} a table may store",
            h.min, h.max
        ));
    }
    Ok(())
}

impl OaqTable {
    /// Maps a table and checks its header (counts, slot counts, value range), length and
    /// header checksum; a block is checked (its checksum, and its values against the header's
    /// extremes) the first time it is read. A version-1 table is checked whole here.
    ///
    /// # Safety
    ///
    /// As [`crate::Table::open`]: nothing may modify or truncate the file in place while the
    /// table lives.
    pub unsafe fn open(path: &Path) -> Result<OaqTable, TableError> {
        let corrupt = |m: String| TableError::Corrupt(path.to_path_buf(), m);
        // SAFETY: the caller's promise, passed on.
        let (header, file) = unsafe {
            Mapped::open(path, |b| {
                let h = OaqHeader::decode(path, b)?;
                check_header(&h).map_err(corrupt)?;
                let body = match h.encoding {
                    ENCODING_OAQ_COMPACT => oaq_compact::body_len(&h),
                    _ => h.slots.checked_mul(2),
                };
                let body = body.ok_or_else(|| corrupt("slot count out of range".into()))?;
                Ok((h, body))
            })
        }?;
        let t = OaqTable { header, file };
        if t.file.version() == 1 {
            t.recount()?;
        }
        Ok(t)
    }

    /// The mapped file.
    pub fn mapped(&self) -> &crate::mapped::Mapped {
        &self.file
    }

    /// Checks every block and the whole-file checksum, and recounts the values (and, compact,
    /// the directory) against the header.
    pub fn verify(&self) -> Result<(), TableError> {
        self.file.check_all(&|o, b| self.check_block(o, b))?;
        if self.file.version() >= 2 {
            self.recount()?;
        }
        Ok(())
    }

    fn recount(&self) -> Result<(), TableError> {
        let corrupt = |m: String| TableError::Corrupt(self.file.path().to_path_buf(), m);
        let header = &self.header;
        let body = self.file.body(&|o, b| self.check_block(o, b))?;
        let recount = match header.encoding {
            ENCODING_OAQ_COMPACT => oaq_compact::recount(header, body).map_err(corrupt)?,
            _ => {
                let mut h = OaqHeader::empty(&header.fingerprint, header.seeds, header.encoding);
                h.slots = header.slots;
                h.tally(
                    body.chunks_exact(2)
                        .map(|c| i16::from_le_bytes([c[0], c[1]])),
                );
                h.reachable = h.stored();
                h
            }
        };
        if recount != *header {
            return Err(corrupt(
                "header counts do not match the stored values".into(),
            ));
        }
        Ok(())
    }

    /// Checks the contents of a block at body offset `at`: values within the header's
    /// extremes, a compact directory's counts running on within the block, zero padding.
    fn check_block(&self, at: usize, bytes: &[u8]) -> Result<(), String> {
        let h = &self.header;
        // No value stored: every slot is unreachable, whatever the extremes say.
        let in_range = |v: i16| h.stored() > 0 && h.min <= v && v <= h.max;
        if h.encoding != ENCODING_OAQ_COMPACT {
            let ok = bytes.chunks_exact(2).all(|c| {
                let v = i16::from_le_bytes([c[0], c[1]]);
                v == UNREACHABLE || in_range(v)
            });
            return ok
                .then_some(())
                .ok_or("a value is beyond the header's extremes".into());
        }
        oaq_compact::check_block(h, at, bytes)
    }

    /// Blocks checked so far, of all.
    pub fn blocks_checked(&self) -> (usize, usize) {
        self.file.blocks_checked()
    }

    /// The code stored in a slot of a dense table (`None` out of range, or a compact table).
    pub fn code(&self, slot: u64) -> Result<Option<i16>, TableError> {
        if slot >= self.header.slots || self.header.encoding != ENCODING_OAQ_I16 {
            return Ok(None);
        }
        let o = 2 * slot as usize;
        let b = self.file.bytes(o..o + 2, &|o, b| self.check_block(o, b))?;
        Ok(Some(i16::from_le_bytes([b[0], b[1]])))
    }

    /// The value stored for canonical slot `c` of a compact table (`None`: the slot has no
    /// value, is out of range, or the table is dense).
    pub fn compact_value(&self, c: u64) -> Result<Option<i16>, TableError> {
        let h = &self.header;
        if h.encoding != ENCODING_OAQ_COMPACT || c >= h.canonical_slots {
            return Ok(None);
        }
        let check = |o: usize, b: &[u8]| self.check_block(o, b);
        let k = oaq_compact::probe(h, |r| self.file.bytes(r, &check), c)?;
        Ok(k)
    }
}

/// Whether a file's header says it is an Ô Ăn Quan table (its encoding field).
pub fn is_oaq_table(bytes: &[u8]) -> bool {
    bytes.len() >= 24 && &bytes[0..8] == MAGIC && {
        let e = u32::from_le_bytes(bytes[20..24].try_into().expect("4 bytes"));
        e == ENCODING_OAQ_I16 || e == ENCODING_OAQ_COMPACT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dense header that counts no value (every slot unreachable) but gives extremes of
    /// ±32767: a slot holding a value is refused when its block is read, not returned (the
    /// extremes were checked only when values were counted).
    #[test]
    fn a_value_in_a_table_that_counts_none_is_refused() {
        let dir = std::env::temp_dir().join(format!("retro-oaq-none-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("game.rtb");
        let mut values = vec![UNREACHABLE; 1000];
        let mut h = OaqHeader::from_values("fp", [1, 0], &values);
        assert_eq!(h.stored(), 0);
        h.max = MAX_VALUE;
        h.min = -MAX_VALUE;
        write(&path, &h, &values).unwrap();
        // SAFETY: the test's own file, not changed while mapped.
        let t = unsafe { OaqTable::open(&path) }.unwrap();
        assert_eq!(t.code(7).unwrap(), Some(UNREACHABLE));
        drop(t);
        values[7] = -MAX_VALUE;
        write(&path, &h, &values).unwrap();
        // SAFETY: as above.
        let t = unsafe { OaqTable::open(&path) }.unwrap();
        assert!(t.code(7).is_err());
        // Counts whose sum overflows are refused when opened, never summed with a wrap.
        h.positive = u64::MAX;
        h.zero = 1;
        write(&path, &h, &values).unwrap();
        // SAFETY: as above.
        assert!(unsafe { OaqTable::open(&path) }.is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
