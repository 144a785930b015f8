//! Every command has a `--help` that explains it. (Being an integration test of this package,
//! this also makes `cargo test` build the `retro` binary that `tests/` drives end to end.)

use std::process::Command;

fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_command_has_help() {
    for args in [
        &["--help"][..],
        &["variants", "--help"],
        &["moves", "--help"],
        &["perft", "--help"],
        &["bench", "--help"],
        &["solve", "--help"],
        &["analyse", "--help"],
        &["play", "--help"],
        &["verify", "--help"],
    ] {
        let text = help(args);
        assert!(text.contains("Usage"), "{args:?}: {text}");
    }
}

#[test]
fn the_overview_says_what_is_solved_not_in_progress() {
    let text = help(&["--help"]);
    assert!(!text.contains("in progress"), "{text}");
    for says in ["retro solve", "nine-mens-morris", "55.7 GB", "bench"] {
        assert!(text.contains(says), "{says}: {text}");
    }
    let text = help(&["perft", "--help"]);
    assert!(text.contains("--no-bulk"), "{text}");
}
