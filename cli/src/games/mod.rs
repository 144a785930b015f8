//! Per-game setup shared by the commands.

pub mod dara;
pub mod mill;
pub mod oaq;
