//! Exact values of a small part of a Mill game, for positions no table can hold: every position
//! reachable from one by the engine's own moves (its closure), valued by retrograde analysis
//! over that explicit graph. Rules whose state the sector index lacks (one-time mills' masks)
//! get exact endgame answers this way while the closure is small: a position of 3 against 3
//! reaches at most a few hundred thousand positions up to symmetry.

use crate::mill::probe::over_value;
use retro_engine::mill::{Mill, Position};
use retro_tables::Value;
use std::collections::HashMap;

/// A position as the closure stores it: every field that moves depend on (the play-rule
/// counters left out), the smallest over the board's symmetries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Key([u64; 3], u8);

fn raw_key(p: &Position) -> Key {
    let b = |x: bool| x as u8;
    Key(
        [
            p.stones[0] as u64 | (p.stones[1] as u64) << 32,
            p.marked as u64 | (p.formed[0] as u64) << 32,
            p.formed[1] as u64
                | (p.hand[0] as u64) << 32
                | (p.hand[1] as u64) << 40
                | (p.pending[0] as u8 as u64) << 48
                | (p.pending[1] as u8 as u64) << 56,
        ],
        p.side.index() as u8
            | b(p.placing) << 1
            | b(p.stalemate_removal) << 2
            | b(p.board_full_end) << 3,
    )
}

/// The key of `p` and the position it stands for (the symmetric image with the smallest key).
/// The stones decide first; the other fields are mapped only for the symmetries that tie.
fn canonical(m: &Mill, p: &Position) -> (Key, Position) {
    let g = m.geo;
    let stones =
        |s: usize| g.transform(p.stones[0], s) as u64 | (g.transform(p.stones[1], s) as u64) << 32;
    let mut low = stones(0);
    let mut ties = [0usize; retro_engine::mill::geometry::SYMMETRIES];
    let mut n = 1;
    for s in 1..retro_engine::mill::geometry::SYMMETRIES {
        let k = stones(s);
        if k < low {
            low = k;
            ties[0] = s;
            n = 1;
        } else if k == low {
            ties[n] = s;
            n += 1;
        }
    }
    let mut best: Option<(Key, Position)> = None;
    for &s in &ties[..n] {
        let q = if s == 0 { *p } else { m.transform(p, s) };
        let k = raw_key(&q);
        if best.as_ref().is_none_or(|b| k < b.0) {
            best = Some((k, q));
        }
    }
    let (k, mut q) = best.expect("the identity is a candidate");
    q.rule50 = 0;
    q.fullmove = 1;
    (k, q)
}

/// The closure held more positions than allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooBig {
    /// The limit it passed.
    pub limit: usize,
}

impl std::fmt::Display for TooBig {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "more than {} positions can be reached from this one (up to symmetry)",
            self.limit
        )
    }
}

impl std::error::Error for TooBig {}

/// The solved closure of a position.
pub struct Closure {
    ids: HashMap<Key, u32>,
    /// Each position's value for its side to move (`None`: a draw).
    values: Vec<Option<Value>>,
}

/// An edge to a child: its index, and whether the same side acts there again.
const AGAIN: u32 = 1 << 31;

impl Closure {
    /// Solves every position reachable from `root` by the engine's moves, or says that more
    /// than `limit` are (up to symmetry).
    pub fn solve(m: &Mill, root: &Position, limit: usize) -> Result<Closure, TooBig> {
        let (k, r) = canonical(m, root);
        let mut ids = HashMap::from([(k, 0u32)]);
        let mut list = vec![r];
        // Forward edges (CSR); each position's value when the game is over there.
        let mut first: Vec<u32> = Vec::new();
        let mut edges: Vec<u32> = Vec::new();
        let mut values: Vec<Option<Value>> = Vec::new();
        let mut draw_move: Vec<bool> = Vec::new();
        let mut moves = Vec::new();
        let mut i = 0;
        while i < list.len() {
            let p = list[i];
            i += 1;
            first.push(edges.len() as u32);
            // A game over is a position of its own (found once, not on every move to it); a
            // drawn end is never decided, so no parent counts it as a loss.
            let (mut value, mut draw) = (None, false);
            if let Some(o) = m.outcome(&p) {
                match over_value(&o, p.side, 0) {
                    Value::Draw => draw = true,
                    v => value = Some(v),
                }
            } else {
                m.moves(&p, &mut moves);
                for (_, q) in &moves {
                    let (kq, cq) = canonical(m, q);
                    let id = match ids.get(&kq) {
                        Some(&id) => id,
                        None => {
                            if list.len() >= limit {
                                return Err(TooBig { limit });
                            }
                            ids.insert(kq, list.len() as u32);
                            list.push(cq);
                            (list.len() - 1) as u32
                        }
                    };
                    edges.push(id | if q.side == p.side { AGAIN } else { 0 });
                }
            }
            values.push(value);
            draw_move.push(draw);
        }
        first.push(edges.len() as u32);
        let n = list.len();
        drop(list);
        // Reverse edges.
        let mut rfirst = vec![0u32; n + 1];
        for &e in &edges {
            rfirst[(e & !AGAIN) as usize + 1] += 1;
        }
        for j in 0..n {
            rfirst[j + 1] += rfirst[j];
        }
        let mut fill = rfirst.clone();
        let mut parents = vec![0u32; edges.len()];
        for p in 0..n {
            for &e in &edges[first[p] as usize..first[p + 1] as usize] {
                let c = (e & !AGAIN) as usize;
                parents[fill[c] as usize] = p as u32 | (e & AGAIN);
                fill[c] += 1;
            }
        }
        drop(fill);
        // Retrograde by distance: positions whose value is known at distance `d`, then `d + 1`.
        let mut left: Vec<u32> = (0..n).map(|j| first[j + 1] - first[j]).collect();
        drop(edges);
        let mut frontier: Vec<(u32, u16)> = Vec::new();
        let mut later: Vec<(u32, u16)> = Vec::new();
        let mut longest = vec![0u16; n];
        for (j, v) in values.iter().enumerate() {
            if let Some(v) = v {
                frontier.push((j as u32, v.plies().unwrap_or(0)));
            }
        }
        let mut at = 0;
        while at < frontier.len() || !later.is_empty() {
            if at == frontier.len() {
                frontier = std::mem::take(&mut later);
                frontier.sort_unstable_by_key(|&(_, d)| d);
                at = 0;
            }
            let (c, _) = frontier[at];
            at += 1;
            let Some(vc) = values[c as usize] else {
                continue;
            };
            for &e in &parents[rfirst[c as usize] as usize..rfirst[c as usize + 1] as usize] {
                let p = (e & !AGAIN) as usize;
                if values[p].is_some() {
                    continue;
                }
                let mv = if e & AGAIN != 0 {
                    vc.later()
                } else {
                    vc.parent()
                };
                match mv {
                    Value::Win(w) => {
                        values[p] = Some(mv);
                        later.push((p as u32, w));
                    }
                    Value::Loss(l) => {
                        left[p] -= 1;
                        longest[p] = longest[p].max(l);
                        if left[p] == 0 && !draw_move[p] {
                            values[p] = Some(Value::Loss(longest[p]));
                            later.push((p as u32, longest[p]));
                        }
                    }
                    Value::Draw => unreachable!("only decided values spread"),
                }
            }
        }
        Ok(Closure { ids, values })
    }

    /// Every position it holds (one of each symmetry class) with its value.
    pub fn positions<'a>(&'a self, m: &'a Mill) -> impl Iterator<Item = (Position, Value)> + 'a {
        self.ids.iter().map(move |(k, &id)| {
            let [a, b, c] = k.0;
            let mut p = m.start();
            p.stones = [a as u32, (a >> 32) as u32];
            p.marked = b as u32;
            p.formed = [(b >> 32) as u32, c as u32];
            p.hand = [(c >> 32) as u8, (c >> 40) as u8];
            p.pending = [(c >> 48) as u8 as i8, (c >> 56) as u8 as i8];
            p.side = if k.1 & 1 == 0 {
                retro_engine::Color::White
            } else {
                retro_engine::Color::Black
            };
            p.placing = k.1 & 2 != 0;
            p.stalemate_removal = k.1 & 4 != 0;
            p.board_full_end = k.1 & 8 != 0;
            (p, self.values[id as usize].unwrap_or(Value::Draw))
        })
    }

    /// How many positions it holds (up to symmetry).
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether it holds none (never: the root is in it).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The value of `p` for its side to move, when `p` is in the closure.
    pub fn value(&self, m: &Mill, p: &Position) -> Option<Value> {
        if let Some(o) = m.outcome(p) {
            return Some(over_value(&o, p.side, 0));
        }
        let id = *self.ids.get(&canonical(m, p).0)?;
        Some(self.values[id as usize].unwrap_or(Value::Draw))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mill::Db;
    use crate::sectors::solve::solve;
    use retro_engine::mill::Profile;
    use retro_tables::SectorKey;

    /// On rules the tables hold, the closure of a 3-against-3 position gives every position it
    /// reaches (a third of a million, the whole sector and the wins by capture) the tables'
    /// value.
    #[test]
    fn closures_agree_with_the_tables() {
        let m = Mill::new(Profile::preset("nine-mens-morris").unwrap());
        let dir = tempfile::tempdir().unwrap();
        let db = Db::new(m.clone(), dir.path());
        let k = |w, b| SectorKey { w, b, wf: 0, bf: 0 };
        solve(&db, &[k(3, 3)], &()).unwrap();
        let fens = ["O*******/**O****O/***@**@@ w m s 3 0 3 0 0 0 0 0 0 0 0 0 1"];
        for fen in fens {
            let root = m.parse_fen(fen).unwrap();
            let c = Closure::solve(&m, &root, 10_000_000).unwrap();
            assert!(c.len() > 100_000, "{}", c.len());
            assert_eq!(
                Closure::solve(&m, &root, 1000).err(),
                Some(TooBig { limit: 1000 })
            );
            let mut seen = 0;
            for (p, v) in c.positions(&m) {
                if m.outcome(&p).is_some() {
                    continue;
                }
                assert_eq!(v, db.value(&p).unwrap(), "{}", m.format_fen(&p));
                assert_eq!(c.value(&m, &p), Some(v));
                seen += 1;
            }
            assert!(seen > 100_000, "{seen}");
        }
    }
}
