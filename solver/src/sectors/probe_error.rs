//! Why a position could not be probed: the error of every table read of the solver.

use retro_tables::value::MAX_STORED_DISTANCE;
use retro_tables::{SectorKey, TableError};
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// Why a position could not be probed.
#[derive(Clone, Debug)]
pub enum ProbeError {
    /// The sector's table is not in the directory.
    Missing {
        /// The sector.
        sector: SectorKey,
        /// Where it was looked for.
        path: PathBuf,
    },
    /// The table exists but cannot be used (unreadable, damaged, built for other rules); kept
    /// once per sector by a [`Db`](crate::sectors::db::Db), so shared.
    Table(Arc<TableError>),
    /// The position has a removal pending: tables hold positions at the start of a ply.
    RemovalPending,
    /// The solver cannot build the sector's table under these rules.
    Unsupported {
        /// The sector.
        sector: SectorKey,
        /// Why.
        why: String,
    },
    /// A move leads into a sector for which no table was opened (a solver invariant broken).
    NotOpened {
        /// The sector.
        sector: SectorKey,
    },
    /// A move leads to a slot of a dependency's table that holds no position (the table does
    /// not match its index: damaged or foreign).
    NoValue {
        /// The dependency's sector.
        sector: SectorKey,
        /// The slot.
        slot: u64,
    },
    /// A distance beyond what a table may store.
    TooLong {
        /// The distance in plies.
        plies: u16,
    },
}

impl ProbeError {
    /// Whether a distance was asked of a win/draw/loss table (`--wdl-only`).
    pub fn no_distances(&self) -> bool {
        matches!(self, ProbeError::Table(e) if matches!(**e, TableError::NoDistances(_)))
    }
}

impl From<TableError> for ProbeError {
    fn from(e: TableError) -> ProbeError {
        ProbeError::Table(Arc::new(e))
    }
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProbeError::Missing { sector, path } => {
                write!(
                    f,
                    "no table for sector {sector} (looked for {})",
                    path.display()
                )
            }
            ProbeError::Table(e) => write!(f, "{e}"),
            ProbeError::RemovalPending => f.write_str(
                "tables hold positions at the start of a ply; play the pending removal first",
            ),
            ProbeError::Unsupported { sector, why } => {
                write!(
                    f,
                    "no table can be built for sector {sector} under these rules: {why}"
                )
            }
            ProbeError::NotOpened { sector } => write!(f, "no table opened for sector {sector}"),
            ProbeError::NoValue { sector, slot } => write!(
                f,
                "the table of sector {sector} has no value at slot {slot} (damaged or foreign)"
            ),
            ProbeError::TooLong { plies } => write!(
                f,
                "a distance of {plies} plies is beyond the {MAX_STORED_DISTANCE} a table may store"
            ),
        }
    }
}

impl std::error::Error for ProbeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProbeError::Table(e) => Some(&**e),
            _ => None,
        }
    }
}
