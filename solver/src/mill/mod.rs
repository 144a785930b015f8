//! Mill games in the solver: the rules adapter and move generator for the sector solver, the
//! sectors of a rule profile, the distance to the next removal, and the search.

pub mod closure;
pub mod forward;
pub mod gen;
pub mod history;
pub mod probe;
pub mod removal;
pub mod rules;
pub mod search;
pub mod sectors;
#[cfg(test)]
mod test_positions;
pub mod unmoves;

/// The tables of one Mill rule profile (the sector solver's probe, for Mill).
pub type Db = crate::sectors::db::Db<rules::MillRules>;
