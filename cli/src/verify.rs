//! `retro verify`: every table under a folder checked.

use crate::error::CliError;
use retro_tables::format::FORMAT_VERSION;
use retro_tables::lock::FolderLock;
use retro_tables::verify::{check_file, table_files, VerifyError, VerifyKind};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `retro verify` (with `upgrade`, `--upgrade`).
pub fn run(dir: &Path, as_json: bool, upgrade: bool) -> Result<(), CliError> {
    let files = table_files(dir)
        .map_err(|e| CliError::input(format!("cannot read {}: {e}", dir.display())))?;
    if files.is_empty() {
        return Err(CliError::other(format!(
            "no tables under {} (nothing to verify: is the path right? `retro solve` writes \
             tables under databases/ unless given --dir)",
            dir.display()
        )));
    }
    let (mut failed, mut upgraded) = (0, 0);
    let mut rows = Vec::new();
    // With --upgrade, each folder's lock, held until the end (a solve writing there is refused).
    let mut locks: BTreeMap<PathBuf, Result<FolderLock, String>> = BTreeMap::new();
    for f in &files {
        let checked = if upgrade {
            let folder = f.parent().unwrap_or(Path::new(".")).to_path_buf();
            let lock = locks
                .entry(folder.clone())
                .or_insert_with(|| FolderLock::acquire(&folder, false).map_err(|e| e.to_string()));
            match lock {
                Ok(_) => check_file(f, true),
                Err(e) => Err(VerifyError {
                    kind: VerifyKind::Io,
                    message: format!("{}: not upgraded: {e}", f.display()),
                }),
            }
        } else {
            check_file(f, false)
        };
        match checked {
            Ok((what, rewritten)) => {
                upgraded += usize::from(rewritten);
                if !as_json {
                    let tag = if rewritten {
                        format!("  (rewritten in format version {FORMAT_VERSION})")
                    } else {
                        String::new()
                    };
                    println!("ok    {}  {what}{tag}", f.display());
                }
                rows.push(
                    json!({"file": f.display().to_string(), "ok": true, "upgraded": rewritten}),
                );
            }
            Err(e) => {
                failed += 1;
                if !as_json {
                    println!("FAIL  {}  {e}", f.display());
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
        println!(
            "{}",
            json!({"tables": rows, "failed": failed, "upgraded": upgraded})
        );
    } else if upgrade {
        println!(
            "{} tables checked, {failed} failed, {upgraded} rewritten in format version \
             {FORMAT_VERSION}",
            files.len()
        );
    } else {
        println!("{} tables checked, {failed} failed", files.len());
    }
    if failed > 0 {
        return Err(CliError::other(format!(
            "{failed} table(s) failed verification"
        )));
    }
    Ok(())
}
