//! `retro analyse`: perfect play from the tables, a search where none holds the position, and
//! game records played through the referee.

pub mod dara;
pub mod mill;
pub mod oaq;

use crate::args::{AnalyseArgs, GameKind};
use crate::error::CliError;
use crate::referee;

/// Runs `retro analyse`.
pub fn run(a: &AnalyseArgs) -> Result<(), CliError> {
    crate::games::refuse_table_folder(&a.dir)?;
    if a.annotate && a.moves.is_none() && a.record.is_none() {
        return Err(CliError::input("--annotate needs --moves or --record"));
    }
    if a.removal && !matches!(a.game, GameKind::Mill) {
        return Err(CliError::input(
            "--removal is for Mill (the distance to the next removal and cursed wins); Dara \
             and Ô Ăn Quan tables have no N-move rule to beat",
        ));
    }
    let record = referee::read_record(a.moves.as_deref(), a.record.as_deref())?;
    match a.game {
        GameKind::Mill => {
            let limits = crate::output::limits(a.depth, a.time)?;
            let search = a.search || a.depth.is_some() || a.time.is_some();
            let opts = mill::AnalyseOpts {
                pv: a.pv,
                as_json: a.json,
                record,
                annotate: a.annotate,
                removal: a.removal,
                search: search.then_some(limits),
            };
            mill::analyse(
                &a.rules,
                &a.dir,
                a.fen.as_deref(),
                a.batch.as_deref(),
                &opts,
            )
        }
        GameKind::Dara => dara::analyse(a, record.as_deref()),
        GameKind::Oaq => oaq::analyse(a, record.as_deref()),
    }
}
