//! A memory-mapped table file and its integrity checks.
//!
//! Version 2 (what this crate writes) keeps a checksum per [`BLOCK_BYTES`] block of the body:
//! opening checks the frame (length, end marker), the header's checksum and the checksum of the
//! block checksums, which is a few bytes per 16 KiB of table; each block is checked the first
//! time it is read (a bit per block remembers it), and [`Mapped::check_all`] checks every block
//! and the whole-file checksum, for `verify` and for the solver's dependencies. Version 1 has
//! only the whole-file checksum, so it is checked whole when opened, as before.

use crate::format::{
    block_count, checksum, trailer_len, Checksum, TableError, BLOCK_BYTES, END_MAGIC, HEADER_SIZE,
    TRAILER_SIZE,
};
use memmap2::{Advice, Mmap};
use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Checks of one block's contents beyond its checksum: `(offset in the body, bytes)`, an error
/// message if a value is out of what the header allows.
pub type Validate<'a> = &'a (dyn Fn(usize, &[u8]) -> Result<(), String> + Sync);

/// A mapped table file: header, body and trailer, with lazily checked blocks.
pub struct Mapped {
    path: PathBuf,
    map: Mmap,
    version: u32,
    body_len: usize,
    /// One bit per block: set once the block passed its checks.
    checked: Box<[AtomicU64]>,
}

fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"))
}

impl Mapped {
    /// Maps a table: `decode` reads the header (it gets the whole file, at least
    /// [`HEADER_SIZE`] bytes long) and says how long the body is; then the length, the end
    /// marker and, in version 2, the header's and the block list's checksums are checked (in
    /// version 1, the whole file's).
    ///
    /// # Safety
    ///
    /// As [`crate::Table::open`]: nothing may modify or truncate the file in place while the
    /// returned value lives.
    pub unsafe fn open<H>(
        path: &Path,
        decode: impl FnOnce(&[u8]) -> Result<(H, u64), TableError>,
    ) -> Result<(H, Mapped), TableError> {
        let io_err = |e| TableError::Io(path.to_path_buf(), e);
        let corrupt = |m: String| TableError::Corrupt(path.to_path_buf(), m);
        let file = File::open(path).map_err(io_err)?;
        // SAFETY: the caller promises the file is not modified in place while mapped.
        let map = unsafe { Mmap::map(&file) }.map_err(io_err)?;
        if map.len() < HEADER_SIZE {
            return Err(corrupt("shorter than the header".into()));
        }
        let (header, body_len) = decode(&map)?;
        let version = u32::from_le_bytes(map[8..12].try_into().expect("4 bytes"));
        let trailer = if version == 1 {
            Some(TRAILER_SIZE as u64)
        } else {
            trailer_len(body_len)
        };
        let expected = trailer
            .and_then(|t| t.checked_add(body_len))
            .and_then(|n| n.checked_add(HEADER_SIZE as u64));
        if expected != Some(map.len() as u64) {
            return Err(corrupt(format!(
                "file is {} bytes but its header asks for {}",
                map.len(),
                expected.map_or("more".into(), |e| e.to_string())
            )));
        }
        if &map[map.len() - 8..] != END_MAGIC {
            return Err(corrupt("bad end marker".into()));
        }
        let body_len = body_len as usize;
        let blocks = block_count(body_len as u64) as usize;
        let m = Mapped {
            path: path.to_path_buf(),
            map,
            version,
            body_len,
            checked: (0..blocks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
        };
        if version == 1 {
            let _ = m.map.advise(Advice::Sequential);
            let end = m.map.len() - TRAILER_SIZE;
            let mut sum = Checksum::new(end as u64);
            for chunk in m.map[..end].chunks(1 << 20) {
                sum.update(chunk);
            }
            if sum.finish() != u64_at(&m.map, end) {
                return Err(corrupt("checksum mismatch".into()));
            }
            m.mark_all();
        } else {
            let sums = m.sums_range();
            if checksum(&m.map[sums.clone()]) != u64_at(&m.map, sums.end) {
                return Err(corrupt(
                    "the list of block checksums fails its checksum".into(),
                ));
            }
            if checksum(&m.map[..HEADER_SIZE]) != u64_at(&m.map, sums.start) {
                return Err(corrupt("header checksum mismatch".into()));
            }
            if m.map[HEADER_SIZE + body_len..sums.start]
                .iter()
                .any(|&b| b != 0)
            {
                return Err(corrupt("padding after the body is not zero".into()));
            }
        }
        let _ = m.map.advise(Advice::Random);
        Ok((header, m))
    }

    /// The format version (1 or 2).
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The path the table was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The header's bytes (checked when opened).
    pub fn header(&self) -> &[u8] {
        &self.map[..HEADER_SIZE]
    }

    /// Bytes in the body.
    pub fn body_len(&self) -> usize {
        self.body_len
    }

    /// Where the header's and the blocks' checksums lie (version 2).
    fn sums_range(&self) -> Range<usize> {
        let start = HEADER_SIZE + self.body_len.next_multiple_of(8);
        start..start + 8 * (1 + block_count(self.body_len as u64) as usize)
    }

    fn mark_all(&self) {
        for w in self.checked.iter() {
            w.store(u64::MAX, Ordering::Relaxed);
        }
    }

    #[inline]
    fn is_checked(&self, block: usize) -> bool {
        self.checked[block / 64].load(Ordering::Relaxed) >> (block % 64) & 1 == 1
    }

    /// Checks block `b` (its checksum, then `validate`) and remembers that it passed.
    #[cold]
    fn check_block(&self, b: usize, validate: Validate) -> Result<(), TableError> {
        let start = b * BLOCK_BYTES;
        let end = (start + BLOCK_BYTES).min(self.body_len);
        let bytes = &self.map[HEADER_SIZE + start..HEADER_SIZE + end];
        let stored = u64_at(&self.map, self.sums_range().start + 8 * (1 + b));
        let corrupt = |m: String| TableError::Corrupt(self.path.clone(), m);
        if checksum(bytes) != stored {
            return Err(corrupt(format!(
                "block {b} (bytes {} to {} of the file) fails its checksum",
                HEADER_SIZE + start,
                HEADER_SIZE + end
            )));
        }
        validate(start, bytes).map_err(|m| corrupt(format!("block {b}: {m}")))?;
        self.checked[b / 64].fetch_or(1 << (b % 64), Ordering::Relaxed);
        Ok(())
    }

    /// Bytes `range` of the body, after checking every block they touch that was not checked
    /// yet. A range beyond the body is an error (a table whose index disagrees with it).
    #[inline]
    pub fn bytes(&self, range: Range<usize>, validate: Validate) -> Result<&[u8], TableError> {
        if range.start > range.end || range.end > self.body_len {
            return Err(TableError::Corrupt(
                self.path.clone(),
                format!(
                    "a read of body bytes {range:?} past the body's {} bytes",
                    self.body_len
                ),
            ));
        }
        if range.start < range.end {
            for b in range.start / BLOCK_BYTES..=(range.end - 1) / BLOCK_BYTES {
                if !self.is_checked(b) {
                    self.check_block(b, validate)?;
                }
            }
        }
        Ok(&self.map[HEADER_SIZE + range.start..HEADER_SIZE + range.end])
    }

    /// The whole body, every block checked (see [`Mapped::check_all`] for the whole file).
    pub fn body(&self, validate: Validate) -> Result<&[u8], TableError> {
        self.bytes(0..self.body_len, validate)
    }

    /// Checks the whole file: every block not checked yet (in parallel) and, in version 2, the
    /// whole-file checksum (a version-1 file was checked whole when opened).
    pub fn check_all(&self, validate: Validate) -> Result<(), TableError> {
        if self.version == 1 {
            return Ok(());
        }
        let _ = self.map.advise(Advice::Sequential);
        let end = self.map.len() - 16;
        let whole = || checksum(&self.map[..end]);
        let blocks = block_count(self.body_len as u64) as usize;
        let per = 256; // blocks a task checks (4 MiB)
        let firsts: Vec<usize> = (0..blocks).step_by(per).collect();
        let (sum, results) = std::thread::scope(|s| {
            let sum = s.spawn(whole);
            let results = crate::par::map_items(&firsts, |&first| {
                (first..(first + per).min(blocks))
                    .filter(|&b| !self.is_checked(b))
                    .try_for_each(|b| self.check_block(b, validate))
            });
            (
                sum.join().expect("the checksum thread does not panic"),
                results,
            )
        });
        let _ = self.map.advise(Advice::Random);
        results.into_iter().collect::<Result<(), TableError>>()?;
        if sum != u64_at(&self.map, end) {
            return Err(TableError::Corrupt(
                self.path.clone(),
                "whole-file checksum mismatch".into(),
            ));
        }
        Ok(())
    }

    /// Blocks checked so far, of all (for reports and tests).
    pub fn blocks_checked(&self) -> (usize, usize) {
        let blocks = block_count(self.body_len as u64) as usize;
        ((0..blocks).filter(|&b| self.is_checked(b)).count(), blocks)
    }
}
