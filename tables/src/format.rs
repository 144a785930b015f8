//! What every table file shares: the header frame (magic, format version, game, value
//! encoding, rule fingerprint), the checksum trailer (a checksum per block of the body and one
//! over the whole file), the errors, and the atomic writer. `databases/README.md` documents the
//! layout byte by byte; [`crate::mapped`] reads it.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

pub use crate::checksum::{Checksum, Sums};

/// First 8 bytes of every table.
pub const MAGIC: &[u8; 8] = b"RETROTB\0";
/// Last 8 bytes of every table.
pub const END_MAGIC: &[u8; 8] = b"RETROEND";
/// Version of the layout this crate writes (`databases/README.md`): 2 has a checksum per
/// 16 KiB block, 3 a faster one (four lanes) per 4 KiB block.
pub const FORMAT_VERSION: u32 = 3;
/// The oldest version this crate reads: 1, a whole-file checksum only (checked at open).
pub const OLDEST_VERSION: u32 = 1;
/// Size of the header; the values start here.
pub const HEADER_SIZE: usize = 512;
/// Size of the trailer of a version-1 table (checksum and end magic).
pub const TRAILER_SIZE: usize = 16;
/// Bytes of the body a block checksum covers in the version this crate writes (the last block
/// may be shorter; version 2: 16 KiB, see [`Sums`]).
pub const BLOCK_BYTES: usize = 4 << 10;
/// Game id of Mill tables.
pub const GAME_MILL: u32 = 1;
/// Game id of Dara tables.
pub const GAME_DARA: u32 = 2;
/// Game id of Ô Ăn Quan tables.
pub const GAME_OAQ: u32 = 3;
/// Value encoding id: `u16` codes of [`crate::value`].
pub const ENCODING_U16: u32 = 1;
/// Value encoding id of a compressed table's win/draw/loss file (`.rtbw`).
pub const ENCODING_WDL: u32 = 4;
/// Value encoding id of a compressed table's distance file (`.rtbd`).
pub const ENCODING_DTM: u32 = 5;
/// Value encoding id of a derived sector table (`.rtbp`): a header and no values, each value
/// being the best over the position's moves (a one-ply search over other tables).
pub const ENCODING_DERIVED: u32 = 6;
/// Value encoding id of a distance file (`.rtbd`) whose win entries `0` stand for "searched":
/// the win's distance is 1 + the least distance of its moves that lose for the opponent, a
/// one-ply search (otherwise as [`ENCODING_DTM`]). A reader that knows only encoding 5 refuses
/// the file instead of reading those entries as wins in 1.
pub const ENCODING_DTM_SEARCHED: u32 = 7;
/// Value encoding id of a distance file laid out as [`ENCODING_DTM`] but with each block's
/// entries grouped: the wins' in slot order, then the losses' (what `retro` writes: the two
/// kinds' distances differ, and zstd codes each run better apart).
pub const ENCODING_DTM_GROUPED: u32 = 8;
/// Value encoding id of [`ENCODING_DTM_SEARCHED`] with its entries grouped as in
/// [`ENCODING_DTM_GROUPED`].
pub const ENCODING_DTM_SEARCHED_GROUPED: u32 = 9;
/// Value encoding id of [`ENCODING_WDL`] with the slots stored in the order header bytes
/// 120..128 name ([`crate::slot_order`]): a reader that knows only the index's order refuses
/// it instead of reading slots at the wrong places.
pub const ENCODING_WDL_ORDERED: u32 = 10;
/// [`ENCODING_DTM_GROUPED`] with the slots in the order of [`ENCODING_WDL_ORDERED`].
pub const ENCODING_DTM_GROUPED_ORDERED: u32 = 11;
/// [`ENCODING_DTM_SEARCHED_GROUPED`] with the slots in the order of [`ENCODING_WDL_ORDERED`].
pub const ENCODING_DTM_SEARCHED_GROUPED_ORDERED: u32 = 12;
/// Value encoding id of the distance file beside a win/draw/loss file of block coder 2
/// ([`crate::block_file::CODER_RANS`]): each block's entries grouped by that coder's
/// sub-blocks (a sub-block's wins', then its losses'), after a head of entry counts, so that a
/// probe reads one sub-block of win/draw/loss symbols. Its slots are always in an order of
/// their own (header bytes 120..128).
pub const ENCODING_DTM_BY_SUB: u32 = 13;
/// [`ENCODING_DTM_BY_SUB`] with searched wins (entries as in [`ENCODING_DTM_SEARCHED`]).
pub const ENCODING_DTM_SEARCHED_BY_SUB: u32 = 14;

/// Each compressed encoding that has a variant with the slots in an order of their own, and
/// that variant (5 and 7 have none).
const ORDERED: [(u32, u32); 3] = [
    (ENCODING_WDL, ENCODING_WDL_ORDERED),
    (ENCODING_DTM_GROUPED, ENCODING_DTM_GROUPED_ORDERED),
    (
        ENCODING_DTM_SEARCHED_GROUPED,
        ENCODING_DTM_SEARCHED_GROUPED_ORDERED,
    ),
];

/// The encoding id of a compressed file of `encoding` whose slots are stored in an order of
/// their own (`None` for encodings that have no such variant: 5 and 7).
pub fn ordered_encoding(encoding: u32) -> Option<u32> {
    ORDERED.iter().find(|p| p.0 == encoding).map(|p| p.1)
}

/// The encoding an ordered one stands for in the index's order, and whether it is ordered
/// (encodings 13 and 14 always are, and stand for themselves).
pub fn unordered_encoding(encoding: u32) -> (u32, bool) {
    if [ENCODING_DTM_BY_SUB, ENCODING_DTM_SEARCHED_BY_SUB].contains(&encoding) {
        return (encoding, true);
    }
    ORDERED
        .iter()
        .find(|p| p.1 == encoding)
        .map_or((encoding, false), |p| (p.0, true))
}

/// Where the rule fingerprint starts in a table's header.
pub const FINGERPRINT_OFFSET: usize = 128;
/// The longest fingerprint a header holds (the rest of the header after its start).
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
    /// A distance was asked of a win/draw/loss table (compressed with `--wdl-only`).
    NoDistances(PathBuf),
    /// A slot was read from a derived table, which holds no values (they come from a one-ply
    /// search, by position).
    Derived(PathBuf),
    /// The distance of a win was asked of a slot whose distance file leaves it to a one-ply
    /// search over the position's moves (encoding 7 or 9).
    Searched(PathBuf, u64),
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
            TableError::NoDistances(p) => write!(
                f,
                "{}: a win/draw/loss table without distances (compressed with --wdl-only): \
                 this needs the distances (the .rtbd file beside it)",
                p.display()
            ),
            TableError::Derived(p) => write!(
                f,
                "{}: a derived table holds no values (each comes from a one-ply search over the \
                 tables its moves lead to): probe it by position",
                p.display()
            ),
            TableError::Searched(p, slot) => write!(
                f,
                "{}: slot {slot} is a win whose distance the table leaves to a one-ply search \
                 over its moves (1 + the least distance of the moves that lose for the \
                 opponent): probe it by position",
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

/// Checksum of a whole byte slice, as this crate writes them (format version 3).
pub fn checksum(bytes: &[u8]) -> u64 {
    Sums::CURRENT.sum(bytes)
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
    if !(OLDEST_VERSION..=FORMAT_VERSION).contains(&version) {
        return Err(TableError::Mismatch(
            path.to_path_buf(),
            format!(
                "format version {version}, this retro reads versions {OLDEST_VERSION} to \
                 {FORMAT_VERSION}"
            ),
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

/// Blocks of a body of `body_len` bytes (version 3).
pub fn block_count(body_len: u64) -> u64 {
    Sums::CURRENT.block_count(body_len)
}

/// Size of the trailer after a body of `body_len` bytes (version 3; see [`Sums::trailer_len`]).
pub fn trailer_len(body_len: u64) -> Option<u64> {
    Sums::CURRENT.trailer_len(body_len)
}

/// The version-3 trailer of a header and body held in memory (what [`write_atomic`] appends
/// while streaming; tests use it to forge tables whose checksums agree).
pub fn trailer(head: &[u8], body: &[u8]) -> Vec<u8> {
    trailer_with(Sums::CURRENT, head, body)
}

/// The trailer of a header and body under a version's checksums (tests write version-2 files
/// with it).
pub fn trailer_with(s: Sums, head: &[u8], body: &[u8]) -> Vec<u8> {
    let mut sums = vec![s.sum(head)];
    sums.extend(body.chunks(s.block_bytes()).map(|b| s.sum(b)));
    let mut t = vec![0u8; body.len().next_multiple_of(8) - body.len()];
    finish_trailer(s, &mut t, &sums);
    let mut whole = s.hasher((head.len() + body.len() + t.len()) as u64);
    whole.update(head);
    // The body is a multiple of 8 but for its last piece: feed it with the padding after it.
    let cut = body.len() - body.len() % 8;
    whole.update(&body[..cut]);
    let mut rest = body[cut..].to_vec();
    rest.extend_from_slice(&t);
    whole.update(&rest);
    t.extend_from_slice(&whole.finish().to_le_bytes());
    t.extend_from_slice(END_MAGIC);
    t
}

/// Appends the block checksums and their own checksum.
fn finish_trailer(s: Sums, t: &mut Vec<u8>, sums: &[u64]) {
    let at = t.len();
    for x in sums {
        t.extend_from_slice(&x.to_le_bytes());
    }
    let of_sums = s.sum(&t[at..]);
    t.extend_from_slice(&of_sums.to_le_bytes());
}

/// The body of a table being written, checksummed (per block and whole) as it goes.
pub struct BodyWriter {
    out: io::BufWriter<File>,
    whole: Checksum,
    block: Checksum,
    block_left: u64,
    body_left: u64,
    sums: Vec<u64>,
    /// The last piece's bytes past a multiple of 8, fed to `whole` with the padding.
    whole_tail: Vec<u8>,
}

impl BodyWriter {
    /// Writes bytes (a multiple of 8 but for the last piece of the body).
    pub fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        if bytes.len() as u64 > self.body_left {
            return Err(io::Error::other(
                "the body written is longer than announced",
            ));
        }
        if !self.whole_tail.is_empty() {
            return Err(io::Error::other(
                "only the last piece of a body may be no multiple of 8 bytes",
            ));
        }
        let cut = bytes.len() - bytes.len() % 8;
        self.whole.update(&bytes[..cut]);
        self.whole_tail.extend_from_slice(&bytes[cut..]);
        let mut rest = bytes;
        while !rest.is_empty() {
            let n = rest.len().min(self.block_left as usize);
            self.block.update(&rest[..n]);
            self.block_left -= n as u64;
            self.body_left -= n as u64;
            rest = &rest[n..];
            if self.block_left == 0 {
                let next = self.body_left.min(BLOCK_BYTES as u64);
                let done = std::mem::replace(&mut self.block, Checksum::lanes(next));
                self.sums.push(done.finish());
                self.block_left = next;
            }
        }
        self.out.write_all(bytes)
    }
}

/// Writes a table atomically: the header, a body of `body_len` bytes written by `body`, the
/// version-3 trailer, to a temporary file that is synced and then renamed over `path`.
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
        let trailer = trailer_len(body_len).ok_or_else(|| io::Error::other("table too big"))?;
        let first = body_len.min(BLOCK_BYTES as u64);
        let mut w = BodyWriter {
            out: io::BufWriter::with_capacity(1 << 20, File::create(&tmp)?),
            whole: Checksum::lanes(HEADER_SIZE as u64 + body_len + trailer - 16),
            block: Checksum::lanes(first),
            block_left: first,
            body_left: body_len,
            sums: vec![checksum(head)],
            whole_tail: Vec::new(),
        };
        w.whole.update(head);
        w.out.write_all(head)?;
        body(&mut w)?;
        let BodyWriter {
            mut out,
            mut whole,
            body_left,
            sums,
            mut whole_tail,
            ..
        } = w;
        if body_left != 0 {
            return Err(io::Error::other(
                "the body written is shorter than announced",
            ));
        }
        let mut t = vec![0u8; (body_len.next_multiple_of(8) - body_len) as usize];
        finish_trailer(Sums::CURRENT, &mut t, &sums);
        whole_tail.extend_from_slice(&t);
        whole.update(&whole_tail);
        t.extend_from_slice(&whole.finish().to_le_bytes());
        t.extend_from_slice(END_MAGIC);
        out.write_all(&t)?;
        let f = out.into_inner().map_err(|e| e.into_error())?;
        if f.metadata()?.len() != HEADER_SIZE as u64 + body_len + trailer {
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
        let mut body = vec![1u8; 8];
        let mut want = head.to_vec();
        want.append(&mut body);
        want.extend(trailer(&head, &[1; 8]));
        assert_eq!(fs::read(&path).unwrap(), want);
        let left: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        assert_eq!(left, vec![path.clone()]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_streamed_trailer_is_the_one_computed_whole() {
        let dir = tempfile_dir("trailer");
        let head = header_frame(GAME_MILL, ENCODING_U16, "fp");
        for len in [
            0usize,
            1,
            7,
            8,
            9,
            BLOCK_BYTES - 1,
            BLOCK_BYTES,
            3 * BLOCK_BYTES + 5,
        ] {
            let body: Vec<u8> = (0..len).map(|i| (i * 7 + i / 300) as u8).collect();
            let path = dir.join(format!("t{len}.rtb"));
            write_atomic(&path, &head, len as u64, |w| {
                // Uneven pieces (multiples of 8 but for the last).
                let mut at = 0;
                for (k, piece) in [8usize, 4096, 24, BLOCK_BYTES].iter().cycle().enumerate() {
                    if at >= len || k > 10_000 {
                        break;
                    }
                    let n = (*piece).min(len - at);
                    w.put(&body[at..at + n])?;
                    at += n;
                }
                Ok(())
            })
            .unwrap();
            let file = fs::read(&path).unwrap();
            let t = trailer(&head, &body);
            assert_eq!(t.len() as u64, trailer_len(len as u64).unwrap());
            assert_eq!(&file[HEADER_SIZE + len..], &t[..], "{len}");
            assert_eq!(
                checksum(&file[..file.len() - 16]),
                u64_at(&file, file.len() - 16)
            );
        }
        let path = dir.join("short.rtb");
        let err = write_atomic(&path, &head, 16, |w| w.put(&[0; 8])).unwrap_err();
        assert!(err.to_string().contains("shorter"), "{err}");
        assert!(write_atomic(&path, &head, 8, |w| w.put(&[0; 16])).is_err());
        fs::remove_dir_all(&dir).unwrap();
    }

    fn u64_at(b: &[u8], o: usize) -> u64 {
        u64::from_le_bytes(b[o..o + 8].try_into().unwrap())
    }

    fn tempfile_dir(what: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("retro-format-{what}-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        dir
    }
}
