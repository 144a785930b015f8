//! `retro solve`: the sector solver driven for Mill and Dara (progress bars, dry runs), and
//! the whole-game Ô Ăn Quan solve.

pub mod dara;
pub mod mill;
pub mod oaq;
pub mod peak;
pub mod plan;

use crate::args::{GameKind, SolveArgs};
use crate::error::CliError;
use crate::solve::peak::PeakMemory;
use crate::solve::plan::PlanFigures;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use retro_solver::sectors::db::{Db as SectorDb, ProbeError};
use retro_solver::sectors::resources::human;
use retro_solver::sectors::retro::Progress;
use retro_solver::sectors::rules::SectorRules;
use retro_solver::sectors::sector::SectorKey;
use retro_solver::sectors::solve::{solve_with, SectorReport, SolveObserver, SolveOptions};
use retro_tables::compressed_table::{Params, Replaced};
use retro_tables::lock::FolderLock;
use retro_tables::TableError;
use serde_json::{json, Value as Json};
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

struct Bars {
    quiet: bool,
    /// Progress as plain lines on stderr, one per unit, instead of bars: when the bars
    /// would not show (stderr is not a terminal, or `--json`) and `--quiet` is not given, so
    /// a solve run in the background leaves a log.
    log: Option<Instant>,
    /// The slots of the units started so far (for the log lines).
    slots_started: Mutex<u64>,
    /// The slots of the sectors without tables when the run began (all it will solve).
    slots_left: u64,
    overall: ProgressBar,
    unit: Mutex<Option<ProgressBar>>,
    /// Tables compressed or derived, the seconds that took, and the wins whose distances were
    /// left to a search.
    compressed: Mutex<(u64, f64, u64)>,
    /// The run's peak of anonymous memory, sampled.
    memory: PeakMemory,
}

impl Bars {
    /// Bars, hidden under `quiet`; with `lines` (and not `quiet`), a line per unit instead,
    /// for a run that has `slots_left` slots to solve.
    fn new(quiet: bool, lines: bool, slots_left: u64) -> Bars {
        let overall = if quiet || lines {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(0)
        };
        overall.set_style(
            ProgressStyle::with_template(
                "units {pos}/{len} [{bar:30}] {elapsed_precise} ETA {eta} {msg}",
            )
            .expect("template")
            .progress_chars("=> "),
        );
        Bars {
            quiet: quiet || lines,
            log: (lines && !quiet).then(Instant::now),
            slots_started: Mutex::new(0),
            slots_left,
            overall,
            unit: Mutex::new(None),
            compressed: Mutex::new((0, 0.0, 0)),
            memory: PeakMemory::start(),
        }
    }
}

impl Progress for Bars {
    fn init(&self, n: u64) {
        if let Some(b) = &*self.unit.lock().expect("bar lock") {
            b.inc(n);
        }
    }
    fn pass(&self, d: u16) {
        // Sampled here too: a unit's arrays are alive (and a short unit may end between two
        // samples of the thread).
        self.memory.bytes();
        if let Some(b) = &*self.unit.lock().expect("bar lock") {
            b.set_message(format!("frontier pass {d}"));
        }
    }
}

impl SolveObserver for Bars {
    fn unit_start(&self, unit: &[SectorKey], slots: u64, index: usize, total: usize) {
        self.overall.set_length(total as u64);
        self.overall.set_position(index as u64);
        let names: Vec<String> = unit.iter().map(|k| k.to_string()).collect();
        if let Some(start) = self.log {
            let before = {
                let mut s = self.slots_started.lock().expect("slots lock");
                *s += slots;
                *s - slots
            };
            let secs = start.elapsed().as_secs();
            // Left at this run's rate so far, blended with the measured one (rough: units
            // differ widely).
            let left = self.slots_left.saturating_sub(before);
            let h = crate::solve::plan::hours_left(left, before, secs as f64);
            let eta = format!(", {left} left: roughly {h:.1} h");
            eprintln!(
                "[{}:{:02}:{:02}] unit {}/{total}: sector {} ({slots} slots; {before} slots \
                 solved before it in this run{eta}; memory peak {})",
                secs / 3600,
                secs / 60 % 60,
                secs % 60,
                index + 1,
                names.join("+"),
                human(self.memory.bytes()),
            );
        }
        if self.quiet {
            return;
        }
        let b = ProgressBar::with_draw_target(Some(slots), ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template(
                "{prefix} [{bar:30}] {human_pos}/{human_len} slots {per_sec} ETA {eta} {msg}",
            )
            .expect("template")
            .progress_chars("=> "),
        );
        b.set_prefix(format!("sector {}", names.join("+")));
        if let Some(old) = self.unit.lock().expect("bar lock").replace(b) {
            old.finish_and_clear();
        }
    }
    fn sector_done(&self, _r: &SectorReport) {
        // The sector's values are still alive.
        self.memory.bytes();
    }
    /// Said even under `--quiet`: a table is replaced, and the user should know why.
    fn rebuilding(&self, why: &ProbeError) {
        self.overall.suspend(|| eprintln!("rebuilding: {why}"));
    }
    fn compressed(&self, key: SectorKey, r: &Replaced, seconds: f64) {
        {
            let mut c = self.compressed.lock().expect("compress lock");
            *c = (c.0 + 1, c.1 + seconds, c.2 + r.searched_wins);
        }
        if !self.quiet || self.log.is_some() {
            self.overall.suspend(|| {
                if r.wdl_bytes == 0 {
                    eprintln!(
                        "derived {key}: {} bytes raw -> a header, {seconds:.1} s",
                        r.raw_bytes
                    )
                } else {
                    eprintln!(
                        "compressed {key}: {} bytes raw -> {} win/draw/loss + {} distances{}, \
                         {seconds:.1} s",
                        r.raw_bytes,
                        r.wdl_bytes,
                        r.dtm_bytes,
                        if r.searched_wins > 0 {
                            format!(
                                " ({} of {} wins' distances left to a search)",
                                r.searched_wins, r.wins
                            )
                        } else {
                            String::new()
                        }
                    )
                }
            });
        }
    }
}

/// Options of `retro solve`.
pub struct SolveOpts {
    /// Moving phase up to this many stones a side.
    pub max_stones: Option<u8>,
    /// Worker threads.
    pub threads: Option<usize>,
    /// JSON output.
    pub json: bool,
    /// No progress bars.
    pub quiet: bool,
    /// Only print the plan.
    pub dry_run: bool,
    /// Wait for another solve of the same folder instead of refusing.
    pub wait: bool,
    /// Compress tables as the solve goes, at this zstd level.
    pub compress: Option<i32>,
    /// With `compress`, keep every sector's values (no derived tables).
    pub no_derive: bool,
    /// `--raw-budget`, in GiB.
    pub raw_budget: Option<f64>,
}

impl SolveOpts {
    /// `--raw-budget` in bytes.
    fn raw_budget_bytes(&self) -> Option<u64> {
        self.raw_budget.map(|g| (g * (1u64 << 30) as f64) as u64)
    }
}

/// Takes the lock of a table folder for the length of a solve: refused while another solve
/// holds it, or waited for with `--wait`; then removes what interrupted writers left there.
pub fn lock_folder(dir: &Path, wait: bool, quiet: bool) -> Result<FolderLock, CliError> {
    let busy = |e: TableError| match e {
        TableError::Busy(_) => CliError::other(format!("{e}; pass --wait to wait for it")),
        e => CliError::other(e),
    };
    let lock = match FolderLock::acquire(dir, false) {
        Err(TableError::Busy(_)) if wait => {
            if !quiet {
                eprintln!("waiting for the solve writing into {}", dir.display());
            }
            FolderLock::acquire(dir, true).map_err(busy)?
        }
        other => other.map_err(busy)?,
    };
    let removed = lock.remove_stale_temps().map_err(CliError::other)?;
    if removed > 0 && !quiet {
        eprintln!(
            "removed {removed} unfinished temporary file(s) an interrupted solve left in {}",
            dir.display()
        );
    }
    Ok(lock)
}

fn dry_run<R: SectorRules>(
    db: &SectorDb<R>,
    targets: &[SectorKey],
    opts: &SolveOpts,
) -> Result<(), CliError> {
    let (as_json, derive, budget) = (opts.json, !opts.no_derive, opts.raw_budget_bytes());
    let f = PlanFigures::deriving(db, targets, derive);
    // Sectors these rules leave out (a dry run still gives the figures of the plain sectors).
    let unsupported: Vec<(SectorKey, String)> = f
        .rows
        .iter()
        .filter_map(|(k, _, _)| db.rules.unsupported(*k).map(|w| (*k, w)))
        .collect();
    // State the positions of the sectors left out carry beyond stones and hands (one-time
    // mills' masks): what indexing it would cost.
    let extra: Vec<(u64, u64)> = f
        .rows
        .iter()
        .filter_map(|(k, s, _)| db.rules.extra_state_slots(*k).map(|x| (x, *s)))
        .collect();
    let extra_total = (!extra.is_empty()).then(|| {
        extra.iter().fold((0u64, 0u64), |(x, s), &(a, b)| {
            (x.saturating_add(a), s.saturating_add(b))
        })
    });
    // What this machine has: free disk where the tables go (the folder, or the nearest folder
    // above it that exists) and memory.
    use retro_solver::sectors::resources::available_memory;
    let free = free_disk_at(&db.folder);
    let memory = available_memory();
    // The folder's tables count in the estimated peak: the room for it is the free disk and
    // what they take already.
    let held = crate::solve::plan::held_bytes(&db.folder);
    let disk = free.map(|d| d + held);
    // Under the budget asked for; and when the peak without one does not fit, the largest
    // budget that does.
    let within = budget.map(|b| f.disk_under_budget(db, b));
    let suggested = disk
        .filter(|&d| f.compress_peak > d)
        .map(|d| f.suggest_budget(db, d));
    if as_json {
        let rows: Vec<Json> = f
            .rows
            .iter()
            .map(|(k, s, done)| {
                json!({"sector": k.to_string(), "slots": s, "table_exists": done,
                       "unsupported": db.rules.unsupported(*k),
                       "extra_state_slots": db.rules.extra_state_slots(*k)})
            })
            .collect();
        println!(
            "{}",
            json!({"sectors": rows, "units": f.units, "slots": f.slots, "placing_slots": f.placing,
                   "largest_unit_slots": f.largest, "peak_bytes": f.peak_bytes(),
                   "slots_left": f.left.0, "units_left": f.left.1,
                   "disk_bytes": f.disk_bytes(), "compress_raw_peak_bytes": f.raw_peak,
                   "compress_peak_bytes": f.compress_peak,
                   "compressed_share": f.share.fraction,
                   "compressed_share_measured": f.share.measured.map(|(n, raw, m)|
                       json!({"tables": n, "raw_bytes": raw, "share": m})),
                   "unsupported_sectors": unsupported.len(),
                   "extra_state_slots": extra_total.map(|(x, _)| x),
                   "free_disk_bytes": free, "held_bytes": held, "available_memory_bytes": memory,
                   "raw_budget_bytes": budget,
                   "raw_budget_peak_bytes": within.map(|w| w.peak),
                   "raw_budget_early_tables": within.map(|w| w.early),
                   "suggested_raw_budget_bytes": suggested.flatten().map(|(b, _)| b),
                   "solvable": unsupported.is_empty()})
        );
        return Ok(());
    }
    if let Some((k, why)) = unsupported.first() {
        let all = unsupported.len() == f.rows.len();
        println!(
            "cannot solve {} of these {} sectors under these rules (sector {k}: {why}){}",
            unsupported.len(),
            f.rows.len(),
            if all {
                "; the figures below are those of positions without that state"
            } else {
                "; the moving phase (`--max-stones N`) can be solved"
            }
        );
    }
    if let Some((x, plain)) = extra_total {
        println!(
            "with that state in the index, those {} sectors would take {:.3e} slots instead of \
             {plain}, {:.1e} times as many (the README says why)",
            extra.len(),
            x as f64,
            x as f64 / plain.max(1) as f64,
        );
    }
    println!(
        "{} sectors in {} units ({} tables already present)",
        f.sectors, f.units, f.existing
    );
    println!("slots: {} ({} with stones in hand)", f.slots, f.placing);
    if f.existing > 0 {
        println!(
            "left to solve: {} slots in {} units ({:.1}% of the slots), roughly {} on 2 cores",
            f.left.0,
            f.left.1,
            100.0 * f.left.0 as f64 / f.slots.max(1) as f64,
            crate::solve::plan::rough_time(f.left.0)
        );
    }
    println!(
        "largest unit: {} slots, about {:.1} GiB while solving",
        f.largest,
        f.peak_bytes() as f64 / (1u64 << 30) as f64
    );
    println!("tables: about {:.1} GiB on disk", gib(f.disk_bytes()));
    println!(
        "with --compress: at most {:.1} GiB of raw tables at once (those sectors left to solve \
         still read, and the unit being written), about {:.1} GiB on disk at the peak with the \
         compressed tables (estimated for {}, at {})",
        gib(f.raw_peak),
        gib(f.compress_peak),
        if derive {
            "the sectors that keep their values, nothing for derived ones"
        } else {
            "every sector (--no-derive)"
        },
        f.share.describe()
    );
    if let (Some(disk), Some(memory)) = (disk, memory) {
        let fits = |need: u64, have: u64| if need <= have { "enough" } else { "not enough" };
        println!(
            "this machine: {:.1} GiB free where the tables go{}, {:.1} GiB of memory \
             available: {} memory for the largest unit, {} disk for the raw tables, {} for the \
             --compress peak",
            gib(disk - held),
            if held > 0 {
                format!(" and {:.1} GiB in the tables already there", gib(held))
            } else {
                String::new()
            },
            gib(memory),
            fits(f.peak_bytes(), memory),
            fits(f.disk_bytes(), disk),
            fits(f.compress_peak, disk),
        );
    }
    if let (Some(b), Some(w)) = (budget, within) {
        println!(
            "with --compress --raw-budget {:.1}: about {:.1} GiB on disk at the peak, {} tables \
             compressed early (every value kept) and read back through raw working copies",
            gib(b),
            gib(w.peak),
            w.early
        );
    }
    match suggested {
        Some(Some((b, w))) => println!(
            "--raw-budget {:.0} would keep the --compress peak at about {:.1} GiB ({} tables \
             compressed early)",
            gib(b),
            gib(w.peak),
            w.early
        ),
        Some(None) => println!(
            "no --raw-budget brings the --compress peak within the free disk: the compressed \
             tables alone take more"
        ),
        None => {}
    }
    Ok(())
}

/// Bytes in GiB, for the plans' text.
fn gib(b: u64) -> f64 {
    b as f64 / (1u64 << 30) as f64
}

/// Free disk where a solve writes `folder`: on the folder's file system, or the nearest
/// folder above it that exists.
pub(crate) fn free_disk_at(folder: &std::path::Path) -> Option<u64> {
    folder
        .ancestors()
        .find(|p| p.exists())
        .and_then(retro_solver::sectors::resources::free_disk)
}

/// Refuses at once a solve into a folder with none of its tables yet whose disk peak by
/// `--dry-run`'s estimate exceeds the free disk (it would fail hours later), naming what fits:
/// `--compress`, a `--raw-budget`. A resumed solve without `--compress` is refused when the
/// raw tables it has left to write exceed the free disk (a compressed solve resumed without the
/// flag would fill the disk); a resumed `--compress` solve is not checked here (its tables
/// change the figures; the unit about to be written is checked before each unit).
fn check_disk<R: SectorRules>(
    db: &SectorDb<R>,
    f: &PlanFigures,
    opts: &SolveOpts,
) -> Result<(), CliError> {
    let Some(free) = free_disk_at(&db.folder) else {
        return Ok(());
    };
    // One refusal at a time: sectors these rules leave out, and a unit beyond the memory, are
    // the solve's to refuse (naming the sector).
    let memory = retro_solver::sectors::resources::available_memory();
    if f.rows
        .iter()
        .any(|(k, _, _)| db.rules.unsupported(*k).is_some())
        || memory.is_some_and(|m| f.peak_bytes() > m)
    {
        return Ok(());
    }
    let budget = opts.raw_budget_bytes();
    let need = match (opts.compress, budget) {
        (None, _) => f.disk_bytes(),
        (Some(_), None) => f.compress_peak,
        (Some(_), Some(b)) => f.disk_under_budget(db, b).peak,
    };
    if f.existing > 0 {
        return check_resumed_raw(db, f, opts, free);
    }
    if need <= free {
        return Ok(());
    }
    let what = match (opts.compress, budget) {
        (None, _) => "for its raw tables".to_string(),
        (Some(_), None) => "at the peak of a --compress solve".to_string(),
        (Some(_), Some(b)) => format!("at the peak with --raw-budget {:.1}", gib(b)),
    };
    let remedy = if opts.compress.is_none() && f.compress_peak <= crate::solve::plan::room(free) {
        format!(
            "--compress keeps it at about {:.1} GiB",
            gib(f.compress_peak)
        )
    } else {
        match f.suggest_budget(db, free) {
            Some((b, under)) => format!(
                "{}--raw-budget {:.0} keeps it at about {:.1} GiB",
                if opts.compress.is_none() {
                    "--compress "
                } else {
                    ""
                },
                gib(b),
                gib(under.peak)
            ),
            None => "no --raw-budget makes it fit: the compressed tables alone take more".into(),
        }
    };
    Err(CliError::other(format!(
        "this solve needs about {:.1} GiB of disk {what}, {:.1} GiB is free in {}: {remedy} \
         (`--dry-run` shows the estimate, which takes compressed tables at {:.1}% of raw)",
        gib(need),
        gib(free),
        db.folder.display(),
        100.0 * f.share.fraction
    )))
}

/// [`check_disk`] of a resumed solve: without `--compress`, the raw tables of the units left
/// must fit the free disk.
fn check_resumed_raw<R: SectorRules>(
    db: &SectorDb<R>,
    f: &PlanFigures,
    opts: &SolveOpts,
    free: u64,
) -> Result<(), CliError> {
    let need = f.left.0 * 2;
    if opts.compress.is_some() || need <= free {
        return Ok(());
    }
    Err(CliError::other(format!(
        "the {} units left to solve in {} need about {:.1} GiB of disk for their raw tables, \
         {:.1} GiB is free: resume with --compress, which compresses each unit's tables once no \
         unit left reads them (`--dry-run --compress` shows its disk figures)",
        f.left.1,
        db.folder.display(),
        gib(need),
        gib(free),
    )))
}

/// What a solve reports of the start position once its tables exist: the value in words and
/// as JSON (`None` when the solve did not reach it).
pub type StartValue<'a> = &'a dyn Fn() -> Result<Option<(String, Json)>, CliError>;

/// Solves `targets` (or prints the plan) and reports per sector, then the start position's
/// value when the solve reached it; any game.
pub fn run_solve<R: retro_solver::sectors::forward::Forward>(
    db: &SectorDb<R>,
    targets: &[SectorKey],
    opts: &SolveOpts,
    label: &str,
    start_value: StartValue,
) -> Result<(), CliError> {
    let (threads, as_json, quiet) = (opts.threads, opts.json, opts.quiet);
    if opts.dry_run {
        return dry_run(db, targets, opts);
    }
    let plan = PlanFigures::deriving(db, targets, !opts.no_derive);
    check_disk(db, &plan, opts)?;
    let _lock = lock_folder(&db.folder, opts.wait, quiet || as_json)?;
    let pool = crate::output::pool(threads)?;
    let bars = Bars::new(
        quiet,
        as_json || !std::io::IsTerminal::is_terminal(&std::io::stderr()),
        plan.left.0,
    );
    let start = Instant::now();
    let reports = pool
        .install(|| {
            let options = SolveOptions {
                compress: opts.compress.map(|level| Params {
                    level,
                    ..Params::default()
                }),
                keep_derivable: opts.no_derive,
                raw_budget: opts.raw_budget_bytes(),
            };
            solve_with(db, targets, &bars, options)
        })
        .map_err(|e| match e {
            retro_solver::sectors::solve::SolveError::Unsupported(_) => CliError::input(e),
            other => CliError::other(other),
        })?;
    if let Some(b) = bars.unit.lock().expect("bar lock").take() {
        b.finish_and_clear();
    }
    bars.overall.finish_and_clear();
    let total = start.elapsed().as_secs_f64();
    let rows: Vec<Json> = reports
        .iter()
        .map(|r| {
            json!({
                "sector": r.key.to_string(),
                "slots": r.slots,
                "positions": r.counts.positions,
                "wins": r.counts.wins,
                "draws": r.counts.draws,
                "losses": r.counts.losses,
                "longest_win": r.counts.longest_win,
                "seconds": r.seconds,
                "reused": r.reused,
            })
        })
        .collect();
    let start_value = start_value()?;
    let (compressed, compress_seconds, searched_wins) =
        *bars.compressed.lock().expect("compress lock");
    let t = Totals::of(&reports, &db.folder);
    let (memory, resident) = (
        bars.memory.bytes(),
        retro_solver::sectors::resources::peak_memory(),
    );
    if as_json {
        println!(
            "{}",
            json!({"variant": label, "dir": db.folder.display().to_string(), "seconds": total,
                   "sectors": rows, "start": start_value.map(|(_, j)| j),
                   "compressed": compressed, "compress_seconds": compress_seconds,
                   "searched_wins": searched_wins,
                   "peak_memory_bytes": memory, "peak_resident_bytes": resident,
                   "totals": {"positions": t.positions, "wins": t.wins, "draws": t.draws,
                              "losses": t.losses, "placing_positions": t.placing,
                              "longest_win": t.longest.0,
                              "longest_win_sector": t.longest.1.map(|k| k.to_string()),
                              "table_bytes": t.bytes}})
        );
        return Ok(());
    }
    println!(
        "{:<12} {:>12} {:>12} {:>12} {:>12} {:>8} {:>9} {:>12}",
        "sector", "positions", "wins", "draws", "losses", "longest", "time s", "pos/s"
    );
    let mut positions = 0;
    for r in &reports {
        positions += r.counts.positions;
        let rate = if r.seconds > 0.0 {
            format!("{:.0}", r.counts.positions as f64 / r.seconds)
        } else {
            "kept".into()
        };
        println!(
            "{:<12} {:>12} {:>12} {:>12} {:>12} {:>8} {:>9.2} {:>12}",
            r.key.to_string(),
            r.counts.positions,
            r.counts.wins,
            r.counts.draws,
            r.counts.losses,
            r.counts.longest_win,
            r.seconds,
            rate
        );
    }
    println!(
        "{} sectors, {positions} positions, {total:.2} s, tables in {}",
        reports.len(),
        db.folder.display()
    );
    println!(
        "{} wins, {} draws, {} losses for the side to move ({} positions with stones in hand, \
         {} without); longest win {} plies{}; tables {:.3} GB ({} bytes) in the folder",
        t.wins,
        t.draws,
        t.losses,
        t.placing,
        t.positions - t.placing,
        t.longest.0,
        t.longest
            .1
            .map_or(String::new(), |k| format!(" (sector {k})")),
        t.bytes as f64 / 1e9,
        t.bytes
    );
    if compressed > 0 {
        println!(
            "{compressed} tables compressed or derived in {compress_seconds:.1} s of it \
             ({searched_wins} wins' distances left to a search)"
        );
    }
    println!(
        "peak memory {} (anonymous, sampled every half second){}",
        human(memory),
        resident.map_or(String::new(), |r| format!(
            "; {} resident with the pages of the mapped tables, which the kernel drops at will",
            human(r)
        ))
    );
    if let Some((text, _)) = start_value {
        println!("start position: {text}");
    }
    Ok(())
}

/// What a solve's report adds up to over its sectors (those it solved and those it kept).
struct Totals {
    positions: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    /// Positions of sectors with stones in hand.
    placing: u64,
    /// The longest win and its sector (the first of the longest).
    longest: (u16, Option<SectorKey>),
    /// Bytes of the table files in the folder (raw, compressed and derived).
    bytes: u64,
}

impl Totals {
    fn of(
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
fn table_bytes(folder: &std::path::Path) -> u64 {
    retro_tables::verify::table_files(folder)
        .unwrap_or_default()
        .iter()
        .filter(|p| p.extension().is_none_or(|e| e != "tmp"))
        .filter_map(|p| p.metadata().ok())
        .map(|m| m.len())
        .sum()
}

/// Runs `retro solve`.
pub fn run(a: &SolveArgs) -> Result<(), CliError> {
    let opts = SolveOpts {
        max_stones: a.max_stones,
        threads: a.threads,
        json: a.json,
        quiet: a.quiet,
        dry_run: a.dry_run,
        wait: a.wait,
        compress: a.compress.then_some(a.compress_level),
        no_derive: a.no_derive,
        raw_budget: a.raw_budget,
    };
    match a.game {
        GameKind::Mill => mill::solve(&a.rules, &a.dir, &a.sectors, &opts),
        GameKind::Dara => dara::solve(&a.rules, &a.dir, &a.sectors, &opts),
        GameKind::Oaq => {
            if a.max_stones.is_some() || !a.sectors.is_empty() || a.dry_run {
                return Err(CliError::input(
                    "--max-stones, --sector and --dry-run are for Mill and Dara; Ô Ăn Quan is solved whole (--rule seeds=K,M)",
                ));
            }
            oaq::solve(&a.rules, &a.dir, &opts)
        }
    }
}
