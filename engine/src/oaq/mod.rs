//! Ô Ăn Quan, the Vietnamese mandarin-square mancala (RULES.md section 3): sowing, relays,
//! capture chains, refills, the end and the final collection.

pub mod notation;
pub mod position;
pub mod rules;

pub use position::{Move, Oaq, Position, Side, Turn};
pub use rules::OaqProfile;
