//! `retro verify`: every table under a folder checked.

use crate::error::CliError;
use retro_tables::verify::{table_files, verify_file};
use serde_json::json;
use std::path::Path;

/// `retro verify`.
pub fn run(dir: &Path, as_json: bool) -> Result<(), CliError> {
    let files = table_files(dir)
        .map_err(|e| CliError::input(format!("cannot read {}: {e}", dir.display())))?;
    if files.is_empty() {
        return Err(CliError::other(format!(
            "no tables under {} (nothing to verify: is the path right? `retro solve` writes \
             tables under databases/ unless given --dir)",
            dir.display()
        )));
    }
    let mut failed = 0;
    let mut rows = Vec::new();
    for f in &files {
        match verify_file(f) {
            Ok(what) => {
                if !as_json {
                    println!("ok    {}  {what}", f.display());
                }
                rows.push(json!({"file": f.display().to_string(), "ok": true}));
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
        println!("{}", json!({"tables": rows, "failed": failed}));
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
