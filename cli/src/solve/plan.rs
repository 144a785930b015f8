//! What a solve will cost: slots, memory, disk and a rough time, for dry runs and for the
//! errors that name a solve.

use retro_solver::sectors::db::Db as SectorDb;
use retro_solver::sectors::rules::SectorRules;
use retro_solver::sectors::sector::SectorKey;

use retro_solver::sectors::derive::derivable;
use retro_solver::sectors::resources::human;
use retro_solver::sectors::sector::{disk_peak, disk_use, DiskUse, Unit};
use retro_solver::sectors::solve::SOLVE_BYTES_PER_SLOT;

/// What solving a set of target sectors takes: the `--dry-run` figures.
pub struct PlanFigures {
    /// Sectors to solve (targets and everything they depend on).
    pub sectors: usize,
    /// Units (a sector and its colour-swapped twin solved together).
    pub units: usize,
    /// Tables already on disk.
    pub existing: usize,
    /// Slots in all.
    pub slots: u64,
    /// Slots of sectors with stones in hand.
    pub placing: u64,
    /// Slots of the largest unit.
    pub largest: u64,
    /// Slots of the units with a table not there yet (solved whole), and how many they are.
    pub left: (u64, usize),
    /// Per sector: its key, slots and whether its table exists.
    pub rows: Vec<(SectorKey, u64, bool)>,
    /// Raw table bytes on disk at the peak of a `--compress` solve (tables still read by
    /// units to come, plus the unit being written).
    pub raw_peak: u64,
    /// Bytes on disk at the peak of a `--compress` solve: raw tables as in `raw_peak` and
    /// the tables compressed so far (estimated at `share` of their raw size; derived ones
    /// take nothing).
    pub compress_peak: u64,
    /// The compressed share the disk estimates take.
    pub share: Share,
    /// The usual solving rate of the units left, slots a second: the game's [`usual_rate`],
    /// or slower where placing moves stay inside a unit ([`unit_rate`]); over an empty plan
    /// the game's.
    pub rate: f64,
    /// The units in the order they are solved.
    units_in_order: Vec<Unit>,
    /// Whether derivable sectors become derived tables (not under `--no-derive`).
    derive: bool,
}

/// Solver speed measured on the project's 2-core machine over the whole nine-mens-morris game
/// (`docs/results.md`): used only to say roughly how long a solve takes.
pub const MEASURED_SLOTS_PER_SECOND: f64 = 4.2e6;

/// Dara's solver speed on the same machine: its endgames up to 5 against 5, 3.12 billion slots,
/// took 633 s on December 7 (4.9 million slots a second; 45 minutes before December 6, when its
/// run checks became faster); the big units are the slow ones (5v5: 4.7 million).
pub const DARA_SLOTS_PER_SECOND: f64 = 4.5e6;

/// The solving rate of a unit whose placing moves stay inside it (a side with stones in hand
/// may also slide, as under lasker-morris's `move-in-placing`, so the unit has frontier passes
/// as a moving unit has): lasker-morris's first run solved 99.4 billion slots, most of them
/// such units, in about 12 hours of units (`docs/results.md`), a pace that puts the whole
/// game at 16-17 hours; with this rate for its placing units and the usual one for the rest,
/// the dry run says 16.1.
pub const CYCLIC_PLACING_SLOTS_PER_SECOND: f64 = 2.3e6;

/// The usual solving rate of a game's sectors (by the rules' name), slots a second.
pub fn usual_rate(game: &str) -> f64 {
    match game {
        "dara" => DARA_SLOTS_PER_SECOND,
        _ => MEASURED_SLOTS_PER_SECOND,
    }
}

/// The usual solving rate of `unit`, slots a second: [`CYCLIC_PLACING_SLOTS_PER_SECOND`] for a
/// unit with stones in hand where a move leads from one of its sectors to one of its own,
/// else the game's [`usual_rate`].
pub fn unit_rate<R: SectorRules>(rules: &R, unit: &[SectorKey]) -> f64 {
    let placing = unit.iter().any(|k| k.wf > 0 || k.bf > 0);
    if placing && retro_solver::sectors::sector::moves_stay_inside(rules, unit) {
        CYCLIC_PLACING_SLOTS_PER_SECOND.min(usual_rate(rules.name()))
    } else {
        usual_rate(rules.name())
    }
}

/// Compressed size over raw size assumed to estimate the disk a `--compress` solve needs, for
/// the sectors that keep their values (derived ones keep a header): those of the first 188
/// nine-mens-morris tables took 14.0% (`databases/README.md`), the stored tables of the whole set
/// 16.3% (5.74 GB of 35.1 GB); 20% leaves a margin.
pub const COMPRESSED_SHARE: f64 = 0.2;

/// Raw bytes of a folder's compressed tables from which their own share is taken instead of
/// [`COMPRESSED_SHARE`].
const MEASURED_FROM: u64 = 1 << 30;

/// The tables still to solve are taken to compress this much worse than those measured (the
/// big placement tables come last).
const MEASURED_MARGIN: f64 = 1.25;

/// The share of raw size that compressed tables are taken to have in disk estimates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Share {
    /// Compressed bytes over raw bytes, for a sector that keeps its values.
    pub fraction: f64,
    /// Measured on the folder's own compressed tables: how many, their raw bytes and their
    /// share (`fraction` is [`MEASURED_MARGIN`] times it); `None` when [`COMPRESSED_SHARE`]
    /// is taken (too few such tables).
    pub measured: Option<(usize, u64, f64)>,
}

impl Share {
    /// The share for a folder holding `stored`: (compressed bytes, raw bytes) of each table
    /// already compressed with its values kept.
    pub fn from_tables(stored: &[(u64, u64)]) -> Share {
        let (packed, raw) = stored
            .iter()
            .fold((0u64, 0u64), |(p, r), &(a, b)| (p + a, r + b));
        if raw < MEASURED_FROM {
            return Share {
                fraction: COMPRESSED_SHARE,
                measured: None,
            };
        }
        let m = packed as f64 / raw as f64;
        Share {
            fraction: m * MEASURED_MARGIN,
            measured: Some((stored.len(), raw, m)),
        }
    }

    /// How the estimate was made, for a sentence: `20% of raw (...)`.
    pub fn describe(&self) -> String {
        match self.measured {
            None => format!(
                "{:.0}% of raw; the whole nine-mens-morris set's stored tables took 16.3%",
                100.0 * self.fraction
            ),
            Some((n, raw, m)) => format!(
                "{:.1}% of raw: {MEASURED_MARGIN} times the {:.1}% that the {n} tables already \
                 compressed in this folder take ({:.1} GiB raw)",
                100.0 * self.fraction,
                100.0 * m,
                raw as f64 / (1u64 << 30) as f64
            ),
        }
    }
}

/// Bytes of the table files `folder` holds already (none when it does not exist): a resumed
/// solve's estimated peak counts them, so it is to be compared with the free disk and them.
pub fn held_bytes(folder: &std::path::Path) -> u64 {
    retro_tables::verify::table_files(folder)
        .map(|files| {
            files
                .iter()
                .filter_map(|p| std::fs::metadata(p).ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// (compressed bytes, raw bytes) of each sector among `keys` whose table `db`'s folder holds
/// compressed with its values (a win/draw/loss file; derived tables keep none).
fn compressed_tables<'a, R: SectorRules>(
    db: &SectorDb<R>,
    keys: impl Iterator<Item = &'a SectorKey>,
) -> Vec<(u64, u64)> {
    let len = |p: std::path::PathBuf| std::fs::metadata(p).map(|m| m.len()).ok();
    keys.filter_map(|&k| {
        let path = db.path(k);
        let wdl = len(path.with_extension("rtbw"))?;
        let dtm = len(path.with_extension("rtbd")).unwrap_or(0);
        Some((wdl + dtm, db.rules.slots(k) * 2))
    })
    .collect()
}

impl PlanFigures {
    /// The plan for `targets` under `db`'s rules.
    pub fn new<R: SectorRules>(db: &SectorDb<R>, targets: &[SectorKey]) -> PlanFigures {
        Self::deriving(db, targets, true)
    }

    /// [`PlanFigures::new`], with derivable sectors kept whole unless `derive`
    /// (`--no-derive`).
    pub fn deriving<R: SectorRules>(
        db: &SectorDb<R>,
        targets: &[SectorKey],
        derive: bool,
    ) -> PlanFigures {
        let units = retro_solver::sectors::sector::plan(&db.rules, targets);
        let size = |k: &SectorKey| db.rules.slots(*k);
        let mut f = PlanFigures {
            units_in_order: Vec::new(),
            derive,
            sectors: 0,
            units: units.len(),
            existing: 0,
            slots: 0,
            placing: 0,
            largest: 0,
            left: (0, 0),
            rows: Vec::new(),
            raw_peak: disk_peak(&db.rules, &units, |k| size(&k) * 2, |_| 0),
            compress_peak: 0,
            share: Share::from_tables(&compressed_tables(db, units.iter().flatten())),
            rate: usual_rate(db.rules.name()),
        };
        // Seconds the units left take at their usual rates.
        let mut seconds_left = 0.0;
        for u in &units {
            let mut unit = 0;
            let mut missing = false;
            for k in u {
                let s = size(k);
                unit += s;
                if k.wf > 0 || k.bf > 0 {
                    f.placing += s;
                }
                let done = db.has_table(*k);
                f.existing += done as usize;
                missing |= !done;
                f.sectors += 1;
                f.rows.push((*k, s, done));
            }
            f.slots += unit;
            f.largest = f.largest.max(unit);
            // A unit with any table missing is solved whole again.
            if missing {
                f.left = (f.left.0 + unit, f.left.1 + 1);
                seconds_left += unit as f64 / unit_rate(&db.rules, u);
            }
        }
        if seconds_left > 0.0 {
            f.rate = f.left.0 as f64 / seconds_left;
        }
        f.units_in_order = units;
        f.compress_peak = f.estimate(db, None).peak;
        f
    }

    /// Disk use of a `--compress` solve with `--raw-budget` of `budget` bytes (estimated as
    /// `compress_peak` is; a table compressed early keeps every value, derivable or not).
    pub fn disk_under_budget<R: SectorRules>(&self, db: &SectorDb<R>, budget: u64) -> DiskUse {
        self.estimate(db, Some(budget))
    }

    /// Disk use of a `--compress` solve, under a raw budget if given, with compressed tables
    /// at `share` of their raw size and derived ones at nothing.
    fn estimate<R: SectorRules>(&self, db: &SectorDb<R>, budget: Option<u64>) -> DiskUse {
        let raw = |k: SectorKey| db.rules.slots(k) * 2;
        let kept = |k: SectorKey| (raw(k) as f64 * self.share.fraction) as u64;
        let packed = |k: SectorKey| {
            if self.derive && derivable(&db.rules, k) {
                0
            } else {
                kept(k)
            }
        };
        disk_use(
            &db.rules,
            &self.units_in_order,
            &raw,
            &packed,
            &kept,
            budget,
        )
    }

    /// A budget under which a `--compress` solve fits in [`room`] of `free` bytes of disk
    /// ([`PlanFigures::budget_for`]), and the disk under it; `None` when no budget does.
    pub fn suggest_budget<R: SectorRules>(
        &self,
        db: &SectorDb<R>,
        free: u64,
    ) -> Option<(u64, DiskUse)> {
        self.budget_for(db, room(free))
            .map(|b| (b, self.disk_under_budget(db, b)))
    }

    /// A `--raw-budget`, in whole GiB (at least 1) up to the raw peak, under which the
    /// solve's estimated disk peak fits in `free` bytes, and under which the next whole GiB
    /// does not (a binary search: the peak mostly grows with the budget); `None` if even
    /// 1 GiB does not fit.
    pub fn budget_for<R: SectorRules>(&self, db: &SectorDb<R>, free: u64) -> Option<u64> {
        const GIB: u64 = 1 << 30;
        let fits = |g: u64| self.disk_under_budget(db, g * GIB).peak <= free;
        let (mut lo, mut hi) = (1, (self.raw_peak / GIB).max(1));
        if !fits(lo) {
            return None;
        }
        if fits(hi) {
            return Some(hi * GIB);
        }
        // fits(lo), not fits(hi).
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(lo * GIB)
    }

    /// Bytes of tables on disk (2 a slot).
    pub fn disk_bytes(&self) -> u64 {
        self.slots * 2
    }

    /// Bytes of memory while the largest unit is solved.
    pub fn peak_bytes(&self) -> u64 {
        self.largest * SOLVE_BYTES_PER_SLOT
    }

    /// One line: sectors, slots, disk, memory and a rough time (of what is left when some
    /// tables are present); with `compress`, also the disk peak of a `--compress` solve.
    pub fn summary(&self, compress: bool) -> String {
        let left = if self.existing == 0 {
            String::new()
        } else {
            format!(
                " ({} of the tables present, {} of the slots left)",
                self.existing, self.left.0
            )
        };
        let peak = if compress {
            format!(
                " (a disk peak of about {} with --compress)",
                human(self.compress_peak)
            )
        } else {
            String::new()
        };
        format!(
            "{} sector{}, {} slots{left}, about {} of raw tables{peak} and {} of memory at the \
             peak, roughly {} on 2 cores",
            self.sectors,
            if self.sectors == 1 { "" } else { "s" },
            self.slots,
            human(self.disk_bytes()),
            human(self.peak_bytes()),
            rough_time_at(self.left.0, self.rate)
        )
    }

    /// Whether the raw tables left to write exceed `free` bytes of disk, so that the solve
    /// must compress (`--compress`).
    pub fn needs_compress(&self, free: u64) -> bool {
        self.left.0 * 2 > room(free)
    }
}

/// What `retro` plans a solve to fill of `free` bytes of disk: 95%, other files grow
/// meanwhile.
pub fn room(free: u64) -> u64 {
    free / 20 * 19
}

/// Hours left for `left` slots when this run has solved `done` slots in `secs` seconds: the
/// run's own rate, blended with half an hour at `prior` slots a second (the folder's
/// [`logged_rate`], or [`usual_rate`]): right after a resume the run has spent
/// its time opening tables and compressing, and one unit's rate is far from another's (a
/// placing unit of morabaraba-malom 0.6 million slots a second, a moving one 8).
pub fn hours_left(left: u64, done: u64, secs: f64, prior: f64) -> f64 {
    const PRIOR_SECS: f64 = 1800.0;
    let rate = (done as f64 + PRIOR_SECS * prior) / (secs + PRIOR_SECS);
    left as f64 / rate / 3600.0
}

/// Slots a second over the units a folder's solve log holds, once they are a billion slots
/// or more (fewer are too few units to tell a game's rate by); `None` before.
pub fn logged_rate(log: &crate::solve::journal::Summary) -> Option<f64> {
    (log.slots >= 1_000_000_000 && log.seconds > 0.0).then(|| log.slots as f64 / log.seconds)
}

/// Roughly how long solving `slots` slots takes at `rate` slots a second, for people: `40 s`,
/// `12 minutes`, `7.5 hours`.
pub fn rough_time_at(slots: u64, rate: f64) -> String {
    rough_duration(slots as f64 / rate)
}

/// `secs` seconds for people: `40 s`, `12 minutes`, `7.5 hours`.
pub fn rough_duration(secs: f64) -> String {
    if secs < 90.0 {
        format!("{secs:.0} s")
    } else if secs < 5400.0 {
        format!("{:.0} minutes", secs / 60.0)
    } else {
        format!("{:.1} hours", secs / 3600.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_logged_rate_needs_a_billion_slots() {
        let log = |slots, seconds| crate::solve::journal::Summary {
            slots,
            seconds,
            ..Default::default()
        };
        assert_eq!(logged_rate(&log(999_999_999, 100.0)), None);
        assert_eq!(logged_rate(&log(2_000_000_000, 0.0)), None);
        assert_eq!(logged_rate(&log(2_000_000_000, 500.0)), Some(4e6));
        assert_eq!(rough_time_at(36_000_000_000, 4e6), "2.5 hours");
    }

    /// Hours left: the prior rate at first, the run's own once it has run for long.
    #[test]
    fn hours_left_blend_the_run_with_the_prior_rate() {
        let m = MEASURED_SLOTS_PER_SECOND;
        let measured = 1e9 / m / 3600.0;
        assert!((hours_left(1_000_000_000, 0, 0.0, m) - measured).abs() < 1e-9);
        // A folder logged at 2 million slots a second starts from that rate.
        let logged = hours_left(7_200_000_000, 0, 0.0, 2e6);
        assert!((logged - 1.0).abs() < 1e-9, "{logged}");
        // Ten minutes of a slow start count for little.
        let early = hours_left(1_000_000_000, 300_000_000, 600.0, m);
        assert!(early > measured && early < 1.5 * measured, "{early}");
        // After a day at a million slots a second, about that rate.
        let late = hours_left(3_600_000_000, 86_400_000_000, 86_400.0, m);
        assert!((late - 1.0).abs() < 0.1, "{late}");
    }

    /// The summary names the `--compress` disk peak only when the solve it suggests compresses.
    #[test]
    fn the_summary_gives_the_compress_peak_when_asked() {
        let f = PlanFigures {
            sectors: 2,
            units: 1,
            existing: 0,
            slots: 3_000_000_000,
            placing: 0,
            largest: 3_000_000_000,
            left: (3_000_000_000, 1),
            rows: Vec::new(),
            raw_peak: 6_000_000_000,
            compress_peak: 3 << 30,
            share: Share::from_tables(&[]),
            rate: usual_rate("mill"),
            units_in_order: Vec::new(),
            derive: true,
        };
        let (with, without) = (f.summary(true), f.summary(false));
        assert!(
            with.contains("(a disk peak of about 3.0 GiB with --compress)"),
            "{with}"
        );
        assert!(!without.contains("--compress"), "{without}");
        for s in [&with, &without] {
            assert!(s.starts_with("2 sectors, 3000000000 slots, about 5.6 GiB of raw tables"));
        }
    }

    /// Under a GiB of compressed tables the default share stands; from a GiB on, the folder's
    /// own share with the margin.
    #[test]
    fn the_share_is_measured_from_a_gib_of_tables() {
        let small = Share::from_tables(&[(10 << 20, 100 << 20), (5 << 20, 500 << 20)]);
        assert_eq!(small.fraction, COMPRESSED_SHARE);
        assert_eq!(small.measured, None);
        assert!(
            small.describe().starts_with("20% of raw"),
            "{}",
            small.describe()
        );
        let big = Share::from_tables(&[(100 << 20, 1 << 30), (28 << 20, 1 << 30)]);
        let (n, raw, m) = big.measured.expect("two GiB measured");
        assert_eq!((n, raw), (2, 2 << 30));
        assert!((m - 0.0625).abs() < 1e-12, "{m}");
        assert!((big.fraction - 0.0625 * MEASURED_MARGIN).abs() < 1e-12);
        assert!(
            big.describe().contains("6.2% that the 2 tables"),
            "{}",
            big.describe()
        );
        // A game that compresses worse than the default is not capped by it.
        let worse = Share::from_tables(&[(700 << 20, 2 << 30)]);
        assert!(worse.fraction > COMPRESSED_SHARE);
    }
}
