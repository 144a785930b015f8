//! Probing Mill tables by engine position.

use crate::mill::rules::MillRules;
use crate::sectors::db::{Db, ProbeError};
use crate::sectors::folded::Folded;
use crate::sectors::rules::SectorRules;
use retro_engine::mill::{GameOver, Mill, Position};
use retro_engine::Color;
use retro_tables::{Value, Wdl};
use std::path::Path;

/// The value for `side` of a game that is over, `plies` after it ended.
pub fn over_value(over: &GameOver, side: Color, plies: u16) -> Value {
    match over.won_by(side) {
        Some(true) => Value::Win(plies),
        Some(false) => Value::Loss(plies),
        None => Value::Draw,
    }
}

/// The value of a move for its mover (the game may end on it, with the mover still to move).
pub fn move_value(db: &Db<MillRules>, p: &Position, q: &Position) -> Result<Value, ProbeError> {
    if q.side == p.side {
        return Ok(match db.game().outcome(q) {
            Some(o) => over_value(&o, p.side, 1),
            // The mover moves again (after a stalemate removal).
            None => db.value(q)?.later(),
        });
    }
    Ok(db.value(q)?.parent())
}

/// [`move_value`] without the distance (`--wdl-only` tables answer it too).
pub fn move_wdl(db: &Db<MillRules>, p: &Position, q: &Position) -> Result<Wdl, ProbeError> {
    if q.side == p.side {
        return Ok(match db.game().outcome(q) {
            Some(o) => over_value(&o, p.side, 1).wdl(),
            None => db.wdl(q)?,
        });
    }
    Ok(db.wdl(q)?.parent())
}

impl Db<MillRules> {
    /// The Mill tables of `game` under `dir`.
    pub fn new(game: Mill, dir: &Path) -> Db<MillRules> {
        Db::with_rules(MillRules::new(game), dir)
    }

    /// The Mill game.
    pub fn game(&self) -> &Mill {
        &self.rules.game
    }

    /// The value of an engine position for its side to move. A position owing removals (a
    /// full board when placing ends, or a text stopped inside a ply) is valued by its removal
    /// plies, each a ply as the engine's compound moves count them.
    pub fn value(&self, pos: &Position) -> Result<Value, ProbeError> {
        match self.folded(pos) {
            Ok(Ok(f)) => self.value_marked(&f, pos.marked),
            Ok(Err(over)) => Ok(over),
            Err(ProbeError::RemovalPending) if self.marks_held(pos) => {
                let mut best: Option<Value> = None;
                for q in self.removal_plies(pos) {
                    let v = move_value(self, pos, &q)?;
                    if best.is_none_or(|b| v.preference() > b.preference()) {
                        best = Some(v);
                    }
                }
                Ok(best.unwrap_or(Value::Loss(0)))
            }
            Err(e) => Err(e),
        }
    }

    /// The win/draw/loss of an engine position for its side to move (`--wdl-only` tables
    /// answer it too).
    pub fn wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        match self.folded(pos) {
            Ok(Ok(f)) => self.wdl_marked(&f, pos.marked),
            Ok(Err(over)) => Ok(over.wdl()),
            Err(ProbeError::RemovalPending) if self.marks_held(pos) => {
                let mut best = Wdl::Loss;
                for q in self.removal_plies(pos) {
                    best = best.max(move_wdl(self, pos, &q)?);
                }
                Ok(best)
            }
            Err(e) => Err(e),
        }
    }

    /// Whether the tables hold `pos` as far as colours go: under rules where White and Black
    /// differ (defender-first, removals on a full board) the tables take the side to move
    /// while placing from the hands, White placing first.
    pub fn colours_held(&self, pos: &Position) -> bool {
        let p = &self.game().profile;
        let colours = p.defender_first
            || p.board_full.removes()
            || p.mill_action == retro_engine::mill::MillAction::MillCounts;
        let (s, o) = (pos.side.index(), pos.side.other().index());
        !(colours && pos.placing && pos.hand[s] != pos.hand[o] + s as u8)
    }

    /// Whether the tables can hold a position's marked points: it has none, or its sector's
    /// index has them ([`SectorRules::marked_points`]).
    fn marks_held(&self, pos: &Position) -> bool {
        pos.marked == 0
            || self
                .rules
                .marked_points(Folded::from_position(pos).key())
                .is_some()
    }

    /// The positions after each ply of a position owing removals.
    fn removal_plies(&self, pos: &Position) -> Vec<Position> {
        let mut moves = Vec::new();
        self.game().moves(pos, &mut moves);
        moves.into_iter().map(|(_, q)| q).collect()
    }

    /// The position folded for a probe, or the value of a game that is over.
    fn folded(&self, pos: &Position) -> Result<Result<Folded, Value>, ProbeError> {
        if let Some(over) = self.game().outcome(pos) {
            return Ok(Err(over_value(&over, pos.side, 0)));
        }
        // A stalemate removal owed is where the blocked side's ply starts: the tables hold it
        // (its moves are the removals).
        let mut stalemate = [0, 0];
        stalemate[pos.side.index()] = 1;
        let owed_stalemate = pos.stalemate_removal && pos.pending == stalemate;
        // Where placing has just ended under mill counts, White owing what they give, is a
        // sector of its own, and nothing else has its material.
        let f = Folded::from_position(pos);
        if crate::mill::sectors::placing_ended(&self.game().profile, f.key()) {
            if pos.side == Color::White && f.to_position(self.game()).pending == pos.pending {
                return Ok(Ok(f));
            }
            return Err(ProbeError::Unsupported {
                sector: f.key(),
                why: "under mill counts, every stone on the board is where placing ends: the \
                      tables hold it with White to act, owing the removals the mill counts give"
                    .into(),
            });
        }
        if (pos.pending != [0, 0] && !owed_stalemate) || !self.marks_held(pos) {
            return Err(ProbeError::RemovalPending);
        }
        if !self.colours_held(pos) {
            // The tables take the side to move while placing from the hands.
            return Err(ProbeError::Unsupported {
                sector: Folded::from_position(pos).key(),
                why: "under these rules the tables hold only positions where White places \
                      first: White to move with as many stones in hand as Black, Black with one \
                      more than White"
                    .into(),
            });
        }
        Ok(Ok(f))
    }
}
