//! End-to-end tests of the Ô Ăn Quan and Dara commands.

use retro_tests::{retro, stderr, stdout};
use serde_json::Value;

fn json(s: &str) -> Value {
    serde_json::from_str(s.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {s}"))
}

#[test]
fn oaq_perft_moves_and_analyse() {
    let v = json(&stdout(&retro(
        &["perft", "oaq", "--depth", "4", "--json"],
        None,
    )));
    assert_eq!(v["nodes"], 5128);
    let v = json(&stdout(&retro(&["moves", "oaq", "--json"], None)));
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
    let v = json(&stdout(&o));
    assert_eq!(v["depth"], 6);
    assert_eq!(v["proven"], false);
    let best = v["best"].as_array().unwrap();
    let top = v["moves"].as_array().unwrap()[0]["score"].clone();
    assert_eq!(v["score"], top);
    assert!(!best.is_empty());
    // A finished game is reported as such, proven.
    let over = "0,3,0,0,0,0,0,0,2,0,0,0 s 30 35 0";
    let v = json(&stdout(&retro(
        &["analyse", "oaq", "--fen", over, "--json"],
        None,
    )));
    assert_eq!(v["proven"], true);
    assert_eq!(v["score"], 1);
    // Batch with a bad line.
    let input = "10,5,5,5,5,5,10,5,5,5,5,5 s 0 0 1\nnonsense\n";
    let lines: Vec<Value> = stdout(&retro(&["moves", "oaq", "--batch", "-"], Some(input)))
        .lines()
        .map(json)
        .collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[1]["error"].is_string());
}

#[test]
fn dara_perft_moves_and_solve() {
    let v = json(&stdout(&retro(
        &["perft", "dara", "--depth", "3", "--json"],
        None,
    )));
    assert_eq!(v["nodes"], 24360);
    let fen = "WW.W../B.B.B./....../W...../B..... b 7 7";
    let v = json(&stdout(&retro(
        &["moves", "dara", "--fen", fen, "--json"],
        None,
    )));
    assert_eq!(v["phase"], "drop");
    assert_eq!(v["moves"].as_array().unwrap().len(), 22);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = retro(
        &["solve", "dara", "--sector", "3v3", "--dir", d, "--json"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&stdout(&o));
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
