//! Arguments and inputs at their edges (found by an audit of the CLI, December 6): each gets
//! a clear error or its own error line, never a panic, an abort or a walk without end.

use retro_tests::{parse_json, retro, solved_mill_with, stderr, stdout};

fn json_lines(s: &str) -> Vec<serde_json::Value> {
    s.lines().map(parse_json).collect()
}

/// Depths past what the recursion's stack holds, and search options a server would pass on
/// to every request, are refused before anything runs.
#[test]
fn numeric_options_out_of_range_are_refused() {
    for args in [
        &["perft", "mill", "--depth", "1001"][..],
        &["perft", "oaq", "--depth", "65535"],
        &["analyse", "dara", "--depth", "0"],
        &["play", "mill", "--depth", "4294967295", "--as", "none"],
        &["serve", "--max-search-time", "nan", "--addr", "127.0.0.1:0"],
        &["serve", "--max-search-time", "0", "--addr", "127.0.0.1:0"],
        &[
            "serve",
            "--max-search-time",
            "1e30",
            "--addr",
            "127.0.0.1:0",
        ],
        &["serve", "--threads", "0", "--addr", "127.0.0.1:0"],
        &["solve", "mill", "--dry-run", "--threads", "0"],
        &["solve", "oaq", "--dry-run", "--threads", "5000"],
        &["serve", "--threads", "4294967295", "--addr", "127.0.0.1:0"],
        &[
            "serve",
            "--max-connections",
            "2305843009213693952",
            "--addr",
            "127.0.0.1:0",
        ],
    ] {
        let o = retro(args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
    }
}

/// A batch line that is not UTF-8, or longer than a MiB, gets an error line of its own; the
/// lines around it are answered.
#[test]
fn batch_lines_that_cannot_be_read_are_errors_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let start = "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1";
    let mut input = Vec::new();
    input.extend_from_slice(format!("{start}\n").as_bytes());
    input.extend_from_slice(b"\xff\xfe not text\n");
    input.extend(std::iter::repeat_n(b'O', (1 << 20) + 10));
    input.extend_from_slice(format!("\n{start}\n").as_bytes());
    let file = dir.path().join("batch.txt");
    std::fs::write(&file, &input).unwrap();
    for from_stdin in [false, true] {
        let path = file.to_str().unwrap();
        let o = if from_stdin {
            // The same bytes through stdin (lossy here only to pass them as text: the long
            // line and the good ones are ASCII; the bad line's bytes become U+FFFD, still
            // one line).
            let text = String::from_utf8_lossy(&input).into_owned();
            retro(&["moves", "mill", "--batch", "-"], Some(&text))
        } else {
            retro(&["moves", "mill", "--batch", path], None)
        };
        assert!(o.status.success(), "{}", stderr(&o));
        let lines = json_lines(&stdout(&o));
        assert_eq!(lines.len(), 4, "{}", stdout(&o));
        assert!(lines[0]["error"].is_null() && lines[3]["error"].is_null());
        if !from_stdin {
            let e = lines[1]["error"].as_str().unwrap();
            assert!(e.contains("not UTF-8"), "{e}");
        }
        let e = lines[2]["error"].as_str().unwrap();
        assert!(e.contains("longer than 1 MiB"), "{e}");
        assert!(lines[2]["input"].as_str().unwrap().len() < 300);
    }
    // A folder named as the file of positions (or of a record) is bad input: exit 2, said so.
    let d = dir.path().to_str().unwrap();
    for args in [
        &["moves", "mill", "--batch", d][..],
        &["analyse", "dara", "--batch", d],
        &["analyse", "mill", "--record", d],
    ] {
        let o = retro(args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(d), "{args:?}: {}", stderr(&o));
    }
    let o = retro(&["moves", "mill", "--batch", d], None);
    assert!(stderr(&o).contains("a folder"), "{}", stderr(&o));
}

/// A batch file that starts with a byte-order mark reads its first line as if it had none;
/// a `--dir` that names a file is refused as such by every command that takes one.
#[test]
fn a_byte_order_mark_and_a_file_named_as_dir() {
    let dir = tempfile::tempdir().unwrap();
    let start = "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1";
    let file = dir.path().join("bom.txt");
    std::fs::write(&file, format!("\u{feff}{start}\r\n{start}\r\n")).unwrap();
    let o = retro(&["moves", "mill", "--batch", file.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines = json_lines(&stdout(&o));
    assert_eq!(lines.len(), 2, "{}", stdout(&o));
    assert!(lines.iter().all(|l| l["error"].is_null()), "{}", stdout(&o));
    assert_eq!(lines[0], lines[1]);

    let f = file.to_str().unwrap();
    for args in [
        &["analyse", "mill", "--dir", f][..],
        &["play", "mill", "--as", "none", "--dir", f],
        &["sample", "mill", "--dir", f],
        &["solve", "mill", "--max-stones", "3", "--dir", f],
        &["verify", "--dir", f],
        &["compress", "--dir", f],
        &["serve", "--dir", f, "--addr", "127.0.0.1:0"],
    ] {
        let o = retro(args, Some("quit\n"));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("a file, not a folder of tables"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

/// `retro play` reading a line longer than a MiB says so and reads on.
#[test]
fn play_reads_on_past_a_line_too_long() {
    let mut input: String = "x".repeat((1 << 20) + 1);
    input.push_str("\nquit\n");
    let o = retro(
        &[
            "play",
            "mill",
            "--variant",
            "six-mens-morris",
            "--as",
            "both",
        ],
        Some(&input),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("error: a line longer than 1 MiB"),
        "{}",
        stdout(&o)
    );
}

/// A sector where a side has fewer stones than the game allows is no position: refused, not
/// "0 sectors" solved.
#[test]
fn a_sector_of_a_lost_side_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for s in ["2,2,0,0", "0,0,0,0", "1,5,0,0"] {
        let o = retro(&["solve", "mill", "--sector", s, "--dir", d], None);
        assert_eq!(o.status.code(), Some(2), "{s}: {}", stderr(&o));
        assert!(stderr(&o).contains("has lost"), "{s}: {}", stderr(&o));
    }
}

/// `--rule` settings are applied together, then checked: `board=morris16` before `stones=6`
/// is as good as after.
#[test]
fn rule_settings_do_not_depend_on_their_order() {
    let variant = |rules: &[&str]| {
        let mut args = vec!["perft", "mill", "--depth", "2", "--json"];
        for r in rules {
            args.extend(["--rule", r]);
        }
        let o = retro(&args, None);
        assert!(o.status.success(), "{rules:?}: {}", stderr(&o));
        json_lines(&stdout(&o))[0]["nodes"].as_u64().unwrap()
    };
    // Six men's morris: 16 placements, then 15 answers to each.
    assert_eq!(variant(&["board=morris16", "stones=6"]), 16 * 15);
    assert_eq!(variant(&["stones=6", "board=morris16"]), 16 * 15);
    let o = retro(
        &["perft", "mill", "--depth", "1", "--rule", "board=morris16"],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("9 stones a side do not fit on morris16"));
}

/// `retro verify` walks each folder once: a link back up the tree neither loops nor lists a
/// table twice.
#[test]
fn verify_walks_a_folder_with_a_link_to_itself_once() {
    let dir = solved_mill_with(&["--variant", "six-mens-morris", "--max-stones", "3"]);
    let d = dir.path().to_str().unwrap();
    let once = stdout(&retro(&["verify", "--dir", d], None));
    std::os::unix::fs::symlink(dir.path(), dir.path().join("again")).unwrap();
    let o = retro(&["verify", "--dir", d], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let tail = |s: &str| s.lines().last().unwrap_or("").to_string();
    assert_eq!(tail(&stdout(&o)), tail(&once), "{}", stdout(&o));
}

/// A link to a folder that holds the one asked for (/proc/self/root is one: the whole file
/// system) is not walked; an error deep inside the tree names the path it came from.
#[test]
fn verify_skips_links_up_the_tree_and_names_where_a_walk_failed() {
    let dir = solved_mill_with(&["--variant", "six-mens-morris", "--max-stones", "3"]);
    let d = dir.path().to_str().unwrap();
    let once = stdout(&retro(&["verify", "--dir", d], None));
    std::os::unix::fs::symlink("/", dir.path().join("root")).unwrap();
    let parent = dir.path().parent().unwrap();
    std::os::unix::fs::symlink(parent, dir.path().join("up")).unwrap();
    let o = retro(&["verify", "--dir", d], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let tail = |s: &str| s.lines().last().unwrap_or("").to_string();
    assert_eq!(tail(&stdout(&o)), tail(&once), "{}", stdout(&o));

    // Folders nested past the longest path the system takes (two chains, each within it,
    // one moved to the end of the other): reading the deepest fails, and the error says which.
    let deep = tempfile::tempdir().unwrap();
    let name = "n".repeat(200);
    let chain = |top: &str| {
        let mut p = deep.path().join(top);
        for _ in 0..12 {
            p.push(&name);
        }
        std::fs::create_dir_all(&p).unwrap();
        p
    };
    let (a, b) = (chain("a"), chain("b"));
    std::fs::rename(deep.path().join("b"), a.join("b")).unwrap();
    assert!(b.to_str().unwrap().len() * 2 > 4096);
    let d = deep.path().to_str().unwrap();
    let o = retro(&["verify", "--dir", d], None);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains(&format!("cannot read {d}: {d}/a/{name}/")),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// Dara's game-over reason is words in JSON, as Mill's is; `sample dara` takes its sectors as
/// `solve dara` does (`3v3`).
#[test]
fn dara_speaks_as_mill_does() {
    let o = retro(
        &[
            "moves",
            "dara",
            "--fen",
            "BB..../....../....../....../WWW... b 0 0",
            "--json",
        ],
        None,
    );
    let v = &json_lines(&stdout(&o))[0];
    assert_eq!(v["game_over"]["reason"], "two stones or fewer", "{v}");

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = retro(
        &["solve", "dara", "--sector", "3v3", "--dir", d, "-q"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    for s in ["3v3", "3,3", "3,3,0,0"] {
        let o = retro(
            &["sample", "dara", "--sector", s, "--count", "5", "--dir", d],
            None,
        );
        assert!(o.status.success(), "{s}: {}", stderr(&o));
        assert_eq!(stdout(&o).lines().count(), 5, "{s}");
    }
    let o = retro(&["sample", "dara", "--sector", "3x3", "--dir", d], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("expected W,B or WvB"), "{}", stderr(&o));
}

/// `--variant` of a game without presets: a Mill preset's name is called one, another name is
/// unknown (not called a Mill preset).
#[test]
fn a_variant_of_a_game_without_presets_is_named_for_what_it_is() {
    let o = retro(&["solve", "dara", "--variant", "nosuch", "--dry-run"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown --variant nosuch"),
        "{}",
        stderr(&o)
    );
    let o = retro(&["analyse", "oaq", "--variant", "lasker-morris"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is a Mill preset"), "{}", stderr(&o));
    // A long unknown name is quoted in part, for every game.
    let long = "x".repeat(5000);
    for game in ["mill", "dara"] {
        let o = retro(&["solve", game, "--variant", &long, "--dry-run"], None);
        assert_eq!(o.status.code(), Some(2), "{game}");
        let e = stderr(&o);
        assert!(e.contains("(5000 bytes)") && e.len() < 1000, "{game}: {e}");
    }
}
