//! Searched-win marks saved beside a raw table until the table is compressed, so that a
//! `--compress` solve stopped in between (killed, or ended with the session) resumes without
//! searching every win of the table again: the marks live only in memory otherwise, and the
//! search that stands in for them reads each win's moves from compressed tables (more than an
//! hour for one 539-million-slot morabaraba-malom table, 7_8_1_0).
//!
//! The file, `sector_W_B_WF_BF.marks` beside `sector_W_B_WF_BF.rtb`, all little-endian:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `RETROMK\0` |
//! | 8 | 4 | the sector: `W`, `B`, `WF`, `BF` as one byte each |
//! | 12 | 4 | zero |
//! | 16 | 8 | the table's slots `N` |
//! | 24 | 8 | the table's wins (its header's count) |
//! | 32 | 8 `ceil(N / 64)` | the marks: slot `i` in bit `i % 64` of word `i / 64` |
//! | ... | 8 | checksum of every byte before it (the tables' checksum) |
//!
//! A file that does not match the table (another sector, slot count or win count), is cut
//! short or fails its checksum is not used: the wins are searched instead, which gives the same
//! table, more slowly. It is written atomically (a `.part` file, synced, renamed) after the raw
//! table, and removed once the table is compressed.

use retro_tables::format::checksum;
use retro_tables::{Header, SectorKey, TableError};
use std::io::Write;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"RETROMK\0";

/// Bytes before the marks.
const HEAD: usize = 32;

/// The marks file of the raw table at `table` (its `.rtb` path).
pub fn path(table: &Path) -> PathBuf {
    table.with_extension("marks")
}

/// The file's bytes for table `h`'s marks.
fn encode(h: &Header, bits: &[u64]) -> Vec<u8> {
    let k = h.sector;
    let mut b = Vec::with_capacity(HEAD + 8 * bits.len() + 8);
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&[k.w, k.b, k.wf, k.bf, 0, 0, 0, 0]);
    b.extend_from_slice(&h.slots.to_le_bytes());
    b.extend_from_slice(&h.wins.to_le_bytes());
    for w in bits {
        b.extend_from_slice(&w.to_le_bytes());
    }
    let sum = checksum(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    b
}

/// Saves the marks of the raw table at `table` (header `h`) beside it, atomically.
pub fn save(table: &Path, h: &Header, bits: &[u64]) -> Result<(), TableError> {
    let path = path(table);
    let tmp = path.with_extension("marks.part");
    let io = |e| TableError::Io(path.clone(), e);
    let mut f = std::fs::File::create(&tmp).map_err(io)?;
    f.write_all(&encode(h, bits)).map_err(io)?;
    f.sync_all().map_err(io)?;
    std::fs::rename(&tmp, &path).map_err(io)
}

/// The marks saved for the raw table at `table` (header `h`), if a file matching it is there
/// and whole (`None` otherwise: the caller searches the wins).
pub fn load(table: &Path, h: &Header) -> Option<Vec<u64>> {
    let bytes = std::fs::read(path(table)).ok()?;
    let words = h.slots.div_ceil(64) as usize;
    if bytes.len() != HEAD + 8 * words + 8 {
        return None;
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    let u64_at = |b: &[u8], o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
    let k: SectorKey = h.sector;
    if &body[..8] != MAGIC
        || body[8..16] != [k.w, k.b, k.wf, k.bf, 0, 0, 0, 0]
        || u64_at(body, 16) != h.slots
        || u64_at(body, 24) != h.wins
        || u64_at(sum, 0) != checksum(body)
    {
        return None;
    }
    Some(body[HEAD..].chunks_exact(8).map(|w| u64_at(w, 0)).collect())
}

/// The marks saved beside sector `k`'s raw table in `db`'s folder, if that table is there and
/// the file matches it ([`load`]).
pub fn of<R: crate::sectors::rules::SectorRules>(
    db: &crate::sectors::db::Db<R>,
    k: SectorKey,
) -> Option<Vec<u64>> {
    let t = db.table(k).ok()?;
    load(&db.path(k), t.0.header())
}

/// Removes the marks file of the raw table at `table`, and a `.part` left by a killed save.
pub fn remove(table: &Path) -> Result<(), TableError> {
    let path = path(table);
    for p in [path.with_extension("marks.part"), path] {
        match std::fs::remove_file(&p) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(TableError::Io(p, e)),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(slots: u64, wins: u64) -> Header {
        let k = SectorKey {
            w: 7,
            b: 8,
            wf: 1,
            bf: 0,
        };
        let mut values = vec![0u16; slots as usize];
        for v in values.iter_mut().take(wins as usize) {
            *v = retro_tables::Value::Win(3).encode();
        }
        Header::from_values(retro_tables::GAME_MILL, "test", k, &values)
    }

    #[test]
    fn saved_marks_load_back_and_anything_else_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let table = dir.path().join("sector_7_8_1_0.rtb");
        let h = header(200, 70);
        let bits = vec![0x8000_0000_0000_0001u64, 7, 0, 1 << 7];
        save(&table, &h, &bits).unwrap();
        assert_eq!(load(&table, &h), Some(bits.clone()));
        // Another table: slots, wins, sector.
        assert_eq!(load(&table, &header(201, 70)), None);
        assert_eq!(load(&table, &header(200, 71)), None);
        let mut other = h.clone();
        other.sector.bf = 1;
        assert_eq!(load(&table, &other), None);
        // Every byte changed, and the file cut, is refused.
        let good = std::fs::read(path(&table)).unwrap();
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x10;
            std::fs::write(path(&table), &bad).unwrap();
            assert_eq!(load(&table, &h), None, "byte {i}");
        }
        std::fs::write(path(&table), &good[..good.len() - 1]).unwrap();
        assert_eq!(load(&table, &h), None);
        std::fs::write(path(&table), &good).unwrap();
        assert_eq!(load(&table, &h), Some(bits));
        std::fs::write(path(&table).with_extension("marks.part"), b"x").unwrap();
        remove(&table).unwrap();
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
        remove(&table).unwrap();
    }
}
