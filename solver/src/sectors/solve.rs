//! Solving a set of sectors with everything they depend on, resuming from verified tables.

use crate::sectors::db::{Db, ProbeError};
use crate::sectors::decode::slot_codes;
use crate::sectors::derive::{derivable, derive_raw, derived_codes};
use crate::sectors::forward::Forward;
use crate::sectors::retro::{solve_unit_with, Counts, Progress, Solved};
use crate::sectors::rules::SectorRules;
use crate::sectors::saved_marks;
use crate::sectors::searched::{resolve_searched, searched_wins_marked};
use crate::sectors::sector::{plan, SectorKey};
use rayon::prelude::*;
use retro_tables::any_table::AnyTable;
use retro_tables::compressed_table::{replace_raw, Params, Replaced};
use retro_tables::sector_table::{self, Header};
use retro_tables::value::{Value, WASTED};
use retro_tables::TableError;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::Mutex;
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

impl std::error::Error for SolveError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SolveError::Table(e) => Some(e),
            SolveError::Probe(e) => Some(e),
            _ => None,
        }
    }
}

/// Events of a running solve, for progress display.
pub trait SolveObserver: Progress {
    /// A unit starts: its sectors and total slots; `index`/`total` count units.
    fn unit_start(&self, unit: &[SectorKey], slots: u64, index: usize, total: usize);
    /// A sector is done.
    fn sector_done(&self, report: &SectorReport);
    /// A unit this run solved is done: its tables written, and those no unit left reads
    /// compressed (under `--compress`).
    fn unit_done(&self) {}
    /// An existing table is rebuilt because it failed its checks (`why` names the file).
    fn rebuilding(&self, _why: &ProbeError) {}
    /// A sector's raw table was replaced by compressed files (no unit left needs it raw), in
    /// `seconds` (the search for searched wins included).
    fn compressed(&self, _key: SectorKey, _r: &Replaced, _seconds: f64) {}
}

/// How a solve writes its tables.
#[derive(Clone, Copy, Debug, Default)]
pub struct SolveOptions {
    /// Compress each sector's table (`.rtbw` + `.rtbd`) as soon as no unit left to solve reads
    /// it, so that raw tables live only while they are needed.
    pub compress: Option<Params>,
    /// When compressing, keep the values of derivable sectors too (compressed), and every
    /// win's distance, instead of leaving them to a one-ply search ([`crate::sectors::derive`],
    /// [`crate::sectors::searched`]).
    pub keep_derivable: bool,
    /// When compressing, the most bytes of raw tables to keep on disk between units: tables
    /// units to come still read are compressed early (every value and distance kept, so that
    /// decoding them again is quick), read back through raw working copies, and given their
    /// final form after their last reader ([`EARLY_FILE`]). `None`: no limit.
    pub raw_budget: Option<u64>,
}

/// The file in a table folder listing the sectors a solve under a raw budget compressed early
/// and has not given their final form yet (one `W,B,WF,BF` a line), so that a resumed solve
/// finishes them.
pub const EARLY_FILE: &str = "early-compressed.txt";

/// The sectors [`EARLY_FILE`] under `folder` lists (none when it is missing or unreadable:
/// those tables then keep every value, which is correct, only larger).
fn read_early(folder: &Path) -> BTreeSet<SectorKey> {
    std::fs::read_to_string(folder.join(EARLY_FILE))
        .map(|t| t.lines().filter_map(SectorKey::parse).collect())
        .unwrap_or_default()
}

/// Removes a file that may already be gone.
fn remove_if_present(path: &Path) -> Result<(), SolveError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(SolveError::Table(TableError::Io(path.to_path_buf(), e)))
        }
        _ => Ok(()),
    }
}

/// Removes sector `k`'s raw working copy (its compressed or derived table stays), closing it
/// first.
fn remove_working_copy<R: SectorRules>(db: &Db<R>, k: SectorKey) -> Result<(), SolveError> {
    let path = db.path(k);
    db.forget(k);
    std::fs::remove_file(&path).map_err(|e| SolveError::Table(TableError::Io(path, e)))
}

/// Writes [`EARLY_FILE`] (removed when `early` is empty), atomically.
fn write_early(folder: &Path, early: &BTreeSet<SectorKey>) -> Result<(), SolveError> {
    let path = folder.join(EARLY_FILE);
    let io = |e| SolveError::Table(TableError::Io(path.clone(), e));
    // One writer (the folder's lock), so one temporary name: a killed write's leftover is
    // replaced by the next, or removed with the list.
    let tmp = folder.join(format!("{EARLY_FILE}.part"));
    if early.is_empty() {
        remove_if_present(&path)?;
        return remove_if_present(&tmp);
    }
    let text: String = early
        .iter()
        .map(|k| format!("{},{},{},{}\n", k.w, k.b, k.wf, k.bf))
        .collect();
    let mut f = std::fs::File::create(&tmp).map_err(io)?;
    std::io::Write::write_all(&mut f, text.as_bytes()).map_err(io)?;
    f.sync_all().map_err(io)?;
    std::fs::rename(&tmp, &path).map_err(io)
}

impl SolveObserver for () {
    fn unit_start(&self, _: &[SectorKey], _: u64, _: usize, _: usize) {}
    fn sector_done(&self, _: &SectorReport) {}
}

/// Peak memory per slot while a unit is solved, as measured: values, counters and longest-loss
/// entries (5 bytes) plus the frontier lists and the mapped tables of the sectors it depends on.
pub const SOLVE_BYTES_PER_SLOT: u64 = 9;

/// Memory and disk a unit of `slots` slots in `sectors` sectors needs, in bytes.
pub fn unit_needs(slots: u64, sectors: usize) -> (u64, u64) {
    (
        slots.saturating_mul(SOLVE_BYTES_PER_SLOT),
        slots
            .saturating_mul(2)
            .saturating_add(4096 * sectors as u64),
    )
}

/// Refuses, with the numbers, a unit whose needs exceed the `memory` available or the `disk`
/// free in `folder` (`None`: unknown, not checked); its disk counts `copies` bytes of raw
/// working copies of the tables it reads, to be written for it.
pub fn check_room(
    unit: &[SectorKey],
    slots: u64,
    copies: u64,
    memory: Option<u64>,
    disk: Option<u64>,
    folder: &Path,
) -> Result<(), SolveError> {
    use crate::sectors::resources::human;
    let (need_memory, need_disk) = unit_needs(slots, unit.len());
    let need_disk = need_disk.saturating_add(copies);
    let name = unit
        .iter()
        .map(|k| k.to_string())
        .collect::<Vec<_>>()
        .join("+");
    if let Some(avail) = memory.filter(|&a| need_memory > a) {
        return Err(SolveError::Resources(format!(
            "sector {name} needs about {} of memory, {} is available",
            human(need_memory),
            human(avail)
        )));
    }
    if let Some(free) = disk.filter(|&f| need_disk > f) {
        let of_copies = if copies > 0 {
            format!(
                " ({} of it for raw working copies of the tables it reads)",
                human(copies)
            )
        } else {
            String::new()
        };
        return Err(SolveError::Resources(format!(
            "sector {name} needs about {} of disk in {}{of_copies}, {} is free",
            human(need_disk),
            folder.display(),
            human(free)
        )));
    }
    Ok(())
}

/// Refuses a unit that the machine's free memory or disk cannot hold, the disk counting the
/// raw working copies (`copies`, bytes) of the tables it reads that are to be written for it.
fn check_resources<R: SectorRules>(
    db: &Db<R>,
    unit: &[SectorKey],
    slots: u64,
    copies: u64,
) -> Result<(), SolveError> {
    use crate::sectors::resources::{available_memory, free_disk};
    check_room(
        unit,
        slots,
        copies,
        available_memory(),
        free_disk(&db.folder),
        &db.folder,
    )
}

/// Solves `targets` and every sector they depend on, in dependency order. Sectors whose tables
/// exist and verify are kept; missing ones are built; one that fails its checks (truncated,
/// damaged, other rules) is rebuilt, told to the observer; one that cannot be read at all
/// (permissions, I/O error) stops the solve with that error.
pub fn solve<R: Forward>(
    db: &Db<R>,
    targets: &[SectorKey],
    observer: &dyn SolveObserver,
) -> Result<Vec<SectorReport>, SolveError> {
    solve_with(db, targets, observer, SolveOptions::default())
}

/// [`solve`], with options (compressing tables as it goes).
pub fn solve_with<R: Forward>(
    db: &Db<R>,
    targets: &[SectorKey],
    observer: &dyn SolveObserver,
    options: SolveOptions,
) -> Result<Vec<SectorReport>, SolveError> {
    let units = plan(&db.rules, targets);
    if let Some((k, why)) = units
        .iter()
        .flatten()
        .find_map(|&k| db.rules.unsupported(k).map(|w| (k, w)))
    {
        return Err(SolveError::Unsupported(format!("sector {k}: {why}")));
    }
    // Fail now, not hours into the solve, if a unit left to solve needs more memory than the
    // machine has (da-san-qi's placing sectors with their marked points, say).
    if let Some((unit, slots)) = units
        .iter()
        .filter(|u| u.iter().any(|&k| !db.has_table(k)))
        .map(|u| (u, u.iter().map(|&k| db.rules.slots(k)).sum::<u64>()))
        .max_by_key(|&(_, slots)| slots)
    {
        check_room(
            unit,
            slots,
            0,
            crate::sectors::resources::available_memory(),
            None,
            &db.folder,
        )?;
    }
    // Fail now, not after solving a unit, if the tables cannot be written.
    let probe = db.folder.join(".write-test");
    let written = std::fs::create_dir_all(&db.folder).and_then(|_| std::fs::write(&probe, b"ok"));
    let _ = std::fs::remove_file(&probe);
    written.map_err(|e| SolveError::Table(TableError::Io(db.folder.clone(), e)))?;
    let mut reports = Vec::new();
    let total = units.len();
    // The last unit that reads each sector's table as a dependency.
    let last_use = crate::sectors::sector::last_uses(&db.rules, &units);
    // Raw working copies made of compressed (a resumed `--compress` solve) and derived
    // dependencies.
    let restored: Mutex<HashSet<SectorKey>> = Mutex::new(HashSet::new());
    // Whether the units mark their searched wins as they are solved, and the marks of the
    // sectors not compressed yet (one bit a slot; a resumed solve searches the wins of tables an
    // earlier run wrote instead).
    let mark = options.compress.is_some() && !options.keep_derivable;
    let marks: Mutex<HashMap<SectorKey, Vec<u64>>> = Mutex::new(HashMap::new());
    // Sectors compressed early to keep within the raw budget, not in their final form yet.
    let early: Mutex<BTreeSet<SectorKey>> = Mutex::new(read_early(&db.folder));
    // Replaces sector `k`'s raw table under `--compress`: by its final form (compressed with
    // its searched wins, or derived), or with `early_form` by a compressed table that keeps
    // every value and distance (units to come still read it).
    let retire = |k: SectorKey, early_form: bool| -> Result<(), SolveError> {
        let Some(params) = options.compress else {
            return Ok(());
        };
        let path = db.path(k);
        let t0 = Instant::now();
        let keep = options.keep_derivable || early_form;
        let searched = if keep {
            None
        } else {
            // The marks of a unit this run solved, else those an earlier run saved beside
            // the table (else the wins are searched).
            let marked = marks.lock().expect("marks lock").remove(&k);
            let marked = marked.or_else(|| saved_marks::of(db, k));
            searched_wins_marked(db, k, marked).map_err(SolveError::Probe)?
        };
        db.forget(k);
        let r = if !keep && derivable(&db.rules, k) {
            // SAFETY: the solve holds the folder's lock; its tables are replaced by rename.
            let raw_bytes = unsafe { derive_raw(db, k, false) }.map_err(SolveError::Probe)?;
            // A compressed table made early goes: the derived one stands for the sector.
            let [_, wdl, dtm] = retro_tables::any_table::table_files(&path);
            remove_if_present(&wdl)?;
            remove_if_present(&dtm)?;
            db.forget(k);
            Replaced {
                raw_bytes,
                wdl_bytes: 0,
                dtm_bytes: 0,
                wins: 0,
                searched_wins: 0,
            }
        } else {
            let params = Params {
                order: db.slot_order(k),
                ..params
            };
            // SAFETY: as above.
            unsafe { replace_raw(&path, params, false, false, searched.as_ref()) }
                .map_err(SolveError::Table)?
        };
        if !keep {
            saved_marks::remove(&path).map_err(SolveError::Table)?;
        }
        observer.compressed(k, &r, t0.elapsed().as_secs_f64());
        Ok(())
    };
    // Tables no unit left to solve reads: working copies removed, raw tables compressed (or
    // derived) under `--compress`, those compressed early given their final form.
    let compress_done = |i: usize| -> Result<(), SolveError> {
        for &k in units[..=i].iter().flatten() {
            if last_use.get(&k).is_some_and(|&j| j > i) {
                continue;
            }
            let path = db.path(k);
            let is_early = early.lock().expect("early lock").contains(&k);
            if !path.exists() {
                // Compressed early by a run that stopped before its last reader came: its
                // final form now, from a working copy (a table without one keeps every value).
                if !is_early {
                    continue;
                }
                if !restore_raw(db, k)? {
                    let mut e = early.lock().expect("early lock");
                    e.remove(&k);
                    write_early(&db.folder, &e)?;
                    continue;
                }
            } else if restored.lock().expect("restored lock").remove(&k) && !is_early {
                // A working copy: the compressed or derived table it came from is still there.
                remove_working_copy(db, k)?;
                continue;
            }
            retire(k, false)?;
            if is_early {
                let mut e = early.lock().expect("early lock");
                e.remove(&k);
                write_early(&db.folder, &e)?;
            }
        }
        Ok(())
    };
    // For each sector, the units that read it, in order.
    let readers = crate::sectors::sector::readers(&db.rules, &units);
    // Under a raw budget: before unit `i + 1`, the raw tables it does not read go, those read
    // again last first, until the tables kept and those it needs fit the budget (a working
    // copy is removed; a table in no other form is compressed early).
    let keep_within_budget = |i: usize| -> Result<(), SolveError> {
        let (Some(budget), Some(_)) = (options.raw_budget, options.compress) else {
            return Ok(());
        };
        let Some(next) = units.get(i + 1) else {
            return Ok(());
        };
        let raw_bytes = |k: SectorKey| db.rules.slots(k) * 2;
        let need: u64 = next.iter().map(|&k| raw_bytes(k)).sum::<u64>()
            + crate::sectors::sector::reads_of(&db.rules, next)
                .iter()
                .filter(|&&c| !db.path(c).exists() && db.has_table(c))
                .map(|&c| raw_bytes(c))
                .sum::<u64>();
        let raw = |k: &SectorKey| db.path(*k).exists();
        let over = crate::sectors::sector::tables_to_evict(
            &units, &readers, i, budget, need, &raw_bytes, &raw,
        );
        for k in over {
            if restored.lock().expect("restored lock").remove(&k) {
                remove_working_copy(db, k)?;
            } else {
                // Listed first: a run killed in between finishes it when resumed.
                if !options.keep_derivable {
                    let mut e = early.lock().expect("early lock");
                    e.insert(k);
                    write_early(&db.folder, &e)?;
                }
                retire(k, true)?;
            }
        }
        Ok(())
    };
    for (i, unit) in units.iter().enumerate() {
        let existing = unit
            .iter()
            .map(|&k| {
                match db.open_checked(k).and_then(|t| {
                    // Kept only if its checksums hold (every block, each file whole). A
                    // compressed table's values are not decoded again: it was compared with
                    // its raw table when written (decoding every table at each resume took
                    // minutes once a whole game's tables were there); a working copy made
                    // from it decodes it whole and checks its counts, and `retro verify`
                    // decodes every table.
                    t.check_sums()?;
                    Ok(t)
                }) {
                    Ok(t) => Ok(Some(t.header().clone())),
                    Err(ProbeError::Missing { .. }) => Ok(None),
                    Err(ProbeError::Table(e)) if matches!(*e, TableError::Io(..)) => {
                        Err(SolveError::Probe(ProbeError::Table(e)))
                    }
                    Err(e) => {
                        observer.rebuilding(&e);
                        Ok(None)
                    }
                }
            })
            .collect::<Result<Vec<Option<Header>>, SolveError>>()?;
        if existing.iter().all(Option::is_some) {
            for h in existing.into_iter().flatten() {
                let r = SectorReport {
                    key: h.sector,
                    counts: Counts::of_header(&h),
                    slots: h.slots,
                    seconds: 0.0,
                    reused: true,
                };
                observer.sector_done(&r);
                reports.push(r);
            }
            compress_done(i)?;
            keep_within_budget(i)?;
            continue;
        }
        let slots: u64 = unit.iter().map(|&k| db.rules.slots(k)).sum();
        // Dependencies left compressed by an earlier run are read raw again under `--compress`
        // (probing compressed blocks is far slower than the solve's table lookups), and derived
        // ones always (they have no slots to read).
        // A unit valued forwards reads its dependencies through probes, which read any
        // table, and a table with marked points has no working copy.
        let forward = unit.iter().any(|&k| db.rules.marked_points(k).is_some());
        let copies: Vec<SectorKey> = crate::sectors::sector::copied_reads(&db.rules, unit)
            .into_iter()
            .filter(|&c| {
                // Sectors lost by material have no table: `has_table` passes them by.
                if db.path(c).exists() || !db.has_table(c) {
                    return false;
                }
                // Derived tables and those that leave wins to a search have values a unit's
                // table lookups cannot read: they are always read through a working copy.
                options.compress.is_some()
                    || db
                        .table(c)
                        .is_ok_and(|t| t.0.is_derived() || t.0.searches_wins())
            })
            .collect();
        let copy_bytes = copies
            .iter()
            .map(|&c| unit_needs(db.rules.slots(c), 1).1)
            .sum();
        check_resources(db, unit, slots, copy_bytes)?;
        for c in copies {
            if restore_raw(db, c)? {
                restored.lock().expect("restored lock").insert(c);
            }
        }
        observer.unit_start(unit, slots, i, total);
        let start = Instant::now();
        let solved = match unit[..] {
            [k] if forward => {
                let values = R::forward_values(db, k, observer)
                    .expect("a sector with marked points is valued forwards")
                    .map_err(SolveError::Probe)?;
                vec![Solved {
                    key: k,
                    values,
                    searched: None,
                }]
            }
            _ if forward => {
                return Err(SolveError::Unsupported(format!(
                    "sectors {unit:?}: a unit of several sectors with marked points"
                )))
            }
            _ => solve_unit_with(db, unit, observer, mark).map_err(SolveError::Probe)?,
        };
        let seconds = start.elapsed().as_secs_f64();
        for s in solved {
            let (key, values) = (s.key, s.values);
            let header = Header::from_values(db.rules.game_id(), db.fingerprint(), key, &values);
            sector_table::write(&db.path(key), &header, &values).map_err(SolveError::Table)?;
            if let Some(bits) = s.searched {
                // Saved too, for a run that resumes before the table is compressed.
                saved_marks::save(&db.path(key), &header, &bits).map_err(SolveError::Table)?;
                marks.lock().expect("marks lock").insert(key, bits);
            }
            db.forget(key);
            let r = SectorReport {
                key,
                // The header's counts: the values were tallied once, for it.
                counts: Counts::of_header(&header),
                slots: values.len() as u64,
                seconds,
                reused: false,
            };
            observer.sector_done(&r);
            reports.push(r);
        }
        compress_done(i)?;
        keep_within_budget(i)?;
        observer.unit_done();
    }
    Ok(reports)
}

/// Writes a raw working copy of sector `k`'s compressed table beside it: the values decoded,
/// the wasted slots found again from the index and the rules, so the copy is the raw table the
/// compressed one was made from; its header must come out equal to the one the compressed
/// table keeps, else no copy is written and `false` returned (the solve then reads the
/// compressed table, more slowly). A derived table's copy holds every slot's value by search,
/// and counts that differ from its header are an error (the tables it reads are not the ones it
/// was derived from).
pub fn restore_raw<R: SectorRules>(db: &Db<R>, k: SectorKey) -> Result<bool, SolveError> {
    let t = db.table(k).map_err(SolveError::Probe)?;
    if let AnyTable::Derived(d) = &t.0 {
        let codes = derived_codes(db, k).map_err(SolveError::Probe)?;
        let h = Header::from_values(db.rules.game_id(), db.fingerprint(), k, &codes);
        if h != d.header {
            return Err(SolveError::Table(TableError::Corrupt(
                d.path().to_path_buf(),
                "the one-ply search over the tables it reads gives other counts than its \
                 header: those tables are not the ones it was derived from"
                    .into(),
            )));
        }
        sector_table::write(&db.path(k), &h, &codes).map_err(SolveError::Table)?;
        db.forget(k);
        return Ok(true);
    }
    let (AnyTable::Compressed(c), idx) = (&t.0, &t.1) else {
        return Ok(false);
    };
    if !c.has_distances() {
        return Ok(false);
    }
    let mut codes = slot_codes(c).map_err(SolveError::Table)?;
    // Wasted slots marked, and the slots of the searched wins (`Win(0)`), found next.
    let chunk = 1 << 16;
    let searched: Vec<u64> = codes
        .par_chunks_mut(chunk)
        .enumerate()
        .flat_map_iter(|(j, part)| {
            let lo = (j * chunk) as u64;
            let mut searched = Vec::new();
            idx.for_each(lo, lo + part.len() as u64, |slot, pos| {
                let i = (slot - lo) as usize;
                match pos {
                    Some((own, opp)) if db.rules.valid(own, opp) => {
                        if part[i] == Value::Win(0).encode() && c.searches_wins() {
                            searched.push(slot);
                        }
                    }
                    _ => part[i] = WASTED,
                }
            });
            searched
        })
        .collect();
    // A searched win's distance by search, as a probe gets it (its moves within the sector
    // read from the codes at hand).
    resolve_searched(db, k, &mut codes, &searched).map_err(SolveError::Probe)?;
    let h = Header::from_values(db.rules.game_id(), db.fingerprint(), k, &codes);
    if h != c.header {
        if c.searches_wins() {
            return Err(SolveError::Table(TableError::Corrupt(
                db.path(k).with_extension("rtbd"),
                "its searched wins and the tables their moves lead to give other counts than \
                 its header: those tables are not the ones it was compressed beside"
                    .into(),
            )));
        }
        return Ok(false);
    }
    sector_table::write(&db.path(k), &h, &codes).map_err(SolveError::Table)?;
    db.forget(k);
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit() -> Vec<SectorKey> {
        vec![
            SectorKey {
                w: 5,
                b: 6,
                wf: 0,
                bf: 0,
            },
            SectorKey {
                w: 6,
                b: 5,
                wf: 0,
                bf: 0,
            },
        ]
    }

    #[test]
    fn room_check_refuses_with_the_numbers() {
        let folder = Path::new("/some/folder");
        let slots = 144_232_144;
        let (m, d) = unit_needs(slots, 2);
        assert!(check_room(&unit(), slots, 0, Some(m), Some(d), folder).is_ok());
        assert!(check_room(&unit(), slots, 0, None, None, folder).is_ok());
        let e = check_room(&unit(), slots, 0, Some(m - 1), Some(d), folder)
            .unwrap_err()
            .to_string();
        assert!(e.contains("5_6_0_0+6_5_0_0") && e.contains("memory"), "{e}");
        assert!(e.contains(&crate::sectors::resources::human(m)), "{e}");
        let e = check_room(&unit(), slots, 0, Some(m), Some(d - 1), folder)
            .unwrap_err()
            .to_string();
        assert!(e.contains("disk in /some/folder"), "{e}");
        // The working copies of the tables it reads count too, and are named.
        let copies = 5 << 20;
        assert!(check_room(&unit(), slots, copies, None, Some(d + copies), folder).is_ok());
        let e = check_room(&unit(), slots, copies, None, Some(d + copies - 1), folder)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("(5 MiB of it for raw working copies of the tables"),
            "{e}"
        );
        assert!(check_room(&unit(), u64::MAX, 0, Some(u64::MAX - 1), None, folder).is_err());
    }
}
