//! The error type of every position and move parser.

use std::fmt;

/// A position text or a move that could not be read, or a move that is not legal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotationError {
    /// The position text has the wrong number of fields.
    FieldCount {
        /// What was found.
        found: usize,
        /// What is accepted, e.g. "17 or 12".
        expected: &'static str,
    },
    /// One field of a position text is malformed.
    Field {
        /// The field's name, e.g. "side to move".
        field: &'static str,
        /// The text found.
        value: String,
        /// What is wrong.
        reason: String,
    },
    /// The fields are well-formed but contradict each other or the rules.
    Inconsistent(String),
    /// A move that is not written in the game's notation.
    MoveSyntax {
        /// The move text.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// A well-formed move that is not legal in the position.
    IllegalMove {
        /// The move text.
        text: String,
        /// Why it is not legal.
        reason: String,
    },
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotationError::FieldCount { found, expected } => {
                write!(f, "position has {found} fields, expected {expected}")
            }
            NotationError::Field {
                field,
                value,
                reason,
            } => {
                write!(f, "bad {field} field '{}': {reason}", short(value))
            }
            NotationError::Inconsistent(msg) => write!(f, "inconsistent position: {msg}"),
            NotationError::MoveSyntax { text, reason } => {
                write!(f, "cannot read move '{}': {reason}", short(text))
            }
            NotationError::IllegalMove { text, reason } => {
                write!(f, "illegal move '{}': {reason}", short(text))
            }
        }
    }
}

/// A text from the input as an error shows it: its first `.1` characters, and its length when
/// cut (a mistyped megabyte is not worth echoing).
pub struct Excerpt<'a>(pub &'a str, pub usize);

impl fmt::Display for Excerpt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(self.1) {
            Some((at, _)) => write!(f, "{}... ({} bytes)", &self.0[..at], self.0.len()),
            None => f.write_str(self.0),
        }
    }
}

/// A field or a move of a position text, as an error quotes it.
fn short(text: &str) -> Excerpt<'_> {
    Excerpt(text, 100)
}

impl std::error::Error for NotationError {}
