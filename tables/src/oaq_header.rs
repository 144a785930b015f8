//! The header of an Ô Ăn Quan table: rule fingerprint, start seeds, encoding and the counts of
//! the stored values (`databases/README.md` has the byte layout).

use crate::format::{
    header_frame, read_frame, TableError, FINGERPRINT_OFFSET, GAME_OAQ, HEADER_SIZE,
};
use std::path::Path;

/// The code of a dense slot that no reachable position has.
pub const UNREACHABLE: i16 = i16::MIN;
/// Largest value (in magnitude) a table may store: far beyond any game's seeds, and small
/// enough that a move's gain minus a stored value stays an `i16` (a table holding a bigger
/// value is refused when opened).
pub const MAX_VALUE: i16 = 16_000;
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

    /// A header with no values counted yet.
    pub fn empty(fingerprint: &str, seeds: [u8; 2], encoding: u32) -> OaqHeader {
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
        // Saturating: the counts come from a file; `OaqTable::open` refuses counts that do not
        // add up to the slots.
        self.positive
            .saturating_add(self.zero)
            .saturating_add(self.negative)
    }

    /// Adds values (dense codes) to the counts.
    pub fn tally(&mut self, values: impl Iterator<Item = i16>) {
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
    pub fn merge(mut self, o: OaqHeader) -> OaqHeader {
        self.positive += o.positive;
        self.zero += o.zero;
        self.negative += o.negative;
        self.unreachable += o.unreachable;
        self.max = self.max.max(o.max);
        self.min = self.min.min(o.min);
        self
    }

    /// The header's 512 bytes.
    pub fn encode(&self) -> [u8; HEADER_SIZE] {
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

    /// Reads a header (the frame checked, padding zero).
    pub fn decode(path: &Path, b: &[u8]) -> Result<OaqHeader, TableError> {
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
