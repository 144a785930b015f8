//! End-to-end tests of `retro solve`, `retro analyse` and `retro verify`.

use retro_tests::{retro, stderr, stdout};
use serde_json::Value;

fn json(s: &str) -> Value {
    serde_json::from_str(s.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {s}"))
}

#[test]
fn solve_analyse_verify_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
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
    let v = json(&stdout(&o));
    let sectors = v["sectors"].as_array().unwrap();
    assert!(sectors.len() > 50);
    assert!(sectors
        .iter()
        .any(|s| s["sector"] == "0_0_6_6" && s["draws"] == 1));

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
    let v = json(&stdout(&o));
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
    let v = json(&stdout(&o));
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
    let lines: Vec<Value> = stdout(&o).lines().map(json).collect();
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
    let o = retro(
        &["solve", "mill", "--variant", "da-san-qi", "--dir", d],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot solve"), "{}", stderr(&o));
    let o = retro(&["solve", "mill", "--sector", "3,3", "--dir", d], None);
    assert_eq!(o.status.code(), Some(2));
}
