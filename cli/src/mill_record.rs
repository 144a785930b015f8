//! Mill game records: a start position plus moves, played with full legality checks and the
//! play rules the solved values ignore (threefold repetition, the N-move rule), and annotated
//! ply by ply from the tables.

use crate::referee::{Ended, Record, Referee};
use retro_engine::mill::{Mill, Position};
use retro_engine::Color;
use retro_solver::db::{Db, ProbeError};
use retro_solver::value::Value;
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
        self.outcome(p)
            .map(|o| format!("{} wins ({:?})", o.loser.other().name(), o.reason))
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
        crate::referee::win_loss_result(p.side, over.map(|o| o.loser))
    }
}

/// A value as JSON: `{"result", "plies"}`.
fn value_json(v: Value) -> Json {
    json!({"result": v.result(), "plies": v.plies()})
}

/// Rank of a result for the mover: 2 win, 1 draw, 0 loss.
fn class(v: Value) -> u8 {
    match v {
        Value::Win(_) => 2,
        Value::Draw => 1,
        Value::Loss(_) => 0,
    }
}

/// One line per ply: the value before it (side to move), the value of the move played (for the
/// mover), and whether the move changed the game-theoretic result. Plies whose positions no
/// table holds get `null` values.
pub fn annotate(
    db: &Db,
    played: &Record<Mill>,
    move_value: &dyn Fn(&Db, &Position, &Position) -> Result<Value, ProbeError>,
) -> Vec<Json> {
    let m = db.game();
    let mut out = Vec::new();
    for (i, text) in played.moves.iter().enumerate() {
        let (p, q) = (&played.positions[i], &played.positions[i + 1]);
        let before = db.value(p).ok();
        let after = move_value(db, p, q).ok();
        let change = match (before, after) {
            (Some(b), Some(a)) if class(a) < class(b) => Some(match (b, a) {
                (Value::Win(_), Value::Draw) => "win thrown away: now a draw",
                (Value::Win(_), _) => "win thrown away: now a loss",
                _ => "draw thrown away: now a loss",
            }),
            _ => None,
        };
        out.push(json!({
            "ply": i + 1,
            "side": p.side.name(),
            "move": text,
            "before": before.map(value_json),
            "after": after.map(value_json),
            "changes_result": change,
            "fen_after": m.format_fen(q),
        }));
    }
    out
}
