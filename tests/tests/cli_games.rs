//! End-to-end tests of the Ô Ăn Quan and Dara commands.

use retro_tests::{parse_json, retro, stderr, stdout};
use serde_json::Value;

#[test]
fn oaq_perft_moves_and_analyse() {
    let v = parse_json(&stdout(&retro(
        &["perft", "oaq", "--depth", "4", "--json"],
        None,
    )));
    assert_eq!(v["nodes"], 5128);
    let v = parse_json(&stdout(&retro(&["moves", "oaq", "--json"], None)));
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 10);
    assert_eq!(moves[0]["move"], "1+");
    assert_eq!(moves[0]["captured"], 6);
    assert_eq!(moves[0]["position"], "11,0,0,6,6,6,11,0,6,6,6,6 n 6 0 0");
    let o = retro(
        &[
            "analyse",
            "oaq",
            "--rule",
            "seeds=1,1",
            "--depth",
            "6",
            "--json",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v = parse_json(&stdout(&o));
    assert_eq!(v["depth"], 6);
    assert_eq!(v["proven"], false);
    let best = v["best"].as_array().unwrap();
    let top = v["moves"].as_array().unwrap()[0]["score"].clone();
    assert_eq!(v["score"], top);
    assert!(!best.is_empty());
    // A finished game is reported as such, proven.
    let over = "0,3,0,0,0,0,0,0,2,0,0,0 s 30 35 0";
    let v = parse_json(&stdout(&retro(
        &["analyse", "oaq", "--fen", over, "--json"],
        None,
    )));
    assert_eq!(v["proven"], true);
    assert_eq!(v["score"], 1);
    // Batch with a bad line.
    let input = "10,5,5,5,5,5,10,5,5,5,5,5 s 0 0 1\nnonsense\n";
    let lines: Vec<Value> = stdout(&retro(&["moves", "oaq", "--batch", "-"], Some(input)))
        .lines()
        .map(parse_json)
        .collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[1]["error"].is_string());
}

#[test]
fn dara_perft_moves_and_solve() {
    let v = parse_json(&stdout(&retro(
        &["perft", "dara", "--depth", "3", "--json"],
        None,
    )));
    assert_eq!(v["nodes"], 24360);
    // White to drop: 22 empty cells, but c5 would make a5-b5-c5-d5, a four.
    let fen = "WW.W../B.B.B./....../W...../B..... w 8 8";
    let v = parse_json(&stdout(&retro(
        &["moves", "dara", "--fen", fen, "--json"],
        None,
    )));
    assert_eq!(v["phase"], "drop");
    assert_eq!(v["moves"].as_array().unwrap().len(), 21);
    assert!(!v["moves"].as_array().unwrap().iter().any(|m| m == "c5"));
    // A run of four, which no move makes, can be typed in (RULES.md 2.5): its stones are not
    // protected by it.
    let fen = "WWWW../....../....W./....../BB.B.. b 0 0";
    let v = parse_json(&stdout(&retro(
        &["moves", "dara", "--fen", fen, "--json"],
        None,
    )));
    let moves: Vec<&str> = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    for m in ["d1-c1xa5", "d1-c1xd5", "d1-c1xe3"] {
        assert!(moves.contains(&m), "{m}: {moves:?}");
    }
    // Positions the rules cannot reach are refused, naming the field and the reason.
    for (fen, says) in [
        (
            "WWWW../....../....../....../...... w 8 12",
            "never behind nor more than one ahead",
        ),
        (
            "WW.W../B.B.B./....../W...../B..... b 7 7",
            "board holds the 5 it dropped",
        ),
        (
            "W...../....../....../....../.....B b 11 11",
            "White's turn to drop",
        ),
    ] {
        let o = retro(&["moves", "dara", "--fen", fen], None);
        assert_eq!(o.status.code(), Some(2), "{fen}");
        assert!(stderr(&o).contains(says), "{fen}: {}", stderr(&o));
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = retro(
        &["solve", "dara", "--sector", "3v3", "--dir", d, "--json"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v = parse_json(&stdout(&o));
    let s = &v["sectors"].as_array().unwrap()[0];
    assert_eq!(s["sector"], "3_3_0_0");
    assert_eq!(s["positions"], 2970230);
    assert!(retro(&["verify", "--dir", d], None).status.success());
}

#[test]
fn bad_input_is_exit_code_two() {
    for args in [
        &["moves", "oaq", "--fen", "1,2,3 s 0 0 1"][..],
        &["moves", "oaq", "--rule", "seeds=0,0"],
        &["moves", "oaq", "--variant", "dooz"],
        &[
            "moves",
            "dara",
            "--fen",
            "....../....../....../....../...... x 12 12",
        ],
        &["moves", "dara", "--rule", "protected-threes=maybe"],
        &["solve", "dara", "--sector", "2v3"],
        &["analyse", "oaq", "--time", "-1"],
    ] {
        let o = retro(args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).starts_with("error: "), "{args:?}");
    }
}

/// The seeds off the board are the stores the position text gives, not the rule profile's total
/// (RULES.md 3.6: "the two stores together").
#[test]
fn oaq_stores_in_the_text_decide_the_refill_rule() {
    let perft = |extra: &[&str]| {
        let mut args = vec![
            "perft",
            "oaq",
            "--fen",
            "1,1,1,1,1,1,1,1,1,1,1,1 s 0 0 1",
            "--depth",
            "3",
            "--json",
        ];
        args.extend_from_slice(extra);
        let o = retro(&args, None);
        assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
        parse_json(&stdout(&o))["nodes"].as_u64().unwrap()
    };
    // The 12-seed start under the default profile (70 seeds) is the seeds=1,1 game.
    assert_eq!(perft(&[]), 356);
    assert_eq!(perft(&["--rule", "seeds=1,1"]), 356);

    // Both stores empty, South's row empty: fewer than 5 seeds off the board, the game is over.
    let stuck = "0,0,0,0,0,0,1,1,1,1,1,1 s 0 0 0";
    let v = parse_json(&stdout(&retro(
        &["moves", "oaq", "--fen", stuck, "--json"],
        None,
    )));
    assert_eq!(v["moves"].as_array().unwrap().len(), 0, "{v}");
    assert!(!v["game_over"].is_null(), "{v}");
    // With 5 seeds in a store the row is refilled (ten moves).
    let v = parse_json(&stdout(&retro(
        &[
            "moves",
            "oaq",
            "--fen",
            "0,0,0,0,0,0,1,1,1,1,1,1 s 0 5 0",
            "--json",
        ],
        None,
    )));
    assert_eq!(v["moves"].as_array().unwrap().len(), 10, "{v}");

    // A fixed total that the text does not add up to: exit 2, naming both totals.
    for (fen, holds) in [(stuck, "6"), ("1,1,1,1,1,1,1,1,1,1,1,1 s 3 0 0", "15")] {
        let o = retro(&["moves", "oaq", "--rule", "seeds=1,1", "--fen", fen], None);
        assert_eq!(o.status.code(), Some(2), "{fen}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains(&format!("holds {holds} seeds")) && e.contains("has 12"),
            "{fen}: {e}"
        );
    }
    // Stores that add up to a negative number of seeds off the board cannot be.
    let o = retro(
        &["moves", "oaq", "--fen", "1,1,1,1,1,1,1,1,1,1,1,1 s -6 2 0"],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("fewer than none"), "{}", stderr(&o));
}

/// Numbers out of the rules' range are refused by every command that takes them, naming the
/// field and the range: the N-move rule (a play rule) even where only `play` and records use it,
/// Ô Ăn Quan stores and cell counts, and `--threads`.
#[test]
fn numeric_fields_of_dara_and_oaq_are_range_checked() {
    let start = "10,5,5,5,5,5,10,5,5,5,5,5";
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            ["moves", "dara", "--rule", "n-move-rule=abc"]
                .map(String::from)
                .to_vec(),
            "'n-move-rule': expected a number from 0 to 10000",
        ),
        (
            ["perft", "oaq", "--depth", "1", "--rule", "n-move-rule=-1"]
                .map(String::from)
                .to_vec(),
            "'n-move-rule': expected a number from 0 to 10000",
        ),
        (
            [
                "solve",
                "dara",
                "--max-stones",
                "3",
                "--rule",
                "n-move-rule=99999",
                "--dry-run",
            ]
            .map(String::from)
            .to_vec(),
            "'n-move-rule'",
        ),
        (
            vec![
                "moves".into(),
                "oaq".into(),
                "--fen".into(),
                format!("{start} s 99999 0 1"),
            ],
            "south store field '99999': expected a number from -1000 to 1000",
        ),
        (
            vec![
                "moves".into(),
                "oaq".into(),
                "--fen".into(),
                format!("{start} s 0 -1001 1"),
            ],
            "north store field '-1001': expected a number from -1000 to 1000",
        ),
        (
            vec![
                "moves".into(),
                "oaq".into(),
                "--fen".into(),
                "10,5,5,5,5,999,10,5,5,5,5,5 s 0 0 1".into(),
            ],
            "cell 5: expected 0 to 255 seeds",
        ),
        (
            ["perft", "dara", "--depth", "1", "--threads", "0"]
                .map(String::from)
                .to_vec(),
            "--threads must be from 1 to 1024",
        ),
    ];
    for (args, says) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = retro(&args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stdout(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    // In range, they are taken.
    let o = retro(
        &[
            "moves",
            "oaq",
            "--rule",
            "n-move-rule=0",
            "--fen",
            &format!("{start} s 0 0 1"),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
}
