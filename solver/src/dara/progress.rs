//! Dara for [`crate::search::progress`]: the plies to the next capture (or drop) in a won
//! endgame, and a plan that reaches it, from the endgame tables (win/draw/loss is enough).

use crate::dara::search::Tables;
use crate::search::progress::{Planner, Progress};
use crate::sectors::db::ProbeError;
use retro_engine::dara::{Dara, Position};
use retro_engine::Color;

/// Dara and its endgame tables for the search: a capture or a drop resets the counter.
pub struct DaraProgress<'a> {
    game: &'a Dara,
    tables: &'a Tables<'a>,
    /// The tables have said they hold no distances (`--wdl-only`): results alone are asked for.
    wdl_only: bool,
}

/// Plays a won Dara endgame towards its next capture (see [`Planner::next`]).
pub type CapturePlanner<'a> = Planner<DaraProgress<'a>>;

/// A planner of `winner`'s wins from `tables`; each move's search may visit `max_nodes`
/// positions.
pub fn capture_planner<'a>(
    game: &'a Dara,
    tables: &'a Tables<'a>,
    winner: Color,
    max_nodes: u64,
) -> CapturePlanner<'a> {
    let g = DaraProgress {
        game,
        tables,
        wdl_only: false,
    };
    Planner::new(g, winner, max_nodes)
}

/// Stones on the board and in hand, both sides.
fn material(p: &Position) -> u32 {
    p.stones[0].count_ones() + p.stones[1].count_ones() + p.hand[0] as u32 + p.hand[1] as u32
}

impl Progress for DaraProgress<'_> {
    type Pos = Position;
    type Error = ProbeError;

    fn key(&self, p: &Position) -> Position {
        *p
    }

    fn side(&self, p: &Position) -> Color {
        p.side
    }

    fn over(&self, p: &Position) -> bool {
        self.game.outcome(p).is_some()
    }

    fn children(&self, p: &Position, out: &mut Vec<Position>) {
        let mut list = Vec::new();
        self.game.moves(p, &mut list);
        out.extend(list.into_iter().map(|(_, q)| q));
    }

    fn resets(&self, p: &Position, q: &Position) -> bool {
        p.hand != q.hand || material(p) != material(q)
    }

    /// A move into a position no table holds (and not the end) counts as not winning: the
    /// search then proves only what the tables show.
    fn rank(&mut self, p: &Position, q: &Position) -> Result<(bool, i32), ProbeError> {
        if let Some((loser, _)) = self.game.outcome(q) {
            return Ok(if loser == p.side {
                (false, -200_000)
            } else {
                (true, 200_000)
            });
        }
        if !self.tables.covers(q) {
            return Ok((false, 0));
        }
        if !self.wdl_only {
            match self.tables.value(q) {
                Ok(v) => {
                    let v = v.parent();
                    return Ok((v.wdl() == retro_tables::Wdl::Win, v.preference()));
                }
                Err(e) if e.no_distances() => self.wdl_only = true,
                Err(e) => return Err(e),
            }
        }
        let w = self.tables.wdl(q)?.parent();
        Ok((w == retro_tables::Wdl::Win, w as i32 - 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dara::rules::DaraRules;
    use crate::sectors::db::Db;
    use crate::sectors::sector::SectorKey;
    use crate::sectors::solve::solve;
    use retro_tables::value::Value;

    #[test]
    fn planned_games_capture_within_the_plies_found() {
        let dir = tempfile::tempdir().unwrap();
        let game = Dara::default();
        let db = Db::with_rules(DaraRules { game: game.clone() }, dir.path());
        let k = SectorKey {
            w: 3,
            b: 3,
            wf: 0,
            bf: 0,
        };
        solve(&db, &[k], &()).unwrap();
        let tables = Tables::open(&db);
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut games = 0;
        while games < 40 {
            // Three stones a side on distinct cells, White to move.
            let mut p = Position {
                stones: [0, 0],
                hand: [0, 0],
                side: Color::White,
            };
            let mut placed = 0;
            while placed < 6 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let cell = 1 << (seed % 30);
                if (p.stones[0] | p.stones[1]) & cell == 0 {
                    p.stones[placed % 2] |= cell;
                    placed += 1;
                }
            }
            if game.outcome(&p).is_some() {
                continue;
            }
            let Ok(Value::Win(dtm @ 3..=31)) = tables.value(&p) else {
                continue;
            };
            games += 1;
            let winner = p.side;
            let mut planner = capture_planner(&game, &tables, winner, 10_000_000);
            let (mut q, d) = planner.next(&p, 200).unwrap().expect("a win has a capture");
            assert!(d <= dtm as u32, "capture in {d}, win in {dtm}");
            // Both sides follow the plan: the capture comes after exactly d plies, the
            // game won for the winner on the way.
            let mut plies = 1;
            let mut last = p;
            while !(material(&q) != material(&last) || game.outcome(&q).is_some()) {
                let v = tables.value(&q).unwrap();
                assert_eq!(v.wdl() == retro_tables::Wdl::Win, q.side == winner, "{q:?}");
                let (next, left) = planner.next(&q, 200).unwrap().unwrap();
                assert_eq!(left, d - plies, "{q:?}");
                (last, q) = (q, next);
                plies += 1;
            }
            assert_eq!(plies, d, "{p:?}");
        }
    }
}
