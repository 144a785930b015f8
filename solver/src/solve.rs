//! Solving a set of sectors with everything they depend on, resuming from verified tables.

use crate::db::{Db, ProbeError};
use crate::retro::{count, solve_unit, Counts, Progress};
use crate::rules::SectorRules;
use crate::sector::{plan, SectorKey};
use crate::table::{self, Header, TableError};
use std::time::Instant;

/// What happened to one sector.
#[derive(Clone, Debug)]
pub struct SectorReport {
    /// The sector.
    pub key: SectorKey,
    /// Value counts.
    pub counts: Counts,
    /// Slots in the table (positions plus wasted slots).
    pub slots: u64,
    /// Seconds spent solving its unit (0 when an existing table was kept).
    pub seconds: f64,
    /// Whether an existing, verified table was kept.
    pub reused: bool,
}

/// Why a solve failed.
#[derive(Debug)]
pub enum SolveError {
    /// The rules cannot be solved by this solver.
    Unsupported(String),
    /// A table could not be read or written.
    Table(TableError),
    /// A dependency could not be probed.
    Probe(ProbeError),
    /// Not enough memory or disk for the next unit.
    Resources(String),
}

impl std::fmt::Display for SolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolveError::Unsupported(m) => write!(f, "cannot solve these rules: {m}"),
            SolveError::Table(e) => write!(f, "{e}"),
            SolveError::Probe(e) => write!(f, "{e}"),
            SolveError::Resources(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for SolveError {}

/// Events of a running solve, for progress display.
pub trait SolveObserver: Progress {
    /// A unit starts: its sectors and total slots; `index`/`total` count units.
    fn unit_start(&self, unit: &[SectorKey], slots: u64, index: usize, total: usize);
    /// A sector is done.
    fn sector_done(&self, report: &SectorReport);
}

impl SolveObserver for () {
    fn unit_start(&self, _: &[SectorKey], _: u64, _: usize, _: usize) {}
    fn sector_done(&self, _: &SectorReport) {}
}

/// Refuses, with the numbers, a unit that the machine's free memory or disk cannot hold.
fn check_resources<R: SectorRules>(
    db: &Db<R>,
    unit: &[SectorKey],
    slots: u64,
) -> Result<(), SolveError> {
    use crate::resources::{available_memory, free_disk, human};
    // Values, counters and longest-loss entries while solving (5 bytes a slot), plus room for
    // the frontier lists; tables take 2 bytes a slot on disk.
    let memory = slots * 5 + slots;
    let disk = slots * 2 + 4096 * unit.len() as u64;
    if let Some(avail) = available_memory() {
        if memory > avail {
            return Err(SolveError::Resources(format!(
                "sector {} needs about {} of memory, {} is available",
                unit.iter()
                    .map(|k| k.to_string())
                    .collect::<Vec<_>>()
                    .join("+"),
                human(memory),
                human(avail)
            )));
        }
    }
    if let Some(free) = free_disk(&db.folder) {
        if disk > free {
            return Err(SolveError::Resources(format!(
                "sector {} needs about {} of disk in {}, {} is free",
                unit.iter()
                    .map(|k| k.to_string())
                    .collect::<Vec<_>>()
                    .join("+"),
                human(disk),
                db.folder.display(),
                human(free)
            )));
        }
    }
    Ok(())
}

/// Solves `targets` and every sector they depend on, in dependency order. Sectors whose tables
/// exist and verify are kept; others (missing, truncated, stale, other rules) are rebuilt.
pub fn solve<R: SectorRules>(
    db: &Db<R>,
    targets: &[SectorKey],
    observer: &dyn SolveObserver,
) -> Result<Vec<SectorReport>, SolveError> {
    if let Some(why) = db.rules.unsupported() {
        return Err(SolveError::Unsupported(why));
    }
    let units = plan(&db.rules, targets);
    // Fail now, not after solving a unit, if the tables cannot be written.
    let probe = db.folder.join(".write-test");
    std::fs::create_dir_all(&db.folder)
        .and_then(|_| std::fs::write(&probe, b"ok"))
        .and_then(|_| std::fs::remove_file(&probe))
        .map_err(|e| SolveError::Table(TableError::Io(db.folder.clone(), e)))?;
    let mut reports = Vec::new();
    let total = units.len();
    for (i, unit) in units.iter().enumerate() {
        let existing: Vec<Option<Header>> = unit
            .iter()
            .map(|&k| db.open_checked(k).ok().map(|t| t.header))
            .collect();
        if existing.iter().all(Option::is_some) {
            for h in existing.into_iter().flatten() {
                let r = SectorReport {
                    key: h.sector,
                    counts: Counts {
                        positions: h.wins + h.draws + h.losses,
                        wins: h.wins,
                        draws: h.draws,
                        losses: h.losses,
                        longest_win: h.longest_win,
                    },
                    slots: h.slots,
                    seconds: 0.0,
                    reused: true,
                };
                observer.sector_done(&r);
                reports.push(r);
            }
            continue;
        }
        let slots: u64 = unit
            .iter()
            .map(|k| {
                crate::index::BoardIndex::new(db.rules.shape(), k.w as usize, k.b as usize).size()
            })
            .sum();
        check_resources(db, unit, slots)?;
        observer.unit_start(unit, slots, i, total);
        let start = Instant::now();
        let solved = solve_unit(db, unit, observer).map_err(SolveError::Probe)?;
        let seconds = start.elapsed().as_secs_f64();
        for (key, values) in solved {
            let header = Header::from_values(db.rules.game_id(), db.fingerprint(), key, &values);
            table::write(&db.path(key), &header, &values).map_err(SolveError::Table)?;
            db.forget(key);
            let r = SectorReport {
                key,
                counts: count(&values),
                slots: values.len() as u64,
                seconds,
                reused: false,
            };
            observer.sector_done(&r);
            reports.push(r);
        }
    }
    Ok(reports)
}
