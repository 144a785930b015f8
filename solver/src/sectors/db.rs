//! A directory of sector tables (Mill or Dara) for one rule profile: paths, lazy opening,
//! probing by position.

use crate::sectors::folded::Folded;
use crate::sectors::index::BoardIndex;
use crate::sectors::marked_points::MarkedIndex;
pub use crate::sectors::probe_error::ProbeError;
use crate::sectors::rules::SectorRules;
use retro_engine::mill::Bits;
use retro_tables::any_table::{AnyTable, Place};
pub use retro_tables::location::fingerprint_hash;
use retro_tables::location::{profile_folder, sector_file};
use retro_tables::value::Stored;
use retro_tables::{SectorKey, TableError, Value, Wdl};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, RwLock};

type Slot = OnceLock<Result<Arc<(AnyTable, BoardIndex)>, ProbeError>>;

/// The tables of one rule profile in one directory, opened lazily and shared.
pub struct Db<R: SectorRules> {
    /// The rules the tables are for.
    pub rules: R,
    /// The folder holding this profile's tables.
    pub folder: PathBuf,
    fingerprint: String,
    open: RwLock<HashMap<SectorKey, Arc<Slot>, BuildHasherDefault<KeyHasher>>>,
}

/// A hasher for the four bytes of a sector key: every probe looks its table up, and SipHash
/// took a tenth of a probe.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }

    fn finish(&self) -> u64 {
        // The table picks a bucket by the low bits: fold the high ones (every byte's) in.
        let h = self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^ (h >> 32)
    }
}

impl<R: SectorRules> Db<R> {
    /// The tables of `rules` under `dir` (in a sub-folder named after the game and the rule
    /// fingerprint).
    pub fn with_rules(rules: R, dir: &Path) -> Db<R> {
        let fingerprint = rules.fingerprint();
        let folder = profile_folder(dir, rules.name(), &fingerprint);
        Db {
            rules,
            folder,
            fingerprint,
            open: RwLock::new(HashMap::default()),
        }
    }

    /// The rule fingerprint tables must carry.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// Path of a sector's table.
    pub fn path(&self, k: SectorKey) -> PathBuf {
        self.folder.join(sector_file(k))
    }

    /// Whether the folder holds a table of the sector, raw, compressed or derived (not
    /// checked).
    pub fn has_table(&self, k: SectorKey) -> bool {
        let [raw, wdl, _] = retro_tables::any_table::table_files(&self.path(k));
        raw.exists() || wdl.exists() || retro_tables::any_table::derived_file(&raw).exists()
    }

    /// Opens and checks a sector's table (raw, or compressed when there is no raw file)
    /// against this profile and sector (no caching).
    pub fn open_checked(&self, k: SectorKey) -> Result<AnyTable, ProbeError> {
        let path = self.path(k);
        // SAFETY: a `Db` reads table folders that retro's writers own: they write each table
        // to a temporary file and rename it into place, never modifying one in place, and a
        // solve holds the folder's lock while it writes. Editing a table by hand while a
        // program has it open is outside this contract (`Table::open`'s).
        let Some(t) = (unsafe { AnyTable::open(&path) })? else {
            return Err(ProbeError::Missing { sector: k, path });
        };
        let h = t.header();
        let mismatch = |m: String| Err(TableError::Mismatch(path.clone(), m).into());
        if h.game != self.rules.game_id() {
            return mismatch(format!(
                "table for game {}, not {}",
                h.game,
                self.rules.name()
            ));
        }
        if h.fingerprint != self.fingerprint {
            return mismatch(format!(
                "table built for other rules ({:?}), expected {:?}",
                h.fingerprint, self.fingerprint
            ));
        }
        if h.sector != k {
            return mismatch(format!("table holds sector {}, expected {k}", h.sector));
        }
        let slots = self.rules.slots(k);
        if slots != h.slots {
            return mismatch(format!(
                "table has {} slots, the index has {slots}",
                h.slots,
            ));
        }
        if let AnyTable::Compressed(c) = &t {
            if c.order().is_some_and(|o| Some(o) != self.slot_order(k)) {
                return mismatch(format!(
                    "table stores its slots in an order of other classes ({:?}) than the index's",
                    c.order()
                ));
            }
        }
        if self.rules.marked_points(k).is_some() && (t.is_derived() || t.searches_wins()) {
            // Their one-ply searches know no marked points.
            return mismatch(
                "a sector with marked points keeps every value and distance (no derived table, \
                 no win left to a search)"
                    .into(),
            );
        }
        self.check_derived(k, &t)?;
        Ok(t)
    }

    /// The order a compressed table of sector `k` stores its slots in (see
    /// [`BoardIndex::reflected_order`]); the index's own for a sector with marked points.
    pub fn slot_order(&self, k: SectorKey) -> Option<retro_tables::slot_order::SlotOrder> {
        if self.rules.marked_points(k).is_some() {
            return None;
        }
        BoardIndex::new(self.rules.shape(), k.w as usize, k.b as usize).reflected_order()
    }

    /// The table of a sector with its index, opened once and shared.
    pub fn table(&self, k: SectorKey) -> Result<Arc<(AnyTable, BoardIndex)>, ProbeError> {
        // Opened already: one clone of the table's handle, under the read lock.
        let known = match self.open.read().expect("table map lock").get(&k) {
            Some(s) => match s.get() {
                Some(t) => return t.clone(),
                None => Some(s.clone()),
            },
            None => None,
        };
        let slot = match known {
            Some(s) => s,
            None => {
                let mut open = self.open.write().expect("table map lock");
                open.entry(k)
                    .or_insert_with(|| Arc::new(OnceLock::new()))
                    .clone()
            }
        };
        slot.get_or_init(|| {
            if let Some(why) = self.rules.unsupported(k) {
                return Err(ProbeError::Unsupported { sector: k, why });
            }
            self.open_checked(k).map(|t| {
                let idx = BoardIndex::new(self.rules.shape(), k.w as usize, k.b as usize);
                Arc::new((t, idx))
            })
        })
        .clone()
    }

    /// Forgets a cached table (after it was rewritten).
    pub fn forget(&self, k: SectorKey) {
        self.open.write().expect("table map lock").remove(&k);
    }

    /// The win/draw/loss of a folded position (side to move first): what every table knows,
    /// `--wdl-only` ones included.
    pub fn wdl_folded(&self, f: &Folded) -> Result<Wdl, ProbeError> {
        self.wdl_marked(f, 0)
    }

    /// [`Db::wdl_folded`] of a position with marked points `marks` (see
    /// [`SectorRules::marked_points`]).
    pub fn wdl_marked(&self, f: &Folded, marks: Bits) -> Result<Wdl, ProbeError> {
        self.probe_folded(
            f,
            marks,
            Wdl::Loss,
            Wdl::Win,
            AnyTable::wdl_at,
            Self::wdl_by_search,
        )
    }

    /// The value of a folded position (side to move first).
    pub fn value_folded(&self, f: &Folded) -> Result<Value, ProbeError> {
        self.value_marked(f, 0)
    }

    /// [`Db::value_folded`] of a position with marked points `marks` (see
    /// [`SectorRules::marked_points`]).
    pub fn value_marked(&self, f: &Folded, marks: Bits) -> Result<Value, ProbeError> {
        match self.stored_marked(f, marks)? {
            Stored::Value(v) => Ok(v),
            Stored::SearchedWin => self.searched_win(f),
        }
    }

    /// [`Db::value_marked`], leaving a win whose distance is searched as that.
    pub(crate) fn stored_marked(&self, f: &Folded, marks: Bits) -> Result<Stored, ProbeError> {
        self.probe_folded(
            f,
            marks,
            Stored::Value(Value::Loss(0)),
            Stored::Value(Value::Win(0)),
            AnyTable::probe_at,
            |db, f| db.value_by_search(f).map(Stored::Value),
        )
    }

    /// Reads a folded position's slot with `read`, or asks `search` for a derived sector's;
    /// `lost` and `won` when a side has too few stones left (no table holds those positions).
    /// `marks`: its marked points, for a sector whose index has them (else none).
    fn probe_folded<T>(
        &self,
        f: &Folded,
        marks: Bits,
        lost: T,
        won: T,
        read: impl FnOnce(&AnyTable, Place) -> Result<Option<T>, TableError>,
        search: impl FnOnce(&Self, &Folded) -> Result<T, ProbeError>,
    ) -> Result<T, ProbeError> {
        if self.rules.lost(f.own.count_ones() as u8, f.own_hand) {
            return Ok(lost);
        }
        if self.rules.lost(f.opp.count_ones() as u8, f.opp_hand) {
            return Ok(won);
        }
        let k = f.key();
        let t = self.table(k)?;
        match self.rules.marked_points(k) {
            Some(m)
                if marks.count_ones() as usize != m
                    || marks & (f.own | f.opp) != 0
                    || marks & !self.rules.shape().all() != 0 =>
            {
                return Err(ProbeError::Unsupported {
                    sector: k,
                    why: format!(
                        "its positions have {m} marked points, on empty points (one for each \
                         stone removed while placing)"
                    ),
                });
            }
            Some(m) if m > 0 => {
                // The marks lie on the points the stones leave free, so they fit.
                let idx = MarkedIndex::new(t.1.clone(), m).ok_or(ProbeError::Unsupported {
                    sector: k,
                    why: format!("{m} marked points do not fit beside its stones"),
                })?;
                let at = Place::Slot(idx.index(f.own, f.opp, marks));
                return read(&t.0, at)?.ok_or_else(|| {
                    TableError::Corrupt(self.path(k), format!("{at:?} holds no value")).into()
                });
            }
            None if marks != 0 => {
                return Err(ProbeError::Unsupported {
                    sector: k,
                    why: "its positions have no marked points".into(),
                })
            }
            _ => {}
        }
        if t.0.is_derived() {
            return search(self, f);
        }
        // A compressed table in the reflected order: where it stores the position, from the
        // stones (its open checked that the order is the index's reflected one).
        let at = match &t.0 {
            AnyTable::Compressed(c) if c.order().is_some() => {
                Place::Stored(t.1.index_reflected(f.own, f.opp))
            }
            _ => Place::Slot(t.1.index(f.own, f.opp)),
        };
        read(&t.0, at)?.ok_or_else(|| {
            TableError::Corrupt(self.path(k), format!("{at:?} holds no value")).into()
        })
    }
}
