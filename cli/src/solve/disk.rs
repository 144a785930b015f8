//! The disk (and memory) a solve needs: `--dry-run`'s figures, and the checks before a solve
//! starts.

use super::*;
use crate::output::count;

/// Prints what `--dry-run` says of a solve of `targets` (text or JSON): its size, memory,
/// disk with and without `--compress` and `--raw-budget`, and the room this machine has.
pub(super) fn dry_run<R: SectorRules>(
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
    // What the runs so far logged, and the rate they solved at.
    let log = crate::solve::journal::summary(&db.folder);
    let rate = log.as_ref().and_then(crate::solve::plan::logged_rate);
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
                   "log": log.map(|l| l.json()),
                   "logged_slots_per_second": rate,
                   "usual_slots_per_second": f.rate,
                   "estimated_seconds": f.left.0 as f64 / rate.unwrap_or(f.rate),
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
        "{} in {} ({} already present)",
        count(f.sectors, "sector"),
        count(f.units, "unit"),
        count(f.existing, "table")
    );
    println!("slots: {} ({} with stones in hand)", f.slots, f.placing);
    if let Some(l) = log {
        println!(
            "its solve log ({}): {}",
            crate::solve::journal::FILE,
            l.describe()
        );
    }
    // The time left: at the rate the folder's solve log shows, else at the usual rates of
    // the units left (`plan::unit_rate`).
    let when = match rate {
        Some(r) => format!(
            "{} at the rate its solve log shows ({:.1} million slots a second, compressing \
             included)",
            crate::solve::plan::rough_time_at(f.left.0, r),
            r / 1e6
        ),
        None => format!(
            "{} on 2 cores (at {:.1} million slots a second, the usual rate of these units on \
             a 2-core machine like the project's)",
            crate::solve::plan::rough_time_at(f.left.0, f.rate),
            f.rate / 1e6
        ),
    };
    if f.existing == 0 && f.left.0 > 0 {
        println!("time: roughly {when}");
    }
    if f.existing > 0 {
        println!(
            "left to solve: {} slots in {} ({:.1}% of the slots), roughly {when}",
            f.left.0,
            count(f.left.1, "unit"),
            100.0 * f.left.0 as f64 / f.slots.max(1) as f64,
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
            "with --compress --raw-budget {:.1}: about {:.1} GiB on disk at the peak, {} \
             compressed early (every value kept) and read back through raw working copies",
            gib(b),
            gib(w.peak),
            count(w.early, "table")
        );
    }
    match suggested {
        Some(Some((b, w))) => println!(
            "--raw-budget {:.0} would keep the --compress peak at about {:.1} GiB ({} \
             compressed early)",
            gib(b),
            gib(w.peak),
            count(w.early, "table")
        ),
        Some(None) => println!(
            "no --raw-budget brings the --compress peak within the free disk at that share: even \
             --raw-budget 1 peaks at about {:.1} GiB. {}",
            gib(f.disk_under_budget(db, 1 << 30).peak),
            if f.share.measured.is_none() {
                "The share is an estimate: free more disk, or start with a small --raw-budget \
                 and --ignore-disk-estimate and run --dry-run again once the folder holds a GiB \
                 (raw) of its own compressed tables, whose share then replaces it"
            } else {
                "Free more disk"
            }
        ),
        None => {}
    }
    Ok(())
}

/// Bytes in GiB, for the plans' text.
pub(super) fn gib(b: u64) -> f64 {
    b as f64 / (1u64 << 30) as f64
}

/// Free disk where a solve writes `folder`: on the folder's file system, or the nearest
/// folder above it that exists (the working folder for a relative path none of whose folders
/// exist yet, such as the default `databases` outside the repository).
pub(crate) fn free_disk_at(folder: &std::path::Path) -> Option<u64> {
    let here = std::path::Path::new(".");
    folder
        .ancestors()
        .map(|p| if p.as_os_str().is_empty() { here } else { p })
        .find(|p| p.exists())
        .and_then(retro_solver::sectors::resources::free_disk)
}

/// Refuses at once a solve into a folder with none of its tables yet whose disk peak by
/// `--dry-run`'s estimate exceeds the free disk (it would fail hours later), naming what fits:
/// `--compress`, a `--raw-budget`. A resumed solve without `--compress` is refused when the
/// raw tables it has left to write exceed the free disk (a compressed solve resumed without the
/// flag would fill the disk); a resumed `--compress` solve is not checked here (its tables
/// change the figures; the unit about to be written is checked before each unit).
pub(super) fn check_disk<R: SectorRules>(
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
    if need <= free || (opts.compress.is_some() && opts.ignore_disk_estimate) {
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
    let anyway = if opts.compress.is_some() {
        "; --ignore-disk-estimate starts it anyway (the room for each unit's raw tables and \
         working copies is checked before it is solved)"
    } else {
        ""
    };
    Err(CliError::other(format!(
        "this solve needs about {:.1} GiB of disk {what}, {:.1} GiB is free in {}: {remedy} \
         (`--dry-run` shows the estimate, which takes compressed tables at {:.1}% of raw){anyway}",
        gib(need),
        gib(free),
        db.folder.display(),
        100.0 * f.share.fraction
    )))
}

/// [`check_disk`] of a resumed solve: without `--compress`, the raw tables of the units left
/// must fit the free disk.
pub(super) fn check_resumed_raw<R: SectorRules>(
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
        "the {} left to solve in {} need about {:.1} GiB of disk for their raw tables, \
         {:.1} GiB is free: resume with --compress, which compresses each unit's tables once no \
         unit left reads them (`--dry-run --compress` shows its disk figures)",
        count(f.left.1, "unit"),
        db.folder.display(),
        gib(need),
        gib(free),
    )))
}
