//! Mill game records through `retro analyse --moves/--record/--annotate`: legality errors name
//! the ply, threefold repetition and the N-move rule end the game as a draw and say why, and the
//! annotation marks exactly the moves that change the game-theoretic result.

use retro_engine::mill::{Mill, Position, Profile};
use retro_tests::{retro, stderr, stdout};
use serde_json::Value;

const SIX: &str = "six-mens-morris";

fn solved() -> tempfile::TempDir {
    retro_tests::solved_mill(SIX)
}

fn analyse(dir: &str, extra: &[&str]) -> (bool, Value, String) {
    let mut args = vec!["analyse", "mill", "--variant", SIX, "--dir", dir, "--json"];
    args.extend_from_slice(extra);
    let out = retro(&args, None);
    let v = serde_json::from_str(stdout(&out).trim()).unwrap_or(Value::Null);
    (out.status.success(), v, stderr(&out))
}

/// Plays the placement phase along the principal variation, then finds a White move and a
/// Black move (no removal) that can both be taken back: four plies that return to the same
/// position.
fn cycle(dir: &str) -> (Vec<String>, [String; 4]) {
    let (ok, v, err) = analyse(dir, &["--pv"]);
    assert!(ok, "{err}");
    let pv: Vec<String> = v["pv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect();
    let m = Mill::new(Profile::preset(SIX).unwrap());
    let mut p = m.start();
    let mut played = Vec::new();
    for text in &pv {
        if !p.placing {
            break;
        }
        let mv = m.parse_move(&p, text).unwrap();
        p = after(&m, &p, mv);
        played.push(text.clone());
    }
    assert!(
        !p.placing,
        "the principal variation leaves the placement phase"
    );
    let quiet = |q: &Position| {
        let mut list = Vec::new();
        m.moves(q, &mut list);
        list.into_iter()
            .filter(|(mv, _)| mv.removed == 0)
            .collect::<Vec<_>>()
    };
    for (w, q1) in quiet(&p) {
        for (b, q2) in quiet(&q1) {
            let back_w = quiet(&q2)
                .into_iter()
                .find(|(x, _)| x.from == w.to && x.to == w.from);
            let Some((wb, q3)) = back_w else { continue };
            let back_b = quiet(&q3)
                .into_iter()
                .find(|(x, _)| x.from == b.to && x.to == b.from);
            if let Some((bb, q4)) = back_b {
                assert_eq!((q4.stones, q4.side), (p.stones, p.side));
                let f = |x| m.format_move(&x);
                return (played, [f(w), f(b), f(wb), f(bb)]);
            }
        }
    }
    panic!("no reversible pair of moves found");
}

fn after(m: &Mill, p: &Position, mv: retro_engine::mill::Move) -> Position {
    let mut list = Vec::new();
    m.moves(p, &mut list);
    list.into_iter().find(|(x, _)| *x == mv).unwrap().1
}

#[test]
fn repetition_and_n_move_rule_end_the_game() {
    let dir = solved();
    let d = dir.path().to_str().unwrap();
    let (placement, four) = cycle(d);
    let mut moves = placement.clone();
    for _ in 0..2 {
        moves.extend(four.iter().cloned());
    }
    // Start, +4 and +8 plies: the third occurrence ends the game.
    let text = moves.join(" ");
    let (ok, v, err) = analyse(d, &["--moves", &text]);
    assert!(ok, "{err}");
    assert_eq!(v["result"], "draw");
    assert_eq!(v["reason"], "threefold repetition");
    assert_eq!(v["ended_at_ply"], moves.len());
    // One more move is refused, naming its ply.
    let more = format!("{text} {}", four[0]);
    let (ok, _, err) = analyse(d, &["--moves", &more]);
    assert!(!ok);
    assert!(
        err.contains(&format!("ply {}", moves.len() + 1)) && err.contains("after the end"),
        "{err}"
    );
    // Two plies short of it: the game goes on, analysed from the tables.
    let short = moves[..moves.len() - 2].join(" ");
    let (ok, v, err) = analyse(d, &["--moves", &short]);
    assert!(ok, "{err}");
    assert!(v["game_over"].is_null() && v["reason"].is_null());
    assert_eq!(v["plies_played"], moves.len() - 2);
    assert_eq!(v["rule50"], 6);

    // The N-move rule, set to 6 plies: the sixth moving ply without a removal draws, and the
    // plies after it are refused.
    let six = moves[..placement.len() + 6].join(" ");
    let (ok, v, err) = analyse(d, &["--moves", &six, "--rule", "n-move-rule=6"]);
    assert!(ok, "{err}");
    assert_eq!(v["result"], "draw");
    assert!(v["reason"].as_str().unwrap().starts_with("N-move rule"));
    assert_eq!(v["ended_at_ply"], placement.len() + 6);
    let (ok, _, err) = analyse(d, &["--moves", &text, "--rule", "n-move-rule=6"]);
    assert!(!ok);
    assert!(
        err.contains(&format!("ply {}", placement.len() + 7)),
        "{err}"
    );
    // Turned off, only the repetition ends it.
    let (ok, v, _) = analyse(d, &["--moves", &text, "--rule", "n-move-rule=0"]);
    assert!(ok);
    assert_eq!(v["reason"], "threefold repetition");
}

#[test]
fn annotation_marks_the_moves_that_change_the_result() {
    let dir = solved();
    let d = dir.path().to_str().unwrap();
    // Follow the principal variation, then pick a losing move at ply 9.
    let (_, start, _) = analyse(d, &["--pv"]);
    let pv: Vec<&str> = start["pv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    let prefix = pv[..8].join(" ");
    let (ok, at8, err) = analyse(d, &["--moves", &prefix]);
    assert!(ok, "{err}");
    assert_eq!(at8["result"], "draw");
    let losing = at8["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["result"] == "loss")
        .expect("a losing move at ply 9")["move"]
        .as_str()
        .unwrap()
        .to_string();
    let record = dir.path().join("game.txt");
    std::fs::write(&record, format!("{}\n{losing}\n", pv[..8].join("\n"))).unwrap();
    let (ok, v, err) = analyse(d, &["--record", record.to_str().unwrap(), "--annotate"]);
    assert!(ok, "{err}");
    let notes = v["annotations"].as_array().unwrap();
    assert_eq!(notes.len(), 9);
    for (i, a) in notes.iter().enumerate() {
        assert_eq!(a["ply"], i + 1);
        assert_eq!(a["before"]["result"], "draw", "ply {}", i + 1);
        if i < 8 {
            assert_eq!(a["after"]["result"], "draw");
            assert!(a["changes_result"].is_null());
        } else {
            assert_eq!(a["move"], losing.as_str());
            assert_eq!(a["after"]["result"], "loss");
            assert_eq!(a["changes_result"], "draw thrown away: now a loss");
        }
    }
    // After the losing move the side to move (Black) wins, as the annotation said.
    assert_eq!(v["result"], "win");
    let text = retro(
        &[
            "analyse",
            "mill",
            "--variant",
            SIX,
            "--dir",
            d,
            "--record",
            record.to_str().unwrap(),
            "--annotate",
        ],
        None,
    );
    assert!(stdout(&text).contains("<- draw thrown away: now a loss"));
    // A damaged table an annotation needs is an error naming it, not a missing annotation.
    let folder = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .unwrap();
    let start_table = folder.join("sector_0_0_6_6.rtb");
    let good = std::fs::read(&start_table).unwrap();
    let mut bad = good.clone();
    let n = bad.len();
    bad[n - 17] ^= 1;
    std::fs::write(&start_table, &bad).unwrap();
    let (ok, _, err) = analyse(d, &["--record", record.to_str().unwrap(), "--annotate"]);
    assert!(!ok && err.contains("sector_0_0_6_6.rtb"), "{err}");
    std::fs::write(&start_table, &good).unwrap();
    // --annotate alone is refused clearly, for every game.
    let (ok, _, err) = analyse(d, &["--annotate"]);
    assert!(!ok && err.contains("--moves or --record"), "{err}");
    let out = retro(&["analyse", "dara", "--annotate"], None);
    assert!(!out.status.success() && stderr(&out).contains("--moves or --record"));
}
