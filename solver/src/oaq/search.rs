//! Search for Ô Ăn Quan positions no table covers: [`crate::search::alpha_beta`] with the
//! final collection at the leaves. Scores are future net seeds for the side to move (captures
//! minus refills, plus the final collection), as in RULES.md 3.9; a line cut off by the depth
//! limit scores 0 from there on.

use crate::search::alpha_beta::{self, Edge, Searchable};
use retro_engine::oaq::{Move, Oaq, Position, Side, Turn};
use std::cmp::Ordering;
use std::convert::Infallible;

pub use crate::search::Limits;
/// A root move with its score (future net seeds for the mover after it).
pub type ScoredMove = crate::search::ScoredMove<Move>;
/// The result of a search; `proven` when every line reached the end of the game.
pub type SearchResult = crate::search::SearchResult<Move>;

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

/// What a turn earns its mover: its captures, less 5 for a refill.
fn gain(t: &Turn) -> i32 {
    t.captured as i32 - if t.refilled { 5 } else { 0 }
}

/// Ô Ăn Quan as the search sees it.
struct OaqSearch<'a>(&'a Oaq);

impl Searchable for OaqSearch<'_> {
    type Position = Position;
    type Move = Move;
    type Child = (Move, Turn);
    type Key = u128;
    type Error = Infallible;
    const TT_LIMIT: usize = 20_000_000;

    fn over(&self, p: &Position) -> bool {
        self.0.outcome(p).is_some()
    }
    fn key(&self, p: &Position) -> u128 {
        key(p)
    }
    /// Only the final collection is still to come.
    fn leaf(&mut self, p: &Position, _: u32) -> Result<Option<i32>, Infallible> {
        Ok(self.0.outcome(p).map(|f| {
            let s = p.side.index();
            (f.stores[s] - p.stores[s] - (f.stores[1 - s] - p.stores[1 - s])) as i32
        }))
    }
    fn horizon(&self, _: &Position, _: u32) -> (i32, bool) {
        (0, false)
    }
    fn children(&self, p: &Position, out: &mut Vec<(Move, Turn)>) {
        self.0.moves(p, out);
    }
    fn mv(c: &(Move, Turn)) -> Move {
        c.0
    }
    fn position(c: &(Move, Turn)) -> &Position {
        &c.1.position
    }
    fn edge(&self, _: &Position, c: &(Move, Turn)) -> Edge {
        Edge {
            gain: gain(&c.1),
            passes: true,
        }
    }
    /// Bigger immediate gains first.
    fn order(&self, c: &(Move, Turn), _: bool) -> i32 {
        -gain(&c.1)
    }
    /// Notation order: cells ascending, `+` before `-`.
    fn tie(&self, a: &Move, b: &Move) -> Ordering {
        (a.cell, -a.dir).cmp(&(b.cell, -b.dir))
    }
}

/// Searches a position within the limits. Returns `None` when the game is over.
pub fn search(game: &Oaq, p: &Position, limits: Limits) -> Option<SearchResult> {
    match alpha_beta::search(&mut OaqSearch(game), p, limits) {
        Ok(r) => r,
        Err(e) => match e {},
    }
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
