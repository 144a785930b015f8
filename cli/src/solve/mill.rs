//! `retro solve mill`: which sectors a request means.

use crate::args::RuleArgs;
use crate::error::CliError;
use crate::games::mill::game;
use crate::solve::{run_solve, SolveOpts};
use retro_solver::mill::sectors::{moving_phase, start_sector};
use retro_solver::mill::Db;
use retro_solver::sectors::sector::SectorKey;
use std::path::Path;

/// A `--sector` (`text`, read as `k`) that the game has and that holds positions to play: no
/// side with more stones than it plays with or fewer than it needs, no more stones on the
/// board than it has points.
pub fn check_sector(
    m: &retro_engine::mill::Mill,
    k: SectorKey,
    text: &str,
    variant: &str,
) -> Result<(), CliError> {
    // Widened before adding: u8 sums would wrap past the check (200 + 60 = 4).
    let max = m.profile.stones as u32;
    let (w, b, wf, bf) = (k.w as u32, k.b as u32, k.wf as u32, k.bf as u32);
    if w + wf > max || b + bf > max || (w + b) as usize > m.geo.points {
        return Err(CliError::input(format!(
            "sector {text} does not exist in {variant}"
        )));
    }
    let min = m.profile.min_stones as u32;
    if w + wf < min || b + bf < min {
        return Err(CliError::input(format!(
            "sector {text} holds no position to solve in {variant}: a side with fewer than {min} \
             stones (board and hand) has lost"
        )));
    }
    Ok(())
}

/// `retro solve mill`.
pub fn solve(
    rules: &RuleArgs,
    dir: &Path,
    sectors: &[String],
    opts: &SolveOpts,
) -> Result<(), CliError> {
    let max_stones = opts.max_stones;
    let m = game(rules)?;
    let mut targets = Vec::new();
    for s in sectors {
        let k = SectorKey::parse(s).ok_or_else(|| {
            CliError::input(format!(
                "bad --sector '{s}': expected W,B,WF,BF (e.g. 3,3,0,0)"
            ))
        })?;
        check_sector(&m, k, s, rules.mill_variant())?;
        targets.push(k);
    }
    if let Some(n) = max_stones {
        if n < m.profile.min_stones || n > m.profile.stones {
            return Err(CliError::input(format!(
                "--max-stones must be from {} to {}",
                m.profile.min_stones, m.profile.stones
            )));
        }
        targets.extend(moving_phase(&m.profile, n));
    }
    if targets.is_empty() {
        targets.push(start_sector(&m.profile));
    }
    let whole = targets.contains(&start_sector(&m.profile));
    let db = Db::new(m, dir);
    let start_value = || {
        if !whole {
            return Ok(None);
        }
        let err = |e| crate::solve::missing::probe_err(&db, rules.mill_variant(), dir, e);
        let start = db.game().start();
        let (result, plies) = match db.value(&start) {
            Ok(v) => (v.result(), v.plies()),
            Err(e) if e.no_distances() => (db.wdl(&start).map_err(err)?.result(), None),
            Err(e) => return Err(err(e)),
        };
        let value = serde_json::json!({"result": result, "plies": plies});
        Ok(Some((crate::output::describe(&value), value)))
    };
    run_solve(&db, &targets, opts, rules.mill_variant(), &start_value)
}
