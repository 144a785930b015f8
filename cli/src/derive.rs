//! The rules a folder of sector tables was built for, rebuilt from a table's header, so that
//! `retro compress` can leave derivable sectors to a one-ply search (`retro_solver::sectors::
//! derive`) without being told the game.

use crate::error::CliError;
use retro_engine::dara::{Dara, DaraProfile};
use retro_engine::mill::{Mill, Profile, PRESETS};
use retro_solver::dara::rules::DaraRules;
use retro_solver::mill::rules::MillRules;
use retro_solver::sectors::db::Db;
use retro_solver::sectors::derive::{derivable, derive_raw};
use retro_solver::sectors::rules::SectorRules;
use retro_solver::sectors::saved_marks;
use retro_solver::sectors::searched::searched_wins_marked;
use retro_solver::sectors::solve::restore_raw;
use retro_tables::compressed_table::SearchedWins;
use retro_tables::sector_table::Header;
use retro_tables::{SectorKey, Table, GAME_DARA, GAME_MILL};
use std::path::Path;

/// The tables of one folder, with the rules they were built for.
pub enum FolderDb {
    /// Mill tables.
    Mill(Db<MillRules>),
    /// Dara tables.
    Dara(Db<DaraRules>),
}

/// Applies a fingerprint's `key=value` settings to a profile; `None` if one is refused.
fn settings(fingerprint: &str, mut set: impl FnMut(&str) -> bool) -> Option<()> {
    fingerprint.split(',').all(&mut set).then_some(())
}

impl FolderDb {
    /// The rules of the raw table at `raw`, if its header names rules this build knows (the
    /// rebuilt rules must give the header's fingerprint and the folder the table lies in).
    pub fn of_table(raw: &Path) -> Option<FolderDb> {
        // SAFETY: the caller holds the folder's lock; retro's writers replace files by rename.
        let h = unsafe { Table::open(raw) }.ok()?.header;
        FolderDb::of_header(&h, raw.parent()?)
    }

    /// The rules a table's header names, if this build knows them and they give the header's
    /// fingerprint and `folder` (the folder the table lies in).
    pub fn of_header(h: &Header, folder: &Path) -> Option<FolderDb> {
        let dir = folder.parent()?;
        let db = match h.game {
            GAME_MILL => {
                // Settings are checked one at a time against the others, so start from the
                // preset nearest: the first from which every setting applies.
                let p = PRESETS.iter().find_map(|base| {
                    let mut p = Profile::preset(base.name).ok()?;
                    settings(&h.fingerprint, |kv| p.set(kv).is_ok())?;
                    (p.fingerprint() == h.fingerprint).then_some(p)
                })?;
                FolderDb::Mill(Db::new(Mill::new(p), dir))
            }
            GAME_DARA => {
                let mut p = DaraProfile::default();
                settings(&h.fingerprint, |kv| p.set(kv).is_ok())?;
                FolderDb::Dara(Db::with_rules(DaraRules { game: Dara::new(p) }, dir))
            }
            _ => return None,
        };
        let (fingerprint, db_folder) = match &db {
            FolderDb::Mill(d) => (d.fingerprint().to_string(), d.folder.clone()),
            FolderDb::Dara(d) => (d.fingerprint().to_string(), d.folder.clone()),
        };
        (fingerprint == h.fingerprint && db_folder == folder).then_some(db)
    }

    /// Whether sector `k` is to be derived: it is derivable, and every sector its moves lead
    /// to has a table in the folder.
    pub fn derivable(&self, k: SectorKey) -> bool {
        fn here<R: SectorRules>(db: &Db<R>, k: SectorKey) -> bool {
            derivable(&db.rules, k) && db.rules.successors(k).into_iter().all(|s| db.has_table(s))
        }
        match self {
            FolderDb::Mill(d) => here(d, k),
            FolderDb::Dara(d) => here(d, k),
        }
    }

    /// The wins of sector `k` whose distances a one-ply search gives (`None` when its wins are
    /// not searched, or when a sector its moves lead to has no table in the folder).
    pub fn searched_wins(&self, k: SectorKey) -> Result<Option<SearchedWins>, CliError> {
        fn one<R: SectorRules>(db: &Db<R>, k: SectorKey) -> Result<Option<SearchedWins>, CliError> {
            if !db.rules.successors(k).into_iter().all(|s| db.has_table(s)) {
                return Ok(None);
            }
            // The marks a stopped `solve --compress` saved beside the raw table, if any: the
            // same wins the look at every win would choose, without the look.
            searched_wins_marked(db, k, saved_marks::of(db, k)).map_err(CliError::other)
        }
        match self {
            FolderDb::Mill(d) => one(d, k),
            FolderDb::Dara(d) => one(d, k),
        }
    }

    /// The order sector `k`'s compressed table stores its slots in.
    pub fn slot_order(&self, k: SectorKey) -> Option<retro_tables::slot_order::SlotOrder> {
        match self {
            FolderDb::Mill(d) => d.slot_order(k),
            FolderDb::Dara(d) => d.slot_order(k),
        }
    }

    /// Writes a raw working copy of sector `k`'s compressed table beside it (see
    /// `retro_solver::sectors::solve::restore_raw`); whether it did.
    pub fn restore_raw(&self, k: SectorKey) -> Result<bool, CliError> {
        match self {
            FolderDb::Mill(d) => restore_raw(d, k),
            FolderDb::Dara(d) => restore_raw(d, k),
        }
        .map_err(CliError::other)
    }

    /// The path of sector `k`'s raw table.
    pub fn raw_path(&self, k: SectorKey) -> std::path::PathBuf {
        match self {
            FolderDb::Mill(d) => d.path(k),
            FolderDb::Dara(d) => d.path(k),
        }
    }

    /// Forgets the cached table of sector `k` (after its files were replaced).
    pub fn forget(&self, k: SectorKey) {
        match self {
            FolderDb::Mill(d) => d.forget(k),
            FolderDb::Dara(d) => d.forget(k),
        }
    }

    /// Replaces sector `k`'s raw table by a derived one (checked; see `derive_raw`); returns
    /// the raw table's bytes.
    pub fn derive(&self, k: SectorKey) -> Result<u64, CliError> {
        fn one<R: SectorRules>(db: &Db<R>, k: SectorKey) -> Result<u64, CliError> {
            // SAFETY: the caller holds the folder's lock; tables are replaced by rename only.
            unsafe { derive_raw(db, k, true) }.map_err(CliError::other)
        }
        match self {
            FolderDb::Mill(d) => one(d, k),
            FolderDb::Dara(d) => one(d, k),
        }
    }
}
