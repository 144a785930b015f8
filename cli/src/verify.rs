//! `retro verify`: every table under a folder checked.

use crate::error::CliError;
use crate::rewrite::{finish_left_over, rewrite};
use retro_tables::format::FORMAT_VERSION;
use retro_tables::lock::FolderLock;
use retro_tables::verify::{
    check_file, folder_files, is_table_file, table_files, VerifyError, VerifyKind,
};
use serde_json::json;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// `retro verify` (with `upgrade`, `--upgrade`).
pub fn run(dir: &Path, as_json: bool, upgrade: bool) -> Result<(), CliError> {
    let list = || {
        table_files(dir).map_err(|e| CliError::input(format!("cannot read {}: {e}", dir.display())))
    };
    let files = list()?;
    let empty = empty_game_folders(dir);
    if files.is_empty() {
        let started = if empty.is_empty() {
            String::new()
        } else {
            format!(
                "; {} holds no table yet: a solve stopped before its first one",
                names(&empty)
            )
        };
        return Err(CliError::other(format!(
            "no tables under {} (nothing to verify: is the path right? `retro solve` writes \
             tables under databases/ unless given --dir){started}",
            dir.display()
        )));
    }
    // With --upgrade, each folder's lock, taken first and held until the end (a solve writing
    // there is refused); with it held, what killed writers left is removed, and the folder
    // listed again.
    let mut locks: BTreeMap<PathBuf, Result<FolderLock, String>> = BTreeMap::new();
    let mut dbs = HashMap::new();
    let files = if upgrade {
        for f in &files {
            let folder = f.parent().unwrap_or(Path::new(".")).to_path_buf();
            locks.entry(folder.clone()).or_insert_with(|| {
                let lock = FolderLock::acquire(&folder, false).map_err(|e| e.to_string())?;
                lock.remove_stale_temps().map_err(|e| e.to_string())?;
                Ok(lock)
            });
        }
        // A raw table beside compressed files (a killed reorder or solve) compressed again.
        for f in &files {
            let folder = f.parent().unwrap_or(Path::new("."));
            if matches!(locks.get(folder), Some(Ok(_))) && f.extension().is_some_and(|e| e == "rtb")
            {
                finish_left_over(f, &mut dbs)
                    .map_err(|e| CliError::other(format!("{}: {}", f.display(), e.message)))?;
            }
        }
        list()?
    } else {
        files
    };
    let (mut failed, mut upgraded) = (0, 0);
    let mut rows = Vec::new();
    for f in &files {
        let folder = f.parent().unwrap_or(Path::new("."));
        let checked = match locks.get(folder) {
            Some(Ok(_)) => check_file(f, true),
            // A busy folder's tables are checked, not rewritten: a failure either way.
            Some(Err(busy)) => check_file(f, false).and_then(|_| {
                Err(VerifyError {
                    kind: VerifyKind::Io,
                    message: format!("{}: passes, not upgraded: {busy}", f.display()),
                })
            }),
            None => check_file(f, false),
        };
        // A compressed table of before December 2026 in the reflected order and the rANS coder
        // (the rules known).
        let checked = checked.and_then(|(what, rewritten)| {
            if !matches!(locks.get(folder), Some(Ok(_)))
                || f.extension().is_none_or(|e| e != "rtbw")
            {
                return Ok((what, rewritten, false));
            }
            match rewrite(f, &mut dbs) {
                Ok(reordered) => Ok((what, rewritten, reordered)),
                Err(e) => Err(VerifyError {
                    kind: VerifyKind::Io,
                    message: format!(
                        "{}: passes, not rewritten in the current layout: {}",
                        f.display(),
                        e.message
                    ),
                }),
            }
        });
        match checked {
            Ok((what, rewritten, reordered)) => {
                upgraded += usize::from(rewritten || reordered);
                if !as_json {
                    let tag = if reordered {
                        "  (rewritten: reflected slot order, rANS coders)".to_string()
                    } else if rewritten {
                        format!("  (rewritten: format version {FORMAT_VERSION}, grouped distances, win/draw/loss dictionaries)")
                    } else {
                        String::new()
                    };
                    println!("ok    {}  {what}{tag}", f.display());
                }
                rows.push(json!({"file": f.display().to_string(), "ok": true,
                        "upgraded": rewritten || reordered, "reordered": reordered}));
            }
            Err(e) => {
                failed += 1;
                if !as_json {
                    // Most errors begin with the path already.
                    let (path, text) = (f.display().to_string(), e.to_string());
                    let why = text
                        .strip_prefix(&path)
                        .and_then(|t| t.strip_prefix(": "))
                        .unwrap_or(&text);
                    println!("FAIL  {path}  {why}");
                }
                rows.push(json!({
                    "file": f.display().to_string(),
                    "ok": false,
                    "kind": e.kind.name(),
                    "error": e.message,
                }));
            }
        }
    }
    if as_json {
        let empty: Vec<String> = empty.iter().map(|p| p.display().to_string()).collect();
        println!(
            "{}",
            json!({"tables": rows, "failed": failed, "upgraded": upgraded,
                   "folders_without_tables": empty})
        );
    } else {
        for folder in &empty {
            println!(
                "note  {}  no table yet (a solve stopped before its first one): nothing to check",
                folder.display()
            );
        }
        if upgrade {
            println!(
                "{} checked, {failed} failed, {upgraded} rewritten (format version \
                 {FORMAT_VERSION}, grouped distances, win/draw/loss dictionaries, reflected slot \
                 order, rANS coders)",
                crate::output::count(files.len(), "table")
            );
        } else {
            let checked = crate::output::count(files.len(), "table");
            println!("{checked} checked, {failed} failed");
        }
    }
    if failed > 0 {
        return Err(CliError::other(format!(
            "{failed} table(s) failed verification"
        )));
    }
    Ok(())
}

/// The game folders under `dir` (a solve's lock or log inside) that hold no table file.
fn empty_game_folders(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = folder_files(dir)
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, files)| {
            let named = |f: &PathBuf, n: &str| f.file_name().is_some_and(|x| x == n);
            files
                .iter()
                .any(|f| named(f, "solve.lock") || named(f, "solve-log.tsv"))
                && !files.iter().any(|f| is_table_file(f))
        })
        .map(|(folder, _)| folder)
        .collect();
    out.sort();
    out
}

/// Folders named in a sentence.
fn names(folders: &[PathBuf]) -> String {
    let list: Vec<String> = folders.iter().map(|p| p.display().to_string()).collect();
    list.join(", ")
}
