//! Probing an Ô Ăn Quan table by position: the position's slot in the dense or canonical index,
//! then the value the table stores there (the format is `retro_tables::oaq_table`).

use crate::oaq::canon::canonical_slot;
use crate::oaq::index::OaqIndex;
use retro_engine::oaq::{Oaq, Position};
use retro_tables::oaq_table::{OaqTable, ENCODING_OAQ_COMPACT, UNREACHABLE};
use retro_tables::TableError;

/// Values of positions from an Ô Ăn Quan table.
pub trait OaqProbe {
    /// The value of a position for the side to move (`None`: not a position of this game (its
    /// seeds, board and stores, are not the profile's total), or not reachable from its start;
    /// a compact table also answers for a position whose mirror is reachable). An error when
    /// the part of the table read fails its check.
    fn value(&self, g: &Oaq, idx: &OaqIndex, p: &Position) -> Result<Option<i16>, TableError>;
}

impl OaqProbe for OaqTable {
    fn value(&self, g: &Oaq, idx: &OaqIndex, p: &Position) -> Result<Option<i16>, TableError> {
        let seeds = g.seeds_in_game(p);
        let s = g.start();
        let start_like = p.cells == s.cells && p.big == s.big && p.side == s.side;
        let big_ok = g.profile.big_mandarin.is_some() || p.big == [false, false];
        if seeds != g.profile.total_seeds() as i32 || (p.first && !start_like) || !big_ok {
            return Ok(None);
        }
        if idx.size() != self.header.slots {
            return Ok(None);
        }
        match self.header.encoding {
            ENCODING_OAQ_COMPACT => self.compact_value(canonical_slot(idx, p)),
            _ => Ok(self.code(idx.rank(p))?.filter(|&v| v != UNREACHABLE)),
        }
    }
}
