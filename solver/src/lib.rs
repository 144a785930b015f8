//! Retrograde analysis of the three game families into tables, and the searches that use them.
//!
//! - [`sectors`]: the generic sector solver (Mill and Dara): positions indexed by material
//!   (sectors), retrograde analysis of a unit, the driver that solves sectors in order and
//!   resumes, and probing the tables by position.
//! - [`mill`], [`dara`]: each game's glue for the sector solver (rules adapter, move generator)
//!   and its search.
//! - [`oaq`]: Ô Ăn Quan, a score game with cycles: its index, the two score solvers, their
//!   checkpoints, the compact table writer and probing by position.
//! - [`search`]: what the three games' searches share.
//!
//! The table formats themselves are the `retro_tables` crate.

// Every public item is documented (the guide asks for a line each).
#![warn(missing_docs)]

pub mod dara;
pub mod mill;
pub mod oaq;
pub mod search;
pub mod sectors;
