//! `verify`: every table file under a folder, opened and checked whole (header, length,
//! checksum, value counts) and against where it lies.

use crate::location::{check_placed, game_name, sector_file, OAQ_FILE};
use crate::oaq_table::{is_oaq_table, OaqTable};
use crate::sector_table::Table;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Table files (`.rtb`, and `.tmp` files an interrupted write left) under `dir`, sorted.
pub fn table_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else if path.extension().is_some_and(|e| e == "rtb" || e == "tmp") {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, &mut out)?;
    out.sort();
    Ok(out)
}

/// Whether a file's header says it holds an Ô Ăn Quan table (read errors: let the sector
/// reader report them).
fn is_oaq_file(path: &Path) -> bool {
    let mut head = [0u8; 24];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|_| is_oaq_table(&head))
}

/// Checks one table file; on success, one line saying what it holds.
pub fn verify_file(f: &Path) -> Result<String, String> {
    if f.extension().is_some_and(|e| e == "tmp") {
        return Err(
            "unfinished temporary file (an interrupted solve); `retro solve` rebuilds it".into(),
        );
    }
    if is_oaq_file(f) {
        // SAFETY: the map lives only for this check; the tables' writers replace files by
        // rename, never in place (a user truncating a file mid-check is outside the contract).
        let t = unsafe { OaqTable::open(f) }.map_err(|e| e.to_string())?;
        check_placed(f, "oaq", &t.header.fingerprint, OAQ_FILE)?;
        return Ok(format!(
            "Ô Ăn Quan, {} positions ({})",
            t.header.positions(),
            t.header.fingerprint
        ));
    }
    // SAFETY: as above.
    let t = unsafe { Table::open(f) }.map_err(|e| e.to_string())?;
    let h = t.header;
    let game =
        game_name(h.game).ok_or_else(|| format!("{}: unknown game id {}", f.display(), h.game))?;
    check_placed(f, game, &h.fingerprint, &sector_file(h.sector))?;
    Ok(format!(
        "{game} sector {} slots {} ({})",
        h.sector, h.slots, h.fingerprint
    ))
}
