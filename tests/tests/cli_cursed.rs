//! Cursed Mill wins: `retro analyse mill --removal` reports `removal_in` (the plies within which
//! the winner can force the next removal, keeping the win, against the longest resistance) and
//! `cursed` (whether the N-move rule draws the game first: removal_in > N - rule50), and
//! `retro play mill` makes a winning engine pick the fastest win that still beats the N-move
//! rule. Checked on Six Men's Morris and on Nine Men's Morris without flying up to 4 against 4:
//! the fields against the counter, against their own AND-OR recurrence and against a plain
//! recursive definition over the tables; the engine's games from the last safe counter (won by
//! the rules, even where the tables' first best move would run into the rule) and from a cursed
//! counter (drawn by the N-move rule against a loser who resists the removal).

use retro_engine::mill::{Mill, Position, Profile};
use retro_engine::Color;
use retro_solver::mill::Db;
use retro_tables::value::Value as V;
use retro_tests::{parse_json, retro, stderr, stdout};
use serde_json::Value;

const SIX: &str = "six-mens-morris";

/// A solved table directory with the rule arguments that name its profile, and the same tables
/// read through the library.
struct Tables {
    db: Db,
    rules: &'static [&'static str],
    dir: tempfile::TempDir,
}

impl Tables {
    fn solve(rules: &'static [&'static str], extra: &[&str], profile: Profile) -> Tables {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        let args = [&["solve", "mill"][..], rules, &["--dir", d, "-q"], extra].concat();
        let out = retro(&args, None);
        assert!(out.status.success(), "{}", stderr(&out));
        Tables {
            db: Db::new(Mill::new(profile), dir.path()),
            rules,
            dir,
        }
    }

    /// Six Men's Morris, every sector (a second or two).
    fn six() -> Tables {
        Tables::solve(&["--variant", SIX], &[], Profile::preset(SIX).unwrap())
    }

    /// Nine Men's Morris without flying, up to 4 against 4: a removal neither ends the game
    /// (above 3 stones) nor gives the loser wings.
    fn nine_without_flying() -> Tables {
        let mut profile = Profile::preset("nine-mens-morris").unwrap();
        profile.set("flying=false").unwrap();
        Tables::solve(&["--rule", "flying=false"], &["--max-stones", "4"], profile)
    }

    fn m(&self) -> &Mill {
        self.db.game()
    }

    fn fen(&self, p: &Position) -> String {
        self.m().format_fen(p)
    }

    /// `retro analyse mill --removal --json` of `p` under `--rule n-move-rule=N`.
    fn analyse(&self, p: &Position, n: u32) -> Value {
        self.analyse_with(p, n, &["--removal"])
    }

    /// `retro analyse mill --json EXTRA` from `p` under `--rule n-move-rule=N`.
    fn analyse_with(&self, p: &Position, n: u32, extra: &[&str]) -> Value {
        let fen = self.fen(p);
        let rule = format!("n-move-rule={n}");
        let d = self.dir.path().to_str().unwrap();
        let args = [
            &["analyse", "mill"][..],
            self.rules,
            &["--dir", d, "--json", "--rule", &rule, "--fen", &fen],
            extra,
        ]
        .concat();
        let out = retro(&args, None);
        assert!(out.status.success(), "{fen}: {}", stderr(&out));
        parse_json(&stdout(&out))
    }

    /// `retro play mill --json --as SEAT` from `p` under `--rule n-move-rule=N`: the whole
    /// stdout and the JSON summary (its last line).
    fn play(&self, p: &Position, n: u32, seat: &str, input: &str) -> (String, Value) {
        let fen = self.fen(p);
        let rule = format!("n-move-rule={n}");
        let d = self.dir.path().to_str().unwrap();
        let args = [
            &["play", "mill"][..],
            self.rules,
            &[
                "--dir", d, "--json", "--as", seat, "--rule", &rule, "--fen", &fen,
            ],
        ]
        .concat();
        let out = retro(&args, Some(input));
        let text = stdout(&out);
        assert!(out.status.success(), "{fen}: {}\n{text}", stderr(&out));
        let summary = text.lines().last().expect("some output");
        let summary = parse_json(summary);
        (text, summary)
    }

    /// The position after a compound move (panics when illegal).
    fn after(&self, p: &Position, text: &str) -> Position {
        let m = self.m();
        let mv = m.parse_move(p, text).unwrap();
        let mut list = Vec::new();
        m.moves(p, &mut list);
        list.into_iter()
            .find(|(x, _)| *x == mv)
            .unwrap_or_else(|| panic!("{text} is not legal in {}", self.fen(p)))
            .1
    }

    fn children(&self, p: &Position) -> Vec<(String, Position)> {
        let mut list = Vec::new();
        self.m().moves(p, &mut list);
        list.iter()
            .map(|(mv, q)| (self.m().format_move(mv), *q))
            .collect()
    }

    /// Whether `q` (any side to move) is won for `winner`, by the rules or by the tables.
    fn won_for(&self, q: &Position, winner: Color) -> bool {
        if let Some(o) = self.m().outcome(q) {
            return o.loser != Some(winner);
        }
        match self.db.value(q).unwrap() {
            V::Win(_) => q.side == winner,
            V::Loss(_) => q.side != winner,
            V::Draw => false,
        }
    }

    /// The plain definition, no memory: can `winner` force, within `d` plies from `p`, a ply
    /// that resets the counter (a removal) or ends the game, every one of its own moves on the
    /// way keeping the win by the tables?
    fn forced(&self, p: &Position, winner: Color, d: u32) -> bool {
        if self.m().outcome(p).is_some() {
            return true;
        }
        if d == 0 {
            return false;
        }
        let mut list = Vec::new();
        self.m().moves(p, &mut list);
        let reached = |q: &Position| {
            q.rule50 == 0 || self.m().outcome(q).is_some() || self.forced(q, winner, d - 1)
        };
        if p.side == winner {
            list.iter()
                .any(|(_, q)| self.won_for(q, winner) && reached(q))
        } else {
            list.iter().all(|(_, q)| reached(q))
        }
    }
}

/// The winner of a won or lost position (by its side to move and the analysed result).
fn winner(p: &Position, v: &Value) -> Color {
    match v["result"].as_str() {
        Some("win") => p.side,
        Some("loss") => p.side.other(),
        _ => panic!("not decided: {v}"),
    }
}

fn removal_in(v: &Value) -> u32 {
    v["removal_in"]
        .as_u64()
        .unwrap_or_else(|| panic!("no removal_in: {v}")) as u32
}

fn with_counter(p: &Position, rule50: u32) -> Position {
    Position {
        rule50: rule50 as u16,
        ..*p
    }
}

/// Random moving-phase positions (stone counts taken in turn from `counts`, side to move
/// random, counter 0), `tries` of them, through the FEN as the CLI reads them.
fn random_positions(t: &Tables, seed: u64, counts: &[(u32, u32)], tries: usize) -> Vec<Position> {
    let m = t.m();
    let mut seed = seed;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let points = m.geo.points as u64;
    (0..tries)
        .map(|i| {
            let (w, b) = counts[i % counts.len()];
            let mut pick = |count: u32, taken: u32| {
                let mut set = 0u32;
                while set.count_ones() < count {
                    let bit = 1u32 << (next() % points);
                    if (set | taken) & bit == 0 {
                        set |= bit;
                    }
                }
                set
            };
            let white = pick(w, 0);
            let black = pick(b, white);
            let mut p = m.start();
            p.stones = [white, black];
            p.hand = [0, 0];
            p.placing = false;
            p.side = if next() % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            m.parse_fen(&m.format_fen(&p)).unwrap()
        })
        .collect()
}

/// The [`random_positions`] not over whose table value passes `keep`.
fn sample(
    t: &Tables,
    seed: u64,
    counts: &[(u32, u32)],
    tries: usize,
    keep: impl Fn(V) -> bool,
) -> Vec<Position> {
    let mut out = random_positions(t, seed, counts, tries);
    out.retain(|p| t.m().outcome(p).is_none() && keep(t.db.value(p).unwrap()));
    out
}

const SIX_COUNTS: [(u32, u32); 10] = [
    (4, 3),
    (3, 4),
    (4, 4),
    (5, 4),
    (4, 5),
    (5, 5),
    (6, 5),
    (5, 6),
    (6, 6),
    (5, 3),
];

fn decided_within(v: V, plies: u16) -> bool {
    matches!(v, V::Win(d) | V::Loss(d) if d <= plies)
}

/// The N-move rule of the tests: small, so that the counters on both sides of every threshold
/// are valid FEN counters.
const N: u32 = 20;

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn cursed_turns_on_exactly_when_the_counter_passes_n_minus_removal_in() {
    let t = Tables::six();
    let ps = sample(&t, 0x5eed_0001, &SIX_COUNTS, 400, |v| decided_within(v, 15));
    let (mut wins, mut losses, mut records) = (0, 0, 0);
    for p in &ps {
        if wins + losses == 24 {
            break;
        }
        // As many lost positions (the loser's view) as won ones.
        let won = matches!(t.db.value(p).unwrap(), V::Win(_));
        if (won && wins == 12) || (!won && losses == 12) {
            continue;
        }
        let v = t.analyse(p, N);
        let plies = v["plies"].as_u64().unwrap() as u32;
        let d = removal_in(&v);
        // The tables' best moves end the game within its distance, the loser's longest
        // resistance included, and the end counts as reached: the next removal comes no later.
        assert!(
            (1..=plies).contains(&d),
            "{}: removal in {d}, {} in {plies}",
            t.fen(p),
            v["result"]
        );
        assert_eq!(v["cursed"], false, "{v}");
        match v["result"].as_str() {
            Some("win") => wins += 1,
            Some("loss") => losses += 1,
            _ => panic!("{v}"),
        }
        // The last safe counter and the first cursed one; the distance does not depend on it.
        for (counter, cursed) in [(N - d, false), (N - d + 1, true)] {
            let q = with_counter(p, counter);
            let w = t.analyse(&q, N);
            assert_eq!(w["fen"], t.fen(&q).as_str());
            assert_eq!(
                (&w["result"], &w["plies"], removal_in(&w)),
                (&v["result"], &v["plies"], d),
                "{w}"
            );
            assert_eq!(w["cursed"], cursed, "counter {counter}, N {N}: {w}");
        }
        // The rule off (N = 0): never cursed.
        let off = t.analyse(&with_counter(p, N - d + 1), 0);
        assert_eq!((removal_in(&off), &off["cursed"]), (d, &Value::Bool(false)));
        // A record (`--moves`) always adds the fields, for its last position and the counter
        // the record reached: here one winning move without a removal from the last safe
        // counter (d > 1: else the N-move rule ends the record), after which the other side's
        // view is analysed.
        let quiet = v["moves"].as_array().unwrap().iter().find_map(|row| {
            let mv = row["move"].as_str().unwrap();
            let q = t.after(p, mv);
            (t.won_for(&q, winner(p, &v)) && q.rule50 != 0 && t.m().outcome(&q).is_none())
                .then(|| mv.to_string())
        });
        if let (Some(mv), true) = (quiet, d > 1) {
            records += 1;
            let start = with_counter(p, N - d);
            let q = t.after(&start, &mv);
            let direct = t.analyse(&q, N);
            let e = removal_in(&direct);
            let rec = t.analyse_with(&start, N, &["--moves", &mv]);
            assert_eq!(rec["fen"], t.fen(&q).as_str(), "{rec}");
            assert_eq!(rec["rule50"], N - d + 1, "{rec}");
            assert_eq!(rec["plies_before_n_move_draw"], d - 1, "{rec}");
            assert_eq!(
                (removal_in(&rec), &rec["cursed"]),
                (e, &direct["cursed"]),
                "{rec}"
            );
            assert_eq!(direct["cursed"], e > d - 1, "{direct}");
        }
    }
    assert_eq!((wins, losses), (12, 12));
    assert!(records >= 12, "{records} records");

    // Draws and finished games (here a side to move without a legal move) have neither field.
    let draw = sample(&t, 0x5eed_0002, &SIX_COUNTS, 200, |v| v == V::Draw)[0];
    let over = random_positions(&t, 0x5eed_0002, &SIX_COUNTS, 20_000)
        .into_iter()
        .find(|p| t.m().outcome(p).is_some())
        .expect("a blocked position");
    for (p, result) in [(draw, "draw"), (over, "loss")] {
        let v = t.analyse(&p, N);
        assert_eq!(v["result"], result, "{v}");
        assert!(
            v.get("removal_in").is_none() && v.get("cursed").is_none(),
            "{v}"
        );
    }
}

#[test]
fn removal_in_follows_its_recurrence_from_both_sides() {
    // The winner to move: 1 when a winning move removes (or ends the game), else one more than
    // the smallest distance among its winning moves. The loser to move: 1 when every move of
    // its removes, else one more than the largest distance among the moves that do not. Each
    // child is analysed on its own, from the other side's point of view.
    let t = Tables::six();
    let ps = sample(&t, 0x5eed_0003, &SIX_COUNTS, 300, |v| decided_within(v, 13));
    let (mut wins, mut losses) = (0, 0);
    for p in ps.iter().take(16) {
        let v = t.analyse(p, N);
        let d = removal_in(&v);
        let w = winner(p, &v);
        let mut ds = Vec::new();
        let mut at_once = false;
        for (mv, q) in t.children(p) {
            if p.side == w && !t.won_for(&q, w) {
                continue;
            }
            if q.rule50 == 0 || t.m().outcome(&q).is_some() {
                at_once |= p.side == w;
                continue;
            }
            let c = t.analyse(&q, N);
            assert_eq!(winner(&q, &c), w, "{} after {mv}: {c}", t.fen(p));
            // The child's counter is 1 (one ply without a removal).
            assert_eq!(c["cursed"], removal_in(&c) > N - 1, "{c}");
            ds.push(removal_in(&c));
        }
        let want = if p.side == w {
            wins += 1;
            if at_once {
                1
            } else {
                1 + ds.iter().min().expect("a winning move")
            }
        } else {
            losses += 1;
            1 + ds.iter().max().unwrap_or(&0)
        };
        assert_eq!(d, want, "{}: {v}, children {ds:?}", t.fen(p));
    }
    assert!(wins >= 5 && losses >= 5, "{wins} wins, {losses} losses");
}

/// Checks the CLI's `removal_in` against [`Tables::forced`] on decided positions whose distance
/// is at most `max`; returns how many were checked.
fn check_plain_definition(t: &Tables, counts: &[(u32, u32)], seed: u64, max: u32) -> usize {
    let ps = sample(t, seed, counts, 3000, |v| decided_within(v, 25));
    let mut checked = 0;
    let mut seen = [0; 8];
    for p in &ps {
        if checked == 30 {
            break;
        }
        let v = t.analyse(p, N);
        let d = removal_in(&v);
        if d > max {
            continue;
        }
        checked += 1;
        seen[d as usize] += 1;
        let w = winner(p, &v);
        assert!(t.forced(p, w, d), "{}: not forced in {d}", t.fen(p));
        assert!(!t.forced(p, w, d - 1), "{}: forced in {}", t.fen(p), d - 1);
    }
    // Both sides' distances (the loser's are even when the winner removes).
    assert!(
        seen[1] > 0 && seen[2] > 0 && seen[3] > 0,
        "distances seen: {seen:?}"
    );
    checked
}

#[test]
fn removal_in_agrees_with_a_plain_recursive_definition() {
    let six = Tables::six();
    let n = check_plain_definition(&six, &SIX_COUNTS, 0x5eed_0004, 5);
    assert_eq!(n, 30);
    let nine = Tables::nine_without_flying();
    let counts = [(4, 4), (3, 4), (4, 3), (4, 4), (3, 3)];
    let n = check_plain_definition(&nine, &counts, 0x5eed_0005, 5);
    assert_eq!(n, 30);
}

/// The moves played by a game summary, replayed from `p`: the positions after each ply.
fn replay(t: &Tables, p: &Position, s: &Value) -> Vec<Position> {
    let mut x = *p;
    strings(&s["moves"])
        .iter()
        .map(|mv| {
            x = t.after(&x, mv);
            x
        })
        .collect()
}

#[test]
fn play_from_the_last_safe_counter_wins_even_where_the_tables_best_move_would_not() {
    let t = Tables::six();
    let m = t.m();
    let wins = sample(
        &t,
        0x5eed_0006,
        &SIX_COUNTS,
        20_000,
        |v| matches!(v, V::Win(d) if d <= 13),
    );
    // Wins at the last safe counter (N - removal_in): those where the tables' first best move
    // would leave the next removal too far (the engine must deviate), and others.
    let (mut scanned, mut found) = (0, 0);
    let (mut deviate, mut keep) = (Vec::new(), Vec::new());
    for p in &wins {
        if deviate.len() == 5 && keep.len() == 5 {
            break;
        }
        scanned += 1;
        let d = removal_in(&t.analyse(p, N));
        let p = with_counter(p, N - d);
        let v = t.analyse(&p, N);
        assert_eq!(v["cursed"], false, "{v}");
        let best = strings(&v["best"])[0].clone();
        let q = t.after(&p, &best);
        let beats = q.rule50 == 0 || m.outcome(&q).is_some() || t.forced(&q, p.side, d - 1);
        if !beats {
            found += 1;
            // The CLI agrees: after the move, with the loser to move and the counter at
            // N - d + 1, the win is cursed.
            assert_eq!(t.analyse(&q, N)["cursed"], true, "{}", t.fen(&q));
            if deviate.len() < 5 {
                deviate.push((p, d, v));
            }
        } else if keep.len() < 5 && (d > 1 || keep.is_empty()) {
            keep.push((p, d, v));
        }
    }
    eprintln!("{found} of {scanned} wins at the last safe counter need another move than the tables' first best");
    assert!(
        deviate.len() == 5 && keep.len() == 5,
        "{found} of {scanned}"
    );

    for (p, d, v) in deviate.iter().chain(&keep) {
        let side = p.side.name();
        let best = strings(&v["best"])[0].clone();
        // The expected first move: the fastest winning move (by the tables) whose next removal
        // still comes in time, the first of them in the tables' order.
        let mut candidates = Vec::new();
        for row in v["moves"].as_array().unwrap() {
            if row["result"] != "win" {
                continue;
            }
            let mv = row["move"].as_str().unwrap();
            let q = t.after(p, mv);
            if q.rule50 == 0 || m.outcome(&q).is_some() || t.forced(&q, p.side, d - 1) {
                candidates.push((row["plies"].as_u64().unwrap(), mv.to_string()));
            }
        }
        let fastest = candidates
            .iter()
            .map(|c| c.0)
            .min()
            .expect("a move in time");
        let (plies, want) = candidates.iter().find(|c| c.0 == fastest).unwrap();
        let deviates = *want != best;
        let source = if deviates {
            "tables, next removal before the N-move rule"
        } else {
            "tables"
        };
        let (text, s) = t.play(p, N, "none", "");
        let first = format!(
            "1 {side} plays {want} (win in {}; {source})",
            retro_tests::plies(plies)
        );
        assert!(
            text.lines().any(|l| l == first),
            "missing '{first}':\n{text}"
        );
        // The game is won by the rules, never drawn by the N-move rule.
        assert_eq!(s["game_over"], true, "{s}");
        assert_eq!(s["winner"], side, "{}: {s}", t.fen(p));
        assert!(
            s["reason"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{side} wins")),
            "{s}"
        );
        let line = replay(&t, p, &s);
        // Every later stretch starts from counter 0 and is not cursed either, so the engine,
        // which keeps a stretch in time whenever a winning move can, wins by the rules.
        for (i, x) in line.iter().enumerate() {
            if x.rule50 == 0 && m.outcome(x).is_none() {
                let after = t.analyse(x, N);
                assert_eq!(after["cursed"], false, "after ply {}: {after}", i + 1);
            }
        }
        let over = format!("Game over at ply {}: {side} wins", line.len());
        assert!(text.contains(&over), "missing '{over}':\n{text}");
        let end = line.last().unwrap();
        assert_eq!(m.outcome(end).and_then(|o| o.loser), Some(p.side.other()));
        assert_eq!(t.fen(end), s["fen"].as_str().unwrap());
        // Whatever the loser answers, the first removal comes within d plies.
        let reset = line.iter().position(|x| x.rule50 == 0).expect("a removal") + 1;
        assert!(
            reset <= *d as usize,
            "{}: first removal at ply {reset}, promised {d}",
            t.fen(p)
        );
    }
}

#[test]
fn a_cursed_win_is_drawn_by_the_n_move_rule_against_a_resisting_loser() {
    let t = Tables::six();
    let m = t.m();
    let wins = sample(
        &t,
        0x5eed_0007,
        &SIX_COUNTS,
        3000,
        |v| matches!(v, V::Win(d) if d <= 15),
    );
    // Two wins for each distance 3, 5 and 7, at the first cursed counter N - d + 1: the winner
    // has d - 1 plies left, one too few.
    let mut picked: Vec<(Position, u32)> = Vec::new();
    for p in &wins {
        let d = removal_in(&t.analyse(p, N));
        if [3, 5, 7].contains(&d) && picked.iter().filter(|x| x.1 == d).count() < 2 {
            picked.push((with_counter(p, N - d + 1), d));
        }
        if picked.len() == 6 {
            break;
        }
    }
    assert_eq!(picked.len(), 6);
    let mut drawn_by_the_engine = 0;
    for (p, d) in &picked {
        let left = d - 1;
        let w = p.side;
        let v = t.analyse(p, N);
        assert_eq!((removal_in(&v), &v["cursed"]), (*d, &Value::Bool(true)));
        assert!(!t.forced(p, w, left), "{}: forced in {left}", t.fen(p));
        let best = strings(&v["best"])[0].clone();
        let first = format!(
            "1 {} plays {best} (win in {}; tables)",
            w.name(),
            retro_tests::plies(&v["plies"])
        );

        // The loser is typed in and resists: each of its moves leaves the winner unable to
        // force a removal within the plies left (by the plain definition). Such a move always
        // exists in a cursed win, and no winning move escapes, so the engine keeps the tables'
        // best moves and the counter reaches N at ply `left`, before any threefold repetition
        // (left <= 6 plies).
        let mut input = String::new();
        let (text, s) = loop {
            let (text, s) = t.play(p, N, w.other().name(), &input);
            if s["game_over"] == true {
                break (text, s);
            }
            assert_eq!(s["reason"], "end of input", "{s}");
            let line = replay(&t, p, &s);
            let x = *line.last().unwrap_or(p);
            assert_eq!(x.side, w.other(), "{text}");
            let r = left - line.len() as u32;
            let (mv, _) = t
                .children(&x)
                .into_iter()
                .find(|(_, y)| y.rule50 != 0 && m.outcome(y).is_none() && !t.forced(y, w, r - 1))
                .unwrap_or_else(|| panic!("{}: no resisting move in {}", t.fen(p), t.fen(&x)));
            input.push_str(&format!("{mv}\n"));
            assert!(line.len() < left as usize, "{text}");
        };
        let reason = format!("N-move rule ({N} plies without a removal or placement)");
        assert_eq!(
            (&s["reason"], &s["ended_at_ply"], &s["result"]),
            (
                &Value::from(reason.as_str()),
                &Value::from(left),
                &Value::from("draw")
            ),
            "{}: {text}",
            t.fen(p)
        );
        assert!(
            text.contains(&format!("Game over at ply {left}: {reason}.")),
            "{text}"
        );
        assert!(
            text.lines().any(|l| l == first),
            "missing '{first}':\n{text}"
        );
        let engine: Vec<&str> = text
            .lines()
            .filter(|l| l.contains(" plays ") && l.ends_with(')'))
            .collect();
        assert_eq!(engine.len(), (left as usize).div_ceil(2), "{text}");
        for l in engine {
            assert!(
                l.contains(&format!(" {} plays ", w.name()))
                    && l.contains("(win in ")
                    && l.ends_with("; tables)"),
                "{l}"
            );
        }

        // The engine on both sides: its loser plays the tables' longest loss, which need not
        // resist the removal, so the game may end either way. What is certain: the winner keeps
        // the tables' first best move at the start (no winning move escapes the rule), the
        // loser never wins (the winner only plays winning moves), and if no removal came within
        // the plies left, the N-move rule ended the game right there.
        let (text, s) = t.play(p, N, "none", "");
        assert!(
            text.lines().any(|l| l == first),
            "missing '{first}':\n{text}"
        );
        assert_eq!(s["game_over"], true, "{s}");
        assert_ne!(s["winner"], w.other().name(), "{s}");
        let line = replay(&t, p, &s);
        if !line.iter().take(left as usize).any(|x| x.rule50 == 0) {
            drawn_by_the_engine += 1;
            assert_eq!(s["ended_at_ply"], left, "{s}");
            assert_eq!(s["reason"], reason.as_str(), "{s}");
        }
    }
    eprintln!(
        "{drawn_by_the_engine} of {} cursed wins drawn by the N-move rule with the engine on both sides",
        picked.len()
    );
}
