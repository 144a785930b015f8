//! Mill game records: a start position plus moves, played with full legality checks and the
//! play rules the solved values ignore (threefold repetition, the N-move rule), and annotated
//! ply by ply from the tables.

use crate::referee::{Ended, Referee};
use retro_engine::mill::{Mill, Position};
use retro_engine::Color;
use retro_solver::mill::removal::{removal_planner, RemovalPlanner};
use retro_solver::mill::Db;
use retro_solver::sectors::db::ProbeError;
use retro_tables::value::{Value, Wdl};
use serde_json::{json, Value as Json};

/// The Mill referee: compound moves, the reference app's rule50 counter.
impl Referee for Mill {
    type Pos = Position;
    type Key = (u32, u32, u32, [u32; 2], u8, u8, Color, i8, i8, bool, bool);

    fn fen(&self, p: &Position) -> String {
        self.format_fen(p)
    }

    fn diagram(&self, p: &Position) -> String {
        Mill::diagram(self, p)
    }

    fn side(&self, p: &Position) -> &'static str {
        p.side.name()
    }

    fn side_names(&self) -> [&'static str; 2] {
        ["white", "black"]
    }

    fn apply(&self, p: &Position, text: &str) -> Result<(String, Position, bool), String> {
        let mv = self.parse_move(p, text).map_err(|e| e.to_string())?;
        let mut list = Vec::new();
        self.moves(p, &mut list);
        let q = list
            .iter()
            .find(|(x, _)| *x == mv)
            .map(|(_, q)| *q)
            .ok_or_else(|| "not legal".to_string())?;
        Ok((self.format_move(&mv), q, q.rule50 == 0))
    }

    fn legal(&self, p: &Position) -> Vec<String> {
        let mut list = Vec::new();
        self.moves(p, &mut list);
        let mut out: Vec<String> = list.iter().map(|(m, _)| self.format_move(m)).collect();
        out.sort();
        out
    }

    fn end_by_rules(&self, p: &Position) -> Option<String> {
        self.outcome(p).map(|o| {
            let why = self.describe_end(o.reason);
            match o.loser {
                Some(l) => format!("{} wins ({why})", l.other().name()),
                None => format!("a draw ({why})"),
            }
        })
    }

    /// Board, marked points, mills already scored (one-time-mill variants), side to move,
    /// stones in hand and any pending action.
    fn key(&self, p: &Position) -> Self::Key {
        (
            p.stones[0],
            p.stones[1],
            p.marked,
            p.formed,
            p.hand[0],
            p.hand[1],
            p.side,
            p.pending[0],
            p.pending[1],
            p.placing,
            p.stalemate_removal,
        )
    }

    fn n_move_rule(&self) -> u32 {
        self.profile.n_move_rule
    }

    fn progress(&self) -> &'static str {
        "a removal or placement"
    }

    fn initial_counter(&self, p: &Position) -> u32 {
        p.rule50 as u32
    }

    fn counter(&self, _before: u32, after: &Position, _reset: bool) -> u32 {
        after.rule50 as u32
    }

    fn final_result(&self, p: &Position, why: &Ended) -> Json {
        let over = self.outcome(p).filter(|_| matches!(why, Ended::Rules(_)));
        crate::referee::win_loss_result(p.side, over.and_then(|o| o.loser))
    }
}

/// Positions the distance-to-removal search may visit before it gives up.
pub const REMOVAL_NODES: u64 = 3_000_000;

/// The most plies the search for the next removal from `p` looks ahead: 200 past what the
/// N-move rule leaves (at least 1), or 400 without the rule.
fn removal_limit(db: &Db, p: &Position) -> u32 {
    let n = db.game().profile.n_move_rule;
    if n > 0 {
        n.saturating_sub(p.rule50 as u32).max(1) + 200
    } else {
        400
    }
}

/// For a won or lost position: `removal_in`, the plies within which the winner can force the
/// next removal (or placement, or the end) keeping the win, against the longest resistance
/// (null when the search gives up), and `cursed`, whether the N-move rule (the profile's
/// `n-move-rule` and the position's counter) draws the game first.
pub fn removal_fields(db: &Db, p: &Position, v: Wdl, out: &mut Json) -> Result<(), ProbeError> {
    use retro_solver::mill::removal::{plies_to_removal, RemovalError};
    let winner = match v {
        Wdl::Win => p.side,
        Wdl::Loss => p.side.other(),
        Wdl::Draw => return Ok(()),
    };
    if db.game().outcome(p).is_some() {
        return Ok(());
    }
    let n = db.game().profile.n_move_rule;
    let left = n.saturating_sub(p.rule50 as u32);
    match plies_to_removal(db, p, winner, removal_limit(db, p), REMOVAL_NODES) {
        Ok(d) => {
            out["removal_in"] = json!(d);
            out["cursed"] = match (n, d) {
                (0, _) => json!(false),
                (_, Some(d)) => json!(d > left),
                (_, None) => json!(true),
            };
        }
        Err(RemovalError::Budget) => {
            out["removal_in"] = Json::Null;
            out["cursed"] = Json::Null;
        }
        Err(RemovalError::Probe(e)) => return Err(e),
    }
    Ok(())
}

/// The move to play from `p` with tables that hold no distances (`--wdl-only`), whose
/// analysis `v` gives the result: see [`crate::referee::planned`]. With the reason, for the user;
/// `None` for a draw, or when the search gave up.
pub fn wdl_move<'a>(
    db: &'a Db,
    planners: &mut [Option<RemovalPlanner<'a>>; 2],
    p: &Position,
    v: &Json,
) -> Result<Option<(String, String)>, ProbeError> {
    let make = |winner| removal_planner(db, winner, REMOVAL_NODES);
    let limit = removal_limit(db, p);
    let Some((q, why)) = crate::referee::planned(planners, make, p, p.side, v, limit, "removal")?
    else {
        return Ok(None);
    };
    let m = db.game();
    let mut list = Vec::new();
    m.moves(p, &mut list);
    Ok(list
        .iter()
        .find(|(_, c)| *c == q)
        .map(|(mv, _)| (m.format_move(mv), why)))
}

/// The fastest winning move of `p` (won for its side to move) that still forces the next
/// removal before the N-move rule draws the game, each move's search given `nodes`. `None`:
/// keep the tables' best (the rule is off, no winning move escapes it, or the search gave up,
/// which `gave_up` is then set for).
pub fn move_beating_the_n_move_rule(
    db: &Db,
    p: &Position,
    nodes: u64,
    gave_up: &mut bool,
) -> Result<Option<String>, ProbeError> {
    use retro_solver::mill::probe::move_value;
    use retro_solver::mill::removal::{plies_to_removal, RemovalError};
    let m = db.game();
    let n = m.profile.n_move_rule;
    if n == 0 {
        return Ok(None);
    }
    let left = n.saturating_sub(p.rule50 as u32);
    let mut list = Vec::new();
    m.moves(p, &mut list);
    let mut wins = Vec::new();
    for (mv, q) in &list {
        if let v @ Value::Win(_) = move_value(db, p, q)? {
            wins.push((std::cmp::Reverse(v.preference()), m.format_move(mv), *q));
        }
    }
    // Fastest win first; ties in the move list's order, as the tables' best moves are.
    wins.sort_by_key(|w| w.0);
    // The fastest win ends the game within its distance: when that comes before the rule, no
    // removal is needed on the way and the tables' choice stands (no search).
    let fastest = wins.first().map(|w| Value::Win(0).preference() - w.0 .0);
    if fastest.is_none_or(|k| k <= left as i32) {
        return Ok(None);
    }
    for (_, text, q) in wins {
        let escapes = if q.rule50 == 0 || m.outcome(&q).is_some() {
            true
        } else if left <= 1 {
            false
        } else {
            match plies_to_removal(db, &q, p.side, left - 1, nodes) {
                Ok(d) => d.is_some(),
                Err(RemovalError::Budget) => {
                    *gave_up = true;
                    return Ok(None);
                }
                Err(RemovalError::Probe(e)) => return Err(e),
            }
        };
        if escapes {
            return Ok(Some(text));
        }
    }
    Ok(None)
}
