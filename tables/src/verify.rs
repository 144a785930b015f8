//! `verify`: every table file under a folder, opened and checked whole (header, length,
//! every block's checksum and the whole file's, value counts) and against where it lies.

use crate::compressed_table::CompressedTable;
use crate::derived_table::DerivedTable;
use crate::format::TableError;
use crate::location::{check_placed, game_name, sector_file, OAQ_FILE};
use crate::oaq_table::{is_oaq_table, OaqTable};
use crate::sector_table::Table;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Every folder under `dir` (itself first) with the files in it, each folder once, by its
/// real path: a link back up the tree (or /proc/self/fd's link to the folder being read) is
/// not walked again, nor a link to a folder that holds `dir` (/proc/self/root, the whole file
/// system); a folder that vanishes while the walk runs is skipped. An error inside the tree
/// names the path it came from.
pub fn folder_files(dir: &Path) -> std::io::Result<Vec<(PathBuf, Vec<PathBuf>)>> {
    /// `e` with `path` in its message, where `path` is below the folder asked for.
    fn at<'a>(path: &'a Path, top: &Path) -> impl FnOnce(std::io::Error) -> std::io::Error + 'a {
        let inner = path != top;
        move |e| {
            if inner {
                std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
            } else {
                e
            }
        }
    }
    fn walk(
        dir: &Path,
        top: &Path,
        root: &Path,
        seen: &mut std::collections::HashSet<PathBuf>,
        out: &mut Vec<(PathBuf, Vec<PathBuf>)>,
    ) -> std::io::Result<()> {
        let real = match std::fs::canonicalize(dir) {
            Ok(real) => real,
            // A folder gone since its parent was listed (a link in /proc, say): nothing in it.
            Err(e) if dir != top && e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(at(dir, top)(e)),
        };
        if (dir != top && root.starts_with(&real)) || !seen.insert(real) {
            return Ok(());
        }
        let (mut files, mut folders) = (Vec::new(), Vec::new());
        for entry in std::fs::read_dir(dir).map_err(at(dir, top))? {
            let entry = entry.map_err(at(dir, top))?;
            let path = entry.path();
            // The entry's own type (no look-up by path, which a path too long would fail
            // silently); a link's by what it leads to (a dangling one is no folder).
            let kind = entry.file_type().map_err(at(&path, top))?;
            if kind.is_dir() || (kind.is_symlink() && path.is_dir()) {
                folders.push(path);
            } else {
                files.push(path);
            }
        }
        out.push((dir.to_path_buf(), files));
        for folder in folders {
            walk(&folder, top, root, seen, out)?;
        }
        Ok(())
    }
    let root = std::fs::canonicalize(dir)?;
    let mut out = Vec::new();
    walk(dir, dir, &root, &mut Default::default(), &mut out)?;
    Ok(out)
}

/// Whether a file is a table file by its name: `.rtb`, compressed `.rtbw` and `.rtbd`, derived
/// `.rtbp`, or a `.tmp` file an interrupted write left.
pub fn is_table_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| {
        ["rtb", "rtbw", "rtbd", "rtbp", "tmp"]
            .iter()
            .any(|x| e == *x)
    })
}

/// Table files ([`is_table_file`]) under `dir`, sorted.
pub fn table_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = folder_files(dir)?
        .into_iter()
        .flat_map(|(_, files)| files)
        .filter(|f| is_table_file(f))
        .collect();
    out.sort();
    Ok(out)
}

/// Whether a file's header says it holds an Ô Ăn Quan table (read errors: let the sector
/// reader report them).
fn is_oaq_file(path: &Path) -> bool {
    let mut head = [0u8; 24];
    crate::mapped::open_regular(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|_| is_oaq_table(&head))
}

/// Why a table file failed verification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VerifyKind {
    /// A temporary file an interrupted write left.
    Unfinished,
    /// The file could not be read.
    Io,
    /// Not a valid table: truncated, damaged, another format.
    Corrupt,
    /// A valid table whose header contradicts itself or the expected rules.
    Mismatch,
    /// A valid table of a game this reader does not know.
    UnknownGame,
    /// A valid table in a file or folder whose name says otherwise.
    Misplaced,
}

impl VerifyKind {
    /// The kind's name in JSON output.
    pub fn name(self) -> &'static str {
        match self {
            VerifyKind::Unfinished => "unfinished",
            VerifyKind::Io => "io",
            VerifyKind::Corrupt => "corrupt",
            VerifyKind::Mismatch => "mismatch",
            VerifyKind::UnknownGame => "unknown-game",
            VerifyKind::Misplaced => "misplaced",
        }
    }
}

/// A failed verification: its kind and the message (naming the file).
#[derive(Clone, Debug)]
pub struct VerifyError {
    /// The kind.
    pub kind: VerifyKind,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<TableError> for VerifyError {
    fn from(e: TableError) -> VerifyError {
        let kind = match e {
            TableError::Io(..) | TableError::Busy(_) => VerifyKind::Io,
            TableError::Corrupt(..) => VerifyKind::Corrupt,
            TableError::Mismatch(..)
            | TableError::NoDistances(_)
            | TableError::Derived(_)
            | TableError::Searched(..) => VerifyKind::Mismatch,
        };
        VerifyError {
            kind,
            message: e.to_string(),
        }
    }
}

fn misplaced(message: String) -> VerifyError {
    VerifyError {
        kind: VerifyKind::Misplaced,
        message,
    }
}

/// Checks one table file; on success, one line saying what it holds.
pub fn verify_file(f: &Path) -> Result<String, VerifyError> {
    check_file(f, false).map(|(what, _)| what)
}

/// zstd level of the distance files `--upgrade` regroups (`retro compress`'s default).
pub const UPGRADE_LEVEL: i32 = 12;

/// Checks one table file as [`verify_file`] does, then with `upgrade` writes it again in the
/// current format version if it is of an older one (atomically: the same header but for the
/// version, the same body, the current checksums), and a distance file of the older layout
/// (encodings 5 and 7) grouped (8 and 9, at [`UPGRADE_LEVEL`]), and a win/draw/loss file
/// without a dictionary with one where that makes it smaller (likewise). Returns what it holds
/// and whether it was rewritten.
pub fn check_file(f: &Path, upgrade: bool) -> Result<(String, bool), VerifyError> {
    let rewrite = |m: &crate::mapped::Mapped| -> Result<bool, VerifyError> {
        Ok(upgrade && m.rewrite_current()?)
    };
    if f.extension().is_some_and(|e| e == "tmp") {
        return Err(VerifyError {
            kind: VerifyKind::Unfinished,
            message: "unfinished temporary file (an interrupted solve); `retro solve` removes it"
                .into(),
        });
    }
    if is_oaq_file(f) {
        // SAFETY: the map lives only for this check; the tables' writers replace files by
        // rename, never in place (a user truncating a file mid-check is outside the contract).
        let t = unsafe { OaqTable::open(f) }?;
        t.verify()?;
        check_placed(f, "oaq", &t.header.fingerprint, OAQ_FILE).map_err(misplaced)?;
        let what = format!(
            "Ô Ăn Quan, {} positions ({})",
            t.header.positions(),
            t.header.fingerprint
        );
        return Ok((what, rewrite(t.mapped())?));
    }
    let ext = f.extension().and_then(|e| e.to_str()).unwrap_or("");
    // The table is placed where its header says before it is rewritten.
    let placed = |h: &crate::sector_table::Header| -> Result<&'static str, VerifyError> {
        let game = game_name(h.game).ok_or_else(|| VerifyError {
            kind: VerifyKind::UnknownGame,
            message: format!("{}: unknown game id {}", f.display(), h.game),
        })?;
        let file = Path::new(&sector_file(h.sector)).with_extension(ext);
        check_placed(f, game, &h.fingerprint, &file.to_string_lossy()).map_err(misplaced)?;
        Ok(game)
    };
    let (h, game, upgraded) = if ext == "rtbw" || ext == "rtbd" {
        // A distance file is checked with its win/draw/loss file (it means nothing alone).
        let wdl = f.with_extension("rtbw");
        let dtm = f.with_extension("rtbd");
        if !wdl.exists() {
            return Err(VerifyError {
                kind: VerifyKind::Corrupt,
                message: format!(
                    "{}: distances without their win/draw/loss file {}",
                    f.display(),
                    wdl.display()
                ),
            });
        }
        let dtm = (ext == "rtbd").then_some(dtm.as_path());
        // SAFETY: as above.
        let t = unsafe { CompressedTable::open(&wdl, dtm) }?;
        t.verify()?;
        let game = placed(&t.header)?;
        let (w, d) = t.mapped();
        let this = if ext == "rtbd" { d.unwrap_or(w) } else { w };
        // An older distance layout is regrouped, and a win/draw/loss file that a dictionary
        // makes smaller is written with one, which writes the current version too; only a file
        // not rewritten so may be rewritten from its mapped body (the new one would be written
        // back as the old).
        let regrouped = upgrade
            && match ext {
                "rtbd" => t.regroup_distances(UPGRADE_LEVEL)?,
                _ => t.add_wdl_dictionary(UPGRADE_LEVEL)?,
            };
        let rewritten = if regrouped { true } else { rewrite(this)? };
        (t.header.clone(), game, rewritten)
    } else if ext == "rtbp" {
        // SAFETY: as above.
        let t = unsafe { DerivedTable::open(f) }?;
        t.verify()?;
        let game = placed(&t.header)?;
        (t.header.clone(), game, rewrite(t.mapped())?)
    } else {
        // SAFETY: as above.
        let t = unsafe { Table::open(f) }?;
        t.verify()?;
        let game = placed(&t.header)?;
        (t.header.clone(), game, rewrite(t.mapped())?)
    };
    let what = match ext {
        "rtbw" => " win/draw/loss",
        "rtbd" => " distances",
        "rtbp" => " derived (values by a one-ply search)",
        _ => "",
    };
    let what = format!(
        "{game} sector {}{what} slots {} ({})",
        h.sector, h.slots, h.fingerprint
    );
    Ok((what, upgraded))
}
