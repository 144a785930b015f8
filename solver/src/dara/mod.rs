//! Dara in the solver: the movement phase for the sector solver, and the search.

pub mod progress;
pub mod rules;
pub mod search;
