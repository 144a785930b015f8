//! Nine Men's Morris and its family: one rule profile, bitboard move generation, notation.

pub mod geometry;
pub mod notation;
pub mod perft;
pub mod position;
pub mod rules;

pub use geometry::{Bits, Board, Geometry};
pub use position::{EndReason, GameOver, Mill, Move, Position, Step, StepList, NO_POINT};
pub use rules::{BoardFull, MillAction, Profile, Stalemate, PRESETS};

use crate::{Game, NotationError};

impl Game for Mill {
    type Position = Position;
    type Move = Move;

    fn start(&self) -> Position {
        Mill::start(self)
    }

    fn moves(&self, pos: &Position, out: &mut Vec<(Move, Position)>) {
        Mill::moves(self, pos, out)
    }

    fn result(&self, pos: &Position) -> Option<Option<usize>> {
        self.outcome(pos)
            .map(|o| o.loser.map(|l| l.other().index()))
    }

    fn parse_position(&self, text: &str) -> Result<Position, NotationError> {
        self.parse_fen(text)
    }

    fn format_position(&self, pos: &Position) -> String {
        self.format_fen(pos)
    }

    fn parse_move(&self, pos: &Position, text: &str) -> Result<Move, NotationError> {
        Mill::parse_move(self, pos, text)
    }

    fn format_move(&self, mv: &Move) -> String {
        Mill::format_move(self, mv)
    }
}
