//! Rules and move generation for the games `retro` solves.
//!
//! One module per game family; the [`Game`] trait is what the solver and the CLI see.

// Every public item is documented (the guide asks for a line each).
#![warn(missing_docs)]

pub mod dara;
pub mod mill;
mod notation_error;
pub mod oaq;
mod rule_error;

pub use notation_error::{Excerpt, NotationError};
pub use rule_error::RuleError;

/// The two players. In Mill games White moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// The first player.
    White = 0,
    /// The second player.
    Black = 1,
}

impl Color {
    /// 0 for White, 1 for Black.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The opponent.
    #[inline]
    pub const fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// `"white"` or `"black"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

/// What the solver and the CLI need from a game: positions, moves, their text forms, the end.
pub trait Game: Sync {
    /// A position (small and `Copy`).
    type Position: Copy + Eq + std::hash::Hash + std::fmt::Debug + Send + Sync;
    /// A move, one ply.
    type Move: Copy + Eq + std::fmt::Debug + Send + Sync;

    /// The start position of the game.
    fn start(&self) -> Self::Position;
    /// Every legal move with the position it leads to; empty when the game is over.
    fn moves(&self, pos: &Self::Position, out: &mut Vec<(Self::Move, Self::Position)>);
    /// Whether the game is over, and if so which player (0 or 1) won, or `None` for a draw.
    fn result(&self, pos: &Self::Position) -> Option<Option<usize>>;
    /// Parses the game's position text.
    fn parse_position(&self, text: &str) -> Result<Self::Position, NotationError>;
    /// Writes the game's position text.
    fn format_position(&self, pos: &Self::Position) -> String;
    /// Parses a move and checks that it is legal in `pos`.
    fn parse_move(&self, pos: &Self::Position, text: &str) -> Result<Self::Move, NotationError>;
    /// Writes a move in the game's notation.
    fn format_move(&self, mv: &Self::Move) -> String;
}
