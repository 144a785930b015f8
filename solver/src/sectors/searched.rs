//! Searched wins: a compressed table may leave the distance of a win to a one-ply search, as a
//! derived sector leaves all of its values. A win in `d` plies has a move to a loss in `d - 1`
//! for the opponent, and none to a quicker loss. In a sector whose two sides have equal
//! material, the moves that capture nothing lead to a sector with equal material again, which
//! keeps its values; so when such a move reaches the win's distance, the distance is 1 + the
//! least distance among the losing moves into sectors that keep their values
//! (not derivable), found from their tables without a second ply. Those wins' entries become
//! 0 in the distance file (encoding 9 or 7, whose other wins' entries are `h + 1`), which
//! compresses far better than the distances did: 6_6_0_0's distance file takes half the room.

use crate::sectors::children::Children;
use crate::sectors::db::{Db, ProbeError};
use crate::sectors::derive::derivable;
use crate::sectors::folded::Folded;
use crate::sectors::index::BoardIndex;
use crate::sectors::rules::SectorRules;
use retro_tables::any_table::AnyTable;
use retro_tables::compressed_table::SearchedWins;
use retro_tables::value::Stored;
use retro_tables::{SectorKey, TableError, Value, Wdl};
use std::sync::Arc;

/// A table opened through the `Db`, with its index.
type Open = Arc<(AnyTable, BoardIndex)>;

/// Whether sector `k`'s wins may be searched: its sides have equal material (stones on the
/// board and in hand), so most moves lead to a sector that keeps its values (a sector of
/// equal material is never derivable).
pub fn searchable(k: SectorKey) -> bool {
    k.w as u32 + k.wf as u32 == k.b as u32 + k.bf as u32
}

/// The wins among slots `lo..hi` of sector `k` (table `t`, index `idx`) whose distance is 1 +
/// the least distance among their losing moves into tables that keep values: one bit a slot
/// from `lo`.
fn chosen_in<R: SectorRules>(
    db: &Db<R>,
    k: SectorKey,
    t: &(AnyTable, BoardIndex),
    idx: &BoardIndex,
    (lo, hi): (u64, u64),
    decoded: &[(SectorKey, Vec<u16>)],
) -> Result<Vec<u64>, ProbeError> {
    let mut tables: Vec<(SectorKey, Option<Open>)> = Vec::new();
    let mut wins: Vec<(u64, u16)> = Vec::new();
    // One entry a move into a table that keeps values: the table (8 bits), the slot in it (36
    // bits) and the win (20 bits), packed so that they sort by table, then slot.
    let mut reads: Vec<u64> = Vec::new();
    assert!(hi - lo <= 1 << 20, "a chunk's wins are numbered in 20 bits");
    let mut ch = Children::default();
    let mut err = None;
    idx.for_each(lo, hi, |slot, pos| {
        let Some((own, opp)) = pos else { return };
        if err.is_some() {
            return;
        }
        let d = match t.0.value(slot) {
            Ok(Some(Value::Win(d))) if d > 1 => d,
            Ok(_) => return,
            Err(e) => return err = Some(e.into()),
        };
        ch.list.clear();
        ch.again.clear();
        ch.forced.clear();
        ch.wins_now = false;
        db.rules.children(&Folded::in_sector(k, own, opp), &mut ch);
        if ch.wins_now || !ch.forced.is_empty() || !ch.again.is_empty() {
            return;
        }
        let w = wins.len() as u32;
        wins.push((slot, d));
        for c in &ch.list {
            let ck = c.key();
            let i = match tables.iter().position(|(tk, _)| *tk == ck) {
                Some(i) => i,
                None => {
                    let open = match derivable(&db.rules, ck) {
                        true => None,
                        false => match db.table(ck) {
                            Ok(o) => Some(o),
                            Err(e) => return err = Some(e),
                        },
                    };
                    tables.push((ck, open));
                    tables.len() - 1
                }
            };
            if let Some(o) = &tables[i].1 {
                let slot = o.1.index(c.own, c.opp);
                if i >= 256 || slot >= 1 << 36 {
                    let m = format!("move to slot {slot} of table {i}: too many to search");
                    return err = Some(TableError::Mismatch(db.path(k), m).into());
                }
                reads.push((i as u64) << 56 | slot << 20 | w as u64);
            }
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    let reads = by_region(&reads, &tables);
    let mut best = vec![u16::MAX; wins.len()];
    for &r in &reads {
        let (i, slot, w) = (r >> 56, (r >> 20) & ((1 << 36) - 1), r & ((1 << 20) - 1));
        let (ck, o) = (
            &tables[i as usize].0,
            tables[i as usize].1.as_ref().expect("kept"),
        );
        let corrupt = |m: &str| -> ProbeError {
            TableError::Corrupt(db.path(*ck), format!("slot {slot}: {m}")).into()
        };
        // A compressed table decoded whole beforehand: the code at hand (a searched win is
        // `Win(0)`, a win all the same).
        if let Some((_, codes)) = decoded.iter().find(|(dk, _)| dk == ck) {
            match codes.get(slot as usize).and_then(|&c| Value::decode(c)) {
                Some(Value::Loss(d)) => {
                    let b = &mut best[w as usize];
                    *b = (*b).min(d + 1);
                }
                Some(_) => {}
                None => return Err(corrupt("holds no value")),
            }
            continue;
        }
        // A raw table gives the value in one read; a compressed one decodes the distance
        // block only for a loss.
        if !matches!(o.0, AnyTable::Raw(_)) {
            match o.0.wdl(slot)? {
                Some(Wdl::Loss) => {}
                Some(_) => continue,
                None => return Err(corrupt("holds no value")),
            }
        }
        match o.0.probe(slot)? {
            Some(Stored::Value(Value::Win(_) | Value::Draw)) if matches!(o.0, AnyTable::Raw(_)) => {
            }
            Some(Stored::Value(Value::Loss(d))) => {
                let b = &mut best[w as usize];
                *b = (*b).min(d + 1);
            }
            None => return Err(corrupt("holds no value")),
            _ => return Err(corrupt("win/draw/loss and distance probes disagree")),
        }
    }
    let mut bits = vec![0u64; (hi - lo).div_ceil(64) as usize];
    for (&(slot, d), &b) in wins.iter().zip(&best) {
        if b == d {
            let i = (slot - lo) as usize;
            bits[i / 64] |= 1 << (i % 64);
        }
    }
    Ok(bits)
}

/// Slots of a region the reads of [`chosen_in`] are grouped by (32 KiB of a raw table).
const REGION_BITS: u32 = 14;

/// The packed reads of [`chosen_in`] grouped by table, then by region of 2^14 slots, in that
/// order (a counting sort: two passes, where sorting took a fifth of the search).
fn by_region(reads: &[u64], tables: &[(SectorKey, Option<Open>)]) -> Vec<u64> {
    let mut base = vec![0usize; tables.len() + 1];
    for (i, (_, t)) in tables.iter().enumerate() {
        let regions = t
            .as_ref()
            .map_or(0, |t| (t.1.size() >> REGION_BITS) as usize + 1);
        base[i + 1] = base[i] + regions;
    }
    let bucket =
        |r: u64| base[(r >> 56) as usize] + (((r >> 20) & ((1 << 36) - 1)) >> REGION_BITS) as usize;
    let mut at = vec![0usize; base[tables.len()] + 1];
    for &r in reads {
        at[bucket(r) + 1] += 1;
    }
    for b in 1..at.len() {
        at[b] += at[b - 1];
    }
    let mut out = vec![0u64; reads.len()];
    for &r in reads {
        let b = bucket(r);
        out[at[b]] = r;
        at[b] += 1;
    }
    out
}

/// The compressed tables among sector `k`'s successors decoded whole (in slot order), as many
/// as fit in a quarter of the available memory, largest first: a chunk of the look reads its
/// moves all over those tables, which decoded the blocks they fall in again for every chunk of
/// a million slots (the look at 7_8_1_0 of morabaraba-malom, whose moves lead into the
/// compressed 8_8_0_0, took 2,488 s).
fn decoded_successors<R: SectorRules>(
    db: &Db<R>,
    k: SectorKey,
) -> Result<Vec<(SectorKey, Vec<u16>)>, ProbeError> {
    let mut room = crate::sectors::resources::available_memory().map_or(0, |m| m / 4);
    let mut tables: Vec<(SectorKey, Open)> = Vec::new();
    for s in db.rules.successors(k) {
        if s == k || derivable(&db.rules, s) || tables.iter().any(|(t, _)| *t == s) {
            continue;
        }
        let t = db.table(s)?;
        if matches!(t.0, AnyTable::Compressed(_)) {
            tables.push((s, t));
        }
    }
    tables.sort_by_key(|(_, t)| std::cmp::Reverse(t.0.header().slots));
    let mut out = Vec::new();
    for (s, t) in tables {
        let bytes = 2 * t.0.header().slots;
        if let (AnyTable::Compressed(c), true) = (&t.0, bytes <= room) {
            room -= bytes;
            out.push((s, crate::sectors::decode::slot_codes(c)?));
        }
    }
    Ok(out)
}

/// How many of the chosen wins are searched again as a reader would, and compared with the
/// raw table, after the choice (each was chosen by equality with its raw distance already).
pub const SEARCH_CHECKS: usize = 4096;

impl<R: SectorRules> Db<R> {
    /// 1 + the least distance among the moves in `ch` that lose for the opponent and lead to
    /// a sector that keeps its values: 1 when a move leaves the opponent too few stones, `None`
    /// when there is no such move or when some move lets the same side move again or forces
    /// plies (the writer searches no such win). A move for which `local` gives a value (`None`
    /// inside: no position) is not read from the tables. The scan stops as soon as it finds
    /// a distance of at most `enough` plies (0: never), and gives that one.
    fn least_kept_loss(
        &self,
        ch: &Children,
        local: &dyn Fn(&Folded) -> Option<Option<Value>>,
        enough: u16,
    ) -> Result<Option<u16>, ProbeError> {
        if ch.wins_now {
            return Ok(Some(1));
        }
        if !ch.forced.is_empty() || !ch.again.is_empty() {
            return Ok(None);
        }
        let mut best: Option<u16> = None;
        // The moves lead to a few sectors: whether each is derivable, and its table, are
        // looked up once.
        let mut seen: Vec<(SectorKey, Option<Open>)> = Vec::new();
        for c in &ch.list {
            let k = c.key();
            let t = match seen.iter().find(|(sk, _)| *sk == k) {
                Some((_, t)) => t.clone(),
                None => {
                    let t = match derivable(&self.rules, k) {
                        true => None,
                        false => Some(self.table(k)?),
                    };
                    seen.push((k, t.clone()));
                    t
                }
            };
            let Some(t) = t else { continue };
            // Neither side is short of stones here (that is `wins_now`), so the slot is read.
            let slot = t.1.index(c.own, c.opp);
            let corrupt = |m: &str| -> ProbeError {
                TableError::Corrupt(self.path(k), format!("slot {slot}: {m}")).into()
            };
            let value = match local(c) {
                Some(v) => v,
                None => {
                    match t.0.wdl(slot)? {
                        Some(Wdl::Loss) => {}
                        Some(_) => continue,
                        None => return Err(corrupt("holds no value")),
                    }
                    match t.0.probe(slot)? {
                        Some(Stored::Value(v)) => Some(v),
                        _ => return Err(corrupt("win/draw/loss and distance probes disagree")),
                    }
                }
            };
            match value {
                Some(Value::Loss(d)) => {
                    let b = best.map_or(d + 1, |b| b.min(d + 1));
                    best = Some(b);
                    if b <= enough {
                        break;
                    }
                }
                Some(_) => {}
                None => return Err(corrupt("holds no value")),
            }
        }
        Ok(best)
    }

    /// The value of a position whose table says it is a win with a searched distance (checked
    /// against the table's longest win).
    pub(crate) fn searched_win(&self, f: &Folded) -> Result<Value, ProbeError> {
        self.searched_win_with(f, &|_| None, 0)
    }

    /// [`Db::searched_win`] when its distance is above `floor` plies; `None` when it is at most
    /// `floor` (found without reading every move: a one-ply search that only needs to know
    /// whether a move's win is slower than one it has).
    pub(crate) fn searched_win_above(
        &self,
        f: &Folded,
        floor: u16,
    ) -> Result<Option<Value>, ProbeError> {
        let v = self.searched_win_with(f, &|_| None, floor)?;
        Ok(v.plies().filter(|&d| d > floor).map(|_| v))
    }

    /// [`Db::searched_win`], with the moves for which `local` gives a value read from it,
    /// stopping at a distance of `enough` plies or fewer ([`Db::least_kept_loss`]).
    fn searched_win_with(
        &self,
        f: &Folded,
        local: &dyn Fn(&Folded) -> Option<Option<Value>>,
        enough: u16,
    ) -> Result<Value, ProbeError> {
        let mut ch = Children::default();
        self.rules.children(f, &mut ch);
        let longest = self.table(f.key())?.0.header().longest_win;
        match self.least_kept_loss(&ch, local, enough)? {
            // A scan stopped early (at `enough` or fewer) gives a bound, not the distance: the
            // caller asked only whether it is above `enough`, which may exceed the longest win.
            Some(d) if d > 1 && (d <= longest || d <= enough) => Ok(Value::Win(d)),
            found => Err(TableError::Corrupt(
                self.path(f.key()),
                format!(
                    "a win whose distance is searched finds {found:?} plies by its moves into \
                     tables that keep values (the header's longest win is {longest}): those \
                     tables are not the ones it was compressed beside"
                ),
            )
            .into()),
        }
    }
}

/// Gives each searched win of sector `k` (its slots `searched`, whose codes in `codes` say
/// only "win") the value a probe finds, reading the moves that stay in `k` from `codes` (a raw
/// working copy of a compressed table in the making) and the others from `db`.
pub(crate) fn resolve_searched<R: SectorRules>(
    db: &Db<R>,
    k: SectorKey,
    codes: &mut [u16],
    searched: &[u64],
) -> Result<(), ProbeError> {
    use rayon::prelude::*;
    if searched.is_empty() {
        return Ok(());
    }
    let idx = BoardIndex::new(db.rules.shape(), k.w as usize, k.b as usize);
    let found: Vec<Vec<u16>> = {
        let codes: &[u16] = codes;
        let local = |c: &Folded| -> Option<Option<Value>> {
            (c.key() == k).then(|| Value::decode(codes[idx.index(c.own, c.opp) as usize]))
        };
        searched
            .par_chunks(1 << 12)
            .map(|part| {
                part.iter()
                    .map(|&slot| {
                        let (own, opp) =
                            idx.unindex(slot).expect("a searched slot holds a position");
                        let f = Folded::in_sector(k, own, opp);
                        Ok(db.searched_win_with(&f, &local, 0)?.encode())
                    })
                    .collect::<Result<Vec<u16>, ProbeError>>()
            })
            .collect::<Result<_, _>>()?
    };
    for (&slot, code) in searched.iter().zip(found.into_iter().flatten()) {
        codes[slot as usize] = code;
    }
    Ok(())
}

/// The wins of sector `k` whose distance a search gives (see the module), from its raw table
/// and the tables its moves lead to (all in `db`); `None` when the sector's wins are not to be
/// searched. A sample of the chosen ones is then searched as a reader would and compared with
/// the raw table: a disagreement is an error.
pub fn searched_wins<R: SectorRules>(
    db: &Db<R>,
    k: SectorKey,
) -> Result<Option<SearchedWins>, ProbeError> {
    searched_wins_marked(db, k, None)
}

/// Checks marks the solver made (the look's own choice needs no check): every marked slot of
/// sector `k`'s table `t` must hold a win of more than one ply (a cheap read each; a search of
/// each would not be), else the marks are not this table's.
fn marks_are_wins<R: SectorRules>(
    db: &Db<R>,
    k: SectorKey,
    t: &(AnyTable, BoardIndex),
    bits: &[u64],
) -> Result<(), ProbeError> {
    use rayon::prelude::*;
    let bad = bits
        .par_iter()
        .enumerate()
        .map(|(w, &word)| {
            let mut x = word;
            while x != 0 {
                let slot = 64 * w as u64 + x.trailing_zeros() as u64;
                x &= x - 1;
                match t.0.value(slot)? {
                    Some(Value::Win(d)) if d > 1 => {}
                    v => return Ok(Some((slot, v))),
                }
            }
            Ok(None)
        })
        .find_map_any(|r: Result<Option<(u64, Option<Value>)>, TableError>| r.transpose());
    match bad {
        None => Ok(()),
        Some(r) => {
            let (slot, v) = r?;
            Err(TableError::Mismatch(
                db.path(k),
                format!("slot {slot} holds {v:?}, which is no win to search, but is marked as one"),
            )
            .into())
        }
    }
}

/// [`searched_wins`], taking the wins the solver marked while it solved the sector
/// ([`crate::sectors::marks`]: the same bits, without a look at every win's moves) when
/// `marked` has them.
pub fn searched_wins_marked<R: SectorRules>(
    db: &Db<R>,
    k: SectorKey,
    marked: Option<Vec<u64>>,
) -> Result<Option<SearchedWins>, ProbeError> {
    use rayon::prelude::*;
    // The one-ply look knows no marked points.
    if !searchable(k) || db.rules.marked_points(k).is_some() {
        return Ok(None);
    }
    // The losses the search reads need their distances (not `--wdl-only` tables).
    for s in db.rules.successors(k) {
        if !derivable(&db.rules, s) && !db.table(s)?.0.has_distances() {
            return Ok(None);
        }
    }
    let t = db.table(k)?;
    let idx = BoardIndex::new(db.rules.shape(), k.w as usize, k.b as usize);
    let n = idx.size();
    // Chunks of CHUNK slots, one thread each. The moves of a chunk's wins are read from their
    // tables in slot order: they are scattered over those tables, and sorted they are read
    // about as fast as a scan.
    const CHUNK: u64 = 1 << 20;
    let bits = match marked {
        Some(bits) if bits.len() as u64 == n.div_ceil(64) => {
            marks_are_wins(db, k, &t, &bits)?;
            bits
        }
        _ => {
            let decoded = decoded_successors(db, k)?;
            let parts: Vec<Vec<u64>> = (0..n.div_ceil(CHUNK))
                .into_par_iter()
                .map(|c| {
                    let lo = c * CHUNK;
                    let hi = (lo + CHUNK).min(n);
                    chosen_in(db, k, &t, &idx, (lo, hi), &decoded)
                })
                .collect::<Result<_, ProbeError>>()?;
            parts.concat()
        }
    };
    let total: u64 = bits.iter().map(|w| w.count_ones() as u64).sum();
    let step = (total / SEARCH_CHECKS as u64).max(1);
    let mut seen = 0u64;
    for (w, &word) in bits.iter().enumerate() {
        let mut x = word;
        while x != 0 {
            let slot = 64 * w as u64 + x.trailing_zeros() as u64;
            x &= x - 1;
            seen += 1;
            if !(seen - 1).is_multiple_of(step) {
                continue;
            }
            let (own, opp) = idx.unindex(slot).expect("a chosen slot holds a position");
            let searched = db.searched_win(&Folded::in_sector(k, own, opp))?;
            let stored = t.0.value(slot)?;
            if stored != Some(searched) {
                return Err(TableError::Mismatch(
                    db.path(k),
                    format!("slot {slot} holds {stored:?}, the search gives {searched:?}"),
                )
                .into());
            }
        }
    }
    Ok(Some(SearchedWins { bits }))
}
