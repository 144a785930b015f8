//! Ô Ăn Quan (RULES.md section 3): the engine against an independent slow implementation
//! (`oaq_slow`), hand-worked turns, long relays, perft from `tests/data/oaq-perft.tsv`, and the
//! error paths of the position text and the move notation.

mod oaq_slow;

use oaq_slow::{Outcome, Pos, Rules, SlowTurn, NORTH, SOUTH};
use retro_engine::oaq::position::Final;
use retro_engine::oaq::{Move, Oaq, OaqProfile, Position, Side, Turn};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::time::{Duration, Instant};

// ------------------------------------------------------------------------------------------------
// Helpers.

/// xorshift64*: a small seeded generator, so every run plays the same games.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The engine under `default` or `;`-separated settings (`seeds=2,2;big-mandarin=10`).
fn engine(settings: &str) -> Oaq {
    let mut profile = OaqProfile::default();
    for item in settings.split(';').map(str::trim) {
        if !item.is_empty() && item != "default" {
            profile
                .set(item)
                .unwrap_or_else(|e| panic!("engine setting {item}: {e:?}"));
        }
    }
    Oaq::new(profile)
}

fn slow(settings: &str) -> Rules {
    Rules::from_settings(settings).unwrap()
}

fn side_index(s: Side) -> usize {
    match s {
        Side::South => SOUTH,
        Side::North => NORTH,
    }
}

/// The engine's game-over verdict in the slow implementation's terms.
fn engine_final(f: &Final) -> ([i64; 2], Option<usize>) {
    (
        [f.stores[0] as i64, f.stores[1] as i64],
        f.winner.map(side_index),
    )
}

fn slow_final(o: &Outcome) -> ([i64; 2], Option<usize>) {
    (o.stores, o.winner)
}

/// One move as both sides can print it: notation, resulting position, capture, refill.
type Shown = (String, String, i64, bool);

fn show_engine(g: &Oaq, list: &[(Move, Turn)]) -> Vec<Shown> {
    list.iter()
        .map(|(m, t)| {
            (
                g.format_move(m),
                g.format_position(&t.position),
                t.captured as i64,
                t.refilled,
            )
        })
        .collect()
}

fn show_slow(list: &[SlowTurn]) -> Vec<Shown> {
    list.iter()
        .map(|t| {
            (
                oaq_slow::write_move(t.cell, t.dir),
                oaq_slow::write(&t.after),
                t.captured,
                t.refilled,
            )
        })
        .collect()
}

/// Compares one position in every respect; returns the slow implementation's turns.
fn compare(
    g: &Oaq,
    r: &Rules,
    ep: &Position,
    sp: &Pos,
    buf: &mut Vec<(Move, Turn)>,
) -> Vec<SlowTurn> {
    let text = g.format_position(ep);
    assert_eq!(text, oaq_slow::write(sp), "position text");
    assert_eq!(
        g.parse_position(&text).as_ref(),
        Ok(ep),
        "engine round trip of {text}"
    );
    assert_eq!(
        oaq_slow::parse(r, &text).as_ref(),
        Ok(sp),
        "slow round trip of {text}"
    );
    assert_eq!(
        g.outcome(ep).as_ref().map(engine_final),
        oaq_slow::game_over(r, sp).as_ref().map(slow_final),
        "game over verdict in {text}"
    );
    g.moves(ep, buf);
    let list = oaq_slow::turns(r, sp, oaq_slow::sowing_limit(oaq_slow::seeds_of(r, sp)))
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(show_engine(g, buf), show_slow(&list), "moves of {text}");
    assert_eq!(g.count_moves(ep), list.len(), "count_moves of {text}");
    list
}

/// Runs `f` (engine work) on a thread and fails instead of hanging if it does not finish.
fn within<T: Send + 'static>(secs: u64, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(v) => v,
        Err(RecvTimeoutError::Timeout) => panic!("{what}: the engine did not finish in {secs} s"),
        Err(RecvTimeoutError::Disconnected) => panic!("{what}: the engine panicked"),
    }
}

// ------------------------------------------------------------------------------------------------
// Differential test: random playouts.

/// (name, engine settings, slow settings): both sides get the same settings. `big-mandarin=V`
/// alone starts with no small seeds in the mandarin cells (`Q0`, the rule text's "instead");
/// `seeds=5,10` after it puts 10 small seeds beside each big piece (`Q10`).
const CONFIGS: &[(&str, &str, &str)] = &[
    ("default", "default", "default"),
    ("seeds=1,1", "seeds=1,1", "seeds=1,1"),
    ("seeds=2,2", "seeds=2,2", "seeds=2,2"),
    ("seeds=1,5", "seeds=1,5", "seeds=1,5"),
    (
        "big-mandarin=10,seeds=5,10",
        "big-mandarin=10;seeds=5,10",
        "big-mandarin=10;seeds=5,10",
    ),
    (
        "big-mandarin=5,seeds=5,10",
        "big-mandarin=5;seeds=5,10",
        "big-mandarin=5;seeds=5,10",
    ),
    (
        "quan-non=5,big-mandarin=10,seeds=5,10",
        "quan-non=5;big-mandarin=10;seeds=5,10",
        "quan-non=5;big-mandarin=10;seeds=5,10",
    ),
    ("big-mandarin=10", "big-mandarin=10", "big-mandarin=10"),
    (
        "big-mandarin=10,seeds=5,0",
        "big-mandarin=10;seeds=5,0",
        "big-mandarin=10;seeds=5,0",
    ),
    (
        "quan-non=5,big-mandarin=10,seeds=5,0",
        "quan-non=5;big-mandarin=10;seeds=5,0",
        "quan-non=5;big-mandarin=10;seeds=5,0",
    ),
];

#[derive(Default, Debug)]
struct Stats {
    positions: u64,
    games: u64,
    ended_mandarins: u64,
    ended_refill: u64,
    capped: u64,
    longest_game: u64,
    wins: [u64; 3],
    refills: u64,
    borrowed: u64,
    mandarin_captures: u64,
    big_captures: u64,
    max_captured: i64,
    max_sown: u64,
}

fn playouts(cfg: &(&str, &str, &str), positions: u64, seed: u64) -> Stats {
    let (_, es, ss) = *cfg;
    let g = engine(es);
    let r = slow(ss);
    let mut rng = Rng::new(seed);
    let mut st = Stats::default();
    let mut buf = Vec::new();
    while st.positions < positions {
        let mut ep = g.start();
        let mut sp = r.start();
        st.games += 1;
        let mut plies = 0;
        loop {
            st.positions += 1;
            let list = compare(&g, &r, &ep, &sp, &mut buf);
            if list.is_empty() {
                let o = oaq_slow::game_over(&r, &sp).unwrap();
                if o.by_refill {
                    st.ended_refill += 1;
                } else {
                    st.ended_mandarins += 1;
                }
                st.wins[o.winner.unwrap_or(2)] += 1;
                break;
            }
            if plies == 400 {
                st.capped += 1;
                break;
            }
            for t in &list {
                st.max_captured = st.max_captured.max(t.captured);
                st.max_sown = st.max_sown.max(t.sown);
            }
            let i = rng.below(list.len());
            let t = &list[i];
            if t.refilled {
                st.refills += 1;
                if sp.stores[sp.side] < 5 {
                    st.borrowed += 1;
                }
            }
            for m in [0, 6] {
                if sp.non_empty(m) && !t.after.non_empty(m) {
                    st.mandarin_captures += 1;
                    if sp.has_big(m) {
                        st.big_captures += 1;
                    }
                }
            }
            // parse_move must find the same turn as the move list.
            let text = oaq_slow::write_move(t.cell, t.dir);
            let (m, et) = g.parse_move(&ep, &text).unwrap();
            assert_eq!((m, et), buf[i], "parse_move {text}");
            ep = et.position;
            sp = t.after.clone();
            plies += 1;
        }
        st.longest_game = st.longest_game.max(plies);
    }
    st
}

#[test]
fn random_playouts_agree_with_the_slow_implementation() {
    let t0 = Instant::now();
    let mut total = 0;
    for (i, cfg) in CONFIGS.iter().enumerate() {
        let st = playouts(cfg, 40_000, 1000 + i as u64);
        println!(
            "{:<38} positions {:>6}  games {:>5} (mandarins {:>4}, refill {:>3}, capped {:>3}, longest {:>3} plies)  \
             S/N/draw {}/{}/{}  refills {} (borrowing {})  mandarin captures {} (big pieces {})  \
             max capture {}  max sown {}",
            cfg.0,
            st.positions,
            st.games,
            st.ended_mandarins,
            st.ended_refill,
            st.capped,
            st.longest_game,
            st.wins[0],
            st.wins[1],
            st.wins[2],
            st.refills,
            st.borrowed,
            st.mandarin_captures,
            st.big_captures,
            st.max_captured,
            st.max_sown
        );
        assert!(
            st.refills > 0 && st.mandarin_captures > 0,
            "{}: {st:?}",
            cfg.0
        );
        total += st.positions;
    }
    println!(
        "total {total} positions compared in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    assert!(total >= 100_000);
}

// ------------------------------------------------------------------------------------------------
// Hand-worked turns.

/// Plays `mv` in `before` with both implementations and checks the hand-worked result.
fn check_turn(settings: &str, before: &str, mv: &str, after: &str, captured: i64, refilled: bool) {
    let g = engine(settings);
    let ep = g.parse_position(before).unwrap();
    let (_, t) = g.parse_move(&ep, mv).unwrap();
    assert_eq!(
        g.format_position(&t.position),
        after,
        "engine: {before} {mv}"
    );
    assert_eq!(
        (t.captured as i64, t.refilled),
        (captured, refilled),
        "engine: {before} {mv}"
    );
    let r = slow(settings);
    let sp = oaq_slow::parse(&r, before).unwrap();
    let st = oaq_slow::parse_move(&r, &sp, mv).unwrap();
    assert_eq!(oaq_slow::write(&st.after), after, "slow: {before} {mv}");
    assert_eq!(
        (st.captured, st.refilled),
        (captured, refilled),
        "slow: {before} {mv}"
    );
    // And the whole move list agrees.
    compare(&g, &r, &ep, &sp, &mut Vec::new());
}

/// The game-over verdict of both implementations: final stores and winner.
fn verdict(settings: &str, text: &str) -> Option<([i64; 2], Option<usize>)> {
    let g = engine(settings);
    let ep = g.parse_position(text).unwrap();
    let r = slow(settings);
    let sp = oaq_slow::parse(&r, text).unwrap();
    let e = g.outcome(&ep).as_ref().map(engine_final);
    assert_eq!(
        e,
        oaq_slow::game_over(&r, &sp).as_ref().map(slow_final),
        "{text}"
    );
    let mut buf = Vec::new();
    g.moves(&ep, &mut buf);
    assert_eq!(buf.is_empty(), e.is_some(), "moves when over: {text}");
    e
}

#[test]
fn relay_through_a_citizen_cell() {
    // Start, South 1+: the 5 seeds of cell 1 go to 2,3,4,5,6 (2-5 hold 6, mandarin 6 holds 11).
    // The next cell, 7, is a citizen cell with 5 seeds: take them and sow 8,9,10,11,0 (8-11 hold
    // 6, mandarin 0 holds 11). The next cell, 1, was emptied: look at 2 (6 seeds): capture 6.
    // The cell after the captured one, 3, is not empty: the turn ends.
    check_turn(
        "default",
        "10,5,5,5,5,5,10,5,5,5,5,5 s 0 0 1",
        "1+",
        "11,0,0,6,6,6,11,0,6,6,6,6 n 6 0 0",
        6,
        false,
    );
    // 12 seeds pass the emptied start cell too. South 1+ with 12: cells 2..11, 0, 1 get one each
    // (mandarin 6 now 2). Next cell 2 holds 1: relay, sow it into 3 (2). Next 4 holds 1: relay,
    // sow into 5 (2). Next is mandarin 6 with seeds: the turn ends.
    check_turn(
        "default",
        "0,12,0,0,0,0,1,0,0,0,0,0 s 30 27 0",
        "1+",
        "1,1,0,2,0,2,2,1,1,1,1,1 n 30 27 0",
        0,
        false,
    );
}

#[test]
fn chain_capture() {
    // South 1+ with 2 seeds: sow 2 and 3. Next cell 4 is empty; 5 holds 3: capture. Then
    // "empty, non-empty" again: the empty mandarin 6, then 7 (4): capture. Then 8 empty, 9 (2):
    // capture. Then 10 is not empty right after a captured cell: the turn ends. 3+4+2 = 9.
    check_turn(
        "default",
        "5,2,0,0,0,3,0,4,0,2,1,1 s 30 22 0",
        "1+",
        "5,0,1,1,0,0,0,0,0,0,1,1 n 39 22 0",
        9,
        false,
    );
}

#[test]
fn capture_of_a_mandarin_cell() {
    // South 3+ with 1 seed: sow 4. Next 5 empty, then mandarin 6 with 12 seeds: capture 12
    // (not the first ply). Then 7 and 8 are both empty: the turn ends.
    check_turn(
        "default",
        "10,1,0,1,0,0,12,0,0,3,2,1 s 20 20 0",
        "3+",
        "10,1,0,0,1,0,0,0,0,3,2,1 n 32 20 0",
        12,
        false,
    );
    // The same with a big piece worth 10 and 3 small seeds in cell 6: 13 captured, the Q goes.
    check_turn(
        "big-mandarin=10",
        "Q0,1,0,1,0,0,Q3,0,0,3,2,1 s 10 10 0",
        "3+",
        "Q0,1,0,0,1,0,0,0,0,3,2,1 n 23 10 0",
        13,
        false,
    );
    // Worth 5: 8 captured.
    check_turn(
        "big-mandarin=5",
        "Q0,1,0,1,0,0,Q3,0,0,3,2,1 s 10 10 0",
        "3+",
        "Q0,1,0,0,1,0,0,0,0,3,2,1 n 18 10 0",
        8,
        false,
    );
    // A big piece alone (Q0) is not empty: it can be captured (worth 10) ...
    check_turn(
        "big-mandarin=10",
        "Q0,1,0,1,0,0,Q0,0,0,3,2,1 s 10 10 0",
        "3+",
        "Q0,1,0,0,1,0,0,0,0,3,2,1 n 20 10 0",
        10,
        false,
    );
    // ... and a hand ending just before it ends the turn (4+: sow 5, next is Q0).
    check_turn(
        "big-mandarin=10",
        "Q0,1,0,0,1,0,Q0,0,0,3,2,1 s 10 10 0",
        "4+",
        "Q0,1,0,0,0,1,Q0,0,0,3,2,1 n 10 10 0",
        0,
        false,
    );
}

#[test]
fn first_ply_protects_the_mandarins() {
    // Default start, South 5+: sow 6,7,8,9,10 (6 holds 11, 7-10 hold 6). Next 11 (5): relay,
    // sow 0,1,2,3,4 (0 holds 11, 1-4 hold 6). Next 5 was emptied; then mandarin 6: on the first
    // ply it cannot be captured, the chain stops before it.
    check_turn(
        "default",
        "10,5,5,5,5,5,10,5,5,5,5,5 s 0 0 1",
        "5+",
        "11,6,6,6,6,0,11,6,6,6,6,0 n 0 0 0",
        0,
        false,
    );
    // The same board on a later ply: mandarin 6 (11) is captured, then 7 is not empty: stop.
    check_turn(
        "default",
        "10,5,5,5,5,5,10,5,5,5,5,5 s 0 0 0",
        "5+",
        "11,6,6,6,6,0,0,6,6,6,6,0 n 11 0 0",
        11,
        false,
    );
    // seeds=1,1 start, South 5+: sow 6 (2); relays from 7 into 8, 9 into 10, 11 into 0, 1 into 2,
    // 3 into 4 (all 2). Next 5 is empty, then mandarin 6: first ply, the chain stops.
    check_turn(
        "seeds=1,1",
        "1,1,1,1,1,1,1,1,1,1,1,1 s 0 0 1",
        "5+",
        "2,0,2,0,2,0,2,0,2,0,2,0 n 0 0 0",
        0,
        false,
    );
    // Later: the chain takes 6, 8, 10, 0, 2, 4 (2 each, round the ring through both mandarins
    // and the mover's own cells) and stops at 5, 6 both empty. 12 seeds: both mandarins are
    // empty, the game ends: South 12 + 0, North 0 + 0.
    check_turn(
        "seeds=1,1",
        "1,1,1,1,1,1,1,1,1,1,1,1 s 0 0 0",
        "5+",
        "0,0,0,0,0,0,0,0,0,0,0,0 n 12 0 0",
        12,
        false,
    );
    assert_eq!(
        verdict("seeds=1,1", "0,0,0,0,0,0,0,0,0,0,0,0 n 12 0 0"),
        Some(([12, 0], Some(SOUTH)))
    );
}

#[test]
fn quan_non() {
    let rules = "big-mandarin=10;quan-non=5";
    // 3+: sow 4, 5 empty, 6 holds the big piece and 3 < 5 small seeds: cannot be captured.
    check_turn(
        rules,
        "Q0,1,0,1,0,0,Q3,0,0,3,2,1 s 10 10 0",
        "3+",
        "Q0,1,0,0,1,0,Q3,0,0,3,2,1 n 10 10 0",
        0,
        false,
    );
    // With 5 small seeds it can: 10 + 5.
    check_turn(
        rules,
        "Q0,1,0,1,0,0,Q5,0,0,3,2,1 s 10 10 0",
        "3+",
        "Q0,1,0,0,1,0,0,0,0,3,2,1 n 25 10 0",
        15,
        false,
    );
    // Without the big-mandarin rule quan-non protects nothing ("(big piece still there)").
    check_turn(
        "quan-non=5",
        "10,1,0,1,0,0,3,0,0,3,2,1 s 20 20 0",
        "3+",
        "10,1,0,0,1,0,0,0,0,3,2,1 n 23 20 0",
        3,
        false,
    );
    // Without its big piece the rule does not protect it: 3 captured.
    check_turn(
        rules,
        "Q0,1,0,1,0,0,3,0,0,3,2,1 s 20 10 0",
        "3+",
        "Q0,1,0,0,1,0,0,0,0,3,2,1 n 23 10 0",
        3,
        false,
    );
    // Mid-chain: 1+ sows 2; 3 empty, 4 (2) captured; 5 empty, then Q3: the chain stops before it.
    check_turn(
        rules,
        "Q0,1,0,0,2,0,Q3,0,0,3,2,1 s 10 10 0",
        "1+",
        "Q0,0,1,0,0,0,Q3,0,0,3,2,1 n 12 10 0",
        2,
        false,
    );
}

#[test]
fn refill_with_borrowing() {
    // South's row is empty and its store holds 2: it puts one seed in each of 1-5, borrowing 3
    // from North (South -3, North keeps 10). 5+: sow 6 (11). Next 7 (8): relay, sow 8,9,10,11,
    // 0,1,2,3 (9,9,8,8,11,2,2,2). Next 4 (1): relay, sow 5 (1). Next is mandarin 6: the end.
    check_turn(
        "default",
        "10,0,0,0,0,0,10,8,8,8,7,7 s 2 10 0",
        "5+",
        "11,2,2,2,0,1,11,0,9,9,8,8 n -3 10 0",
        0,
        true,
    );
    // seeds=1,1: exactly 5 seeds off the board (stores 1 + 4): the refill is possible. South
    // -4. 1+: sow 2 (2); relays 3 into 4 (2), 5 into 6 (3), 7 into 8 (2); then 9 and 10 are
    // both empty: the end.
    check_turn(
        "seeds=1,1",
        "3,0,0,0,0,0,2,1,1,0,0,0 s 1 4 0",
        "1+",
        "3,0,2,0,2,0,3,0,2,0,0,0 n -4 4 0",
        0,
        true,
    );
    // With 4 off the board the refill is impossible: the game ends at once. South 1 + 0, North
    // 3 + 2; the 6 seeds in the mandarin cells go to nobody.
    assert_eq!(
        verdict("seeds=1,1", "3,0,0,0,0,0,3,1,1,0,0,0 s 1 3 0"),
        Some(([1, 5], Some(NORTH)))
    );
    // A refill paid in full (North 7 -> 2). 7+: sow 8 (2); relays 9 into 10 (2), 11 into 0 (2),
    // 1 into 2 (2); then 3 and 4 are both empty: the end.
    check_turn(
        "seeds=1,1",
        "1,1,1,0,0,0,0,0,0,0,0,0 n 2 7 0",
        "7+",
        "2,0,2,0,0,0,0,0,2,0,2,0 s 2 2 0",
        0,
        true,
    );
}

#[test]
fn end_and_final_collection() {
    // 3+: sow 4; 5 empty; mandarin 6 (4) captured; 7 and 8 empty: stop. Both mandarin cells are
    // now empty: the game ends. South 34 + 1 (cell 4), North 29 + 2+3+1: 35 to 35, a draw.
    check_turn(
        "default",
        "0,0,0,1,0,0,4,0,0,2,3,1 s 30 29 0",
        "3+",
        "0,0,0,0,1,0,0,0,0,2,3,1 n 34 29 0",
        4,
        false,
    );
    assert_eq!(
        verdict("default", "0,0,0,1,0,0,4,0,0,2,3,1 s 30 29 0"),
        None
    );
    assert_eq!(
        verdict("default", "0,0,0,0,1,0,0,0,0,2,3,1 n 34 29 0"),
        Some(([35, 35], None))
    );
    // The end by an impossible refill in the full game: 67 seeds on the board, 3 off. The 50
    // seeds in the mandarin cells go to nobody: South 2, North 1 + 17.
    assert_eq!(
        verdict("default", "30,0,0,0,0,0,20,4,4,4,4,1 s 2 1 0"),
        Some(([2, 18], Some(NORTH)))
    );
    // Only the mover's empty row matters: North's row is empty but South is to move.
    assert_eq!(
        verdict("default", "30,1,0,0,0,0,20,0,0,0,0,0 s 2 17 0"),
        None
    );
    // Never at the start position, even with seeds=K,0 (empty mandarins); later it is over.
    assert_eq!(
        verdict("seeds=1,0", "0,1,1,1,1,1,0,1,1,1,1,1 s 0 0 1"),
        None
    );
    assert_eq!(
        verdict("seeds=1,0", "0,1,1,1,1,1,0,1,1,1,1,1 n 0 0 0"),
        Some(([5, 5], None))
    );
    // A big piece alone keeps the game going.
    assert_eq!(
        verdict("big-mandarin=10", "Q0,1,0,0,0,0,0,1,0,0,0,0 s 10 0 0"),
        None
    );
    // The refill test counts seeds off the board (3.6: "fewer than 5 seeds are off the
    // board"): here South's store holds a captured big piece worth 10, but all 50 small seeds
    // are on the board, so South cannot refill and the game ends: South 10, North 45 (the 5
    // seeds with the big piece in cell 6 go to nobody).
    assert_eq!(
        verdict(
            "big-mandarin=10;seeds=5,0",
            "0,0,0,0,0,0,Q5,10,10,10,10,5 s 10 0 0"
        ),
        Some(([10, 45], Some(NORTH)))
    );
    // Nothing can be played once the game is over.
    let g = engine("default");
    let p = g
        .parse_position("0,0,0,0,1,0,0,0,0,2,3,1 s 34 29 0")
        .unwrap();
    assert!(g.parse_move(&p, "4+").is_err());
}

/// The rule text's start under `big-mandarin=10`: "instead [of 10 seeds], each mandarin cell
/// holds one big piece worth V ... plus whatever small seeds are sown into it".
#[test]
fn big_mandarin_start_has_no_small_seeds() {
    let r = slow("big-mandarin=10");
    assert_eq!(
        oaq_slow::write(&r.start()),
        "Q0,5,5,5,5,5,Q0,5,5,5,5,5 s 0 0 1"
    );
    let g = engine("big-mandarin=10");
    assert_eq!(
        g.format_position(&g.start()),
        "Q0,5,5,5,5,5,Q0,5,5,5,5,5 s 0 0 1"
    );
}

// ------------------------------------------------------------------------------------------------
// Every turn ends: long relays.

/// A random position with `seeds` small seeds spread over the board (some cells heavy).
fn random_position(r: &Rules, rng: &mut Rng, seeds: u32) -> Pos {
    let mut cells = vec![0u32; 12];
    // Pick a few favoured cells so that some cells get big piles.
    let favoured: Vec<usize> = (0..rng.below(4)).map(|_| rng.below(12)).collect();
    for _ in 0..seeds {
        let c = if !favoured.is_empty() && rng.below(3) == 0 {
            favoured[rng.below(favoured.len())]
        } else {
            rng.below(12)
        };
        cells[c] += 1;
    }
    let big = r.big.is_some();
    let big_piece = [big && rng.below(2) == 0, big && rng.below(2) == 0];
    // The stores hold the seeds off the board and the worth of the big pieces captured.
    let taken = big_piece.iter().filter(|&&b| big && !b).count() as i64;
    let off = (r.seeds_in_game() - seeds) as i64 + taken * r.big.unwrap_or(0) as i64;
    let south = if off > 0 {
        rng.below(off as usize + 1) as i64
    } else {
        0
    };
    Pos {
        cells,
        big_piece,
        side: rng.below(2),
        stores: [south, off - south],
        first: rng.below(10) == 0,
    }
}

#[test]
fn every_turn_ends_on_long_relays() {
    let t0 = Instant::now();
    let configs = ["seeds=10,20", "seeds=10,20;big-mandarin=10;quan-non=3"];
    for (k, settings) in configs.iter().enumerate() {
        let r = slow(settings);
        let total = r.seeds_in_game();
        let limit = oaq_slow::sowing_limit(total);
        let mut rng = Rng::new(77 + k as u64);
        let mut texts = Vec::new();
        let mut expected = Vec::new();
        let (mut max_sown, mut max_relays, mut turns) = (0u64, 0u64, 0u64);
        let mut longest = String::new();
        // Random positions with 60 to 140 seeds.
        for _ in 0..12_000 {
            let seeds = 60 + rng.below((total - 60) as usize + 1) as u32;
            let p = random_position(&r, &mut rng, seeds);
            let list = oaq_slow::turns(&r, &p, limit).unwrap_or_else(|e| panic!("{e}"));
            for t in &list {
                turns += 1;
                if t.sown > max_sown {
                    max_sown = t.sown;
                    longest = format!(
                        "{} {}",
                        oaq_slow::write(&p),
                        oaq_slow::write_move(t.cell, t.dir)
                    );
                }
                max_relays = max_relays.max(t.relays);
            }
            texts.push(oaq_slow::write(&p));
            expected.push(show_slow(&list));
        }
        // Hill-climb towards longer turns: move seeds between cells, keep what sows longer.
        let mut best = random_position(&r, &mut rng, total);
        let mut best_len = 0;
        for step in 0..20_000 {
            let mut p = best.clone();
            if step % 2_000 == 0 {
                let seeds = 60 + rng.below((total - 59) as usize) as u32;
                p = random_position(&r, &mut rng, seeds);
                best_len = 0;
            }
            for _ in 0..1 + rng.below(4) {
                let from = rng.below(12);
                if p.cells[from] > 0 {
                    let n = 1 + rng.below(p.cells[from] as usize) as u32;
                    p.cells[from] -= n;
                    p.cells[rng.below(12)] += n;
                }
            }
            let list = oaq_slow::turns(&r, &p, limit).unwrap_or_else(|e| panic!("{e}"));
            let len = list.iter().map(|t| t.sown).max().unwrap_or(0);
            if len >= best_len {
                best_len = len;
                best = p.clone();
            }
            for t in &list {
                turns += 1;
                max_relays = max_relays.max(t.relays);
                if t.sown > max_sown {
                    max_sown = t.sown;
                    longest = format!(
                        "{} {}",
                        oaq_slow::write(&p),
                        oaq_slow::write_move(t.cell, t.dir)
                    );
                }
            }
            if step % 50 == 0 {
                texts.push(oaq_slow::write(&p));
                expected.push(show_slow(&list));
            }
        }
        println!(
            "{settings}: {} positions, {turns} turns, longest turn sows {max_sown} seeds \
             ({max_relays} relays at most; bound {limit}): {longest}",
            texts.len()
        );
        assert!(max_sown <= limit);
        // The engine, on a thread so that a turn that never ended would fail the test.
        let settings = settings.to_string();
        let positions = texts.clone();
        let got = within(60, "long relays", move || {
            let g = engine(&settings);
            let mut buf = Vec::new();
            positions
                .iter()
                .map(|t| {
                    let p = g.parse_position(t).unwrap();
                    g.moves(&p, &mut buf);
                    show_engine(&g, &buf)
                })
                .collect::<Vec<_>>()
        });
        for ((t, e), s) in texts.iter().zip(&got).zip(&expected) {
            assert_eq!(e, s, "moves of {t}");
        }
    }
    // Two of the longest turns found (by the search above when it was written): the slow
    // implementation counts the seeds sown, and the engine plays the same turn.
    for (settings, text, mv, sown) in [
        (
            "seeds=10,20",
            "0,14,12,6,18,13,1,12,9,10,35,0 s 7 3 0",
            "4+",
            423,
        ),
        (
            "seeds=10,20;big-mandarin=10;quan-non=3",
            "Q0,30,9,8,5,24,Q7,8,12,2,13,19 n 0 3 0",
            "11+",
            503,
        ),
    ] {
        let r = slow(settings);
        let p = oaq_slow::parse(&r, text).unwrap();
        let t = oaq_slow::parse_move(&r, &p, mv).unwrap();
        assert_eq!(t.sown, sown, "{text} {mv}");
        let g = engine(settings);
        let (_, et) = g.parse_move(&g.parse_position(text).unwrap(), mv).unwrap();
        assert_eq!(g.format_position(&et.position), oaq_slow::write(&t.after));
        assert_eq!((et.captured as i64, et.refilled), (t.captured, t.refilled));
        println!(
            "{text} {mv}: {} seeds sown, {} relays, {} captured -> {}",
            t.sown,
            t.relays,
            t.captured,
            oaq_slow::write(&t.after)
        );
    }
    println!("long relays: {:.1} s", t0.elapsed().as_secs_f64());
}

// ------------------------------------------------------------------------------------------------
// Perft from the data file.

#[test]
fn perft_data_file() {
    let data = retro_tests::data("oaq-perft.tsv");
    let mut rows = 0;
    let mut default_start = Vec::new();
    for line in data.lines() {
        if line.trim().is_empty() || line.starts_with('#') || line.starts_with("config\t") {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 5, "row: {line}");
        let (settings, position, note) = (f[0], f[1], f[4]);
        let depth: u32 = f[2].parse().unwrap();
        let nodes: u64 = f[3].parse().unwrap();
        let g = engine(settings);
        let r = slow(settings);
        let (ep, sp) = if position == "start" {
            (g.start(), r.start())
        } else {
            (
                g.parse_position(position).unwrap(),
                oaq_slow::parse(&r, position).unwrap(),
            )
        };
        assert_eq!(g.format_position(&ep), oaq_slow::write(&sp), "{line}");
        let e = g.perft(&ep, depth);
        let s = oaq_slow::perft(&r, &sp, depth);
        println!(
            "{settings:<30} {position:<40} {depth} {nodes:>10} engine {e:>10} slow {s:>10}  {note}"
        );
        assert_eq!(e, nodes, "engine perft: {line}");
        assert_eq!(s, nodes, "slow perft: {line}");
        if settings == "default" && position == "start" {
            default_start.push((depth, nodes));
        }
        rows += 1;
    }
    // The file holds the start position's perft at depths 1-6, and the four figures.
    assert_eq!(
        default_start.iter().map(|d| d.0).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6]
    );
    assert_eq!(
        default_start[..4].iter().map(|d| d.1).collect::<Vec<_>>(),
        [10, 80, 664, 5128]
    );
    assert!(rows > 6);
}

// ------------------------------------------------------------------------------------------------
// Error paths of the position text and the moves.

#[test]
fn malformed_positions_are_errors() {
    let cases: &[(&str, &str)] = &[
        // field count
        ("default", ""),
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5 s 0 0"),
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5 s 0 0 1 x"),
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5"),
        // cell list
        ("default", "10,5,5,5,5,5,10,5,5,5,5 s 0 0 1"),
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5,0 s 0 0 1"),
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5, s 0 0 1"),
        ("default", "10,5,5,5,5,5,10,5,5,5,5,x s 0 0 1"),
        ("default", "10,,5,5,5,5,10,5,5,5,5,5 s 0 0 1"),
        ("default", "10,-1,5,5,5,5,10,5,5,5,5,5 s 0 0 1"),
        ("default", "10,1.5,5,5,5,5,10,5,5,5,5,5 s 0 0 1"),
        ("default", "10,256,5,5,5,5,10,5,5,5,5,5 s 0 0 1"),
        ("default", "10;5;5;5;5;5;10;5;5;5;5;5 s 0 0 1"),
        // Q on a citizen cell, without the rule, malformed
        ("big-mandarin=10", "Q10,Q5,5,5,5,5,Q10,5,5,5,5,5 s 0 0 1"),
        ("big-mandarin=10", "Q10,5,5,5,5,5,Q10,5,5,5,5,Q5 s 0 0 1"),
        ("default", "Q10,5,5,5,5,5,10,5,5,5,5,5 s 0 0 1"),
        ("default", "10,5,5,5,5,5,Q0,5,5,5,5,5 s 0 0 1"),
        ("big-mandarin=10", "Q,5,5,5,5,5,Q10,5,5,5,5,5 s 0 0 1"),
        ("big-mandarin=10", "QQ1,5,5,5,5,5,Q10,5,5,5,5,5 s 0 0 1"),
        ("big-mandarin=10", "q1,5,5,5,5,5,Q10,5,5,5,5,5 s 0 0 1"),
        ("big-mandarin=10", "1Q,5,5,5,5,5,Q10,5,5,5,5,5 s 0 0 1"),
        // side
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5 x 0 0 1"),
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5 S 0 0 1"),
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5 south 0 0 1"),
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5 sn 0 0 1"),
        // stores
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5 s a 0 1"),
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5 s 0 1.0 1"),
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5 s --1 0 1"),
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5 s 0 - 1"),
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5 s 99999999999 0 1"),
        // first flag
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5 s 0 0 2"),
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5 s 0 0 true"),
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5 s 0 0 -1"),
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5 s 0 0 01"),
        // not the seeds the game has (board and stores), or more than a text may bring
        ("seeds=5,10", "10,5,5,5,5,5,10,5,5,5,5,6 s 0 0 1"),
        ("seeds=5,10", "10,5,5,5,5,5,10,5,5,5,5,4 s 0 0 0"),
        ("seeds=1,1", "1,1,1,1,1,1,1,1,1,1,1,1 s 1 0 0"),
        ("seeds=1,1", "0,0,0,0,0,0,0,0,0,0,0,0 s 7 -3 0"),
        ("default", "1,1,1,1,1,1,1,1,1,1,1,1 s -3 2 0"),
        ("default", "250,5,0,0,0,0,0,0,0,0,0,1 s 0 0 0"),
        ("default", "200,5,0,0,0,0,0,0,0,0,0,1 s 30 20 0"),
        ("big-mandarin=10", "0,1,1,1,1,1,Q0,1,1,1,1,1 s 9 0 0"),
        (
            "big-mandarin=10;seeds=5,10",
            "Q10,5,5,5,5,5,10,5,5,5,5,5 s 0 0 1",
        ),
        ("seeds=1,1", "10,5,5,5,5,5,10,5,5,5,5,5 s 0 0 1"),
        ("seeds=2,2", "2,2,2,2,2,2,2,2,2,2,2,3 s 0 0 1"),
        (
            "big-mandarin=10;seeds=5,0",
            "Q1,5,5,5,5,5,Q0,5,5,5,5,5 s 0 0 1",
        ),
    ];
    for (settings, text) in cases {
        let g = engine(settings);
        assert!(
            g.parse_position(text).is_err(),
            "engine accepted [{text}] under {settings}"
        );
        let r = slow(settings);
        assert!(
            oaq_slow::parse(&r, text).is_err(),
            "slow accepted [{text}] under {settings}"
        );
    }
    // The well-formed neighbours are accepted.
    for (settings, text) in [
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5 s 0 0 1"),
        ("default", "  10,5,5,5,5,5,10,5,5,5,5,5   n  -3  7  0 "),
        (
            "big-mandarin=10;seeds=5,10",
            "Q10,5,5,5,5,5,10,5,5,5,5,5 s 10 0 0",
        ),
        ("big-mandarin=10", "Q0,5,5,5,5,5,0,5,5,5,5,5 s 10 0 0"),
        ("default", "10,5,5,5,5,5,10,5,5,5,5,6 s 0 0 1"),
        ("default", "1,1,1,1,1,1,1,1,1,1,1,1 s 0 0 1"),
        ("default", "250,5,0,0,0,0,0,0,0,0,0,0 s 0 0 0"),
        ("seeds=1,1", "1,1,1,1,1,1,1,1,1,1,1,1 s 0 0 1"),
        ("seeds=1,1", "0,0,0,0,0,0,0,0,0,0,0,0 s 12 0 0"),
    ] {
        let g = engine(settings);
        let r = slow(settings);
        let e = g.parse_position(text).unwrap();
        let s = oaq_slow::parse(&r, text).unwrap();
        assert_eq!(g.format_position(&e), oaq_slow::write(&s));
    }
}

#[test]
fn mutated_positions_never_panic() {
    // Random edits of valid texts: the engine must return Ok or Err, and what it accepts it must
    // write back to the same position; where both parsers accept, they agree.
    let alphabet: Vec<char> = "0123456789,Q sn-+x\t\u{e9}".chars().collect();
    let bases = [
        ("default", "10,5,5,5,5,5,10,5,5,5,5,5 s 0 0 1"),
        (
            "big-mandarin=10;seeds=5,10",
            "Q3,0,12,1,0,4,Q0,2,0,0,7,1 n -4 44 0",
        ),
        ("seeds=1,1", "2,0,2,0,2,0,2,0,2,0,2,0 n 0 0 0"),
    ];
    let mut rng = Rng::new(5);
    let (mut both_ok, mut engine_only, mut slow_only) = (0, Vec::new(), Vec::new());
    for i in 0..30_000 {
        let (settings, base) = bases[i % bases.len()];
        let g = engine(settings);
        let r = slow(settings);
        let mut s: Vec<char> = base.chars().collect();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(s.len() + 1);
            match rng.below(3) {
                0 if at < s.len() => {
                    s.remove(at);
                }
                1 if at < s.len() => s[at] = alphabet[rng.below(alphabet.len())],
                _ => s.insert(at, alphabet[rng.below(alphabet.len())]),
            }
        }
        let text: String = s.into_iter().collect();
        let _ = g.parse_move(&g.start(), &text);
        let e = g.parse_position(&text);
        let sl = oaq_slow::parse(&r, &text);
        if let Ok(p) = &e {
            assert_eq!(g.parse_position(&g.format_position(p)).as_ref(), Ok(p));
        }
        match (&e, &sl) {
            (Ok(p), Ok(q)) => {
                both_ok += 1;
                assert_eq!(g.format_position(p), oaq_slow::write(q), "[{text}]");
            }
            (Ok(_), Err(_)) => engine_only.push(text),
            (Err(_), Ok(_)) => slow_only.push(text),
            _ => {}
        }
    }
    println!(
        "mutations: both accept {both_ok}, only the engine {}, only the slow parser {}",
        engine_only.len(),
        slow_only.len()
    );
    for t in engine_only.iter().take(5) {
        println!("  engine only: [{t}]");
    }
    for t in slow_only.iter().take(5) {
        println!("  slow only: [{t}]");
    }
    // The only difference: the engine stops stores at 1000 (the slow parser does not).
    assert!(engine_only.is_empty(), "{engine_only:?}");
    assert!(
        slow_only.iter().all(|t| {
            let f: Vec<&str> = t.split_whitespace().collect();
            f[2..4].iter().any(|x| x.trim_start_matches('-').len() >= 4)
        }),
        "{slow_only:?}"
    );
}

#[test]
fn malformed_and_illegal_moves_are_errors() {
    let g = engine("default");
    let r = slow("default");
    let start = "10,5,5,5,5,5,10,5,5,5,5,5 s 0 0 1";
    let mid = "11,0,0,6,6,6,11,0,6,6,6,6 n 6 0 0";
    let over = "0,0,0,0,1,0,0,0,0,2,3,1 n 34 29 0";
    let cases: &[(&str, &str)] = &[
        // syntax
        (start, ""),
        (start, "3"),
        (start, "+"),
        (start, "-"),
        (start, "3*"),
        (start, "a+"),
        (start, "3++"),
        (start, "+3"),
        (start, "3 +"),
        (start, "three+"),
        (start, "3.0+"),
        (start, "\u{e9}+"),
        // out of range
        (start, "12+"),
        (start, "99-"),
        (start, "-1+"),
        (start, "300+"),
        // not the mover's cell: the opponent's, a mandarin
        (start, "8+"),
        (start, "11-"),
        (start, "0+"),
        (start, "6-"),
        (mid, "3+"),
        // an empty cell
        (mid, "7+"),
        (mid, "7-"),
        // game over
        (over, "9+"),
        (over, "4-"),
    ];
    for (text, mv) in cases {
        let p = g.parse_position(text).unwrap();
        assert!(
            g.parse_move(&p, mv).is_err(),
            "engine accepted {mv} in {text}"
        );
        let sp = oaq_slow::parse(&r, text).unwrap();
        assert!(
            oaq_slow::parse_move(&r, &sp, mv).is_err(),
            "slow accepted {mv} in {text}"
        );
    }
    // Legal ones are accepted.
    let p = g.parse_position(mid).unwrap();
    for mv in ["8+", "8-", "11+", "11-", " 9+ "] {
        assert!(g.parse_move(&p, mv).is_ok(), "{mv}");
    }
}
