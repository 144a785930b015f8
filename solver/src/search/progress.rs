//! Plies to the next reset of the N-move counter in a won game, and a plan that reaches it.
//!
//! The tables give each win its distance to the end, but a play rule (the N-move rule) draws a
//! game after N plies without a removal, a capture or a placement: a ply that *resets* the
//! counter. This module computes the smallest number of plies within which the winner can
//! force a reset (or the end of the game) while keeping the game won, every position on the
//! way a win per the tables, against the loser's longest resistance; a reset by the loser
//! counts as reached too. It needs the tables' win/draw/loss only, so tables without distances
//! (`--wdl-only`) answer it, and a [`Planner`] plays a won game from them to its end: each of
//! the winner's moves brings the next reset closer, and resets (material leaving the board,
//! stones placed) are finite.
//!
//! It is an AND-OR search over the plies up to the next reset, iteratively deepened, with a
//! memory of the depths proven and refuted per position. Each game implements [`Progress`].

use retro_engine::Color;
use std::collections::HashMap;
use std::hash::Hash;

/// What the search needs of a game and its tables.
pub trait Progress {
    /// A position.
    type Pos: Copy + Eq + Hash;
    /// A table that could not be read.
    type Error;
    /// The position as the search's memory keys it (play counters cleared: the same position
    /// reached by another path is the same node).
    fn key(&self, p: &Self::Pos) -> Self::Pos;
    /// The side to move.
    fn side(&self, p: &Self::Pos) -> Color;
    /// Whether the game is over.
    fn over(&self, p: &Self::Pos) -> bool;
    /// The positions after each move.
    fn children(&self, p: &Self::Pos, out: &mut Vec<Self::Pos>);
    /// Whether the move from `p` to `q` resets the counter (a removal, a capture, a placement).
    fn resets(&self, p: &Self::Pos, q: &Self::Pos) -> bool;
    /// Whether the move from `p` to `q` wins for its mover, and its place in the tables'
    /// order (quicker wins and slower losses higher). The order only makes the search faster.
    fn rank(&mut self, p: &Self::Pos, q: &Self::Pos) -> Result<(bool, i32), Self::Error>;
}

/// Why a search stopped without an answer.
#[derive(Debug)]
pub enum ProgressError<E> {
    /// A table could not be read.
    Probe(E),
    /// The node budget ran out.
    Budget,
}

/// A search's answer, or why it has none.
pub type Answer<T, G> = Result<T, ProgressError<<G as Progress>::Error>>;

/// What is known of a position: it is forced within `proven` plies, not within `refuted`.
#[derive(Clone, Copy, Default)]
struct Known {
    proven: Option<u32>,
    refuted: u32,
}

/// Positions a [`Planner`] remembers before it starts afresh.
const PLANNER_MEMORY: usize = 8_000_000;

/// The search: the game, the winner, what is known, the budget.
pub struct Planner<G: Progress> {
    game: G,
    winner: Color,
    memo: HashMap<G::Pos, Known>,
    nodes: u64,
    max_nodes: u64,
}

impl<G: Progress> Planner<G> {
    /// A search for `winner`'s wins in `game`; each call may visit `max_nodes` positions.
    pub fn new(game: G, winner: Color, max_nodes: u64) -> Planner<G> {
        Planner {
            game,
            winner,
            memo: HashMap::new(),
            nodes: 0,
            max_nodes,
        }
    }

    /// Whether the move from `p` to `q` ends the search's line: a reset or the end.
    fn settled(&self, p: &G::Pos, q: &G::Pos) -> bool {
        self.game.resets(p, q) || self.game.over(q)
    }

    /// Whether the winner can force, within `d` plies from `p`, a reset or the end, keeping
    /// the win.
    fn force(&mut self, p: &G::Pos, d: u32) -> Answer<bool, G> {
        if self.game.over(p) {
            return Ok(true);
        }
        if d == 0 {
            return Ok(false);
        }
        let key = self.game.key(p);
        let known = self.memo.get(&key).copied().unwrap_or_default();
        if known.proven.is_some_and(|x| x <= d) {
            return Ok(true);
        }
        if known.refuted >= d {
            return Ok(false);
        }
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            return Err(ProgressError::Budget);
        }
        let mut list = Vec::new();
        self.game.children(p, &mut list);
        let winner_moves = self.game.side(p) == self.winner;
        // Moves that reset the counter or end the game settle this node at once; the others are
        // tried in the tables' order: the winner's fastest wins first, the loser's longest
        // resistance first (the likeliest to prove or refute quickly).
        let mut open = Vec::with_capacity(list.len());
        for q in &list {
            let (wins, pref) = self.game.rank(p, q).map_err(ProgressError::Probe)?;
            if winner_moves && !wins {
                continue;
            }
            let settled = self.settled(p, q);
            if settled && winner_moves {
                open.clear();
                open.push((i32::MAX, *q, true));
                break;
            }
            if !settled {
                open.push((pref, *q, false));
            }
        }
        open.sort_by_key(|o| std::cmp::Reverse(if winner_moves { o.0 } else { -o.0 }));
        let mut result = !winner_moves;
        for &(_, q, settled) in &open {
            let ok = settled || self.force(&q, d - 1)?;
            if ok == winner_moves {
                result = ok;
                break;
            }
        }
        if winner_moves && open.is_empty() {
            result = false;
        }
        let e = self.memo.entry(key).or_default();
        if result {
            e.proven = Some(e.proven.map_or(d, |x| x.min(d)));
        } else {
            e.refuted = e.refuted.max(d);
        }
        Ok(result)
    }

    /// The number of plies within which the winner can force the next reset (or the end) from
    /// `p` while keeping the win, against the longest resistance; `Ok(None)` when it takes
    /// more than `limit` plies. `p` must be won for the winner per the tables.
    pub fn plies(
        &mut self,
        p: &G::Pos,
        limit: u32,
    ) -> Result<Option<u32>, ProgressError<G::Error>> {
        if self.memo.len() > PLANNER_MEMORY {
            self.memo.clear();
        }
        self.nodes = 0;
        for d in 1..=limit {
            if self.force(p, d)? {
                return Ok(Some(d));
            }
        }
        Ok(None)
    }

    /// The position after the planned move of `p`'s side to move, and the plies within which
    /// the reset is forced from `p`: for the winner, a winning move after which it is forced
    /// soonest; for the loser, the move that puts it off longest (one that resets the counter
    /// itself only if nothing else is left). `Ok(None)`: more than `limit` plies, or the game
    /// is over. What one call proves serves the next (the memory does not depend on the path).
    pub fn next(&mut self, p: &G::Pos, limit: u32) -> Answer<Option<(G::Pos, u32)>, G> {
        if self.game.over(p) {
            return Ok(None);
        }
        let Some(d) = self.plies(p, limit)? else {
            return Ok(None);
        };
        let mut list = Vec::new();
        self.game.children(p, &mut list);
        if self.game.side(p) == self.winner {
            for q in &list {
                let wins = self.game.rank(p, q).map_err(ProgressError::Probe)?.0;
                if wins && (self.settled(p, q) || self.force(q, d - 1)?) {
                    return Ok(Some((*q, d)));
                }
            }
        } else {
            // Every move of the loser's is forced within d - 1; the longest resistance is one
            // that is not forced within d - 2.
            for q in &list {
                if !self.settled(p, q) && (d < 2 || !self.force(q, d - 2)?) {
                    return Ok(Some((*q, d)));
                }
            }
            if let Some(q) = list.first() {
                return Ok(Some((*q, d)));
            }
        }
        // Not reached with consistent tables: a position forced within d plies has such a move.
        Ok(None)
    }
}
