//! Hardening: property tests of the Dara and Ô Ăn Quan parsers (position text, moves, `--rule`
//! settings) under several rule configurations, fed random strings, random bytes, text from each
//! format's alphabet, field soups and mutated valid inputs taken from random playouts.
//!
//! Properties: a parser never panics (it returns `Ok` or `Err`); a parsed position is written
//! back by `format_position` to a text that parses to the same position (and is written the same
//! way again), and can be used (outcome, move generation); a parsed move is one of the legal
//! moves, with the position the move generator gives for it; every legal move written out parses
//! back to itself; an accepted rule setting round-trips through the profile's description, and a
//! refused one leaves the profile as it was.
//!
//! Each property prints how many cases ran (`cargo test ... -- --nocapture` shows them).
//! `PROPTEST_CASES=N` overrides the number of cases of every property.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use retro_engine::dara::notation::cell_name;
use retro_engine::dara::{Dara, DaraProfile, Position as DaraPos, ALL};
use retro_engine::oaq::{Oaq, OaqProfile, Position as OaqPos};
use retro_tests::props::run;
use std::cell::Cell;

/// Dara rule configurations (`;`-separated `--rule` settings).
const DARA_RULES: &[&str] = &[
    "default",
    "protected-threes=off",
    "drop-threes-forbidden=on",
    "drop-threes-forbidden=on;protected-threes=off",
];

/// Ô Ăn Quan rule configurations.
const OAQ_RULES: &[&str] = &[
    "default",
    "seeds=2,2",
    "seeds=1,1",
    "big-mandarin=10",
    "big-mandarin=10;seeds=5,10",
    "big-mandarin=5;quan-non=5",
    "seeds=3,0;big-mandarin=20;quan-non=2",
];

/// Characters of Dara position texts (and a few that are not).
const DARA_CHARS: &str = "WB./ wb0123456789.W.B-x\tOé";
/// Characters of Dara moves.
const DARA_MOVE_CHARS: &str = "abcdefgABCDEFG0123456x-X +";
/// Characters of Ô Ăn Quan position texts.
const OAQ_CHARS: &str = "0123456789,Q snSN-+,0\tqé";
/// Characters of Ô Ăn Quan moves.
const OAQ_MOVE_CHARS: &str = "0123456789+-+- Qsn";
/// Characters of rule settings.
const SETTING_CHARS: &str = "abcdefghijklmnopqrstuvwxyz-_=,0123456789 ";

fn dara_profile(settings: &str) -> DaraProfile {
    let mut profile = DaraProfile::default();
    for s in settings.split(';').filter(|s| *s != "default") {
        profile
            .set(s)
            .unwrap_or_else(|e| panic!("dara setting {s}: {e}"));
    }
    profile
}

fn oaq_profile(settings: &str) -> OaqProfile {
    let mut profile = OaqProfile::default();
    for s in settings.split(';').filter(|s| *s != "default") {
        profile
            .set(s)
            .unwrap_or_else(|e| panic!("oaq setting {s}: {e}"));
    }
    profile
}

fn dara_games() -> Vec<(&'static str, Dara)> {
    DARA_RULES
        .iter()
        .map(|&r| (r, Dara::new(dara_profile(r))))
        .collect()
}

fn oaq_games() -> Vec<(&'static str, Oaq)> {
    OAQ_RULES
        .iter()
        .map(|&r| (r, Oaq::new(oaq_profile(r))))
        .collect()
}

/// Counts of (cases, accepted inputs), printed after a property.
struct Tally(Cell<(u64, u64)>);

impl Tally {
    fn new() -> Tally {
        Tally(Cell::new((0, 0)))
    }
    fn add(&self, accepted: bool) {
        let (n, ok) = self.0.get();
        self.0.set((n + 1, ok + accepted as u64));
    }
    fn print(&self, what: &str) {
        let (n, ok) = self.0.get();
        eprintln!("  {n} {what}, {ok} accepted");
    }
}

// ---------------------------------------------------------------------------------------------
// Strategies shared by both games.

fn chars_of(s: &str) -> Vec<char> {
    s.chars().collect()
}

/// Strings over `alphabet`, up to `max` characters.
fn text_over(alphabet: &str, max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(chars_of(alphabet)), 0..max)
        .prop_map(|v| v.into_iter().collect())
}

/// Arbitrary text: Unicode strings, random bytes read as lossy UTF-8, strings over `alphabet`.
fn arbitrary_text(alphabet: &'static str) -> BoxedStrategy<String> {
    prop_oneof![
        1 => any::<String>(),
        1 => prop::collection::vec(any::<u8>(), 0..80)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        2 => text_over(alphabet, 60),
    ]
    .boxed()
}

fn number_token() -> BoxedStrategy<String> {
    prop_oneof![
        4 => (0u32..=13).prop_map(|n| n.to_string()),
        1 => (-130i64..=130).prop_map(|n| n.to_string()),
        2 => Just("0".to_string()),
        1 => any::<u64>().prop_map(|n| n.to_string()),
        1 => any::<i64>().prop_map(|n| n.to_string()),
        1 => prop::sample::select(vec![
            "-0", "+3", "0x1", "1e3", "", "00", "012", "255", "256", "1000", "1001", "-1000",
            "-1001", "32767", "32768", "-32769", "65536", "18446744073709551616", "-1",
            "9999999999999999999999", "٣", "3.0", "12 ",
        ])
        .prop_map(str::to_string),
    ]
    .boxed()
}

/// Characters that separate the tokens a mutation works on.
const SEPARATORS: &[char] = &[' ', '\t', ',', '/', '=', ';'];

#[derive(Clone, Debug)]
enum Mutation {
    ReplaceToken(usize, String),
    DeleteToken(usize),
    DuplicateToken(usize),
    SwapTokens(usize, usize),
    ReplaceChar(usize, char),
    DeleteChar(usize),
    DuplicateChar(usize),
    InsertChar(usize, char),
}

/// A mutation: token-level (tokens as `token` gives them) or character-level (characters mostly
/// from `alphabet`).
fn mutation(alphabet: &'static str, token: BoxedStrategy<String>) -> BoxedStrategy<Mutation> {
    let ch = prop_oneof![
        4 => prop::sample::select(chars_of(alphabet)),
        1 => any::<char>(),
    ];
    prop_oneof![
        (any::<usize>(), token).prop_map(|(i, t)| Mutation::ReplaceToken(i, t)),
        any::<usize>().prop_map(Mutation::DeleteToken),
        any::<usize>().prop_map(Mutation::DuplicateToken),
        (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Mutation::SwapTokens(i, j)),
        (any::<usize>(), ch.clone()).prop_map(|(i, c)| Mutation::ReplaceChar(i, c)),
        any::<usize>().prop_map(Mutation::DeleteChar),
        any::<usize>().prop_map(Mutation::DuplicateChar),
        (any::<usize>(), ch).prop_map(|(i, c)| Mutation::InsertChar(i, c)),
    ]
    .boxed()
}

/// Splits a text into runs of separators and runs of other characters (the tokens).
fn pieces(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut last: Option<bool> = None;
    for c in text.chars() {
        let sep = SEPARATORS.contains(&c);
        match out.last_mut() {
            Some(p) if last == Some(sep) => p.push(c),
            _ => out.push(c.to_string()),
        }
        last = Some(sep);
    }
    out
}

fn is_token(piece: &str) -> bool {
    piece
        .chars()
        .next()
        .is_some_and(|c| !SEPARATORS.contains(&c))
}

/// Applies a mutation; characters are Unicode scalars.
fn mutate(text: &str, m: &Mutation) -> String {
    let mut ps = pieces(text);
    let toks: Vec<usize> = (0..ps.len()).filter(|&i| is_token(&ps[i])).collect();
    let nt = toks.len();
    let mut chars: Vec<char> = text.chars().collect();
    let nc = chars.len();
    match m {
        Mutation::ReplaceToken(i, t) if nt > 0 => ps[toks[i % nt]] = t.clone(),
        Mutation::ReplaceToken(_, t) => ps.push(t.clone()),
        Mutation::DeleteToken(i) if nt > 0 => {
            ps.remove(toks[i % nt]);
        }
        Mutation::DuplicateToken(i) if nt > 0 => {
            let at = toks[i % nt];
            let sep = ps
                .get(at + 1)
                .or(at.checked_sub(1).and_then(|j| ps.get(j)))
                .cloned()
                .unwrap_or_else(|| " ".into());
            let t = ps[at].clone();
            ps.insert(at, sep);
            ps.insert(at, t);
        }
        Mutation::SwapTokens(i, j) if nt > 0 => ps.swap(toks[i % nt], toks[j % nt]),
        Mutation::ReplaceChar(i, c) if nc > 0 => chars[i % nc] = *c,
        Mutation::DeleteChar(i) if nc > 0 => {
            chars.remove(i % nc);
        }
        Mutation::DuplicateChar(i) if nc > 0 => chars.insert(i % nc, chars[i % nc]),
        Mutation::InsertChar(i, c) => chars.insert(i % (nc + 1), *c),
        _ => {}
    }
    match m {
        Mutation::ReplaceToken(..)
        | Mutation::DeleteToken(_)
        | Mutation::DuplicateToken(_)
        | Mutation::SwapTokens(..) => ps.concat(),
        _ => chars.into_iter().collect(),
    }
}

fn apply(text: String, muts: &[Mutation]) -> String {
    muts.iter().fold(text, |t, m| mutate(&t, m))
}

/// Random playout choices: `choices[i]` picks the i-th move.
fn choices(max: usize) -> impl Strategy<Value = Vec<u16>> {
    prop::collection::vec(any::<u16>(), 0..max)
}

// ---------------------------------------------------------------------------------------------
// Dara.

fn dara_playout(g: &Dara, choices: &[u16]) -> DaraPos {
    let mut p = g.start();
    let mut list = Vec::new();
    for &c in choices {
        g.moves(&p, &mut list);
        if list.is_empty() {
            break;
        }
        p = list[c as usize % list.len()].1;
    }
    p
}

/// A parsed position can be used: outcome and move generation agree, and no panic.
fn check_dara_usable(g: &Dara, name: &str, p: &DaraPos) -> Result<(), TestCaseError> {
    let mut list = Vec::new();
    g.moves(p, &mut list);
    let over = g.outcome(p);
    prop_assert!(
        over.is_some() == list.is_empty(),
        "{}: '{}': outcome {:?} with {} moves",
        name,
        g.format_position(p),
        over,
        list.len()
    );
    Ok(())
}

/// Checks a position text against one game. Returns whether it parsed.
fn check_dara_text(g: &Dara, name: &str, text: &str) -> Result<bool, TestCaseError> {
    let Ok(p) = g.parse_position(text) else {
        return Ok(false);
    };
    let written = g.format_position(&p);
    let again = g.parse_position(&written).map_err(|e| {
        TestCaseError::fail(format!(
            "{name}: '{text}' parsed, but its format_position '{written}' does not: {e}"
        ))
    })?;
    prop_assert_eq!(
        again,
        p,
        "{}: '{}' -> '{}' parses to another position",
        name,
        text,
        written
    );
    prop_assert_eq!(g.format_position(&again), written, "{}: not stable", name);
    check_dara_usable(g, name, &p)?;
    Ok(true)
}

/// Checks a move text on a position: a parsed move is a legal one, with its position.
fn check_dara_move(g: &Dara, name: &str, p: &DaraPos, text: &str) -> Result<bool, TestCaseError> {
    let Ok((mv, after)) = g.parse_move(p, text) else {
        return Ok(false);
    };
    let mut list = Vec::new();
    g.moves(p, &mut list);
    prop_assert!(
        list.contains(&(mv, after)),
        "{}: parse_move('{}') = {:?} on '{}' is not a legal move (or not its position)",
        name,
        text,
        mv,
        g.format_position(p)
    );
    // The text names that move: the move's own text reads the same.
    let (again, _) = g
        .parse_move(p, &g.format_move(&mv))
        .map_err(|e| TestCaseError::fail(format!("{name}: '{}': {e}", g.format_move(&mv))))?;
    prop_assert_eq!(again, mv);
    Ok(true)
}

fn dara_row() -> impl Strategy<Value = String> {
    let clean = prop_oneof![6 => Just('.'), 2 => Just('W'), 2 => Just('B')];
    let messy = prop_oneof![
        6 => Just('.'),
        2 => Just('W'),
        2 => Just('B'),
        1 => prop::sample::select(chars_of("wbo0x-+ é")),
    ];
    prop_oneof![
        30 => prop::collection::vec(clean, 6),
        1 => prop::collection::vec(messy, 0..9),
    ]
    .prop_map(|v| v.into_iter().collect())
}

fn dara_board() -> impl Strategy<Value = String> {
    prop_oneof![20 => Just(5usize), 1 => 0usize..8]
        .prop_flat_map(|n| prop::collection::vec(dara_row(), n))
        .prop_map(|rows| rows.join("/"))
}

/// Texts shaped like Dara positions: a board, a side, two hands and maybe more fields. With
/// `coherent`, the side is `w` or `b` and the hands fit the stones on the board.
fn dara_soup() -> impl Strategy<Value = String> {
    (
        dara_board(),
        prop::sample::select(vec!["w", "b", "W", "B", "x", "", "wb"]),
        (number_token(), number_token()),
        (any::<bool>(), 0u32..=12, 0u32..=12),
        prop_oneof![
            8 => Just(vec![]),
            1 => prop::collection::vec(prop::sample::select(vec!["0", "w", "12", "-"]), 1..3),
        ],
        prop::sample::select(vec![" ", " ", " ", "  ", "\t", " \n "]),
    )
        .prop_map(|(board, side, hands, (coherent, wh, bh), extra, sep)| {
            let (mut side, mut hands) = (side.to_string(), hands);
            if coherent {
                // Fields that agree with the board as the rules would have them: the movement
                // phase (nothing in hand), or the drop phase with the hands the board implies
                // and the side whose turn it is.
                let w = board.matches('W').count() as u32;
                let b = board.matches('B').count() as u32;
                let dropping = (wh + bh) % 2 == 1 && w <= 12 && b <= 12 && (w == b || w == b + 1);
                if dropping && (w, b) != (12, 12) {
                    hands = ((12 - w).to_string(), (12 - b).to_string());
                    side = if w == b { "w" } else { "b" }.into();
                } else {
                    if side != "b" {
                        side = "w".into();
                    }
                    hands = ("0".into(), "0".into());
                }
            }
            let mut f = vec![board, side, hands.0, hands.1];
            f.extend(extra.into_iter().map(str::to_string));
            f.join(sep)
        })
}

fn dara_token() -> BoxedStrategy<String> {
    prop_oneof![
        number_token(),
        dara_row(),
        dara_board(),
        prop::sample::select(vec!["w", "b", "W", "B", "", "x", "c3", "......", "WWWW.."])
            .prop_map(str::to_string),
        any::<String>().prop_map(|s| s.replace(char::is_whitespace, "")),
    ]
    .boxed()
}

/// Texts shaped like Dara moves: `c3`, `c3-c4`, `c3-c4xe2`; cells mostly on the board, steps
/// mostly to a neighbour, any case, maybe padded.
fn dara_move_shaped() -> impl Strategy<Value = String> {
    let coord = prop_oneof![
        12 => (0u8..6, 0u8..5),
        1 => (0u8..8, 0u8..8),
    ];
    let name = |(f, r): (u8, u8)| format!("{}{}", (b'a' + f) as char, r + 1);
    let step = prop::sample::select(vec![(0i8, 1i8), (0, -1), (1, 0), (-1, 0), (1, 1), (0, 2)]);
    (
        coord.clone(),
        prop::option::weighted(0.6, step),
        prop_oneof![6 => Just(0usize), 4 => Just(1), 1 => Just(2)],
        prop::collection::vec(coord, 2),
        (0u8..10, prop::sample::select(vec!["", "", "", " ", "\t"])),
    )
        .prop_map(move |(at, step, nremoved, removed, (case, pad))| {
            let mut s = match step {
                Some((df, dr)) => {
                    let to = (
                        (at.0 as i8 + df).clamp(0, 7) as u8,
                        (at.1 as i8 + dr).clamp(0, 7) as u8,
                    );
                    format!("{}-{}", name(at), name(to))
                }
                None => name(at),
            };
            for &r in &removed[..nremoved] {
                s.push('x');
                s.push_str(&name(r));
            }
            if case == 0 {
                s = s.to_uppercase();
            }
            format!("{pad}{s}{pad}")
        })
}

/// A move text: given, or aimed at the position (built from its cells by the test).
#[derive(Clone, Debug)]
enum MoveText<A> {
    Given(String),
    Aimed(A),
}

/// A Dara move aimed at a position: `from` picks an empty cell (a drop, when `step` is `None`)
/// or one of the mover's stones (a step to a neighbour or elsewhere, maybe off the board);
/// `removed` pick enemy stones. A good share of these are legal.
#[derive(Clone, Debug)]
struct DaraAim {
    from: u16,
    step: Option<(i8, i8)>,
    removed: Vec<u16>,
    upper: bool,
    pad: &'static str,
}

fn dara_aim() -> impl Strategy<Value = DaraAim> {
    let step = prop::sample::select(vec![
        (0i8, 1i8),
        (0, -1),
        (1, 0),
        (-1, 0),
        (1, 1),
        (0, 2),
        (0, 0),
    ]);
    (
        any::<u16>(),
        prop::option::weighted(0.7, step),
        prop_oneof![
            8 => Just(vec![]),
            4 => prop::collection::vec(any::<u16>(), 1),
            1 => prop::collection::vec(any::<u16>(), 2),
        ],
        (0u8..8, prop::sample::select(vec!["", "", "", " ", "\t"])),
    )
        .prop_map(|(from, step, removed, (case, pad))| DaraAim {
            from,
            step,
            removed,
            upper: case == 0,
            pad,
        })
}

/// The `k`-th cell (cyclically) of a set, if any.
fn nth_cell(set: u32, k: u16) -> Option<u8> {
    let n = set.count_ones();
    if n == 0 {
        return None;
    }
    let mut s = set;
    for _ in 0..k as u32 % n {
        s &= s - 1;
    }
    Some(s.trailing_zeros() as u8)
}

fn aimed_dara_text(p: &DaraPos, a: &DaraAim) -> String {
    let s = p.side.index();
    let (own, enemy) = (p.stones[s], p.stones[1 - s]);
    let empty = ALL & !(own | enemy);
    let name = |f: i8, r: i8| {
        format!(
            "{}{}",
            (b'a' + f.clamp(0, 7) as u8) as char,
            r.clamp(-1, 8) + 1
        )
    };
    let mut t = match a.step {
        None => nth_cell(empty, a.from).map_or("a1".into(), cell_name),
        Some((df, dr)) => {
            let c = nth_cell(own, a.from).unwrap_or(0) as i8;
            let (f, r) = (c % 6, c / 6);
            format!("{}-{}", name(f, r), name(f + df, r + dr))
        }
    };
    for &k in &a.removed {
        t.push('x');
        t.push_str(&nth_cell(enemy, k).map_or("f5".into(), cell_name));
    }
    if a.upper {
        t = t.to_uppercase();
    }
    format!("{}{t}{}", a.pad, a.pad)
}

/// (a) Arbitrary text and Dara-shaped field soups, parsed under every configuration.
#[test]
fn dara_position_parser_on_arbitrary_text() {
    let games = dara_games();
    let tally = Tally::new();
    let text = prop_oneof![1 => arbitrary_text(DARA_CHARS), 2 => dara_soup()];
    run(
        "dara_position_parser_on_arbitrary_text",
        40_000,
        text,
        |t| {
            // Only drop-threes-forbidden changes what the position text accepts (it refuses
            // a three on the board in the drop phase, and nothing else).
            let mut accepted: [Option<bool>; 2] = [None, None];
            for (name, g) in &games {
                let ok = check_dara_text(g, name, &t)?;
                let knob = g.profile.drop_threes_forbidden as usize;
                if let Some(a) = accepted[knob] {
                    prop_assert_eq!(a, ok, "{}: '{}'", name, t);
                }
                accepted[knob] = Some(ok);
            }
            if let [Some(plain), Some(knob)] = accepted {
                prop_assert!(plain || !knob, "accepted only with the knob: '{}'", t);
            }
            tally.add(accepted[0] == Some(true));
            Ok(())
        },
    );
    tally.print("texts");
}

/// (b) Valid position texts from random playouts under each configuration (which must parse
/// back to their position), then 0 to 3 token or character mutations.
#[test]
fn dara_position_parser_on_mutated_valid_texts() {
    let games = dara_games();
    let tally = Tally::new();
    let strategy = (
        0..games.len(),
        choices(120),
        prop::collection::vec(mutation(DARA_CHARS, dara_token()), 0..4),
    );
    run(
        "dara_position_parser_on_mutated_valid_texts",
        30_000,
        strategy,
        |(i, choices, muts)| {
            let (name, g) = &games[i];
            let p = dara_playout(g, &choices);
            let text = g.format_position(&p);
            let back = g
                .parse_position(&text)
                .map_err(|e| TestCaseError::fail(format!("{name}: valid '{text}': {e}")))?;
            prop_assert_eq!(back, p, "{}: '{}' does not round-trip", name, text);
            let text = apply(text, &muts);
            tally.add(check_dara_text(g, name, &text)?);
            Ok(())
        },
    );
    tally.print("mutated texts");
}

/// (c) `parse_move` on playout positions with arbitrary text, move-shaped text and moves aimed
/// at the position's cells.
#[test]
fn dara_move_parser_on_arbitrary_text() {
    let games = dara_games();
    let tally = Tally::new();
    let text = prop_oneof![
        1 => arbitrary_text(DARA_MOVE_CHARS).prop_map(MoveText::Given),
        1 => text_over(DARA_MOVE_CHARS, 12).prop_map(MoveText::Given),
        1 => dara_move_shaped().prop_map(MoveText::Given),
        5 => dara_aim().prop_map(MoveText::Aimed),
    ];
    run(
        "dara_move_parser_on_arbitrary_text",
        30_000,
        (0..games.len(), choices(90), text),
        |(i, choices, text)| {
            let (name, g) = &games[i];
            let p = dara_playout(g, &choices);
            let text = match text {
                MoveText::Given(t) => t,
                MoveText::Aimed(a) => aimed_dara_text(&p, &a),
            };
            tally.add(check_dara_move(g, name, &p, &text)?);
            Ok(())
        },
    );
    tally.print("move texts");
}

/// (d) Every legal move of a playout position, written out, parses back to itself; then one of
/// them is mutated 0 to 3 times.
#[test]
fn dara_move_parser_on_mutated_valid_moves() {
    let games = dara_games();
    let tally = Tally::new();
    let strategy = (
        0..games.len(),
        choices(90),
        any::<usize>(),
        prop::collection::vec(mutation(DARA_MOVE_CHARS, dara_move_shaped().boxed()), 0..4),
    );
    run(
        "dara_move_parser_on_mutated_valid_moves",
        30_000,
        strategy,
        |(i, choices, pick, muts)| {
            let (name, g) = &games[i];
            let p = dara_playout(g, &choices);
            let fen = g.format_position(&p);
            let mut list = Vec::new();
            g.moves(&p, &mut list);
            let mut texts = Vec::new();
            for (mv, after) in &list {
                let t = g.format_move(mv);
                let back = g.parse_move(&p, &t).map_err(|e| {
                    TestCaseError::fail(format!("{name}: legal move '{t}' on '{fen}': {e}"))
                })?;
                prop_assert_eq!(back, (*mv, *after), "{}: '{}' on '{}'", name, t, fen);
                texts.push(t);
            }
            let text = match texts.len() {
                0 => "c3".to_string(),
                n => texts[pick % n].clone(),
            };
            tally.add(check_dara_move(g, name, &p, &apply(text, &muts))?);
            Ok(())
        },
    );
    tally.print("mutated moves");
}

/// Checks a `--rule` setting on a profile: accepted, the profile's fingerprint sets back to the
/// same profile and the game can be played; refused, the profile is unchanged.
fn check_dara_setting(base: &DaraProfile, text: &str) -> Result<bool, TestCaseError> {
    let mut p = base.clone();
    if p.set(text).is_err() {
        prop_assert_eq!(&p, base, "refused '{}' changed the profile", text);
        return Ok(false);
    }
    let mut q = DaraProfile::default();
    for part in p.fingerprint().split(',') {
        q.set(part).map_err(|e| {
            TestCaseError::fail(format!("'{text}': fingerprint part '{part}' refused: {e}"))
        })?;
    }
    prop_assert_eq!(&q, &p, "'{}': fingerprint {}", text, p.fingerprint());
    let g = Dara::new(p);
    let s = g.start();
    prop_assert_eq!(g.parse_position(&g.format_position(&s)).ok(), Some(s));
    check_dara_usable(&g, text, &dara_playout(&g, &[7; 40]))?;
    Ok(true)
}

fn dara_setting() -> impl Strategy<Value = String> {
    let valid: Vec<String> = DARA_RULES
        .iter()
        .flat_map(|r| r.split(';'))
        .filter(|s| *s != "default")
        .map(str::to_string)
        .collect();
    let token = prop_oneof![
        prop::sample::select(vec![
            "drop-threes-forbidden",
            "protected-threes",
            "on",
            "off",
            "true",
            "no",
            "1",
            "2",
            "",
            "seeds",
        ])
        .prop_map(str::to_string),
        any::<String>(),
    ]
    .boxed();
    let name = prop::sample::select(vec![
        "drop-threes-forbidden",
        "protected-threes",
        "drop_threes_forbidden",
        "protected_threes",
        " protected-threes ",
        "Protected-Threes",
        "drop-threes",
        "seeds",
        "big-mandarin",
        "",
    ]);
    let value = prop::sample::select(vec![
        "on", "off", "true", "false", "yes", "no", "1", "0", " on ", "ON", "2", "", "on,off",
        "o n", "é", "=on",
    ]);
    let eq = prop_oneof![
        6 => Just("="),
        1 => prop::sample::select(vec!["==", "", " = ", ":", "=="]),
    ];
    prop_oneof![
        3 => (name, eq, value).prop_map(|(n, e, v)| format!("{n}{e}{v}")),
        1 => arbitrary_text(SETTING_CHARS),
        2 => (
            prop::sample::select(valid),
            prop::collection::vec(mutation(SETTING_CHARS, token), 1..4)
        )
            .prop_map(|(s, muts)| apply(s, &muts)),
    ]
}

/// (e) `DaraProfile::set` (`--rule`) on well-formed, arbitrary and mutated settings, starting
/// from each configuration.
#[test]
fn dara_rule_setter() {
    let profiles: Vec<DaraProfile> = DARA_RULES.iter().map(|r| dara_profile(r)).collect();
    let tally = Tally::new();
    run(
        "dara_rule_setter",
        20_000,
        (0..profiles.len(), dara_setting()),
        |(i, text)| {
            tally.add(check_dara_setting(&profiles[i], &text)?);
            Ok(())
        },
    );
    tally.print("settings");
}

// ---------------------------------------------------------------------------------------------
// Ô Ăn Quan.

fn oaq_playout(g: &Oaq, choices: &[u16]) -> OaqPos {
    let mut p = g.start();
    let mut list = Vec::new();
    for &c in choices {
        g.moves(&p, &mut list);
        if list.is_empty() {
            break;
        }
        p = list[c as usize % list.len()].1.position;
    }
    p
}

/// A parsed position can be used: outcome, moves, their count, the diagram; no panic.
fn check_oaq_usable(g: &Oaq, name: &str, p: &OaqPos) -> Result<(), TestCaseError> {
    let mut list = Vec::new();
    g.moves(p, &mut list);
    let over = g.outcome(p);
    prop_assert!(
        over.is_some() == list.is_empty() && g.count_moves(p) == list.len(),
        "{}: '{}': outcome {:?}, {} moves, count_moves {}",
        name,
        g.format_position(p),
        over,
        list.len(),
        g.count_moves(p)
    );
    let _ = g.diagram(p);
    Ok(())
}

fn check_oaq_text(g: &Oaq, name: &str, text: &str) -> Result<bool, TestCaseError> {
    let Ok(p) = g.parse_position(text) else {
        return Ok(false);
    };
    let written = g.format_position(&p);
    let again = g.parse_position(&written).map_err(|e| {
        TestCaseError::fail(format!(
            "{name}: '{text}' parsed, but its format_position '{written}' does not: {e}"
        ))
    })?;
    prop_assert_eq!(
        again,
        p,
        "{}: '{}' -> '{}' parses to another position",
        name,
        text,
        written
    );
    prop_assert_eq!(g.format_position(&again), written, "{}: not stable", name);
    check_oaq_usable(g, name, &p)?;
    Ok(true)
}

fn check_oaq_move(g: &Oaq, name: &str, p: &OaqPos, text: &str) -> Result<bool, TestCaseError> {
    let Ok((mv, turn)) = g.parse_move(p, text) else {
        return Ok(false);
    };
    let mut list = Vec::new();
    g.moves(p, &mut list);
    prop_assert!(
        list.contains(&(mv, turn)),
        "{}: parse_move('{}') = {:?} on '{}' is not a legal move (or not its turn)",
        name,
        text,
        mv,
        g.format_position(p)
    );
    let (again, _) = g
        .parse_move(p, &g.format_move(&mv))
        .map_err(|e| TestCaseError::fail(format!("{name}: '{}': {e}", g.format_move(&mv))))?;
    prop_assert_eq!(again, mv);
    Ok(true)
}

/// A cell count: small, larger, or any number-like token.
fn oaq_count() -> BoxedStrategy<String> {
    prop_oneof![
        6 => (0u32..=5).prop_map(|n| n.to_string()),
        2 => (0u32..=25).prop_map(|n| n.to_string()),
        1 => number_token(),
    ]
    .boxed()
}

/// The cells field: 12 counts (sometimes another number), `Q` mostly on cells 0 and 6.
fn oaq_cells() -> impl Strategy<Value = String> {
    let n = prop_oneof![10 => Just(12usize), 1 => 0usize..16];
    let small = any::<bool>();
    (n, small)
        .prop_flat_map(|(n, small)| {
            let count = if small {
                (0u32..=2).prop_map(|c| c.to_string()).boxed()
            } else {
                oaq_count()
            };
            prop::collection::vec((0u8..100, count), n)
        })
        .prop_map(|cells| {
            cells
                .into_iter()
                .enumerate()
                .map(|(i, (q, c))| {
                    if ((i == 0 || i == 6) && q < 50) || q < 1 {
                        format!("Q{c}")
                    } else {
                        c
                    }
                })
                .collect::<Vec<_>>()
                .join(",")
        })
}

fn oaq_store() -> BoxedStrategy<String> {
    prop_oneof![
        4 => (-15i32..=80).prop_map(|n| n.to_string()),
        1 => number_token(),
    ]
    .boxed()
}

/// Texts shaped like Ô Ăn Quan positions: cells, side, two stores, first-ply flag, maybe more.
fn oaq_soup() -> impl Strategy<Value = String> {
    (
        oaq_cells(),
        prop_oneof![
            8 => prop::sample::select(vec!["s", "n"]),
            1 => prop::sample::select(vec!["S", "N", "x", "", "sn"]),
        ],
        (oaq_store(), oaq_store()),
        prop_oneof![
            8 => prop::sample::select(vec!["0", "1"]),
            1 => prop::sample::select(vec!["2", "01", "x", "", "-0"]),
        ],
        prop_oneof![
            8 => Just(vec![]),
            1 => prop::collection::vec(prop::sample::select(vec!["0", "s", "1"]), 1..3),
        ],
        prop::sample::select(vec![" ", " ", "  ", "\t"]),
    )
        .prop_map(|(cells, side, stores, first, extra, sep)| {
            let mut f = vec![
                cells,
                side.to_string(),
                stores.0,
                stores.1,
                first.to_string(),
            ];
            f.extend(extra.into_iter().map(str::to_string));
            f.join(sep)
        })
}

fn oaq_token() -> BoxedStrategy<String> {
    prop_oneof![
        3 => oaq_count(),
        1 => oaq_count().prop_map(|c| format!("Q{c}")),
        1 => oaq_store(),
        1 => oaq_cells(),
        1 => prop::sample::select(vec!["s", "n", "Q", "QQ1", "", "x", "1", "0", "-"])
            .prop_map(str::to_string),
        1 => any::<String>().prop_map(|s| s.replace(char::is_whitespace, "")),
    ]
    .boxed()
}

/// Texts shaped like moves: a number (some out of range) and a direction.
fn oaq_move_shaped() -> BoxedStrategy<String> {
    (
        prop_oneof![8 => (0u32..=11).prop_map(|n| n.to_string()), 1 => number_token()],
        prop_oneof![
            6 => prop::sample::select(vec!["+", "-"]),
            1 => prop::sample::select(vec!["", "++", "+-", " +", "x", "Q"]),
        ],
        prop::sample::select(vec!["", "", " ", "\t"]),
    )
        .prop_map(|(n, d, pad)| format!("{pad}{n}{d}{pad}"))
        .boxed()
}

/// (f) Arbitrary text and Ô Ăn Quan-shaped field soups, parsed under every configuration.
#[test]
fn oaq_position_parser_on_arbitrary_text() {
    let games = oaq_games();
    let tally = Tally::new();
    let parsed = Cell::new(0u64);
    let text = prop_oneof![1 => arbitrary_text(OAQ_CHARS), 2 => oaq_soup()];
    run("oaq_position_parser_on_arbitrary_text", 40_000, text, |t| {
        let mut any_ok = false;
        for (name, g) in &games {
            let ok = check_oaq_text(g, name, &t)?;
            parsed.set(parsed.get() + ok as u64);
            any_ok |= ok;
        }
        tally.add(any_ok);
        Ok(())
    });
    tally.print("texts (accepted: by at least one configuration)");
    eprintln!(
        "  {} accepted (text, configuration) pairs over {} configurations",
        parsed.get(),
        games.len()
    );
}

/// (g) Valid position texts from random playouts under each configuration, then 0 to 3 token or
/// character mutations; each mutated text is parsed under every configuration.
#[test]
fn oaq_position_parser_on_mutated_valid_texts() {
    let games = oaq_games();
    let tally = Tally::new();
    let strategy = (
        0..games.len(),
        choices(80),
        prop::collection::vec(mutation(OAQ_CHARS, oaq_token()), 0..4),
    );
    run(
        "oaq_position_parser_on_mutated_valid_texts",
        30_000,
        strategy,
        |(i, choices, muts)| {
            let (name, g) = &games[i];
            let p = oaq_playout(g, &choices);
            let text = g.format_position(&p);
            let back = g
                .parse_position(&text)
                .map_err(|e| TestCaseError::fail(format!("{name}: valid '{text}': {e}")))?;
            prop_assert_eq!(back, p, "{}: '{}' does not round-trip", name, text);
            let text = apply(text, &muts);
            let mut own = false;
            for (j, (name, g)) in games.iter().enumerate() {
                let ok = check_oaq_text(g, name, &text)?;
                own |= ok && j == i;
            }
            tally.add(own);
            Ok(())
        },
    );
    tally.print("mutated texts (accepted: by their own configuration)");
}

/// (h) `parse_move` on playout positions with arbitrary text, move-shaped text and moves aimed
/// at the mover's cells (`k`-th own cell, direction).
#[test]
fn oaq_move_parser_on_arbitrary_text() {
    let games = oaq_games();
    let tally = Tally::new();
    let text = prop_oneof![
        1 => arbitrary_text(OAQ_MOVE_CHARS).prop_map(MoveText::Given),
        1 => text_over(OAQ_MOVE_CHARS, 6).prop_map(MoveText::Given),
        1 => oaq_move_shaped().prop_map(MoveText::Given),
        2 => (0usize..5, any::<bool>()).prop_map(MoveText::Aimed),
    ];
    run(
        "oaq_move_parser_on_arbitrary_text",
        30_000,
        (0..games.len(), choices(40), text),
        |(i, choices, text)| {
            let (name, g) = &games[i];
            let p = oaq_playout(g, &choices);
            let text = match text {
                MoveText::Given(t) => t,
                MoveText::Aimed((k, plus)) => {
                    format!("{}{}", p.side.cells()[k], if plus { '+' } else { '-' })
                }
            };
            tally.add(check_oaq_move(g, name, &p, &text)?);
            Ok(())
        },
    );
    tally.print("move texts");
}

/// (i) Every legal move of a playout position, written out, parses back to itself with its
/// turn; then one of them is mutated 0 to 3 times.
#[test]
fn oaq_move_parser_on_mutated_valid_moves() {
    let games = oaq_games();
    let tally = Tally::new();
    let strategy = (
        0..games.len(),
        choices(40),
        any::<usize>(),
        prop::collection::vec(mutation(OAQ_MOVE_CHARS, oaq_move_shaped()), 0..4),
    );
    run(
        "oaq_move_parser_on_mutated_valid_moves",
        30_000,
        strategy,
        |(i, choices, pick, muts)| {
            let (name, g) = &games[i];
            let p = oaq_playout(g, &choices);
            let fen = g.format_position(&p);
            let mut list = Vec::new();
            g.moves(&p, &mut list);
            let mut texts = Vec::new();
            for (mv, turn) in &list {
                let t = g.format_move(mv);
                let back = g.parse_move(&p, &t).map_err(|e| {
                    TestCaseError::fail(format!("{name}: legal move '{t}' on '{fen}': {e}"))
                })?;
                prop_assert_eq!(back, (*mv, *turn), "{}: '{}' on '{}'", name, t, fen);
                texts.push(t);
            }
            let text = match texts.len() {
                0 => "3+".to_string(),
                n => texts[pick % n].clone(),
            };
            tally.add(check_oaq_move(g, name, &p, &apply(text, &muts))?);
            Ok(())
        },
    );
    tally.print("mutated moves");
}

/// Checks a `--rule` setting on a profile: accepted, setting each field of its description on a
/// default profile gives the same rules, and the game can be played; refused, the profile is
/// unchanged.
fn check_oaq_setting(base: &OaqProfile, text: &str) -> Result<bool, TestCaseError> {
    let mut p = base.clone();
    if p.set(text).is_err() {
        prop_assert_eq!(&p, base, "refused '{}' changed the profile", text);
        return Ok(false);
    }
    let mut q = OaqProfile::default();
    for (k, v) in p.describe() {
        let part = format!("{k}={v}");
        q.set(&part).map_err(|e| {
            TestCaseError::fail(format!("'{text}': description part '{part}' refused: {e}"))
        })?;
    }
    prop_assert_eq!(q.fingerprint(), p.fingerprint(), "'{}'", text);
    let (g, h) = (Oaq::new(p), Oaq::new(q));
    let s = g.start();
    prop_assert_eq!(h.start(), s, "'{}': another start position", text);
    prop_assert_eq!(g.parse_position(&g.format_position(&s)).ok(), Some(s));
    let mut list = Vec::new();
    g.moves(&s, &mut list);
    for (mv, turn) in &list {
        prop_assert_eq!(
            g.parse_move(&s, &g.format_move(mv)).ok(),
            Some((*mv, *turn))
        );
        let after = g.format_position(&turn.position);
        prop_assert_eq!(g.parse_position(&after).ok(), Some(turn.position));
    }
    check_oaq_usable(&g, text, &oaq_playout(&g, &[3; 30]))?;
    Ok(true)
}

fn oaq_setting() -> impl Strategy<Value = String> {
    let valid: Vec<String> = OAQ_RULES
        .iter()
        .flat_map(|r| r.split(';'))
        .filter(|s| *s != "default")
        .map(str::to_string)
        .chain(["big-mandarin=off".to_string(), "quan-non=0".to_string()])
        .collect();
    let token = prop_oneof![
        number_token(),
        prop::sample::select(vec!["seeds", "big-mandarin", "quan-non", "off", "none", ""])
            .prop_map(str::to_string),
        any::<String>(),
    ]
    .boxed();
    let name = prop::sample::select(vec![
        "seeds",
        "big-mandarin",
        "quan-non",
        "big_mandarin",
        "quan_non",
        " seeds ",
        "Seeds",
        "big",
        "protected-threes",
        "",
    ]);
    let value = prop_oneof![
        2 => (number_token(), number_token()).prop_map(|(k, m)| format!("{k},{m}")),
        2 => number_token(),
        1 => (0u32..=12, 0u32..=22).prop_map(|(k, m)| format!("{k},{m}")),
        1 => (0u32..=52).prop_map(|n| n.to_string()),
        1 => prop::sample::select(vec![
            "off", "none", "0", "on", "", "5,", ",5", "5,5,5", " 5 , 5 ", "5;5", "Q10",
        ])
        .prop_map(str::to_string),
    ];
    let eq = prop_oneof![
        6 => Just("="),
        1 => prop::sample::select(vec!["==", "", " = ", ":", "=="]),
    ];
    prop_oneof![
        3 => (name, eq, value).prop_map(|(n, e, v)| format!("{n}{e}{v}")),
        1 => arbitrary_text(SETTING_CHARS),
        2 => (
            prop::sample::select(valid),
            prop::collection::vec(mutation(SETTING_CHARS, token), 1..4)
        )
            .prop_map(|(s, muts)| apply(s, &muts)),
    ]
}

/// (j) `OaqProfile::set` (`--rule`) on well-formed, arbitrary and mutated settings, starting
/// from each configuration.
#[test]
fn oaq_rule_setter() {
    let profiles: Vec<OaqProfile> = OAQ_RULES.iter().map(|r| oaq_profile(r)).collect();
    let tally = Tally::new();
    run(
        "oaq_rule_setter",
        20_000,
        (0..profiles.len(), oaq_setting()),
        |(i, text)| {
            tally.add(check_oaq_setting(&profiles[i], &text)?);
            Ok(())
        },
    );
    tally.print("settings");
}
