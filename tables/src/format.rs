//! What every table file shares: the header frame (magic, format version, game, value
//! encoding, rule fingerprint), the checksum trailer, the errors, and the atomic writer.
//! `databases/README.md` documents the layout byte by byte.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// First 8 bytes of every table.
pub const MAGIC: &[u8; 8] = b"RETROTB\0";
/// Last 8 bytes of every table.
pub const END_MAGIC: &[u8; 8] = b"RETROEND";
/// Version of the layout described in `databases/README.md`.
pub const FORMAT_VERSION: u32 = 1;
/// Size of the header; the values start here.
pub const HEADER_SIZE: usize = 512;
/// Size of the trailer (checksum and end magic).
pub const TRAILER_SIZE: usize = 16;
/// Game id of Mill tables.
pub const GAME_MILL: u32 = 1;
/// Game id of Dara tables.
pub const GAME_DARA: u32 = 2;
/// Game id of Ô Ăn Quan tables.
pub const GAME_OAQ: u32 = 3;
/// Value encoding id: `u16` codes of [`crate::value`].
pub const ENCODING_U16: u32 = 1;
pub const FINGERPRINT_OFFSET: usize = 128;
pub const FINGERPRINT_MAX: usize = HEADER_SIZE - FINGERPRINT_OFFSET;

/// A table that cannot be used, and why.
#[derive(Debug)]
pub enum TableError {
    /// The file could not be read or written.
    Io(PathBuf, io::Error),
    /// The file is not a valid table (truncated, corrupted, other format).
    Corrupt(PathBuf, String),
    /// The table was built for other rules or another sector.
    Mismatch(PathBuf, String),
    /// Another process holds the lock of a table folder (the lock file).
    Busy(PathBuf),
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            TableError::Corrupt(p, m) => write!(f, "{}: corrupt table: {m}", p.display()),
            TableError::Mismatch(p, m) => write!(f, "{}: {m}", p.display()),
            TableError::Busy(p) => write!(
                f,
                "another solve is writing into {} (it holds {})",
                p.parent().unwrap_or(p).display(),
                p.display()
            ),
        }
    }
}

impl std::error::Error for TableError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TableError::Io(_, e) => Some(e),
            _ => None,
        }
    }
}

/// A temporary name beside `path` that no other writer uses: `<name>.<pid>-<n>.tmp` (`n`
/// counts this process's temporary files from 0), so that two writers (two processes, or two
/// threads) never write into one file. A file of that name can only be a dead process's
/// leftover, and is overwritten.
pub fn temp_path(path: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map_or("table".into(), |n| n.to_string_lossy());
    path.with_file_name(format!("{name}.{}-{n}.tmp", std::process::id()))
}

/// Streaming 64-bit checksum (word-wise multiply-rotate hash) over a known total length.
/// Every `update` but the last must be a multiple of 8 bytes long.
pub struct Checksum(u64);

impl Checksum {
    /// Starts a checksum over `total_len` bytes.
    pub fn new(total_len: u64) -> Checksum {
        Checksum(0x243F_6A88_85A3_08D3 ^ total_len)
    }

    /// Adds bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            self.0 = (self.0.rotate_left(23) ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(23) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    /// The checksum.
    pub fn finish(self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

/// Checksum of a whole byte slice.
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut c = Checksum::new(bytes.len() as u64);
    c.update(bytes);
    c.finish()
}

/// The parts of a header every table shares: magic, format version, game, value encoding and
/// the fingerprint (from offset 128). The caller fills in its own fields.
pub fn header_frame(game: u32, encoding: u32, fingerprint: &str) -> [u8; HEADER_SIZE] {
    let mut b = [0u8; HEADER_SIZE];
    b[0..8].copy_from_slice(MAGIC);
    b[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    b[12..16].copy_from_slice(&game.to_le_bytes());
    b[20..24].copy_from_slice(&encoding.to_le_bytes());
    let fp = fingerprint.as_bytes();
    b[68..72].copy_from_slice(&(fp.len() as u32).to_le_bytes());
    b[FINGERPRINT_OFFSET..FINGERPRINT_OFFSET + fp.len()].copy_from_slice(fp);
    b
}

/// Checks the shared parts of a header (length, magic, version, `game` when given, encoding,
/// fingerprint length and text) and returns the fingerprint.
pub fn read_frame(
    path: &Path,
    b: &[u8],
    game: Option<(u32, &str)>,
    encoding: u32,
) -> Result<String, TableError> {
    let corrupt = |m: &str| TableError::Corrupt(path.to_path_buf(), m.to_string());
    if b.len() < HEADER_SIZE {
        return Err(corrupt("shorter than the header"));
    }
    if &b[0..8] != MAGIC {
        return Err(corrupt("bad magic: not a retro table"));
    }
    let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"));
    let version = u32_at(8);
    if version != FORMAT_VERSION {
        return Err(TableError::Mismatch(
            path.to_path_buf(),
            format!("format version {version}, this retro reads version {FORMAT_VERSION}"),
        ));
    }
    if let Some((id, name)) = game {
        if u32_at(12) != id {
            return Err(TableError::Mismatch(
                path.to_path_buf(),
                format!("table for game {}, not {name}", u32_at(12)),
            ));
        }
    }
    if u32_at(20) != encoding {
        return Err(corrupt("unknown value encoding"));
    }
    let fp_len = u32_at(68) as usize;
    if fp_len > FINGERPRINT_MAX {
        return Err(corrupt("fingerprint length out of range"));
    }
    Ok(
        std::str::from_utf8(&b[FINGERPRINT_OFFSET..FINGERPRINT_OFFSET + fp_len])
            .map_err(|_| corrupt("fingerprint is not text"))?
            .to_string(),
    )
}

/// The body of a table being written, checksummed as it goes.
pub struct BodyWriter {
    out: io::BufWriter<File>,
    sum: Checksum,
}

impl BodyWriter {
    /// Writes bytes (a multiple of 8 but for the last piece of the body).
    pub fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.sum.update(bytes);
        self.out.write_all(bytes)
    }
}

/// Writes a table atomically: the header, a body of `body_len` bytes written by `body`, the
/// checksum and end magic, to a temporary file that is synced and then renamed over `path`.
pub fn write_atomic(
    path: &Path,
    head: &[u8; HEADER_SIZE],
    body_len: u64,
    body: impl FnOnce(&mut BodyWriter) -> io::Result<()>,
) -> Result<(), TableError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| TableError::Io(dir.to_path_buf(), e))?;
    let tmp = temp_path(path);
    let result = (|| {
        let mut w = BodyWriter {
            out: io::BufWriter::with_capacity(1 << 20, File::create(&tmp)?),
            sum: Checksum::new(HEADER_SIZE as u64 + body_len),
        };
        w.put(head)?;
        body(&mut w)?;
        let BodyWriter { mut out, sum } = w;
        out.write_all(&sum.finish().to_le_bytes())?;
        out.write_all(END_MAGIC)?;
        let f = out.into_inner().map_err(|e| e.into_error())?;
        if f.metadata()?.len() != HEADER_SIZE as u64 + body_len + TRAILER_SIZE as u64 {
            return Err(io::Error::other(
                "the body written is not the length announced",
            ));
        }
        f.sync_all()?;
        Ok(())
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(TableError::Io(tmp, e));
    }
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        TableError::Io(path.to_path_buf(), e)
    })?;
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writers_use_temporary_names_of_their_own_and_leave_none() {
        let dir = std::env::temp_dir().join(format!("retro-format-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("sector_3_3_0_0.rtb");
        let (a, b) = (temp_path(&path), temp_path(&path));
        assert_ne!(a, b);
        assert_eq!(a.parent(), path.parent());
        assert!(a.extension().is_some_and(|e| e == "tmp"));
        let head = header_frame(GAME_MILL, ENCODING_U16, "fp");
        write_atomic(&path, &head, 8, |w| w.put(&[0; 8])).unwrap();
        write_atomic(&path, &head, 8, |w| w.put(&[1; 8])).unwrap();
        let left: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        assert_eq!(left, vec![path.clone()]);
        fs::remove_dir_all(&dir).unwrap();
    }
}
