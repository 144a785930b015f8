//! Probing Mill tables by engine position.

use crate::mill::rules::MillRules;
use crate::sectors::db::{Db, ProbeError};
use crate::sectors::folded::Folded;
use retro_engine::mill::{Mill, Position};
use retro_tables::Value;
use std::path::Path;

impl Db<MillRules> {
    /// The Mill tables of `game` under `dir`.
    pub fn new(game: Mill, dir: &Path) -> Db<MillRules> {
        Db::with_rules(MillRules::new(game), dir)
    }

    /// The Mill game.
    pub fn game(&self) -> &Mill {
        &self.rules.game
    }

    /// The value of an engine position for its side to move.
    pub fn value(&self, pos: &Position) -> Result<Value, ProbeError> {
        if let Some(over) = self.game().outcome(pos) {
            return Ok(if over.loser == pos.side {
                Value::Loss(0)
            } else {
                Value::Win(0)
            });
        }
        if pos.pending != [0, 0] || pos.marked != 0 || pos.stalemate_removal {
            return Err(ProbeError::RemovalPending);
        }
        self.value_folded(&Folded::from_position(pos))
    }
}
