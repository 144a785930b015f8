//! The table file format: a fixed header, the values as little-endian `u16`, a checksum trailer.
//! `databases/README.md` documents the layout byte by byte.

use crate::sector::SectorKey;
use crate::value::{Value, MAX_DISTANCE};
use memmap2::{Advice, Mmap};
use std::fmt;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

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
/// Value encoding id: `u16` codes of `value.rs`.
pub const ENCODING_U16: u32 = 1;
pub(crate) const FINGERPRINT_OFFSET: usize = 128;
const FINGERPRINT_MAX: usize = HEADER_SIZE - FINGERPRINT_OFFSET;

/// What a table's header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Game id.
    pub game: u32,
    /// The rule profile's fingerprint.
    pub fingerprint: String,
    /// The sector.
    pub sector: SectorKey,
    /// Number of slots.
    pub slots: u64,
    /// Positions won, drawn and lost for the side to move, and wasted slots.
    pub wins: u64,
    /// Drawn positions.
    pub draws: u64,
    /// Lost positions.
    pub losses: u64,
    /// Slots that hold no position.
    pub wasted: u64,
    /// Longest win in plies.
    pub longest_win: u16,
    /// Longest loss in plies.
    pub longest_loss: u16,
}

/// A table that cannot be used, and why.
#[derive(Debug)]
pub enum TableError {
    /// The file could not be read or written.
    Io(PathBuf, io::Error),
    /// The file is not a valid table (truncated, corrupted, other format).
    Corrupt(PathBuf, String),
    /// The table was built for other rules or another sector.
    Mismatch(PathBuf, String),
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            TableError::Corrupt(p, m) => write!(f, "{}: corrupt table: {m}", p.display()),
            TableError::Mismatch(p, m) => write!(f, "{}: {m}", p.display()),
        }
    }
}

impl std::error::Error for TableError {}

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
pub(crate) fn header_frame(game: u32, encoding: u32, fingerprint: &str) -> [u8; HEADER_SIZE] {
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
pub(crate) fn read_frame(
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

impl Header {
    /// Counts the values of a finished table into a header.
    pub fn from_values(game: u32, fingerprint: &str, sector: SectorKey, values: &[u16]) -> Header {
        let mut h = Header {
            game,
            fingerprint: fingerprint.to_string(),
            sector,
            slots: values.len() as u64,
            wins: 0,
            draws: 0,
            losses: 0,
            wasted: 0,
            longest_win: 0,
            longest_loss: 0,
        };
        h.tally(values.iter().copied());
        h
    }

    /// Adds stored codes to the counts (branch-free: tables are read whole when opened).
    fn tally(&mut self, codes: impl Iterator<Item = u16>) {
        let (mut w, mut d, mut l, mut x) = (0u64, 0u64, 0u64, 0u64);
        let (mut lw, mut ll) = (self.longest_win, self.longest_loss);
        for v in codes {
            let class = v >> 14;
            let dist = v & MAX_DISTANCE;
            d += (class == 0) as u64;
            l += (class == 1) as u64;
            w += (class == 2) as u64;
            x += (class == 3) as u64;
            lw = lw.max(dist * (class == 2) as u16);
            ll = ll.max(dist * (class == 1) as u16);
        }
        self.wins += w;
        self.draws += d;
        self.losses += l;
        self.wasted += x;
        self.longest_win = lw;
        self.longest_loss = ll;
    }

    fn encode(&self) -> [u8; HEADER_SIZE] {
        let mut b = header_frame(self.game, ENCODING_U16, &self.fingerprint);
        b[16..20].copy_from_slice(&[self.sector.w, self.sector.b, self.sector.wf, self.sector.bf]);
        b[24..32].copy_from_slice(&self.slots.to_le_bytes());
        b[32..40].copy_from_slice(&self.wins.to_le_bytes());
        b[40..48].copy_from_slice(&self.draws.to_le_bytes());
        b[48..56].copy_from_slice(&self.losses.to_le_bytes());
        b[56..64].copy_from_slice(&self.wasted.to_le_bytes());
        b[64..66].copy_from_slice(&self.longest_win.to_le_bytes());
        b[66..68].copy_from_slice(&self.longest_loss.to_le_bytes());
        b
    }

    fn decode(path: &Path, b: &[u8]) -> Result<Header, TableError> {
        let fingerprint = read_frame(path, b, None, ENCODING_U16)?;
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        let u16_at = |o: usize| u16::from_le_bytes(b[o..o + 2].try_into().expect("2 bytes"));
        Ok(Header {
            game: u32_at(12),
            fingerprint,
            sector: SectorKey {
                w: b[16],
                b: b[17],
                wf: b[18],
                bf: b[19],
            },
            slots: u64_at(24),
            wins: u64_at(32),
            draws: u64_at(40),
            losses: u64_at(48),
            wasted: u64_at(56),
            longest_win: u16_at(64),
            longest_loss: u16_at(66),
        })
    }
}

/// Writes a table atomically: to a temporary file, fsync, rename, fsync the directory.
pub fn write(path: &Path, header: &Header, values: &[u16]) -> Result<(), TableError> {
    let io_err = |e| TableError::Io(path.to_path_buf(), e);
    assert!(
        header.fingerprint.len() <= FINGERPRINT_MAX,
        "fingerprint too long"
    );
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| TableError::Io(dir.to_path_buf(), e))?;
    let tmp = path.with_extension("tmp");
    let head = header.encode();
    let result = (|| {
        let mut f = io::BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        let mut sum = Checksum::new((HEADER_SIZE + 2 * values.len()) as u64);
        sum.update(&head);
        f.write_all(&head)?;
        let mut buf = Vec::with_capacity(1 << 17);
        for chunk in values.chunks(1 << 16) {
            buf.clear();
            for v in chunk {
                buf.extend_from_slice(&v.to_le_bytes());
            }
            sum.update(&buf);
            f.write_all(&buf)?;
        }
        f.write_all(&sum.finish().to_le_bytes())?;
        f.write_all(END_MAGIC)?;
        let f = f.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        Ok(())
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(TableError::Io(tmp, e));
    }
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        io_err(e)
    })?;
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Checks a header's counts: they add up, and they match `recount`, the counts of the values
/// actually stored.
fn check_counts(path: &Path, h: &Header, recount: &Header) -> Result<(), TableError> {
    let total = h
        .wins
        .checked_add(h.draws)
        .and_then(|t| t.checked_add(h.losses))
        .and_then(|t| t.checked_add(h.wasted));
    if total != Some(h.slots) || h.longest_win > MAX_DISTANCE || h.longest_loss > MAX_DISTANCE {
        return Err(TableError::Corrupt(
            path.to_path_buf(),
            "header counts do not add up".into(),
        ));
    }
    if recount != h {
        return Err(TableError::Corrupt(
            path.to_path_buf(),
            "header counts do not match the stored values".into(),
        ));
    }
    Ok(())
}

/// An open, verified table: its header and memory-mapped values.
pub struct Table {
    /// The header.
    pub header: Header,
    map: Mmap,
}

impl Table {
    /// Maps a table and checks magic, version, length and checksum.
    pub fn open(path: &Path) -> Result<Table, TableError> {
        let io_err = |e| TableError::Io(path.to_path_buf(), e);
        let file = File::open(path).map_err(io_err)?;
        // SAFETY: the file is opened read-only and tables are only ever replaced by an atomic
        // rename, never modified in place, so the mapped bytes do not change under us (a user
        // editing the file by hand while it is mapped is outside this contract). Every value
        // read from the map is checked or decoded, never trusted as a pointer or length.
        let map = unsafe { Mmap::map(&file) }.map_err(io_err)?;
        let header = Header::decode(path, &map)?;
        let expected = (HEADER_SIZE as u64)
            .checked_add(header.slots.saturating_mul(2))
            .and_then(|n| n.checked_add(TRAILER_SIZE as u64));
        if expected != Some(map.len() as u64) {
            return Err(TableError::Corrupt(
                path.to_path_buf(),
                format!(
                    "file is {} bytes but the header's {} slots need {}",
                    map.len(),
                    header.slots,
                    expected.map_or("more".into(), |e| e.to_string())
                ),
            ));
        }
        let body_end = map.len() - TRAILER_SIZE;
        if &map[body_end + 8..] != END_MAGIC {
            return Err(TableError::Corrupt(
                path.to_path_buf(),
                "bad end marker".into(),
            ));
        }
        let stored = u64::from_le_bytes(map[body_end..body_end + 8].try_into().expect("8 bytes"));
        // One pass over the file: the checksum of every byte and the counts of the values.
        // Read-ahead helps the pass; probing afterwards jumps around.
        let _ = map.advise(Advice::Sequential);
        let mut sum = Checksum::new(body_end as u64);
        sum.update(&map[..HEADER_SIZE]);
        let mut recount = Header::from_values(header.game, &header.fingerprint, header.sector, &[]);
        for chunk in map[HEADER_SIZE..body_end].chunks(1 << 20) {
            sum.update(chunk);
            recount.tally(
                chunk
                    .chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]])),
            );
        }
        recount.slots = header.slots;
        if sum.finish() != stored {
            return Err(TableError::Corrupt(
                path.to_path_buf(),
                "checksum mismatch".into(),
            ));
        }
        check_counts(path, &header, &recount)?;
        let _ = map.advise(Advice::Random);
        Ok(Table { header, map })
    }

    /// The raw code of a slot.
    #[inline]
    pub fn code(&self, slot: u64) -> u16 {
        let o = HEADER_SIZE + 2 * slot as usize;
        let b: [u8; 2] = self.map[o..o + 2].try_into().expect("two bytes");
        u16::from_le_bytes(b)
    }

    /// The raw code of a slot, or the wasted-slot code for a slot out of range.
    #[inline]
    pub fn code_or_wasted(&self, slot: u64) -> u16 {
        if slot < self.header.slots {
            self.code(slot)
        } else {
            crate::value::WASTED
        }
    }

    /// The value of a slot (`None` for a wasted slot or a slot out of range).
    #[inline]
    pub fn value(&self, slot: u64) -> Option<Value> {
        if slot >= self.header.slots {
            return None;
        }
        Value::decode(self.code(slot))
    }
}
