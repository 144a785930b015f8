//! The referee of Ô Ăn Quan games: legality, the end by the rules, threefold repetition and
//! the N-move rule.

use crate::referee::{Ended, Referee};
use retro_engine::oaq::{self, Oaq, Side};
use serde_json::{json, Value as Json};

/// An Ô Ăn Quan game with its N-move rule (plies without a capture or a refill; 0: off).
pub struct OaqReferee {
    /// The game.
    pub game: Oaq,
    /// The N-move rule.
    pub n_move_rule: u32,
}

impl OaqReferee {
    /// The stores when the game ends here: after the final collection when the rules end it,
    /// as they stand when a play rule does (the board's seeds go to nobody: no future gains,
    /// as for endless play in RULES.md 3.9).
    pub fn final_stores(&self, p: &oaq::Position, why: &Ended) -> [i16; 2] {
        match (why, self.game.outcome(p)) {
            (Ended::Rules(_), Some(f)) => f.stores,
            _ => p.stores,
        }
    }
}

impl Referee for OaqReferee {
    type Pos = oaq::Position;
    type Key = oaq::Position;

    fn fen(&self, p: &oaq::Position) -> String {
        self.game.format_position(p)
    }

    fn diagram(&self, p: &oaq::Position) -> String {
        self.game.diagram(p)
    }

    fn side(&self, p: &oaq::Position) -> &'static str {
        p.side.name()
    }

    fn side_names(&self) -> [&'static str; 2] {
        ["south", "north"]
    }

    fn apply(
        &self,
        p: &oaq::Position,
        text: &str,
    ) -> Result<(String, oaq::Position, bool), String> {
        let (mv, turn) = self.game.parse_move(p, text).map_err(|e| e.to_string())?;
        let reset = turn.captured > 0 || turn.refilled;
        Ok((self.game.format_move(&mv), turn.position, reset))
    }

    fn legal(&self, p: &oaq::Position) -> Vec<String> {
        let mut list = Vec::new();
        self.game.moves(p, &mut list);
        list.iter().map(|(m, _)| self.game.format_move(m)).collect()
    }

    fn end_by_rules(&self, p: &oaq::Position) -> Option<String> {
        self.game.outcome(p).map(|f| {
            let who = match f.winner {
                Some(s) => format!("{} wins", s.name()),
                None => "a draw".to_string(),
            };
            format!("{who}, south {} north {}", f.stores[0], f.stores[1])
        })
    }

    /// Cells, big pieces, side to move, stores and the first-ply flag: the whole position.
    fn key(&self, p: &oaq::Position) -> oaq::Position {
        *p
    }

    fn n_move_rule(&self) -> u32 {
        self.n_move_rule
    }

    fn progress(&self) -> &'static str {
        "a capture or a refill"
    }

    fn final_result(&self, p: &oaq::Position, why: &Ended) -> Json {
        let stores = self.final_stores(p, why);
        let s = p.side.index();
        let score = (stores[s] - p.stores[s]) - (stores[1 - s] - p.stores[1 - s]);
        let winner = match stores[0].cmp(&stores[1]) {
            std::cmp::Ordering::Greater => Some(Side::South.name()),
            std::cmp::Ordering::Less => Some(Side::North.name()),
            std::cmp::Ordering::Equal => None,
        };
        json!({"score": score, "proven": true, "final_stores": {"south": stores[0], "north": stores[1]}, "winner": winner})
    }
}
