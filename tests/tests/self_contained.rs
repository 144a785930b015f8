//! The repository carries every file its tests, benches and builds read: no source file names a
//! path outside it (such as the `../shared` folder a developer's machine has beside the project).

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_source_reads_outside_the_repository() {
    let root: PathBuf = [env!("CARGO_MANIFEST_DIR"), ".."].iter().collect();
    let mut files = Vec::new();
    for part in ["engine", "solver", "cli", "benches", "tests"] {
        rust_files(&root.join(part), &mut files);
    }
    assert!(files.len() > 50, "{} source files", files.len());
    let mut offending = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            // A path built from the crate's folder that climbs out of it, or one that names the
            // folder beside the project.
            let climbs = code.contains("CARGO_MANIFEST_DIR") && code.contains("\"..\"");
            let shared = code.contains("\"shared\"") || code.contains("../shared");
            if (climbs || shared) && !f.ends_with("self_contained.rs") {
                offending.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(offending.is_empty(), "{}", offending.join("\n"));
    // And the data the tests read is here.
    for data in [
        "data/reference/sanmill-perft.tsv",
        "data/reference/sanmill-games.tsv",
        "data/reference/malom/counts.tsv",
        "data/reference/malom/samples.tsv",
        "data/reference/README.md",
    ] {
        assert!(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(data).is_file(),
            "{data}"
        );
    }
}
