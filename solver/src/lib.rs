//! Retrograde analysis of Mill games into memory-mapped tables, and probing them.

pub mod dara_search;
pub mod db;
pub mod index;
pub mod mill_gen;
pub mod mill_removal;
pub mod mill_search;
pub mod oaq_big;
pub mod oaq_big_checkpoint;
pub mod oaq_checkpoint;
pub mod oaq_compact;
pub mod oaq_index;
pub mod oaq_search;
pub mod oaq_solve;
pub mod oaq_table;
pub mod ranked_bits;
pub mod resources;
pub mod retro;
pub mod rules;
pub mod search_common;
pub mod sector;
pub mod solve;
pub mod table;
#[cfg(test)]
mod test_positions;
pub mod value;
