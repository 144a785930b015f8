//! Found by an audit of the documentation against the binary (December 7), each fixed: a
//! table folder given as `--dir` to `solve` (which began the whole game again inside it),
//! `sample` and `play`; `analyse mill` ignoring `--time`/`--depth` (it never searched);
//! answers that named no finished game or no missing line; flags ignored.

use retro_tests::{game_folder, json_out, retro, solved_mill, stderr, stdout};

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
    // ... and one that holds no position (a side below the minimum), or a Dara endgame past
    // 12 stones.
    for (game, sector, says) in [
        ("mill", "2,2,0,0", "holds no position"),
        ("dara", "20v20", "3 to 12 stones"),
        ("dara", "20,20,0,0", "3 to 12 stones"),
    ] {
        let mut args = vec!["sample", game, "--dir", d, "--sector", sector];
        if game == "mill" {
            args.extend(["--variant", "six-mens-morris"]);
        }
        let o = retro(&args, None);
        assert_eq!(o.status.code(), Some(2), "{sector}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{sector}: {}", stderr(&o));
    }
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
        let v = json_out(&o);
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
    // The next removal needs the tables: not known, said so (not left out in silence).
    let o = retro(
        &[
            "analyse",
            "mill",
            "--dir",
            d,
            "--depth",
            "1",
            "--removal",
            "--json",
        ],
        None,
    );
    let v = json_out(&o);
    assert!(v.get("removal_in").is_some_and(|r| r.is_null()), "{v}");
    // Rules without tables: the closure where it is small enough, else a search if asked.
    let russian = ["analyse", "mill", "--variant", "russian-mill", "--dir", d];
    let o = retro(&russian, None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--search answers"), "{}", stderr(&o));
    let o = retro(&[&russian[..], &["--depth", "2", "--json"]].concat(), None);
    let v = json_out(&o);
    assert_eq!(v["source"], "search", "{v}");
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
    let v = json_out(&o);
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
    let v = json_out(&o);
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

/// The dry run's counts read as words ("1 unit").
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
        json_out(&o)
    };
    assert_eq!(time(&[])["probe"], "value");
    let o = retro(&["compress", "--dir", d, "--wdl-only", "-q"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    for extra in [&[][..], &["--sector", "4,5,0,0"]] {
        let v = time(extra);
        assert_eq!(v["probe"], "wdl", "{extra:?}: {v}");
    }
}

/// `--dir .` inside a table folder is the table folder too; Dara's dry run reckons its time
/// at Dara's speed (4.5 million slots a second here, not Mill's 4.2: with 3v3 solved, the
/// 140,522,850 slots of 3v4, 4v3 and 4v4 print as 31 s, 4.53 million a second, where Mill's
/// rate would print 33 s, 4.26 million).
#[test]
fn a_table_folder_named_dot_and_dara_time() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = retro(
        &["solve", "dara", "--sector", "3v3", "--dir", d, "-q"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let folder = game_folder(dir.path());
    let o = std::process::Command::new(retro_tests::retro_bin())
        .args(["solve", "dara", "--sector", "3v3", "--dir", "."])
        .current_dir(&folder)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("is a table folder"), "{}", stderr(&o));

    let o = retro(
        &["solve", "dara", "--sector", "4v4", "--dry-run", "--dir", d],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let line = text
        .lines()
        .find(|l| l.starts_with("left to solve: "))
        .unwrap_or_else(|| panic!("{text}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let slots: f64 = words[3].parse().unwrap();
    let at = words.iter().position(|w| *w == "roughly").unwrap();
    let secs = match words[at + 2] {
        "s" => words[at + 1].parse::<f64>().unwrap(),
        "minutes" => 60.0 * words[at + 1].parse::<f64>().unwrap(),
        other => panic!("{other}: {line}"),
    };
    let rate = slots / secs;
    assert!((4.35e6..4.8e6).contains(&rate), "{rate}: {line}");
}

/// A finished Ô Ăn Quan game's analysis comes from the rules (its end collection), from a
/// solved game's table as without one, as Dara's and Mill's do.
#[test]
fn a_finished_oaq_game_is_answered_by_the_rules() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let rule = ["--rule", "seeds=1,1"];
    let o = retro(
        &[&["solve", "oaq", "--dir", d, "-q"], &rule[..]].concat(),
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = retro(
        &[
            &["play", "oaq", "--dir", d, "--as", "none", "--json"],
            &rule[..],
        ]
        .concat(),
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let summary: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(summary["game_over"], true, "{summary}");
    let fen = summary["fen"].as_str().unwrap();
    for folder in [d, "/nonexistent-retro-folder"] {
        let args = [
            "analyse", "oaq", "--dir", folder, "--fen", fen, "--json", "--pv",
        ];
        let o = retro(&[&args[..], &rule[..]].concat(), None);
        let v = json_out(&o);
        assert_eq!(
            (&v["source"], &v["game_over"]),
            (&serde_json::json!("rules"), &serde_json::json!(true)),
            "{folder}: {v}"
        );
    }
}
