//! The referee of Dara games: legality, the end by the rules, threefold repetition and the
//! N-move rule.

use crate::referee::{Ended, Referee};
use retro_engine::dara::{self, Dara};
use serde_json::Value as Json;

/// A Dara game with its N-move rule (plies without a drop or a removal; 0: off).
pub struct DaraReferee {
    /// The game.
    pub game: Dara,
    /// The N-move rule.
    pub n_move_rule: u32,
}

impl Referee for DaraReferee {
    type Pos = dara::Position;
    type Key = dara::Position;

    fn fen(&self, p: &dara::Position) -> String {
        self.game.format_position(p)
    }

    fn diagram(&self, p: &dara::Position) -> String {
        self.game.diagram(p)
    }

    fn side(&self, p: &dara::Position) -> &'static str {
        p.side.name()
    }

    fn side_names(&self) -> [&'static str; 2] {
        ["white", "black"]
    }

    fn apply(
        &self,
        p: &dara::Position,
        text: &str,
    ) -> Result<(String, dara::Position, bool), String> {
        let (mv, q) = self.game.parse_move(p, text).map_err(|e| e.to_string())?;
        let reset = mv.from == dara::NONE || mv.removed != dara::NONE;
        Ok((self.game.format_move(&mv), q, reset))
    }

    fn legal(&self, p: &dara::Position) -> Vec<String> {
        let mut list = Vec::new();
        self.game.moves(p, &mut list);
        let mut out: Vec<String> = list.iter().map(|(m, _)| self.game.format_move(m)).collect();
        out.sort();
        out
    }

    fn end_by_rules(&self, p: &dara::Position) -> Option<String> {
        self.game
            .outcome(p)
            .map(|(loser, why)| format!("{} wins ({})", loser.other().name(), why.describe()))
    }

    /// Board, stones in hand and side to move: the whole position.
    fn key(&self, p: &dara::Position) -> dara::Position {
        *p
    }

    fn n_move_rule(&self) -> u32 {
        self.n_move_rule
    }

    fn progress(&self) -> &'static str {
        "a drop or a removal"
    }

    fn final_result(&self, p: &dara::Position, why: &Ended) -> Json {
        let over = self
            .game
            .outcome(p)
            .filter(|_| matches!(why, Ended::Rules(_)));
        crate::referee::win_loss_result(p.side, over.map(|(loser, _)| loser))
    }
}
