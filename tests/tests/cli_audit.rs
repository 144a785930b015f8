//! Found by the second audit of the CLI (December 7), each fixed: `play` under rules the solver
//! has no tables for; a FIFO named like a table (every reader blocked on it); a principal
//! variation asked of tables without distances over HTTP (500); `--pv` for Ô Ăn Quan (ignored).

use retro_tests::server::{get, Server};
use retro_tests::{game_folder, retro, retro_bin, solved_mill_with, stderr, stdout};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs retro with `args`, killing it if it has not finished within a minute (a reader blocked
/// on a FIFO would otherwise hang the test run): (exit code, stdout and stderr).
fn bounded(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(retro_bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("retro {args:?} still running after a minute");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let o = child.wait_with_output().unwrap();
    let text = [o.stdout, o.stderr].concat();
    (o.status.code(), String::from_utf8_lossy(&text).into_owned())
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

/// russian-mill has no tables: `play` searches from the start (it stopped at the engine's
/// first move with "no table can be built"), and solves a 3 against 3 endgame exactly.
#[test]
fn play_answers_under_rules_without_tables() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let play = |extra: &[&str], input: &str| {
        let base = [
            "play",
            "mill",
            "--variant",
            "russian-mill",
            "--dir",
            d,
            "--as",
            "white",
        ];
        let o = retro(&[&base[..], extra].concat(), Some(input));
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    let out = play(&["--depth", "2", "--json"], "d6\nquit\n");
    let last = out.lines().last().unwrap_or("").to_string();
    let v: serde_json::Value = serde_json::from_str(&last).unwrap();
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 2, "{v}");
    assert_eq!(moves[0], "d6", "{v}");

    let fen = "OOO*****/********/***@@@** w m s 3 0 3 0 0 0 0 0 0 0 0 0 1";
    let out = play(&["--fen", fen], "hint\nquit\n");
    assert!(out.contains("closure"), "{out}");
}

/// A FIFO named like a table is refused as "not a regular file" by `verify`, `compress` and
/// `analyse` (each blocked on it forever before).
#[test]
fn a_fifo_named_like_a_table_is_refused() {
    let dir = solved_mill_with(&["--variant", "six-mens-morris", "--max-stones", "3"]);
    let d = dir.path().to_str().unwrap();
    let folder = game_folder(dir.path());
    // The start position's sector: read first by `analyse` of the start.
    mkfifo(&folder.join("sector_0_0_6_6.rtb"));
    for args in [
        &["verify", "--dir", d][..],
        &["compress", "--dir", d, "-q"],
        &[
            "analyse",
            "mill",
            "--variant",
            "six-mens-morris",
            "--dir",
            d,
        ],
    ] {
        let (code, err) = bounded(args);
        assert_ne!(code, Some(0), "{args:?}: {err}");
        assert!(err.contains("not a regular file"), "{args:?}: {err}");
        assert!(err.contains("sector_0_0_6_6.rtb"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// Over HTTP, a principal variation asked of tables kept without distances is the request's
/// fault (400 on `pv`), not the server's (500, with the table's path); without `pv` the same
/// position is answered.
#[test]
fn the_api_refuses_a_pv_from_tables_without_distances() {
    let dir = solved_mill_with(&["--variant", "six-mens-morris", "--max-stones", "3"]);
    let d = dir.path().to_str().unwrap();
    let o = retro(&["compress", "--dir", d, "--wdl-only", "-q"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let server = Server::start(dir.path(), &[]);
    let fen = "O*O*O***/*@*@*@** w m s 3 0 3 0 0 0 0 0 0 0 0 0 1";
    let q = format!(
        "/api/mill?variant=six-mens-morris&fen={}",
        retro_tests::server::enc(fen)
    );
    let r = get(server.port, &q);
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json()["distances"], false);
    let r = get(server.port, &format!("{q}&pv=1"));
    assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(&r.body));
    let v = r.json();
    assert_eq!(v["field"], "pv", "{v}");
    assert!(!v["error"].as_str().unwrap().contains(d), "{v}");
}

/// `analyse oaq --pv`: a solved game's table gives a line of best moves (the first of them
/// one of `best`); a search's answer says it has none.
#[test]
fn oaq_gives_a_principal_variation_from_its_table() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let rule = ["--rule", "seeds=1,1"];
    let o = retro(
        &[&["solve", "oaq", "--dir", d, "-q"][..], &rule].concat(),
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = retro(
        &[&["analyse", "oaq", "--dir", d, "--pv", "--json"][..], &rule].concat(),
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["source"], "table", "{v}");
    let pv = v["pv"].as_array().unwrap();
    assert!(!pv.is_empty(), "{v}");
    assert!(v["best"].as_array().unwrap().contains(&pv[0]), "{v}");
    let o = retro(
        &[&["analyse", "oaq", "--dir", d, "--pv"][..], &rule].concat(),
        None,
    );
    assert!(stdout(&o).contains("PV: "), "{}", stdout(&o));

    // No table for these rules: a search, and no line.
    let o = retro(
        &[
            "analyse",
            "oaq",
            "--dir",
            d,
            "--pv",
            "--json",
            "--depth",
            "3",
            "--rule",
            "seeds=2,1",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["source"], "search", "{v}");
    assert!(v["pv"].is_null(), "{v}");
}

/// `--dir` naming a table folder itself (one rule profile's, inside the folder `solve` was
/// given) says so and names the folder to give instead, rather than offering to solve the
/// game again inside it.
#[test]
fn a_table_folder_given_as_dir_is_named_as_such() {
    let dir = solved_mill_with(&["--variant", "six-mens-morris", "--max-stones", "3"]);
    let folder = game_folder(dir.path());
    let f = folder.to_str().unwrap();
    let o = retro(
        &[
            "analyse",
            "mill",
            "--variant",
            "six-mens-morris",
            "--dir",
            f,
        ],
        None,
    );
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("is a table folder"), "{err}");
    assert!(
        err.contains(&format!(
            "the folder that holds it, {}",
            dir.path().display()
        )),
        "{err}"
    );
    assert!(!err.contains("build it with"), "{err}");
}

/// Over HTTP, a method a route does not take is a 405 with a JSON body (it was empty), and
/// `/api/variants` refuses parameters, as every route refuses unknown ones.
#[test]
fn the_api_answers_a_wrong_method_and_a_stray_parameter_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let r = retro_tests::server::post(server.port, "/api/mill", b"{}");
    assert_eq!(r.status, 405, "{}", String::from_utf8_lossy(&r.body));
    assert!(r.json()["error"].as_str().unwrap().contains("POST"));
    let r = get(server.port, "/api/batch");
    assert_eq!(r.status, 405, "{}", String::from_utf8_lossy(&r.body));
    let r = get(server.port, "/api/variants?x=1");
    assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json()["field"], "x");
    let r = get(server.port, "/api/variants");
    assert_eq!(r.status, 200);

    // Serving from a folder that is not there is allowed (boards, searches) but warned of.
    let gone = dir.path().join("not-here");
    let server = Server::start(&gone, &[]);
    let err = server.stop();
    assert!(err.contains("is not a folder"), "{err}");
}

/// `--split` is Mill's; Ô Ăn Quan's table takes no compression options: each is refused, not
/// ignored.
#[test]
fn options_of_another_game_are_refused() {
    for args in [
        &["perft", "dara", "--depth", "1", "--split"][..],
        &["perft", "oaq", "--depth", "1", "--split"],
        &["moves", "dara", "--split"],
        &[
            "solve",
            "oaq",
            "--rule",
            "seeds=1,1",
            "--compress",
            "--dry-run",
        ],
    ] {
        let o = retro(args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("are for") || stderr(&o).contains("is for"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}
