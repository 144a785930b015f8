//! Found by an audit of the documentation against the binary (December 7), each fixed: a
//! table folder given as `--dir` to `solve` (which began the whole game again inside it),
//! `sample` and `play`; `analyse mill` ignoring `--time`/`--depth` (it never searched);
//! answers that named no finished game or no missing line; flags ignored.

use retro_tests::{game_folder, retro, solved_mill, stderr, stdout};

/// `solve`, `sample` and `play` refuse a table folder as `--dir` and name the folder to give
/// instead; nothing is written into it.
#[test]
fn a_table_folder_as_dir_is_refused_with_its_parent_named() {
    let dir = solved_mill("six-mens-morris");
    let folder = game_folder(dir.path());
    let f = folder.to_str().unwrap();
    let before = std::fs::read_dir(&folder).unwrap().count();
    for args in [
        &[
            "solve",
            "mill",
            "--variant",
            "six-mens-morris",
            "--dir",
            f,
            "-q",
        ][..],
        &["sample", "mill", "--variant", "six-mens-morris", "--dir", f],
        &["play", "mill", "--variant", "six-mens-morris", "--dir", f],
    ] {
        let o = retro(args, Some("quit\n"));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains("is a table folder"), "{args:?}: {e}");
        assert!(e.contains(dir.path().to_str().unwrap()), "{args:?}: {e}");
    }
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), before);
    // A sector the game does not have is bad input for `sample`, as for `solve`.
    let d = dir.path().to_str().unwrap();
    let o = retro(
        &[
            "sample",
            "mill",
            "--variant",
            "six-mens-morris",
            "--dir",
            d,
            "--sector",
            "7,6,0,0",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("does not exist"), "{}", stderr(&o));
}

/// `analyse mill` without the table of a position says how to build it or to search; with
/// `--search` (or `--time`/`--depth`) it searches, marks the answer as a search's, and has no
/// principal variation to give.
#[test]
fn analyse_mill_searches_where_asked() {
    let empty = tempfile::tempdir().unwrap();
    let d = empty.path().to_str().unwrap();
    let o = retro(&["analyse", "mill", "--dir", d], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("add --search"), "{}", stderr(&o));
    for extra in [&["--search", "--depth", "2"][..], &["--depth", "2"]] {
        let args = [
            &["analyse", "mill", "--dir", d, "--json", "--pv"][..],
            extra,
        ]
        .concat();
        let o = retro(&args, None);
        assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        assert_eq!(
            (&v["source"], &v["depth"], &v["pv"]),
            (
                &serde_json::json!("search"),
                &serde_json::json!(2),
                &serde_json::Value::Null
            ),
            "{v}"
        );
        assert_eq!(v["moves"].as_array().unwrap().len(), 24, "{v}");
    }
    let o = retro(
        &["analyse", "mill", "--dir", d, "--depth", "1", "--pv"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("PV: none"), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("no table holds the position"),
        "{}",
        stdout(&o)
    );
}

/// A finished Mill game's analysis says so, as Dara's does; Dara's search gives `"pv": null`
/// when a line is asked for; `--removal` is refused outside Mill.
#[test]
fn finished_games_searches_and_mill_only_flags() {
    let dir = solved_mill("six-mens-morris");
    let d = dir.path().to_str().unwrap();
    // White to move with two stones in the moving phase: lost by the rules.
    let fen = "O*O*****/**@*@*@* w m s 2 0 3 0 0 0 0 0 0 0 0 0 1";
    let o = retro(
        &[
            "analyse",
            "mill",
            "--variant",
            "six-mens-morris",
            "--dir",
            d,
            "--fen",
            fen,
            "--json",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(
        (&v["game_over"], &v["source"], &v["result"]),
        (
            &serde_json::json!(true),
            &serde_json::json!("rules"),
            &serde_json::json!("loss")
        ),
        "{v}"
    );
    let o = retro(
        &[
            "analyse", "dara", "--dir", d, "--depth", "1", "--pv", "--json",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["source"], "search", "{v}");
    assert!(v.get("pv").is_some_and(|p| p.is_null()), "{v}");
    for game in ["dara", "oaq"] {
        let o = retro(&["analyse", game, "--removal", "--depth", "1"], None);
        assert_eq!(o.status.code(), Some(2), "{game}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("--removal is for Mill"),
            "{}",
            stderr(&o)
        );
    }
}

/// The dry run's counts read as words ("1 unit"), and Dara's rough time is Dara's.
#[test]
fn dry_run_counts_in_words() {
    let empty = tempfile::tempdir().unwrap();
    let d = empty.path().to_str().unwrap();
    let o = retro(
        &["solve", "dara", "--sector", "3v3", "--dry-run", "--dir", d],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("1 sector in 1 unit (0 tables already present)"),
        "{}",
        stdout(&o)
    );
}

/// `sample --time` over tables without distances (derived ones too, whose positions decided
/// by the rules answer a value without a read) names what it timed: the result alone.
#[test]
fn timed_probes_of_win_draw_loss_tables_are_named_so() {
    let dir = solved_mill("six-mens-morris");
    let d = dir.path().to_str().unwrap();
    let time = |extra: &[&str]| -> serde_json::Value {
        let base = [
            "sample",
            "mill",
            "--variant",
            "six-mens-morris",
            "--dir",
            d,
            "--time",
            "--json",
            "--count",
            "600",
        ];
        let o = retro(&[&base[..], extra].concat(), None);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str(stdout(&o).trim()).unwrap()
    };
    assert_eq!(time(&[])["probe"], "value");
    let o = retro(&["compress", "--dir", d, "--wdl-only", "-q"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    for extra in [&[][..], &["--sector", "4,5,0,0"]] {
        let v = time(extra);
        assert_eq!(v["probe"], "wdl", "{extra:?}: {v}");
    }
}
