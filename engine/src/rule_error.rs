//! The error type of every rule profile: an unknown preset or a bad `field=value` setting.

use std::fmt;

/// Error for an unknown preset or a bad `field=value` setting (Mill, Dara and Ô Ăn Quan).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleError(pub String);

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RuleError {}
