//! The CLI's error: a message and an exit code.

use std::fmt::Display;

/// An error to report on stderr, with the process exit code.
#[derive(Debug)]
pub struct CliError {
    /// The message (without the `error: ` prefix).
    pub message: String,
    /// The exit code: 2 for bad input, 1 for other failures.
    pub code: u8,
}

impl CliError {
    /// Bad input from the user (exit code 2).
    pub fn input(e: impl Display) -> CliError {
        CliError {
            message: e.to_string(),
            code: 2,
        }
    }

    /// Any other failure (exit code 1).
    pub fn other(e: impl Display) -> CliError {
        CliError {
            message: e.to_string(),
            code: 1,
        }
    }
}
