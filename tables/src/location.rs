//! Where a table lives: `<dir>/<game>-<hash of the rule fingerprint>/sector_W_B_WF_BF.rtb` for
//! sector tables, `<dir>/oaq-<hash>/game.rtb` for Ô Ăn Quan games.

use crate::format::{GAME_DARA, GAME_MILL, GAME_OAQ};
use crate::sector_key::SectorKey;
use std::path::{Path, PathBuf};

/// Short stable hash of a fingerprint (FNV-1a), used in folder names.
pub fn fingerprint_hash(fp: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in fp.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// The name a game id has in folder names (`mill`, `dara`, `oaq`).
pub fn game_name(id: u32) -> Option<&'static str> {
    match id {
        GAME_MILL => Some("mill"),
        GAME_DARA => Some("dara"),
        GAME_OAQ => Some("oaq"),
        _ => None,
    }
}

/// The name of a rule profile's folder: `<game>-<hash of the fingerprint>`.
pub fn profile_folder_name(game: &str, fingerprint: &str) -> String {
    format!("{game}-{:016x}", fingerprint_hash(fingerprint))
}

/// Whether `name` has the form of a rule profile's folder name ([`profile_folder_name`]): a
/// game's name, `-`, 16 hexadecimal digits.
pub fn is_profile_folder_name(name: &str) -> bool {
    name.split_once('-').is_some_and(|(game, hash)| {
        [GAME_MILL, GAME_DARA, GAME_OAQ]
            .into_iter()
            .any(|id| game_name(id) == Some(game))
            && hash.len() == 16
            && hash.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

/// The folder of a rule profile's tables under `dir`.
pub fn profile_folder(dir: &Path, game: &str, fingerprint: &str) -> PathBuf {
    dir.join(profile_folder_name(game, fingerprint))
}

/// The file name of a sector's table.
pub fn sector_file(k: SectorKey) -> String {
    format!("sector_{k}.rtb")
}

/// The file name of an Ô Ăn Quan game's table.
pub const OAQ_FILE: &str = "game.rtb";

/// Checks that a table sits where its header says it belongs: the file name `file`, in the
/// folder named after its game and the hash of its rule fingerprint. A valid table copied over
/// another's name is refused here, as probing refuses it.
pub fn check_placed(path: &Path, game: &str, fingerprint: &str, file: &str) -> Result<(), String> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name != file {
        return Err(format!(
            "{}: the header says this table belongs in a file named {file}, not {name}",
            path.display()
        ));
    }
    let folder = profile_folder_name(game, fingerprint);
    let parent = path
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str())
        .unwrap_or("");
    if parent != folder {
        return Err(format!(
            "{}: the header's rules ({fingerprint}) belong in a folder named {folder}, not {parent}",
            path.display()
        ));
    }
    Ok(())
}

/// The three files a sector table may have: raw, win/draw/loss, distances.
pub fn table_files(raw: &Path) -> [PathBuf; 3] {
    [
        raw.to_path_buf(),
        raw.with_extension("rtbw"),
        raw.with_extension("rtbd"),
    ]
}

/// The file of a derived table beside the raw file `raw` would be.
pub fn derived_file(raw: &Path) -> PathBuf {
    raw.with_extension("rtbp")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_folder_names_are_recognised() {
        for game in ["mill", "dara", "oaq"] {
            let name = profile_folder_name(game, "some rules");
            assert!(is_profile_folder_name(&name), "{name}");
        }
        for name in [
            "databases",
            "mill",
            "mill-",
            "chess-0123456789abcdef",
            "mill-0123456789abcde",
            "mill-0123456789abcdefa",
            "mill-0123456789abcdeg",
        ] {
            assert!(!is_profile_folder_name(name), "{name}");
        }
    }
}
