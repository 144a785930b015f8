//! Mill play and removal distances from win/draw/loss tables alone (`retro compress
//! --wdl-only`): the engine wins a won game by the rules (each winning move brings the next
//! removal closer, since the tables give no distance to shorten), every position on the way
//! won for the winner per the full tables; `analyse --removal` gives the same `removal_in` and
//! `cursed` as with distances; and `compress --wdl-only` turns raw tables straight into
//! win/draw/loss and derived ones that answer every sampled position's moves as the raw ones.

use retro_engine::mill::{Mill, Position, Profile};
use retro_engine::Color;
use retro_solver::mill::Db;
use retro_tables::value::Value as V;
use retro_tests::{parse_json, retro, solved_mill, stderr, stdout};
use serde_json::Value;
use std::path::Path;

const SIX: &str = "six-mens-morris";

/// `retro ARGS --variant six-mens-morris --dir D --json`, parsed (every line of it).
fn json_lines(args: &[&str], dir: &Path, input: Option<&str>) -> Vec<Value> {
    let d = dir.to_str().unwrap();
    let all = [args, &["--variant", SIX, "--dir", d, "--json"]].concat();
    let out = retro(&all, input);
    assert!(out.status.success(), "{all:?}: {}", stderr(&out));
    stdout(&out)
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(parse_json)
        .collect()
}

/// Copies the table folders of `from` into `to`.
fn copy_tables(from: &Path, to: &Path) {
    for folder in std::fs::read_dir(from).unwrap() {
        let folder = folder.unwrap().path();
        let dest = to.join(folder.file_name().unwrap());
        std::fs::create_dir_all(&dest).unwrap();
        for f in std::fs::read_dir(&folder).unwrap() {
            let f = f.unwrap().path();
            std::fs::copy(&f, dest.join(f.file_name().unwrap())).unwrap();
        }
    }
}

fn moves_of(v: &Value) -> Vec<(String, String)> {
    let mut r: Vec<(String, String)> = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["move"].to_string(), m["result"].to_string()))
        .collect();
    r.sort();
    r
}

/// Plays the record's moves from `start` (each must be legal) and returns every position.
fn replay(m: &Mill, start: &Position, moves: &[Value]) -> Vec<Position> {
    let mut out = vec![*start];
    for text in moves {
        let p = *out.last().unwrap();
        let text = text.as_str().unwrap();
        let mut list = Vec::new();
        m.moves(&p, &mut list);
        let q = list
            .iter()
            .find(|(mv, _)| m.format_move(mv) == text)
            .unwrap_or_else(|| panic!("{text} is not legal in {}", m.format_fen(&p)))
            .1;
        out.push(q);
    }
    out
}

/// The summary of `play --json` says `winner` won by the rules (not by the N-move rule or a
/// repetition, which end in a draw).
fn assert_won_by_the_rules(s: &Value, winner: Color, fen: &str) {
    assert_eq!(s["game_over"], true, "{fen}: {s}");
    let name = if winner == Color::White {
        "white"
    } else {
        "black"
    };
    assert_eq!(s["winner"], name, "{fen}: {s}");
    let reason = s["reason"].as_str().unwrap();
    assert!(
        reason.starts_with(&format!("{name} wins")),
        "{fen}: {reason}"
    );
}

#[test]
fn wdl_only_tables_play_won_games_to_the_end_and_find_the_same_removal_distances() {
    let full = solved_mill(SIX);
    let wdl = tempfile::tempdir().unwrap();
    copy_tables(full.path(), wdl.path());
    // Straight from raw tables: the derived sectors are checked against stored tables that
    // already have no distances.
    let d = wdl.path().to_str().unwrap();
    let o = retro(&["compress", "--dir", d, "--wdl-only", "-q"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let files: Vec<String> = std::fs::read_dir(wdl.path())
        .unwrap()
        .flat_map(|f| std::fs::read_dir(f.unwrap().path()).unwrap())
        .map(|f| f.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert!(files.iter().any(|f| f.ends_with(".rtbp")), "{files:?}");
    assert!(files.iter().any(|f| f.ends_with(".rtbw")), "{files:?}");
    assert!(
        !files
            .iter()
            .any(|f| f.ends_with(".rtbd") || f.ends_with(".rtb")),
        "{files:?}"
    );

    // Every move of sampled positions of every table: the same results.
    let sample = retro(
        &[
            "sample",
            "mill",
            "--variant",
            SIX,
            "--dir",
            d,
            "--count",
            "1500",
            "--seed",
            "11",
        ],
        None,
    );
    assert!(sample.status.success(), "{}", stderr(&sample));
    let fens = wdl.path().join("sample.fens");
    std::fs::write(&fens, stdout(&sample)).unwrap();
    let batch = ["analyse", "mill", "--batch", fens.to_str().unwrap()];
    let with = json_lines(&batch, full.path(), None);
    let without = json_lines(&batch, wdl.path(), None);
    assert_eq!(with.len(), without.len());
    assert!(with.len() > 1000, "{}", with.len());
    for (a, b) in with.iter().zip(&without) {
        assert_eq!((&a["fen"], &a["result"]), (&b["fen"], &b["result"]));
        assert_eq!(moves_of(a), moves_of(b), "{}", a["fen"]);
        assert_eq!(b["distances"], false);
    }

    // Decided moving-phase positions whose win takes more than one removal or a long blockade.
    let m = Mill::new(Profile::preset(SIX).unwrap());
    let db = Db::new(m.clone(), full.path());
    let mut games = 0;
    for a in &with {
        let plies = a["plies"].as_u64().unwrap_or(0);
        let fen = a["fen"].as_str().unwrap();
        if !fen.contains(" m ") || !(9..=45).contains(&plies) || games == 8 {
            continue;
        }
        let analyse = ["analyse", "mill", "--removal", "--fen", fen];
        let (r_full, r_wdl) = (
            &json_lines(&analyse, full.path(), None)[0],
            &json_lines(&analyse, wdl.path(), None)[0],
        );
        assert_eq!(r_wdl["distances"], false);
        assert!(r_full["removal_in"].as_u64().is_some(), "{r_full}");
        assert_eq!(
            (&r_full["removal_in"], &r_full["cursed"]),
            (&r_wdl["removal_in"], &r_wdl["cursed"]),
            "{fen}"
        );

        // The engine plays both sides; the winner wins by the rules, never by the N-move
        // rule or a repetition, and every position on the way stays won for it.
        let start = m.parse_fen(fen).unwrap();
        let winner = if a["result"] == "win" {
            start.side
        } else {
            start.side.other()
        };
        let summary = json_lines(
            &["play", "mill", "--as", "none", "--fen", fen],
            wdl.path(),
            Some(""),
        );
        let s = summary.last().unwrap();
        assert_won_by_the_rules(s, winner, fen);
        let line = replay(&m, &start, s["moves"].as_array().unwrap());
        for q in &line[..line.len() - 1] {
            let v = db.value(q).unwrap();
            let won = match v {
                V::Win(_) => q.side == winner,
                V::Loss(_) => q.side != winner,
                V::Draw => false,
            };
            assert!(won, "{fen}: {} is {v:?}", m.format_fen(q));
        }
        assert!(m.outcome(line.last().unwrap()).is_some());
        games += 1;
    }
    assert_eq!(games, 8, "too few decided positions in the sample");
}

#[test]
fn dara_wdl_only_tables_play_won_endgames_to_the_end() {
    use retro_engine::dara::Dara;
    use retro_solver::dara::{rules::DaraRules, search::Tables};
    let full = tempfile::tempdir().unwrap();
    let f = full.path().to_str().unwrap();
    let o = retro(
        &["solve", "dara", "--sector", "3,3,0,0", "--dir", f, "-q"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let wdl = tempfile::tempdir().unwrap();
    copy_tables(full.path(), wdl.path());
    let d = wdl.path().to_str().unwrap();
    let o = retro(&["compress", "--dir", d, "--wdl-only", "-q"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let sample = retro(
        &[
            "sample", "dara", "--dir", f, "--count", "400", "--seed", "5",
        ],
        None,
    );
    assert!(sample.status.success(), "{}", stderr(&sample));
    let fens = wdl.path().join("sample.fens");
    std::fs::write(&fens, stdout(&sample)).unwrap();
    let args = ["analyse", "dara", "--dir", f, "--json", "--batch"];
    let o = retro(&[&args[..], &[fens.to_str().unwrap()]].concat(), None);
    assert!(o.status.success(), "{}", stderr(&o));
    let g = Dara::default();
    let db = retro_solver::sectors::db::Db::with_rules(DaraRules { game: g.clone() }, full.path());
    let tables = Tables::open(&db);
    let mut games = 0;
    for line in stdout(&o).lines() {
        let a: Value = serde_json::from_str(line).unwrap();
        if !(9..=40).contains(&a["plies"].as_u64().unwrap_or(0)) || games == 8 {
            continue;
        }
        let fen = a["fen"].as_str().unwrap();
        let start = g.parse_position(fen).unwrap();
        let winner = if a["result"] == "win" {
            start.side
        } else {
            start.side.other()
        };
        let args = [
            "play", "dara", "--dir", d, "--json", "--as", "none", "--fen", fen,
        ];
        let out = retro(&args, Some(""));
        assert!(out.status.success(), "{fen}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("next capture soonest"), "{text}");
        let s: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_won_by_the_rules(&s, winner, fen);
        // Every position on the way won for the winner per the full tables.
        let mut p = start;
        for mv in s["moves"].as_array().unwrap() {
            if g.outcome(&p).is_none() && tables.covers(&p) {
                let v = tables.value(&p).unwrap();
                let won = matches!(v, V::Win(_)) == (p.side == winner) && v != V::Draw;
                assert!(won, "{fen}: {} is {v:?}", g.format_position(&p));
            }
            p = g.parse_move(&p, mv.as_str().unwrap()).unwrap().1;
        }
        assert!(g.outcome(&p).is_some(), "{fen}: {s}");
        games += 1;
    }
    assert_eq!(games, 8, "too few decided positions in the sample");
}
