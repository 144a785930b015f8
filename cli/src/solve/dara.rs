//! `retro solve dara`: which sectors a request means.

use crate::args::RuleArgs;
use crate::error::CliError;
use crate::games::dara::game;
use retro_solver::dara::rules::DaraRules;
use retro_solver::sectors::db::Db;

/// `retro solve dara`: the movement-phase endgames (W against B stones, no stones in hand).
pub fn solve(
    rules: &RuleArgs,
    dir: &std::path::Path,
    sectors: &[String],
    opts: &crate::solve::SolveOpts,
) -> Result<(), CliError> {
    use retro_solver::sectors::sector::SectorKey;
    let g = game(rules)?;
    let mut targets = Vec::new();
    for s in sectors {
        let (w, b) = parse_endgame(s)?;
        targets.push(SectorKey { w, b, wf: 0, bf: 0 });
    }
    if let Some(n) = opts.max_stones {
        if !(3..=12).contains(&n) {
            return Err(CliError::input("--max-stones must be from 3 to 12"));
        }
        for w in 3..=n {
            for b in 3..=n {
                targets.push(SectorKey { w, b, wf: 0, bf: 0 });
            }
        }
    }
    if targets.is_empty() {
        return Err(CliError::input(
            "say which endgames: --max-stones N (all up to N a side) or --sector WvB (e.g. 5v4)",
        ));
    }
    let db = Db::with_rules(DaraRules { game: g }, dir);
    crate::solve::run_solve(&db, &targets, opts, "dara", &|| Ok(None))
}

/// [`parse_sector`], and a Dara endgame: each side 3 to 12 stones.
pub fn parse_endgame(s: &str) -> Result<(u8, u8), CliError> {
    let (w, b) = parse_sector(s)?;
    if !(3..=12).contains(&w) || !(3..=12).contains(&b) {
        return Err(CliError::input(format!(
            "sector {s}: each side has 3 to 12 stones in a Dara endgame"
        )));
    }
    Ok((w, b))
}

/// A Dara endgame as `--sector` names it: `W,B`, `WvB` or `W,B,0,0` (stones of the side to
/// move, of the other).
pub fn parse_sector(s: &str) -> Result<(u8, u8), CliError> {
    let parsed: Option<Vec<u8>> = s
        .split(['v', ',', '_'])
        .map(|x| x.trim().parse().ok())
        .collect();
    match parsed.as_deref() {
        Some(&[w, b]) | Some(&[w, b, 0, 0]) => Ok((w, b)),
        _ => Err(CliError::input(format!(
            "bad --sector '{s}': expected W,B or WvB (e.g. 5v4; W,B,0,0 also: Dara's endgames \
             have no stones in hand)"
        ))),
    }
}
