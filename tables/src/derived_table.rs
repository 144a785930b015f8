//! Derived sector tables (`sector_W_B_WF_BF.rtbp`, encoding 6): the raw table's header and no
//! values. A derived sector's side to move has less material than the opponent, so every move
//! leads to a sector that keeps its values; a position's value is the best over its moves,
//! read from those tables (a one-ply search, which needs the game's rules: the solver's `Db`
//! does it). Half of a Mill game's slots are in such sectors.

use crate::format::{write_atomic, TableError, ENCODING_DERIVED};
use crate::mapped::Mapped;
use crate::sector_table::{check_header, Header};
use std::path::Path;

/// An open derived table: its header (checked), counts and longest distances included, as
/// the raw table had them.
pub struct DerivedTable {
    /// The header.
    pub header: Header,
    file: Mapped,
}

impl DerivedTable {
    /// Writes a derived table for a raw table's header, atomically.
    pub fn write(path: &Path, header: &Header) -> Result<(), TableError> {
        write_atomic(path, &header.encode_as(ENCODING_DERIVED), 0, |_| Ok(()))
    }

    /// Maps a derived table and checks its frame, header and checksums.
    ///
    /// # Safety
    ///
    /// As [`crate::Table::open`]: nothing may modify or truncate the file in place while the
    /// table lives.
    pub unsafe fn open(path: &Path) -> Result<DerivedTable, TableError> {
        // SAFETY: the caller's promise, passed on.
        let (header, file) = unsafe {
            Mapped::open(path, |b| {
                let h = Header::decode_as(path, b, ENCODING_DERIVED)?;
                check_header(path, &h)?;
                Ok((h, 0))
            })
        }?;
        Ok(DerivedTable { header, file })
    }

    /// Checks the whole file (its checksums: the values themselves are other tables').
    pub fn verify(&self) -> Result<(), TableError> {
        self.file.check_all(&|_, _| Ok(()))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// The mapped file.
    pub fn mapped(&self) -> &Mapped {
        &self.file
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SectorKey;

    fn header() -> Header {
        Header {
            game: crate::GAME_MILL,
            fingerprint: "rules".into(),
            sector: SectorKey {
                w: 3,
                b: 4,
                wf: 0,
                bf: 0,
            },
            slots: 10,
            wins: 1,
            draws: 2,
            losses: 3,
            wasted: 4,
            longest_win: 5,
            longest_loss: 6,
        }
    }

    #[test]
    fn a_derived_table_keeps_its_header_and_refuses_damage() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sector_3_4_0_0.rtbp");
        DerivedTable::write(&p, &header()).unwrap();
        // SAFETY: the test owns the file.
        let t = unsafe { DerivedTable::open(&p) }.unwrap();
        assert_eq!(t.header, header());
        t.verify().unwrap();
        drop(t);
        let good = std::fs::read(&p).unwrap();
        // Every bit of the file matters: a flip is refused when opened, or by `verify` (the
        // whole-file checksum is read only there).
        for at in 0..8 * good.len() {
            let mut bad = good.clone();
            bad[at / 8] ^= 1 << (at % 8);
            std::fs::write(&p, &bad).unwrap();
            // SAFETY: as above.
            let refused = unsafe { DerivedTable::open(&p) }.map_or(true, |t| t.verify().is_err());
            assert!(refused, "bit {} of byte {}", at % 8, at / 8);
        }
        std::fs::write(&p, &good[..good.len() - 8]).unwrap();
        // SAFETY: as above.
        assert!(unsafe { DerivedTable::open(&p) }.is_err());
    }
}
