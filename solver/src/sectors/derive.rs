//! Derived sectors: tables that keep no values, because a one-ply search over stored tables
//! gives each of them. A sector whose side to move has less material (stones on the board and
//! in hand) than the opponent only has moves into sectors where the side to move has at least
//! as much, so storing one of each pair of colour-swapped sectors is enough (Syzygy stores its
//! distances to zeroing for one side the same way). For Nine Men's Morris these sectors hold
//! half of the compressed bytes.

use crate::sectors::children::Children;
use crate::sectors::db::{Db, ProbeError};
use crate::sectors::folded::Folded;
use crate::sectors::rules::SectorRules;
use retro_tables::any_table::{derived_file, AnyTable};
use retro_tables::derived_table::DerivedTable;
use retro_tables::value::Stored;
use retro_tables::value::MAX_STORED_DISTANCE;
use retro_tables::{SectorKey, TableError, Value, Wdl};

/// Whether the side to move of sector `k` has less material than the opponent.
fn fewer(k: SectorKey) -> bool {
    (k.w as u32 + k.wf as u32) < (k.b as u32 + k.bf as u32)
}

/// Whether sector `k`'s values may be left to a one-ply search: its side to move has less
/// material than the opponent, and no move leads to a sector where that holds too (so one ply
/// always reaches stored tables; under rules that remove two stones at once it may not).
/// Never a sector with marked points: the search knows no marks.
pub fn derivable<R: SectorRules + ?Sized>(rules: &R, k: SectorKey) -> bool {
    fewer(k)
        && rules.marked_points(k).is_none()
        && rules.successors(k).into_iter().all(|s| !fewer(s))
}

/// A move list with room for the moves of most positions (one allocation, not several).
fn children_buffer() -> Children {
    Children {
        list: Vec::with_capacity(64),
        ..Children::default()
    }
}

/// Orders values for the side to move: a loss later is better than one sooner, a win sooner
/// better than one later.
fn rank(v: Value) -> i32 {
    match v {
        Value::Loss(d) => -0x10000 + d as i32,
        Value::Draw => 0,
        Value::Win(d) => 0x10000 - d as i32,
    }
}

impl<R: SectorRules> Db<R> {
    /// The value of a position of a derived sector: the best over its moves. The moves'
    /// win/draw/loss comes first (their blocks are all a compressed table needs for it); only the
    /// moves that set the distance are then probed for theirs: the losses when there is one,
    /// none when the best is a draw, all when every move wins for the opponent.
    pub(crate) fn value_by_search(&self, f: &Folded) -> Result<Value, ProbeError> {
        let mut ch = children_buffer();
        self.rules.children(f, &mut ch);
        if ch.wins_now {
            return Ok(Value::Win(1));
        }
        if !ch.forced.is_empty() {
            return self.value_of_every_move(&ch);
        }
        // Each move's result for the mover; after a stalemate removal the mover moves again.
        let moves: Vec<(&Folded, bool)> = (ch.list.iter().map(|c| (c, false)))
            .chain(ch.again.iter().map(|c| (c, true)))
            .collect();
        let mut wdl = Vec::with_capacity(moves.len());
        for &(c, again) in &moves {
            let w = self.wdl_folded(c)?;
            wdl.push(if again { w } else { w.parent() });
        }
        let want = if wdl.contains(&Wdl::Win) {
            Wdl::Win
        } else if wdl.contains(&Wdl::Draw) {
            return Ok(Value::Draw);
        } else {
            Wdl::Loss
        };
        let mut best = Value::Loss(0);
        // Moves to wins whose distance is searched: when every move loses, after the others,
        // each read only as far as it could make the loss longer.
        let mut searched: Vec<&Folded> = Vec::new();
        for (i, &(c, again)) in moves.iter().enumerate() {
            if wdl[i] != want {
                continue;
            }
            let v = match self.stored_marked(c, 0)? {
                Stored::Value(v) => v,
                Stored::SearchedWin if want == Wdl::Loss && !again => {
                    searched.push(c);
                    continue;
                }
                Stored::SearchedWin => self.searched_win(c)?,
            };
            let v = if again { v.later() } else { v.parent() };
            if v.wdl() != want {
                // The child's distance probe disagrees with its win/draw/loss probe.
                return Err(TableError::Corrupt(
                    self.path(c.key()),
                    "win/draw/loss and distance probes disagree".into(),
                )
                .into());
            }
            if rank(v) > rank(best) {
                best = v;
            }
        }
        for c in searched {
            // A win in d for the opponent is a loss in d + 1 here: only d above the loss found
            // so far minus one can make it longer.
            let floor = best.plies().unwrap_or(0).saturating_sub(1);
            if let Some(v) = self.searched_win_above(c, floor)? {
                let v = v.parent();
                if rank(v) > rank(best) {
                    best = v;
                }
            }
        }
        match best.plies() {
            Some(plies) if plies > MAX_STORED_DISTANCE => Err(ProbeError::TooLong { plies }),
            _ => Ok(best),
        }
    }

    /// The best over every move's value, each probed whole (positions with forced removals
    /// among their moves; no derivable sector has them under the presets).
    fn value_of_every_move(&self, ch: &Children) -> Result<Value, ProbeError> {
        let mut best = Value::Loss(0);
        let mut consider = |v: Value| {
            if rank(v) > rank(best) {
                best = v;
            }
        };
        for c in &ch.list {
            consider(self.value_folded(c)?.parent());
        }
        for c in &ch.again {
            consider(self.value_folded(c)?.later());
        }
        for &root in &ch.forced.roots {
            consider(ch.forced.edge_value(root, &mut |c| self.value_folded(c))?);
        }
        Ok(best)
    }

    /// The win/draw/loss of a position of a derived sector: the best over its moves.
    pub(crate) fn wdl_by_search(&self, f: &Folded) -> Result<Wdl, ProbeError> {
        let mut ch = children_buffer();
        self.rules.children(f, &mut ch);
        if ch.wins_now {
            return Ok(Wdl::Win);
        }
        if !ch.forced.is_empty() {
            return Ok(self.value_of_every_move(&ch)?.wdl());
        }
        let mut best = Wdl::Loss;
        let moves = (ch.list.iter().map(|c| (c, false))).chain(ch.again.iter().map(|c| (c, true)));
        for (c, again) in moves {
            let w = self.wdl_folded(c)?;
            match if again { w } else { w.parent() } {
                Wdl::Win => return Ok(Wdl::Win),
                Wdl::Draw => best = Wdl::Draw,
                Wdl::Loss => {}
            }
        }
        Ok(best)
    }

    /// Checks that a derived table may stand for sector `k` (the sector is derivable).
    pub(crate) fn check_derived(&self, k: SectorKey, t: &AnyTable) -> Result<(), ProbeError> {
        if t.is_derived() && !derivable(&self.rules, k) {
            return Err(TableError::Mismatch(
                derived_file(&self.path(k)),
                format!(
                    "sector {k} cannot be derived by a one-ply search: its table must hold values"
                ),
            )
            .into());
        }
        Ok(())
    }
}

/// Slots of a raw table checked by search before it is replaced by a derived one.
pub const DERIVE_CHECKS: u64 = 4096;

/// Replaces sector `k`'s raw table by a derived one: checks that the sector is derivable and
/// that every sector its moves lead to has a table, compares [`DERIVE_CHECKS`] slots spread over
/// the table with what the search gives, verifies the raw table whole when `check_raw`, writes
/// the derived file and only then removes the raw one. Returns the raw file's bytes.
///
/// # Safety
///
/// As [`retro_tables::Table::open`]: nothing may modify the files in place meanwhile (the folder's lock).
pub unsafe fn derive_raw<R: SectorRules>(
    db: &Db<R>,
    k: SectorKey,
    check_raw: bool,
) -> Result<u64, ProbeError> {
    let path = db.path(k);
    let mismatch = |m: String| -> ProbeError { TableError::Mismatch(path.clone(), m).into() };
    if !derivable(&db.rules, k) {
        return Err(mismatch(format!("sector {k} cannot be derived")));
    }
    if let Some(s) = db
        .rules
        .successors(k)
        .into_iter()
        .find(|&s| !db.has_table(s))
    {
        return Err(mismatch(format!(
            "sector {k} is derived from the tables of its moves, and sector {s} has none"
        )));
    }
    let t = db.table(k)?;
    let (AnyTable::Raw(raw), idx) = (&t.0, &t.1) else {
        return Err(mismatch("not a raw table".into()));
    };
    if check_raw {
        raw.verify()?;
    }
    let n = raw.header.slots;
    let step = (n / DERIVE_CHECKS).max(1);
    for slot in (0..n).step_by(step as usize) {
        let Some((own, opp)) = idx.unindex(slot) else {
            continue;
        };
        let Some(stored) = raw.value(slot)? else {
            continue;
        };
        let f = Folded::in_sector(k, own, opp);
        // Tables of its moves without distances (`--wdl-only`) give the result alone, which is
        // all a derived sector among them is asked for.
        let differs = match db.value_by_search(&f) {
            Ok(v) => (v != stored).then(|| format!("{v:?}")),
            Err(e) if e.no_distances() => {
                let w = db.wdl_by_search(&f)?;
                (w != stored.wdl()).then(|| format!("{w:?}"))
            }
            Err(e) => return Err(e),
        };
        if let Some(searched) = differs {
            return Err(mismatch(format!(
                "slot {slot} holds {stored:?}, a one-ply search gives {searched}: not derived"
            )));
        }
    }
    let bytes = std::fs::metadata(&path)
        .map_err(|e| TableError::Io(path.clone(), e))?
        .len();
    DerivedTable::write(&derived_file(&path), &raw.header)?;
    drop(t);
    db.forget(k);
    std::fs::remove_file(&path).map_err(|e| TableError::Io(path.clone(), e))?;
    Ok(bytes)
}

/// Every slot's code of a derived sector, by search (the raw table it stands for: a working
/// copy for a solve that reads the sector as a dependency).
pub fn derived_codes<R: SectorRules>(db: &Db<R>, k: SectorKey) -> Result<Vec<u16>, ProbeError> {
    use rayon::prelude::*;
    let idx = crate::sectors::index::BoardIndex::new(db.rules.shape(), k.w as usize, k.b as usize);
    let per = 1u64 << 14;
    let parts: Vec<Vec<u16>> = (0..idx.size().div_ceil(per))
        .into_par_iter()
        .map(|b| {
            let lo = b * per;
            let hi = (lo + per).min(idx.size());
            let mut codes = Vec::with_capacity((hi - lo) as usize);
            let mut err = None;
            idx.for_each(lo, hi, |_, pos| {
                let code = match pos {
                    Some((own, opp)) if db.rules.valid(own, opp) && err.is_none() => {
                        let f = Folded::in_sector(k, own, opp);
                        match db.value_by_search(&f) {
                            Ok(v) => v.encode(),
                            Err(e) => {
                                err = Some(e);
                                retro_tables::value::WASTED
                            }
                        }
                    }
                    _ => retro_tables::value::WASTED,
                };
                codes.push(code);
            });
            err.map_or(Ok(codes), Err)
        })
        .collect::<Result<_, _>>()?;
    Ok(parts.concat())
}
