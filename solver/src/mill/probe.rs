//! Probing Mill tables by engine position.

use crate::mill::rules::MillRules;
use crate::sectors::db::{Db, ProbeError};
use crate::sectors::folded::Folded;
use retro_engine::mill::{Mill, Position};
use retro_tables::{Value, Wdl};
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
        match self.folded(pos)? {
            Ok(f) => self.value_folded(&f),
            Err(over) => Ok(over),
        }
    }

    /// The win/draw/loss of an engine position for its side to move (`--wdl-only` tables
    /// answer it too).
    pub fn wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        match self.folded(pos)? {
            Ok(f) => self.wdl_folded(&f),
            Err(over) => Ok(over.wdl()),
        }
    }

    /// The position folded for a probe, or the value of a game that is over.
    fn folded(&self, pos: &Position) -> Result<Result<Folded, Value>, ProbeError> {
        if let Some(over) = self.game().outcome(pos) {
            return Ok(Err(match over.won_by(pos.side) {
                Some(true) => Value::Win(0),
                Some(false) => Value::Loss(0),
                None => Value::Draw,
            }));
        }
        // A stalemate removal owed is where the blocked side's ply starts: the tables hold it
        // (its moves are the removals).
        let mut stalemate = [0, 0];
        stalemate[pos.side.index()] = 1;
        let owed_stalemate = pos.stalemate_removal && pos.pending == stalemate;
        if (pos.pending != [0, 0] && !owed_stalemate) || pos.marked != 0 {
            return Err(ProbeError::RemovalPending);
        }
        Ok(Ok(Folded::from_position(pos)))
    }
}
