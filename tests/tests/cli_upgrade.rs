//! Format versions: tables written in version 2 (16 KiB blocks, serial checksum) are still
//! read and verified, and `retro verify --upgrade` rewrites them in version 3, byte for byte the
//! file this retro writes for the same table; a damaged table or a locked folder is not
//! rewritten.

use retro_tables::block_file::Layout;
use retro_tables::format::{trailer_with, Sums, HEADER_SIZE};
use retro_tables::lock::FolderLock;
use retro_tests::{retro, stderr, stdout};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The bytes of the body of a Mill table file of any kind (raw, compressed, derived).
fn body_len(path: &Path, file: &[u8]) -> usize {
    match path.extension().and_then(|e| e.to_str()) {
        Some("rtbw" | "rtbd") => Layout::decode(file).body_len().unwrap() as usize,
        Some("rtbp") => 0,
        _ => 2 * u64::from_le_bytes(file[24..32].try_into().unwrap()) as usize,
    }
}

/// The same table in format version 2: version field 2, the version-2 trailer.
fn as_version_2(path: &Path, file: &[u8]) -> Vec<u8> {
    let n = body_len(path, file);
    let mut head = file[..HEADER_SIZE].to_vec();
    head[8..12].copy_from_slice(&2u32.to_le_bytes());
    let body = &file[HEADER_SIZE..HEADER_SIZE + n];
    let mut out = head.clone();
    out.extend_from_slice(body);
    out.extend(trailer_with(Sums::V2, &head, body));
    out
}

/// Every table file under `dir` with its bytes.
fn tables(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    retro_tables::verify::table_files(dir)
        .unwrap()
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect()
}

#[test]
fn version_2_tables_are_read_and_upgraded_to_the_bytes_version_3_writes() {
    let root = tempfile::tempdir().unwrap();
    let (raw, packed) = (root.path().join("raw"), root.path().join("packed"));
    for d in [&raw, &packed] {
        let args = [
            "solve",
            "mill",
            "--variant",
            "six-mens-morris",
            "-q",
            "--dir",
        ];
        let o = retro(&[&args[..], &[d.to_str().unwrap()]].concat(), None);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = retro(&["compress", "--dir", packed.to_str().unwrap(), "-q"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let analyse = || {
        let o = retro(
            &[
                "analyse",
                "mill",
                "--variant",
                "six-mens-morris",
                "--json",
                "--dir",
                packed.to_str().unwrap(),
            ],
            None,
        );
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    let answer = analyse();
    let written = tables(root.path());
    for ext in ["rtb", "rtbw", "rtbd", "rtbp"] {
        assert!(
            written.keys().any(|p| p.extension().unwrap() == ext),
            "no .{ext} file"
        );
    }
    assert!(written.values().all(|b| b[8..12] == 3u32.to_le_bytes()));
    for (p, b) in &written {
        std::fs::write(p, as_version_2(p, b)).unwrap();
    }

    // Version 2 reads as before: every file verifies, and the analysis is the same.
    let dir = root.path().to_str().unwrap();
    let o = retro(&["verify", "--dir", dir], None);
    assert!(o.status.success(), "{}", stdout(&o));
    assert_eq!(analyse(), answer);

    // A damaged version-2 table is not rewritten; a locked folder is refused.
    let victim = written
        .keys()
        .find(|p| p.extension().unwrap() == "rtb" && std::fs::metadata(p).unwrap().len() > 40_000)
        .unwrap()
        .clone();
    let mut bad = std::fs::read(&victim).unwrap();
    bad[HEADER_SIZE + 20_000] ^= 1;
    std::fs::write(&victim, &bad).unwrap();
    let folder = written
        .keys()
        .find(|p| p.starts_with(&packed))
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let lock = FolderLock::acquire(&folder, false).unwrap();
    let o = retro(&["verify", "--dir", dir, "--upgrade", "--json"], None);
    drop(lock);
    assert!(!o.status.success());
    let report: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rows = report["tables"].as_array().unwrap();
    assert_eq!(rows.len(), written.len());
    let name = |r: &serde_json::Value| PathBuf::from(r["file"].as_str().unwrap());
    let mut first = 0;
    for r in rows {
        let p = name(r);
        if p == victim {
            assert_eq!(r["ok"], false, "{r}");
            assert!(r["error"].as_str().unwrap().contains("checksum"), "{r}");
        } else if p.starts_with(&folder) {
            assert_eq!(r["ok"], false, "{r}");
            assert!(
                r["error"]
                    .as_str()
                    .unwrap()
                    .contains("passes, not upgraded"),
                "{r}"
            );
        } else {
            assert_eq!(r["upgraded"], true, "{r}");
            first += 1;
        }
    }
    assert_eq!(
        std::fs::read(&victim).unwrap(),
        bad,
        "the damaged table changed"
    );

    // Repaired and unlocked, every table is rewritten, each exactly as version 3 wrote it.
    std::fs::write(&victim, as_version_2(&victim, &written[&victim])).unwrap();
    // What a killed upgrade leaves is removed once the folder's lock is held.
    let leftover = victim.with_extension("rtb.regroup.tmp");
    std::fs::write(&leftover, b"half a file").unwrap();
    let o = retro(&["verify", "--dir", dir, "--upgrade"], None);
    assert!(!leftover.exists());
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(
        stdout(&o).contains(&format!(
            "{} rewritten (format version 3, grouped distances, win/draw/loss dictionaries, \
             reflected slot order, rANS coders)",
            written.len() - first
        )),
        "{}",
        stdout(&o)
    );
    let now = tables(root.path());
    assert_eq!(now.len(), written.len(), "files left behind");
    for (p, b) in &written {
        assert!(
            now[p] == *b,
            "{} differs from what version 3 wrote",
            p.display()
        );
    }
    let o = retro(&["verify", "--dir", dir, "--upgrade"], None);
    assert!(stdout(&o).contains(" 0 rewritten"), "{}", stdout(&o));
    assert_eq!(analyse(), answer);
}
