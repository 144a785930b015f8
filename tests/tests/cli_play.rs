//! `retro play mill|dara|oaq` driven through stdin: the engine plays perfectly from the tables
//! (the shortest win, the longest loss), games end by the rules, by threefold repetition or by
//! the N-move rule and say so, `undo`, `hint`, `moves`, `fen` and `quit` work, an illegal move
//! is reported and the game goes on, and bad arguments are refused.

use retro_engine::dara::{Dara, DaraProfile};
use retro_engine::mill::{EndReason, Mill, Position, Profile};
use retro_engine::Color;
use retro_tests::{parse_json, retro, stderr, stdout};
use serde_json::Value;
use std::collections::HashMap;

const SIX: &str = "six-mens-morris";

/// A Six Men's Morris moving-phase position, 4 White stones against 3, White to move: a win in
/// 7 plies by the tables (found by analysing random 4-against-3 positions with
/// `retro analyse mill --batch`). Inner square c4 d4 d3 d2 c2 b2 b3 b4 = O * @ O * * * *,
/// outer c5 e5 e3 e1 c1 a1 a3 a5 = @ @ O * O * * *: White c4 d2 e3 c1, Black d3 c5 e5.
const WIN7: &str = "O*@O****/@@O*O*** w m s 4 0 3 0 0 0 0 0 0 0 0 0 1";

fn solved_six() -> tempfile::TempDir {
    retro_tests::solved_mill(SIX)
}

/// `retro analyse mill --variant six-mens-morris --dir D --json [--fen F] [--moves M]`.
fn analyse_six(dir: &str, fen: Option<&str>, moves: &[String]) -> Value {
    let mut args = vec!["analyse", "mill", "--variant", SIX, "--dir", dir, "--json"];
    if let Some(f) = fen {
        args.extend(["--fen", f]);
    }
    let record = moves.join(" ");
    if !moves.is_empty() {
        args.extend(["--moves", &record]);
    }
    let out = retro(&args, None);
    assert!(out.status.success(), "{}", stderr(&out));
    parse_json(&stdout(&out))
}

/// Runs `retro play` with the given stdin; returns the whole stdout (after checking exit 0).
fn play(args: &[&str], input: &str) -> String {
    let mut all = vec!["play"];
    all.extend_from_slice(args);
    let out = retro(&all, Some(input));
    assert!(
        out.status.success(),
        "retro {all:?} failed: {}\n{}",
        stderr(&out),
        stdout(&out)
    );
    stdout(&out)
}

/// The JSON summary: the last line of stdout.
fn summary(text: &str) -> Value {
    parse_json(text.lines().last().expect("some output"))
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

fn six() -> Mill {
    Mill::new(Profile::preset(SIX).unwrap())
}

/// Plays a compound move with the engine (panics when illegal).
fn mill_after(m: &Mill, p: &Position, text: &str) -> Position {
    let mv = m.parse_move(p, text).unwrap();
    let mut list = Vec::new();
    m.moves(p, &mut list);
    list.into_iter()
        .find(|(x, _)| *x == mv)
        .unwrap_or_else(|| panic!("{text} is not legal in {}", m.format_fen(p)))
        .1
}

fn mill_legal(m: &Mill, p: &Position) -> Vec<String> {
    let mut list = Vec::new();
    m.moves(p, &mut list);
    let mut out: Vec<String> = list.iter().map(|(x, _)| m.format_move(x)).collect();
    out.sort();
    out
}

/// Lines of stdout that are Six Men's Morris FENs (the answers to `fen`).
fn fen_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            f.len() == 17 && f[0].len() == 17 && f[0].as_bytes()[8] == b'/'
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn mill_engine_wins_in_the_promised_plies_against_the_longest_defence() {
    let dir = solved_six();
    let d = dir.path().to_str().unwrap();
    let v = analyse_six(d, Some(WIN7), &[]);
    assert_eq!(v["result"], "win");
    let n = v["plies"].as_u64().unwrap() as usize;
    assert_eq!(n, 7);

    // The line of perfect play from the tables: White (the engine) plays the first of its best
    // moves (what `retro play` plays); Black (the user) plays the last of its best moves, a
    // longest loss, which need not be what the engine would have chosen for Black. At every
    // step the value counts down by one ply.
    let mut line: Vec<String> = Vec::new();
    let mut white = true;
    loop {
        let v = analyse_six(d, Some(WIN7), &line);
        if v["game_over"] == true {
            break;
        }
        let left = (n - line.len()) as u64;
        let best = strings(&v["best"]);
        if white {
            assert_eq!(
                (v["result"].as_str(), v["plies"].as_u64()),
                (Some("win"), Some(left))
            );
            line.push(best[0].clone());
        } else {
            assert_eq!(
                (v["result"].as_str(), v["plies"].as_u64()),
                (Some("loss"), Some(left))
            );
            line.push(best.last().unwrap().clone());
        }
        white = !white;
        assert!(
            line.len() <= n,
            "the line overshoots the promised {n} plies: {line:?}"
        );
    }
    assert_eq!(line.len(), n, "{line:?}");

    // The user's moves on stdin, the engine's computed by `retro play` itself.
    let input: String = line
        .iter()
        .skip(1)
        .step_by(2)
        .map(|m| format!("{m}\n"))
        .collect();
    let text = play(
        &[
            "mill",
            "--variant",
            SIX,
            "--dir",
            d,
            "--fen",
            WIN7,
            "--as",
            "black",
            "--json",
        ],
        &input,
    );
    for (i, mv) in line.iter().enumerate() {
        let ply = i + 1;
        let want = if i % 2 == 0 {
            format!(
                "{ply} white plays {mv} (win in {}; tables)",
                retro_tests::plies(n - i)
            )
        } else {
            format!("{ply} black plays {mv}")
        };
        assert!(
            text.lines().any(|l| l == want),
            "missing line '{want}':\n{text}"
        );
    }
    assert!(
        text.contains(&format!("Game over at ply {n}: white wins")),
        "{text}"
    );
    let s = summary(&text);
    assert_eq!(s["game_over"], true);
    assert_eq!(s["ended_at_ply"], n);
    assert_eq!(strings(&s["moves"]), line);
    assert!(
        s["reason"].as_str().unwrap().starts_with("white wins"),
        "{s}"
    );
    // "result" is for the side named in the final FEN. The reference app's FEN of a finished
    // game keeps the last mover there (`w o`: White, game over), so it reads "win" for White.
    // (Dara's final position names the loser, whose result is "loss": see the Dara test.)
    let m = six();
    let end = m.parse_fen(s["fen"].as_str().unwrap()).unwrap();
    let over = m.outcome(&end).expect("the final position is over");
    assert_eq!(over.loser, Some(Color::Black));
    // The reason in words (Six Men's Morris: a side with fewer than 3 stones loses).
    let why = match over.reason {
        EndReason::TooFewStones => "fewer than 3 stones",
        r => r.describe(),
    };
    assert_eq!(s["reason"], format!("white wins ({why})"), "{s}");
    let fields: Vec<&str> = s["fen"].as_str().unwrap().split(' ').collect();
    assert_eq!(&fields[1..3], ["w", "o"], "{s}");
    assert_eq!(s["result"], "win");
    let mut p = m.parse_fen(WIN7).unwrap();
    for mv in &line {
        p = mill_after(&m, &p, mv);
    }
    assert_eq!(m.format_fen(&p), s["fen"]);
}

/// A key for the repetition rule: the position without its two counters.
fn mill_key(p: &Position) -> Position {
    let mut k = *p;
    k.rule50 = 0;
    k.fullmove = 0;
    k
}

#[test]
fn mill_engine_against_itself_draws_from_the_start() {
    let dir = solved_six();
    let d = dir.path().to_str().unwrap();
    // The solved value of the start is a draw.
    assert_eq!(analyse_six(d, None, &[])["result"], "draw");
    let text = play(
        &[
            "mill",
            "--variant",
            SIX,
            "--dir",
            d,
            "--as",
            "none",
            "--json",
        ],
        "",
    );
    let s = summary(&text);
    assert_eq!(s["game_over"], true, "{s}");
    assert_eq!(s["result"], "draw");
    let moves = strings(&s["moves"]);
    let n = moves.len();
    assert_eq!(s["ended_at_ply"], n);
    assert!(n > 12, "the game ends after the placement phase: {moves:?}");
    // Every engine move keeps the draw (perfect play never throws it away).
    let plays: Vec<&str> = text.lines().filter(|l| l.contains(" plays ")).collect();
    assert_eq!(plays.len(), n);
    for (i, l) in plays.iter().enumerate() {
        let side = if i % 2 == 0 { "white" } else { "black" };
        assert_eq!(
            *l,
            format!("{} {side} plays {} (draw; tables)", i + 1, moves[i]),
            "{text}"
        );
    }
    assert!(
        text.contains(&format!(
            "Game over at ply {n}: {}.",
            s["reason"].as_str().unwrap()
        )),
        "{text}"
    );
    // Replay with the engine: the game really ends where and why the summary says, and not
    // earlier.
    let m = six();
    let mut p = m.start();
    let mut seen: HashMap<Position, u32> = HashMap::from([(mill_key(&p), 1)]);
    for (i, mv) in moves.iter().enumerate() {
        p = mill_after(&m, &p, mv);
        assert!(m.outcome(&p).is_none());
        let count = seen.entry(mill_key(&p)).or_insert(0);
        *count += 1;
        let last = i + 1 == n;
        let repeated = *count >= 3;
        let n_move = u32::from(p.rule50) >= m.profile.n_move_rule;
        assert_eq!(repeated || n_move, last, "ply {}: {mv}", i + 1);
        if last {
            if repeated {
                assert_eq!(s["reason"], "threefold repetition");
            } else {
                assert!(
                    s["reason"].as_str().unwrap().starts_with("N-move rule"),
                    "{s}"
                );
            }
        }
    }
    assert_eq!(m.format_fen(&p), s["fen"]);
}

#[test]
fn mill_undo_hint_moves_fen_quit_and_illegal_moves() {
    let dir = solved_six();
    let d = dir.path().to_str().unwrap();
    let m = six();
    let start = m.parse_fen(WIN7).unwrap();
    let f0 = m.format_fen(&start);
    let legal = mill_legal(&m, &start);
    let table = analyse_six(d, Some(WIN7), &[]);

    // The user plays White (first), the engine Black.
    let script = "undo\nfen\nmoves\nhint\ne3-e5\nc4-b4\nfen\nundo\nfen\nc4-b4\nfen\n";
    let text = play(
        &[
            "mill",
            "--variant",
            SIX,
            "--dir",
            d,
            "--fen",
            WIN7,
            "--as",
            "white",
            "--json",
        ],
        script,
    );
    let lines: Vec<&str> = text.lines().collect();
    // `undo` before any move.
    assert!(lines.contains(&"nothing to undo"), "{text}");
    // `moves`: the legal moves, sorted, on one line.
    assert!(lines.contains(&legal.join(" ").as_str()), "{text}");
    // `hint`: the value, then every legal move with its value from the tables.
    assert!(lines.contains(&"Value: win in 7 plies (tables)"), "{text}");
    let best = strings(&table["best"]);
    assert!(
        lines.contains(&format!("Best: {}", best.join(" ")).as_str()),
        "{text}"
    );
    let hinted: Vec<(String, String)> = lines
        .iter()
        .filter(|l| l.starts_with("  ") && !l.trim().is_empty())
        .filter_map(|l| {
            let t = l.trim();
            let (mv, value) = t.split_once(' ')?;
            legal
                .contains(&mv.to_string())
                .then(|| (mv.to_string(), value.trim().to_string()))
        })
        .collect();
    let mut names: Vec<String> = hinted.iter().map(|h| h.0.clone()).collect();
    names.sort();
    assert_eq!(names, legal, "{text}");
    for row in table["moves"].as_array().unwrap() {
        let mv = row["move"].as_str().unwrap();
        let want = match row["result"].as_str().unwrap() {
            "draw" => "draw".to_string(),
            r => format!("{r} in {}", retro_tests::plies(&row["plies"])),
        };
        let got = &hinted.iter().find(|h| h.0 == mv).unwrap().1;
        assert_eq!(got, &want, "{mv}");
    }
    // The illegal move is reported with its ply; the game goes on.
    assert!(
        lines.iter().any(|l| l.starts_with("ply 1: move 'e3-e5'")
            && l.ends_with("(type 'moves' for the legal moves, 'help' for commands)")),
        "{text}"
    );
    // c4-b4 and the engine's reply (the first of Black's best moves by the tables: a longest
    // loss, 6 plies).
    let v1 = analyse_six(d, Some(WIN7), &["c4-b4".to_string()]);
    let reply = strings(&v1["best"])[0].clone();
    let want = format!("2 black plays {reply} (loss in 6 plies; tables)");
    assert_eq!(
        lines
            .iter()
            .filter(|l| **l == "1 white plays c4-b4")
            .count(),
        2,
        "{text}"
    );
    assert_eq!(lines.iter().filter(|l| **l == want).count(), 2, "{text}");
    // `undo` took back the user's move and the engine's reply, back to the position before.
    assert!(
        lines.contains(&format!("took back c4-b4 {reply}").as_str()),
        "{text}"
    );
    let f2 = m.format_fen(&mill_after(&m, &mill_after(&m, &start, "c4-b4"), &reply));
    assert_eq!(fen_lines(&text), [&*f0, &*f2, &*f0, &*f2]);
    assert!(
        text.contains("Game unfinished (end of input) at ply 2."),
        "{text}"
    );
    let s = summary(&text);
    assert_eq!(s["game_over"], false);
    assert_eq!(s["reason"], "end of input");
    assert_eq!(strings(&s["moves"]), ["c4-b4".to_string(), reply.clone()]);
    assert_eq!(s["fen"], f2.as_str());

    // `quit` leaves the game; nothing after it is read.
    let from_win7 = |input: &str| {
        let args = [
            "mill",
            "--variant",
            SIX,
            "--dir",
            d,
            "--fen",
            WIN7,
            "--json",
        ];
        play(&args, input)
    };
    let text = from_win7("c4-b4\nquit\nc4-d4\n");
    assert!(text.contains("Game left at ply 2."), "{text}");
    let s = summary(&text);
    assert_eq!(s["reason"], "quit");
    assert_eq!(s["moves"].as_array().unwrap().len(), 2);

    // `resign` ends the game: the side to move loses (it was `quit` under another name).
    let text = from_win7("c4-b4\nresign\nc4-d4\n");
    assert!(
        text.contains("white resigns at ply 2: black wins."),
        "{text}"
    );
    let s = summary(&text);
    assert_eq!(
        (&s["reason"], &s["resigned"], &s["winner"], &s["game_over"]),
        (
            &serde_json::json!("resignation"),
            &serde_json::json!("white"),
            &serde_json::json!("black"),
            &serde_json::json!(true)
        ),
        "{s}"
    );
    assert_eq!(s["ended_at_ply"], 2, "{s}");

    // `--as both`: the engine does not move; each line is one side's move.
    let text = play(
        &[
            "mill",
            "--variant",
            SIX,
            "--dir",
            d,
            "--fen",
            WIN7,
            "--as",
            "both",
            "--json",
        ],
        &format!("c4-b4\n{reply}\nundo\n"),
    );
    assert!(
        text.lines().any(|l| l == format!("2 black plays {reply}")),
        "{text}"
    );
    assert!(
        !text.contains("(loss in"),
        "the engine played a move: {text}"
    );
    assert!(
        text.lines().any(|l| l == format!("took back {reply}")),
        "{text}"
    );
    assert_eq!(strings(&summary(&text)["moves"]), ["c4-b4"]);
}

#[test]
fn dara_engine_against_itself_reaches_the_analysed_result() {
    // Move phase, White a5 b5 d4 f1 against Black a1 c1 e1, White to move. White threatens
    // d4-c4 then c4-c5 (or d4-d5 then d5-c5), an exact three a5-b5-c5 that takes Black down to
    // two stones; Black, far away, cannot stop it: a proven win in 3 plies.
    let fen = "WW..../...W../....../....../B.B.BW w 0 0";
    let empty = tempfile::tempdir().unwrap();
    let e = empty.path().to_str().unwrap();
    let out = retro(
        &[
            "analyse", "dara", "--dir", e, "--fen", fen, "--depth", "5", "--json",
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v = parse_json(&stdout(&out));
    assert_eq!(v["proven"], true, "{v}");
    assert_eq!(v["result"], "win");
    assert_eq!(v["plies"], 3);

    // Engine against itself with a depth-2 search (no tables): it need not find the fastest
    // win, but the game must end with White winning, as analysed.
    let text = play(
        &[
            "dara", "--dir", e, "--fen", fen, "--as", "none", "--depth", "2", "--json",
        ],
        "",
    );
    let s = summary(&text);
    assert_eq!(s["game_over"], true, "{text}");
    let n = s["ended_at_ply"].as_u64().unwrap() as usize;
    let moves = strings(&s["moves"]);
    assert_eq!(moves.len(), n);
    let reason = s["reason"].as_str().unwrap();
    assert!(reason.starts_with("white wins"), "{reason}");
    assert!(
        text.contains(&format!("Game over at ply {n}: {reason}.")),
        "{text}"
    );
    // The loser is to move at the end.
    assert_eq!(s["result"], "loss");
    assert_eq!(
        text.lines().filter(|l| l.contains(" plays ")).count(),
        n,
        "{text}"
    );
    // Replay with the engine: every move legal, the game over only at the end, Black lost.
    let g = Dara::new(DaraProfile::default());
    let mut p = g.parse_position(fen).unwrap();
    for mv in &moves {
        assert!(g.outcome(&p).is_none());
        p = g.parse_move(&p, mv).unwrap().1;
    }
    assert_eq!(g.outcome(&p).map(|o| o.0), Some(Color::Black));
    assert_eq!(g.format_position(&p), s["fen"]);
}

/// The net of a finished game for `side` (0 South, 1 North) from a position with the given
/// stores: what it gained minus what the opponent gained.
fn net(s: &Value, start_stores: [i64; 2], side: usize) -> i64 {
    let f = [
        s["final_stores"]["south"].as_i64().unwrap(),
        s["final_stores"]["north"].as_i64().unwrap(),
    ];
    (f[side] - start_stores[side]) - (f[1 - side] - start_stores[1 - side])
}

#[test]
fn oaq_engine_against_itself_realises_the_solved_value() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let rules = ["--rule", "seeds=1,0", "--dir", d];
    let out = retro(&[&["solve", "oaq"][..], &rules].concat(), None);
    assert!(out.status.success(), "{}", stderr(&out));
    let analyse = |fen: Option<&str>| {
        let mut args = [&["analyse", "oaq", "--json"][..], &rules].concat();
        if let Some(f) = fen {
            args.extend(["--fen", f]);
        }
        let out = retro(&args, None);
        assert!(out.status.success(), "{}", stderr(&out));
        parse_json(&stdout(&out))
    };
    let start = analyse(None);
    assert_eq!(start["source"], "table");
    let value = start["score"].as_i64().unwrap();

    // Both sides play the table's best moves. The value is the best future net score the
    // mover can force (RULES.md 3.9); every ply realises gain - value(child) = value(parent),
    // so when the game ends by the rules the realised net (final stores minus the stores at
    // the start, the mover's minus the opponent's) telescopes to the value. Were the game to
    // end by repetition or by the N-move rule instead, the board's seeds would go to nobody and
    // the realised net would be the gains so far only: that is the value only when the table
    // gives 0 for endless play (3.9: no side can force a finite game with a gain). The engine's
    // games here all end by the rules, which the test checks first.
    let check = |fen: Option<&str>, v: &Value| {
        let mut args = vec![
            "oaq",
            "--rule",
            "seeds=1,0",
            "--dir",
            d,
            "--as",
            "none",
            "--json",
        ];
        if let Some(f) = fen {
            args.extend(["--fen", f]);
        }
        let text = play(&args, "");
        let s = summary(&text);
        assert_eq!(s["game_over"], true, "{text}");
        let reason = s["reason"].as_str().unwrap();
        assert!(
            reason.contains(" wins, south ") || reason.starts_with("a draw, south "),
            "the game should end by the rules: {reason}"
        );
        let p: Vec<&str> = v["fen"].as_str().unwrap().split(' ').collect();
        let stores = [p[2].parse().unwrap(), p[3].parse().unwrap()];
        let mover = usize::from(p[1] == "n");
        assert_eq!(
            net(&s, stores, mover),
            v["score"].as_i64().unwrap(),
            "from {}: {text}",
            v["fen"]
        );
        // The engine's moves are the table's best, and each says its value.
        let first = text.lines().find(|l| l.starts_with("1 ")).unwrap();
        let best = strings(&v["best"]);
        assert_eq!(
            first,
            format!(
                "1 {} plays {} (score {}; table)",
                ["south", "north"][mover],
                best[0],
                v["score"]
            )
        );
        s
    };
    let s = check(None, &start);
    // From the start the stores are 0 0: South's final store minus North's is the value.
    let f = &s["final_stores"];
    assert_eq!(
        f["south"].as_i64().unwrap() - f["north"].as_i64().unwrap(),
        value
    );

    // The same from every position after South's first move where the game goes on (North to
    // move, its own value from the table).
    let g = {
        let mut profile = retro_engine::oaq::OaqProfile::default();
        profile.set("seeds=1,0").unwrap();
        retro_engine::oaq::Oaq::new(profile)
    };
    let mut list = Vec::new();
    g.moves(&g.start(), &mut list);
    let mut tried = 0;
    for (_, t) in &list {
        if g.outcome(&t.position).is_some() {
            continue;
        }
        let fen = g.format_position(&t.position);
        let v = analyse(Some(&fen));
        check(Some(&fen), &v);
        tried += 1;
    }
    assert!(tried >= 3, "{tried} positions");
}

#[test]
fn oaq_users_play_a_repetition_with_undo() {
    // Both sides typed in (`--as both`). The hand-built four-ply quiet cycle of
    // cli_record_games.rs: 4+ (into 5, before the full mandarin 6), 10+ (into 11, before 0),
    // 5- and 11- back (two empty cells end each turn). The start occurs at plies 0, 4 and 8.
    // After ply 4 an `undo` takes back 11- (one ply: the other side is a user too) and 11- is
    // played again: the start is then at its second occurrence, not the third, so the game
    // goes on until ply 8. An illegal move and `moves` on the way change nothing.
    let fen = "10,0,0,0,1,0,10,0,0,0,1,0 s 20 28 0";
    let empty = tempfile::tempdir().unwrap();
    let e = empty.path().to_str().unwrap();
    let input = "moves\n4+\n10+\n5-\n11-\nundo\n11-\n4+\n1+\n10+\n5-\n11-\n4+\n";
    let text = play(
        &["oaq", "--dir", e, "--fen", fen, "--as", "both", "--json"],
        input,
    );
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.contains(&"4+ 4-"), "{text}");
    assert!(lines.contains(&"took back 11-"), "{text}");
    assert!(
        lines.iter().any(|l| l.starts_with("ply 6: move '1+'")),
        "{text}"
    );
    assert!(
        text.contains("Game over at ply 8: threefold repetition."),
        "{text}"
    );
    // The 4+ after the end is never read as a move.
    assert!(!text.contains("9 south plays"), "{text}");
    let s = summary(&text);
    assert_eq!(s["game_over"], true);
    assert_eq!(s["ended_at_ply"], 8);
    assert_eq!(s["reason"], "threefold repetition");
    assert_eq!(s["fen"], fen);
    assert_eq!(s["final_stores"]["south"], 20);
    assert_eq!(s["final_stores"]["north"], 28);
    assert_eq!(s["winner"], "north");
    assert_eq!(
        strings(&s["moves"]),
        ["4+", "10+", "5-", "11-", "4+", "10+", "5-", "11-"]
    );

    // The N-move rule in play: 3 plies.
    let text = play(
        &[
            "oaq",
            "--dir",
            e,
            "--fen",
            fen,
            "--as",
            "both",
            "--rule",
            "n-move-rule=3",
            "--json",
        ],
        "4+\n10+\n5-\n11-\n",
    );
    assert!(
        text.contains("Game over at ply 3: N-move rule (3 plies without a capture or a refill)."),
        "{text}"
    );
    assert_eq!(summary(&text)["ended_at_ply"], 3);
}

#[test]
fn bad_arguments_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let cases: [(&[&str], &str); 8] = [
        (&["mill", "--variant", SIX, "--as", "purple"], "--as purple"),
        (&["dara", "--as", "purple"], "--as purple"),
        (&["oaq", "--as", "purple"], "--as purple"),
        (&["mill", "--variant", SIX, "--fen", "xyz"], "field"),
        (
            &["dara", "--fen", "WW..../...W../....../..... w 0 0"],
            "board",
        ),
        (&["oaq", "--fen", "1,2,3 s 0 0 1"], "cells"),
        (
            &["oaq", "--fen", "10,0,0,0,1,0,10,0,0,0,1,0 x 20 28 0"],
            "side",
        ),
        (&["dara", "--rule", "n-move-rule=many"], "n-move-rule"),
    ];
    for (args, needle) in cases {
        let mut all = vec!["play"];
        all.extend_from_slice(args);
        all.extend(["--dir", d]);
        // No stdin: the process exits before reading it (a write could meet a closed pipe).
        let out = retro(&all, None);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(needle), "{all:?}: {err}");
        assert!(
            stdout(&out).is_empty(),
            "{all:?} printed a game: {}",
            stdout(&out)
        );
    }
}
