//! `retro sample`: random legal positions from the tables found, the same for the same seed,
//! restricted to the sectors asked for; missing tables and games without sector tables are
//! input errors.

use retro_tests::{retro, stderr, stdout};

fn sample(d: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["sample", "mill", "--dir", d];
    args.extend(extra);
    retro(&args, None)
}

/// Tables of nine-mens-morris's moving phase up to 4 against 4.
fn solved_moving_phase() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = retro(
        &["solve", "mill", "--max-stones", "4", "--dir", d, "-q"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    dir
}

#[test]
fn samples_are_legal_repeatable_and_where_asked() {
    let dir = solved_moving_phase();
    let d = dir.path().to_str().unwrap();

    let a = sample(d, &["--count", "500"]);
    assert!(a.status.success(), "{}", stderr(&a));
    let fens = stdout(&a);
    assert_eq!(fens.lines().count(), 500);
    assert_eq!(stdout(&sample(d, &["--count", "500"])), fens, "same seed");
    assert_ne!(
        stdout(&sample(d, &["--count", "500", "--seed", "2"])),
        fens,
        "another seed"
    );
    // Every table contributes: 3v3 up to 4v4 from both sides to move.
    let stones = |fen: &str| {
        let board = fen.split(' ').next().unwrap();
        (board.matches('O').count(), board.matches('@').count())
    };
    let mut seen: Vec<(usize, usize)> = fens.lines().map(stones).collect();
    seen.sort();
    seen.dedup();
    assert!(seen.len() >= 4, "{seen:?}");

    // Each line is a position the tables answer.
    let file = dir.path().join("sample.txt");
    std::fs::write(&file, &fens).unwrap();
    let o = retro(
        &[
            "analyse",
            "mill",
            "--dir",
            d,
            "--batch",
            file.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let answers = stdout(&o);
    assert_eq!(answers.lines().count(), 500);
    assert!(!answers.contains("\"error\""), "{answers}");

    // Fewer positions than tables: which tables give one is drawn with the seed, not the
    // first tables in order (3v3 always, before).
    let mut drawn: Vec<(usize, usize, bool)> = (1..=12)
        .map(|seed| {
            let o = sample(d, &["--count", "1", "--seed", &seed.to_string()]);
            assert!(o.status.success(), "{}", stderr(&o));
            let fen = stdout(&o);
            assert_eq!(fen.lines().count(), 1, "{fen}");
            let (w, b) = stones(&fen);
            (w, b, fen.split(' ').nth(1) == Some("w"))
        })
        .collect();
    drawn.sort();
    drawn.dedup();
    assert!(drawn.len() >= 3, "{drawn:?}");

    let only = sample(d, &["--count", "50", "--sector", "4,3,0,0"]);
    assert!(only.status.success(), "{}", stderr(&only));
    let fens = stdout(&only);
    assert_eq!(fens.lines().count(), 50);
    for fen in fens.lines() {
        let (w, b) = stones(fen);
        let white = fen.split(' ').nth(1) == Some("w");
        assert_eq!(if white { (w, b) } else { (b, w) }, (4, 3), "{fen}");
    }

    // A sector without a table is a missing table (exit 1, as `analyse` says of one); a
    // malformed sector is bad input (exit 2).
    for (extra, says, code) in [
        (
            &["--sector", "5,5,0,0"][..],
            "no table of sector 5,5,0,0",
            1,
        ),
        (&["--sector", "5,x"][..], "bad --sector", 2),
    ] {
        let o = sample(d, extra);
        assert_eq!(o.status.code(), Some(code), "{extra:?}");
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
    }
    // --time probes each position instead: raw tables here, then compressed and derived ones.
    let kinds = |o: &std::process::Output| -> serde_json::Value {
        assert!(o.status.success(), "{}", stderr(o));
        let v: serde_json::Value = serde_json::from_str(&stdout(o)).unwrap();
        let tables = v["tables"].as_array().unwrap();
        assert_eq!(tables.len(), 4, "{v}");
        for t in tables {
            assert_eq!(t["probes"], 100, "{t}");
            assert!(t["median_us"].as_f64().unwrap() <= t["p99_us"].as_f64().unwrap());
        }
        v["kinds"].clone()
    };
    let raw = kinds(&sample(d, &["--count", "400", "--time", "--json"]));
    assert_eq!(raw["raw"]["probes"], 400, "{raw}");
    let o = retro(&["compress", "--dir", d, "-q", "--level", "1"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let packed = kinds(&sample(d, &["--count", "400", "--time", "--json"]));
    assert_eq!(packed["compressed"]["probes"], 300, "{packed}");
    assert_eq!(packed["derived"]["probes"], 100, "{packed}");
    // --wdl times the result probe alone; "all" counts every probe of either.
    let o = sample(d, &["--count", "400", "--time", "--wdl", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        (v["probe"].as_str(), v["all"]["probes"].as_u64()),
        (Some("wdl"), Some(400)),
        "{v}"
    );
    assert_eq!(v["kinds"]["derived"]["probes"], 100, "{v}");
    // --warm probes each position once untimed and times a second probe: as many probes.
    let warm = kinds(&sample(
        d,
        &["--count", "400", "--time", "--warm", "--json"],
    ));
    assert_eq!(
        (
            warm["compressed"]["probes"].as_u64(),
            warm["derived"]["probes"].as_u64()
        ),
        (Some(300), Some(100)),
        "{warm}"
    );
    let o = sample(d, &["--count", "40", "--warm"]);
    assert_eq!(o.status.code(), Some(2), "--warm needs --time");
    let o = sample(d, &["--count", "40", "--wdl"]);
    assert_eq!(o.status.code(), Some(2), "--wdl needs --time");
    let o = sample(d, &["--count", "40", "--json"]);
    assert_eq!(o.status.code(), Some(2), "--json needs --time");

    // Ô Ăn Quan has no sector tables: not a value `sample` offers.
    let o = retro(&["sample", "oaq", "--dir", d], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("[possible values: mill, dara]"),
        "{}",
        stderr(&o)
    );
    let empty = tempfile::tempdir().unwrap();
    let o = sample(empty.path().to_str().unwrap(), &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no tables"), "{}", stderr(&o));
}

/// The path, header and codes of the 3_3_0_0 table under `dir`.
fn table_3v3(
    dir: &std::path::Path,
) -> (
    std::path::PathBuf,
    retro_tables::sector_table::Header,
    Vec<u16>,
) {
    let folder = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .unwrap();
    let path = folder.join("sector_3_3_0_0.rtb");
    // SAFETY: nothing writes the file while it is open; it is replaced by a rename after.
    let t = unsafe { retro_tables::sector_table::Table::open(&path) }.unwrap();
    let (header, codes) = (t.header.clone(), t.codes().unwrap());
    (path, header, codes)
}

/// `--check` compares each sampled position's value with the best of its moves' values: what a
/// solve writes agrees everywhere, and a table whose wins were lengthened (well formed,
/// checksums and all, so `verify` passes it) is caught. Dara's tables are checked the same way.
#[test]
fn check_compares_each_value_with_its_moves() {
    use retro_tables::sector_table::write;
    use retro_tables::value::{win, Value as V};
    let dir = solved_moving_phase();
    let d = dir.path().to_str().unwrap();
    let o = sample(d, &["--check", "--count", "4000", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["differ"], 0, "{v}");
    assert!(v["agree"].as_u64().unwrap() > 3000, "{v}");
    // Lengthen every win of 3_3_0_0 by two plies (the header's longest win with them).
    let (path, mut header, mut codes) = table_3v3(dir.path());
    let mut changed = 0;
    for c in codes.iter_mut() {
        if let Some(V::Win(n)) = V::decode(*c) {
            *c = win(n + 2);
            changed += 1;
        }
    }
    header.longest_win += 2;
    assert!(changed > 1000, "{changed}");
    write(&path, &header, &codes).unwrap();
    assert!(retro(&["verify", "--dir", d], None).status.success());
    let o = sample(d, &["--check", "--count", "2000", "--sector", "3,3,0,0"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("its moves give") && stderr(&o).contains("disagree"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).contains(" differ"), "{}", stdout(&o));
    // Dara.
    let dara = tempfile::tempdir().unwrap();
    let dd = dara.path().to_str().unwrap();
    let o = retro(
        &["solve", "dara", "--sector", "3,3,0,0", "--dir", dd, "-q"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = retro(
        &["sample", "dara", "--dir", dd, "--check", "--count", "2000"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("2000 agree, 0 differ"),
        "{}",
        stdout(&o)
    );
}

/// Tables without distances (`compress --wdl-only`): `--check` compares each result with the
/// best of its moves' results, and catches results swapped in a well-formed table; `--time`
/// times their probes.
#[test]
fn check_and_time_read_win_draw_loss_tables() {
    use retro_tables::sector_table::write;
    use retro_tables::value::Value as V;
    let dir = solved_moving_phase();
    let d = dir.path().to_str().unwrap();
    // Swap the codes of 300 wins and 300 losses of 3_3_0_0: the counts and longest distances
    // stay those of the header, so the table is well formed.
    let (path, header, mut codes) = table_3v3(dir.path());
    let of = |pick: fn(V) -> bool| -> Vec<usize> {
        let slots = (0..codes.len()).filter(|&i| V::decode(codes[i]).is_some_and(pick));
        slots.step_by(53).take(300).collect()
    };
    let (wins, losses) = (
        of(|v| matches!(v, V::Win(_))),
        of(|v| matches!(v, V::Loss(_))),
    );
    assert_eq!((wins.len(), losses.len()), (300, 300));
    for (&w, &l) in wins.iter().zip(&losses) {
        codes.swap(w, l);
    }
    write(&path, &header, &codes).unwrap();
    let o = retro(
        &["compress", "--dir", d, "--wdl-only", "--no-derive", "-q"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = sample(d, &["--time", "--count", "2000", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("compressed"), "{}", stdout(&o));
    // Without distances, what was timed is the result alone, and the report says so.
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["probe"], "wdl", "{v}");
    let o = sample(
        d,
        &[
            "--check", "--count", "3000", "--sector", "4,4,0,0", "--json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(
        (v["differ"].as_u64(), v["agree"].as_u64()),
        (Some(0), Some(3000)),
        "{v}"
    );
    let o = sample(d, &["--check", "--count", "3000", "--sector", "3,3,0,0"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stderr(&o).contains("its moves give"), "{}", stderr(&o));
    assert!(!stdout(&o).contains(" 0 differ"), "{}", stdout(&o));
}
