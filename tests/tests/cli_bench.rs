//! `retro bench` and `retro perft --no-bulk`: the suite's counts and signature against
//! `tests/data/bench.tsv`, and counting without bulk counting against counting with it.

use retro_tests::{data, parse_json, retro, stderr, stdout};
use serde_json::Value;

/// `(position, depth, nodes)` per line of `tests/data/bench.tsv`.
fn expected() -> Vec<(String, u64, u64)> {
    data("bench.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("position\t") && !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "row: {l}");
            (
                f[0].to_string(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect()
}

fn bench(extra: &[&str]) -> Value {
    let mut args = vec!["bench", "--json", "--threads", "2"];
    args.extend_from_slice(extra);
    let o = retro(&args, None);
    assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
    parse_json(&stdout(&o))
}

#[test]
fn bench_counts_and_signature_match_the_data_file() {
    let want = expected();
    let total: u64 = want.iter().map(|w| w.2).sum();
    for extra in [&[][..], &["--no-bulk"]] {
        let v = bench(extra);
        let lines = v["lines"].as_array().unwrap();
        let got: Vec<(String, u64, u64)> = lines
            .iter()
            .map(|l| {
                (
                    l["position"].as_str().unwrap().to_string(),
                    l["depth"].as_u64().unwrap(),
                    l["nodes"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(got, want, "{extra:?}");
        assert_eq!(v["nodes"], total, "{extra:?}");
        assert_eq!(v["signature"], total);
        assert_eq!(v["signature_ok"], true);
        assert_eq!(v["bulk"], extra.is_empty());
        assert!(v["nps"].as_u64().unwrap() > 0);
    }
    // The text form names the signature and the overall speed.
    let o = retro(&["bench", "--threads", "1"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(&format!("signature {total} (as expected)")),
        "{out}"
    );
    assert!(out.contains("M nodes/s overall"), "{out}");
}

#[test]
fn perft_without_bulk_counting_counts_the_same() {
    let cases: &[&[&str]] = &[
        &["mill", "--split", "--depth", "5"],
        &["mill", "--depth", "4"],
        &[
            "mill",
            "--split",
            "--depth",
            "4",
            "--variant",
            "lasker-morris",
        ],
        &[
            "mill",
            "--split",
            "--depth",
            "4",
            "--fen",
            "O*******/**O****O/***@**@@ w m s 3 0 3 0 0 0 0 0 0 0 0 0 1",
        ],
        &[
            "mill",
            "--split",
            "--depth",
            "5",
            "--fen",
            "O@O@*O@*/@O*O@*O@/*@O*@O*O w m r 9 0 8 0 1 0 0 0 0 0 0 0 1",
        ],
        &["oaq", "--depth", "6"],
        &["oaq", "--depth", "7", "--rule", "seeds=1,1"],
        &["dara", "--depth", "3"],
    ];
    for case in cases {
        let count = |no_bulk: bool| {
            let mut args = vec!["perft"];
            args.extend_from_slice(case);
            args.push("--json");
            if no_bulk {
                args.push("--no-bulk");
            }
            let o = retro(&args, None);
            assert!(o.status.success(), "{args:?}: {}", stderr(&o));
            parse_json(&stdout(&o))["nodes"].as_u64().unwrap()
        };
        let bulk = count(false);
        assert!(bulk > 100, "{case:?}");
        assert_eq!(count(true), bulk, "{case:?}");
    }
    // The text report says how it counted.
    let o = retro(
        &["perft", "mill", "--split", "--depth", "3", "--no-bulk"],
        None,
    );
    assert!(
        stdout(&o).contains("every step of the last ply made"),
        "{}",
        stdout(&o)
    );
}
