//! Tables of solved Ô Ăn Quan games: the same header, checksum trailer and atomic write as the
//! sector tables, in one of two encodings (databases/README.md has the byte layout):
//!
//! - encoding 2, dense: one `i16` per slot of the dense index of `oaq_index.rs` (the value for
//!   the side to move in future net seeds, `-32768` for a slot no reachable position has);
//! - encoding 3, compact (`oaq_compact.rs`): what `retro solve oaq` writes, the values of the
//!   positions with South to move only (a position and its mirror share one), one byte each,
//!   behind a ranked bit set of the canonical slots that have one.

use crate::oaq_big::canonical_slot;
use crate::oaq_compact;
use crate::oaq_index::OaqIndex;
use crate::oaq_solve::UNREACHABLE;
use crate::table::{
    header_frame, read_frame, Checksum, TableError, END_MAGIC, FINGERPRINT_OFFSET, HEADER_SIZE,
    MAGIC, TRAILER_SIZE,
};
use memmap2::{Advice, Mmap};
use retro_engine::oaq::{Oaq, Position};
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

/// Game id of Ô Ăn Quan tables.
pub const GAME_OAQ: u32 = 3;
/// Value encoding id: one `i16` per slot of the Ô Ăn Quan index.
pub const ENCODING_OAQ_I16: u32 = 2;
/// Value encoding id: one `i8` per reachable canonical position behind a ranked bit set.
pub const ENCODING_OAQ_COMPACT: u32 = 3;

/// What an Ô Ăn Quan table's header says. The counts are of the values the table stores:
/// every slot in a dense table, the canonical slots (South to move) in a compact one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OaqHeader {
    /// The rule profile's fingerprint.
    pub fingerprint: String,
    /// Citizen and mandarin seeds at the start.
    pub seeds: [u8; 2],
    /// [`ENCODING_OAQ_I16`] or [`ENCODING_OAQ_COMPACT`].
    pub encoding: u32,
    /// Number of slots of the dense index.
    pub slots: u64,
    /// Stored values that are positive.
    pub positive: u64,
    /// Stored values that are 0.
    pub zero: u64,
    /// Stored values that are negative.
    pub negative: u64,
    /// Slots without a value (no reachable position).
    pub unreachable: u64,
    /// Largest value.
    pub max: i16,
    /// Smallest value.
    pub min: i16,
    /// Positions reachable from the start (either side to move).
    pub reachable: u64,
    /// Canonical slots (compact tables; 0 in dense ones).
    pub canonical_slots: u64,
}

impl OaqHeader {
    /// The header of a dense table describing `values`.
    pub fn from_values(fingerprint: &str, seeds: [u8; 2], values: &[i16]) -> OaqHeader {
        let mut h = OaqHeader::empty(fingerprint, seeds, ENCODING_OAQ_I16);
        h.slots = values.len() as u64;
        h.tally(values.iter().copied());
        h.reachable = h.stored();
        h
    }

    pub(crate) fn empty(fingerprint: &str, seeds: [u8; 2], encoding: u32) -> OaqHeader {
        OaqHeader {
            fingerprint: fingerprint.to_string(),
            seeds,
            encoding,
            slots: 0,
            positive: 0,
            zero: 0,
            negative: 0,
            unreachable: 0,
            max: 0,
            min: 0,
            reachable: 0,
            canonical_slots: 0,
        }
    }

    /// Positions reachable from the start.
    pub fn positions(&self) -> u64 {
        self.reachable
    }

    /// Values stored.
    pub fn stored(&self) -> u64 {
        self.positive + self.zero + self.negative
    }

    pub(crate) fn tally(&mut self, values: impl Iterator<Item = i16>) {
        for v in values {
            match v {
                UNREACHABLE => self.unreachable += 1,
                0 => self.zero += 1,
                x if x > 0 => self.positive += 1,
                _ => self.negative += 1,
            }
            if v != UNREACHABLE {
                self.max = self.max.max(v);
                self.min = self.min.min(v);
            }
        }
    }

    /// The same counts, added up (for tallies made in parallel).
    pub(crate) fn merge(mut self, o: OaqHeader) -> OaqHeader {
        self.positive += o.positive;
        self.zero += o.zero;
        self.negative += o.negative;
        self.unreachable += o.unreachable;
        self.max = self.max.max(o.max);
        self.min = self.min.min(o.min);
        self
    }

    fn encode(&self) -> [u8; HEADER_SIZE] {
        let mut b = header_frame(GAME_OAQ, self.encoding, &self.fingerprint);
        b[16] = self.seeds[0];
        b[17] = self.seeds[1];
        b[24..32].copy_from_slice(&self.slots.to_le_bytes());
        b[32..40].copy_from_slice(&self.positive.to_le_bytes());
        b[40..48].copy_from_slice(&self.zero.to_le_bytes());
        b[48..56].copy_from_slice(&self.negative.to_le_bytes());
        b[56..64].copy_from_slice(&self.unreachable.to_le_bytes());
        b[64..66].copy_from_slice(&self.max.to_le_bytes());
        b[66..68].copy_from_slice(&self.min.to_le_bytes());
        if self.encoding == ENCODING_OAQ_COMPACT {
            b[72..80].copy_from_slice(&self.reachable.to_le_bytes());
            b[80..88].copy_from_slice(&self.canonical_slots.to_le_bytes());
        }
        b
    }

    fn decode(path: &Path, b: &[u8]) -> Result<OaqHeader, TableError> {
        let encoding = match b.get(20..24) {
            Some(e) if e == ENCODING_OAQ_COMPACT.to_le_bytes() => ENCODING_OAQ_COMPACT,
            _ => ENCODING_OAQ_I16,
        };
        let fingerprint = read_frame(path, b, Some((GAME_OAQ, "Ô Ăn Quan")), encoding)?;
        let fp_len = fingerprint.len();
        let compact = encoding == ENCODING_OAQ_COMPACT;
        let padding = b[18..20]
            .iter()
            .chain(&b[if compact { 88 } else { 72 }..FINGERPRINT_OFFSET])
            .chain(&b[FINGERPRINT_OFFSET + fp_len..HEADER_SIZE]);
        if fingerprint.contains('\0') || padding.into_iter().any(|&x| x != 0) {
            return Err(TableError::Corrupt(
                path.to_path_buf(),
                "header padding is not zero".to_string(),
            ));
        }
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        let i16_at = |o: usize| i16::from_le_bytes(b[o..o + 2].try_into().expect("2 bytes"));
        let mut h = OaqHeader {
            fingerprint,
            seeds: [b[16], b[17]],
            encoding,
            slots: u64_at(24),
            positive: u64_at(32),
            zero: u64_at(40),
            negative: u64_at(48),
            unreachable: u64_at(56),
            max: i16_at(64),
            min: i16_at(66),
            reachable: 0,
            canonical_slots: 0,
        };
        if compact {
            h.reachable = u64_at(72);
            h.canonical_slots = u64_at(80);
        } else {
            h.reachable = h.stored();
        }
        Ok(h)
    }
}

/// Writes a dense table atomically (temporary file, fsync, rename), `values` one per slot.
pub fn write(path: &Path, header: &OaqHeader, values: &[i16]) -> Result<(), TableError> {
    if values.len() as u64 != header.slots {
        return Err(TableError::Corrupt(
            path.to_path_buf(),
            "the header does not describe these values".into(),
        ));
    }
    write_atomic(path, header, 2 * header.slots, |w| {
        let mut buf = Vec::with_capacity(2 << 20);
        for chunk in values.chunks(1 << 20) {
            buf.clear();
            buf.extend(chunk.iter().flat_map(|v| v.to_le_bytes()));
            w.put(&buf)?;
        }
        Ok(())
    })
}

/// The body of a table being written, checksummed as it goes.
pub(crate) struct BodyWriter {
    out: io::BufWriter<File>,
    sum: Checksum,
}

impl BodyWriter {
    /// Writes bytes (a multiple of 8 but for the last piece of the body).
    pub(crate) fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.sum.update(bytes);
        self.out.write_all(bytes)
    }
}

/// Writes a table atomically: the header, a body of `body_len` bytes written by `body`, the
/// checksum and end magic, to a temporary file that is synced and then renamed over `path`.
pub(crate) fn write_atomic(
    path: &Path,
    header: &OaqHeader,
    body_len: u64,
    body: impl FnOnce(&mut BodyWriter) -> io::Result<()>,
) -> Result<(), TableError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| TableError::Io(dir.to_path_buf(), e))?;
    let tmp = path.with_extension("tmp");
    let head = header.encode();
    let result = (|| {
        let mut w = BodyWriter {
            out: io::BufWriter::with_capacity(1 << 20, File::create(&tmp)?),
            sum: Checksum::new(HEADER_SIZE as u64 + body_len),
        };
        w.put(&head)?;
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

/// An open, verified Ô Ăn Quan table.
pub struct OaqTable {
    /// The header.
    pub header: OaqHeader,
    map: Mmap,
}

impl OaqTable {
    /// Maps a table and checks its header, length, checksum and value counts (and, compact,
    /// its directory).
    pub fn open(path: &Path) -> Result<OaqTable, TableError> {
        let io_err = |e| TableError::Io(path.to_path_buf(), e);
        let corrupt = |m: String| TableError::Corrupt(path.to_path_buf(), m);
        let file = File::open(path).map_err(io_err)?;
        // SAFETY: as for sector tables (table.rs): opened read-only, only ever replaced by an
        // atomic rename, never modified in place; every byte read is checked or decoded, none
        // is trusted as a pointer or a length.
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
        let (sum, recount) = rayon::join(checksum, recount);
        if sum != stored {
            return Err(corrupt("checksum mismatch".into()));
        }
        let recount = recount.map_err(corrupt)?;
        if recount != header {
            return Err(corrupt(
                "header counts do not match the stored values".into(),
            ));
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

    /// The value of a position for the side to move (`None`: not a position of this game (its
    /// seeds, board and stores, are not the profile's total), or
    /// not reachable from its start; a compact table also answers for a position whose mirror
    /// is reachable).
    pub fn value(&self, g: &Oaq, idx: &OaqIndex, p: &Position) -> Option<i16> {
        let seeds = g.seeds_in_game(p);
        let s = g.start();
        let start_like = p.cells == s.cells && p.big == s.big && p.side == s.side;
        let big_ok = g.profile.big_mandarin.is_some() || p.big == [false, false];
        if seeds != g.profile.total_seeds() as i32 || (p.first && !start_like) || !big_ok {
            return None;
        }
        if idx.size() != self.header.slots {
            return None;
        }
        match self.header.encoding {
            ENCODING_OAQ_COMPACT => {
                let body = &self.map[HEADER_SIZE..self.map.len() - TRAILER_SIZE];
                oaq_compact::probe(&self.header, body, canonical_slot(idx, p))
            }
            _ => self.code(idx.rank(p)).filter(|&v| v != UNREACHABLE),
        }
    }
}

/// Whether a file's header says it is an Ô Ăn Quan table (its encoding field).
pub fn is_oaq_table(bytes: &[u8]) -> bool {
    bytes.len() >= 24 && &bytes[0..8] == MAGIC && {
        let e = u32::from_le_bytes(bytes[20..24].try_into().expect("4 bytes"));
        e == ENCODING_OAQ_I16 || e == ENCODING_OAQ_COMPACT
    }
}
