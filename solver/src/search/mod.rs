//! What the three games' searches share.

pub mod common;
