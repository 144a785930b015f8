//! Search for Mill positions no table holds (e.g. placement positions when only the endgame
//! tables exist): [`crate::search::alpha_beta`] with the tables of the directory at the leaves
//! and a material estimate at the horizon. Root moves of equal score are listed in move-text
//! order.
//!
//! A move is one ply, removals included. The turn passes after most moves; when it does not
//! (the game ended on the move, or both sides owe removals), the position after the move is
//! scored from the mover's side rather than negated.

use crate::mill::Db;
use crate::search::alpha_beta::{self, Edge, FastMap, Searchable};
use crate::search::score::{lost_at, material_and_mobility, score_of, MATE};
use crate::sectors::db::ProbeError;
use crate::sectors::folded::Folded;
use crate::sectors::rules::SectorRules;
use retro_engine::mill::{Mill, Move, Position};
use std::cmp::Ordering;

pub use crate::search::Limits;
/// A root move with its score.
pub type ScoredMove = crate::search::ScoredMove<Move>;
/// The result of a search (root moves best first, ties in move-text order).
pub type SearchResult = crate::search::SearchResult<Move>;

/// Everything of a position the rules depend on (not the move counters).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Key(u64, u64, u64);

fn key(p: &Position) -> Key {
    Key(
        p.stones[0] as u64
            | (p.stones[1] as u64) << 24
            | (p.hand[0] as u64) << 48
            | (p.hand[1] as u64) << 53
            | (p.side.index() as u64) << 58
            | (p.placing as u64) << 59
            | (p.stalemate_removal as u64) << 60
            | (p.board_full_end as u64) << 61,
        p.marked as u64 | (p.pending[0] as u8 as u64) << 32 | (p.pending[1] as u8 as u64) << 40,
        p.formed[0] as u64 | (p.formed[1] as u64) << 32,
    )
}

/// Estimate for a line cut off by the depth limit: material (board and hand), then mobility.
pub fn evaluate(m: &Mill, p: &Position) -> i32 {
    let (s, o) = (p.side.index(), p.side.other().index());
    let (stones, hand) = ([p.stones[s], p.stones[o]], [p.hand[s], p.hand[o]]);
    material_and_mobility(stones, hand, m.empty(p), &m.geo.adjacent)
}

/// Mill as the search sees it: the game and its tables.
struct MillSearch<'a> {
    db: &'a Db,
    game: &'a Mill,
    /// Whether the rules are ones tables can exist for.
    probe: bool,
    /// Sectors (packed keys) found to have no table.
    missing: FastMap<u32, ()>,
    /// Move texts, for listing root moves of equal score.
    texts: FastMap<Move, String>,
}

impl MillSearch<'_> {
    /// The table value of `p` as a score at `ply`, if a table holds it.
    fn probe(&mut self, p: &Position, ply: u32) -> Result<Option<i32>, ProbeError> {
        // Tables hold positions at the start of a ply under rules with no extra state but
        // marked points where their sectors index them.
        let f = Folded::from_position(p);
        if !self.probe
            || p.pending != [0, 0]
            || (p.marked != 0 && self.db.rules.marked_points(f.key()).is_none())
            || p.stalemate_removal
            || !self.db.colours_held(p)
        {
            return Ok(None);
        }
        let packed = f.packed_key();
        if self.missing.contains_key(&packed) {
            return Ok(None);
        }
        match self.db.value_marked(&f, p.marked) {
            Ok(v) => Ok(Some(score_of(v, ply))),
            Err(ProbeError::Missing { .. } | ProbeError::Unsupported { .. }) => {
                self.missing.insert(packed, ());
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}

impl Searchable for MillSearch<'_> {
    type Position = Position;
    type Move = Move;
    type Child = (Move, Position);
    type Key = Key;
    type Error = ProbeError;
    const TT_LIMIT: usize = 4_000_000;

    fn over(&self, p: &Position) -> bool {
        self.game.outcome(p).is_some()
    }
    fn key(&self, p: &Position) -> Key {
        key(p)
    }
    fn leaf(&mut self, p: &Position, ply: u32) -> Result<Option<i32>, ProbeError> {
        if self.game.decided(p) {
            let over = self.game.outcome(p).expect("a decided game is over");
            let mate = MATE - ply as i32;
            return Ok(Some(match over.won_by(p.side) {
                Some(true) => mate,
                Some(false) => -mate,
                None => 0,
            }));
        }
        self.probe(p, ply)
    }
    fn horizon(&self, p: &Position, ply: u32) -> (i32, bool) {
        if self.game.count_steps(p) == 0 {
            (lost_at(ply), true)
        } else {
            (evaluate(self.game, p), false)
        }
    }
    fn children(&self, p: &Position, out: &mut Vec<(Move, Position)>) {
        self.game.moves(p, out);
    }
    fn mv(c: &(Move, Position)) -> Move {
        c.0
    }
    fn position(c: &(Move, Position)) -> &Position {
        &c.1
    }
    fn edge(&self, p: &Position, c: &(Move, Position)) -> Edge {
        Edge {
            gain: 0,
            passes: c.1.side != p.side,
        }
    }
    /// The table's best move first, then removals, then the rest.
    fn order(&self, c: &(Move, Position), hinted: bool) -> i32 {
        if hinted {
            0
        } else if c.0.removed != 0 {
            1
        } else {
            2
        }
    }
    fn tie(&self, a: &Move, b: &Move) -> Ordering {
        self.texts[a].cmp(&self.texts[b])
    }
}

/// Searches a position within the limits, probing the tables of `db` where they exist.
/// `Ok(None)` when the game is over at `p`; an error when a table the search needed is damaged.
pub fn search(db: &Db, p: &Position, limits: Limits) -> Result<Option<SearchResult>, ProbeError> {
    let game = db.game();
    let mut roots = Vec::new();
    game.moves(p, &mut roots);
    let texts = roots
        .iter()
        .map(|(m, _)| (*m, game.format_move(m)))
        .collect();
    let mut s = MillSearch {
        db,
        game,
        probe: crate::mill::sectors::unsupported(&game.profile).is_none(),
        missing: FastMap::default(),
        texts,
    };
    alpha_beta::search(&mut s, p, limits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::score::{value_of, MATE_BOUND};
    use crate::sectors::sector::SectorKey;
    use crate::sectors::solve::solve;
    use retro_engine::mill::Profile;
    use retro_tables::value::Value;
    use std::time::{Duration, Instant};

    const K33: SectorKey = SectorKey {
        w: 3,
        b: 3,
        wf: 0,
        bf: 0,
    };
    const K43: SectorKey = SectorKey {
        w: 4,
        b: 3,
        wf: 0,
        bf: 0,
    };

    fn nine() -> Mill {
        Mill::new(Profile::default())
    }

    fn limits(depth: u32) -> Limits {
        Limits { depth, time: None }
    }

    /// The value a proven score stands for.
    fn proven_value(score: i32) -> Value {
        value_of(score).unwrap_or_else(|| {
            assert_eq!(score, 0, "a proven score is a mate score or a draw");
            Value::Draw
        })
    }

    const DEPTH: u32 = 4;

    #[test]
    fn proven_results_match_the_tables_the_search_lacks() {
        let partial = tempfile::tempdir().unwrap();
        let full = tempfile::tempdir().unwrap();
        let db = Db::new(nine(), partial.path());
        let truth = Db::new(nine(), full.path());
        solve(&db, &[K33], &()).unwrap();
        solve(&truth, &[K43], &()).unwrap();
        assert!(db.path(K33).exists() && !db.path(K43).exists());
        assert!(!db.path(K43.swapped()).exists() && truth.path(K43.swapped()).exists());
        let m = db.game();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut positions =
            crate::mill::test_positions::random_moving_positions(m, 4, 3, 300, &mut seed);
        positions.extend(crate::mill::test_positions::random_moving_positions(
            m, 3, 4, 300, &mut seed,
        ));
        let (mut searched, mut proven, mut nodes) = (0, 0, 0);
        let (mut kinds, mut move_kinds) = ([0; 3], [0; 3]);
        let kind = |v: Value| match v {
            Value::Win(_) => 0,
            Value::Draw => 1,
            Value::Loss(_) => 2,
        };
        for p in &positions {
            let Some(r) = search(&db, p, limits(DEPTH)).unwrap() else {
                assert!(m.outcome(p).is_some());
                continue;
            };
            searched += 1;
            nodes += r.nodes;
            let fen = m.format_fen(p);
            if r.proven {
                proven += 1;
                let v = proven_value(r.score);
                assert_eq!(v, truth.value(p).unwrap(), "{fen}: {r:?}");
                kinds[kind(v)] += 1;
            }
            let mut children = Vec::new();
            m.moves(p, &mut children);
            assert_eq!(r.moves.len(), children.len());
            for sm in r.moves.iter().filter(|sm| sm.proven) {
                let q = children.iter().find(|(mv, _)| *mv == sm.mv).unwrap().1;
                let text = m.format_move(&sm.mv);
                let v = proven_value(sm.score);
                assert_eq!(
                    v,
                    crate::mill::probe::move_value(&truth, p, &q).unwrap(),
                    "{fen} {text}"
                );
                move_kinds[kind(v)] += 1;
            }
        }
        eprintln!(
            "{proven} of {searched} positions proven (win/draw/loss {kinds:?}), \
             proven moves {move_kinds:?}, {nodes} nodes"
        );
        // Most of these positions are draws only the missing tables could prove; the quick
        // wins are proven, and many moves (captures into 3_3, quick losses) are.
        assert!(searched > 550, "{searched}");
        assert!(proven >= 25, "only {proven} of {searched} proven");
        assert!(move_kinds.iter().all(|&n| n > 0), "{move_kinds:?}");
        assert!(move_kinds.iter().sum::<usize>() >= 1000, "{move_kinds:?}");
    }

    #[test]
    fn a_mill_closing_win_in_one_is_found_without_tables() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::new(nine(), dir.path());
        let m = db.game();
        // White (4 stones, sliding) closes ring 0's top side (corner, mid-point, corner) by
        // sliding from the right mid-point to the top-right corner; Black has 3 stones left.
        let p = m
            .parse_fen("O*O****O/****O***/@*@*@*** w m s 4 0 3 0 0 0 0 0 0 0 0 0 1")
            .unwrap();
        let r = search(&db, &p, limits(4)).unwrap().unwrap();
        assert!(r.proven, "{r:?}");
        assert_eq!(value_of(r.score), Some(Value::Win(1)), "{r:?}");
        assert_eq!(r.depth, 1, "a win in one is proven by the first iteration");
        // The mill-closing slide with each of Black's three removals wins at once; nothing
        // else does.
        let (wins, rest): (Vec<_>, Vec<_>) = r.moves.iter().partition(|sm| sm.mv.removed != 0);
        assert_eq!(wins.len(), 3, "{r:?}");
        assert!(wins.iter().all(|sm| sm.proven && sm.score == r.score));
        assert!(!rest.is_empty() && rest.iter().all(|sm| sm.score < r.score));
        assert!(r.moves[..3].iter().all(|sm| sm.mv.removed != 0));
    }

    #[test]
    fn a_damaged_table_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::new(nine(), dir.path());
        solve(&db, &[K33], &()).unwrap();
        let m = db.game();
        // The side to move (3 stones, flying) closes a mill by flying to ring 0's top-left
        // corner: the opponent is left with 3, in the 3_3 table.
        let p = Folded {
            own: 1 << 0 | 1 << 1 | 1 << 10,
            opp: 1 << 16 | 1 << 18 | 1 << 20 | 1 << 12,
            own_hand: 0,
            opp_hand: 0,
        }
        .to_position(m);
        assert!(search(&db, &p, limits(2)).unwrap().is_some());
        let path = db.path(K33);
        let mut bytes = std::fs::read(&path).unwrap();
        // A flipped bit in every block of values: whichever the search reads fails its check.
        let slots = u64::from_le_bytes(bytes[24..32].try_into().unwrap()) as usize;
        for o in (0..2 * slots).step_by(retro_tables::format::BLOCK_BYTES) {
            bytes[retro_tables::format::HEADER_SIZE + o] ^= 0x10;
        }
        std::fs::write(&path, &bytes).unwrap();
        let db = Db::new(nine(), dir.path());
        match search(&db, &p, limits(2)) {
            Err(ProbeError::Table(_)) => {}
            other => panic!("expected a table error, got {other:?}"),
        }
    }

    #[test]
    fn the_start_position_stops_in_time() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::new(nine(), dir.path());
        let p = db.game().start();
        let t = Instant::now();
        let r = search(
            &db,
            &p,
            Limits {
                depth: 100,
                time: Some(Duration::from_millis(300)),
            },
        )
        .unwrap()
        .unwrap();
        assert!(t.elapsed() < Duration::from_secs(3));
        assert!(r.depth >= 2 && !r.proven, "{r:?}");
        assert_eq!(r.moves.len(), 24);
        assert!(r.score.abs() < MATE_BOUND);
    }
}
