//! Differential test: the bitboard Mill engine (`retro_engine::mill`) against a deliberately
//! simple array-based generator written from the rules doc (`slow_mill`).
//!
//! For every preset, random playouts (split steps, and separately compound moves) visit at least
//! 100,000 positions; at each one the two generators must agree on the split steps, the compound
//! moves, the game-over verdict, and the FEN after every step and every compound move.

mod slow_mill;

use retro_engine::mill::{EndReason, Mill, Position, Profile, StepList, PRESETS};
use retro_engine::Color;
use retro_tests::{reference, REFERENCE_PRESETS};
use slow_mill::{SlowEnd, SlowMill, SlowPos, SlowStep, B, MARKED, W};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Positions per preset, over both forms.
const MIN_POSITIONS: u64 = 100_000;
/// Positions visited by split-step playouts before switching to compound-move playouts.
const SPLIT_POSITIONS: u64 = 70_000;
/// Plies (split steps or compound moves) per playout.
const MAX_PLIES: usize = 300;

/// For longer soak runs: `RETRO_MILL_DIFF_SCALE=10` visits ten times as many positions,
/// `RETRO_MILL_DIFF_SEED=n` changes the random games.
fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// xorshift64* — deterministic, no crates.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// How a playout picks its moves.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Policy {
    /// Uniformly at random.
    Uniform,
    /// While placing, avoid moves that close a mill (fills the board: board-full rules, Zhi Qi
    /// stalemates, El Filja mill counts).
    Quiet,
    /// Prefer moves that close a mill (reaches flying and the end of the game).
    Greedy,
}

const POLICIES: [Policy; 3] = [Policy::Uniform, Policy::Quiet, Policy::Greedy];

/// What was seen, for the report.
#[derive(Default)]
struct Stats {
    split_positions: u64,
    compound_positions: u64,
    steps: u64,
    compound_moves: u64,
    games: u64,
    ends: [u64; 3],
    capped: u64,
    flying: u64,
    stalemate_removal: u64,
    own_removal: u64,
    both_owe: u64,
    marked: u64,
    multi_removal_moves: u64,
    board_full: u64,
    hand_removal: u64,
}

struct Ctx {
    name: &'static str,
    eng: Mill,
    slow: SlowMill,
}

fn color_index(c: Color) -> usize {
    match c {
        Color::White => W,
        Color::Black => B,
    }
}

fn reason_matches(r: EndReason, s: SlowEnd) -> bool {
    matches!(
        (r, s),
        (EndReason::BoardFull, SlowEnd::BoardFull)
            | (EndReason::TooFewStones, SlowEnd::TooFewStones)
            | (EndReason::NoLegalMove, SlowEnd::NoLegalMove)
    )
}

fn list(v: &[String]) -> String {
    v.join(" ")
}

/// Whether a step (or compound move) from `before` to `after` scored a mill: the mover owes a
/// removal afterwards, removed something, or took a stone from the opponent's hand.
fn scored(before: &SlowPos, after: &SlowPos, text: &str) -> bool {
    let s = before.side;
    text.contains('x')
        || (after.side == s && after.pending[s] > 0 && before.pending[s] == 0)
        || after.hand[1 - s] < before.hand[1 - s]
}

fn pick(rng: &mut Rng, policy: Policy, before: &SlowPos, options: &[(&SlowPos, &str)]) -> usize {
    let wanted: Vec<usize> = match policy {
        Policy::Uniform => Vec::new(),
        Policy::Quiet if before.placing => (0..options.len())
            .filter(|&i| !scored(before, options[i].0, options[i].1))
            .collect(),
        Policy::Quiet => Vec::new(),
        Policy::Greedy => (0..options.len())
            .filter(|&i| scored(before, options[i].0, options[i].1))
            .collect(),
    };
    if !wanted.is_empty() && rng.chance(90) {
        wanted[rng.below(wanted.len())]
    } else {
        rng.below(options.len())
    }
}

/// One compared step: its text and the position after it in both generators.
type StepPair = (String, Position, SlowPos);

impl Ctx {
    fn new(name: &'static str) -> Ctx {
        Ctx::with(name, Profile::preset(name).unwrap())
    }

    fn with(name: &'static str, profile: Profile) -> Ctx {
        Ctx {
            name,
            eng: Mill::new(profile.clone()),
            slow: SlowMill::new(&profile),
        }
    }

    fn fail(&self, fen: &str, what: &str, engine: &str, slow: &str) -> ! {
        panic!(
            "{}: {what} differs at\n  {fen}\n  engine: {engine}\n  slow:   {slow}",
            self.name
        );
    }

    /// Compares everything about one position; returns the split steps and the compound moves
    /// (both generators' results, matched by text), empty when the game is over.
    fn compare(
        &self,
        e: &Position,
        s: &SlowPos,
        stats: &mut Stats,
    ) -> (Vec<StepPair>, Vec<StepPair>) {
        let (eng, slow) = (&self.eng, &self.slow);
        let fen = eng.format_fen(e);
        let slow_fen = slow.fen(s);
        if fen != slow_fen {
            self.fail(&fen, "FEN", &fen, &slow_fen);
        }
        // The slow FEN reader must give back the same position.
        let mut parsed = slow
            .parse_fen(&fen)
            .unwrap_or_else(|err| panic!("{}: slow parser rejects {fen}: {err}", self.name));
        if fen.split(' ').nth(2) == Some("o") {
            // A game that ended by a removal during placing keeps its placing flag; the text
            // of a finished game cannot show it (and nothing depends on it any more).
            parsed.placing = s.placing;
        }
        assert_eq!(&parsed, s, "{}: slow parser round trip of {fen}", self.name);

        // (c) game over
        let e_over = eng.outcome(e);
        let s_over = slow.outcome(s);
        let same_verdict = match (e_over, s_over) {
            (None, None) => true,
            (Some(g), Some((loser, why))) => {
                g.loser.map(color_index) == loser && reason_matches(g.reason, why)
            }
            _ => false,
        };
        if !same_verdict {
            self.fail(
                &fen,
                "game-over verdict",
                &format!("{e_over:?}"),
                &format!("{s_over:?}"),
            );
        }

        // (b) compound moves, with the position after each
        let mut e_moves = Vec::new();
        eng.moves(e, &mut e_moves);
        let mut e_list: Vec<(String, Position)> = e_moves
            .iter()
            .map(|(m, p)| (eng.format_move(m), *p))
            .collect();
        e_list.sort_by(|a, b| a.0.cmp(&b.0));
        let mut s_list = slow.compound_moves(s);
        s_list.sort_by(|a, b| a.0.cmp(&b.0));
        let e_names: Vec<String> = e_list.iter().map(|m| m.0.clone()).collect();
        let s_names: Vec<String> = s_list.iter().map(|m| m.0.clone()).collect();
        if e_names != s_names {
            self.fail(&fen, "compound moves", &list(&e_names), &list(&s_names));
        }
        let mut moves = Vec::with_capacity(e_list.len());
        for ((text, ep), (_, sp)) in e_list.into_iter().zip(s_list) {
            let (a, b) = (eng.format_fen(&ep), slow.fen(&sp));
            if a != b {
                self.fail(&fen, &format!("FEN after compound move {text}"), &a, &b);
            }
            if text.matches('x').count() > 1 {
                stats.multi_removal_moves += 1;
            }
            moves.push((text, ep, sp));
        }
        stats.compound_moves += moves.len() as u64;

        if e_over.is_some() {
            return (Vec::new(), moves);
        }

        // (a) split steps and (d) the FEN after each
        let mut list_e = StepList::default();
        eng.steps(e, &mut list_e);
        let mut e_steps: Vec<(String, Position)> = list_e
            .as_slice()
            .iter()
            .map(|&st| (eng.format_step(st), eng.play_step(e, st)))
            .collect();
        e_steps.sort_by(|a, b| a.0.cmp(&b.0));
        let mut s_steps: Vec<(String, SlowStep)> = slow
            .steps(s)
            .into_iter()
            .map(|st| (slow.step_text(st), st))
            .collect();
        s_steps.sort_by(|a, b| a.0.cmp(&b.0));
        let e_names: Vec<String> = e_steps.iter().map(|x| x.0.clone()).collect();
        let s_names: Vec<String> = s_steps.iter().map(|x| x.0.clone()).collect();
        if e_names != s_names {
            self.fail(&fen, "split steps", &list(&e_names), &list(&s_names));
        }
        let mut steps = Vec::with_capacity(e_steps.len());
        for ((text, ep), (_, st)) in e_steps.into_iter().zip(s_steps) {
            let sp = slow.play(s, st);
            let (a, b) = (eng.format_fen(&ep), slow.fen(&sp));
            if a != b {
                self.fail(&fen, &format!("FEN after step {text}"), &a, &b);
            }
            steps.push((text, ep, sp));
        }
        stats.steps += steps.len() as u64;
        (steps, moves)
    }

    fn note(&self, s: &SlowPos, stats: &mut Stats) {
        let slow = &self.slow;
        if s.pending[s.side] == 0 && s.hand[s.side] == 0 && slow.flies(s, s.side) {
            stats.flying += 1;
        }
        if s.stalemate_removal {
            stats.stalemate_removal += 1;
        }
        if s.pending[W] < 0 || s.pending[B] < 0 {
            stats.own_removal += 1;
        }
        if s.pending[W] != 0 && s.pending[B] != 0 {
            stats.both_owe += 1;
        }
        if s.cells.contains(&MARKED) {
            stats.marked += 1;
        }
    }

    fn note_transition(&self, before: &SlowPos, after: &SlowPos, stats: &mut Stats) {
        let o = 1 - before.side;
        if before.placing && !after.placing {
            let n = self.slow.t.points();
            let stones = (0..n).filter(|&i| after.cells[i] != 0).count();
            if stones == n || after.board_full_end {
                stats.board_full += 1;
            }
        }
        if after.hand[o] < before.hand[o] {
            stats.hand_removal += 1;
        }
    }

    fn note_end(&self, s: &SlowPos, stats: &mut Stats) {
        stats.games += 1;
        match self.slow.outcome(s) {
            Some((_, SlowEnd::BoardFull)) => stats.ends[0] += 1,
            Some((_, SlowEnd::TooFewStones)) => stats.ends[1] += 1,
            Some((_, SlowEnd::NoLegalMove)) => stats.ends[2] += 1,
            None => stats.capped += 1,
        }
    }

    /// One playout from `(e, s)` in the split form or by compound moves.
    fn playout(
        &self,
        mut e: Position,
        mut s: SlowPos,
        split: bool,
        policy: Policy,
        rng: &mut Rng,
        stats: &mut Stats,
    ) {
        for _ in 0..MAX_PLIES {
            if split {
                stats.split_positions += 1;
            } else {
                stats.compound_positions += 1;
            }
            self.note(&s, stats);
            let (steps, moves) = self.compare(&e, &s, stats);
            let options = if split { steps } else { moves };
            if options.is_empty() {
                break;
            }
            let view: Vec<(&SlowPos, &str)> =
                options.iter().map(|x| (&x.2, x.0.as_str())).collect();
            let i = pick(rng, policy, &s, &view);
            self.note_transition(&s, &options[i].2, stats);
            e = options[i].1;
            s = options[i].2.clone();
        }
        self.note_end(&s, stats);
    }

    fn run(&self, seed: u64) -> Stats {
        let mut stats = Stats::default();
        let mut rng = Rng::new(seed);
        let mut game = 0usize;
        let total = |st: &Stats| st.split_positions + st.compound_positions;
        let scale = env_number("RETRO_MILL_DIFF_SCALE", 1).max(1);
        while total(&stats) < SPLIT_POSITIONS * scale {
            let policy = POLICIES[game % POLICIES.len()];
            game += 1;
            let (e, s) = (self.eng.start(), self.slow.start());
            self.playout(e, s, true, policy, &mut rng, &mut stats);
        }
        while total(&stats) < MIN_POSITIONS * scale
            || stats.compound_positions < MIN_POSITIONS * scale / 10
        {
            let policy = POLICIES[game % POLICIES.len()];
            game += 1;
            let (e, s) = (self.eng.start(), self.slow.start());
            self.playout(e, s, false, policy, &mut rng, &mut stats);
        }
        stats
    }
}

#[test]
fn engine_matches_slow_generator_on_every_preset() {
    assert_eq!(PRESETS.len(), 14, "the test expects the 14 presets");
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Stats, f64)>> = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 2);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= PRESETS.len() {
                    break;
                }
                let t = Instant::now();
                let ctx = Ctx::new(PRESETS[i].name);
                let seed = env_number("RETRO_MILL_DIFF_SEED", 0);
                let stats = ctx.run(0x9e37_79b9_7f4a_7c15 ^ ((i as u64 + 1) << 32) ^ seed);
                results
                    .lock()
                    .unwrap()
                    .push((i, stats, t.elapsed().as_secs_f64()));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| r.0);
    assert_eq!(results.len(), PRESETS.len());
    for (i, st, secs) in &results {
        let positions = st.split_positions + st.compound_positions;
        eprintln!(
            "{:<23} {positions:>7} positions ({} split, {} compound) {:>9} steps {:>9} moves \
             {:>5} games (ends: board-full {}, too-few {}, no-move {}, capped {}) \
             flying {} stalemate-removal {} own-removal {} both-owe {} marked {} \
             multi-removal {} board-full-events {} hand-removals {}  {secs:.1}s",
            PRESETS[*i].name,
            st.split_positions,
            st.compound_positions,
            st.steps,
            st.compound_moves,
            st.games,
            st.ends[0],
            st.ends[1],
            st.ends[2],
            st.capped,
            st.flying,
            st.stalemate_removal,
            st.own_removal,
            st.both_owe,
            st.marked,
            st.multi_removal_moves,
            st.board_full,
            st.hand_removal,
        );
    }
    eprintln!("total {:.1}s", started.elapsed().as_secs_f64());
    for (i, st, _) in &results {
        assert!(
            st.split_positions + st.compound_positions >= MIN_POSITIONS,
            "{}: too few positions",
            PRESETS[*i].name
        );
    }
}

/// Rule combinations no preset has, where a ply meets the next turn: Black's last placement
/// under defender-first leaving Black itself blocked (its stalemate removal is a ply of its
/// own), a game ending on a side's own removal under mill counts (the other side's left
/// undone), two mills closed at once on the 16-point board.
#[test]
fn engine_matches_slow_generator_on_rule_combinations() {
    let combos: [(&'static str, &str, &[&str]); 3] = [
        (
            "16 points, defender-first, stalemate removal",
            "six-mens-morris",
            &[
                "stones=5",
                "defender-first=true",
                "stalemate=remove-and-move",
            ],
        ),
        (
            "3 stones, mill counts",
            "nine-mens-morris",
            &["stones=3", "mill-action=mill-counts"],
        ),
        (
            "16 points, a removal per mill",
            "six-mens-morris",
            &["remove-per-mill=true", "flying=true"],
        ),
    ];
    for (i, (name, preset, rules)) in combos.into_iter().enumerate() {
        let mut profile = Profile::preset(preset).unwrap();
        profile.set_all(rules.iter().copied()).unwrap();
        let stats = Ctx::with(name, profile).run(0x5eed_0000 + i as u64);
        let positions = stats.split_positions + stats.compound_positions;
        assert!(positions >= MIN_POSITIONS, "{name}: {positions}");
        if i == 0 {
            assert!(
                stats.stalemate_removal > 5,
                "{name}: {}",
                stats.stalemate_removal
            );
        }
        if i == 2 {
            assert!(
                stats.multi_removal_moves > 10,
                "{name}: {}",
                stats.multi_removal_moves
            );
        }
    }
}

#[test]
fn slow_generator_perft_nine_mens_morris() {
    let slow = SlowMill::new(&Profile::preset("nine-mens-morris").unwrap());
    let start = slow.start();
    assert_eq!(
        slow.fen(&start),
        "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1"
    );
    let got: Vec<u64> = (1..=4).map(|d| slow.perft(&start, d)).collect();
    assert_eq!(got, [24, 552, 12144, 255024]);
}

#[test]
fn slow_tables_are_as_drawn() {
    for (board, points, lines, mills) in [
        ("nine-mens-morris", 24, 32, 16),
        ("twelve-mens-morris", 24, 40, 20),
        ("six-mens-morris", 16, 20, 8),
    ] {
        let slow = SlowMill::new(&Profile::preset(board).unwrap());
        let t = &slow.t;
        assert_eq!(t.points(), points);
        let degree: usize = t.adjacent.iter().map(|a| a.len()).sum();
        assert_eq!(degree, 2 * lines, "{board}");
        assert_eq!(t.mills.len(), mills, "{board}");
        // Every mill is a path of two lines of movement through its middle point.
        for m in &t.mills {
            assert!(
                t.adjacent[m[0]].contains(&m[1]) && t.adjacent[m[1]].contains(&m[2]),
                "{board}"
            );
        }
        for i in 0..points {
            for &j in &t.adjacent[i] {
                assert!(t.adjacent[j].contains(&i));
            }
        }
        assert_eq!(t.point("a1").map(|p| t.names[p]), Some("a1"));
    }
}

/// Hand-made positions for corners random play from the start rarely reaches; each is compared
/// and then played out at random in both forms.
const CORNERS: &[(&str, &str, &str)] = &[
    (
        "nine-mens-morris",
        "a mill while the opponent has no stone on the board owes nothing (removals capped)",
        "********/********/****OO** w p p 2 5 0 5 0 0 0 0 0 0 0 0 5",
    ),
    (
        "morabaraba",
        "a double mill against a single stone owes one removal",
        "@*******/********/*OO*OO** w p p 4 4 1 6 0 0 0 0 0 0 0 0 5",
    ),
    (
        "morabaraba",
        "a double mill against three stones: the game ends with a removal still owed",
        "@@***@**/***O****/*OO*OO** w m s 5 0 3 0 0 0 0 0 0 0 0 0 30",
    ),
    (
        "russian-mill",
        "re-forming a formed mill scores nothing; a mill sharing one formed point scores",
        "@@**@@**/******O*/*O***O*O w m s 4 0 4 0 0 0 0 0 0 0 16140901064495857664 0 20",
    ),
    (
        "dooz",
        "a mill takes the last stone of the opponent's hand and leaves it with two",
        "@@******/********/****OO** w p p 2 3 2 1 0 0 0 0 0 0 0 0 8",
    ),
    (
        "dooz",
        "a mill with the opponent's hand empty removes from the board",
        "@@***@**/********/****OO** w p p 2 3 3 0 0 0 0 0 0 0 0 0 8",
    ),
    (
        "lasker-morris",
        "three stones on the board and stones in hand: slides only, no flying",
        "@@**@***/********/****OO*O w p p 3 1 3 2 0 0 0 0 0 0 0 0 15",
    ),
    (
        "nine-mens-morris",
        "the legacy 12-field form",
        "@@******/********/****OO** w p p 2 7 2 7 0 0 0 3",
    ),
];

#[test]
fn engine_matches_slow_generator_on_corner_positions() {
    let mut rng = Rng::new(0x5eed);
    for &(preset, why, fen) in CORNERS {
        let ctx = Ctx::new(preset);
        let e = ctx
            .eng
            .parse_fen(fen)
            .unwrap_or_else(|err| panic!("{preset}: engine rejects {fen} ({why}): {err}"));
        let s = ctx
            .slow
            .parse_fen(fen)
            .unwrap_or_else(|err| panic!("{preset}: slow parser rejects {fen} ({why}): {err}"));
        let mut stats = Stats::default();
        for game in 0..60 {
            let policy = POLICIES[game % POLICIES.len()];
            ctx.playout(e, s.clone(), game % 2 == 0, policy, &mut rng, &mut stats);
        }
        eprintln!(
            "{preset:<18} {:>6} positions  {why}",
            stats.split_positions + stats.compound_positions
        );
    }
}

// ------------------------------------------------------------------------------------------------
// The slow generator on its own against the reference app's data (no engine involved).

fn slow_reference(preset: usize) -> SlowMill {
    SlowMill::new(&Profile::preset(REFERENCE_PRESETS[preset]).unwrap())
}

#[test]
fn slow_generator_matches_reference_perft() {
    let data = reference("sanmill-perft.tsv");
    let mut checked = 0;
    for line in data.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (preset, depth, nodes): (usize, u32, u64) = (
            f[0].parse().unwrap(),
            f[2].parse().unwrap(),
            f[3].parse().unwrap(),
        );
        if depth > 4 {
            continue; // depth 5 (5,100,480 leaves) is slow for the slow generator
        }
        let slow = slow_reference(preset);
        assert_eq!(
            slow.perft(&slow.start(), depth),
            nodes,
            "{} depth {depth}",
            f[1]
        );
        checked += 1;
    }
    assert_eq!(checked, 37);
}

#[test]
fn slow_generator_replays_reference_games() {
    let data = reference("sanmill-games.tsv");
    let mut games = 0;
    for line in data.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let preset: usize = f[0].parse().unwrap();
        let slow = slow_reference(preset);
        let moves: Vec<&str> = f[5].split_whitespace().collect();
        assert_eq!(moves.len(), f[4].parse::<usize>().unwrap());
        let label = format!("{} game {}", REFERENCE_PRESETS[preset], f[1]);
        let mut pos = slow.start();
        for (i, mv) in moves.iter().enumerate() {
            if i + 1 == moves.len() {
                // Fields 16-17 are never advanced by the reference driver.
                let ours = slow.fen(&pos);
                let a: Vec<&str> = ours.split_whitespace().collect();
                let b: Vec<&str> = f[6].split_whitespace().collect();
                assert!(
                    a.len() == b.len() && a[..15] == b[..15] && a[17..] == b[17..],
                    "{label}: before the last move\n ours   {ours}\n theirs {}",
                    f[6]
                );
            }
            let step = slow
                .steps(&pos)
                .into_iter()
                .find(|&s| slow.step_text(s) == *mv)
                .unwrap_or_else(|| {
                    panic!(
                        "{label}: ply {} '{mv}' is not legal in {}",
                        i + 1,
                        slow.fen(&pos)
                    )
                });
            pos = slow.play(&pos, step);
        }
        let over = slow.outcome(&pos);
        match f[7] {
            "4" => assert!(
                over.is_some(),
                "{label}: should be over: {}",
                slow.fen(&pos)
            ),
            "3" => assert!(over.is_none(), "{label}: should go on: {over:?}"),
            t => panic!("unknown phase tag {t}"),
        }
        let side = if f[8] == "1" { W } else { B };
        assert_eq!(pos.side, side, "{label}: side to move at the end");
        games += 1;
    }
    assert_eq!(games, 33);
}
