//! End-to-end tests of `retro variants`, `retro moves mill` and `retro perft mill`.

use retro_tests::{parse_json, retro, stderr, stdout};
use serde_json::Value;

#[test]
fn perft_json_shape_and_counts() {
    let o = retro(
        &[
            "perft",
            "mill",
            "--depth",
            "4",
            "--split",
            "--json",
            "--threads",
            "2",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v = parse_json(&stdout(&o));
    assert_eq!(v["nodes"], 255024);
    assert!(v["seconds"].is_number() && v["nps"].is_number());
    let o = retro(&["perft", "mill", "-d", "2", "--divide", "--json"], None);
    let v = parse_json(&stdout(&o));
    let parts = v["divide"].as_array().unwrap();
    assert_eq!(parts.len(), 24);
    assert!(parts.iter().all(|p| p["nodes"] == 23));
    let o = retro(
        &[
            "perft",
            "mill",
            "--variant",
            "lasker-morris",
            "-d",
            "3",
            "--split",
        ],
        None,
    );
    assert!(stdout(&o).contains("nodes    13552"), "{}", stdout(&o));
}

#[test]
fn perft_with_one_and_two_threads_agree() {
    let fen = "@O*O*@*O/*@O*@**@/O*@*O@*O w m s 7 0 7 0 0 0 0 0 0 0 0 0 1";
    let count = |t: &str| {
        let o = retro(
            &["perft", "mill", "--fen", fen, "-d", "5", "--json", "-t", t],
            None,
        );
        parse_json(&stdout(&o))["nodes"].as_u64().unwrap()
    };
    assert_eq!(count("1"), count("2"));
}

#[test]
fn moves_lists_sorted_moves_and_state() {
    let fen = "O*@@@O*@/**@*@***/*@@**@O* b m r 3 0 9 0 0 1 0 0 0 0 0 0 1";
    let o = retro(&["moves", "mill", "--fen", fen, "--json", "--split"], None);
    assert!(o.status.success());
    let v = parse_json(&stdout(&o));
    assert_eq!(v["moves"], serde_json::json!(["xa4", "xc3", "xd5"]));
    assert_eq!(v["side"], "black");
    assert_eq!(v["phase"], "removing");
    assert!(v["game_over"].is_null());
    // Text mode draws the board.
    let o = retro(&["moves", "mill"], None);
    let text = stdout(&o);
    assert!(
        text.contains("a    b    c    d    e    f    g") && text.contains("24 legal moves"),
        "{text}"
    );
    // A finished game says who won and why.
    let over = "OOO*****/@@******/******** w m s 3 0 2 0 0 0 0 0 0 0 0 0 1";
    let v = parse_json(&stdout(&retro(
        &["moves", "mill", "--fen", over, "--json"],
        None,
    )));
    assert_eq!(v["game_over"]["winner"], "white");
    assert_eq!(v["moves"], serde_json::json!([]));
}

#[test]
fn batch_reports_bad_lines_without_aborting() {
    let input = "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1\nnot a fen\n\
                 ********/********/******** q p p 0 9 0 9 0 0 0 0 0 0 0 0 1\n";
    let o = retro(&["moves", "mill", "--batch", "-"], Some(input));
    assert!(o.status.success());
    let lines: Vec<Value> = stdout(&o).lines().map(parse_json).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["moves"].as_array().unwrap().len(), 24);
    assert!(lines[1]["error"].as_str().unwrap().contains("fields"));
    assert!(lines[2]["error"].as_str().unwrap().contains("side to move"));
}

#[test]
fn bad_input_exits_with_code_two_and_a_message() {
    for args in [
        &["moves", "mill", "--fen", "nonsense"][..],
        &["moves", "mill", "--variant", "chess"],
        &["moves", "mill", "--rule", "flying=perhaps"],
        &[
            "perft",
            "mill",
            "-d",
            "3",
            "--fen",
            "********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1",
        ],
        &["moves", "mill", "--batch", "/nonexistent/file"],
    ] {
        let o = retro(args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn variants_lists_every_preset_with_fields() {
    let v = parse_json(&stdout(&retro(&["variants", "--json"], None)));
    let list = v["variants"].as_array().unwrap();
    assert_eq!(list.len(), 14);
    let dsq = list.iter().find(|p| p["name"] == "da-san-qi").unwrap();
    assert_eq!(dsq["fields"]["mill-action"], "mark-and-delay");
    assert_eq!(dsq["fields"]["defender-first"], "true");
}

/// Numeric fields are range-checked against what the rules allow (issue 21, item 2): removals
/// owed beyond what one ply can owe, and sector material that u8 arithmetic would wrap.
#[test]
fn numeric_fields_are_range_checked() {
    let fen = |white_removals: &str| {
        format!("O*******/**O****O/***@**@@ w m r 3 0 3 0 {white_removals} 0 0 0 0 0 0 0 1")
    };
    for (args, says) in [
        (
            vec![
                "moves".to_string(),
                "mill".into(),
                "--fen".into(),
                fen("-128"),
            ],
            "white removals",
        ),
        (
            vec!["moves".into(), "mill".into(), "--fen".into(), fen("127")],
            "white removals",
        ),
        (
            vec!["moves".into(), "mill".into(), "--fen".into(), fen("2")],
            "from 0 to 1",
        ),
        (
            vec![
                "moves".into(),
                "mill".into(),
                "--variant".into(),
                "morabaraba".into(),
                "--fen".into(),
                fen("4"),
            ],
            "from 0 to 3",
        ),
        (
            ["solve", "mill", "--sector", "200,60,56,196", "--dry-run"]
                .map(String::from)
                .to_vec(),
            "does not exist",
        ),
        (
            ["perft", "mill", "--depth", "1", "--threads", "0"]
                .map(String::from)
                .to_vec(),
            "--threads must be from 1 to 1024, not 0",
        ),
        (
            ["solve", "mill", "--max-stones", "3", "--threads", "100000"]
                .map(String::from)
                .to_vec(),
            "--threads must be from 1 to 1024, not 100000",
        ),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = retro(&args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stdout(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    // A solve refused for its arguments leaves its folder untouched (no lock file, no folder).
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("tables");
    let d = d.to_str().unwrap();
    let o = retro(
        &[
            "solve",
            "mill",
            "--max-stones",
            "3",
            "--threads",
            "0",
            "--dir",
            d,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        !dir.path().join("tables").exists(),
        "the refused solve made {d}"
    );
    // One removal owed is fine, and so is one per mill where the profile says so.
    let o = retro(&["moves", "mill", "--fen", &fen("1")], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = retro(
        &[
            "moves",
            "mill",
            "--variant",
            "morabaraba",
            "--fen",
            &fen("2"),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
}
