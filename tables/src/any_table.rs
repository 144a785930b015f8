//! A sector table as a folder holds it: raw (`sector_W_B_WF_BF.rtb`), compressed
//! (`sector_W_B_WF_BF.rtbw`, with `.rtbd` beside it for the distances), probed alike by slot,
//! or derived (`sector_W_B_WF_BF.rtbp`: no values, probed by position through the rules).

use crate::compressed_table::CompressedTable;
use crate::derived_table::DerivedTable;
use crate::format::TableError;
use crate::packed::{SYM_LOSS, SYM_WIN};
use crate::sector_table::{Header, Table};
use crate::value::{Stored, Value, Wdl, WASTED};
use std::path::Path;

pub use crate::location::{derived_file, table_files};

/// Where a position lies in a table: its slot in the index's order, or where a compressed
/// table whose slot order is another keeps it (for a caller that computes that from the
/// position; see [`CompressedTable::stored_at`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A slot of the index.
    Slot(u64),
    /// A stored position of a compressed table.
    Stored(u64),
}

/// A raw, compressed or derived sector table.
pub enum AnyTable {
    /// One `u16` code a slot.
    Raw(Table),
    /// Compressed blocks.
    Compressed(Box<CompressedTable>),
    /// No values: each is a one-ply search over other tables (slot reads are errors).
    Derived(DerivedTable),
}

impl AnyTable {
    /// Opens the table whose raw file would be `raw`: the raw file if it exists, else the
    /// compressed files, else the derived file (`Ok(None)` when there is none of them).
    ///
    /// # Safety
    ///
    /// As [`Table::open`]: nothing may modify or truncate the files in place while the table
    /// lives.
    pub unsafe fn open(raw: &Path) -> Result<Option<AnyTable>, TableError> {
        let [raw, wdl, dtm] = table_files(raw);
        if raw.exists() {
            // SAFETY: the caller's promise, passed on.
            return Ok(Some(AnyTable::Raw(unsafe { Table::open(&raw) }?)));
        }
        if !wdl.exists() {
            let derived = derived_file(&raw);
            if !derived.exists() {
                return Ok(None);
            }
            // SAFETY: as above.
            return Ok(Some(AnyTable::Derived(unsafe {
                DerivedTable::open(&derived)
            }?)));
        }
        let dtm = dtm.exists().then_some(dtm.as_path());
        // SAFETY: as above.
        let t = unsafe { CompressedTable::open(&wdl, dtm) }?;
        Ok(Some(AnyTable::Compressed(Box::new(t))))
    }

    /// The header.
    pub fn header(&self) -> &Header {
        match self {
            AnyTable::Raw(t) => &t.header,
            AnyTable::Compressed(t) => &t.header,
            AnyTable::Derived(t) => &t.header,
        }
    }

    /// Whether this is a derived table (no values to read by slot).
    pub fn is_derived(&self) -> bool {
        matches!(self, AnyTable::Derived(_))
    }

    /// Whether some wins' distances are left to a search (a compressed table of distance
    /// encoding 7 or 9).
    pub fn searches_wins(&self) -> bool {
        matches!(self, AnyTable::Compressed(c) if c.searches_wins())
    }

    /// Whether probes give distances (a derived table's come from the tables it reads).
    pub fn has_distances(&self) -> bool {
        match self {
            AnyTable::Raw(_) | AnyTable::Derived(_) => true,
            AnyTable::Compressed(t) => t.has_distances(),
        }
    }

    /// The value of a slot (`None` out of range, and for a wasted slot of a raw table; a
    /// compressed table gives some value for a wasted slot: no position has one). A win whose
    /// distance a compressed table leaves to a search is [`TableError::Searched`] (see
    /// [`AnyTable::probe`]).
    #[inline]
    pub fn value(&self, slot: u64) -> Result<Option<Value>, TableError> {
        match self {
            AnyTable::Raw(t) => t.value(slot),
            AnyTable::Compressed(t) => t.value(slot),
            AnyTable::Derived(t) => Err(TableError::Derived(t.path().to_path_buf())),
        }
    }

    /// What a slot holds: its value, or for a compressed table a win whose distance is a
    /// one-ply search ([`Stored::SearchedWin`]; see [`AnyTable::value`] for the rest).
    #[inline]
    pub fn probe(&self, slot: u64) -> Result<Option<Stored>, TableError> {
        self.probe_at(Place::Slot(slot))
    }

    /// [`AnyTable::probe`] at a place (a stored position only for a compressed table).
    #[inline]
    pub fn probe_at(&self, at: Place) -> Result<Option<Stored>, TableError> {
        match (self, at) {
            (AnyTable::Compressed(t), Place::Slot(slot)) => t.probe(slot),
            (AnyTable::Compressed(t), Place::Stored(slot)) => t.probe_stored(slot),
            (_, Place::Slot(slot)) => Ok(self.value(slot)?.map(Stored::Value)),
            (_, Place::Stored(_)) => Err(self.not_stored()),
        }
    }

    /// The win/draw/loss of a slot, which every table but a derived one knows (`None` out of
    /// range, and for a wasted slot of a raw table).
    #[inline]
    pub fn wdl(&self, slot: u64) -> Result<Option<Wdl>, TableError> {
        self.wdl_at(Place::Slot(slot))
    }

    /// [`AnyTable::wdl`] at a place (a stored position only for a compressed table).
    #[inline]
    pub fn wdl_at(&self, at: Place) -> Result<Option<Wdl>, TableError> {
        let sym = match (self, at) {
            (AnyTable::Raw(t), Place::Slot(slot)) => return Ok(t.value(slot)?.map(Value::wdl)),
            (AnyTable::Compressed(t), Place::Slot(slot)) => t.symbol(slot)?,
            (AnyTable::Compressed(t), Place::Stored(slot)) => t.symbol_stored(slot)?,
            (AnyTable::Derived(t), _) => return Err(TableError::Derived(t.path().to_path_buf())),
            (AnyTable::Raw(_), Place::Stored(_)) => return Err(self.not_stored()),
        };
        Ok(sym.map(|s| match s {
            SYM_WIN => Wdl::Win,
            SYM_LOSS => Wdl::Loss,
            _ => Wdl::Draw,
        }))
    }

    /// The error for a stored position asked of a table that is not compressed.
    fn not_stored(&self) -> TableError {
        let path = match self {
            AnyTable::Raw(t) => t.mapped().path(),
            AnyTable::Compressed(t) => t.mapped().0.path(),
            AnyTable::Derived(t) => t.path(),
        };
        TableError::Mismatch(
            path.to_path_buf(),
            "a stored position asked of a table that keeps its slots in the index's order".into(),
        )
    }

    /// The stored code of a slot (see [`AnyTable::value`], whose errors it shares; the wasted
    /// code out of range).
    #[inline(always)]
    pub fn code(&self, slot: u64) -> Result<u16, TableError> {
        match self {
            // The solver's lookups, billions of them: inlined where they are made.
            AnyTable::Raw(t) => t.code(slot),
            _ => self.decoded_code(slot),
        }
    }

    /// [`AnyTable::code`] of a table that is not raw.
    #[inline(never)]
    fn decoded_code(&self, slot: u64) -> Result<u16, TableError> {
        match self {
            AnyTable::Raw(t) => t.code(slot),
            AnyTable::Compressed(t) => Ok(t.value(slot)?.map_or(WASTED, Value::encode)),
            AnyTable::Derived(t) => Err(TableError::Derived(t.path().to_path_buf())),
        }
    }

    /// Checks the table's checksums (every block and each file whole) without decoding a
    /// compressed table's values: what a resumed solve asks of the tables it finds, which were
    /// written atomically, a compressed one only after its values were compared with its raw
    /// table's. [`AnyTable::verify`] decodes as well.
    pub fn check_sums(&self) -> Result<(), TableError> {
        match self {
            AnyTable::Compressed(t) => t.check_sums(),
            _ => self.verify(),
        }
    }

    /// Checks the whole table (every block, checksums, counts).
    pub fn verify(&self) -> Result<(), TableError> {
        match self {
            AnyTable::Raw(t) => t.verify(),
            AnyTable::Compressed(t) => t.verify(),
            AnyTable::Derived(t) => t.verify(),
        }
    }
}
