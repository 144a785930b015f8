//! Distance to the next removal in a won Mill position, for the N-move rule.
//!
//! The tables give each win its distance to the end (winner shortest, loser longest), but the
//! N-move rule draws a game after N plies without a removal or placement (the position's
//! `rule50` counter), which the tables ignore. A win is *cursed* when the winner cannot force the
//! next removal (or placement) before the counter reaches N. This module computes, on demand,
//! the smallest number of plies within which the winner can force a ply that resets the counter
//! while keeping the game won (every position on the way a win per the tables, the game's end
//! counting as reached), against the loser's longest resistance. A removal by the loser resets
//! the counter too. Only the next removal is considered: after it the counter starts again from
//! zero, with a new distance of its own.
//!
//! It is an AND-OR search over the plies inside one sector (moves that remove nothing keep the
//! stone counts), iteratively deepened, with a memory of the depths proven and refuted per
//! position.

use crate::mill::Db;
use crate::sectors::db::ProbeError;
use retro_engine::mill::{Mill, Position};
use retro_engine::Color;
use retro_tables::value::{Value, Wdl};
use std::collections::HashMap;

/// What is known of a position: it is forced within `proven` plies, not within `refuted`.
#[derive(Clone, Copy, Default)]
struct Known {
    proven: Option<u32>,
    refuted: u32,
}

/// The search state.
struct Search<'a> {
    db: &'a Db,
    winner: Color,
    memo: HashMap<Position, Known>,
    nodes: u64,
    max_nodes: u64,
}

/// Why the search stopped without an answer.
#[derive(Debug)]
pub enum RemovalError {
    /// A table could not be read.
    Probe(ProbeError),
    /// The node budget ran out.
    Budget,
}

impl From<ProbeError> for RemovalError {
    fn from(e: ProbeError) -> Self {
        RemovalError::Probe(e)
    }
}

/// The value of a move for its mover (the game may end on it, with the mover still to move).
pub fn move_value(db: &Db, p: &Position, q: &Position) -> Result<Value, ProbeError> {
    if q.side == p.side {
        return Ok(match db.game().outcome(q) {
            Some(o) => crate::mill::probe::over_value(&o, p.side, 1),
            // The mover moves again (after a stalemate removal).
            None => db.value(q)?.later(),
        });
    }
    Ok(db.value(q)?.parent())
}

/// [`move_value`] without the distance (`--wdl-only` tables answer it too).
pub fn move_wdl(db: &Db, p: &Position, q: &Position) -> Result<Wdl, ProbeError> {
    if q.side == p.side {
        return Ok(match db.game().outcome(q) {
            Some(o) => crate::mill::probe::over_value(&o, p.side, 1).wdl(),
            None => db.wdl(q)?,
        });
    }
    Ok(db.wdl(q)?.parent())
}

impl Search<'_> {
    /// Whether the winner can force, within `d` plies from `p`, a ply that resets the counter
    /// or ends the game, keeping the win.
    fn force(&mut self, p: &Position, d: u32) -> Result<bool, RemovalError> {
        let m: &Mill = self.db.game();
        if m.outcome(p).is_some() {
            return Ok(true);
        }
        if d == 0 {
            return Ok(false);
        }
        // The counters (plies without removal, move number) are not part of what the position
        // is: the same position reached by another path is the same node.
        let key = Position {
            rule50: 0,
            fullmove: 0,
            ..*p
        };
        let known = self.memo.get(&key).copied().unwrap_or_default();
        if known.proven.is_some_and(|x| x <= d) {
            return Ok(true);
        }
        if known.refuted >= d {
            return Ok(false);
        }
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            return Err(RemovalError::Budget);
        }
        let mut list = Vec::new();
        m.moves(p, &mut list);
        let winner_moves = p.side == self.winner;
        // Moves that reset the counter or end the game settle this node at once; the others are
        // tried in the tables' order: the winner's fastest wins first, the loser's longest
        // resistance first (the likeliest to prove or refute quickly).
        let mut open = Vec::with_capacity(list.len());
        for (_, q) in &list {
            let v = move_value(self.db, p, q)?;
            if winner_moves && !matches!(v, Value::Win(_)) {
                continue;
            }
            let settled = q.rule50 == 0 || m.outcome(q).is_some();
            if settled && winner_moves {
                open.clear();
                open.push((i32::MAX, *q, true));
                break;
            }
            if !settled {
                open.push((v.preference(), *q, false));
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
}

/// The number of plies within which `winner` can force the next removal (or placement, or the
/// end of the game) from `p` while keeping the win, against the longest resistance; `Ok(None)`
/// when it takes more than `limit` plies. `p` must be won for `winner` per the tables. Gives up
/// with [`RemovalError::Budget`] after `max_nodes` positions.
pub fn plies_to_removal(
    db: &Db,
    p: &Position,
    winner: Color,
    limit: u32,
    max_nodes: u64,
) -> Result<Option<u32>, RemovalError> {
    let mut s = Search {
        db,
        winner,
        memo: HashMap::new(),
        nodes: 0,
        max_nodes,
    };
    for d in 1..=limit {
        if s.force(p, d)? {
            return Ok(Some(d));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sectors::sector::SectorKey;
    use crate::sectors::solve::solve;
    use retro_engine::mill::Profile;

    /// The plain definition, without memory or deepening: can the winner force a reset (or the
    /// end) within `d` plies, keeping the win?
    fn naive(db: &Db, p: &Position, winner: Color, d: u32) -> bool {
        let m = db.game();
        if m.outcome(p).is_some() {
            return true;
        }
        if d == 0 {
            return false;
        }
        let mut list = Vec::new();
        m.moves(p, &mut list);
        let reached = |q: &Position| q.rule50 == 0 || naive(db, q, winner, d - 1);
        if p.side == winner {
            list.iter()
                .any(|(_, q)| matches!(move_value(db, p, q).unwrap(), Value::Win(_)) && reached(q))
        } else {
            list.iter().all(|(_, q)| reached(q))
        }
    }

    #[test]
    fn distances_agree_with_the_plain_definition_and_never_exceed_the_win() {
        let dir = tempfile::tempdir().unwrap();
        // 4 against 4 without flying: a removal does not end the game and does not give the
        // loser wings, so wins go through removals whose next one comes before the end.
        let profile = Profile {
            flying: false,
            ..Profile::default()
        };
        let db = Db::new(Mill::new(profile), dir.path());
        let k44 = SectorKey {
            w: 4,
            b: 4,
            wf: 0,
            bf: 0,
        };
        solve(&db, &[k44], &()).unwrap();
        let m = db.game();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let (mut wins, mut checked, mut shorter) = (0, 0, 0);
        while wins < 300 {
            let p = crate::mill::test_positions::random_moving_positions(m, 4, 4, 1, &mut seed)[0];
            if m.outcome(&p).is_some() {
                continue;
            }
            // Long wins take long searches; the short ones show the same things.
            let Value::Win(dtm @ ..=15) = db.value(&p).unwrap() else {
                continue;
            };
            wins += 1;
            let d = plies_to_removal(&db, &p, p.side, 200, 10_000_000)
                .unwrap()
                .expect("a won game ends within its distance, so a removal comes sooner");
            assert!(
                d >= 1 && d <= dtm as u32,
                "{p:?}: removal in {d}, win in {dtm}"
            );
            if d < dtm as u32 {
                shorter += 1;
            }
            if d <= 4 && checked < 60 {
                checked += 1;
                assert!(naive(&db, &p, p.side, d), "{p:?}: not forced in {d}");
                assert!(!naive(&db, &p, p.side, d - 1), "{p:?}: forced in {}", d - 1);
            }
        }
        assert!(checked == 60, "only {checked} short distances checked");
        assert!(
            shorter > 0,
            "no win whose next removal comes before its end"
        );
    }
}
