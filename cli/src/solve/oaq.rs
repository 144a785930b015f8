//! `retro solve oaq`: the exact values of a whole small Ô Ăn Quan game, into one table.

use crate::args::RuleArgs;
use crate::error::CliError;
use crate::games::oaq::{checkpoint_path, open_table, table_path};
use crate::solve::{lock_folder, SolveOpts};
use indicatif::{ProgressBar, ProgressStyle};
use retro_tables::TableError;

use retro_solver::oaq::big::solve_big;
use retro_solver::oaq::compact as oaq_compact;
use retro_solver::oaq::index::OaqIndex;
use retro_solver::oaq::table::OaqProbe;
use retro_solver::oaq::values::{Checkpoints, OaqProgress};
use retro_solver::sectors::resources::{human, peak_memory};
use retro_tables::oaq_table::{ENCODING_OAQ_COMPACT, ENCODING_OAQ_I16};
use serde_json::json;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The progress shown, and the last sweep percent shown (`sweep * 1000 + percent`).
struct Spinner(ProgressBar, AtomicU64);

impl OaqProgress for Spinner {
    fn reached(&self, positions: u64) {
        if std::env::var_os("RETRO_TIMING").is_some() {
            eprintln!(
                "reached {positions} ({:.2} s)",
                self.0.elapsed().as_secs_f64()
            );
        }
        self.0
            .set_message(format!("marking reachable positions: {positions}"));
        self.0.tick();
    }
    fn sweep(&self, sweep: u32, changed: u64) {
        if std::env::var_os("RETRO_TIMING").is_some() {
            eprintln!(
                "sweep {sweep}: {changed} values moved ({:.2} s)",
                self.0.elapsed().as_secs_f64()
            );
        }
        self.0
            .set_message(format!("value sweep {sweep}: {changed} values moved"));
        self.0.tick();
    }
    fn sweeping(&self, sweep: u32, done: u64, total: u64) {
        let now = done * 100 / total.max(1);
        // Each whole percent once (this is called a few hundred times a second, from threads).
        let key = sweep as u64 * 1000 + now;
        if self.1.fetch_max(key, Ordering::Relaxed) >= key {
            return;
        }
        if std::env::var_os("RETRO_TIMING").is_some() && now.is_multiple_of(10) {
            eprintln!(
                "sweep {sweep}: {now}% ({:.2} s)",
                self.0.elapsed().as_secs_f64()
            );
        }
        self.0
            .set_message(format!("value sweep {sweep}: {now}% of the slots"));
    }
    /// Said even under `--quiet`: the solve starts over, and the user should know why.
    fn refused(&self, path: &std::path::Path, why: &str) {
        self.0.suspend(|| {
            eprintln!(
                "checkpoint {} not used: {why}; solving from the start",
                path.display()
            )
        });
    }
}

fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// `retro solve oaq`.
pub fn solve(rules: &RuleArgs, dir: &Path, opts: &SolveOpts) -> Result<(), CliError> {
    let (threads, as_json, quiet) = (opts.threads, opts.json, opts.quiet);
    let g = crate::solve::oaq_plan::solvable(rules)?;
    // The arguments first: a refused --threads leaves the folder untouched.
    let pool = crate::output::pool(threads)?;
    let path = table_path(&g, dir);
    let folder = path.parent().unwrap_or(dir);
    let _lock = lock_folder(folder, opts.wait, quiet || as_json)?;
    let start_time = Instant::now();
    // A table that verifies is kept; a damaged or stale one is rebuilt, and the user told why
    // (even under --quiet).
    let verified = open_table(&g, dir).and_then(|t| {
        if let Some(t) = &t {
            t.verify()?;
        }
        Ok(t)
    });
    let kept = match verified {
        Ok(t) => t,
        // A table that cannot be read at all is not rebuilt over: the user must look.
        Err(e @ TableError::Io(..)) => return Err(CliError::other(e)),
        Err(e) => {
            eprintln!("rebuilding: {e}");
            None
        }
    };
    let mut converted = None;
    let (header, start_value, stats, reused) = match kept {
        Some(t) => {
            let start = t
                .value(&g, &OaqIndex::new(&g), &g.start())
                .map_err(CliError::other)?
                .ok_or_else(|| {
                    CliError::other(format!("{}: the start position is missing", path.display()))
                })?;
            let mut header = t.header.clone();
            if header.encoding == ENCODING_OAQ_I16 {
                // A dense table of an earlier version: rewritten compact, atomically.
                let before = file_len(&path);
                header = pool
                    .install(|| oaq_compact::from_dense(&g, &t, &path))
                    .map_err(CliError::other)?;
                converted = Some((before, file_len(&path)));
            }
            (header, start, None, true)
        }
        None => {
            let bar = if quiet {
                ProgressBar::hidden()
            } else {
                ProgressBar::new_spinner()
            };
            bar.set_style(
                ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                    .expect("template"),
            );
            let spinner = Spinner(bar, AtomicU64::new(0));
            // Said even under --quiet, as a refused checkpoint is: the solve may take hours.
            if let Some(w) = crate::solve::oaq_plan::memory_warning(&g) {
                spinner.0.suspend(|| eprintln!("{w}"));
            }
            // A killed solve resumes from its last checkpoint (saved after the search of
            // reachable positions, then every 10 minutes or RETRO_CHECKPOINT_SECS).
            let every = std::env::var("RETRO_CHECKPOINT_SECS")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(600);
            let checkpoints = Checkpoints {
                path: checkpoint_path(&path),
                every: std::time::Duration::from_secs(every),
            };
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| {
                    CliError::other(format!("cannot create {}: {e}", dir.display()))
                })?;
            }
            let solved = pool
                .install(|| solve_big(&g, &spinner, Some(&checkpoints)))
                .map_err(CliError::other)?;
            spinner.0.set_message("writing the table");
            let header = pool
                .install(|| solved.write_compact(&g, &path))
                .map_err(CliError::other)?;
            spinner.0.finish_and_clear();
            let _ = std::fs::remove_file(&checkpoints.path);
            (
                header,
                solved.start,
                Some((solved.stats.clone(), solved.canonical)),
                false,
            )
        }
    };
    let secs = start_time.elapsed().as_secs_f64();
    let peak = peak_memory();
    if as_json {
        let mut out = json!({
            "rules": g.profile.fingerprint(),
            "table": path.display().to_string(),
            "reused": reused,
            "positions": header.positions(),
            "slots": header.slots,
            "format": if header.encoding == ENCODING_OAQ_COMPACT { "compact" } else { "dense" },
            "stored_values": header.stored(),
            "start_value": start_value,
            "positive": header.positive,
            "zero": header.zero,
            "negative": header.negative,
            "max": header.max,
            "min": header.min,
            "seconds": secs,
            "peak_memory_bytes": peak,
        });
        if let Some((before, after)) = converted {
            out["converted_from_dense_bytes"] = json!(before);
            out["table_bytes"] = json!(after);
        }
        if let Some((s, canonical)) = &stats {
            out["canonical_positions"] = json!(canonical);
            out["moves"] = json!(s.moves);
            out["finished_games"] = json!(s.terminal);
            out["sweeps"] = json!(s.sweeps);
        }
        println!("{out}");
        return Ok(());
    }
    println!("Ô Ăn Quan, {}", g.profile.fingerprint());
    println!(
        "{} reachable positions{}",
        header.positions(),
        if reused {
            " (table kept: it verifies)"
        } else {
            ""
        }
    );
    if let Some((before, after)) = converted {
        println!(
            "dense table of an earlier version rewritten in the compact format: {} -> {}",
            human(before),
            human(after)
        );
    }
    if let Some((s, canonical)) = &stats {
        println!(
            "{} moves, {} finished games, {} index slots, {} value sweeps",
            s.moves, s.terminal, s.slots, s.sweeps
        );
        println!("{canonical} positions solved (a position and its mirror share one value)");
    }
    println!(
        "values {}: {} positive, {} zero, {} negative; from {} to {}",
        if header.encoding == ENCODING_OAQ_COMPACT {
            "stored (South to move; a position and its mirror share one)"
        } else {
            "for the side to move"
        },
        header.positive,
        header.zero,
        header.negative,
        header.min,
        header.max
    );
    println!("start position: {start_value:+} (future net seeds for South, who moves first)");
    println!(
        "{:.2} s, peak memory {}, table {}",
        secs,
        peak.map_or("?".to_string(), human),
        path.display()
    );
    Ok(())
}
