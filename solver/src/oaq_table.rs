//! Tables of solved Ô Ăn Quan games: the same header, checksum trailer and atomic write as the
//! sector tables, with one `i16` value per slot of the dense index of `oaq_index.rs`.
//!
//! Layout (all little-endian): bytes 0-511 the header (magic `RETROTB\0`, format version, game id
//! 3, bytes 16-17 the citizen and mandarin seeds at the start, encoding 2 at 20, the slot count
//! at 24, the counts of positive, zero and negative values and of unreachable slots at
//! 32/40/48/56, the largest and smallest values as `i16` at 64/66, the fingerprint length at 68
//! and the fingerprint from 128); then one `i16` per slot (the value for the side to move in
//! future net seeds, `-32768` for a slot no reachable position has); then the checksum of
//! everything before it and `RETROEND`.

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

/// What an Ô Ăn Quan table's header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OaqHeader {
    /// The rule profile's fingerprint.
    pub fingerprint: String,
    /// Citizen and mandarin seeds at the start.
    pub seeds: [u8; 2],
    /// Number of slots.
    pub slots: u64,
    /// Reachable positions with a positive value.
    pub positive: u64,
    /// Reachable positions with value 0.
    pub zero: u64,
    /// Reachable positions with a negative value.
    pub negative: u64,
    /// Slots no reachable position has.
    pub unreachable: u64,
    /// Largest value.
    pub max: i16,
    /// Smallest value.
    pub min: i16,
}

impl OaqHeader {
    /// The header describing `values`.
    pub fn from_values(fingerprint: &str, seeds: [u8; 2], values: &[i16]) -> OaqHeader {
        let mut h = OaqHeader::empty(fingerprint, seeds);
        h.slots = values.len() as u64;
        h.tally(values.iter().copied());
        h
    }

    fn empty(fingerprint: &str, seeds: [u8; 2]) -> OaqHeader {
        OaqHeader {
            fingerprint: fingerprint.to_string(),
            seeds,
            slots: 0,
            positive: 0,
            zero: 0,
            negative: 0,
            unreachable: 0,
            max: 0,
            min: 0,
        }
    }

    /// Reachable positions.
    pub fn positions(&self) -> u64 {
        self.positive + self.zero + self.negative
    }

    fn tally(&mut self, values: impl Iterator<Item = i16>) {
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

    fn encode(&self) -> [u8; HEADER_SIZE] {
        let mut b = header_frame(GAME_OAQ, ENCODING_OAQ_I16, &self.fingerprint);
        b[16] = self.seeds[0];
        b[17] = self.seeds[1];
        b[24..32].copy_from_slice(&self.slots.to_le_bytes());
        b[32..40].copy_from_slice(&self.positive.to_le_bytes());
        b[40..48].copy_from_slice(&self.zero.to_le_bytes());
        b[48..56].copy_from_slice(&self.negative.to_le_bytes());
        b[56..64].copy_from_slice(&self.unreachable.to_le_bytes());
        b[64..66].copy_from_slice(&self.max.to_le_bytes());
        b[66..68].copy_from_slice(&self.min.to_le_bytes());
        b
    }

    fn decode(path: &Path, b: &[u8]) -> Result<OaqHeader, TableError> {
        let fingerprint = read_frame(path, b, Some((GAME_OAQ, "Ô Ăn Quan")), ENCODING_OAQ_I16)?;
        let fp_len = fingerprint.len();
        let padding = b[18..20]
            .iter()
            .chain(&b[72..FINGERPRINT_OFFSET])
            .chain(&b[FINGERPRINT_OFFSET + fp_len..HEADER_SIZE]);
        if fingerprint.contains('\0') || padding.into_iter().any(|&x| x != 0) {
            return Err(TableError::Corrupt(
                path.to_path_buf(),
                "header padding is not zero".to_string(),
            ));
        }
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        let i16_at = |o: usize| i16::from_le_bytes(b[o..o + 2].try_into().expect("2 bytes"));
        Ok(OaqHeader {
            fingerprint,
            seeds: [b[16], b[17]],
            slots: u64_at(24),
            positive: u64_at(32),
            zero: u64_at(40),
            negative: u64_at(48),
            unreachable: u64_at(56),
            max: i16_at(64),
            min: i16_at(66),
        })
    }
}

/// Slots computed and written at a time by [`write_with`] and [`OaqHeader::from_codes`].
const WRITE_CHUNK: u64 = 1 << 20;

/// Writes a table atomically (temporary file, fsync, rename).
pub fn write(path: &Path, header: &OaqHeader, values: &[i16]) -> Result<(), TableError> {
    write_with(path, header, &|from, out| {
        out.copy_from_slice(&values[from as usize..from as usize + out.len()])
    })
}

impl OaqHeader {
    /// The header of a table whose codes `fill(from, out)` computes, `out.len()` slots from
    /// slot `from` (as many slots as `slots`).
    pub fn from_codes(
        fingerprint: &str,
        seeds: [u8; 2],
        slots: u64,
        fill: &(dyn Fn(u64, &mut [i16]) + Sync),
    ) -> OaqHeader {
        let mut h = OaqHeader::empty(fingerprint, seeds);
        h.slots = slots;
        let mut buf = vec![0i16; WRITE_CHUNK as usize];
        for from in (0..slots).step_by(WRITE_CHUNK as usize) {
            let out = &mut buf[..(slots - from).min(WRITE_CHUNK) as usize];
            fill(from, out);
            h.tally(out.iter().copied());
        }
        h
    }
}

/// Writes a table atomically, its codes computed a chunk at a time by `fill(from, out)` (see
/// [`OaqHeader::from_codes`]): a table bigger than memory can be written.
pub fn write_with(
    path: &Path,
    header: &OaqHeader,
    fill: &(dyn Fn(u64, &mut [i16]) + Sync),
) -> Result<(), TableError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| TableError::Io(dir.to_path_buf(), e))?;
    let tmp = path.with_extension("tmp");
    let head = header.encode();
    let slots = header.slots;
    let result = (|| {
        let mut f = io::BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        let mut sum = Checksum::new(HEADER_SIZE as u64 + 2 * slots);
        sum.update(&head);
        f.write_all(&head)?;
        let mut codes = vec![0i16; WRITE_CHUNK as usize];
        let mut buf = Vec::with_capacity(2 * WRITE_CHUNK as usize);
        for from in (0..slots).step_by(WRITE_CHUNK as usize) {
            let out = &mut codes[..(slots - from).min(WRITE_CHUNK) as usize];
            fill(from, out);
            buf.clear();
            for v in out.iter() {
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
    /// Maps a table and checks its header, length, checksum and value counts.
    pub fn open(path: &Path) -> Result<OaqTable, TableError> {
        let io_err = |e| TableError::Io(path.to_path_buf(), e);
        let corrupt = |m: String| TableError::Corrupt(path.to_path_buf(), m);
        let file = File::open(path).map_err(io_err)?;
        // SAFETY: as for sector tables (table.rs): opened read-only, only ever replaced by an
        // atomic rename, never modified in place; every byte read is checked or decoded, none
        // is trusted as a pointer or a length.
        let map = unsafe { Mmap::map(&file) }.map_err(io_err)?;
        let header = OaqHeader::decode(path, &map)?;
        let expected = header
            .slots
            .checked_mul(2)
            .and_then(|n| n.checked_add((HEADER_SIZE + TRAILER_SIZE) as u64));
        if expected != Some(map.len() as u64) {
            return Err(corrupt(format!(
                "file is {} bytes but the header's {} slots need {}",
                map.len(),
                header.slots,
                expected.map_or("more".into(), |e| e.to_string())
            )));
        }
        let body_end = map.len() - TRAILER_SIZE;
        if &map[body_end + 8..] != END_MAGIC {
            return Err(corrupt("bad end marker".into()));
        }
        let stored = u64::from_le_bytes(map[body_end..body_end + 8].try_into().expect("8 bytes"));
        let _ = map.advise(Advice::Sequential);
        let mut sum = Checksum::new(body_end as u64);
        sum.update(&map[..HEADER_SIZE]);
        let mut recount = OaqHeader::empty(&header.fingerprint, header.seeds);
        recount.slots = header.slots;
        for chunk in map[HEADER_SIZE..body_end].chunks(1 << 20) {
            sum.update(chunk);
            recount.tally(
                chunk
                    .chunks_exact(2)
                    .map(|c| i16::from_le_bytes([c[0], c[1]])),
            );
        }
        if sum.finish() != stored {
            return Err(corrupt("checksum mismatch".into()));
        }
        if recount != header {
            return Err(corrupt(
                "header counts do not match the stored values".into(),
            ));
        }
        let _ = map.advise(Advice::Random);
        Ok(OaqTable { header, map })
    }

    /// The code stored in a slot.
    pub fn code(&self, slot: u64) -> Option<i16> {
        if slot >= self.header.slots {
            return None;
        }
        let o = HEADER_SIZE + 2 * slot as usize;
        Some(i16::from_le_bytes([self.map[o], self.map[o + 1]]))
    }

    /// The value of a position for the side to move (`None`: not a position of this game, or
    /// not reachable from its start).
    pub fn value(&self, g: &Oaq, idx: &OaqIndex, p: &Position) -> Option<i16> {
        let seeds: u32 = p.cells.iter().map(|&c| c as u32).sum();
        let s = g.start();
        let start_like = p.cells == s.cells && p.big == s.big && p.side == s.side;
        let big_ok = g.profile.big_mandarin.is_some() || p.big == [false, false];
        if seeds > g.profile.total_seeds() || (p.first && !start_like) || !big_ok {
            return None;
        }
        if idx.size() != self.header.slots {
            return None;
        }
        self.code(idx.rank(p)).filter(|&v| v != UNREACHABLE)
    }
}

/// Whether a file's header says it is an Ô Ăn Quan table (its encoding field).
pub fn is_oaq_table(bytes: &[u8]) -> bool {
    bytes.len() >= 24
        && &bytes[0..8] == MAGIC
        && u32::from_le_bytes(bytes[20..24].try_into().expect("4 bytes")) == ENCODING_OAQ_I16
}
