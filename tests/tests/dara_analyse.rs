//! `retro analyse dara`: the search with tables at the leaves agrees with the tables themselves
//! wherever it claims a forced result, and the command answers from the tables, marked proven,
//! where they hold the position.

use retro_engine::dara::{Dara, Position};
use retro_engine::Color;
use retro_solver::dara::rules::{no_four, DaraRules};
use retro_solver::dara::search::{search, value_of, Limits, Tables};
use retro_solver::sectors::db::Db;
use retro_solver::sectors::sector::SectorKey;
use retro_solver::sectors::solve::solve;
use retro_tables::value::Value;
use retro_tests::{retro, stderr, stdout};
use std::path::Path;

/// Solves the Dara endgame 3v3 into `dir`.
fn tables(dir: &Path) -> Db<DaraRules> {
    let db = Db::with_rules(
        DaraRules {
            game: Dara::default(),
        },
        dir,
    );
    let k = SectorKey {
        w: 3,
        b: 3,
        wf: 0,
        bf: 0,
    };
    solve(&db, &[k], &()).expect("solve 3v3");
    db
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn cells(&mut self, n: u32, taken: u32) -> u32 {
        let mut set = 0u32;
        while set.count_ones() < n {
            let c = (self.next() % 30) as u32;
            if (set | taken) & (1 << c) == 0 {
                set |= 1 << c;
            }
        }
        set
    }
}

/// A random movement-phase position, `own` stones for the side to move against `opp`.
fn random_position(rng: &mut Rng, own: u32, opp: u32) -> Position {
    loop {
        let a = rng.cells(own, 0);
        let b = rng.cells(opp, a);
        if no_four(a) && no_four(b) {
            let side = if rng.next() & 1 == 0 {
                Color::White
            } else {
                Color::Black
            };
            let mut stones = [0; 2];
            stones[side.index()] = a;
            stones[side.other().index()] = b;
            return Position {
                stones,
                hand: [0, 0],
                side,
            };
        }
    }
}

#[test]
fn search_with_small_tables_agrees_with_the_bigger_tables() {
    let dir = tempfile::tempdir().unwrap();
    let db = tables(dir.path());
    let g = Dara::default();
    let full = Tables::open(&db);
    // The search may use no table: 3v3 positions are searched to the end of the game (a
    // removal wins at once) or to the depth limit.
    let small = Tables::open(&db).restrict(|_, _| false);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut tried, mut proven, mut forced, mut proven_moves) = (0, 0, 0, 0);
    for i in 0..300 {
        let _ = i;
        let p = random_position(&mut rng, 3, 3);
        if g.outcome(&p).is_some() {
            continue;
        }
        tried += 1;
        let truth = full.value(&p).expect("table value");
        let limits = Limits {
            depth: 5,
            time: None,
        };
        let r = search(&g, &small, &p, limits).unwrap().unwrap();
        let text = g.format_position(&p);
        if r.proven {
            proven += 1;
            let got = value_of(r.score).unwrap_or(Value::Draw);
            assert_eq!(got, truth, "{text}: proven search value differs");
        }
        if let Some(v) = value_of(r.score) {
            // A forced result is real even when the distance is not proven.
            forced += 1;
            assert_eq!(v.result(), truth.result(), "{text}: forced result differs");
            if let (Value::Win(found), Value::Win(best)) = (v, truth) {
                assert!(found >= best, "{text}: a win faster than the fastest");
            }
        }
        // Every root move the search calls proven has its table value.
        for m in r.moves.iter().filter(|m| m.proven) {
            proven_moves += 1;
            let q = {
                let mut list = Vec::new();
                g.moves(&p, &mut list);
                list.into_iter().find(|(x, _)| *x == m.mv).unwrap().1
            };
            let child = if g.outcome(&q).is_some() {
                Value::Loss(0)
            } else {
                full.value(&q).unwrap()
            };
            let got = value_of(m.score).unwrap_or(Value::Draw);
            assert_eq!(got, child.parent(), "{text}: move {:?}", m.mv);
        }
    }
    eprintln!(
        "{tried} positions searched: {proven} proven, {forced} forced results, \
         {proven_moves} proven root moves"
    );
    assert!(
        tried >= 250 && proven >= 100 && forced >= 100 && proven_moves >= 500,
        "{tried} {proven} {forced} {proven_moves}"
    );
}

#[test]
fn analyse_answers_from_tables_and_marks_search_results() {
    let dir = tempfile::tempdir().unwrap();
    let db = tables(dir.path());
    let d = dir.path().to_str().unwrap();
    let g = Dara::default();
    // A position the tables hold: the answer is the table's, proven, with every move.
    let fen = "WW.W../....../BB.B../....../...... w 0 0";
    let p = g.parse_position(fen).unwrap();
    let truth = Tables::open(&db).value(&p).unwrap();
    let out = retro(
        &[
            "analyse", "dara", "--dir", d, "--fen", fen, "--json", "--pv",
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["source"], "tables");
    assert_eq!(v["proven"], true);
    assert_eq!(v["result"], truth.result());
    assert_eq!(v["plies"].as_u64(), truth.plies().map(u64::from));
    let mut list = Vec::new();
    g.moves(&p, &mut list);
    assert_eq!(v["moves"].as_array().unwrap().len(), list.len());
    if let Some(n) = truth.plies() {
        assert_eq!(v["pv"].as_array().unwrap().len() as u64, n as u64);
    }

    // The start position: a search result at the depth asked, not proven.
    let out = retro(
        &["analyse", "dara", "--dir", d, "--depth", "2", "--json"],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["source"], "search");
    assert_eq!(v["proven"], false);
    assert_eq!(v["depth"], 2);
    assert_eq!(v["result"], "unknown");
    assert_eq!(v["moves"].as_array().unwrap().len(), 30);
    assert!(!v["best"].as_array().unwrap().is_empty());
    let text = retro(&["analyse", "dara", "--dir", d, "--depth", "2"], None);
    assert!(stdout(&text).contains("search result, not a proven value"));

    // A position 4v3 (no table) whose search reaches the 3v3 table.
    let fen = "WWW.../W...../BBB.../....../...... b 0 0";
    let out = retro(
        &[
            "analyse", "dara", "--dir", d, "--fen", fen, "--depth", "3", "--json",
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["source"], "search");
    assert_eq!(v["depth"], 3);

    // Batch: one JSON line per input line, errors in place.
    let batch = dir.path().join("batch.txt");
    std::fs::write(
        &batch,
        "WW.W../....../BB.B../....../...... w 0 0\nnot a position\n",
    )
    .unwrap();
    let out = retro(
        &[
            "analyse",
            "dara",
            "--dir",
            d,
            "--batch",
            batch.to_str().unwrap(),
        ],
        None,
    );
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].contains("\"source\":\"tables\""));
    assert!(lines[1].contains("\"error\""));

    // A damaged table the search needs is an error, not a value.
    let path = db.path(SectorKey {
        w: 3,
        b: 3,
        wf: 0,
        bf: 0,
    });
    let mut bytes = std::fs::read(&path).unwrap();
    retro_tests::damage_every_block(&mut bytes, 0x40);
    std::fs::write(&path, &bytes).unwrap();
    let out = retro(
        &[
            "analyse", "dara", "--dir", d, "--fen", fen, "--depth", "3", "--json",
        ],
        None,
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("checksum"), "{}", stderr(&out));
}

/// A typed-in position with a run of four (RULES.md 2.5: possible only so) is not in the
/// tables, which leave such boards out as wasted slots: `analyse` searches it, with the tables
/// at the leaves, and reads no table slot for it.
#[test]
fn a_typed_in_four_is_searched_not_read_from_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::with_rules(
        DaraRules {
            game: Dara::default(),
        },
        dir.path(),
    );
    // Black (3 stones) to move against White's four: the 3v4 table and what it needs.
    let k = SectorKey {
        w: 3,
        b: 4,
        wf: 0,
        bf: 0,
    };
    solve(&db, &[k], &()).expect("solve 3v4");
    let g = Dara::default();
    let fen = "WWWW../....../....../BB.B../...... b 0 0";
    let p = g.parse_position(fen).expect("a typed-in four is accepted");
    let t = Tables::open(&db);
    assert!(!t.covers(&p), "the 3v4 table holds no board with a four");
    // The same material without the four is the table's.
    let q = g
        .parse_position("WWW.W./....../....../BB.B../...... b 0 0")
        .unwrap();
    assert!(t.covers(&q));

    let d = dir.path().to_str().unwrap();
    let out = retro(
        &[
            "analyse", "dara", "--dir", d, "--fen", fen, "--depth", "4", "--json",
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["source"], "search", "{v}");
    // d2-c2 makes Black's a2-b2-c2: the moves include taking any stone of the four, which is
    // not an exact three and protects nothing.
    let text = v["moves"].to_string();
    for m in ["d2-c2xa5", "d2-c2xd5"] {
        assert!(text.contains(&format!("\"{m}\"")), "{m}: {text}");
    }
}

/// A finished game is decided by the rules, with tables or without: the answer says so, names
/// the reason in words, and asks for no tables.
#[test]
fn a_finished_game_is_answered_by_the_rules() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    // Black, not to move, has two stones: White has won.
    let fen = "WWW.../B...../....../....../..B... w 0 0";
    let out = retro(
        &["analyse", "dara", "--dir", d, "--fen", fen, "--json"],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["source"], "rules", "{v}");
    assert_eq!(v["game_over"], true, "{v}");
    assert_eq!(v["result"], "win", "{v}");
    let out = retro(&["analyse", "dara", "--dir", d, "--fen", fen], None);
    let text = stdout(&out);
    assert!(
        text.contains("Game over: white wins (two stones or fewer for black)"),
        "{text}"
    );
    assert!(text.contains("(side to move; the game is over)"), "{text}");
    assert!(!text.contains("endgame tables"), "{text}");
}

/// A move typed into a finished game is refused with the reason in words.
#[test]
fn a_move_after_the_end_names_the_reason_in_words() {
    let g = Dara::default();
    let p = g
        .parse_position("WWW.../B...../....../....../..B... w 0 0")
        .unwrap();
    let e = g.parse_move(&p, "a5-a4").unwrap_err().to_string();
    assert!(
        e.contains("the game is over (black lost: two stones or fewer)"),
        "{e}"
    );
}
