//! `retro solve oaq --dry-run`: the size of a whole Ô Ăn Quan solve before it starts (slots,
//! memory, what the folder holds), and the limit on the games solved whole.

use crate::args::RuleArgs;
use crate::error::CliError;
use crate::games::oaq::{checkpoint_path, game, table_path};
use crate::solve::SolveOpts;
use retro_engine::oaq::Oaq;
use retro_solver::oaq::canon::Canon;
use retro_solver::sectors::resources::{available_memory, human};
use serde_json::json;
use std::path::Path;

/// Most seeds of a game solved whole (`seeds=2,5`, 30, is the largest this 24 GiB machine
/// solved; 40 leaves room for bigger machines).
const MAX_SEEDS: u32 = 40;

/// The game of `rules`, refused when it has too many seeds to solve whole.
pub fn solvable(rules: &RuleArgs) -> Result<Oaq, CliError> {
    let g = game(rules)?;
    let seeds = g.profile.total_seeds();
    if seeds > MAX_SEEDS {
        return Err(CliError::input(format!(
            "{seeds} seeds: too many to solve whole on one machine (try --rule seeds=2,2); \
             `retro analyse oaq` searches bigger games"
        )));
    }
    Ok(g)
}

/// The share of canonical slots reachable in the largest games solved (seeds=2,2: 592,097,196
/// of 1,251,677,701; seeds=2,5: 4,455,138,474 of 11,058,116,889), in percent.
const LIKELY_PERCENT: u64 = 47;

/// Memory figures of a solve, in bytes, from its slot counts.
struct Figures {
    /// Dense index slots (both sides to move, every big-piece state).
    dense: u64,
    /// Canonical slots (South to move; a position and its mirror share one).
    canonical: u64,
    /// The search of reachable positions: two bit sets over the dense slots, one over the
    /// canonical ones.
    reach: u64,
    /// The value sweeps before their values: the dense bit set, the canonical one with its
    /// rank directory (8 words per 7), the open positions' bit set.
    sweeps_base: u64,
}

impl Figures {
    fn of(g: &Oaq) -> Figures {
        let canon = Canon::new(g);
        let (dense, canonical) = (canon.idx.size(), canon.size());
        let bits = |n: u64| n.div_ceil(64) * 8;
        Figures {
            dense,
            canonical,
            reach: 2 * bits(dense) + bits(canonical),
            sweeps_base: bits(dense) + bits(canonical).div_ceil(56) * 64 + bits(canonical),
        }
    }

    /// The sweeps' memory when [`LIKELY_PERCENT`] of the canonical slots are reachable.
    fn sweeps_likely(&self) -> u64 {
        self.sweeps_base + 2 * self.canonical * LIKELY_PERCENT / 100
    }

    /// What a solve likely needs at its peak: the reach search or the sweeps at
    /// [`LIKELY_PERCENT`], whichever is more.
    fn likely_peak(&self) -> u64 {
        self.reach.max(self.sweeps_likely())
    }

    /// The sweeps' memory when every canonical slot is reachable (2 bytes a value).
    fn sweeps_most(&self) -> u64 {
        self.sweeps_base + 2 * self.canonical
    }
}

/// A warning when a solve of `g` likely needs more memory than this machine has available
/// (said before a solve starts: it would run for hours, then fail to allocate).
pub fn memory_warning(g: &Oaq) -> Option<String> {
    let f = Figures::of(g);
    let need = f.likely_peak();
    let m = available_memory()?;
    (need > m).then(|| {
        format!(
            "warning: this game likely needs about {} of memory ({} slots; `--dry-run` gives \
             the figures) and {} is available",
            human(need),
            f.dense,
            human(m)
        )
    })
}

/// Prints the plan of `retro solve oaq` for `rules`; solves nothing.
pub fn dry_run(rules: &RuleArgs, dir: &Path, opts: &SolveOpts) -> Result<(), CliError> {
    let g = solvable(rules)?;
    crate::output::check_threads(opts.threads)?;
    let f = Figures::of(&g);
    let path = table_path(&g, dir);
    let checkpoint = checkpoint_path(&path);
    let (table, resumes) = (path.exists(), checkpoint.exists());
    let memory = available_memory();
    let fits = memory.map(|m| f.likely_peak() <= m);
    if opts.json {
        println!(
            "{}",
            json!({"rules": g.profile.fingerprint(), "seeds": g.profile.total_seeds(),
                   "table": path.display().to_string(), "table_exists": table,
                   "checkpoint_exists": resumes, "dense_slots": f.dense,
                   "canonical_slots": f.canonical, "reach_bytes": f.reach,
                   "sweeps_bytes_before_values": f.sweeps_base,
                   "sweeps_bytes_likely": f.sweeps_likely(),
                   "sweeps_bytes_at_most": f.sweeps_most(),
                   "available_memory_bytes": memory, "fits": fits})
        );
        return Ok(());
    }
    println!(
        "Ô Ăn Quan, {} ({} seeds)",
        g.profile.fingerprint(),
        g.profile.total_seeds()
    );
    println!(
        "{} index slots ({} with South to move: a position and its mirror share a value)",
        f.dense, f.canonical
    );
    println!(
        "memory: {} to find the reachable positions (bit sets); then {} and 2 bytes a \
         reachable position with South to move: about {} if {}% of those slots are reachable \
         (seeds=2,2 reached 47%, seeds=2,5 40%), at most {}",
        human(f.reach),
        human(f.sweeps_base),
        human(f.sweeps_likely()),
        LIKELY_PERCENT,
        human(f.sweeps_most())
    );
    if table {
        println!("{} exists: a solve keeps it if it verifies", path.display());
    } else if resumes {
        println!("{} exists: a solve resumes from it", checkpoint.display());
    }
    if let (Some(m), Some(fits)) = (memory, fits) {
        println!(
            "this machine: {} of memory available: {}",
            human(m),
            if fits {
                "enough if the reachable share is as expected"
            } else {
                "not enough unless far fewer positions are reachable than expected"
            }
        );
    }
    Ok(())
}
