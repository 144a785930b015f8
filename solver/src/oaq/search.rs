//! Search for Ô Ăn Quan positions no table covers: iterative deepening negamax with alpha-beta
//! and a transposition table. Scores are future net seeds for the side to move (captures minus
//! refills, plus the final collection), as in RULES.md 3.9; a line cut off by the depth limit
//! scores 0 from there on.

use retro_engine::oaq::{Move, Oaq, Position, Side};
use std::collections::HashMap;
use std::time::Instant;

pub use crate::search::common::Limits;

/// A root move with its score.
#[derive(Clone, Debug)]
pub struct ScoredMove {
    /// The move.
    pub mv: Move,
    /// Future net seeds for the mover after this move, at the reported depth.
    pub score: i32,
}

/// The result of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// Score of the position for the side to move.
    pub score: i32,
    /// Depth of the deepest completed iteration.
    pub depth: u32,
    /// Whether every line reached the end of the game (the score is then exact).
    pub proven: bool,
    /// Every legal move with its score, best first.
    pub moves: Vec<ScoredMove>,
    /// Positions searched.
    pub nodes: u64,
}

#[derive(Clone, Copy)]
struct Entry {
    depth: u32,
    value: i32,
    bound: Bound,
    proven: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

fn key(p: &Position) -> u128 {
    let mut k: u128 = 0;
    for &c in &p.cells {
        k = (k << 8) | c as u128;
    }
    k = (k << 1) | p.big[0] as u128;
    k = (k << 1) | p.big[1] as u128;
    k = (k << 1) | (p.side == Side::North) as u128;
    (k << 1) | p.first as u128
}

const INF: i32 = 1 << 20;

struct Searcher<'a> {
    game: &'a Oaq,
    tt: HashMap<u128, Entry>,
    nodes: u64,
    deadline: Option<Instant>,
    aborted: bool,
}

impl Searcher<'_> {
    /// Negamax; returns (value, proven).
    fn search(&mut self, p: &Position, depth: u32, mut alpha: i32, beta: i32) -> (i32, bool) {
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
        if let Some(f) = self.game.outcome(p) {
            // Only the final collection is still to come.
            let s = p.side.index();
            let own = f.stores[s] - p.stores[s];
            let opp = f.stores[1 - s] - p.stores[1 - s];
            return ((own - opp) as i32, true);
        }
        if depth == 0 {
            return (0, false);
        }
        let k = key(p);
        if let Some(e) = self.tt.get(&k) {
            if e.depth >= depth || e.proven {
                match e.bound {
                    Bound::Exact => return (e.value, e.proven),
                    Bound::Lower if e.value >= beta => return (e.value, e.proven),
                    Bound::Upper if e.value <= alpha => return (e.value, e.proven),
                    _ => {}
                }
            }
        }
        let mut list = Vec::with_capacity(10);
        self.game.moves(p, &mut list);
        // Bigger immediate gains first.
        list.sort_by_key(|(_, t)| -(t.captured as i32 - 5 * t.refilled as i32));
        let alpha0 = alpha;
        let mut best = -INF;
        let mut proven = true;
        for (_, t) in &list {
            let gain = t.captured as i32 - if t.refilled { 5 } else { 0 };
            let (v, pr) = self.search(&t.position, depth - 1, gain - beta, gain - alpha);
            let score = gain - v;
            proven &= pr;
            if score > best {
                best = score;
            }
            if best > alpha {
                alpha = best;
            }
            if alpha >= beta {
                break;
            }
        }
        if self.aborted {
            return (0, false);
        }
        let bound = if best <= alpha0 {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.tt.insert(
            k,
            Entry {
                depth,
                value: best,
                bound,
                proven,
            },
        );
        (best, proven)
    }
}

/// Searches a position within the limits. Returns `None` when the game is over.
pub fn search(game: &Oaq, p: &Position, limits: Limits) -> Option<SearchResult> {
    if game.outcome(p).is_some() {
        return None;
    }
    let start = Instant::now();
    let mut s = Searcher {
        game,
        tt: HashMap::new(),
        nodes: 0,
        deadline: limits.time.map(|t| start + t),
        aborted: false,
    };
    let mut roots = Vec::new();
    game.moves(p, &mut roots);
    let mut done: Option<SearchResult> = None;
    for depth in 1..=limits.depth.max(1) {
        let mut moves = Vec::new();
        let mut all_proven = true;
        for (mv, t) in &roots {
            let gain = t.captured as i32 - if t.refilled { 5 } else { 0 };
            let (v, pr) = s.search(&t.position, depth - 1, -INF, INF);
            all_proven &= pr;
            moves.push(ScoredMove {
                mv: *mv,
                score: gain - v,
            });
        }
        if s.aborted {
            break;
        }
        moves.sort_by_key(|m| -m.score);
        let score = moves[0].score;
        done = Some(SearchResult {
            score,
            depth,
            proven: all_proven,
            moves,
            nodes: s.nodes,
        });
        if all_proven {
            break;
        }
        if s.tt.len() > 20_000_000 {
            s.tt.clear();
        }
    }
    let mut r = done.unwrap_or_else(|| SearchResult {
        score: 0,
        depth: 0,
        proven: false,
        moves: roots
            .iter()
            .map(|(mv, _)| ScoredMove { mv: *mv, score: 0 })
            .collect(),
        nodes: 0,
    });
    r.nodes = s.nodes;
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_engine::oaq::OaqProfile;

    /// Plain negamax to the end of the game (no pruning, no table).
    fn minimax(g: &Oaq, p: &Position, depth: u32) -> Option<i32> {
        if let Some(f) = g.outcome(p) {
            let s = p.side.index();
            return Some(
                ((f.stores[s] - p.stores[s]) - (f.stores[1 - s] - p.stores[1 - s])) as i32,
            );
        }
        if depth == 0 {
            return None;
        }
        let mut list = Vec::new();
        g.moves(p, &mut list);
        let mut best = None;
        for (_, t) in list {
            let gain = t.captured as i32 - if t.refilled { 5 } else { 0 };
            let v = gain - minimax(g, &t.position, depth - 1)?;
            best = Some(best.map_or(v, |b: i32| b.max(v)));
        }
        best
    }

    #[test]
    fn proven_scores_match_plain_minimax_on_small_games() {
        let mut prof = OaqProfile::default();
        prof.set("seeds=1,1").unwrap();
        let g = Oaq::new(prof);
        // Walk a few plies in and compare wherever the game tree is finite and small.
        let mut checked = 0;
        let mut frontier = vec![g.start()];
        for _ in 0..12 {
            let mut next = Vec::new();
            for p in &frontier {
                if g.outcome(p).is_some() {
                    continue;
                }
                if let Some(exact) = minimax(&g, p, 14) {
                    let r = search(
                        &g,
                        p,
                        Limits {
                            depth: 14,
                            time: None,
                        },
                    )
                    .unwrap();
                    assert!(r.proven);
                    assert_eq!(r.score, exact, "{}", g.format_position(p));
                    checked += 1;
                }
                let mut list = Vec::new();
                g.moves(p, &mut list);
                next.extend(list.into_iter().map(|(_, t)| t.position));
            }
            next.sort_by_key(|q| g.format_position(q));
            next.dedup();
            next.truncate(150);
            frontier = next;
        }
        assert!(checked >= 10, "{checked}");
    }
}
