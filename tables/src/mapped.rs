//! A memory-mapped table file and its integrity checks.
//!
//! Versions 2 and 3 (3 is what this crate writes) keep a checksum per block of the body (16 KiB
//! and a serial hash in version 2, 4 KiB and a four-lane hash in 3: [`Sums`]): opening checks
//! the frame (length, end marker), the header's checksum and the checksum of the block
//! checksums, which is a few bytes per block of table; each block is checked the first time it
//! is read (a bit per block remembers it), and [`Mapped::check_all`] checks every block and the
//! whole-file checksum, for `verify` and for the solver's dependencies. Version 1 has only the
//! whole-file checksum, so it is checked whole when opened, as before.

use crate::format::{
    write_atomic, Sums, TableError, END_MAGIC, FORMAT_VERSION, HEADER_SIZE, TRAILER_SIZE,
};
use memmap2::{Advice, Mmap};
use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Checks of one block's contents beyond its checksum: `(offset in the body, bytes)`, an error
/// message if a value is out of what the header allows.
pub type Validate<'a> = &'a (dyn Fn(usize, &[u8]) -> Result<(), String> + Sync);

/// Opens a table file for reading, refusing anything but a regular file: a FIFO or a device
/// named like a table would block the open or the reads (opened without blocking, then
/// checked).
pub fn open_regular(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(file)
}

/// A mapped table file: header, body and trailer, with lazily checked blocks.
pub struct Mapped {
    path: PathBuf,
    map: Mmap,
    version: u32,
    /// The version's block size and hash.
    sums: Sums,
    body_len: usize,
    /// One bit per block: set once the block passed its checks.
    checked: Box<[AtomicU64]>,
    /// Blocks not checked yet: once none is left, reads skip the bits (a solve's lookups
    /// into a big dependency touch every block of it early on, then billions of times more).
    unchecked: AtomicUsize,
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
        let file = open_regular(path).map_err(io_err)?;
        // SAFETY: the caller promises the file is not modified in place while mapped.
        let map = unsafe { Mmap::map(&file) }.map_err(io_err)?;
        if map.len() < HEADER_SIZE {
            return Err(corrupt("shorter than the header".into()));
        }
        let (header, body_len) = decode(&map)?;
        let version = u32::from_le_bytes(map[8..12].try_into().expect("4 bytes"));
        let sums = Sums::of(version);
        let trailer = if version == 1 {
            Some(TRAILER_SIZE as u64)
        } else {
            sums.trailer_len(body_len)
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
        let blocks = sums.block_count(body_len as u64) as usize;
        let m = Mapped {
            path: path.to_path_buf(),
            map,
            version,
            sums,
            body_len,
            checked: (0..blocks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            unchecked: AtomicUsize::new(blocks),
        };
        if version == 1 {
            let _ = m.map.advise(Advice::Sequential);
            let end = m.map.len() - TRAILER_SIZE;
            let mut sum = sums.hasher(end as u64);
            for chunk in m.map[..end].chunks(1 << 20) {
                sum.update(chunk);
            }
            if sum.finish() != u64_at(&m.map, end) {
                return Err(corrupt("checksum mismatch".into()));
            }
            m.mark_all();
        } else {
            let list = m.sums_range();
            if sums.sum(&m.map[list.clone()]) != u64_at(&m.map, list.end) {
                return Err(corrupt(
                    "the list of block checksums fails its checksum".into(),
                ));
            }
            if sums.sum(&m.map[..HEADER_SIZE]) != u64_at(&m.map, list.start) {
                return Err(corrupt("header checksum mismatch".into()));
            }
            if m.map[HEADER_SIZE + body_len..list.start]
                .iter()
                .any(|&b| b != 0)
            {
                return Err(corrupt("padding after the body is not zero".into()));
            }
        }
        let _ = m.map.advise(Advice::Random);
        Ok((header, m))
    }

    /// The format version (1, 2 or 3).
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

    /// Where the header's and the blocks' checksums lie (versions 2 and 3).
    fn sums_range(&self) -> Range<usize> {
        let start = HEADER_SIZE + self.body_len.next_multiple_of(8);
        start..start + 8 * (1 + self.blocks())
    }

    /// Blocks of the body (each with its checksum in versions 2 and 3).
    fn blocks(&self) -> usize {
        self.sums.block_count(self.body_len as u64) as usize
    }

    fn mark_all(&self) {
        self.unchecked.store(0, Ordering::Relaxed);
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
        let size = self.sums.block_bytes();
        let start = b * size;
        let end = (start + size).min(self.body_len);
        let bytes = &self.map[HEADER_SIZE + start..HEADER_SIZE + end];
        let stored = u64_at(&self.map, self.sums_range().start + 8 * (1 + b));
        let corrupt = |m: String| TableError::Corrupt(self.path.clone(), m);
        if self.sums.sum(bytes) != stored {
            return Err(corrupt(format!(
                "block {b} (bytes {} to {} of the file) fails its checksum",
                HEADER_SIZE + start,
                HEADER_SIZE + end
            )));
        }
        validate(start, bytes).map_err(|m| corrupt(format!("block {b}: {m}")))?;
        let bit = 1 << (b % 64);
        if self.checked[b / 64].fetch_or(bit, Ordering::Relaxed) & bit == 0 {
            self.unchecked.fetch_sub(1, Ordering::Relaxed);
        }
        Ok(())
    }

    /// The two body bytes at the even offset `o` when their block was checked already (a
    /// 2-byte read at an even offset lies in one block: blocks are a power of two long);
    /// `None` when the block still needs its check or `o` is past the body. The hot path of a
    /// solve's lookups, kept small enough to inline; [`Mapped::bytes`] does the rest.
    #[inline(always)]
    pub fn checked_pair(&self, o: usize) -> Option<[u8; 2]> {
        if o + 2 > self.body_len {
            return None;
        }
        if self.unchecked.load(Ordering::Relaxed) != 0
            && !self.is_checked(o >> self.sums.block_shift())
        {
            return None;
        }
        let b = &self.map[HEADER_SIZE + o..HEADER_SIZE + o + 2];
        Some([b[0], b[1]])
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
        if range.start < range.end && self.unchecked.load(Ordering::Relaxed) != 0 {
            let shift = self.sums.block_shift();
            for b in range.start >> shift..=(range.end - 1) >> shift {
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

    /// Checks the whole file: every block not checked yet (in parallel) and, in versions 2 and 3, the
    /// whole-file checksum (a version-1 file was checked whole when opened).
    pub fn check_all(&self, validate: Validate) -> Result<(), TableError> {
        if self.version == 1 {
            return Ok(());
        }
        let _ = self.map.advise(Advice::Sequential);
        let end = self.map.len() - 16;
        let whole = || self.sums.sum(&self.map[..end]);
        let (sum, results) = std::thread::scope(|s| {
            let sum = s.spawn(whole);
            let results = self.check_blocks(validate);
            (
                sum.join().expect("the checksum thread does not panic"),
                results,
            )
        });
        let _ = self.map.advise(Advice::Random);
        results?;
        if sum != u64_at(&self.map, end) {
            return Err(TableError::Corrupt(
                self.path.clone(),
                "whole-file checksum mismatch".into(),
            ));
        }
        Ok(())
    }

    /// Checks every block of the body not checked yet, in parallel (a version-1 file has no
    /// block checksums: it was checked whole when opened).
    pub fn check_blocks(&self, validate: Validate) -> Result<(), TableError> {
        if self.version == 1 {
            return Ok(());
        }
        let blocks = self.blocks();
        let per = (4 << 20) / self.sums.block_bytes(); // blocks a task checks (4 MiB)
        let firsts: Vec<usize> = (0..blocks).step_by(per).collect();
        crate::par::map_items(&firsts, |&first| {
            (first..(first + per).min(blocks))
                .filter(|&b| !self.is_checked(b))
                .try_for_each(|b| self.check_block(b, validate))
        })
        .into_iter()
        .collect()
    }

    /// Writes the file again in the current format version, atomically (the same header but
    /// for the version, the same body, the current trailer), if it is of an older version;
    /// whether it did. Check the file whole first ([`Mapped::check_all`]): this trusts the body.
    pub fn rewrite_current(&self) -> Result<bool, TableError> {
        if self.version == FORMAT_VERSION {
            return Ok(false);
        }
        let mut head = [0u8; HEADER_SIZE];
        head.copy_from_slice(self.header());
        head[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        let body = &self.map[HEADER_SIZE..HEADER_SIZE + self.body_len];
        write_atomic(&self.path, &head, body.len() as u64, |w| {
            body.chunks(1 << 20).try_for_each(|c| w.put(c))
        })?;
        Ok(true)
    }

    /// Blocks checked so far, of all (for reports and tests).
    pub fn blocks_checked(&self) -> (usize, usize) {
        let blocks = self.blocks();
        ((0..blocks).filter(|&b| self.is_checked(b)).count(), blocks)
    }
}
