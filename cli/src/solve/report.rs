//! What a solve's report adds up to over its sectors.

use super::*;

/// What a solve's report adds up to over its sectors (those it solved and those it kept).
pub(super) struct Totals {
    pub(super) positions: u64,
    pub(super) wins: u64,
    pub(super) draws: u64,
    pub(super) losses: u64,
    /// Positions of sectors with stones in hand.
    pub(super) placing: u64,
    /// The longest win and its sector (the first of the longest).
    pub(super) longest: (u16, Option<SectorKey>),
    /// Bytes of the table files in the folder (raw, compressed and derived).
    pub(super) bytes: u64,
}

impl Totals {
    /// The totals of `reports`, and the bytes of the table files in `folder`.
    pub(super) fn of(
        reports: &[retro_solver::sectors::solve::SectorReport],
        folder: &std::path::Path,
    ) -> Self {
        let mut t = Totals {
            positions: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            placing: 0,
            longest: (0, None),
            bytes: table_bytes(folder),
        };
        for r in reports {
            let c = &r.counts;
            t.positions += c.positions;
            t.wins += c.wins;
            t.draws += c.draws;
            t.losses += c.losses;
            if r.key.wf > 0 || r.key.bf > 0 {
                t.placing += c.positions;
            }
            if t.longest.1.is_none() || c.longest_win > t.longest.0 {
                t.longest = (c.longest_win, Some(r.key));
            }
        }
        t
    }
}

/// Bytes of the table files in `folder` (those `retro verify` reads, but for the `.tmp` files
/// of interrupted writes; 0 if it cannot be read).
pub(super) fn table_bytes(folder: &std::path::Path) -> u64 {
    retro_tables::verify::table_files(folder)
        .unwrap_or_default()
        .iter()
        .filter(|p| p.extension().is_none_or(|e| e != "tmp"))
        .filter_map(|p| p.metadata().ok())
        .map(|m| m.len())
        .sum()
}
