//! Iterative deepening negamax with alpha-beta and a transposition table, written once for the
//! three games: each says through [`Searchable`] what its leaves are (the end of the game, a
//! table), how to estimate a line cut off by the depth limit, and what a move gains.
//!
//! Scores are from the side to move's point of view (see [`super::score`]). A result is
//! *proven* when every line that decided it ended in a finished game or a table entry, or when
//! it is a win found within the horizon (a faster win would have been found too).

use super::score::{from_node, lost_at, to_node, MATE, MATE_BOUND};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::time::{Duration, Instant};

/// Limits of a search.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Deepest iteration (plies).
    pub depth: u32,
    /// Time budget; the deepest iteration finished in time is reported.
    pub time: Option<Duration>,
}

/// A root move with its score.
#[derive(Clone, Debug)]
pub struct ScoredMove<M> {
    /// The move.
    pub mv: M,
    /// Score for the mover after this move (plies counted from before it).
    pub score: i32,
    /// Whether the score is exact.
    pub proven: bool,
}

/// The result of a search.
#[derive(Clone, Debug)]
pub struct SearchResult<M> {
    /// Score of the position for the side to move.
    pub score: i32,
    /// Depth of the deepest completed iteration.
    pub depth: u32,
    /// Whether the score is exact (every deciding line reached the end or a table).
    pub proven: bool,
    /// Every legal move with its score, best first.
    pub moves: Vec<ScoredMove<M>>,
    /// Positions searched.
    pub nodes: u64,
}

/// What a move does to the score: the mover's score after it is `gain - v` when the turn
/// passes and `gain + v` when the mover moves again, `v` being the next position's score.
#[derive(Clone, Copy, Debug)]
pub struct Edge {
    /// Score the move itself earns the mover (Ô Ăn Quan's seeds; 0 in the other games).
    pub gain: i32,
    /// Whether the other side moves next.
    pub passes: bool,
}

/// A game as the search sees it.
pub trait Searchable {
    /// A position.
    type Position;
    /// A move.
    type Move: Copy + Eq;
    /// A move with what it leads to.
    type Child;
    /// What the transposition table tells positions apart by.
    type Key: Copy + Eq + Hash;
    /// Why a leaf could not be scored (a damaged table).
    type Error;
    /// Entries the transposition table may hold before it is cleared.
    const TT_LIMIT: usize;

    /// Whether the game is over at `p` (the search then has nothing to say).
    fn over(&self, p: &Self::Position) -> bool;
    /// The transposition-table key of `p`.
    fn key(&self, p: &Self::Position) -> Self::Key;
    /// The exact score of `p` at `ply` if the game has ended there or a table holds it.
    fn leaf(&mut self, p: &Self::Position, ply: u32) -> Result<Option<i32>, Self::Error>;
    /// The score of a line cut off at `p` by the depth limit, and whether it is exact.
    fn horizon(&self, p: &Self::Position, ply: u32) -> (i32, bool);
    /// The moves of `p` (`out` is cleared first).
    fn children(&self, p: &Self::Position, out: &mut Vec<Self::Child>);
    /// A child's move.
    fn mv(c: &Self::Child) -> Self::Move;
    /// The position a child leads to.
    fn position(c: &Self::Child) -> &Self::Position;
    /// What the move to `c` from `p` does to the score.
    fn edge(&self, p: &Self::Position, c: &Self::Child) -> Edge;
    /// Search order of a child, smallest first; `hinted` when the table names it best.
    fn order(&self, c: &Self::Child, hinted: bool) -> i32;
    /// How root moves of equal score are listed.
    fn tie(&self, _a: &Self::Move, _b: &Self::Move) -> Ordering {
        Ordering::Equal
    }
}

const INF: i32 = MATE + 1;

/// A fast multiply-rotate hasher for the transposition table's keys.
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    /// The product's well-mixed high half folded onto the low bits the map indexes by.
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 32)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u128(&mut self, x: u128) {
        self.write_u64(x as u64);
        self.write_u64((x >> 64) as u64);
    }
}

/// A hash map keyed through [`KeyHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<KeyHasher>>;

/// How a stored score bounds the true one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

/// A transposition-table entry.
#[derive(Clone, Copy)]
struct Entry<M> {
    depth: u32,
    /// Score relative to this node (mate distances counted from it).
    value: i32,
    bound: Bound,
    proven: bool,
    best: M,
}

struct Searcher<'g, G: Searchable> {
    game: &'g mut G,
    tt: FastMap<G::Key, Entry<G::Move>>,
    /// Move lists, one per ply, reused.
    lists: Vec<Vec<G::Child>>,
    nodes: u64,
    deadline: Option<Instant>,
    aborted: bool,
    error: Option<G::Error>,
}

impl<G: Searchable> Searcher<'_, G> {
    /// The mover's score of the move to `c` and whether it is exact.
    fn child(
        &mut self,
        p: &G::Position,
        c: &G::Child,
        depth: u32,
        ply: u32,
        alpha: i32,
        beta: i32,
    ) -> (i32, bool) {
        let e = self.game.edge(p, c);
        let q = G::position(c);
        if e.passes {
            let (v, pr) = self.search(q, depth, ply, e.gain - beta, e.gain - alpha);
            (e.gain - v, pr)
        } else {
            let (v, pr) = self.search(q, depth, ply, alpha - e.gain, beta - e.gain);
            (e.gain + v, pr)
        }
    }

    /// Negamax within (alpha, beta); returns the score and whether it is exact.
    fn search(
        &mut self,
        p: &G::Position,
        depth: u32,
        ply: u32,
        alpha: i32,
        beta: i32,
    ) -> (i32, bool) {
        self.nodes += 1;
        if self.nodes & 0xfff == 0 && self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.aborted = true;
        }
        if self.aborted {
            return (0, false);
        }
        match self.game.leaf(p, ply) {
            Ok(Some(s)) => return (s, true),
            Ok(None) => {}
            Err(e) => {
                self.error = Some(e);
                self.aborted = true;
                return (0, false);
            }
        }
        if depth == 0 {
            return self.game.horizon(p, ply);
        }
        let k = self.game.key(p);
        let mut hint = None;
        if let Some(e) = self.tt.get(&k) {
            hint = Some(e.best);
            if e.depth >= depth || e.proven {
                let v = from_node(e.value, ply);
                match e.bound {
                    Bound::Exact => return (v, e.proven),
                    Bound::Lower if v >= beta => return (v, e.proven),
                    Bound::Upper if v <= alpha => return (v, e.proven),
                    _ => {}
                }
            }
        }
        let at = ply as usize;
        if self.lists.len() <= at {
            self.lists.resize_with(at + 1, Vec::new);
        }
        let mut list = std::mem::take(&mut self.lists[at]);
        self.game.children(p, &mut list);
        let r = self.expand(p, &mut list, hint, depth, ply, alpha, beta);
        self.lists[at] = list;
        if let Some((best, proven, bound, best_move)) = r {
            if self.tt.len() >= G::TT_LIMIT {
                self.tt.clear();
            }
            let value = to_node(best, ply);
            let entry = Entry {
                depth,
                value,
                bound,
                proven,
                best: best_move,
            };
            self.tt.insert(k, entry);
            (best, proven)
        } else if self.aborted {
            (0, false)
        } else {
            (lost_at(ply), true)
        }
    }

    /// The moves of `p`, searched: the best score, whether it is exact, how it bounds the true
    /// one and the best move; `None` when there are no moves or the search was stopped.
    #[allow(clippy::too_many_arguments)]
    fn expand(
        &mut self,
        p: &G::Position,
        list: &mut [G::Child],
        hint: Option<G::Move>,
        depth: u32,
        ply: u32,
        mut alpha: i32,
        beta: i32,
    ) -> Option<(i32, bool, Bound, G::Move)> {
        let game = &*self.game;
        list.sort_by_key(|c| game.order(c, Some(G::mv(c)) == hint));
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = G::mv(list.first()?);
        let mut proven = true;
        for c in list.iter() {
            let (score, pr) = self.child(p, c, depth - 1, ply + 1, alpha, beta);
            if self.aborted {
                return None;
            }
            if score > best {
                best = score;
                best_move = G::mv(c);
            }
            alpha = alpha.max(best);
            if alpha >= beta {
                // A lower bound: exact if the refuting line is.
                proven = pr;
                break;
            }
            proven &= pr;
        }
        // A win found within the horizon is the fastest there is.
        if best >= MATE_BOUND && MATE - best - ply as i32 <= depth as i32 {
            proven = true;
        }
        let bound = if best <= alpha0 {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        Some((best, proven, bound, best_move))
    }
}

/// Searches `p` within the limits. `Ok(None)` when the game is over at `p`; an error when a
/// leaf could not be scored.
pub fn search<G: Searchable>(
    game: &mut G,
    p: &G::Position,
    limits: Limits,
) -> Result<Option<SearchResult<G::Move>>, G::Error> {
    if game.over(p) {
        return Ok(None);
    }
    let mut roots = Vec::new();
    game.children(p, &mut roots);
    let mut s = Searcher {
        game,
        tt: FastMap::default(),
        lists: Vec::new(),
        nodes: 0,
        deadline: limits.time.map(|t| Instant::now() + t),
        aborted: false,
        error: None,
    };
    let mut done: Option<SearchResult<G::Move>> = None;
    for depth in 1..=limits.depth.max(1) {
        // Search the previous iteration's best moves first: it fills the table for the rest.
        if let Some(prev) = &done {
            roots.sort_by_key(|c| prev.moves.iter().position(|m| m.mv == G::mv(c)));
        }
        let mut moves = Vec::new();
        for c in &roots {
            let (score, proven) = s.child(p, c, depth - 1, 1, -INF, INF);
            moves.push(ScoredMove {
                mv: G::mv(c),
                score,
                proven,
            });
            if s.aborted {
                break;
            }
        }
        if let Some(e) = s.error.take() {
            return Err(e);
        }
        if s.aborted {
            break;
        }
        moves.sort_by(|a, b| b.score.cmp(&a.score).then(s.game.tie(&a.mv, &b.mv)));
        let score = moves[0].score;
        let proven =
            moves.iter().all(|m| m.proven) || (score >= MATE_BOUND && MATE - score <= depth as i32);
        done = Some(SearchResult {
            score,
            depth,
            proven,
            moves,
            nodes: s.nodes,
        });
        if proven {
            break;
        }
    }
    let mut r = done.unwrap_or_else(|| {
        let mut moves: Vec<_> = roots
            .iter()
            .map(|c| ScoredMove {
                mv: G::mv(c),
                score: 0,
                proven: false,
            })
            .collect();
        moves.sort_by(|a, b| s.game.tie(&a.mv, &b.mv));
        SearchResult {
            score: 0,
            depth: 0,
            proven: false,
            moves,
            nodes: 0,
        }
    });
    r.nodes = s.nodes;
    Ok(Some(r))
}
