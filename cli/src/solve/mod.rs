//! `retro solve`: the sector solver driven for Mill and Dara (progress bars, dry runs), and
//! the whole-game Ô Ăn Quan solve.

mod bars;
pub mod dara;
mod disk;
pub mod journal;
pub mod mill;
pub mod missing;
pub mod oaq;
pub mod oaq_plan;
pub mod peak;
pub mod plan;
mod report;

use bars::Bars;
pub(crate) use disk::free_disk_at;
use disk::{check_disk, dry_run};
use report::Totals;

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
    /// `--ignore-disk-estimate`: a fresh `--compress` solve is not refused by the estimate.
    pub ignore_disk_estimate: bool,
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
        // A refused --threads is refused in a dry run too.
        crate::output::check_threads(threads)?;
        return dry_run(db, targets, opts);
    }
    // The arguments first: a refused --threads leaves the folder untouched.
    let pool = crate::output::pool(threads)?;
    let plan = PlanFigures::deriving(db, targets, !opts.no_derive);
    check_disk(db, &plan, opts)?;
    let _lock = lock_folder(&db.folder, opts.wait, quiet || as_json)?;
    let bars = Bars::new(
        quiet,
        as_json || !std::io::IsTerminal::is_terminal(&std::io::stderr()),
        plan.left.0,
        &db.folder,
        plan.rate,
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
    let log = journal::summary(&db.folder);
    if as_json {
        println!(
            "{}",
            json!({"variant": label, "dir": db.folder.display().to_string(), "seconds": total,
                   "sectors": rows, "start": start_value.map(|(_, j)| j),
                   "compressed": compressed, "compress_seconds": compress_seconds,
                   "searched_wins": searched_wins,
                   "peak_memory_bytes": memory, "peak_resident_bytes": resident,
                   "log": log.map(|l| l.json()),
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
        "{}, {positions} positions, {total:.2} s, tables in {}",
        crate::output::count(reports.len(), "sector"),
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
            "{} compressed or derived in {compress_seconds:.1} s of it \
             ({searched_wins} wins' distances left to a search)",
            crate::output::count(compressed as usize, "table")
        );
    }
    if let Some(memory) = memory {
        println!(
            "peak memory {} (anonymous, sampled every half second){}",
            human(memory),
            resident.map_or(String::new(), |r| format!(
                "; {} resident with the pages of the mapped tables, which the kernel drops at \
                 will",
                human(r)
            ))
        );
    }
    if let Some(l) = log.filter(|l| l.runs > 1) {
        println!(
            "the folder's solve log ({}): {}",
            journal::FILE,
            l.describe()
        );
    }
    if let Some((text, _)) = start_value {
        println!("start position: {text}");
    }
    Ok(())
}

/// Runs `retro solve`.
pub fn run(a: &SolveArgs) -> Result<(), CliError> {
    crate::games::refuse_table_folder(&a.dir)?;
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
        ignore_disk_estimate: a.ignore_disk_estimate,
    };
    match a.game {
        GameKind::Mill => mill::solve(&a.rules, &a.dir, &a.sectors, &opts),
        GameKind::Dara => dara::solve(&a.rules, &a.dir, &a.sectors, &opts),
        GameKind::Oaq => {
            if a.max_stones.is_some() || !a.sectors.is_empty() {
                return Err(CliError::input(
                    "--max-stones and --sector are for Mill and Dara; Ô Ăn Quan is solved whole (--rule seeds=K,M)",
                ));
            }
            if a.compress || a.no_derive || a.raw_budget.is_some() {
                return Err(CliError::input(
                    "--compress, --no-derive and --raw-budget are for the sector tables of Mill \
                     and Dara; an Ô Ăn Quan table is one file, written compact already \
                     (databases/README.md, \"Compact\")",
                ));
            }
            if a.dry_run {
                return oaq_plan::dry_run(&a.rules, &a.dir, &opts);
            }
            oaq::solve(&a.rules, &a.dir, &opts)
        }
    }
}
