//! Every command has a `--help` that explains it. (Being an integration test of this package,
//! this also makes `cargo test` build the `retro` binary that `tests/` drives end to end.)

use std::process::Command;

#[test]
fn every_command_has_help() {
    for args in [
        &["--help"][..],
        &["variants", "--help"],
        &["moves", "--help"],
        &["perft", "--help"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_retro"))
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("Usage"), "{args:?}: {text}");
    }
}
