//! Per-game setup shared by the commands.

pub mod dara;
pub mod mill;
pub mod oaq;

/// When `dir` is itself a table folder (`mill-<16 hex digits>`, one rule profile's tables)
/// rather than the folder that holds them: what to give `--dir` instead.
pub fn table_folder_hint(dir: &std::path::Path) -> Option<String> {
    let name = dir.file_name()?.to_str()?;
    let (game, hash) = name.split_once('-')?;
    let is_table_folder = ["mill", "dara", "oaq"].contains(&game)
        && hash.len() == 16
        && hash.bytes().all(|b| b.is_ascii_hexdigit());
    is_table_folder.then(|| {
        let parent = dir
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

/// The points a move text names in order (`a1-a4xg7`: a1, a4, g7), which the web page's clicks
/// pick: Mill and Dara write moves alike.
pub fn click_path(text: &str) -> Vec<&str> {
    text.split(['-', 'x']).filter(|s| !s.is_empty()).collect()
}
