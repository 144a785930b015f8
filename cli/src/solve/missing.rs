//! A missing Mill table as an error: the solve command that builds it, what that costs (the
//! `--dry-run` figures), and the cheap alternatives when it is a big solve.

use crate::error::CliError;
use crate::solve::plan::PlanFigures;
use retro_solver::mill::sectors::start_sector;
use retro_solver::mill::Db;
use retro_solver::sectors::db::ProbeError;
use std::path::Path;

/// The `--rule` flags that turn preset `variant` into the tables' rules (the fields that
/// differ; the N-move rule, a play rule, left out).
fn rule_flags(db: &Db, variant: &str) -> String {
    let Ok(preset) = retro_engine::mill::Profile::preset(variant) else {
        return String::new();
    };
    let base = preset.describe();
    db.game()
        .profile
        .describe()
        .into_iter()
        .zip(base)
        .filter(|((k, v), (_, b))| *k != "n-move-rule" && v != b)
        .map(|((k, v), _)| format!(" --rule {k}={v}"))
        .collect()
}

/// A probe error as a CLI error; a missing table names the solve command that builds it, what
/// that costs (the `--dry-run` figures), and the cheap alternatives when it is a big solve.
pub fn probe_err(db: &Db, variant: &str, dir: &Path, e: ProbeError) -> CliError {
    match e {
        ProbeError::Missing { sector, .. } => {
            if let Some(hint) = crate::games::table_folder_hint(dir) {
                return CliError::other(format!(
                    "no table for sector {sector} of {variant} in {}: {hint}",
                    db.folder.display()
                ));
            }
            let plan = PlanFigures::new(db, &[sector]);
            let flags = rule_flags(db, variant);
            // Raw tables beyond the free disk: the solve must compress (as one that was
            // started with --compress must be resumed).
            let compress = crate::solve::free_disk_at(&db.folder)
                .is_some_and(|free| plan.needs_compress(free));
            let mut msg = format!(
                "no table for sector {sector} of {variant} in {}\n  build it with: retro solve \
                 mill --variant {variant}{flags}{} --dir {} --sector {},{},{},{}\n  that solves \
                 {}{} (`--dry-run` shows the plan)",
                db.folder.display(),
                if compress { " --compress" } else { "" },
                dir.display(),
                sector.w,
                sector.b,
                sector.wf,
                sector.bf,
                plan.summary(compress),
                if sector == start_sector(&db.game().profile) {
                    ": the whole game, placement included"
                } else {
                    ""
                }
            );
            if plan.slots > 500_000_000 {
                msg.push_str(&format!(
                    "\n  cheaper: `retro solve mill --variant six-mens-morris` (a whole smaller \
                     game, seconds) or `retro solve mill --variant {variant}{flags} --max-stones 4` (the \
                     moving-phase endgames up to 4 against 4, seconds), then analyse positions \
                     inside them"
                ));
            }
            CliError::other(msg)
        }
        other => CliError::other(other),
    }
}
