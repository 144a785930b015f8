//! The solver's placement-phase rules against a naive minimax over the engine's own moves.
//!
//! For each rule profile, the whole game is solved on the 16-point board; then, from positions
//! late in placing (found by random games), a memoised minimax plays out every line with the
//! engine's compound moves to the end of placing, where the moving phase's values come from the
//! tables (checked on their own in `solver_tables.rs`). Every placement position it reaches that
//! a table holds must have the value the minimax gives. This checks what the rules do when
//! placing ends (a full board: a loss for White, or a draw) independently of the solver's own
//! move generator and sector bookkeeping.

use retro_engine::mill::EndReason;
use retro_engine::mill::{Mill, Position, Profile};
use retro_solver::mill::Db;
use retro_solver::sectors::solve::solve;
use retro_tables::value::Value;
use std::collections::HashMap;

type Key = (
    [u32; 2],
    u32,
    [u8; 2],
    u8,
    [i8; 2],
    bool,
    bool,
    bool,
    [u32; 2],
);

fn key(p: &Position) -> Key {
    (
        p.stones,
        p.marked,
        p.hand,
        p.side.index() as u8,
        p.pending,
        p.placing,
        p.stalemate_removal,
        p.board_full_end,
        p.formed,
    )
}

/// The value of a move's result for the mover: the opponent's value one ply on, or, when the
/// mover acts again (the game ended on its own ply), its own.
fn for_mover(p: &Position, q: &Position, v: Value) -> Value {
    if q.side == p.side {
        match v {
            Value::Win(d) => Value::Win(d + 1),
            Value::Loss(d) => Value::Loss(d + 1),
            Value::Draw => Value::Draw,
        }
    } else {
        v.parent()
    }
}

struct Naive<'a> {
    db: &'a Db,
    memo: HashMap<Key, Value>,
    /// Games that ended with a full board, and how many of those were draws.
    full_ends: (u64, u64),
}

impl Naive<'_> {
    fn value(&mut self, p: &Position) -> Value {
        let m = self.db.game();
        if let Some(o) = m.outcome(p) {
            if o.reason == EndReason::BoardFull {
                self.full_ends.0 += 1;
                self.full_ends.1 += o.loser.is_none() as u64;
            }
            return match o.won_by(p.side) {
                Some(true) => Value::Win(0),
                Some(false) => Value::Loss(0),
                None => Value::Draw,
            };
        }
        if !p.placing && p.pending == [0, 0] && !p.stalemate_removal {
            // The moving phase: trusted tables.
            return self.db.value(p).expect("moving-phase table");
        }
        if let Some(&v) = self.memo.get(&key(p)) {
            return v;
        }
        let mut moves = Vec::new();
        m.moves(p, &mut moves);
        assert!(!moves.is_empty(), "a game not over has moves");
        let best = moves
            .iter()
            .map(|(_, q)| {
                let v = self.value(q);
                for_mover(p, q, v)
            })
            .max_by_key(|v| v.preference())
            .expect("moves");
        self.memo.insert(key(p), best);
        best
    }
}

/// Positions of random games from the start up to the point where `left` stones are in hand.
fn late_positions(m: &Mill, left: u8, games: usize, seed: u64) -> Vec<Position> {
    let mut s = seed;
    let mut next = move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 33) as usize
    };
    let mut out = Vec::new();
    let mut moves = Vec::new();
    for _ in 0..games {
        let mut p = m.start();
        while m.outcome(&p).is_none() && p.hand[0] + p.hand[1] > left {
            m.moves(&p, &mut moves);
            p = moves[next() % moves.len()].1;
        }
        if m.outcome(&p).is_none() && p.placing {
            out.push(p);
        }
    }
    out
}

/// What [`check`] saw: positions compared, of them owing removals, full-board ends, drawn ones;
/// positions compared with marked points, and of them those whose value the marks change (the
/// same stones and hands without marks have another value under the minimax).
struct Seen {
    compared: u64,
    owing: u64,
    full: u64,
    drawn: u64,
    marked: u64,
    marks_matter: u64,
}

/// Solves `profile` whole, then checks every placement position the minimax reaches from late
/// positions of random games, those owing removals included (probed by their removal plies).
fn check(profile: Profile, left: u8) -> Seen {
    let dir = tempfile::tempdir().unwrap();
    let m = Mill::new(profile);
    let db = Db::new(m.clone(), dir.path());
    solve(
        &db,
        &[retro_solver::mill::sectors::start_sector(&m.profile)],
        &(),
    )
    .unwrap();
    let mut naive = Naive {
        db: &db,
        memo: HashMap::new(),
        full_ends: (0, 0),
    };
    for p in late_positions(&m, left, 60, 7) {
        naive.value(&p);
    }
    let (mut compared, mut owing, mut with_marks) = (0, 0, 0);
    let memo: Vec<(Key, Value)> = naive.memo.iter().map(|(k, v)| (*k, *v)).collect();
    let mut marks_matter = 0;
    for (k, want) in memo {
        let (
            stones,
            marked,
            hand,
            side,
            pending,
            placing,
            stalemate_removal,
            board_full_end,
            formed,
        ) = k;
        let p = Position {
            stones,
            marked,
            hand,
            side: if side == 0 {
                retro_engine::Color::White
            } else {
                retro_engine::Color::Black
            },
            pending,
            placing,
            stalemate_removal,
            board_full_end,
            formed,
            ..m.start()
        };
        match db.value(&p) {
            Ok(got) => {
                assert_eq!(got, want, "{}", m.format_fen(&p));
                assert_eq!(db.wdl(&p).unwrap(), want.wdl(), "{}", m.format_fen(&p));
                compared += 1;
                owing += (p.pending != [0, 0]) as u64;
                if p.marked != 0 {
                    with_marks += 1;
                    let unmarked = Position { marked: 0, ..p };
                    marks_matter += (naive.value(&unmarked) != want) as u64;
                }
            }
            Err(e) => panic!("{}: {e}", m.format_fen(&p)),
        }
    }
    Seen {
        compared,
        owing,
        full: naive.full_ends.0,
        drawn: naive.full_ends.1,
        marked: with_marks,
        marks_matter,
    }
}

/// [`check`] on a full 16-point board whose end makes both sides remove: many positions
/// compared, and many of them owing removals.
fn check_with_removals_owed(p: Profile) {
    let s = check(p, 6);
    assert!(
        s.compared > 1000 && s.owing > 100,
        "{} {}",
        s.compared,
        s.owing
    );
}

fn full_board_16(board_full: &str) -> Profile {
    let mut p = Profile::preset("six-mens-morris").unwrap();
    p.set("stones=8").unwrap();
    p.set(&format!("board-full={board_full}")).unwrap();
    p
}

#[test]
fn a_full_board_after_placing_is_a_draw_under_board_full_draw() {
    let s = check(full_board_16("draw"), 6);
    assert!(s.compared > 1000, "{}", s.compared);
    assert!(s.full > 100 && s.drawn == s.full, "{} {}", s.full, s.drawn);
}

#[test]
fn a_full_board_after_placing_loses_for_white_under_first_player_loses() {
    let s = check(full_board_16("first-player-loses"), 6);
    assert!(s.compared > 1000, "{}", s.compared);
    assert!(s.full > 100 && s.drawn == 0, "{} {}", s.full, s.drawn);
}

/// zhi-qi's rules on the 16-point board with 8 stones: a full board when placing ends makes
/// White remove a stone, then Black; a blocked side removes and moves again.
#[test]
fn a_full_board_makes_white_then_black_remove_under_first_then_second_remove() {
    let mut p = full_board_16("first-then-second-remove");
    p.set("stalemate=remove-and-move").unwrap();
    check_with_removals_owed(p);
}

/// experimental's rules on the 16-point board with 8 stones: Black removes, then White, on a
/// full board; otherwise Black moves first when placing ends; stones in mills are not safe.
#[test]
fn black_then_white_remove_and_black_moves_first_under_experimental_rules() {
    let mut p = full_board_16("second-then-first-remove");
    p.set("defender-first=true").unwrap();
    p.set("remove-from-mills=true").unwrap();
    check_with_removals_owed(p);
}

/// el-filja's end of placing on the 16-point board with 8 stones a side: mills while placing
/// remove nothing; when the board fills, each side counts its mills and removes by them, White
/// first, in one ply each (one of its own when neither has a mill), then White moves. With
/// stones in mills safe (and el-filja's full-board rule, which the mill counts come before)
/// and without.
#[test]
fn both_sides_remove_by_their_mill_counts_when_placing_ends() {
    for (from_mills, full) in [
        ("true", "first-then-second-remove"),
        ("false", "first-player-loses"),
    ] {
        let mut p = full_board_16(full);
        p.set("mill-action=mill-counts").unwrap();
        p.set(&format!("remove-from-mills={from_mills}")).unwrap();
        check_with_removals_owed(p);
    }
}

/// defender-first alone (the board never fills with 7 stones a side on 16 points): Black's last
/// placement is followed by Black's first move.
#[test]
fn black_moves_first_when_placing_ends_under_defender_first() {
    let mut p = Profile::preset("six-mens-morris").unwrap();
    p.set("stones=7").unwrap();
    p.set("defender-first=true").unwrap();
    let s = check(p, 4);
    assert!(s.compared > 1000, "{}", s.compared);
}

/// defender-first with stalemate=remove-and-move: when Black's last placement leaves Black
/// itself blocked, its stalemate removal starts its turn, a ply of its own (the engine's compound
/// move once took it into the placement's ply, one ply short of the solver's distances).
#[test]
fn a_side_blocked_by_its_own_last_placement_removes_in_a_ply_of_its_own() {
    let mut p = Profile::preset("six-mens-morris").unwrap();
    p.set_all([
        "stones=5",
        "defender-first=true",
        "stalemate=remove-and-move",
    ])
    .unwrap();
    let s = check(p.clone(), 4);
    assert!(s.compared > 1000, "{}", s.compared);
    // The case itself: Black places its last stone (c2) and, moving first, has no step.
    let m = Mill::new(p);
    let before = m
        .parse_fen("@@*O***O/O*O***** b p p 4 0 2 1 0 0 0 0 0 0 0 0 1")
        .unwrap();
    let mut moves = Vec::new();
    m.moves(&before, &mut moves);
    let blocked: Vec<_> = moves.iter().filter(|(_, q)| q.stalemate_removal).collect();
    assert!(!blocked.is_empty());
    for (mv, q) in blocked {
        assert_eq!(mv.removed, 0, "{}", m.format_move(mv));
        assert_eq!(q.side, before.side);
        assert_eq!(q.pending[before.side.index()], 1);
    }
}

/// da-san-qi's rules on the 16-point board with 5 stones a side: a mill while placing
/// removes an opponent stone (from a mill too) and marks its point, where nobody places until
/// placing ends; then the marks leave and Black moves first; no flying. The solver indexes the
/// marks; the minimax plays the engine's moves. Marks decide values: many of the positions
/// compared have another value with their marks taken away, so a solver blind to them fails.
#[test]
fn removed_stones_mark_their_points_until_placing_ends_under_mark_and_delay() {
    let mut p = Profile::preset("da-san-qi").unwrap();
    p.set("stones=5").unwrap();
    p.set("board=morris16").unwrap();
    let s = check(p, 4);
    assert!(
        s.compared > 1000 && s.marked > 300,
        "{} {}",
        s.compared,
        s.marked,
    );
    assert!(s.marks_matter > 10, "{} of {}", s.marks_matter, s.marked);
    eprintln!(
        "{} compared, {} with marks, {} changed by their marks",
        s.compared, s.marked, s.marks_matter
    );
}

#[test]
fn the_full_board_rule_changes_values() {
    // Late placement positions whose value differs between the two rules: the rule reaches
    // the tables, not just the final sector.
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let dbs: Vec<_> = ["draw", "first-player-loses"]
        .iter()
        .zip(&dirs)
        .map(|(r, d)| {
            let m = Mill::new(full_board_16(r));
            let db = Db::new(m.clone(), d.path());
            solve(
                &db,
                &[retro_solver::mill::sectors::start_sector(&m.profile)],
                &(),
            )
            .unwrap();
            db
        })
        .collect();
    let m = dbs[0].game().clone();
    let late = late_positions(&m, 2, 200, 11);
    let differ = late
        .iter()
        .filter(|p| dbs[0].value(p).unwrap() != dbs[1].value(p).unwrap())
        .count();
    assert!(differ > 10, "{differ} of {}", late.len());
    assert_ne!(m.format_fen(&m.start()), "");
}

/// Every position reachable by the engine's moves from `seeds`, valued by rounds: a win in k
/// when some move gives the mover a win in k, a loss in k when every move gives a loss and the
/// longest is k; what is left is a draw (infinite play). A move after which the same side acts
/// again (a stalemate removal) gives the mover the child's own value, a ply later.
fn naive_closure(m: &Mill, seeds: &[Position]) -> HashMap<Key, (Position, Value)> {
    let mut ids: HashMap<Key, usize> = HashMap::new();
    let mut list: Vec<Position> = Vec::new();
    for p in seeds {
        if ids.insert(key(p), list.len()).is_none() {
            list.push(*p);
        }
    }
    // Children as (index, same side again), or the mover's value when the game ends on it.
    let mut children: Vec<Vec<Result<(usize, bool), Value>>> = Vec::new();
    let mut val: Vec<Option<Value>> = Vec::new();
    let mut moves = Vec::new();
    let mut i = 0;
    while i < list.len() {
        let p = list[i];
        i += 1;
        if let Some(o) = m.outcome(&p) {
            val.push(Some(match o.won_by(p.side) {
                Some(true) => Value::Win(0),
                Some(false) => Value::Loss(0),
                None => Value::Draw,
            }));
            children.push(Vec::new());
            continue;
        }
        val.push(None);
        m.moves(&p, &mut moves);
        let mut ch = Vec::new();
        for (_, q) in &moves {
            let mut q = *q;
            q.rule50 = 0;
            q.fullmove = 1;
            let id = *ids.entry(key(&q)).or_insert_with(|| {
                list.push(q);
                list.len() - 1
            });
            ch.push(Ok((id, q.side == p.side)));
        }
        children.push(ch);
    }
    for k in 1..1000u16 {
        let prev = val.clone();
        let mut changed = false;
        for i in 0..list.len() {
            if prev[i].is_some() {
                continue;
            }
            let opts: Vec<Option<Value>> = children[i]
                .iter()
                .map(|c| match *c {
                    Ok((j, again)) => prev[j].map(|v| if again { v.later() } else { v.parent() }),
                    Err(v) => Some(v),
                })
                .collect();
            if opts.contains(&Some(Value::Win(k))) {
                val[i] = Some(Value::Win(k));
                changed = true;
            } else if opts.iter().all(|v| matches!(v, Some(Value::Loss(_))))
                && opts.contains(&Some(Value::Loss(k)))
            {
                val[i] = Some(Value::Loss(k));
                changed = true;
            }
        }
        if !changed && k > 2 {
            break;
        }
    }
    ids.into_iter()
        .map(|(k, i)| (k, (list[i], val[i].unwrap_or(Value::Draw))))
        .collect()
}

/// The moving-phase positions (White to move) with `w` against `b` stones on the board, with
/// the stalemate removal owed where the engine would leave it.
fn moving_positions(m: &Mill, w: u32, b: u32) -> Vec<Position> {
    let n = m.geo.points as u32;
    let mut out = Vec::new();
    for own in 0u32..1 << n {
        if own.count_ones() != w {
            continue;
        }
        let free = !own & ((1 << n) - 1);
        let mut opp = 0u32;
        // Every subset of `free` with b stones, in increasing order.
        loop {
            opp = (opp.wrapping_sub(free)) & free;
            if opp == 0 {
                break;
            }
            if opp.count_ones() != b {
                continue;
            }
            let mut p = m.start();
            p.stones = [own, opp];
            p.hand = [0, 0];
            p.placing = false;
            if m.profile.stalemate == retro_engine::mill::Stalemate::RemoveAndMove
                && m.outcome(&p)
                    .is_some_and(|o| o.reason == EndReason::NoLegalMove)
            {
                p.pending = [1, 0];
                p.stalemate_removal = true;
            }
            out.push(p);
        }
    }
    out
}

/// Zhi Qi's stalemate rule (a blocked side removes a stone next to its own and moves again) on
/// the 16-point board without flying, where blocks are common: the moving phase up to 3 against
/// 4 stones, every position of the closure compared.
#[test]
fn a_blocked_side_removes_and_moves_again_under_stalemate_remove_and_move() {
    let mut profile = Profile::preset("six-mens-morris").unwrap();
    profile.set("stalemate=remove-and-move").unwrap();
    let m = Mill::new(profile);
    let dir = tempfile::tempdir().unwrap();
    let db = Db::new(m.clone(), dir.path());
    let k = |w, b| retro_solver::sectors::sector::SectorKey { w, b, wf: 0, bf: 0 };
    solve(&db, &[k(3, 4), k(4, 3)], &()).unwrap();
    let want = naive_closure(&m, &moving_positions(&m, 3, 4));
    let (mut compared, mut blocked, mut blocked_decided) = (0, 0, 0);
    for (p, v) in want.values() {
        if p.stones[0].count_ones() + p.stones[1].count_ones() < 6 {
            continue; // 3 against 2: over
        }
        let got = db
            .value(p)
            .unwrap_or_else(|e| panic!("{}: {e}", m.format_fen(p)));
        assert_eq!(got, *v, "{}", m.format_fen(p));
        compared += 1;
        if p.stalemate_removal {
            blocked += 1;
            blocked_decided += (*v != Value::Draw) as u32;
        }
    }
    assert!(compared > 500_000, "{compared}");
    assert!(
        blocked > 100 && blocked_decided > 50,
        "{blocked} {blocked_decided}"
    );
    // 3 against 4 keeps no values once compressed: the one-ply search that stands for it
    // (stalemate removals included) gives every slot of the solved table.
    let derived = retro_solver::sectors::derive::derived_codes(&db, k(3, 4)).unwrap();
    let t = db.table(k(3, 4)).unwrap();
    for (slot, &code) in derived.iter().enumerate() {
        assert_eq!(code, t.0.code(slot as u64).unwrap(), "slot {slot}");
    }
}

/// One-time mills have no tables; `analyse` solves a small position's closure instead
/// (`retro_solver::mill::closure`). Against the fixed point over the engine's moves, on the
/// 16-point board with flying, from 3 against 3 with masks that leave some mills dead: every
/// position of the closure has the same value.
#[test]
fn one_time_mills_are_solved_by_closure_as_by_the_fixed_point() {
    use retro_solver::mill::closure::Closure;
    let mut profile = Profile::preset("six-mens-morris-flying").unwrap();
    profile.set("one-time-mills=true").unwrap();
    let m = Mill::new(profile);
    let g = m.geo;
    let lowest = |s: u32| s & s.wrapping_neg();
    let take = |mut from: u32, n: usize| {
        let mut out = 0;
        for _ in 0..n {
            let x = lowest(from);
            out |= x;
            from &= !x;
        }
        out
    };
    // White has counted mill 0 (two of its stones stand on it, the third point is empty: closing
    // it again takes nothing) and has one stone elsewhere; Black has counted the last mill.
    let dead = g.mills[0];
    let white = take(dead, 2) | take(g.all & !dead, 1);
    let black = take(g.all & !dead & !white, 3);
    let mut root = m.start();
    root.stones = [white, black];
    root.hand = [0, 0];
    root.placing = false;
    root.formed = [dead, g.mills[g.mill_count - 1]];
    let root = root;
    assert!(m.outcome(&root).is_none(), "{}", m.format_fen(&root));
    let want = naive_closure(&m, &[root]);
    let got = Closure::solve(&m, &root, 5_000_000).unwrap();
    assert!(want.len() > 10_000, "{}", want.len());
    let mut masks = std::collections::HashSet::new();
    for (p, v) in want.values() {
        assert_eq!(got.value(&m, p), Some(*v), "{}", m.format_fen(p));
        masks.insert(p.formed);
    }
    // Captures grow the masks: more than the root's pair occur.
    assert!(masks.len() > 5, "{}", masks.len());
    // The dead mills change values: the same stones without masks differ somewhere.
    let plain = Closure::solve(
        &m,
        &Position {
            formed: [0, 0],
            ..root
        },
        5_000_000,
    )
    .unwrap();
    let differ = want
        .values()
        .filter(|(p, v)| {
            plain.value(
                &m,
                &Position {
                    formed: [0, 0],
                    ..*p
                },
            ) != Some(*v)
        })
        .count();
    assert!(differ > 100, "{differ}");
}
