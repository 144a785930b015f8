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
//! The search is [`crate::search::progress`]'s, over the plies inside one sector (moves that
//! remove nothing keep the stone counts); [`MillProgress`] is what it needs of Mill.

use crate::mill::probe::{move_value, move_wdl};
use crate::mill::Db;
use crate::search::progress::{Planner, Progress, ProgressError};
use crate::sectors::db::ProbeError;
use retro_engine::mill::Position;
use retro_engine::Color;
use retro_tables::value::{Value, Wdl};

/// Why the search stopped without an answer.
pub type RemovalError = ProgressError<ProbeError>;

/// Plays a won Mill game towards its next removal (see [`Planner::next`]).
pub type RemovalPlanner<'a> = Planner<MillProgress<'a>>;

/// Mill and its tables for the search: a removal or a placement resets the counter.
pub struct MillProgress<'a> {
    db: &'a Db,
    /// The tables have said they hold no distances (`--wdl-only`): results alone are asked for.
    wdl_only: bool,
}

impl<'a> MillProgress<'a> {
    /// The game of `db`'s tables.
    pub fn new(db: &'a Db) -> MillProgress<'a> {
        MillProgress {
            db,
            wdl_only: false,
        }
    }
}

impl Progress for MillProgress<'_> {
    type Pos = Position;
    type Error = ProbeError;

    fn key(&self, p: &Position) -> Position {
        // The counters (plies without removal, move number) are not part of what the position
        // is.
        Position {
            rule50: 0,
            fullmove: 0,
            ..*p
        }
    }

    fn side(&self, p: &Position) -> Color {
        p.side
    }

    fn over(&self, p: &Position) -> bool {
        self.db.game().outcome(p).is_some()
    }

    fn children(&self, p: &Position, out: &mut Vec<Position>) {
        let mut list = Vec::new();
        self.db.game().moves(p, &mut list);
        out.extend(list.into_iter().map(|(_, q)| q));
    }

    fn resets(&self, _: &Position, q: &Position) -> bool {
        q.rule50 == 0
    }

    /// Tables without distances give the result alone, which is all the search needs to be
    /// exact: once a table has said it has none, only results are asked for.
    fn rank(&mut self, p: &Position, q: &Position) -> Result<(bool, i32), ProbeError> {
        if !self.wdl_only {
            match move_value(self.db, p, q) {
                Ok(v) => return Ok((matches!(v, Value::Win(_)), v.preference())),
                Err(e) if e.no_distances() => self.wdl_only = true,
                Err(e) => return Err(e),
            }
        }
        let w = move_wdl(self.db, p, q)?;
        Ok((w == Wdl::Win, w as i32 - 1))
    }
}

/// A planner of `winner`'s wins over `db`'s tables; each move's search may visit `max_nodes`
/// positions.
pub fn removal_planner(db: &Db, winner: Color, max_nodes: u64) -> RemovalPlanner<'_> {
    Planner::new(MillProgress::new(db), winner, max_nodes)
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
    removal_planner(db, winner, max_nodes).plies(p, limit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sectors::sector::SectorKey;
    use crate::sectors::solve::solve;
    use retro_engine::mill::{Mill, Profile};

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

    /// Nine Men's Morris 4 against 4 without flying, solved: a removal does not end the game
    /// and does not give the loser wings, so wins go through removals whose next one comes
    /// before the end.
    fn solved_44() -> (tempfile::TempDir, Db) {
        let dir = tempfile::tempdir().unwrap();
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
        (dir, db)
    }

    #[test]
    fn distances_agree_with_the_plain_definition_and_never_exceed_the_win() {
        let (_dir, db) = solved_44();
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

    #[test]
    fn removal_moves_reach_the_removal_within_the_distance() {
        let (_dir, db) = solved_44();
        let m = db.game();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut games = 0;
        while games < 40 {
            let p = crate::mill::test_positions::random_moving_positions(m, 4, 4, 1, &mut seed)[0];
            let Ok(Value::Win(dtm @ 3..=25)) = db.value(&p) else {
                continue;
            };
            if m.outcome(&p).is_some() {
                continue;
            }
            games += 1;
            let winner = p.side;
            let mut planner = removal_planner(&db, winner, 10_000_000);
            let (mut q, d) = removal_planner(&db, winner, 10_000_000)
                .next(&p, 200)
                .unwrap()
                .expect("a won position has a removal within its distance");
            assert_eq!(
                Some(d),
                plies_to_removal(&db, &p, winner, 200, 10_000_000).unwrap()
            );
            assert!(d <= dtm as u32);
            // Both sides follow the plan: the removal comes after exactly d plies, the game
            // still won for the winner on the way.
            let mut plies = 1;
            while q.rule50 != 0 && m.outcome(&q).is_none() {
                assert_eq!(
                    db.wdl(&q).unwrap(),
                    if q.side == winner {
                        Wdl::Win
                    } else {
                        Wdl::Loss
                    }
                );
                let (next, left) = planner.next(&q, 200).unwrap().unwrap();
                assert_eq!(left, d - plies, "{q:?}");
                q = next;
                plies += 1;
            }
            assert_eq!(plies, d, "{p:?}");
        }
    }
}
