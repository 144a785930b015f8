//! `retro compress`: compressed tables decode to the raw tables' values slot by slot (Mill
//! placement, moving and flying sectors of Six Men's Morris, Dara endgames), answer `analyse`
//! byte for byte as the raw ones did, pass `verify`; `--wdl-only` keeps win/draw/loss alone;
//! a damaged compressed table is an error, never a wrong value. Derived tables (sectors whose
//! side to move has less material) give every slot's raw value by a one-ply search, and a solve
//! reads them through working copies.

use retro_tables::block_file::{
    CODER_DTM_RANS, CODER_DTM_RANS_MIX, CODER_RANS, CODER_RANS_MIX, CODER_ZSTD,
};
use retro_tables::compressed_table::CompressedTable;
use retro_tables::value::{Value, Wdl};
use retro_tests::{
    check_by_position, check_derived, folder_bytes, open_compressed, open_table, retro,
    solved_mill_with, stderr, stdout,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn sector_files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = retro_tables::verify::table_files(dir)
        .unwrap()
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("sector_")
        })
        .collect();
    out.sort();
    out
}

/// Every slot's code of every raw table, by the path without extension.
fn raw_codes(dir: &Path) -> BTreeMap<PathBuf, Vec<u16>> {
    sector_files(dir, "rtb")
        .into_iter()
        .map(|p| {
            let t = open_table(&p).unwrap();
            let codes = (0..t.header.slots).map(|s| t.code(s).unwrap()).collect();
            (p.with_extension(""), codes)
        })
        .collect()
}

/// Compares every slot holding a position; returns the slots compared. A win whose distance
/// the table leaves to a search (`Win(0)`) is only checked to be a win here (see
/// [`check_by_position`]).
fn compare(t: &CompressedTable, codes: &[u16], distances: bool) -> u64 {
    let mut n = 0;
    for b in 0..t.blocks() {
        for (i, got) in t.block_values(b).unwrap().into_iter().enumerate() {
            // Blocks hold the slots in the order the file stores them.
            let slot = t.stored_at(b * t.block_slots() + i as u64) as usize;
            let Some(want) = Value::decode(codes[slot]) else {
                continue;
            };
            if distances && got == Value::Win(0) {
                assert!(t.searches_wins() && want.wdl() == Wdl::Win, "slot {slot}");
                assert!(matches!(
                    t.value(slot as u64),
                    Err(retro_tables::TableError::Searched(..))
                ));
            } else if distances {
                assert_eq!(got, want, "slot {slot}");
                if slot.is_multiple_of(61) {
                    // The single-slot probe agrees with the block decode.
                    assert_eq!(t.value(slot as u64).unwrap(), Some(want), "slot {slot}");
                }
            } else {
                assert_eq!(got.result(), want.result(), "slot {slot}");
            }
            n += 1;
        }
    }
    n
}

/// `retro analyse mill --variant six-mens-morris --dir d` with one more argument.
fn analyse_six(d: &str, extra: &str) -> std::process::Output {
    let args = [
        "analyse",
        "mill",
        "--variant",
        "six-mens-morris",
        "--dir",
        d,
        extra,
    ];
    retro(&args, None)
}

/// A Dara position of the 3v3 table.
const DARA_FEN: &str = "WW.W../....../BB.B../....../...... w 0 0";

fn analyse_all(d: &str) -> Vec<String> {
    let runs: [&[&str]; 3] = [
        &[
            "analyse",
            "mill",
            "--variant",
            "six-mens-morris",
            "--dir",
            d,
            "--json",
        ],
        &[
            "analyse",
            "mill",
            "--variant",
            "six-mens-morris",
            "--dir",
            d,
            "--json",
            "--moves",
            "a5 b4 c5 d4 a1 e1",
        ],
        &["analyse", "dara", "--dir", d, "--json", "--fen", DARA_FEN],
    ];
    let mut out: Vec<String> = runs
        .iter()
        .map(|args| {
            let o = retro(args, None);
            assert!(o.status.success(), "{args:?}: {}", stderr(&o));
            stdout(&o)
        })
        .collect();
    // Random positions of every table, every move of each probed (`analyse --batch`).
    for (game, variant, count) in [("mill", "six-mens-morris", "4000"), ("dara", "", "600")] {
        let mut args = vec!["sample", game, "--dir", d, "--count", count];
        if !variant.is_empty() {
            args.extend(["--variant", variant]);
        }
        let sample = retro(&args, None);
        assert!(sample.status.success(), "{}", stderr(&sample));
        let fens = stdout(&sample);
        assert!(fens.lines().count() > 100, "{fens}");
        // A file, not stdin: a pipe both ways would fill up while the other end waits.
        let file = Path::new(d).join(format!("{game}.fens"));
        std::fs::write(&file, &fens).unwrap();
        let file = file.to_str().unwrap().to_string();
        args[0] = "analyse";
        args.truncate(4);
        args.extend(["--batch", &file]);
        if !variant.is_empty() {
            args.extend(["--variant", variant]);
        }
        let o = retro(&args, None);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let answers = stdout(&o);
        assert_eq!(answers.lines().count(), fens.lines().count());
        assert!(!answers.contains("\"error\""), "{answers}");
        out.push(answers);
    }
    out
}

/// Solves the whole of six-mens-morris and Dara's 3v4 sector into `d`, raw.
fn solve_six_mens_morris_and_dara_3v4(d: &str) {
    for args in [
        &[
            "solve",
            "mill",
            "--variant",
            "six-mens-morris",
            "--dir",
            d,
            "-q",
        ][..],
        &["solve", "dara", "--sector", "3,4,0,0", "--dir", d, "-q"][..],
    ] {
        let o = retro(args, None);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn compressed_tables_decode_to_the_raw_values_and_answer_alike() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    solve_six_mens_morris_and_dara_3v4(d);
    let raw = raw_codes(dir.path());
    assert!(raw.len() > 70, "{} tables", raw.len());
    let before = analyse_all(d);
    assert!(
        before.iter().all(|a| a.contains("\"plies\":")),
        "{before:?}"
    );

    let o = retro(&["compress", "--dir", d, "--json"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(report["tables"].as_array().unwrap().len(), raw.len());
    let (r, w, x) = (
        report["raw_bytes"].as_u64().unwrap(),
        report["wdl_bytes"].as_u64().unwrap(),
        report["dtm_bytes"].as_u64().unwrap(),
    );
    assert!(w + x < r / 4, "{w} + {x} of {r} bytes");
    assert!(
        sector_files(dir.path(), "rtb").is_empty(),
        "raw tables left"
    );

    let (mut slots, mut searched_total) = (0, 0);
    let (mut derived, mut searched) = (Vec::new(), Vec::new());
    for (stem, codes) in &raw {
        let p = stem.with_extension("rtbp");
        if p.exists() {
            // Every slot by search is the raw table's (Dara's 3v4, 9 million slots, every
            // 97th: each probe searches compressed tables).
            let stride = if codes.len() > 1 << 20 { 97 } else { 1 };
            slots += check_derived(&p, codes, stride);
            derived.push(p);
            continue;
        }
        let (wdl, dtm) = (stem.with_extension("rtbw"), stem.with_extension("rtbd"));
        let t = open_compressed(&wdl, Some(&dtm)).unwrap();
        slots += compare(&t, codes, true);
        // The report counts the searched wins: the slots that decode as searched.
        let searched_here = (0..t.blocks())
            .flat_map(|b| t.block_values(b).unwrap())
            .enumerate()
            .filter(|&(i, v)| {
                let slot = t.stored_at(i as u64) as usize;
                v == Value::Win(0) && Value::decode(codes[slot]).is_some()
            })
            .count() as u64;
        let row = report["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| Path::new(r["table"].as_str().unwrap()) == stem.with_extension("rtb"))
            .unwrap();
        assert_eq!(row["searched_wins"].as_u64(), Some(searched_here), "{row}");
        searched_total += searched_here;
        if t.searches_wins() {
            // Every slot by the solver's probe, which searches the searched wins (every 7th
            // of Dara's 3v3, 12 million slots: each is a search over compressed tables).
            let stride = if codes.len() > 1 << 20 { 7 } else { 1 };
            check_by_position(&wdl, codes, stride);
            searched.push(wdl);
        }
    }
    eprintln!(
        "{slots} slots of {} tables decode to the raw values ({} derived)",
        raw.len(),
        derived.len()
    );
    assert_eq!(report["derived"].as_u64(), Some(derived.len() as u64));
    assert!(searched_total > 0);
    assert_eq!(report["searched_wins"].as_u64(), Some(searched_total));
    // The sectors of equal material leave wins to a search (Six Men's Morris and Dara both).
    for game in ["mill-", "dara-"] {
        assert!(
            searched.iter().any(|p| p.to_string_lossy().contains(game)),
            "{game}: {searched:?}"
        );
    }
    for game in ["mill-", "dara-"] {
        let n = |v: &[PathBuf]| {
            v.iter()
                .filter(|p| p.to_string_lossy().contains(game))
                .count()
        };
        let stems: Vec<PathBuf> = raw.keys().cloned().collect();
        assert!(
            n(&derived) > 0 && n(&derived) < n(&stems),
            "{game}: {} derived of {}",
            n(&derived),
            n(&stems)
        );
    }
    assert_eq!(
        analyse_all(d),
        before,
        "analyse differs from the raw tables'"
    );
    let v = retro(&["verify", "--dir", d], None);
    assert!(v.status.success(), "{}", stdout(&v));
    // A damaged derived table is refused by verify and by a probe, naming the file.
    let good = std::fs::read(&derived[0]).unwrap();
    let mut bad = good.clone();
    bad[40] ^= 1;
    std::fs::write(&derived[0], &bad).unwrap();
    let v = retro(&["verify", "--dir", d], None);
    let name = derived[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    assert!(
        !v.status.success() && stdout(&v).contains(&name),
        "{}",
        stdout(&v)
    );
    std::fs::write(&derived[0], &good).unwrap();

    // Win/draw/loss alone.
    let o = retro(&["compress", "--dir", d, "--wdl-only"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(sector_files(dir.path(), "rtbd").is_empty());
    for (stem, codes) in &raw {
        if stem.with_extension("rtbp").exists() {
            continue;
        }
        let t = open_compressed(&stem.with_extension("rtbw"), None).unwrap();
        assert!(!t.has_distances());
        compare(&t, codes, false);
    }
    let v = retro(&["verify", "--dir", d], None);
    assert!(v.status.success(), "{}", stdout(&v));
    let o = analyse_six(d, "--json");
    assert!(o.status.success(), "{}", stderr(&o));
    // The same results, every move's too, and no distances.
    let wdl_only: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let full: serde_json::Value = serde_json::from_str(&before[0]).unwrap();
    assert_eq!(wdl_only["distances"], false);
    assert_eq!(wdl_only["result"], full["result"]);
    assert!(wdl_only["plies"].is_null());
    let results = |a: &serde_json::Value| -> Vec<(String, String)> {
        a["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["move"].to_string(), m["result"].to_string()))
            .collect()
    };
    assert_eq!(results(&wdl_only), results(&full));
    assert!(wdl_only["moves"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["plies"].is_null()));
    // Dara's analyse likewise: a position, and every sampled one with every move.
    let o = retro(
        &["analyse", "dara", "--dir", d, "--json", "--fen", DARA_FEN],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let dara: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let dara_full: serde_json::Value = serde_json::from_str(&before[2]).unwrap();
    assert_eq!(dara["distances"], false);
    assert_eq!(dara["source"], "tables");
    assert!(dara["plies"].is_null());
    assert_eq!(dara["result"], dara_full["result"]);
    let sorted = |a: &serde_json::Value| {
        let mut r = results(a);
        r.sort();
        r
    };
    assert_eq!(sorted(&dara), sorted(&dara_full));
    assert!(!dara["best"].as_array().unwrap().is_empty());
    let fens = Path::new(d).join("dara.fens");
    let args = ["analyse", "dara", "--dir", d, "--batch"];
    let o = retro(&[&args[..], &[fens.to_str().unwrap()]].concat(), None);
    assert!(o.status.success(), "{}", stderr(&o));
    let answers = stdout(&o);
    assert_eq!(answers.lines().count(), before[4].lines().count());
    for (a, b) in answers.lines().zip(before[4].lines()) {
        let (a, b): (serde_json::Value, serde_json::Value) = (
            serde_json::from_str(a).unwrap(),
            serde_json::from_str(b).unwrap(),
        );
        assert_eq!(a["distances"], false, "{a}");
        assert_eq!(
            (a["fen"].clone(), a["result"].clone()),
            (b["fen"].clone(), b["result"].clone())
        );
        assert_eq!(sorted(&a), sorted(&b), "{a}");
        assert!(a["moves"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["plies"].is_null()));
    }
    // Whatever needs distances says so.
    let o = analyse_six(d, "--pv");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("without distances"), "{}", stderr(&o));
    // Distance blocks larger than the win/draw/loss blocks are refused.
    let args = ["compress", "--dir", d, "--block-slots", "1024"];
    let o = retro(
        &[&args[..], &["--distance-block-slots", "2048"]].concat(),
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--distance-block-slots"),
        "{}",
        stderr(&o)
    );
    // Nothing left to do is said so, and is no failure (a second run); a folder without
    // tables is one.
    let o = retro(&["compress", "--dir", d], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("nothing to compress"), "{}", stdout(&o));
    let empty = tempfile::tempdir().unwrap();
    let o = retro(&["compress", "--dir", empty.path().to_str().unwrap()], None);
    assert!(!o.status.success() && stderr(&o).contains("nothing to compress"));
}

#[test]
fn damaged_compressed_tables_are_errors_never_values() {
    // Both win/draw/loss coders: rANS (what is written, with rANS distances or, as written
    // before, zstd ones; the first rANS coders too) and zstd (tables of before).
    for (coder, distances, single) in [
        ("rans", "rans", false),
        ("rans", "rans", true),
        ("rans", "zstd", false),
        ("zstd", "zstd", false),
    ] {
        damaged_tables_of(coder, distances, single);
    }
}

fn damaged_tables_of(coder: &str, distances: &str, single: bool) {
    let dir = solved_mill_with(&["--sector", "3,3,0,0"]);
    let d = dir.path().to_str().unwrap();
    let raw = raw_codes(dir.path());
    let (stem, codes) = raw.iter().next().unwrap();
    // Small blocks: more of them, so more index entries and block checks to damage.
    let args = [
        "compress",
        "--dir",
        d,
        "-q",
        "--block-slots",
        "1024",
        "--wdl-coder",
        coder,
        "--distance-coder",
        distances,
    ];
    let args = [&args[..], if single { &["--single-model"] } else { &[] }].concat();
    assert!(retro(&args, None).status.success());
    let (wdl, dtm) = (stem.with_extension("rtbw"), stem.with_extension("rtbd"));
    let t = open_compressed(&wdl, Some(&dtm)).unwrap();
    assert_eq!(t.block_slots(), 1024);
    let positions = codes
        .iter()
        .filter(|&&c| Value::decode(c).is_some())
        .count();
    assert_eq!(compare(&t, codes, true), positions as u64);
    drop(t);
    let good = [std::fs::read(&wdl).unwrap(), std::fs::read(&dtm).unwrap()];
    // The block coders in the headers (byte 76): rANS 4 and 5 (2 and 3 with one model),
    // zstd 1.
    let coders = [good[0][76], good[1][76]];
    match (coder, distances, single) {
        ("rans", "rans", false) => assert_eq!(coders, [4, 5]),
        ("rans", "rans", true) => assert_eq!(coders, [2, 3]),
        ("rans", _, _) => assert_eq!(coders, [4, 1]),
        _ => assert_eq!(coders, [1, 1]),
    }
    let probes: Vec<u64> = (0..codes.len() as u64).step_by(997).collect();
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut damaged, mut at_open, mut by_probe) = (0, 0, 0);
    for round in 0..600 {
        let which = round % 2;
        let mut bytes = good[which].clone();
        match next() % 4 {
            0 | 1 => {
                let at = (next() % bytes.len() as u64) as usize;
                bytes[at] ^= 1 << (next() % 8);
            }
            2 => bytes.truncate((next() % bytes.len() as u64) as usize),
            _ => bytes.extend_from_slice(&[0; 8]),
        }
        let path = if which == 0 { &wdl } else { &dtm };
        std::fs::write(path, &bytes).unwrap();
        damaged += 1;
        match open_compressed(&wdl, Some(&dtm)) {
            Err(e) => {
                assert!(e.to_string().contains("sector_3_3_0_0"), "{e}");
                at_open += 1;
            }
            Ok(t) => {
                let mut refused = false;
                // Each slot twice: under rANS the first probe of a sub-block decodes up to the
                // slot into the thread's cache, and later ones read from there or go on from it.
                for &s in probes.iter().flat_map(|s| [s, s]) {
                    match t.value(s) {
                        Ok(got) => {
                            if let Some(want) = Value::decode(codes[s as usize]) {
                                assert_eq!(got, Some(want), "round {round}: slot {s}");
                            }
                        }
                        Err(_) => refused = true,
                    }
                }
                by_probe += refused as u32;
                assert!(t.verify().is_err(), "round {round}: damage passes verify");
            }
        }
        std::fs::write(path, &good[which]).unwrap();
    }
    // 3v3 leaves wins to a search, its slots in the reflected order: its distance file is of
    // encoding 14 beside rANS (entries by sub-block), 12 beside zstd (by block), whose win
    // entries are h + 1, the wins' before the losses'. Relabelled as any other it would read
    // them otherwise: the header checksum refuses it.
    let want = if coder == "rans" { 14u32 } else { 12 };
    assert_eq!(good[1][20..24], want.to_le_bytes());
    assert_eq!(good[0][20..24], 10u32.to_le_bytes());
    for other in [14u32, 13, 12, 11, 9, 8, 7, 5]
        .into_iter()
        .filter(|&e| e != want)
    {
        let mut relabelled = good[1].clone();
        relabelled[20..24].copy_from_slice(&other.to_le_bytes());
        std::fs::write(&dtm, &relabelled).unwrap();
        let e = open_compressed(&wdl, Some(&dtm)).err().expect("refused");
        assert!(e.to_string().contains("sector_3_3_0_0"), "{other}: {e}");
    }
    std::fs::write(&dtm, &good[1]).unwrap();
    let v = retro(&["verify", "--dir", d], None);
    assert!(v.status.success(), "{}", stdout(&v));
    eprintln!(
        "{coder} / {distances}: {damaged} damaged compressed files: {at_open} refused at open, {by_probe} \
         more by a probe, all by verify"
    );
}

#[test]
fn solve_compress_writes_the_raw_values_compressed_and_resumes() {
    let (raw_dir, dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (r, d) = (
        raw_dir.path().to_str().unwrap(),
        dir.path().to_str().unwrap(),
    );
    let o = retro(
        &["solve", "mill", "--max-stones", "4", "--dir", r, "-q"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // First the 3v3 sector alone, compressed: the 4-stone sectors then read it as a resumed
    // solve would, through a raw working copy that goes once they are solved.
    let o = retro(
        &[
            "solve",
            "mill",
            "--max-stones",
            "3",
            "--dir",
            d,
            "-q",
            "--compress",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let first = sector_files(dir.path(), "rtbw");
    assert_eq!(first.len(), 1);
    let before = (
        std::fs::read(&first[0]).unwrap(),
        std::fs::read(first[0].with_extension("rtbd")).unwrap(),
    );
    let args = [
        "solve",
        "mill",
        "--max-stones",
        "4",
        "--dir",
        d,
        "--compress",
        "--compress-level",
        "1",
        "--json",
    ];
    let o = retro(&args, None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        sector_files(dir.path(), "rtb").is_empty(),
        "raw tables left"
    );
    let after = (
        std::fs::read(&first[0]).unwrap(),
        std::fs::read(first[0].with_extension("rtbd")).unwrap(),
    );
    assert!(before == after, "the 3v3 table was compressed again");
    let raw = raw_codes(raw_dir.path());
    assert_eq!(raw.len(), 4);
    let folder = sector_files(dir.path(), "rtbw")[0]
        .parent()
        .unwrap()
        .to_path_buf();
    for (stem, codes) in &raw {
        let base = folder.join(stem.file_name().unwrap());
        if base.with_extension("rtbp").exists() {
            check_derived(&base.with_extension("rtbp"), codes, 1);
            continue;
        }
        let t = open_compressed(
            &base.with_extension("rtbw"),
            Some(&base.with_extension("rtbd")),
        )
        .unwrap();
        compare(&t, codes, true);
    }
    // Run again: every sector is kept.
    let o = retro(&args, None);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let sectors = v["sectors"].as_array().unwrap();
    assert_eq!(sectors.len(), 4);
    assert!(sectors.iter().all(|s| s["reused"] == true), "{v}");
    // A resumed solve checks the checksums of the compressed tables it finds (it does not
    // decode them): a flipped byte in 3v3's distances has it solved and compressed again, to
    // the same bytes.
    let dtm = first[0].with_extension("rtbd");
    let mut bytes = std::fs::read(&dtm).unwrap();
    let at = 512 + (bytes.len() - 512) / 2;
    bytes[at] ^= 0x10;
    std::fs::write(&dtm, &bytes).unwrap();
    let o = retro(&args, None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("rebuilding"), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rebuilt: Vec<&serde_json::Value> = v["sectors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["reused"] == false)
        .collect();
    assert_eq!(rebuilt.len(), 1, "{v}");
    assert_eq!(rebuilt[0]["sector"], "3_3_0_0", "{v}");
    assert!(
        std::fs::read(&dtm).unwrap() == before.1,
        "3v3's distances differ"
    );
    // 3v4 is derived; 4v4 reads it. Solved again without --compress, 4v4 is the raw table
    // once more, read from a working copy of 3v4 that is gone afterwards.
    assert!(folder.join("sector_3_4_0_0.rtbp").exists());
    for ext in ["rtbw", "rtbd"] {
        std::fs::remove_file(folder.join("sector_4_4_0_0").with_extension(ext)).unwrap();
    }
    let o = retro(
        &["solve", "mill", "--max-stones", "4", "--dir", d, "-q"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let again = open_table(&folder.join("sector_4_4_0_0.rtb")).unwrap();
    let want = &raw[&raw_dir
        .path()
        .join(folder.file_name().unwrap())
        .join("sector_4_4_0_0")];
    assert!(again.codes().unwrap() == *want);
    assert_eq!(
        sector_files(dir.path(), "rtb").len(),
        1,
        "a working copy is left"
    );
    // 3v3 leaves wins to a search (encoding 7): a unit that reads it (3v4 captures into it)
    // reads a working copy whose searched wins are found again, even without --compress.
    let t = open_compressed(&first[0], Some(&first[0].with_extension("rtbd"))).unwrap();
    assert!(t.searches_wins());
    drop(t);
    std::fs::remove_file(folder.join("sector_3_4_0_0.rtbp")).unwrap();
    for ext in ["rtbw", "rtbd"] {
        std::fs::remove_file(folder.join("sector_4_3_0_0").with_extension(ext)).unwrap();
    }
    let o = retro(
        &["solve", "mill", "--max-stones", "4", "--dir", d, "-q"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    for s in ["sector_3_4_0_0", "sector_4_3_0_0"] {
        let t = open_table(&folder.join(s).with_extension("rtb")).unwrap();
        let want = &raw[&raw_dir.path().join(folder.file_name().unwrap()).join(s)];
        assert!(t.codes().unwrap() == *want, "{s}");
    }
    assert!(
        !folder.join("sector_3_3_0_0.rtb").exists(),
        "the working copy is left"
    );
}

/// A compressed table whose slots are stored in a well-formed order of other classes than its
/// sector's index (3v3: C(21, 18) = C(21, 3) slots a class, so the file alone looks fine) is
/// refused by every probe, never read in the wrong order.
#[test]
fn a_slot_order_of_other_classes_is_refused() {
    use retro_tables::compressed_table::{compress, Params};
    use retro_tables::slot_order::SlotOrder;
    let dir = solved_mill_with(&["--sector", "3,3,0,0"]);
    let d = dir.path().to_str().unwrap();
    let raw_path = sector_files(dir.path(), "rtb").pop().unwrap();
    let raw = open_table(&raw_path).unwrap();
    let (wdl, dtm) = (
        raw_path.with_extension("rtbw"),
        raw_path.with_extension("rtbd"),
    );
    let p = Params {
        order: SlotOrder::reflected(21, 18),
        ..Params::default()
    };
    compress(&raw, &wdl, Some(&dtm), p).unwrap();
    drop(raw);
    // The files alone are well formed: they open and verify.
    open_compressed(&wdl, Some(&dtm)).unwrap().verify().unwrap();
    std::fs::remove_file(&raw_path).unwrap();
    let o = retro(
        &["sample", "mill", "--dir", d, "--count", "10", "--time"],
        None,
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("order of other classes"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn verify_upgrade_writes_index_order_tables_in_the_reflected_order() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    solve_six_mens_morris_and_dara_3v4(d);
    let raw = raw_codes(dir.path());
    let o = retro(&["compress", "--dir", d, "--index-order", "-q"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let stored: Vec<PathBuf> = sector_files(dir.path(), "rtbw");
    let open = |wdl: &Path| open_compressed(wdl, Some(&wdl.with_extension("rtbd"))).unwrap();
    assert!(stored
        .iter()
        .all(|w| open(w).order().is_none() && open(w).wdl_coder() == CODER_ZSTD));
    assert!(stored.iter().any(|w| open(w).searches_wins()));
    let before = analyse_all(d);
    let bytes = |ext: &str| -> u64 {
        sector_files(dir.path(), ext)
            .iter()
            .map(|p| std::fs::metadata(p).unwrap().len())
            .sum()
    };
    let wdl_before = bytes("rtbw");

    // A killed reorder: a raw copy beside a pair whose files disagree (the win/draw/loss file
    // rewritten, the distances not yet). Probes read the copy; the upgrade finishes it.
    let victim = stored
        .iter()
        .max_by_key(|w| std::fs::metadata(w).unwrap().len())
        .unwrap()
        .clone();
    let victim_dtm = std::fs::read(victim.with_extension("rtbd")).unwrap();
    let o = retro(&["verify", "--dir", d, "--upgrade", "--json"], None);
    assert!(o.status.success(), "{}", stdout(&o));
    let report: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let reordered = report["tables"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["reordered"] == true)
        .count();
    assert_eq!(reordered, stored.len());
    let check = || {
        assert!(
            sector_files(dir.path(), "rtb").is_empty(),
            "raw copies left"
        );
        for w in &stored {
            let t = open(w);
            let stem = w.with_extension("");
            assert!(t.order().is_some(), "{} not reordered", w.display());
            assert_eq!(t.wdl_coder(), CODER_RANS_MIX, "{}", w.display());
            assert_eq!(
                t.distance_coder(),
                Some(CODER_DTM_RANS_MIX),
                "{}",
                w.display()
            );
            compare(&t, &raw[&stem], true);
        }
    };
    check();
    assert_eq!(analyse_all(d), before);
    assert!(
        bytes("rtbw") < wdl_before,
        "{} >= {wdl_before}",
        bytes("rtbw")
    );

    let stem = victim.with_extension("");
    let raw_file = stem.with_extension("rtb");
    retro_tables::sector_table::write(&raw_file, &open(&victim).header, &raw[&stem]).unwrap();
    std::fs::write(victim.with_extension("rtbd"), &victim_dtm).unwrap();
    let o = retro(&["verify", "--dir", d], None);
    assert!(!o.status.success(), "a pair in two orders verifies");
    assert_eq!(analyse_all(d), before, "probes read the raw copy");
    let o = retro(&["verify", "--dir", d, "--upgrade"], None);
    assert!(o.status.success(), "{}", stdout(&o));
    check();
    let o = retro(&["verify", "--dir", d, "--upgrade"], None);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(stdout(&o).contains(" 0 rewritten"), "{}", stdout(&o));
    assert_eq!(analyse_all(d), before);
}

/// Tables of the first rANS coders (2 and 3, one model a table, as written before December 5,
/// 2026) are coded again by `verify --upgrade` with coders 4 and 5 without a raw working copy:
/// every slot decodes to the raw value after, the files are smaller, the answers the same, and
/// a second upgrade has nothing to do.
#[test]
fn verify_upgrade_codes_the_first_rans_tables_again() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    solve_six_mens_morris_and_dara_3v4(d);
    let raw = raw_codes(dir.path());
    let o = retro(&["compress", "--dir", d, "--single-model", "-q"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let stored: Vec<PathBuf> = sector_files(dir.path(), "rtbw");
    let open = |wdl: &Path| {
        let dtm = wdl.with_extension("rtbd");
        open_compressed(wdl, dtm.exists().then_some(&dtm)).unwrap()
    };
    assert!(stored.iter().all(|w| open(w).wdl_coder() == CODER_RANS));
    assert!(stored
        .iter()
        .all(|w| open(w).distance_coder().is_none_or(|c| c == CODER_DTM_RANS)));
    let before = analyse_all(d);
    let total = || -> u64 {
        ["rtbw", "rtbd"]
            .iter()
            .flat_map(|e| sector_files(dir.path(), e))
            .map(|p| std::fs::metadata(p).unwrap().len())
            .sum()
    };
    let bytes_before = total();
    let o = retro(&["verify", "--dir", d, "--upgrade"], None);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(
        stdout(&o).contains(&format!(" {} rewritten", stored.len())),
        "{}",
        stdout(&o)
    );
    for w in &stored {
        let t = open(w);
        assert_eq!(t.wdl_coder(), CODER_RANS_MIX, "{}", w.display());
        if let Some(c) = t.distance_coder() {
            assert_eq!(c, CODER_DTM_RANS_MIX, "{}", w.display());
        }
        compare(&t, &raw[&w.with_extension("")], t.has_distances());
    }
    let left: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|f| f.unwrap().path())
        .filter(|p| p.is_dir())
        .flat_map(|p| std::fs::read_dir(p).unwrap())
        .map(|f| f.unwrap().path())
        .filter(|p| {
            p.to_string_lossy().ends_with(".upgrade") || p.extension().is_some_and(|e| e == "rtb")
        })
        .collect();
    assert!(left.is_empty(), "files left beside: {left:?}");
    assert!(total() < bytes_before, "{} >= {bytes_before}", total());
    assert_eq!(analyse_all(d), before);
    let o = retro(&["verify", "--dir", d, "--upgrade"], None);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(stdout(&o).contains(" 0 rewritten"), "{}", stdout(&o));
    assert!(retro(&["verify", "--dir", d], None).status.success());
}

/// Under rules where a side moves twice in a row (Black places last and moves first under
/// defender-first, as in experimental and da-san-qi), wins can take an even number of plies
/// and losses an odd one, which halves (`d >> 1`) would lose: `solve --compress` stores those
/// tables' distances in whole plies (header byte 123 of both files), and every slot decodes to
/// the raw value, da-san-qi's placing sectors with marked points included.
#[test]
fn tables_with_wins_of_even_plies_compress_to_the_raw_values() {
    for variant in ["experimental", "da-san-qi"] {
        let (raw_dir, dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let rules = [
            "mill",
            "--variant",
            variant,
            "--rule",
            "stones=5",
            "--rule",
            "board=morris16",
        ];
        let base = [&["solve"], &rules[..], &["-q", "--dir"]].concat();
        let o = retro(
            &[&base[..], &[raw_dir.path().to_str().unwrap()]].concat(),
            None,
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let d = dir.path().to_str().unwrap();
        let o = retro(&[&base[..], &[d, "--compress"]].concat(), None);
        assert!(o.status.success(), "{variant}: {}", stderr(&o));
        assert!(retro(&["verify", "--dir", d], None).status.success());
        let raw = raw_codes(raw_dir.path());
        let (mut whole, mut odd, mut compared) = (0, 0, 0);
        for w in sector_files(dir.path(), "rtbw") {
            let dtm = w.with_extension("rtbd");
            let flag = |p: &Path| std::fs::read(p).unwrap()[123];
            assert_eq!(flag(&w), flag(&dtm), "{}", w.display());
            let t = open_compressed(&w, Some(&dtm)).unwrap();
            let name = w.strip_prefix(dir.path()).unwrap().with_extension("");
            let codes = &raw[&raw_dir.path().join(&name)];
            let broken = codes.iter().any(|&c| match Value::decode(c) {
                Some(Value::Win(d)) => d % 2 == 0,
                Some(Value::Loss(d)) => d % 2 == 1,
                _ => false,
            });
            // Whole plies exactly where halves would lose the parity.
            assert_eq!(flag(&w) == 1, broken, "{}", w.display());
            whole += broken as u64;
            odd += codes
                .iter()
                .filter(|&&c| matches!(Value::decode(c), Some(Value::Win(d)) if d % 2 == 0))
                .count() as u64;
            compared += compare(&t, codes, true);
        }
        assert!(whole >= 10 && odd > 1000, "{variant}: {whole} {odd}");
        assert!(compared > 500_000, "{variant}: {compared}");
        // Positions drawn from every table, marked points included, agree with their moves
        // read from the compressed tables.
        let sample = [
            &["sample"],
            &rules[..],
            &["--dir", d, "--count", "4000", "--seed", "3"],
        ]
        .concat();
        let o = retro(&sample, None);
        assert!(o.status.success(), "{}", stderr(&o));
        let marked = stdout(&o)
            .lines()
            .filter(|l| l.split(' ').next().unwrap().contains('X'))
            .count();
        assert_eq!(marked > 100, variant == "da-san-qi", "{marked}");
        let o = retro(&[&sample[..], &["--check"]].concat(), None);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            stdout(&o).contains("4000 agree, 0 differ"),
            "{}",
            stdout(&o)
        );
    }
}

/// Solves Mill `rules` raw into one folder and again into another, compressed there by `solve
/// --compress` or, with `afterwards`, by `retro compress` over the raw solve; then `verify`
/// passes, every slot of every compressed table decodes to the raw value (a searched win to a
/// win), and 6,000 sampled positions agree with their moves (`sample --check`, which searches
/// the searched wins). Returns the slots compared and the tables with searched wins.
fn compressed_agrees_with_raw(rules: &[&str], afterwards: bool) -> (u64, u64) {
    let (raw_dir, dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let rules = [&["mill"], rules].concat();
    let base = [&["solve"], &rules[..], &["-q", "--dir"]].concat();
    let (raw, d) = (
        raw_dir.path().to_str().unwrap(),
        dir.path().to_str().unwrap(),
    );
    assert!(retro(&[&base[..], &[raw]].concat(), None).status.success());
    let o = if afterwards {
        assert!(retro(&[&base[..], &[d]].concat(), None).status.success());
        retro(&["compress", "--dir", d, "-q"], None)
    } else {
        retro(&[&base[..], &[d, "--compress"]].concat(), None)
    };
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(retro(&["verify", "--dir", d], None).status.success());
    let raw = raw_codes(raw_dir.path());
    let (mut compared, mut searched) = (0, 0);
    for w in sector_files(dir.path(), "rtbw") {
        let t = open_compressed(&w, Some(&w.with_extension("rtbd"))).unwrap();
        let name = w.strip_prefix(dir.path()).unwrap().with_extension("");
        compared += compare(&t, &raw[&raw_dir.path().join(&name)], true);
        searched += t.searches_wins() as u64;
    }
    let sample = [
        &["sample"],
        &rules[..],
        &["--dir", d, "--count", "6000", "--seed", "5", "--check"],
    ]
    .concat();
    let o = retro(&sample, None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("6000 agree, 0 differ"),
        "{}",
        stdout(&o)
    );
    (compared, searched)
}

/// Under `remove-per-mill`, captures from an equal-material sector reach sectors that keep
/// their values, so the solver's initialisation marks wins through them for a search; a pass
/// that then finds a win in one ply inside the unit (a move leaving the opponent no move) must
/// take the mark back: a one-ply win is never searched, and `solve --compress` refused its own
/// table ("a win whose distance is searched finds Some(1) plies").
#[test]
fn a_win_in_one_found_after_a_searched_choice_is_not_searched() {
    let rules = [
        "--variant",
        "six-mens-morris",
        "--rule",
        "remove-per-mill=true",
    ];
    let (compared, searched) = compressed_agrees_with_raw(&rules, false);
    assert!(compared > 200_000 && searched > 0, "{compared} {searched}");
}

/// A derived position's search asks of a move into a table with searched wins only whether its
/// win is above the loss found so far; that floor may pass the table's longest win, and the
/// scan, stopped early at a distance below the floor, was taken for a corrupt table (Lasker
/// moves while placing, stones in mills removable, 6 stones on 16 points: `retro compress`
/// and `solve --compress` both failed).
#[test]
fn a_search_stopped_early_above_a_tables_longest_win_is_no_corruption() {
    let rules = [
        "--variant",
        "six-mens-morris",
        "--rule",
        "move-in-placing=true",
        "--rule",
        "remove-from-mills=true",
    ];
    for afterwards in [true, false] {
        let (compared, searched) = compressed_agrees_with_raw(&rules, afterwards);
        assert!(
            compared > 1_000_000 && searched > 0,
            "{compared} {searched}"
        );
    }
}

/// `solve --compress --raw-budget`: tables units to come still read are compressed early (every
/// value kept), read back through working copies and given their final form after their last
/// reader. With a budget far below any table the finished folder is byte for byte the one
/// without a budget; killed as soon as it has compressed a table early, the solve resumes to
/// the same folder.
#[test]
fn a_raw_budget_compresses_early_and_finishes_with_the_same_tables() {
    let args = |d: &str| {
        [
            "solve",
            "mill",
            "--variant",
            "six-mens-morris",
            "--compress",
            "--dir",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([d.to_string()])
        .collect::<Vec<_>>()
    };
    let run = |d: &str, extra: &[&str]| {
        let a = args(d);
        let a: Vec<&str> = a
            .iter()
            .map(String::as_str)
            .chain(extra.iter().copied())
            .collect();
        retro(&a, None)
    };
    let (plain, tight) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let o = run(plain.path().to_str().unwrap(), &["-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let want = folder_bytes(plain.path());
    let o = run(tight.path().to_str().unwrap(), &["--raw-budget", "0.0001"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Sectors compressed twice: early, then in their final form.
    let mut seen = BTreeMap::new();
    for l in stderr(&o).lines() {
        if let Some(rest) = l.strip_prefix("compressed ") {
            *seen
                .entry(rest.split(':').next().unwrap().to_string())
                .or_insert(0) += 1;
        }
    }
    let twice = seen.values().filter(|&&n| n == 2).count();
    assert!(twice >= 10, "{seen:?}");
    assert_eq!(folder_bytes(tight.path()), want);
    // `--dry-run` follows the same policy: as many tables compressed early (a derivable one is
    // compressed early, then derived), under this budget and under one that keeps some raw
    // tables (a third of the raw peak: which tables go, and in what order, then matters), and a
    // lower disk peak than without a budget.
    let early_of = |log: &str| {
        let mut n = BTreeMap::new();
        for l in log.lines() {
            if let Some(rest) = l.strip_prefix("compressed ").or(l.strip_prefix("derived ")) {
                *n.entry(rest.split(':').next().unwrap().to_string())
                    .or_insert(0) += 1;
            }
        }
        n.values().filter(|&&n| n == 2).count() as u64
    };
    let plan = |budget: &str| {
        let fresh = tempfile::tempdir().unwrap();
        let o = run(
            fresh.path().to_str().unwrap(),
            &["--raw-budget", budget, "--dry-run", "--json"],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let all = early_of(&stderr(&o));
    // A dry run in the finished folder counts its tables as room the peak may take, and keeps
    // the default share (far less than a GiB of tables measured).
    let o = run(plain.path().to_str().unwrap(), &["--dry-run", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let resumed: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let held: usize = want
        .iter()
        .filter(|(name, _)| !name.ends_with(".marks"))
        .map(|(_, b)| b.len())
        .sum();
    assert_eq!(
        resumed["held_bytes"].as_u64(),
        Some(held as u64),
        "{resumed}"
    );
    assert_eq!(resumed["compressed_share"].as_f64(), Some(0.2), "{resumed}");
    assert!(resumed["compressed_share_measured"].is_null(), "{resumed}");
    let tiny = plan("0.0001");
    assert_eq!(tiny["raw_budget_early_tables"].as_u64(), Some(all));
    let peak = tiny["raw_budget_peak_bytes"].as_u64().unwrap();
    assert!(
        peak < tiny["compress_peak_bytes"].as_u64().unwrap(),
        "{tiny}"
    );
    let third = tiny["compress_raw_peak_bytes"].as_u64().unwrap() as f64 / 3.0;
    let third = format!("{:.9}", third / (1u64 << 30) as f64);
    let middle = plan(&third);
    let some = middle["raw_budget_early_tables"].as_u64().unwrap();
    assert!(some > 0 && some < all, "{middle}");
    let solved = tempfile::tempdir().unwrap();
    let o = run(solved.path().to_str().unwrap(), &["--raw-budget", &third]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(early_of(&stderr(&o)), some);
    assert_eq!(folder_bytes(solved.path()), want);
    // Killed once a table has been compressed early, then resumed.
    let killed = tempfile::tempdir().unwrap();
    let d = killed.path().to_str().unwrap();
    let a = args(d);
    let mut child = std::process::Command::new(retro_tests::retro_bin())
        .args(&a)
        .args(["--raw-budget", "0.0001", "-q"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let early = |dir: &Path| {
        std::fs::read_dir(dir).unwrap().any(|e| {
            let p = e.unwrap().path();
            p.is_dir() && p.join("early-compressed.txt").exists()
        })
    };
    let mut caught = false;
    while child.try_wait().unwrap().is_none() {
        if early(killed.path()) {
            child.kill().unwrap();
            caught = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    child.wait().unwrap();
    // The list stays while tables compressed early wait for their final form: most of the
    // solve.
    assert!(
        caught,
        "the solve ended before a table was compressed early"
    );
    let o = run(d, &["--raw-budget", "0.0001", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(folder_bytes(killed.path()), want);
}
