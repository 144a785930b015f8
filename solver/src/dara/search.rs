//! Search for Dara positions outside the solved endgames: iterative deepening negamax with
//! alpha-beta, a transposition table and the endgame tables at the leaves.
//!
//! Scores are from the side to move's point of view. A won or lost line scores
//! `±(MATE - plies)`, counting plies from the root; those values only come from the end of the
//! game or from a table, so a root score in that range is a forced result. Lines cut off by the
//! depth limit score a material estimate, far from the mate range. A result is *proven* when
//! every line that decided it ended in a finished game or a table entry, or when it is a win
//! found within the horizon (a faster win would have been found too).

use crate::dara::rules::DaraRules;
use crate::sectors::db::{Db, ProbeError};
use crate::sectors::folded::Folded;
use retro_engine::dara::{Dara, Move, Position, ALL, NEIGHBOURS, NONE};
use retro_tables::value::Value;
use retro_tables::SectorKey;
use std::collections::HashMap;
use std::time::Instant;

pub use crate::search::common::{score_of, value_of, MATE, MATE_BOUND};
use crate::search::common::{Bound, Entry};

/// A root move with its score.
pub type ScoredMove = crate::search::common::ScoredMove<Move>;
/// The result of a search.
pub type SearchResult = crate::search::common::SearchResult<Move>;
const INF: i32 = MATE + 1;

/// Limits of a search (the same as the Ô Ăn Quan search's).
pub use crate::search::common::Limits;

/// The endgame tables found in a directory, checked once.
pub struct Tables<'a> {
    db: &'a Db<DaraRules>,
    available: [[bool; 13]; 13],
}

impl<'a> Tables<'a> {
    /// Looks for the endgame tables of `db`. They are opened and checked when first probed: a
    /// table that fails its checks then makes the probe an error; a missing one is not used.
    pub fn open(db: &'a Db<DaraRules>) -> Tables<'a> {
        let mut available = [[false; 13]; 13];
        for (w, row) in available.iter_mut().enumerate().skip(3) {
            for (b, cell) in row.iter_mut().enumerate().skip(3) {
                let k = SectorKey {
                    w: w as u8,
                    b: b as u8,
                    wf: 0,
                    bf: 0,
                };
                *cell = db.path(k).exists();
            }
        }
        Tables { db, available }
    }

    /// Tables that answer nothing (search only).
    pub fn none(db: &'a Db<DaraRules>) -> Tables<'a> {
        Tables {
            db,
            available: [[false; 13]; 13],
        }
    }

    /// Keeps only the endgames `keep` accepts (side to move's stones, other side's stones).
    pub fn restrict(mut self, keep: impl Fn(u8, u8) -> bool) -> Tables<'a> {
        for (w, row) in self.available.iter_mut().enumerate() {
            for (b, cell) in row.iter_mut().enumerate() {
                *cell &= keep(w as u8, b as u8);
            }
        }
        self
    }

    /// The endgames found, as (side to move's stones, other side's stones).
    pub fn sectors(&self) -> Vec<(u8, u8)> {
        let mut out = Vec::new();
        for w in 3..13 {
            for b in 3..13 {
                if self.available[w][b] {
                    out.push((w as u8, b as u8));
                }
            }
        }
        out
    }

    /// Whether a table holds this position (movement phase, material solved).
    pub fn covers(&self, p: &Position) -> bool {
        let (s, o) = (p.side.index(), p.side.other().index());
        p.hand == [0, 0]
            && self.available[p.stones[s].count_ones() as usize][p.stones[o].count_ones() as usize]
    }

    /// The table value of a covered position.
    pub fn value(&self, p: &Position) -> Result<Value, ProbeError> {
        let (s, o) = (p.side.index(), p.side.other().index());
        self.db.value_folded(&Folded {
            own: p.stones[s],
            opp: p.stones[o],
            own_hand: 0,
            opp_hand: 0,
        })
    }
}

fn key(p: &Position) -> u128 {
    (p.stones[0] as u128)
        | (p.stones[1] as u128) << 30
        | (p.hand[0] as u128) << 60
        | (p.hand[1] as u128) << 64
        | (p.side.index() as u128) << 68
}

/// Mate scores are stored relative to the node, so they stay right at any distance from the root.
fn to_tt(score: i32, ply: u32) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: u32) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// Number of stone steps onto empty neighbouring cells.
fn mobility(own: u32, empty: u32) -> i32 {
    let mut n = 0;
    let mut s = own;
    while s != 0 {
        let i = s.trailing_zeros() as usize;
        s &= s - 1;
        n += (NEIGHBOURS[i] & empty).count_ones() as i32;
    }
    n
}

/// Estimate for a line cut off by the depth limit: material, then mobility.
pub fn evaluate(p: &Position) -> i32 {
    let (s, o) = (p.side.index(), p.side.other().index());
    let material = (p.stones[s].count_ones() as i32 + p.hand[s] as i32)
        - (p.stones[o].count_ones() as i32 + p.hand[o] as i32);
    let empty = ALL & !(p.stones[0] | p.stones[1]);
    100 * material + mobility(p.stones[s], empty) - mobility(p.stones[o], empty)
}

const TT_LIMIT: usize = 8_000_000;

struct Searcher<'a> {
    game: &'a Dara,
    tables: &'a Tables<'a>,
    tt: HashMap<u128, Entry<Move>>,
    nodes: u64,
    deadline: Option<Instant>,
    aborted: bool,
    error: Option<ProbeError>,
}

impl Searcher<'_> {
    /// Negamax within (alpha, beta); returns the score and whether it is exact.
    fn search(
        &mut self,
        p: &Position,
        depth: u32,
        ply: u32,
        mut alpha: i32,
        beta: i32,
    ) -> (i32, bool) {
        self.nodes += 1;
        if self.nodes & 0xfff == 0 {
            if let Some(d) = self.deadline {
                if Instant::now() >= d {
                    self.aborted = true;
                }
            }
        }
        if self.aborted {
            return (0, false);
        }
        let (s, o) = (p.side.index(), p.side.other().index());
        if p.stones[s].count_ones() + p.hand[s] as u32 <= 2 {
            return (-(MATE - ply as i32), true);
        }
        if p.stones[o].count_ones() + p.hand[o] as u32 <= 2 {
            return (MATE - ply as i32, true);
        }
        if self.tables.covers(p) {
            match self.tables.value(p) {
                Ok(v) => return (score_of(v, ply), true),
                Err(e) => {
                    self.error = Some(e);
                    self.aborted = true;
                    return (0, false);
                }
            }
        }
        let mut list = Vec::with_capacity(48);
        self.game.moves(p, &mut list);
        if list.is_empty() {
            return (-(MATE - ply as i32), true);
        }
        if depth == 0 {
            return (evaluate(p), false);
        }
        let k = key(p);
        let mut hint = None;
        if let Some(e) = self.tt.get(&k) {
            hint = Some(e.best);
            if e.depth >= depth || e.proven {
                let v = from_tt(e.value, ply);
                match e.bound {
                    Bound::Exact => return (v, e.proven),
                    Bound::Lower if v >= beta => return (v, e.proven),
                    Bound::Upper if v <= alpha => return (v, e.proven),
                    _ => {}
                }
            }
        }
        // The table's best move first, then removals, then the rest.
        list.sort_by_key(|(m, _)| {
            if Some(*m) == hint {
                0
            } else if m.removed != NONE {
                1
            } else {
                2
            }
        });
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = list[0].0;
        let mut proven = true;
        for (m, q) in &list {
            let (v, pr) = self.search(q, depth - 1, ply + 1, -beta, -alpha);
            let score = -v;
            if self.aborted {
                return (0, false);
            }
            if score > best {
                best = score;
                best_move = *m;
            }
            if best > alpha {
                alpha = best;
            }
            if alpha >= beta {
                // A lower bound: exact if the refuting line is.
                proven = pr;
                break;
            }
            proven &= pr;
        }
        // A win found within the horizon is the fastest there is: a faster one would have been
        // found too.
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
        if self.tt.len() >= TT_LIMIT {
            self.tt.clear();
        }
        self.tt.insert(
            k,
            Entry {
                depth,
                value: to_tt(best, ply),
                bound,
                proven,
                best: best_move,
            },
        );
        (best, proven)
    }
}

/// Searches a position within the limits. `Ok(None)` when the game is over; an error when a
/// table the search needed cannot be read.
pub fn search(
    game: &Dara,
    tables: &Tables,
    p: &Position,
    limits: Limits,
) -> Result<Option<SearchResult>, ProbeError> {
    if game.outcome(p).is_some() {
        return Ok(None);
    }
    let start = Instant::now();
    let mut s = Searcher {
        game,
        tables,
        tt: HashMap::new(),
        nodes: 0,
        deadline: limits.time.map(|t| start + t),
        aborted: false,
        error: None,
    };
    let mut roots = Vec::new();
    game.moves(p, &mut roots);
    let mut done: Option<SearchResult> = None;
    for depth in 1..=limits.depth.max(1) {
        let mut moves = Vec::new();
        // Search the previous iteration's best moves first: it fills the table for the rest.
        if let Some(prev) = &done {
            let order: Vec<Move> = prev.moves.iter().map(|m| m.mv).collect();
            roots.sort_by_key(|(m, _)| order.iter().position(|x| x == m));
        }
        for (mv, q) in &roots {
            let (v, pr) = s.search(q, depth - 1, 1, -INF, INF);
            moves.push(ScoredMove {
                mv: *mv,
                score: -v,
                proven: pr,
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
        moves.sort_by_key(|m| -m.score);
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
    let mut r = done.unwrap_or_else(|| SearchResult {
        score: 0,
        depth: 0,
        proven: false,
        moves: roots
            .iter()
            .map(|(mv, _)| ScoredMove {
                mv: *mv,
                score: 0,
                proven: false,
            })
            .collect(),
        nodes: 0,
    });
    r.nodes = s.nodes;
    Ok(Some(r))
}
