//! Mill's sectors valued forwards: the placing sectors under `mark-and-delay`, whose positions
//! carry marked points ([`crate::sectors::marked_points::MarkedIndex`]). Every ply while placing puts a stone from a hand on
//! the board, so each move leaves the sector: a position's value is the best of its moves',
//! read through the engine's own moves (removals, the end of placing and what follows it
//! included) from the tables of the sectors they lead to.

use crate::mill::probe::move_value;
use crate::mill::probe::over_value;
use crate::mill::rules::MillRules;
use crate::sectors::db::{Db, ProbeError};
use crate::sectors::folded::Folded;
use crate::sectors::forward::Forward;
use crate::sectors::retro::Progress;
use crate::sectors::rules::SectorRules;
use rayon::prelude::*;
use retro_engine::mill::Position;
use retro_tables::value::{MAX_STORED_DISTANCE, WASTED};
use retro_tables::{SectorKey, Value};

impl Forward for MillRules {
    fn forward_values(
        db: &Db<MillRules>,
        k: SectorKey,
        progress: &dyn Progress,
    ) -> Option<Result<Vec<u16>, ProbeError>> {
        db.rules.marked_points(k)?;
        Some(values(db, k, progress))
    }
}

/// The engine position of a slot's stones and marks in sector `k`.
pub fn marked_position(
    rules: &MillRules,
    k: SectorKey,
    own: u32,
    opp: u32,
    marks: u32,
) -> Position {
    let mut p = Folded::in_sector(k, own, opp).to_position(&rules.game);
    p.marked = marks;
    p
}

fn values(
    db: &Db<MillRules>,
    k: SectorKey,
    progress: &dyn Progress,
) -> Result<Vec<u16>, ProbeError> {
    let idx = db.rules.marked_index(k).ok_or(ProbeError::Unsupported {
        sector: k,
        why: "its marked points do not fit beside its stones".into(),
    })?;
    let n = idx.size();
    let chunk = 1 << 12;
    let parts = (0..n.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let (lo, hi) = (c * chunk, (c * chunk + chunk).min(n));
            let mut moves = Vec::new();
            let out = (lo..hi)
                .map(|slot| match idx.unindex(slot) {
                    None => Ok(WASTED),
                    Some((own, opp, marks)) => {
                        let p = marked_position(&db.rules, k, own, opp, marks);
                        let v = best_move(db, &p, &mut moves)?;
                        match v.plies() {
                            Some(d) if d > MAX_STORED_DISTANCE => {
                                Err(ProbeError::TooLong { plies: d })
                            }
                            _ => Ok(v.encode()),
                        }
                    }
                })
                .collect::<Result<Vec<u16>, ProbeError>>();
            progress.init(hi - lo);
            out
        })
        .collect::<Result<Vec<Vec<u16>>, ProbeError>>()?;
    Ok(parts.concat())
}

/// The value of a position from its moves' values (a game over is valued as it ends).
pub fn best_move(
    db: &Db<MillRules>,
    p: &Position,
    moves: &mut Vec<(retro_engine::mill::Move, Position)>,
) -> Result<Value, ProbeError> {
    let game = db.game();
    if let Some(o) = game.outcome(p) {
        return Ok(over_value(&o, p.side, 0));
    }
    game.moves(p, moves);
    let mut best: Option<Value> = None;
    for (_, q) in moves.iter() {
        let v = move_value(db, p, q)?;
        if best.is_none_or(|b| v.preference() > b.preference()) {
            best = Some(v);
        }
    }
    Ok(best.unwrap_or(Value::Loss(0)))
}
