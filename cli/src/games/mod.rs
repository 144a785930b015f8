//! Per-game setup shared by the commands.

pub mod dara;
pub mod mill;
pub mod oaq;

/// When `dir` is itself a table folder (`mill-<16 hex digits>`, one rule profile's tables)
/// rather than the folder that holds them: what to give `--dir` instead.
pub fn table_folder_hint(dir: &std::path::Path) -> Option<String> {
    // `.` or `..` inside a table folder: its name is the resolved path's.
    let resolved = std::fs::canonicalize(dir).ok();
    let named = match dir.file_name() {
        Some(_) => dir,
        None => resolved.as_deref()?,
    };
    let name = named.file_name()?.to_str()?;
    retro_tables::location::is_profile_folder_name(name).then(|| {
        let parent = named
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new("."));
        format!(
            "{} is a table folder (one rule profile's tables): give --dir the folder that holds \
             it, {}",
            dir.display(),
            parent.display()
        )
    })
}

/// `--dir` naming a table folder, refused where the command would take it for the folder
/// that holds them: a solve would start again from nothing in a folder inside it, a sample
/// find no table, an analysis or a game go without its tables.
pub fn refuse_table_folder(dir: &std::path::Path) -> Result<(), crate::error::CliError> {
    match table_folder_hint(dir) {
        Some(hint) => Err(crate::error::CliError::input(hint)),
        None => Ok(()),
    }
}

/// `--split` (a Mill removal as a ply of its own) asked of another game: refused, not ignored.
pub fn check_split(game: crate::args::GameKind, split: bool) -> Result<(), crate::error::CliError> {
    if split && !matches!(game, crate::args::GameKind::Mill) {
        return Err(crate::error::CliError::input(
            "--split is for Mill (a removal as a ply of its own); a Dara capture is part of its \
             move, and Ô Ăn Quan has no removals",
        ));
    }
    Ok(())
}

/// The points a move text names in order (`a1-a4xg7`: a1, a4, g7), which the web page's clicks
/// pick: Mill and Dara write moves alike.
pub fn click_path(text: &str) -> Vec<&str> {
    text.split(['-', 'x']).filter(|s| !s.is_empty()).collect()
}
