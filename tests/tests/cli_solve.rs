//! End-to-end tests of `retro solve`, `retro analyse` and `retro verify`.

use retro_tests::{parse_json, retro, solved_mill_with, stderr, stdout};
use serde_json::{json, Value};

#[test]
fn solve_analyse_verify_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let solve = || {
        let o = retro(
            &[
                "solve",
                "mill",
                "--variant",
                "six-mens-morris",
                "--dir",
                d,
                "--json",
            ],
            None,
        );
        assert!(o.status.success(), "{}", stderr(&o));
        o
    };
    let o = solve();
    let v = parse_json(&stdout(&o));
    let sectors = v["sectors"].as_array().unwrap();
    assert!(sectors.len() > 50);
    // No terminal (and --json): a log line per unit on stderr instead of bars, the last one
    // the start sector's unit, numbered as the JSON counts units.
    let log = stderr(&o);
    let units: Vec<&str> = log.lines().filter(|l| l.contains("] unit ")).collect();
    assert!(units.len() > 30, "{log}");
    assert!(units[0].starts_with("[0:00:"), "{log}");
    assert!(units[0].contains("] unit 1/"), "{log}");
    let last = units.last().unwrap();
    assert!(last.contains("sector 0_0_6_6 ("), "{log}");
    // Each line says what is left of the run: the slots of its own and the later units.
    let number = |l: &str, before: &str| -> u64 {
        let head = l.split(before).next().unwrap();
        head.rsplit(|c: char| !c.is_ascii_digit())
            .find(|w| !w.is_empty())
            .unwrap()
            .parse()
            .unwrap()
    };
    let total: u64 = sectors.iter().map(|s| s["slots"].as_u64().unwrap()).sum();
    assert_eq!(number(units[0], " left"), total, "{log}");
    assert_eq!(number(last, " left"), number(last, " slots;"), "{log}");
    let n = last
        .split("] unit ")
        .nth(1)
        .unwrap()
        .split(':')
        .next()
        .unwrap();
    let (i, total) = n.split_once('/').unwrap();
    assert_eq!(i, total, "{log}");
    assert!(sectors
        .iter()
        .any(|s| s["sector"] == "0_0_6_6" && s["draws"] == 1));
    // The whole game solved: the start position's value (Six Men's Morris is a draw).
    assert_eq!(v["start"]["result"], "draw", "{}", v["start"]);
    // The totals add up the sectors' rows: 3,101,821 positions (README), the longest win that
    // of a sector with it, the tables' bytes those of the files in the folder.
    let t = &v["totals"];
    let sum = |f: &str| -> u64 { sectors.iter().map(|s| s[f].as_u64().unwrap()).sum() };
    assert_eq!(t["positions"], 3_101_821, "{t}");
    for f in ["positions", "wins", "draws", "losses"] {
        assert_eq!(t[f].as_u64(), Some(sum(f)), "{f}: {t}");
    }
    let longest = sectors
        .iter()
        .map(|s| s["longest_win"].as_u64().unwrap())
        .max()
        .unwrap();
    assert_eq!(t["longest_win"].as_u64(), Some(longest), "{t}");
    assert!(sectors
        .iter()
        .any(|s| s["sector"] == t["longest_win_sector"] && s["longest_win"] == longest));
    let placing: u64 = sectors
        .iter()
        .filter(|s| !s["sector"].as_str().unwrap().ends_with("_0_0"))
        .map(|s| s["positions"].as_u64().unwrap())
        .sum();
    assert_eq!(t["placing_positions"].as_u64(), Some(placing), "{t}");
    let files: u64 = std::fs::read_dir(d)
        .unwrap()
        .flat_map(|e| std::fs::read_dir(e.unwrap().path()).unwrap())
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().contains(".rtb"))
        .map(|e| e.metadata().unwrap().len())
        .sum();
    assert_eq!(t["table_bytes"].as_u64(), Some(files), "{t}");
    // The run's memory: the sampled peak of its anonymous memory (the unit's arrays), within
    // its peak resident set (which counts the mapped tables' pages too), also in the log lines.
    let (memory, resident) = (
        v["peak_memory_bytes"].as_u64().unwrap(),
        v["peak_resident_bytes"].as_u64().unwrap(),
    );
    assert!(
        memory > 1 << 20 && memory <= resident,
        "{memory} {resident}"
    );
    assert!(units.iter().all(|l| l.contains("; memory peak ")), "{log}");
    // The folder's solve log: a line per unit this run solved, adding up to its slots.
    let l = &v["log"];
    assert_eq!(l["units"].as_u64(), Some(units.len() as u64), "{l}");
    let slots: u64 = sectors.iter().map(|s| s["slots"].as_u64().unwrap()).sum();
    assert_eq!(l["slots"].as_u64(), Some(slots), "{l}");
    assert_eq!(l["runs"], 1, "{l}");
    assert!(l["peak_memory_bytes"].as_u64().unwrap() <= memory, "{l}");
    // Nothing left to solve: nothing logged.
    assert_eq!(parse_json(&stdout(&solve()))["log"], *l);

    let o = retro(
        &[
            "analyse",
            "mill",
            "--variant",
            "six-mens-morris",
            "--dir",
            d,
            "--json",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v = parse_json(&stdout(&o));
    assert_eq!(v["result"], "draw");
    assert!(v["plies"].is_null());
    assert_eq!(v["moves"].as_array().unwrap().len(), 16);
    assert_eq!(v["best"].as_array().unwrap().len(), 16);

    // A won position: the PV ends the game and the first PV move is a best move.
    let fen = "O*O*****/O@@@**** w p p 3 3 3 3 0 0 0 0 0 0 0 0 1";
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
            "--pv",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v = parse_json(&stdout(&o));
    let best: Vec<&str> = v["best"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap())
        .collect();
    let pv = v["pv"].as_array().unwrap();
    assert!(best.contains(&pv[0].as_str().unwrap()), "{v}");
    if v["result"] != "draw" {
        assert_eq!(pv.len() as u64, v["plies"].as_u64().unwrap(), "{v}");
    }

    // Batch: one line per FEN, errors inline.
    let input = format!("{fen}\nnot a fen\n");
    let o = retro(
        &[
            "analyse",
            "mill",
            "--variant",
            "six-mens-morris",
            "--dir",
            d,
            "--batch",
            "-",
        ],
        Some(&input),
    );
    let lines: Vec<Value> = stdout(&o).lines().map(parse_json).collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0]["result"].is_string() && lines[1]["error"].is_string());

    let o = retro(&["verify", "--dir", d], None);
    assert!(o.status.success(), "{}", stdout(&o));

    // Corrupt one table: verify fails and names it; solve rebuilds it.
    let folder = std::fs::read_dir(dir.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let table = folder.join("sector_3_3_0_0.rtb");
    let mut bytes = std::fs::read(&table).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 1;
    std::fs::write(&table, &bytes).unwrap();
    let o = retro(&["verify", "--dir", d], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("FAIL") && stdout(&o).contains("sector_3_3_0_0"),
        "{}",
        stdout(&o)
    );
    // ... with its kind in JSON, beside an unfinished temporary file's.
    let leftover = folder.join("sector_4_4_0_0.rtb.99-0.tmp");
    std::fs::write(&leftover, b"an interrupted write").unwrap();
    let o = retro(&["verify", "--dir", d, "--json"], None);
    let v = parse_json(&stdout(&o));
    let kinds: Vec<(&str, &str)> = v["tables"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["ok"] == false)
        .map(|r| {
            let file = r["file"].as_str().unwrap();
            (
                &file[file.rfind('/').unwrap() + 1..],
                r["kind"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("sector_3_3_0_0.rtb", "corrupt"),
            ("sector_4_4_0_0.rtb.99-0.tmp", "unfinished")
        ]
    );
    // The solve rebuilds it and says so, even under -q; the leftover goes.
    let o = retro(
        &[
            "solve",
            "mill",
            "--variant",
            "six-mens-morris",
            "--dir",
            d,
            "-q",
        ],
        None,
    );
    assert!(o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("rebuilding")
            && err.contains("sector_3_3_0_0.rtb")
            && err.contains("checksum"),
        "{err}"
    );
    // -q: no log lines per unit either.
    assert!(!err.contains("] unit "), "{err}");
    assert!(!leftover.exists());
    assert!(retro(&["verify", "--dir", d], None).status.success());
}

#[test]
fn analyse_names_the_missing_table_and_rejects_unsolvable_rules() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = retro(&["analyse", "mill", "--dir", d], None);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("retro solve mill --variant nine-mens-morris")
            && err.contains("--sector 0,0,9,9"),
        "{err}"
    );
    // Rule overrides are part of the command that builds the table.
    let o = retro(
        &[
            "analyse",
            "mill",
            "--rule",
            "flying=false",
            "--rule",
            "n-move-rule=50",
            "--dir",
            d,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    // (--compress in it where the free disk is smaller than the raw tables.)
    let cmd = "retro solve mill --variant nine-mens-morris --rule flying=false";
    assert!(
        (err.contains(&format!("{cmd} --dir")) || err.contains(&format!("{cmd} --compress --dir")))
            && !err.contains("n-move-rule"),
        "{err}"
    );
    let o = retro(
        &["solve", "mill", "--variant", "russian-mill", "--dir", d],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("one-time mills"), "{}", stderr(&o));
    // A whole game that does not fit is refused before any unit is solved, with the numbers:
    // da-san-qi's placing sectors with their marked points.
    let o = retro(
        &["solve", "mill", "--variant", "da-san-qi", "--dir", d],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("needs about") && stderr(&o).contains("GiB of memory"),
        "{}",
        stderr(&o)
    );
    let tables = std::fs::read_dir(d)
        .unwrap()
        .flat_map(|e| std::fs::read_dir(e.unwrap().path()).into_iter().flatten())
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name();
            name.to_string_lossy().contains(".rtb")
        })
        .count();
    assert_eq!(tables, 0, "a table was written");
    let o = retro(&["solve", "mill", "--sector", "3,3", "--dir", d], None);
    assert_eq!(o.status.code(), Some(2));
    // A solve whose tables do not fit the free disk is refused at once, naming what fits:
    // nine-mens-morris whole, 51.9 GiB raw, about 14 GiB at the peak of a --compress solve
    // (estimated). RETRO_FREE_DISK and RETRO_AVAILABLE_MEMORY stand in for this machine's.
    // A solve the check lets through by mistake would run for an hour: each is stopped after
    // two minutes (the refusals take a second, the small solves a few).
    let fresh = tempfile::tempdir().unwrap();
    let solve = |free_gib: u64, extra: &[&str]| {
        let mut child = std::process::Command::new(retro_tests::retro_bin())
            .args(["solve", "mill", "--dir", fresh.path().to_str().unwrap()])
            .args(extra)
            .env("RETRO_FREE_DISK", (free_gib << 30).to_string())
            .env("RETRO_AVAILABLE_MEMORY", (20u64 << 30).to_string())
            .stdout(std::fs::File::create(fresh.path().join("out")).unwrap())
            .stderr(std::fs::File::create(fresh.path().join("err")).unwrap())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed().as_secs() > 120 {
                child.kill().unwrap();
                panic!("retro solve {extra:?} was not refused and ran on");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::process::Output {
            status: child.wait().unwrap(),
            stdout: std::fs::read(fresh.path().join("out")).unwrap(),
            stderr: std::fs::read(fresh.path().join("err")).unwrap(),
        }
    };
    let o = solve(20, &[]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("GiB of disk for its raw tables, 20.0 GiB is free")
            && err.contains("--compress keeps it at about 14.0 GiB"),
        "{err}"
    );
    let o = solve(12, &["--compress"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("at the peak of a --compress solve, 12.0 GiB is free"),
        "{err}"
    );
    // The budget it names fits (in 95% of the free disk, by the dry run's estimate), and so
    // does no larger one in whole GiB.
    let budget: u64 = err
        .split("--raw-budget ")
        .nth(1)
        .unwrap()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap();
    let plan = |b: u64| {
        let o = solve(
            12,
            &[
                "--compress",
                "--raw-budget",
                &b.to_string(),
                "--dry-run",
                "--json",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        parse_json(&stdout(&o))
    };
    let fits = plan(budget);
    assert!(
        fits["raw_budget_peak_bytes"].as_u64().unwrap() <= (12 << 30) / 20 * 19,
        "{fits}"
    );
    assert_eq!(
        fits["suggested_raw_budget_bytes"].as_u64(),
        Some(budget << 30)
    );
    assert!(plan(budget + 1)["raw_budget_peak_bytes"].as_u64().unwrap() > (12 << 30) / 20 * 19);
    // Under --no-derive every sector keeps its values: the estimate counts them (14.0 GiB fits
    // 15 GiB, 16.2 GiB does not).
    let o = solve(15, &["--compress", "--no-derive"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("at the peak of a --compress solve, 15.0 GiB is free"),
        "{}",
        stderr(&o)
    );
    let o = solve(15, &["--compress", "--dry-run", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        parse_json(&stdout(&o))["compress_peak_bytes"]
            .as_u64()
            .unwrap()
            < 15 << 30
    );
    // Nothing fits a disk smaller than the compressed tables alone; what fits is solved.
    let o = solve(5, &["--compress"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no --raw-budget makes it fit")
            && stderr(&o).contains("--ignore-disk-estimate starts it anyway"),
        "{}",
        stderr(&o)
    );
    // The dry run says so too, with the least peak a budget gives, and names the way out.
    let o = solve(5, &["--compress", "--dry-run"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("no --raw-budget brings the --compress peak within the free disk")
            && out.contains("even --raw-budget 1 peaks at about ")
            && out.contains("--ignore-disk-estimate"),
        "{out}"
    );
    // The estimate is only an estimate: --ignore-disk-estimate starts the solve, and the check
    // of each unit before it is solved stops it at the first unit that does not fit (here the
    // first: no disk at all), before any table is written.
    let o = solve(0, &["--compress", "--ignore-disk-estimate", "-q"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("sector 3_3_0_0 needs about ")
            && stderr(&o).contains(" of disk in ")
            && stderr(&o).contains(", 0 KiB is free"),
        "{}",
        stderr(&o)
    );
    let written = std::fs::read_dir(fresh.path())
        .unwrap()
        .flat_map(|e| std::fs::read_dir(e.unwrap().path()).into_iter().flatten())
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name();
            name.to_string_lossy().contains(".rtb")
        })
        .count();
    assert_eq!(written, 0, "a table was written");
    let o = solve(5, &["--max-stones", "3", "--compress", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // With tables in the folder the solve is a resumed one: not refused by the estimate (the
    // unit about to be written is checked).
    let o = solve(12, &["--compress", "--max-stones", "4", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Resumed without --compress, the raw tables left (51.9 GiB) exceed the free disk: refused
    // at once, naming --compress (it would otherwise fill the disk hours later). The missing
    // start table's hint names --compress too, and what is left.
    let o = solve(20, &[]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("GiB of disk for their raw tables, 20.0 GiB is free: resume with --compress"),
        "{err}"
    );
    let analyse = |free_gib: u64| {
        let o = std::process::Command::new(retro_tests::retro_bin())
            .args(["analyse", "mill", "--dir", fresh.path().to_str().unwrap()])
            .env("RETRO_FREE_DISK", (free_gib << 30).to_string())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1));
        stderr(&o)
    };
    let err = analyse(20);
    assert!(
        err.contains("retro solve mill --variant nine-mens-morris --compress --dir")
            && err.contains("of the tables present,")
            && err.contains("of the slots left)"),
        "{err}"
    );
    // With room for the raw tables the hint leaves --compress out.
    let err = analyse(100);
    assert!(
        err.contains("retro solve mill --variant nine-mens-morris --dir"),
        "{err}"
    );
}

/// The disk check measures the working folder's file system when `--dir` is a relative path
/// none of whose folders exist yet (the default `databases` run outside the repository): the
/// dry run names the free disk and a solve that does not fit is refused at once.
#[test]
fn the_disk_check_covers_a_relative_folder_that_does_not_exist() {
    let cwd = tempfile::tempdir().unwrap();
    let run = |args: &[&str], free: Option<u64>| {
        let mut cmd = std::process::Command::new(retro_tests::retro_bin());
        cmd.args(args).current_dir(cwd.path());
        if let Some(bytes) = free {
            cmd.env("RETRO_FREE_DISK", bytes.to_string());
        }
        cmd.output().unwrap()
    };
    let six = ["solve", "mill", "--variant", "six-mens-morris"];
    let o = run(
        &[&six[..], &["--dir", "new/tables", "--dry-run", "--json"]].concat(),
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v = parse_json(&stdout(&o));
    assert!(v["free_disk_bytes"].as_u64().unwrap() > 0, "{v}");
    // Six men's morris takes about 7 MB of raw tables: 1,000 bytes free refuse it before any
    // table is written.
    let o = run(&[&six[..], &["--dir", "new/tables"]].concat(), Some(1000));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("of disk for its raw tables"),
        "{}",
        stderr(&o)
    );
    assert!(
        !cwd.path().join("new").exists(),
        "the refused solve made its folder"
    );
}

/// A dry run over an empty folder says roughly how long the solve takes: at the usual rate of
/// the game's units, slower where placing moves stay inside a unit (lasker-morris, where a
/// side with stones in hand may slide: its first run's 2.3 million slots a second, not the 4.2
/// of nine-mens-morris's whole solve), so lasker-morris says about 16 hours, as it took.
#[test]
fn a_fresh_dry_run_says_how_long() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let dry = |variant: &str, json: bool| {
        let mut args = vec![
            "solve",
            "mill",
            "--variant",
            variant,
            "--dry-run",
            "--dir",
            d,
        ];
        if json {
            args.push("--json");
        }
        let o = retro(&args, None);
        assert!(o.status.success(), "{variant}: {}", stderr(&o));
        stdout(&o)
    };
    // Their placing moves all leave their units: every unit at Mill's usual rate.
    for variant in ["nine-mens-morris", "morabaraba-malom"] {
        let v = parse_json(&dry(variant, true));
        let rate = v["usual_slots_per_second"].as_f64().unwrap();
        assert!((rate - 4.2e6).abs() < 1.0, "{variant}: {rate}");
        let left = v["slots_left"].as_f64().unwrap();
        let secs = v["estimated_seconds"].as_f64().unwrap();
        assert!(
            (secs - left / 4.2e6).abs() < 1.0,
            "{variant}: {secs} s for {left}"
        );
    }
    let lasker = parse_json(&dry("lasker-morris", true));
    let rate = lasker["usual_slots_per_second"].as_f64().unwrap();
    assert!((2.3e6..2.5e6).contains(&rate), "{rate}");
    let hours = lasker["estimated_seconds"].as_f64().unwrap() / 3600.0;
    assert!((15.0..18.0).contains(&hours), "{hours} h");
    let text = dry("lasker-morris", false);
    let line = text
        .lines()
        .find(|l| l.starts_with("time: roughly "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains(" hours on 2 cores (at 2.4 million slots a second"),
        "{line}"
    );
}

/// `--dry-run` answers for every preset, saying which sectors these rules leave out: all of
/// russian-mill's (one-time mills' masks are state the index lacks, with a figure of what they
/// would cost). da-san-qi's marked points are in the index of its placing sectors: the moving
/// phase solves on its own, and a placing position with marks is then looked up in a table of
/// its own sector (missing here).
#[test]
fn every_preset_dry_runs_and_placing_only_rules_keep_the_moving_phase() {
    for p in retro_engine::mill::PRESETS {
        let o = retro(
            &["solve", "mill", "--variant", p.name, "--dry-run", "--json"],
            None,
        );
        assert!(o.status.success(), "{}: {}", p.name, stderr(&o));
        let v = parse_json(&stdout(&o));
        let sectors = v["sectors"].as_array().unwrap();
        let left_out = v["unsupported_sectors"].as_u64().unwrap() as usize;
        let expect = match p.name {
            "russian-mill" => sectors.len(),
            _ => 0,
        };
        assert_eq!(left_out, expect, "{}", p.name);
        assert_eq!(v["solvable"], left_out == 0, "{}", p.name);
        // What this machine has, beside what the solve needs.
        assert!(v["free_disk_bytes"].as_u64().unwrap() > 0, "{v}");
        assert!(v["available_memory_bytes"].as_u64().unwrap() > 0, "{v}");
        // One-time mills' masks (in every sector) are state the index lacks; with it, the
        // slots of those sectors would be more than 100,000 times as many.
        let slots = v["slots"].as_u64().unwrap();
        let placing = v["placing_slots"].as_u64().unwrap();
        match (p.name, v["extra_state_slots"].as_u64()) {
            ("russian-mill", Some(x)) => assert!(x / slots > 100_000, "{x} of {slots}"),
            ("russian-mill", None) => panic!("{}: no figure", p.name),
            (_, x) => assert_eq!(x, None, "{}", p.name),
        }
        // da-san-qi's marks multiply its placing sectors' slots by about 170.
        if p.name == "da-san-qi" {
            assert!(placing > 10_000_000_000_000, "{placing}");
        }
    }
    // Marked points are indexed only where every placing ply leaves its sector: not with
    // moves instead of placements.
    let o = retro(
        &[
            "solve",
            "mill",
            "--rule",
            "mill-action=mark-and-delay",
            "--rule",
            "move-in-placing=true",
            "--dry-run",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("marked points (mark-and-delay) with moves while placing"),
        "{}",
        stdout(&o)
    );
    // The text says whether this machine has the memory and disk.
    assert!(
        stdout(&o).contains("this machine: ") && stdout(&o).contains("memory for the largest"),
        "{}",
        stdout(&o)
    );
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let base = ["--variant", "da-san-qi", "--dir", d];
    let o = retro(
        &[&["solve", "mill", "--max-stones", "4", "-q"], &base[..]].concat(),
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // A dry run over the folder counts what is left: the 5-stone closure less the 4-stone one
    // just solved.
    let plan = |n: &str| {
        let o = retro(
            &[
                &["solve", "mill", "--max-stones", n, "--dry-run", "--json"],
                &base[..],
            ]
            .concat(),
            None,
        );
        assert!(o.status.success(), "{}", stderr(&o));
        parse_json(&stdout(&o))
    };
    let (four, five) = (plan("4"), plan("5"));
    assert_eq!(four["slots_left"], 0);
    let left = five["slots"].as_u64().unwrap() - four["slots"].as_u64().unwrap();
    assert!(left > 0);
    assert_eq!(five["slots_left"].as_u64(), Some(left));
    let fen = "O*******/**O****O/***@**@@ w m s 3 0 3 0 0 0 0 0 0 0 0 0 1";
    let o = retro(
        &[&["analyse", "mill", "--fen", fen, "--json"], &base[..]].concat(),
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(parse_json(&stdout(&o))["result"], "win");
    let o = retro(&[&["analyse", "mill"], &base[..]].concat(), None);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no table for sector 0_0_12_12"),
        "{}",
        stderr(&o)
    );
}

/// `retro verify` cannot be fooled by an empty or mistyped folder, nor by a valid table under
/// another table's name or in another rule profile's folder.
#[test]
fn verify_refuses_no_tables_and_misplaced_ones() {
    let empty = tempfile::tempdir().unwrap();
    let e = empty.path().to_str().unwrap();
    let o = retro(&["verify", "--dir", e], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("no tables under {e}")),
        "{}",
        stderr(&o)
    );

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = retro(
        &[
            "solve",
            "mill",
            "--variant",
            "six-mens-morris",
            "--max-stones",
            "4",
            "--dir",
            d,
            "-q",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = retro(&["verify", "--dir", d], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let folder = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .expect("the rule profile's folder");

    // A valid 3v4 table copied over the 4v3 file: the header says 3_4_0_0.
    let (a, b) = (
        folder.join("sector_3_4_0_0.rtb"),
        folder.join("sector_4_3_0_0.rtb"),
    );
    let saved = std::fs::read(&b).unwrap();
    std::fs::copy(&a, &b).unwrap();
    let o = retro(&["verify", "--dir", d], None);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(
        out.contains("FAIL") && out.contains("sector_4_3_0_0.rtb") && out.contains("1 failed"),
        "{out}"
    );
    assert!(out.contains("named sector_3_4_0_0.rtb"), "{out}");
    // The same tables in a folder whose name is another profile's hash.
    std::fs::write(&b, saved).unwrap();
    assert!(retro(&["verify", "--dir", d], None).status.success());
    let elsewhere = dir.path().join("mill-0123456789abcdef");
    std::fs::rename(&folder, &elsewhere).unwrap();
    let o = retro(&["verify", "--dir", d, "--json"], None);
    assert_eq!(o.status.code(), Some(1));
    let v = parse_json(&stdout(&o));
    let rows = v["tables"].as_array().unwrap();
    assert!(!rows.is_empty() && v["failed"] == rows.len());
    let err = rows[0]["error"].as_str().unwrap();
    assert!(rows.iter().all(|r| r["kind"] == "misplaced"), "{v}");
    assert!(
        err.contains("belong in a folder named mill-") && err.contains("not mill-0123456789abcdef"),
        "{err}"
    );
}

/// A game folder a solve started but left without a table (killed before its first one) is
/// named by `retro verify`: a note beside full folders, the reason when it is all there is.
#[test]
fn verify_names_a_game_folder_without_tables() {
    let started_in = |dir: &std::path::Path| {
        let started = dir.join("mill-0123456789abcdef");
        std::fs::create_dir(&started).unwrap();
        std::fs::write(started.join("solve.lock"), b"").unwrap();
    };
    let alone = tempfile::tempdir().unwrap();
    started_in(alone.path());
    let o = retro(&["verify", "--dir", alone.path().to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let msg = stderr(&o);
    assert!(
        msg.contains("no tables under") && msg.contains("mill-0123456789abcdef holds no table yet"),
        "{msg}"
    );

    let dir = solved_mill_with(&["--variant", "six-mens-morris", "--max-stones", "3"]);
    started_in(dir.path());
    let d = dir.path().to_str().unwrap();
    let o = retro(&["verify", "--dir", d], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("note") && out.contains("mill-0123456789abcdef  no table yet"),
        "{out}"
    );
    let o = retro(&["verify", "--dir", d, "--json"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = parse_json(&stdout(&o));
    let empty = v["folders_without_tables"].as_array().unwrap();
    assert_eq!(empty.len(), 1, "{v}");
    assert!(empty[0]
        .as_str()
        .unwrap()
        .ends_with("mill-0123456789abcdef"));
    assert_eq!(v["failed"], 0);
}

/// Without tables, `retro analyse mill` names the solve that builds them, what it costs (the
/// `--dry-run` figures) and the cheap alternatives.
#[test]
fn a_missing_table_names_the_cost_and_the_cheap_alternatives() {
    let empty = tempfile::tempdir().unwrap();
    let e = empty.path().to_str().unwrap();
    let o = retro(&["analyse", "mill", "--dir", e], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let msg = stderr(&o);
    let plan = retro(&["solve", "mill", "--dir", e, "--dry-run", "--json"], None);
    let plan = parse_json(&stdout(&plan));
    let slots = plan["slots"].as_u64().unwrap();
    let sectors = plan["sectors"].as_array().unwrap().len();
    for says in [
        "--sector 0,0,9,9".to_string(),
        format!("{sectors} sectors, {slots} slots"),
        format!(
            "{:.1} GiB of raw tables",
            (slots * 2) as f64 / (1u64 << 30) as f64
        ),
        "the whole game, placement included".into(),
        "hours on 2 cores".into(),
        "--variant six-mens-morris".into(),
        "--max-stones 4".into(),
    ] {
        assert!(msg.contains(&says), "{says}: {msg}");
    }
    // A small endgame's table: the command, its cost, no talk of cheaper games.
    let fen = "O*******/**O****O/***@**@@ w m s 3 0 3 0 0 0 0 0 0 0 0 0 1";
    let o = retro(&["analyse", "mill", "--dir", e, "--fen", fen], None);
    assert_eq!(o.status.code(), Some(1));
    let msg = stderr(&o);
    assert!(
        msg.contains("--sector 3,3,0,0") && msg.contains("1 sector,"),
        "{msg}"
    );
    assert!(!msg.contains("cheaper"), "{msg}");
}

/// Two solves into one folder: while one holds the folder's lock, a second is refused (exit
/// 1, naming the lock and `--wait`), a third with `--wait` waits and then keeps every table the
/// first wrote; the tables are byte-identical to a single solve's, and `verify` passes.
#[test]
fn concurrent_solves_of_one_folder_are_refused_or_wait() {
    use retro_tables::lock::{FolderLock, LOCK_FILE};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let solve = |extra: &[&str]| {
        Command::new(retro_tests::retro_bin())
            .args(["solve", "mill", "--max-stones", "5", "--dir", d])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut first = solve(&["-q", "--wait"]);
    let started = Instant::now();
    let folder = loop {
        let held = std::fs::read_dir(dir.path()).ok().and_then(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .find(|p| p.join(LOCK_FILE).exists() && FolderLock::held_elsewhere(p))
        });
        if let Some(f) = held {
            break f;
        }
        assert!(
            first.try_wait().unwrap().is_none(),
            "the first solve ended before its lock was seen"
        );
        assert!(started.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(2));
    };
    let refused = solve(&["-q"]).wait_with_output().unwrap();
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    let e = stderr(&refused);
    assert!(
        e.contains("another solve is writing into") && e.contains(LOCK_FILE),
        "{e}"
    );
    assert!(e.contains("--wait"), "{e}");
    let waiting = solve(&["--wait", "--json"]);
    let first = first.wait_with_output().unwrap();
    assert!(first.status.success(), "{}", stderr(&first));
    let waited = waiting.wait_with_output().unwrap();
    assert!(waited.status.success(), "{}", stderr(&waited));
    let v = parse_json(&stdout(&waited));
    let sectors = v["sectors"].as_array().unwrap();
    assert_eq!(sectors.len(), 9);
    assert!(sectors.iter().all(|s| s["reused"] == true), "{v}");
    // The tables are the ones a single solve writes, and nothing temporary is left.
    let fresh = tempfile::tempdir().unwrap();
    let f = fresh.path().to_str().unwrap();
    let single = retro(
        &["solve", "mill", "--max-stones", "5", "--dir", f, "-q"],
        None,
    );
    assert!(single.status.success(), "{}", stderr(&single));
    let files = |p: &std::path::Path| {
        let mut v: Vec<_> = std::fs::read_dir(p)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            // The lock, and the solve log (the times of each run).
            .filter(|p| p.file_name().unwrap() != LOCK_FILE)
            .filter(|p| p.file_name().unwrap() != "solve-log.tsv")
            .collect();
        v.sort();
        v
    };
    let ours = files(&folder);
    let theirs = files(&fresh.path().join(folder.file_name().unwrap()));
    assert_eq!(ours.len(), 9, "{ours:?}");
    assert_eq!(ours.len(), theirs.len());
    for (a, b) in ours.iter().zip(&theirs) {
        assert_eq!(a.file_name(), b.file_name());
        assert!(
            std::fs::read(a).unwrap() == std::fs::read(b).unwrap(),
            "{a:?}"
        );
    }
    let verify = retro(&["verify", "--dir", d], None);
    assert!(verify.status.success(), "{}", stdout(&verify));
}

/// russian-mill has no tables: `analyse` solves a small position's closure instead. With empty
/// masks a 3-against-3 position has nine-mens-morris's values (any capture ends it, so no mask
/// grows that matters); with every point in White's mask, White's mill takes nothing and White
/// never wins. A bigger position is refused at once, saying why.
#[test]
fn russian_mill_endgames_are_solved_without_tables() {
    let dir = solved_mill_with(&["--sector", "3,3,0,0"]);
    let d = dir.path().to_str().unwrap();
    let fen =
        |mask: u64| format!("*O******/*O*O*@**/***@***@ w m s 3 0 3 0 0 0 0 0 0 0 {mask} 0 1");
    let analyse = |variant: &str, fen: &str| {
        let o = retro(
            &[
                "analyse",
                "mill",
                "--variant",
                variant,
                "--fen",
                fen,
                "--dir",
                d,
                "--json",
            ],
            None,
        );
        assert!(o.status.success(), "{}", stderr(&o));
        parse_json(&stdout(&o))
    };
    // White closes a mill and wins at once.
    let nine = analyse("nine-mens-morris", &fen(0));
    assert_eq!(
        (&nine["result"], &nine["plies"]),
        (&json!("win"), &json!(1))
    );
    let russian = analyse("russian-mill", &fen(0));
    assert_eq!(russian["exact"], "closure");
    assert!(russian["positions"].as_u64().unwrap() > 100_000);
    for k in ["result", "plies", "moves", "best"] {
        assert_eq!(russian[k], nine[k], "{k}");
    }
    // Bit n + 8 for point n, White's bits 32 higher: every point.
    let all_dead = analyse("russian-mill", &fen((0xFF_FFFF << 8) << 32));
    assert_ne!(all_dead["result"], "win");
    let moves = all_dead["moves"].as_array().unwrap();
    assert!(moves.iter().all(|m| m["result"] != "win"), "{all_dead}");
    assert_ne!(all_dead["moves"], nine["moves"]);
    let o = retro(&["analyse", "mill", "--variant", "russian-mill"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("at most 6 stones"), "{}", stderr(&o));
}

/// The folder's solve log adds up a solve spread over runs: a first run solves the moving
/// phase up to 4 stones a side, a second the rest; a third has nothing to solve and logs
/// nothing.
#[test]
fn the_solve_log_adds_up_runs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let run = |extra: &[&str]| {
        let o = retro(
            &[
                &["solve", "mill", "--variant", "six-mens-morris", "--dir", d][..],
                extra,
            ]
            .concat(),
            None,
        );
        assert!(o.status.success(), "{}", stderr(&o));
        o
    };
    let first = parse_json(&stdout(&run(&["--max-stones", "4", "--json", "-q"])));
    let solved = |v: &Value| -> (u64, u64) {
        let rows = v["sectors"].as_array().unwrap();
        let fresh = rows.iter().filter(|s| s["reused"] == false);
        (
            fresh.clone().count() as u64,
            fresh.map(|s| s["slots"].as_u64().unwrap()).sum(),
        )
    };
    let (_, slots1) = solved(&first);
    assert_eq!(first["log"]["runs"], 1, "{}", first["log"]);
    assert_eq!(first["log"]["slots"].as_u64(), Some(slots1));
    // The second run prints what the log adds up to: both runs.
    let text = stdout(&run(&["-q"]));
    assert!(
        text.contains("the folder's solve log (solve-log.tsv): ")
            && text.contains(" over 2 runs: "),
        "{text}"
    );
    let third = parse_json(&stdout(&run(&["--json", "-q"])));
    assert_eq!(solved(&third), (0, 0));
    let log = &third["log"];
    assert_eq!(log["runs"], 2, "{log}");
    // Every slot of the game, solved once over the two runs.
    let all: u64 = third["sectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["slots"].as_u64().unwrap())
        .sum();
    assert_eq!(log["slots"].as_u64(), Some(all), "{log}");
    let lines = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path().join("solve-log.tsv"))
        .find(|p| p.exists())
        .map(|p| std::fs::read_to_string(p).unwrap().lines().count())
        .unwrap();
    assert_eq!(log["units"].as_u64(), Some(lines as u64), "{log}");
    // A dry run over the folder says the same; with fewer than a billion slots logged it
    // keeps the machine's usual rate for what is left.
    let dry = parse_json(&stdout(&run(&["--dry-run", "--json"])));
    assert_eq!(dry["log"], *log);
    assert!(dry["logged_slots_per_second"].is_null(), "{dry}");
    let text = stdout(&run(&["--dry-run"]));
    assert!(text.contains("its solve log (solve-log.tsv): "), "{text}");
}
