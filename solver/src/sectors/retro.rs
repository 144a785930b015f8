//! Retrograde analysis of one unit (a sector and its colour-swapped twin).
//!
//! 1. *Initialisation*, in parallel over chunks of slots: every position's moves are generated;
//!    moves into already solved sectors (captures, placements) are looked up in their tables,
//!    moves inside the unit are counted (distinct children). A position with a winning move out
//!    of the unit gets a tentative win at that distance; one whose moves all lose (and has none
//!    inside the unit) is a loss; terminal positions are losses in 0.
//! 2. *Frontier passes* d = 0, 1, 2, ...: the slots holding a loss in d make every parent (found
//!    by un-moving, inside the unit) a win in d + 1 unless it already wins sooner; the slots
//!    holding a win in d decrement their parents' counters, and a parent whose counter reaches
//!    zero loses in max(d + 1, its longest losing move out of the unit). Slots are claimed in
//!    chunks by rayon threads; shared slots change by atomic compare-exchange.
//! 3. Whatever is still unknown is a draw.

use crate::sectors::children::Children;
use crate::sectors::db::{Db, ProbeError};
use crate::sectors::derive::derivable;
use crate::sectors::folded::Folded;
use crate::sectors::index::{BoardIndex, OwnClass};
use crate::sectors::marks::Marks;
use crate::sectors::prefetch::prefetch;
use crate::sectors::rules::SectorRules;
use crate::sectors::searched::searchable;
use rayon::prelude::*;
use retro_engine::mill::Bits;
use retro_tables::value::{loss, win, Value, DRAW, MAX_DISTANCE, MAX_STORED_DISTANCE, WASTED};
use retro_tables::SectorKey;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU8, Ordering::Relaxed};

mod evaluate;
mod tags;

use evaluate::{evaluate, too_long, EvalScratch, Target};
use tags::{Buckets, Tag};

/// Progress callbacks of a solve: slots initialised and frontier passes.
pub trait Progress: Sync {
    /// `n` more slots were initialised.
    fn init(&self, n: u64);
    /// Frontier pass `d` finished.
    fn pass(&self, d: u16);
}

impl Progress for () {
    fn init(&self, _: u64) {}
    fn pass(&self, _: u16) {}
}

struct Part {
    key: SectorKey,
    packed: u32,
    idx: BoardIndex,
    /// Values; while solving, an unknown position whose longest losing move out of the unit
    /// is `l > 0` plies holds `PENDING | l` (see [`pending`]).
    vals: Vec<AtomicU16>,
    cnt: Vec<AtomicU8>,
    /// The searched wins being marked, when asked for and the sector's wins may be searched.
    marks: Option<Marks>,
}

/// The code of an unknown position (a draw unless resolved) whose longest losing move out of
/// the unit takes `l` plies, `0 < l <= MAX_DISTANCE`, is `PENDING | l`: kept in the value
/// itself, so that the frontier passes find it where they look anyway. Wasted slots are
/// exactly `WASTED`.
const PENDING: u16 = WASTED;

/// The longest losing move out of the unit of an unknown position's code, `None` if the code
/// is known (a win or a loss) or wasted.
#[inline]
fn pending(code: u16) -> Option<u16> {
    if code == DRAW {
        Some(0)
    } else if code > PENDING {
        Some(code & MAX_DISTANCE)
    } else {
        None
    }
}

/// Solves a unit whose dependencies are in `db`; returns each sector's values.
pub fn solve_unit<R: SectorRules>(
    db: &Db<R>,
    unit: &[SectorKey],
    progress: &dyn Progress,
) -> Result<Vec<(SectorKey, Vec<u16>)>, ProbeError> {
    Ok(solve_unit_with(db, unit, progress, false)?
        .into_iter()
        .map(|s| (s.key, s.values))
        .collect())
}

/// A solved sector.
pub struct Solved {
    /// The sector.
    pub key: SectorKey,
    /// Its value codes, one a slot.
    pub values: Vec<u16>,
    /// Its searched wins, one bit a slot ([`crate::sectors::searched`]), when they were asked
    /// for and its wins may be searched.
    pub searched: Option<Vec<u64>>,
}

/// [`solve_unit`], marking the searched wins of its sectors when `mark` is set
/// ([`crate::sectors::marks`]).
pub fn solve_unit_with<R: SectorRules>(
    db: &Db<R>,
    unit: &[SectorKey],
    progress: &dyn Progress,
    mark: bool,
) -> Result<Vec<Solved>, ProbeError> {
    solve_unit_tagged(db, unit, progress, mark, false)
}

/// [`solve_unit_with`], with 8-byte frontier tags whatever the unit's size when `wide`.
fn solve_unit_tagged<R: SectorRules>(
    db: &Db<R>,
    unit: &[SectorKey],
    progress: &dyn Progress,
    mark: bool,
    wide: bool,
) -> Result<Vec<Solved>, ProbeError> {
    let rules = &db.rules;
    // A unit none of whose moves stays inside it (placement without Lasker moves) is solved in
    // one pass over its positions, grouped by the opponent's stones.
    let acyclic = unit.len() == 1 && !crate::sectors::sector::moves_stay_inside(rules, unit);
    let parts: Vec<Part> = unit
        .iter()
        .map(|&key| {
            let idx = BoardIndex::new(rules.shape(), key.w as usize, key.b as usize);
            let n = idx.size() as usize;
            let m = if acyclic { 0 } else { n };
            Part {
                key,
                packed: key.packed(),
                idx,
                vals: huge_vec(n, || AtomicU16::new(WASTED)),
                cnt: huge_vec(m, || AtomicU8::new(0)),
                marks: (mark && searchable(key)).then(|| Marks::new(n as u64)),
            }
        })
        .collect();
    // Open every table the unit's moves lead to once, so that lookups take no lock.
    let mut deps: Vec<Dep> = Vec::new();
    for &k in unit {
        for c in rules.successors(k) {
            if find_part(&parts, c).is_none() && !deps.iter().any(|d| d.0 == c.packed()) {
                deps.push((c.packed(), db.table(c)?));
            }
        }
    }
    // Every block of the raw dependencies checked now, in file order, rather than each when a
    // lookup first reads it: the lookups then skip the check, which tests a bit per block that
    // a random read seldom finds in the cache (and a table read in part stays in part checked).
    for d in &deps {
        if let retro_tables::any_table::AnyTable::Raw(t) = &d.1 .0 {
            t.check_blocks()?;
        }
    }
    // Which dependencies keep their values (a searched win's distance is read from those).
    let kept: Vec<bool> = deps
        .iter()
        .map(|d| !derivable(rules, SectorKey::unpacked(d.0)))
        .collect();
    // Frontier entries of 4 bytes when each part's slots fit in 31 bits, else of 8.
    if !wide && parts.len() <= 2 && parts.iter().all(|p| p.idx.size() <= 1 << 31) {
        analyse::<R, u32>(db, unit, parts, &deps, &kept, acyclic, progress)
    } else {
        analyse::<R, u64>(db, unit, parts, &deps, &kept, acyclic, progress)
    }
}

/// Retrograde analysis of a unit's `parts` (their values yet unset), with `T` as the frontier's
/// slot tags.
fn analyse<R: SectorRules, T: Tag>(
    db: &Db<R>,
    unit: &[SectorKey],
    parts: Vec<Part>,
    deps: &[Dep],
    kept: &[bool],
    acyclic: bool,
    progress: &dyn Progress,
) -> Result<Vec<Solved>, ProbeError> {
    let rules = &db.rules;
    let max_assigned = AtomicU16::new(0);
    let failed: std::sync::Mutex<Option<ProbeError>> = std::sync::Mutex::new(None);
    let stop = AtomicBool::new(false);

    let started = std::time::Instant::now();
    // 1. Initialisation, grouped by the opponent's stone class so that moves out of the unit
    //    look up neighbouring entries of the next tables.
    let buckets = Buckets::<T>::default();
    for (pi, part) in parts.iter().enumerate() {
        let classes = part.idx.opp_classes();
        (0..classes).into_par_iter().for_each_init(
            InitScratch::default,
            |scratch: &mut InitScratch<T>, c| {
                let InitScratch {
                    eval,
                    found,
                    results,
                } = scratch;
                if stop.load(Relaxed) {
                    return;
                }
                let mut local_max = 0u16;
                let mut visited = 0u64;
                // Whether the moves into the colour-swapped sector stay inside the unit and
                // need only counting (see `evaluate`): the same for the whole class.
                let mut count_plain: Option<bool> = None;
                let drawn = rules.drawn(part.key);
                part.idx.for_each_by_opp(c, c + 1, |own, opp| {
                    if !rules.valid(own, opp) {
                        // Not a position of the game (Dara: a run of four): stays wasted.
                        return;
                    }
                    if drawn {
                        // A drawn end: no moves, not a loss. Nothing un-moves into it.
                        visited += 1;
                        results.push((part.idx.index(own, opp), DRAW, 0, 0));
                        return;
                    }
                    let count_plain = *count_plain.get_or_insert_with(|| {
                        let swapped = part.key.swapped().packed();
                        let ctx = eval.cache.lookup(&parts, deps, opp, opp, swapped);
                        matches!(ctx.target, Target::Part(_)) && ctx.class.stab == 1
                    });
                    let f = Folded {
                        own,
                        opp,
                        own_hand: part.key.wf,
                        opp_hand: part.key.bf,
                    };
                    let slot = part.idx.index(own, opp);
                    visited += 1;
                    let e = match evaluate(&parts, deps, kept, &f, rules, eval, count_plain) {
                        Ok(e) => e,
                        Err(e) => {
                            stop.store(true, Relaxed);
                            failed.lock().expect("error lock").get_or_insert(e);
                            return;
                        }
                    };
                    let (code, count) = if acyclic {
                        (e.code, 0)
                    } else {
                        assert!(e.count < 256, "more than 255 distinct moves inside a unit");
                        assert!(e.loss_max <= MAX_DISTANCE, "distance out of range");
                        if e.code == DRAW && e.loss_max > 0 {
                            (PENDING | e.loss_max, e.count as u8)
                        } else {
                            (e.code, e.count as u8)
                        }
                    };
                    // Marks: 1 excluded, 2 chosen (a win the initialisation decides).
                    let marks = match &part.marks {
                        Some(_) if !e.eligible => 1,
                        Some(_) => {
                            let d = e.code & MAX_DISTANCE;
                            let chosen = e.code == win(d) && d > 1 && e.best_kept == d;
                            (chosen as u8) << 1
                        }
                        None => 0,
                    };
                    results.push((slot, code, count, marks));
                    if e.code != DRAW {
                        let dist = e.code & MAX_DISTANCE;
                        local_max = local_max.max(dist);
                        if !acyclic {
                            found.push((dist, T::new(pi, slot)));
                        }
                    }
                });
                // The slots of one opponent class are scattered over the sector: they are
                // written after the class, fetched a few ahead, so that while the moves are
                // looked up the cache holds the next tables rather than these slots.
                // Counters start at zero, which those of known positions stay.
                const AHEAD: usize = 16;
                for i in 0..results.len() {
                    if let Some(&(ahead, _, count, _)) = results.get(i + AHEAD) {
                        prefetch(&part.vals[ahead as usize]);
                        if count != 0 {
                            prefetch(&part.cnt[ahead as usize]);
                        }
                    }
                    let (slot, code, count, marks) = results[i];
                    let s = slot as usize;
                    part.vals[s].store(code, Relaxed);
                    if count != 0 {
                        part.cnt[s].store(count, Relaxed);
                    }
                    if let (Some(m), true) = (&part.marks, marks != 0) {
                        if marks & 1 != 0 {
                            m.exclude(slot);
                        } else {
                            m.choose(slot);
                        }
                    }
                }
                results.clear();
                buckets.add(found);
                max_assigned.fetch_max(local_max, Relaxed);
                progress.init(visited);
            },
        );
    }
    if let Some(e) = failed.into_inner().expect("error lock") {
        return Err(e);
    }

    let init_time = started.elapsed().as_secs_f64();
    let mut pass_entries = 0u64;

    // 2. Frontier passes over the positions resolved at each distance (none when no move stays
    //    inside the unit).
    let mut d: u16 = 0;
    while !acyclic && d <= max_assigned.load(Relaxed) && d < MAX_DISTANCE - 1 {
        let (lv, wv) = (loss(d), win(d));
        let frontier = buckets.take(d);
        pass_entries += frontier.len() as u64;
        frontier.par_chunks(1 << 10).for_each_init(
            PassScratch::default,
            |scratch: &mut PassScratch<T>, chunk| {
                let PassScratch {
                    parents,
                    pending_parents,
                    groups,
                    work,
                    found,
                } = scratch;
                let mut local_max = 0u16;
                // In batches, each stage starting to fetch what the next needs (children,
                // parents and their slots are scattered over the unit): find the parents of a
                // few children, then their slots, then update them.
                const BATCH: usize = 16;
                for (b, batch) in chunk.chunks(BATCH).enumerate() {
                    for &tagged in chunk.iter().skip((b + 1) * BATCH).take(BATCH) {
                        let (pi, slot) = tagged.get();
                        prefetch(&parts[pi].vals[slot as usize]);
                    }
                    pending_parents.clear();
                    groups.clear();
                    for &tagged in batch {
                        let (pi, slot) = tagged.get();
                        let part = &parts[pi];
                        let v = part.vals[slot as usize].load(Relaxed);
                        if v != lv && v != wv {
                            // Improved to a quicker win after it was queued.
                            continue;
                        }
                        let is_loss = v == lv;
                        let (own, opp) = part.idx.unindex(slot).expect("valued slot is a position");
                        let child = Folded { own, opp, own_hand: part.key.wf, opp_hand: part.key.bf };
                        parents.clear();
                        rules.unmoves(&child, parents);
                        let start = pending_parents.len();
                        // The parents of a child usually share their sector.
                        let mut last: Option<(u32, Option<usize>)> = None;
                        for p in parents.iter() {
                            let k = p.packed_key();
                            let u = match last {
                                Some((lk, lu)) if lk == k => lu,
                                _ => {
                                    let lu = find_packed(&parts, k);
                                    last = Some((k, lu));
                                    lu
                                }
                            };
                            if let Some(u) = u {
                                let rank = parts[u].idx.prefetch_class(p.own);
                                pending_parents.push((is_loss, u, rank, p.opp));
                            }
                        }
                        // Two un-moves reach the same parent up to symmetry only through a
                        // symmetry fixing the child's own stones (the parent's opponent stones).
                        let symmetric = !part.idx.slot_own_asymmetric(slot);
                        groups.push((start, pending_parents.len(), symmetric));
                    }
                    work.clear();
                    for &(start, end, symmetric) in groups.iter() {
                        let first = work.len();
                        for &(is_loss, u, rank, opp) in &pending_parents[start..end] {
                            let idx = &parts[u].idx;
                            let s = idx.index_in(&idx.own_class_of_rank(rank), opp);
                            prefetch(&parts[u].vals[s as usize]);
                            if !is_loss {
                                prefetch(&parts[u].cnt[s as usize]);
                            }
                            work.push((is_loss, u, s));
                        }
                        if symmetric {
                            let tail = &mut work[first..];
                            tail.sort_unstable();
                            let mut keep = first;
                            for i in first..work.len() {
                                if i == first || work[i] != work[keep - 1] {
                                    work[keep] = work[i];
                                    keep += 1;
                                }
                            }
                            work.truncate(keep);
                        }
                    }
                    for &(is_loss, u, s) in work.iter() {
                        let pp = &parts[u];
                        if is_loss {
                            let target = win(d + 1);
                            let cell = &pp.vals[s as usize];
                            let mut cur = cell.load(Relaxed);
                            loop {
                                let better = pending(cur).is_some()
                                    || matches!(Value::decode(cur), Some(Value::Win(x)) if x > d + 1);
                                if !better {
                                    break;
                                }
                                match cell.compare_exchange_weak(cur, target, Relaxed, Relaxed) {
                                    Ok(_) => {
                                        local_max = local_max.max(d + 1);
                                        found.push((d + 1, T::new(u, s)));
                                        cur = target;
                                        break;
                                    }
                                    Err(now) => cur = now,
                                }
                            }
                            // A win in d + 1 (final: later passes only find slower ones) with
                            // a move to this loss inside the unit, which keeps its values; a
                            // win in 1 is never searched, though the initialisation may have
                            // chosen it for a slower win through a kept sector.
                            if let (Some(m), true) = (&pp.marks, cur == target) {
                                if d > 0 {
                                    m.choose(s);
                                } else {
                                    m.unchoose(s);
                                }
                            }
                        } else if pp.cnt[s as usize].fetch_sub(1, Relaxed) == 1 {
                            let cell = &pp.vals[s as usize];
                            let cur = cell.load(Relaxed);
                            if let Some(longest) = pending(cur) {
                                let dist = (d + 1).max(longest);
                                if cell.compare_exchange(cur, loss(dist), Relaxed, Relaxed).is_ok() {
                                    local_max = local_max.max(dist);
                                    found.push((dist, T::new(u, s)));
                                }
                            }
                        }
                    }
                }
                buckets.add(found);
                max_assigned.fetch_max(local_max, Relaxed);
            },
        );
        progress.pass(d);
        d += 1;
    }
    if !acyclic && d <= max_assigned.load(Relaxed) {
        return Err(too_long(d));
    }

    if std::env::var_os("RETRO_TIMING").is_some() {
        eprintln!(
            "unit {:?}: init {init_time:.2} s, {d} passes over {pass_entries} entries {:.2} s",
            unit,
            started.elapsed().as_secs_f64() - init_time
        );
    }

    // 3. Unknown is a draw.
    Ok(parts
        .into_iter()
        .map(|p| {
            let vals = p.vals.into_iter().map(|a| {
                let v = a.into_inner();
                if v > PENDING {
                    DRAW
                } else {
                    v
                }
            });
            Solved {
                key: p.key,
                values: vals.collect(),
                searched: p.marks.map(Marks::finish),
            }
        })
        .collect())
}

/// An opened dependency: a sector's packed key, its table and index.
type Dep = (
    u32,
    std::sync::Arc<(retro_tables::any_table::AnyTable, BoardIndex)>,
);

fn find_part(parts: &[Part], k: SectorKey) -> Option<usize> {
    find_packed(parts, k.packed())
}

#[inline]
fn find_packed(parts: &[Part], k: u32) -> Option<usize> {
    parts.iter().position(|p| p.packed == k)
}

/// Per-thread buffers of the initialisation.
#[derive(Default)]
struct InitScratch<T> {
    eval: EvalScratch,
    /// Resolved slots, with their distance.
    found: Vec<(u16, T)>,
    /// Values of one opponent class: (slot, code, counter, marks).
    results: Vec<(u64, u16, u8, u8)>,
}

/// Per-thread buffers of a frontier pass.
#[derive(Default)]
struct PassScratch<T> {
    /// Parents of one child.
    parents: Vec<Folded>,
    /// Parents of a batch: whether the child is a loss, part, colex rank of the parent's own
    /// stones, its opponent stones.
    pending_parents: Vec<(bool, usize, u64, Bits)>,
    /// The parents of each child of a batch in `pending_parents`, and whether they need
    /// deduplicating.
    groups: Vec<(usize, usize, bool)>,
    /// Parent updates: whether the child is a loss, part, slot.
    work: Vec<(bool, usize, u64)>,
    /// Resolved slots, with their distance.
    found: Vec<(u16, T)>,
}

/// A vector of `n` elements made by `init`, its memory advised to be backed by huge pages
/// (2 MiB): the solver writes its slots in scattered order, and with 4 KiB pages nearly every
/// access would miss the TLB. The advice is only a hint; results do not depend on it.
fn huge_vec<T>(n: usize, init: impl FnMut() -> T) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(n);
    retro_tables::huge::advise(v.spare_capacity_mut());
    v.extend(std::iter::repeat_with(init).take(n));
    v
}

/// Totals of one solved sector.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    /// Positions (slots that hold a position).
    pub positions: u64,
    /// Won for the side to move.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost for the side to move.
    pub losses: u64,
    /// Longest win in plies.
    pub longest_win: u16,
}

impl Counts {
    /// The counts a table's header holds (its values tallied when it was written).
    pub fn of_header(h: &retro_tables::sector_table::Header) -> Counts {
        Counts {
            positions: h.wins + h.draws + h.losses,
            wins: h.wins,
            draws: h.draws,
            losses: h.losses,
            longest_win: h.longest_win,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sectors::solve::solve;
    use retro_engine::mill::{Mill, Profile};

    #[test]
    fn tags_round_trip() {
        for (part, slot) in [
            (0, 0),
            (1, 0),
            (0, (1 << 31) - 1),
            (1, (1 << 31) - 1),
            (1, 12345),
        ] {
            assert_eq!(<u32 as Tag>::new(part, slot).get(), (part, slot));
            assert_eq!(<u64 as Tag>::new(part, slot).get(), (part, slot));
        }
        assert_eq!(
            <u64 as Tag>::new(1, (1 << 48) - 1).get(),
            (1, (1 << 48) - 1)
        );
    }

    /// Both tag widths give the same values and marks, on units of one sector and of two.
    #[test]
    fn wide_and_narrow_tags_agree() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::new(
            Mill::new(Profile::preset("nine-mens-morris").unwrap()),
            dir.path(),
        );
        let k = |w, b| SectorKey { w, b, wf: 0, bf: 0 };
        solve(&db, &[k(4, 4)], &()).unwrap();
        for unit in [vec![k(3, 3)], vec![k(3, 4), k(4, 3)], vec![k(4, 4)]] {
            let narrow = solve_unit_tagged(&db, &unit, &(), true, false).unwrap();
            let wide = solve_unit_tagged(&db, &unit, &(), true, true).unwrap();
            for (a, b) in narrow.iter().zip(&wide) {
                assert_eq!(a.key, b.key);
                assert!(a.values == b.values, "{}", a.key);
                assert!(a.searched == b.searched, "{}", a.key);
                assert!(a.values.iter().any(|&v| v != DRAW && v != WASTED));
            }
        }
    }
}
