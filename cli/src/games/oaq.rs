//! Ô Ăn Quan setup for every command: the rules from the arguments, a position from its text,
//! the state of a position as JSON, and where its table lies.

use crate::args::RuleArgs;
use crate::error::CliError;
use retro_engine::oaq::{Oaq, OaqProfile, Position};
use retro_solver::oaq::index::OaqIndex;
use retro_tables::location::{profile_folder, OAQ_FILE};
use retro_tables::{OaqTable, TableError};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Builds the game from `--rule` settings (`--variant` is for Mill only).
pub fn game(rules: &RuleArgs) -> Result<Oaq, CliError> {
    // A play rule, not the game's, but checked by every command that takes it.
    rules.n_move_rule()?;
    rules.no_variant("oaq", "seeds=K,M, big-mandarin=V, quan-non=K")?;
    let mut profile = OaqProfile::default();
    for r in rules.game_rules() {
        profile.set(r).map_err(CliError::input)?;
    }
    Ok(Oaq::new(profile))
}

/// The position of `--fen`, or the start.
pub fn position(g: &Oaq, fen: Option<&str>) -> Result<Position, CliError> {
    match fen {
        Some(f) => g.parse_position(f).map_err(CliError::input),
        None => Ok(g.start()),
    }
}

/// The state of `p` as JSON: side to move, the board, whether the game is over, moves.
pub fn state_json(g: &Oaq, p: &Position) -> Value {
    let mut list = Vec::new();
    g.moves(p, &mut list);
    let moves: Vec<Value> = list
        .iter()
        .map(|(m, t)| {
            json!({
                "move": g.format_move(m),
                "captured": t.captured,
                "refilled": t.refilled,
                "position": g.format_position(&t.position),
            })
        })
        .collect();
    let over = g.outcome(p).map(|f| {
        json!({
            "south": f.stores[0],
            "north": f.stores[1],
            "winner": f.winner.map(|s| s.name()),
        })
    });
    json!({
        "position": g.format_position(p),
        "side": p.side.name(),
        "game_over": over,
        "moves": moves,
    })
}

/// A solved game's table with its index.
pub type Solved = (OaqTable, OaqIndex);

/// Where the table of a game's rules lives under `dir`.
pub fn table_path(g: &Oaq, dir: &Path) -> PathBuf {
    profile_folder(dir, "oaq", &g.profile.fingerprint()).join(OAQ_FILE)
}

/// Where a solve of a game's rules keeps its checkpoint: beside its table.
pub fn checkpoint_path(table: &Path) -> PathBuf {
    table.with_extension("ckpt")
}

/// Opens the table of a game's rules, checking that it was built for them (`Ok(None)`: there
/// is none).
pub fn open_table(g: &Oaq, dir: &Path) -> Result<Option<OaqTable>, TableError> {
    let path = table_path(g, dir);
    if !path.exists() {
        return Ok(None);
    }
    // SAFETY: as for the sector tables of a `Db`: retro's writers replace the table by a
    // rename, never in place.
    let t = unsafe { OaqTable::open(&path) }?;
    if t.header.fingerprint != g.profile.fingerprint() {
        return Err(TableError::Mismatch(
            path,
            format!(
                "table built for other rules ({:?}), expected {:?}",
                t.header.fingerprint,
                g.profile.fingerprint()
            ),
        ));
    }
    Ok(Some(t))
}

/// The board of `p` for drawing (`retro serve`'s page): the twelve cells as players see them
/// (South's 1-5 along the bottom, North's 7-11 along the top from right to left, the mandarin
/// cells 0 and 6 at the ends), their seeds, the big pieces, the stores.
pub fn board_json(p: &Position) -> Value {
    let cells: Vec<Value> = (0..12usize)
        .map(|i| {
            let (x, y) = match i {
                0 => (0, 1),
                6 => (6, 1),
                1..=5 => (i, 2),
                _ => (12 - i, 0),
            };
            let big = (i == 0 || i == 6) && p.big[i / 6];
            json!({"name": i.to_string(), "x": x, "y": y, "seeds": p.cells[i], "big": big,
                   "mandarin": i == 0 || i == 6})
        })
        .collect();
    json!({"cells": cells, "stores": {"south": p.stores[0], "north": p.stores[1]}})
}

/// Every move of `p` with the position it leads to and what a click picks: the cell, then the
/// first cell it sows into (`3+` sows 4 first, `3-` sows 2).
pub fn children_json(g: &Oaq, p: &Position) -> Vec<Value> {
    let mut list = Vec::new();
    g.moves(p, &mut list);
    list.iter()
        .map(|(m, t)| {
            let next = (m.cell as i32 + m.dir as i32).rem_euclid(12);
            json!({
                "move": g.format_move(m),
                "fen": g.format_position(&t.position),
                "path": [m.cell.to_string(), next.to_string()],
            })
        })
        .collect()
}
