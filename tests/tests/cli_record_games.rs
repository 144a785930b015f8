//! Dara and Ô Ăn Quan game records through `retro analyse dara|oaq --moves/--record`: legality
//! errors name the ply and the move, threefold repetition (the whole position: board, side to
//! move, hands or stores) and the N-move rule end the game at exactly the right ply and say why,
//! and drops, removals, captures and refills reset the N-move counter.

use retro_engine::oaq::{Oaq, OaqProfile, Position, Turn};
use retro_tests::{parse_json, retro, stderr, stdout};
use serde_json::Value;
use std::collections::{HashSet, VecDeque};

/// `retro analyse <game> --json --dir <empty dir> --depth 2 <extra>`: exit status, JSON, stderr.
/// The empty table directory and the shallow search keep the analysis of an unfinished record
/// fast (no table is read; the search is not what these tests are about).
fn analyse(game: &str, extra: &[&str]) -> (bool, Option<i32>, Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec![
        "analyse",
        game,
        "--json",
        "--dir",
        dir.path().to_str().unwrap(),
        "--depth",
        "2",
    ];
    args.extend_from_slice(extra);
    let out = retro(&args, None);
    let text = stdout(&out);
    let v = if out.status.success() {
        parse_json(&text)
    } else {
        assert!(
            text.trim().is_empty(),
            "an error prints nothing on stdout: {text}"
        );
        Value::Null
    };
    (out.status.success(), out.status.code(), v, stderr(&out))
}

/// Asserts that a record was refused with exit code 2 and a message naming the ply and the move.
fn assert_refused(game: &str, extra: &[&str], ply: usize, mv: &str) -> String {
    let (ok, code, _, err) = analyse(game, extra);
    assert!(!ok, "{extra:?} should be refused");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!("ply {ply}: move '{mv}'")),
        "expected the message to name ply {ply} and move '{mv}': {err}"
    );
    err
}

fn join(moves: &[&str]) -> String {
    moves.join(" ")
}

// ----------------------------------------------------------------------------------------------
// Dara

/// Move phase (hands 0 0), three stones each, far apart: White a5 c5 e5, Black a1 c1 e1.
/// No step in the tests below makes a run of three (so nothing is removed and nobody wins).
const DARA_FEN: &str = "W.W.W./....../....../....../B.B.B. w 0 0";

/// White a5 and Black a1 step down/up and back: after these four plies the start position (same
/// board, White to move, hands 0 0) is back.
const DARA_CYCLE: [&str; 4] = ["a5-a4", "a1-a2", "a4-a5", "a2-a1"];

#[test]
fn dara_threefold_repetition_ends_the_game_at_the_third_occurrence() {
    let eight: Vec<&str> = DARA_CYCLE
        .iter()
        .chain(DARA_CYCLE.iter())
        .copied()
        .collect();
    // The start position occurs at ply 0, ply 4 and ply 8 (after each full cycle); the positions
    // in between occur at most twice (plies 1 and 5, 2 and 6, 3 and 7). So the game ends at ply
    // 8, a draw; the counter has counted the eight steps (no drop, no removal).
    let (ok, _, v, err) = analyse("dara", &["--fen", DARA_FEN, "--moves", &join(&eight)]);
    assert!(ok, "{err}");
    assert_eq!(v["game_over"], true);
    assert_eq!(v["reason"], "threefold repetition");
    assert_eq!(v["ended_at_ply"], 8);
    assert_eq!(v["plies_played"], 8);
    assert_eq!(v["result"], "draw");
    assert_eq!(v["rule50"], 8);
    assert_eq!(v["fen"], DARA_FEN);
    assert!(v["plies_before_n_move_draw"].is_null(), "{v}");

    // One ply fewer: the game goes on (second occurrence of the position after ply 3). The
    // default N-move rule is 100 plies: 100 - 7 = 93 left.
    let (ok, _, v, err) = analyse("dara", &["--fen", DARA_FEN, "--moves", &join(&eight[..7])]);
    assert!(ok, "{err}");
    assert!(v["game_over"].is_null() && v["reason"].is_null(), "{v}");
    assert!(v["ended_at_ply"].is_null(), "{v}");
    assert_eq!(v["plies_played"], 7);
    assert_eq!(v["rule50"], 7);
    assert_eq!(v["plies_before_n_move_draw"], 93);
    assert_eq!(v["fen"], "W.W.W./....../....../B...../..B.B. b 0 0");

    // A ninth ply is refused: it comes after the end.
    let nine = format!("{} {}", join(&eight), DARA_CYCLE[0]);
    let err = assert_refused("dara", &["--fen", DARA_FEN, "--moves", &nine], 9, "a5-a4");
    assert!(err.contains("after the end"), "{err}");

    // The same record from a file, with move numbers and one move per line or several.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.txt");
    std::fs::write(
        &file,
        "1. a5-a4 a1-a2\n2. a4-a5 a2-a1\n3. a5-a4\na1-a2\n4. a4-a5, a2-a1\n",
    )
    .unwrap();
    let (ok, _, v, err) = analyse(
        "dara",
        &["--fen", DARA_FEN, "--record", file.to_str().unwrap()],
    );
    assert!(ok, "{err}");
    assert_eq!(v["reason"], "threefold repetition");
    assert_eq!(v["ended_at_ply"], 8);
}

/// Seven steps, every position new (stones only move forward): White a5-a4-a3, c5-c4, e5-e4;
/// Black a1-a2, c1-c2, e1-e2. No runs of two or more of one colour in a row or a column arise.
const DARA_WALK: [&str; 7] = [
    "a5-a4", "a1-a2", "a4-a3", "c1-c2", "c5-c4", "e1-e2", "e5-e4",
];

#[test]
fn dara_n_move_rule_draws_after_n_plies_without_drop_or_removal() {
    // n-move-rule=6: the sixth step without a drop or a removal ends the game at ply 6.
    let six = join(&DARA_WALK[..6]);
    let (ok, _, v, err) = analyse(
        "dara",
        &[
            "--fen",
            DARA_FEN,
            "--moves",
            &six,
            "--rule",
            "n-move-rule=6",
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(v["game_over"], true);
    assert_eq!(v["ended_at_ply"], 6);
    assert_eq!(v["result"], "draw");
    assert_eq!(v["rule50"], 6);
    let reason = v["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("N-move rule") && reason.contains("6 plies"),
        "{reason}"
    );
    // The seventh step is refused.
    let seven = join(&DARA_WALK);
    let err = assert_refused(
        "dara",
        &[
            "--fen",
            DARA_FEN,
            "--moves",
            &seven,
            "--rule",
            "n-move-rule=6",
        ],
        7,
        "e5-e4",
    );
    assert!(err.contains("after the end"), "{err}");
    // n-move-rule=7: six plies leave one.
    let (ok, _, v, err) = analyse(
        "dara",
        &[
            "--fen",
            DARA_FEN,
            "--moves",
            &six,
            "--rule",
            "n-move-rule=7",
        ],
    );
    assert!(ok, "{err}");
    assert!(v["game_over"].is_null(), "{v}");
    assert_eq!(v["plies_before_n_move_draw"], 1);
    // n-move-rule=0 turns the rule off: seven plies, no end, no countdown; the counter still
    // counts.
    let (ok, _, v, err) = analyse(
        "dara",
        &[
            "--fen",
            DARA_FEN,
            "--moves",
            &seven,
            "--rule",
            "n-move-rule=0",
        ],
    );
    assert!(ok, "{err}");
    assert!(v["game_over"].is_null(), "{v}");
    assert_eq!(v["plies_played"], 7);
    assert_eq!(v["rule50"], 7);
    assert!(v["plies_before_n_move_draw"].is_null(), "{v}");

    // The repeating record with n-move-rule=6: the position after ply 6 is only the second
    // occurrence of the one after ply 2, so the N-move rule, not the repetition, ends it at 6.
    let cycle6: Vec<&str> = DARA_CYCLE.iter().cycle().take(6).copied().collect();
    let (ok, _, v, err) = analyse(
        "dara",
        &[
            "--fen",
            DARA_FEN,
            "--moves",
            &join(&cycle6),
            "--rule",
            "n-move-rule=6",
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(v["ended_at_ply"], 6);
    assert!(
        v["reason"].as_str().unwrap().starts_with("N-move rule"),
        "{v}"
    );
    // Turned off, the eight-ply cycle still ends by repetition.
    let cycle8: Vec<&str> = DARA_CYCLE.iter().cycle().take(8).copied().collect();
    let (ok, _, v, err) = analyse(
        "dara",
        &[
            "--fen",
            DARA_FEN,
            "--moves",
            &join(&cycle8),
            "--rule",
            "n-move-rule=0",
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(v["reason"], "threefold repetition");
    assert_eq!(v["ended_at_ply"], 8);
}

#[test]
fn dara_drops_and_removals_reset_the_counter() {
    // From the start every ply is a drop: the counter is 0 after one drop and after two (it
    // would be 1 and 2 without the reset).
    for (record, plies) in [("c3", 1), ("c3 d3", 2)] {
        let (ok, _, v, err) = analyse("dara", &["--moves", record]);
        assert!(ok, "{err}");
        assert_eq!(v["plies_played"], plies);
        assert_eq!(v["rule50"], 0, "{record}: {v}");
        assert_eq!(v["plies_before_n_move_draw"], 100);
    }
    // Black drops its last stone (White has all 12 down): 0; then the steps count, 1, 2, 3.
    let fen = "WBWB../BWBW../WBWBWB/BWBWBW/WBW... b 0 1";
    for (n, want) in [(1, 0), (2, 1), (3, 2), (4, 3)] {
        let record = ["f5", "d4-e4", "d5-e5", "e4-d4"][..n].join(" ");
        let (ok, _, v, err) = analyse("dara", &["--fen", fen, "--moves", &record]);
        assert!(ok, "{err}");
        assert_eq!(v["rule50"], want, "after {record}: {v}");
    }
    // Removal: White a5 b5 c4 f1, Black d3 a1 c1 e1. Two quiet steps (counter 2), then
    // c4-c5 makes the exact three a5-b5-c5 and removes d3 (counter 0; Black keeps 3 stones, the
    // game goes on), then one more step (1).
    let fen = "WW..../..W.../...B../....../B.B.BW w 0 0";
    for (record, want) in [
        ("f1-f2 a1-a2", 2),
        ("f1-f2 a1-a2 c4-c5xd3", 0),
        ("f1-f2 a1-a2 c4-c5xd3 a2-a1", 1),
    ] {
        let (ok, _, v, err) = analyse("dara", &["--fen", fen, "--moves", record]);
        assert!(ok, "{err}");
        assert!(v["game_over"].is_null(), "{v}");
        assert_eq!(v["rule50"], want, "after {record}: {v}");
        assert_eq!(v["plies_before_n_move_draw"], 100 - want);
    }
    // The three without naming the stone it removes is not a legal move.
    let err = assert_refused(
        "dara",
        &["--fen", fen, "--moves", "f1-f2 a1-a2 c4-c5"],
        3,
        "c4-c5",
    );
    assert!(err.contains("xe2") || err.contains("remove"), "{err}");
}

#[test]
fn dara_illegal_moves_name_the_ply() {
    // A drop on an occupied cell (ply 2: c3 is White's since ply 1).
    assert_refused("dara", &["--moves", "c3 c3"], 2, "c3");
    // A step while the side to move still drops.
    assert_refused("dara", &["--moves", "c3 d3 c3-c4"], 3, "c3-c4");
    // A step from an empty cell, and onto an occupied one.
    assert_refused(
        "dara",
        &["--fen", DARA_FEN, "--moves", "a5-a4 a2-a3"],
        2,
        "a2-a3",
    );
    assert_refused(
        "dara",
        &["--fen", DARA_FEN, "--moves", "a5-a4 a1-a2 a4-a3 a2-a3"],
        4,
        "a2-a3",
    );
    // A step of two cells.
    assert_refused("dara", &["--fen", DARA_FEN, "--moves", "a5-a3"], 1, "a5-a3");
    // Not a move at all.
    assert_refused("dara", &["--fen", DARA_FEN, "--moves", "a5-a4 zz"], 2, "zz");
    // A game over by the rules at the start (Black has two stones) refuses the first move.
    let over = "W.W.W./....../....../....../B.B... w 0 0";
    let (ok, _, v, err) = analyse("dara", &["--fen", over, "--moves", ""]);
    assert!(ok, "{err}");
    assert_eq!(v["game_over"], true);
    assert_eq!(v["ended_at_ply"], 0);
    assert_eq!(v["result"], "win");
    let err = assert_refused("dara", &["--fen", over, "--moves", "a5-a4"], 1, "a5-a4");
    assert!(err.contains("after the end"), "{err}");
}

// ----------------------------------------------------------------------------------------------
// Ô Ăn Quan

fn oaq(seeds: Option<&str>) -> Oaq {
    let mut profile = OaqProfile::default();
    if let Some(s) = seeds {
        profile.set(&format!("seeds={s}")).unwrap();
    }
    Oaq::new(profile)
}

/// Turns that neither capture nor refill.
fn quiet(g: &Oaq, p: &Position) -> Vec<(String, Turn)> {
    let mut list = Vec::new();
    g.moves(p, &mut list);
    list.into_iter()
        .filter(|(_, t)| t.captured == 0 && !t.refilled)
        .map(|(m, t)| (g.format_move(&m), t))
        .collect()
}

/// Depth-first search over quiet turns for a sequence of at most `depth` plies that returns to
/// `start` (the whole position: cells, side to move, stores, first-ply flag). Moves are tried in
/// the engine's order (cells ascending, `+` before `-`), so the result is deterministic.
fn quiet_cycle(g: &Oaq, start: &Position, depth: usize) -> Option<Vec<String>> {
    fn dfs(g: &Oaq, start: &Position, p: &Position, left: usize, line: &mut Vec<String>) -> bool {
        if !line.is_empty() && p == start {
            return true;
        }
        if left == 0 {
            return false;
        }
        for (m, t) in quiet(g, p) {
            line.push(m);
            if dfs(g, start, &t.position, left - 1, line) {
                return true;
            }
            line.pop();
        }
        false
    }
    let mut line = Vec::new();
    dfs(g, start, start, depth, &mut line).then_some(line)
}

/// The shortest quiet cycle back to `start` of at most `max` plies (iterative deepening). A
/// shortest cycle visits no position twice (else cutting out the loop between the two visits
/// would give a shorter one), so played twice it repeats the start, and only the start, a third
/// time.
fn shortest_quiet_cycle(g: &Oaq, start: &Position, max: usize) -> Option<Vec<String>> {
    (1..=max).find_map(|d| quiet_cycle(g, start, d))
}

/// Plays `cycle` twice from `fen` (positions at plies 0, L and 2L are the same) and checks the
/// repetition end at ply 2L with the stores as they stand, one ply short and one ply too many.
fn check_oaq_repetition(rules: &[&str], fen: &str, cycle: &[String], stores: [i64; 2]) {
    let l = cycle.len();
    let twice: Vec<&str> = cycle
        .iter()
        .chain(cycle.iter())
        .map(String::as_str)
        .collect();
    let mut args = rules.to_vec();
    args.extend(["--fen", fen]);
    let record = join(&twice);
    let with = |extra: &[&str]| {
        let mut a = args.clone();
        a.extend_from_slice(extra);
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let run = |extra: &[&str]| {
        let a = with(extra);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        analyse("oaq", &a)
    };
    let (ok, _, v, err) = run(&["--moves", &record]);
    assert!(ok, "{err}");
    assert_eq!(v["game_over"], true, "{v}");
    assert_eq!(v["reason"], "threefold repetition");
    assert_eq!(v["ended_at_ply"], 2 * l);
    assert_eq!(v["plies_played"], 2 * l);
    assert_eq!(v["rule50"], 2 * l);
    assert_eq!(v["fen"], fen);
    // The stores as they stand (no capture, no refill in the cycle: those of the start); the
    // seeds on the board go to nobody, so the future net score from here is 0.
    assert_eq!(v["final_stores"]["south"], stores[0]);
    assert_eq!(v["final_stores"]["north"], stores[1]);
    assert_eq!(v["score"], 0);
    let winner = match stores[0].cmp(&stores[1]) {
        std::cmp::Ordering::Greater => Value::from("south"),
        std::cmp::Ordering::Less => Value::from("north"),
        std::cmp::Ordering::Equal => Value::Null,
    };
    assert_eq!(v["winner"], winner);
    // One ply short: second occurrence of the position after ply L-1, not over.
    let short = join(&twice[..2 * l - 1]);
    let (ok, _, v, err) = run(&["--moves", &short]);
    assert!(ok, "{err}");
    assert!(v["game_over"].is_null() && v["reason"].is_null(), "{v}");
    assert_eq!(v["plies_played"], 2 * l - 1);
    assert_eq!(v["rule50"], 2 * l - 1);
    assert_eq!(v["plies_before_n_move_draw"], 100 - (2 * l - 1));
    // One ply more: refused, naming ply 2L+1.
    let more = format!("{record} {}", cycle[0]);
    let a = with(&["--moves", &more]);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let err = assert_refused("oaq", &a, 2 * l + 1, &cycle[0]);
    assert!(err.contains("after the end"), "{err}");
}

/// Hand-built: both mandarins hold 10, South has one seed on cell 4, North one on cell 10,
/// stores 20 and 28 (22 seeds on the board + 48 in the stores = 70), not the first ply.
/// `4+` sows into 5 and stops before the full mandarin 6; `10+` likewise into 11 before 0;
/// `5-` sows back into 4, then cells 3 and 2 are empty: two empty cells end the turn without a
/// capture; `11-` likewise back to 10 (9 and 8 empty). Four quiet plies, the same position.
const OAQ_FEN: &str = "10,0,0,0,1,0,10,0,0,0,1,0 s 20 28 0";

#[test]
fn oaq_repetition_of_a_hand_built_cycle() {
    let g = oaq(None);
    let start = g.parse_position(OAQ_FEN).unwrap();
    // No shorter cycle exists (South's own cells change on its ply and only its own later ply
    // can change them back), and the search finds exactly the cycle derived above.
    assert_eq!(quiet_cycle(&g, &start, 3), None);
    let cycle = shortest_quiet_cycle(&g, &start, 4).expect("a four-ply cycle");
    assert_eq!(cycle, ["4+", "10+", "5-", "11-"]);
    check_oaq_repetition(&[], OAQ_FEN, &cycle, [20, 28]);

    // N-move rule 5: ply 5 is the fifth ply without a capture or refill (and the position after
    // it only the second occurrence of the one after ply 1): a draw by the N-move rule, stores
    // as they stand 20 and 28.
    let five = join(&["4+", "10+", "5-", "11-", "4+"]);
    let (ok, _, v, err) = analyse(
        "oaq",
        &[
            "--fen",
            OAQ_FEN,
            "--moves",
            &five,
            "--rule",
            "n-move-rule=5",
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(v["ended_at_ply"], 5);
    assert_eq!(
        v["reason"],
        "N-move rule (5 plies without a capture or a refill)"
    );
    assert_eq!(v["final_stores"]["south"], 20);
    assert_eq!(v["final_stores"]["north"], 28);
    assert_eq!(v["winner"], "north");
    assert_eq!(v["score"], 0);
    // Its sixth ply is refused.
    let six = join(&["4+", "10+", "5-", "11-", "4+", "10+"]);
    assert_refused(
        "oaq",
        &["--fen", OAQ_FEN, "--moves", &six, "--rule", "n-move-rule=5"],
        6,
        "10+",
    );
    // Four plies with n-move-rule=5: one left. Rule off: the repetition still ends it at 8.
    let four = join(&["4+", "10+", "5-", "11-"]);
    let (ok, _, v, err) = analyse(
        "oaq",
        &[
            "--fen",
            OAQ_FEN,
            "--moves",
            &four,
            "--rule",
            "n-move-rule=5",
        ],
    );
    assert!(ok, "{err}");
    assert!(v["game_over"].is_null(), "{v}");
    assert_eq!(v["plies_before_n_move_draw"], 1);
    let eight = format!("{four} {four}");
    let (ok, _, v, err) = analyse(
        "oaq",
        &[
            "--fen",
            OAQ_FEN,
            "--moves",
            &eight,
            "--rule",
            "n-move-rule=0",
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(v["reason"], "threefold repetition");
    assert_eq!(v["ended_at_ply"], 8);
}

#[test]
fn oaq_repetition_found_in_real_games() {
    // Breadth-first over every position reached in `seeds=1,1` games (all turns, captures and
    // refills included), nearest the start first, until one has a quiet cycle of at most six
    // plies back to itself. The cycle's positions are real game positions.
    let g = oaq(Some("1,1"));
    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([g.start()]);
    seen.insert(g.start());
    let mut found = None;
    'bfs: while let Some(p) = queue.pop_front() {
        if let Some(cycle) = shortest_quiet_cycle(&g, &p, 6) {
            found = Some((p, cycle));
            break 'bfs;
        }
        let mut list = Vec::new();
        g.moves(&p, &mut list);
        for (_, t) in list {
            if seen.insert(t.position) && seen.len() < 200_000 {
                queue.push_back(t.position);
            }
        }
    }
    let (p, cycle) = found.expect("a position of a seeds=1,1 game with a quiet cycle");
    // Replay the cycle with the engine: every turn is legal, quiet, and the last one is back.
    let mut q = p;
    for (i, m) in cycle.iter().enumerate() {
        let (_, t) = g.parse_move(&q, m).unwrap();
        assert!(t.captured == 0 && !t.refilled, "ply {i}: {m}");
        q = t.position;
        assert_eq!(q == p, i + 1 == cycle.len(), "ply {i}: {m}");
    }
    assert!(!p.first, "the first-ply flag never comes back");
    let fen = g.format_position(&p);
    println!("quiet cycle from {fen}: {}", cycle.join(" "));
    let stores = [i64::from(p.stores[0]), i64::from(p.stores[1])];
    check_oaq_repetition(&["--rule", "seeds=1,1"], &fen, &cycle, stores);

    // The N-move rule set to the cycle's length ends the first time round at that ply.
    let l = cycle.len();
    let rule = format!("n-move-rule={l}");
    let (ok, _, v, err) = analyse(
        "oaq",
        &[
            "--rule",
            "seeds=1,1",
            "--rule",
            &rule,
            "--fen",
            &fen,
            "--moves",
            &cycle.join(" "),
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(v["ended_at_ply"], l);
    assert!(
        v["reason"].as_str().unwrap().starts_with("N-move rule"),
        "{v}"
    );
    assert_eq!(v["final_stores"]["south"], stores[0]);
    assert_eq!(v["final_stores"]["north"], stores[1]);
}

#[test]
fn oaq_captures_and_refills_reset_the_counter() {
    // Refill: North steps 10+ (quiet: counter 1); South's row is empty, so its ply starts with a
    // refill (one seed on each of cells 1-5, store 20 - 5 = 15); `1+` sows cell 1's seed into 2,
    // relays cell 3's into 4 and cell 5's into the mandarin 6 (now 11); cells 7 and 8 are
    // empty: the turn ends without a capture. Counter 0 after the refill.
    let fen = "10,0,0,0,0,0,10,0,0,0,1,0 n 20 28 0";
    let (ok, _, v, err) = analyse("oaq", &["--fen", fen, "--moves", "10+"]);
    assert!(ok, "{err}");
    assert_eq!(v["rule50"], 1);
    assert_eq!(v["plies_before_n_move_draw"], 99);
    let (ok, _, v, err) = analyse("oaq", &["--fen", fen, "--moves", "10+ 1+"]);
    assert!(ok, "{err}");
    assert_eq!(v["rule50"], 0);
    assert_eq!(v["fen"], "10,0,2,0,2,0,11,0,0,0,0,1 n 15 28 0");

    // Capture: from the standard start, the first quiet ply followed by the first capturing
    // reply (found with the engine): counter 1, then 0, and the capture is in the mover's store.
    let g = oaq(None);
    let start = g.start();
    let mut pair = None;
    'search: for (m1, t1) in quiet(&g, &start) {
        let mut list = Vec::new();
        g.moves(&t1.position, &mut list);
        for (m2, t2) in list {
            if t2.captured > 0 && !t2.refilled {
                pair = Some((m1, g.format_move(&m2), t2));
                break 'search;
            }
        }
    }
    let (m1, m2, t2) = pair.expect("a quiet first ply and a capturing reply");
    println!("quiet {m1}, then {m2} captures {}", t2.captured);
    let (ok, _, v, err) = analyse("oaq", &["--moves", &m1]);
    assert!(ok, "{err}");
    assert_eq!(v["rule50"], 1);
    let (ok, _, v, err) = analyse("oaq", &["--moves", &format!("{m1} {m2}")]);
    assert!(ok, "{err}");
    assert_eq!(v["rule50"], 0);
    assert_eq!(v["fen"], g.format_position(&t2.position));
    assert_eq!(
        i64::from(t2.position.stores[1]),
        i64::from(t2.captured),
        "North captured on ply 2"
    );
}

#[test]
fn oaq_illegal_moves_name_the_ply() {
    // An empty cell of South's (cell 1), North's cell on South's ply, South's cell on North's.
    let err = assert_refused("oaq", &["--fen", OAQ_FEN, "--moves", "1+"], 1, "1+");
    assert!(err.contains("empty"), "{err}");
    assert_refused("oaq", &["--fen", OAQ_FEN, "--moves", "10+"], 1, "10+");
    assert_refused("oaq", &["--fen", OAQ_FEN, "--moves", "4+ 4-"], 2, "4-");
    // A mandarin cell, and text that is no move.
    assert_refused("oaq", &["--fen", OAQ_FEN, "--moves", "4+ 10+ 6+"], 3, "6+");
    assert_refused("oaq", &["--fen", OAQ_FEN, "--moves", "4+ 10+ 5"], 3, "5");
    // From the standard start, a legal record then North's move on South's turn.
    assert_refused("oaq", &["--moves", "1+ 8+ 9+"], 3, "9+");
}

/// `--annotate` on an Ô Ăn Quan record judged by the solved game's table: the value before each
/// ply, the move's value (its gain minus what it leaves the opponent) and the seeds it gives
/// away; a Dara record without tables has null judgements.
#[test]
fn annotations_for_dara_and_oaq_records() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let solved = retro(
        &["solve", "oaq", "--rule", "seeds=1,0", "--dir", d, "-q"],
        None,
    );
    assert!(solved.status.success(), "{}", stderr(&solved));
    let out = retro(
        &[
            "analyse",
            "oaq",
            "--rule",
            "seeds=1,0",
            "--dir",
            d,
            "--moves",
            "1- 8+",
            "--annotate",
            "--json",
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let a = v["annotations"].as_array().unwrap();
    assert_eq!(a.len(), 2);
    // The start is worth +2 to South (the table); `1-` captures nothing and leaves North a
    // position worth +10 to it: -10 for South, 12 seeds given away.
    assert_eq!(a[0]["move"], "1-");
    assert_eq!(a[0]["before"]["score"], 2);
    assert_eq!(a[0]["after"]["score"], -10);
    assert_eq!(a[0]["changes_result"], "gives away 12 seeds");
    // North then plays a best move: its value is the position's, nothing given away.
    assert_eq!(a[1]["before"]["score"], 10);
    assert_eq!(a[1]["after"]["score"], 10);
    assert!(a[1]["changes_result"].is_null());
    let dara = retro(
        &[
            "analyse",
            "dara",
            "--moves",
            "c3 d3",
            "--annotate",
            "--json",
            "--depth",
            "1",
        ],
        None,
    );
    assert!(dara.status.success(), "{}", stderr(&dara));
    let v: Value = serde_json::from_str(stdout(&dara).trim()).unwrap();
    let a = v["annotations"].as_array().unwrap();
    assert_eq!(a.len(), 2);
    assert!(a
        .iter()
        .all(|x| x["before"].is_null() && x["after"].is_null()));
    assert_eq!(a[1]["side"], "black");
}
