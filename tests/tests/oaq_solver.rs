//! The exact Ô Ăn Quan solver against a naive one written here (a hash map of every reachable
//! position, plain rounds of the RULES.md 3.9 equations over the whole graph), against the
//! search where the search reaches the end of every line, and end to end through the binary.

use retro_engine::oaq::{Oaq, OaqProfile, Position};
use retro_solver::oaq::big::solve_big;
use retro_solver::oaq::index::OaqIndex;
use retro_solver::oaq::search::{search, Limits};
use retro_solver::oaq::solve::solve;
use retro_solver::oaq::table::OaqProbe;
use retro_tables::oaq_table::{write, OaqHeader};
use retro_tests::{game_folder, retro, stderr, stdout};
use std::collections::HashMap;

fn game(seeds: &str) -> Oaq {
    let mut prof = OaqProfile::default();
    prof.set(&format!("seeds={seeds}")).unwrap();
    Oaq::new(prof)
}

/// `retro analyse oaq --json` under `rules` with the tables in `dir`.
fn analyse_json(dir: &str, rules: &str) -> std::process::Output {
    retro(
        &["analyse", "oaq", "--rule", rules, "--dir", dir, "--json"],
        None,
    )
}

/// A xorshift generator: reproducible random numbers for the tests.
fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// The position without what its stores say of the past: the seeds off the board all in South's
/// store (only their sum matters to the refill rule, and gains are differences).
fn strip(p: &Position) -> Position {
    let mut q = *p;
    q.stores = [p.stores[0] + p.stores[1], 0];
    q
}

/// Values of every reachable position by the definition, without any of the solver's machinery.
fn naive(g: &Oaq) -> HashMap<Position, i32> {
    const INF: i32 = 1 << 20;
    // The graph: children with gains, or the final collection.
    let mut ids: HashMap<Position, usize> = HashMap::new();
    let mut nodes: Vec<Position> = vec![strip(&g.start())];
    ids.insert(nodes[0], 0);
    let mut edges: Vec<Vec<(usize, i32)>> = Vec::new();
    let mut end: Vec<Option<i32>> = Vec::new();
    let mut i = 0;
    let mut list = Vec::new();
    while i < nodes.len() {
        let p = nodes[i];
        if let Some(f) = g.outcome(&p) {
            let s = p.side.index();
            // The final collection: what each store gains from here.
            let gain = |side: usize| (f.stores[side] - p.stores[side]) as i32;
            end.push(Some(gain(s) - gain(1 - s)));
            edges.push(Vec::new());
        } else {
            end.push(None);
            g.moves(&p, &mut list);
            let mut out = Vec::new();
            for (_, t) in &list {
                let q = strip(&t.position);
                let id = *ids.entry(q).or_insert_with(|| {
                    nodes.push(q);
                    nodes.len() - 1
                });
                let gain = t.captured as i32 - if t.refilled { 5 } else { 0 };
                out.push((id, gain));
            }
            edges.push(out);
        }
        i += 1;
    }
    // P from below (endless play is a loss for the mover), M from above (a win), in rounds that
    // read only the previous round's values.
    let n = nodes.len();
    let mut p: Vec<i32> = end.iter().map(|e| e.unwrap_or(-INF)).collect();
    let mut m: Vec<i32> = end.iter().map(|e| e.unwrap_or(INF)).collect();
    loop {
        let (mut np, mut nm) = (p.clone(), m.clone());
        for v in 0..n {
            if end[v].is_some() {
                continue;
            }
            let sub = |g: i32, x: i32| {
                if x.abs() == INF {
                    -x
                } else {
                    g - x
                }
            };
            np[v] = edges[v].iter().map(|&(c, g)| sub(g, m[c])).max().unwrap();
            nm[v] = edges[v].iter().map(|&(c, g)| sub(g, p[c])).max().unwrap();
        }
        if np == p && nm == m {
            break;
        }
        p = np;
        m = nm;
    }
    nodes
        .iter()
        .enumerate()
        .map(|(v, q)| {
            let value = if p[v] > 0 {
                p[v]
            } else if m[v] < 0 {
                m[v]
            } else {
                0
            };
            (*q, value)
        })
        .collect()
}

#[test]
fn solver_agrees_with_the_naive_solver_on_every_position() {
    // The smallest configuration by default; `RETRO_OAQ_NAIVE=1,0;1,1` checks more (1,1: 3.1
    // million positions, about a minute).
    let configs = std::env::var("RETRO_OAQ_NAIVE").unwrap_or_else(|_| "1,0".to_string());
    for seeds in configs.split(';') {
        let g = game(seeds);
        let solved = solve(&g, &()).unwrap();
        let expected = naive(&g);
        assert_eq!(solved.stats.positions, expected.len() as u64, "{seeds}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.rtb");
        let header = OaqHeader::from_values(&g.profile.fingerprint(), [1, 0], &solved.values);
        write(&path, &header, &solved.values).unwrap();
        let table = retro_tests::open_oaq_table(&path).unwrap();
        assert_eq!(table.header.positions(), expected.len() as u64);
        let idx = OaqIndex::new(&g);
        let mut differ = 0;
        for (p, v) in &expected {
            if table.value(&g, &idx, p).unwrap() != Some(*v as i16) {
                differ += 1;
            }
        }
        assert_eq!(differ, 0, "{seeds}: {differ} positions differ");
        assert_eq!(solved.start as i32, expected[&strip(&g.start())]);
        // The compact table of the second solver (what `retro solve oaq` writes) agrees too.
        let big = solve_big(&g, &(), None).unwrap();
        let cpath = dir.path().join("compact.rtb");
        big.write_compact(&g, &cpath).unwrap();
        let compact = retro_tests::open_oaq_table(&cpath).unwrap();
        assert_eq!(compact.header.positions(), expected.len() as u64);
        assert!(compact.header.stored() < expected.len() as u64 * 3 / 4);
        let differ = expected
            .iter()
            .filter(|&(p, v)| compact.value(&g, &idx, p).unwrap() != Some(*v as i16))
            .count();
        assert_eq!(
            differ, 0,
            "{seeds}: {differ} positions differ in the compact table"
        );
        eprintln!(
            "seeds={seeds}: {} positions agree, start {}",
            expected.len(),
            solved.start
        );
    }
}

#[test]
fn proven_search_results_equal_the_table() {
    let g = game("1,1");
    let solved = solve(&g, &()).unwrap();
    let idx = OaqIndex::new(&g);
    // Positions from random playouts, searched to the end where every line ends.
    let mut next = xorshift(0x2545_F491_4F6C_DD1D);
    let (mut checked, mut tried, mut list) = (0, 0, Vec::new());
    while tried < 400 {
        let mut p = g.start();
        let plies = 4 + next() % 40;
        for _ in 0..plies {
            g.moves(&p, &mut list);
            if list.is_empty() {
                break;
            }
            p = list[(next() % list.len() as u64) as usize].1.position;
        }
        if g.outcome(&p).is_some() {
            continue;
        }
        tried += 1;
        let r = search(
            &g,
            &p,
            Limits {
                depth: 14,
                time: None,
            },
        )
        .unwrap();
        if r.proven {
            let v = solved.values[idx.rank(&strip(&p)) as usize];
            assert_eq!(r.score, v as i32, "{}", g.format_position(&p));
            checked += 1;
        }
    }
    eprintln!("{tried} positions searched, {checked} proven and equal to the table");
    assert!(checked >= 10, "{checked}");
}

#[test]
fn solve_analyse_verify_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let solve = |extra: &[&str]| {
        let mut args = vec![
            "solve",
            "oaq",
            "--rule",
            "seeds=1,0",
            "--dir",
            d,
            "--json",
            "-q",
        ];
        args.extend_from_slice(extra);
        let out = retro(&args, None);
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_str::<serde_json::Value>(stdout(&out).trim()).unwrap()
    };
    // A dry run plans and writes nothing.
    let plan = solve(&["--dry-run"]);
    assert_eq!(plan["table_exists"], false);
    assert_eq!(std::fs::read_dir(d).unwrap().count(), 0, "a dry run wrote");
    let first = solve(&[]);
    assert_eq!(first["reused"], false);
    // Its slot counts hold what the solve found: every position, every canonical one.
    let dense = plan["dense_slots"].as_u64().unwrap();
    let canonical = plan["canonical_slots"].as_u64().unwrap();
    assert!(first["positions"].as_u64().unwrap() <= dense, "{plan}");
    assert!(
        first["canonical_positions"].as_u64().unwrap() <= canonical,
        "{plan}"
    );
    assert_eq!(canonical, dense / 2 + 1, "{plan}");
    assert_eq!(solve(&["--dry-run"])["table_exists"], true);
    let expected = naive(&game("1,0"));
    assert_eq!(first["positions"], expected.len() as u64);
    let start = first["start_value"].as_i64().unwrap();
    assert_eq!(start as i32, expected[&strip(&game("1,0").start())]);
    let again = solve(&[]);
    assert_eq!(again["reused"], true);
    assert_eq!(again["start_value"], start);

    // Analysis answers from the table, proven, for the start and for any position of the game.
    let out = analyse_json(d, "seeds=1,0");
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["source"], "table");
    assert_eq!(v["proven"], true);
    assert_eq!(v["score"], start);
    assert_eq!(v["moves"].as_array().unwrap().len(), 10);
    let verify = retro(&["verify", "--dir", d], None);
    assert!(verify.status.success(), "{}", stdout(&verify));
    assert!(stdout(&verify).contains("Ô Ăn Quan"));

    // Other rules do not read this table: they search.
    let out = retro(
        &[
            "analyse",
            "oaq",
            "--rule",
            "seeds=1,1",
            "--dir",
            d,
            "--json",
            "--depth",
            "4",
        ],
        None,
    );
    assert!(out.status.success());
    assert!(stdout(&out).contains("\"source\":\"search\""));

    // A damaged table is an error, never a value; a solve rebuilds it.
    let table = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("oaq-"))
        .unwrap()
        .path()
        .join("game.rtb");
    let good = std::fs::read(&table).unwrap();
    // A flipped byte where the start position's value lies (the last value: the start has the
    // last canonical slot) is an error; one elsewhere is found by `verify`.
    let h = OaqHeader::decode(std::path::Path::new("t"), &good).unwrap();
    let dir_len = retro_tables::ranked_view::blocks_for(h.canonical_slots) as usize * 64;
    let start_value = retro_tables::format::HEADER_SIZE + dir_len + h.stored() as usize - 1;
    for (at, analyse_fails) in [(start_value, true), (600, false)] {
        let mut bad = good.clone();
        bad[at] ^= 1;
        std::fs::write(&table, &bad).unwrap();
        let out = analyse_json(d, "seeds=1,0");
        assert_eq!(!out.status.success(), analyse_fails, "byte {at}");
        if analyse_fails {
            assert!(stderr(&out).contains("checksum"), "{}", stderr(&out));
        }
        let v = retro(&["verify", "--dir", d], None);
        assert!(!v.status.success(), "byte {at}");
        assert!(stdout(&v).contains("checksum"), "{}", stdout(&v));
    }
    std::fs::write(&table, &good[..good.len() - 7]).unwrap();
    let out = analyse_json(d, "seeds=1,0");
    assert!(!out.status.success());
    assert!(stderr(&out).contains("bytes"), "{}", stderr(&out));
    let rebuilt = solve(&[]);
    assert_eq!(rebuilt["reused"], false);
    assert_eq!(
        std::fs::read(&table).unwrap(),
        good,
        "rebuilt table differs"
    );

    // A table copied under other rules' folder is refused.
    let g11 = game("1,1");
    let other = dir
        .path()
        .join(format!(
            "oaq-{:016x}",
            retro_solver::sectors::db::fingerprint_hash(&g11.profile.fingerprint())
        ))
        .join("game.rtb");
    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
    std::fs::write(&other, &good).unwrap();
    let out = analyse_json(d, "seeds=1,1");
    assert!(!out.status.success());
    assert!(stderr(&out).contains("other rules"), "{}", stderr(&out));
}

/// Damages a good Ô Ăn Quan table in many ways (flipped bits, cuts, forged header fields and
/// values with the checksum recomputed) and checks that each is refused; returns the count.
/// `values` is where the values start, `width` their size and `forged` a value that changes the
/// recount (`value -> forged value`).
fn refuses_damage(
    good: &[u8],
    fields: &[usize],
    values: std::ops::Range<usize>,
    width: usize,
    forged: &dyn Fn(&[u8]) -> Vec<u8>,
) -> usize {
    use retro_tables::format::HEADER_SIZE;
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.rtb");
    // Refused when opened, or by `verify` (which reads every block and recounts).
    let refused = |bytes: &[u8]| {
        std::fs::write(&bad, bytes).unwrap();
        retro_tests::open_oaq_table(&bad)
            .and_then(|t| t.verify())
            .is_err()
    };
    assert!(!refused(good), "the good table is refused");
    let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
    let mut faults = 0;
    // Flipped bytes anywhere: the checksum (or the end marker) catches each.
    for _ in 0..300 {
        let mut b = good.to_vec();
        for _ in 0..1 + next() % 4 {
            let at = (next() % b.len() as u64) as usize;
            b[at] ^= 1 << (next() % 8);
        }
        if b != good {
            assert!(refused(&b), "a flipped byte was accepted");
            faults += 1;
        }
    }
    // Truncated and extended files.
    for cut in [
        0,
        10,
        HEADER_SIZE,
        HEADER_SIZE + 1,
        good.len() / 2,
        good.len() - 1,
    ] {
        assert!(refused(&good[..cut]), "truncated to {cut} bytes");
        faults += 1;
    }
    let mut longer = good.to_vec();
    longer.extend_from_slice(&[0; 8]);
    assert!(refused(&longer));
    // Forged header fields with a recomputed checksum: the counts, the length or the header
    // checks refuse them.
    let body_len = retro_tests::body_len(good);
    let resum = |b: &mut Vec<u8>| *b = retro_tests::reseal(b, body_len);
    for _ in 0..200 {
        let mut b = good.to_vec();
        let field = fields[(next() % fields.len() as u64) as usize];
        let delta = 1 + (next() % 3) as u8;
        b[field] = b[field].wrapping_add(delta);
        resum(&mut b);
        assert!(refused(&b), "forged header field at {field} was accepted");
        faults += 1;
    }
    // A value turned into another with the checksum recomputed: the recount catches a change of
    // sign class or of the extremes; a change within a class cannot be told from a real table,
    // which is what the checksum is for.
    for _ in 0..100 {
        let mut b = good.to_vec();
        let o =
            values.start + (next() % ((values.end - values.start) / width) as u64) as usize * width;
        let w = forged(&b[o..o + width]);
        b[o..o + width].copy_from_slice(&w);
        resum(&mut b);
        assert!(
            refused(&b),
            "value at {o}: {:?} -> {w:?} accepted",
            &good[o..o + width]
        );
        faults += 1;
    }
    faults
}

#[test]
fn damaged_oaq_tables_are_refused() {
    use retro_solver::oaq::ranked_bits::{blocks_for, BLOCK_BYTES};
    use retro_tables::format::HEADER_SIZE;
    use retro_tables::oaq_compact;
    let g = game("1,0");
    let solved = solve(&g, &()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.rtb");
    let header = OaqHeader::from_values(&g.profile.fingerprint(), [1, 0], &solved.values);
    write(&path, &header, &solved.values).unwrap();
    let dense = std::fs::read(&path).unwrap();
    let fields = [8usize, 12, 20, 24, 32, 40, 48, 56, 64, 66, 68];
    let values = HEADER_SIZE..HEADER_SIZE + retro_tests::body_len(&dense);
    let to_unreachable = |v: &[u8]| {
        let v = i16::from_le_bytes([v[0], v[1]]);
        let w: i16 = if v == i16::MIN { 0 } else { i16::MIN };
        w.to_le_bytes().to_vec()
    };
    let mut faults = refuses_damage(&dense, &fields, values, 2, &to_unreachable);
    // The compact table `retro solve oaq` writes.
    let big = solve_big(&g, &(), None).unwrap();
    let cpath = dir.path().join("compact.rtb");
    let ch = big.write_compact(&g, &cpath).unwrap();
    let compact = std::fs::read(&cpath).unwrap();
    let dir_end = HEADER_SIZE + blocks_for(ch.canonical_slots) as usize * BLOCK_BYTES;
    let values = dir_end..dir_end + ch.stored() as usize;
    let fields = [8usize, 12, 20, 24, 32, 40, 48, 56, 64, 66, 68, 80];
    let out_of_range = |v: &[u8]| vec![if v[0] == 0x80 { 0 } else { 0x80 }];
    faults += refuses_damage(&compact, &fields, values, 1, &out_of_range);
    // A directory bit or count changed, with the checksum recomputed.
    let body_end = HEADER_SIZE + retro_tests::body_len(&compact);
    let mut next = xorshift(0x2545_F491_4F6C_DD1D);
    for _ in 0..100 {
        let mut b = compact.clone();
        let at = HEADER_SIZE + (next() % (dir_end - HEADER_SIZE) as u64) as usize;
        b[at] ^= 1 << (next() % 8);
        let b = retro_tests::reseal(&b, body_end - HEADER_SIZE);
        let bad = dir.path().join("bad-dir.rtb");
        std::fs::write(&bad, &b).unwrap();
        assert!(
            retro_tests::open_oaq_table(&bad)
                .and_then(|t| t.verify())
                .is_err(),
            "directory byte {at} changed and accepted"
        );
        faults += 1;
    }
    assert_eq!(
        oaq_compact::body_len(&ch),
        Some((body_end - HEADER_SIZE) as u64)
    );
    eprintln!("{faults} damaged Ô Ăn Quan tables refused");
}

#[test]
fn a_killed_solve_resumes_from_its_checkpoint() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let run = |dir: &std::path::Path| {
        Command::new(retro_tests::retro_bin())
            .args(["solve", "oaq", "--rule", "seeds=1,1", "-q", "--dir"])
            .arg(dir)
            .env("RETRO_TIMING", "1")
            .env("RETRO_CHECKPOINT_SECS", "0")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let sweeps = |text: &str| -> Vec<u32> {
        text.lines()
            .filter_map(|l| l.strip_prefix("sweep "))
            .filter_map(|l| l.split(':').next()?.parse().ok())
            .collect()
    };
    let dir = tempfile::tempdir().unwrap();
    let mut child = run(dir.path());
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        assert!(err.read_line(&mut line).unwrap() > 0, "solve ended early");
        if sweeps(&line).first().is_some_and(|&s| s >= 5) {
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let folder = game_folder(dir.path());
    assert!(folder.join("game.ckpt").exists());
    assert!(!folder.join("game.rtb").exists());
    // Again: it goes on from a checkpoint (the first sweep it prints is not the first), and
    // ends with the table an uninterrupted solve writes.
    let out = run(dir.path()).wait_with_output().unwrap();
    assert!(out.status.success());
    let resumed = sweeps(&String::from_utf8_lossy(&out.stderr));
    assert!(resumed[0] > 1, "{resumed:?}");
    assert!(!folder.join("game.ckpt").exists());
    let fresh = tempfile::tempdir().unwrap();
    let solve = retro(
        &[
            "solve",
            "oaq",
            "--rule",
            "seeds=1,1",
            "-q",
            "--dir",
            fresh.path().to_str().unwrap(),
        ],
        None,
    );
    assert!(solve.status.success());
    let name = folder.file_name().unwrap();
    assert_eq!(
        std::fs::read(folder.join("game.rtb")).unwrap(),
        std::fs::read(fresh.path().join(name).join("game.rtb")).unwrap()
    );
    // A damaged checkpoint is not trusted: the solve starts over and still gets it right.
    let ckpt = folder.join("game.ckpt");
    std::fs::write(&ckpt, b"RETROCK1 not really").unwrap();
    std::fs::remove_file(folder.join("game.rtb")).unwrap();
    let out = run(dir.path()).wait_with_output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(sweeps(&err)[0], 1);
    // ... and says so, even under --quiet.
    assert!(
        err.contains("game.ckpt not used: not a checkpoint of this solver"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(folder.join("game.rtb")).unwrap(),
        std::fs::read(fresh.path().join(name).join("game.rtb")).unwrap()
    );
}

#[test]
fn a_dense_table_of_an_earlier_version_is_rewritten_compact() {
    for seeds in ["1,0", "1,1"] {
        let g = game(seeds);
        let solved = solve(&g, &()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let folder = format!(
            "oaq-{:016x}",
            retro_solver::sectors::db::fingerprint_hash(&g.profile.fingerprint())
        );
        let path = dir.path().join(&folder).join("game.rtb");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let seeds_at_start = [g.profile.citizen_seeds, g.profile.mandarin_start()];
        let header =
            OaqHeader::from_values(&g.profile.fingerprint(), seeds_at_start, &solved.values);
        write(&path, &header, &solved.values).unwrap();
        let dense_len = std::fs::metadata(&path).unwrap().len();
        let rules = format!("seeds={seeds}");
        let solve_json = |d: &std::path::Path| {
            let out = retro(
                &[
                    "solve",
                    "oaq",
                    "--rule",
                    &rules,
                    "--dir",
                    d.to_str().unwrap(),
                    "--json",
                    "-q",
                ],
                None,
            );
            assert!(out.status.success(), "{}", stderr(&out));
            serde_json::from_str::<serde_json::Value>(stdout(&out).trim()).unwrap()
        };
        let v = solve_json(dir.path());
        assert_eq!(v["reused"], true);
        assert_eq!(v["format"], "compact");
        assert_eq!(v["converted_from_dense_bytes"], dense_len);
        assert_eq!(v["start_value"], solved.start);
        assert_eq!(v["positions"], solved.stats.positions);
        // The same file a solve writes, byte for byte.
        let fresh = tempfile::tempdir().unwrap();
        let w = solve_json(fresh.path());
        assert_eq!(w["reused"], false);
        let converted = std::fs::read(&path).unwrap();
        let solved_file = std::fs::read(fresh.path().join(&folder).join("game.rtb")).unwrap();
        assert!(
            converted == solved_file,
            "{seeds}: converted table differs from a solved one"
        );
        assert!((converted.len() as u64) < dense_len / 4, "{seeds}");
        // Kept as it is the next time.
        let again = solve_json(dir.path());
        assert_eq!(again["reused"], true);
        assert!(again.get("converted_from_dense_bytes").is_none());
    }
}

/// A dense table whose values pass the range a table may store (so that a move's gain minus a
/// stored value could leave `i16`) is refused when opened, whatever its counts and checksum
/// say; values at the bound are accepted.
#[test]
fn dense_values_beyond_the_stored_range_are_refused() {
    use retro_tables::oaq_table::{MAX_VALUE, UNREACHABLE};
    let g = game("1,0");
    let solved = solve(&g, &()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.rtb");
    let at = solved
        .values
        .iter()
        .position(|&v| v != UNREACHABLE)
        .expect("a reachable slot");
    let mut refused = 0;
    for (v, ok) in [
        (MAX_VALUE, true),
        (-MAX_VALUE, true),
        (MAX_VALUE + 1, false),
        (-MAX_VALUE - 1, false),
        (i16::MAX, false),
        (i16::MIN + 1, false),
    ] {
        let mut values = solved.values.clone();
        values[at] = v;
        let header = OaqHeader::from_values(&g.profile.fingerprint(), [1, 0], &values);
        write(&path, &header, &values).unwrap();
        match retro_tests::open_oaq_table(&path) {
            Ok(_) => assert!(ok, "{v} accepted"),
            Err(e) => {
                assert!(!ok, "{v}: {e}");
                let e = e.to_string();
                assert!(e.contains("game.rtb") && e.contains("±16000"), "{e}");
                refused += 1;
            }
        }
    }
    eprintln!("{refused} out-of-range dense values refused");
}

/// A solve that stops because a value passed the one-byte range leaves no table, and removes
/// its checkpoint (a rerun from it would stop the same way) after saying why.
#[test]
fn a_value_beyond_the_range_stops_the_solve_and_removes_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(retro_tests::retro_bin())
        .args([
            "solve",
            "oaq",
            "--rule",
            "seeds=1,0",
            "--rule",
            "big-mandarin=50",
        ])
        .args(["-q", "--dir"])
        .arg(dir.path())
        .env("RETRO_CHECKPOINT_SECS", "0")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("a value passed ±120 seeds"), "{err}");
    assert!(err.contains("checkpoint is removed"), "{err}");
    let folder = game_folder(dir.path());
    assert!(!folder.join("game.ckpt").exists());
    assert!(!folder.join("game.rtb").exists());
}

/// A solve that likely needs more memory than the machine has says so before it starts (the
/// dry run's figure), and still solves: the estimate is not a proof.
#[test]
fn a_solve_warns_when_memory_looks_short() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let run = |memory: u64| {
        std::process::Command::new(retro_tests::retro_bin())
            .args([
                "solve",
                "oaq",
                "--rule",
                "seeds=1,0",
                "--dir",
                d,
                "-q",
                "--json",
            ])
            .env("RETRO_AVAILABLE_MEMORY", memory.to_string())
            .output()
            .unwrap()
    };
    let plan = retro(
        &[
            "solve",
            "oaq",
            "--rule",
            "seeds=1,0",
            "--dir",
            d,
            "--dry-run",
            "--json",
        ],
        None,
    );
    let plan: serde_json::Value = serde_json::from_str(stdout(&plan).trim()).unwrap();
    let need = plan["sweeps_bytes_likely"].as_u64().unwrap();
    let short = run(need / 2);
    assert!(short.status.success(), "{}", stderr(&short));
    assert!(
        stderr(&short).contains("likely needs about"),
        "{}",
        stderr(&short)
    );
    std::fs::remove_dir_all(
        dir.path().join(
            std::fs::read_dir(d)
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
                .file_name(),
        ),
    )
    .unwrap();
    let enough = run(need * 2);
    assert!(enough.status.success(), "{}", stderr(&enough));
    assert!(
        !stderr(&enough).contains("likely needs"),
        "{}",
        stderr(&enough)
    );
}
