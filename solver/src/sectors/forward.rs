//! Sectors valued forwards: each position from the values its moves reach in tables solved
//! before it. For sectors whose positions carry state the retrograde solver's positions do not
//! (Mill's marked points while placing, where every move leaves the sector, so no position
//! of the sector depends on another of it).

use crate::sectors::db::{Db, ProbeError};
use crate::sectors::retro::Progress;
use crate::sectors::rules::SectorRules;
use retro_tables::SectorKey;

/// Rules some of whose sectors are valued forwards.
pub trait Forward: SectorRules + Sized {
    /// The value codes of every slot of sector `k` (wasted slots marked), reading the tables
    /// of the sectors its moves lead to through `db`; `None` when the retrograde solver values
    /// the sector. `progress` hears of the slots as they are valued.
    fn forward_values(
        _db: &Db<Self>,
        _k: SectorKey,
        _progress: &dyn Progress,
    ) -> Option<Result<Vec<u16>, ProbeError>> {
        None
    }
}
