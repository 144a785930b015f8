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

use crate::db::{Db, ProbeError};
use crate::index::BoardIndex;
use crate::mill_gen::Children;
use crate::rules::SectorRules;
use crate::sector::{Folded, SectorKey};
use crate::value::{loss, win, Value, DRAW, MAX_DISTANCE, WASTED};
use rayon::prelude::*;
use retro_engine::mill::{Bits, Mill};
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU8, Ordering::Relaxed};

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

/// The parents of a position by non-capturing moves inside its unit (un-slides, un-flies).
pub fn unmoves(game: &Mill, child: &Folded, out: &mut Vec<Folded>) {
    let prof = &game.profile;
    let geo = game.geo;
    let mover = child.opp;
    let mover_hand = child.opp_hand;
    if mover_hand > 0 && !prof.move_in_placing {
        return;
    }
    let fly = prof.flying && mover_hand == 0 && mover.count_ones() <= prof.fly_at as u32;
    let empty = geo.all & !(child.own | child.opp);
    let victim_has_stones = child.own != 0;
    let mut set = mover;
    while set != 0 {
        let to = set.trailing_zeros() as usize;
        set &= set - 1;
        let closes = geo.mills_through[to]
            .iter()
            .any(|&m| m != 0 && mover & m == m);
        if closes && victim_has_stones {
            continue;
        }
        let mut froms: Bits = if fly { empty } else { geo.adjacent[to] & empty };
        while froms != 0 {
            let from = froms.trailing_zeros();
            froms &= froms - 1;
            out.push(Folded {
                own: mover ^ (1 << to) ^ (1 << from),
                opp: child.own,
                own_hand: mover_hand,
                opp_hand: child.own_hand,
            });
        }
    }
}

struct Part {
    key: SectorKey,
    packed: u32,
    idx: BoardIndex,
    vals: Vec<AtomicU16>,
    cnt: Vec<AtomicU8>,
    loss_max: Vec<AtomicU16>,
}

/// Solves a unit whose dependencies are in `db`; returns each sector's values.
pub fn solve_unit<R: SectorRules>(
    db: &Db<R>,
    unit: &[SectorKey],
    progress: &dyn Progress,
) -> Result<Vec<(SectorKey, Vec<u16>)>, ProbeError> {
    let rules = &db.rules;
    // A unit none of whose moves stays inside it (placement without Lasker moves) is solved in
    // one pass over its positions, grouped by the opponent's stones.
    let acyclic = unit.len() == 1 && !rules.successors(unit[0]).contains(&unit[0]);
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
                vals: (0..n).map(|_| AtomicU16::new(WASTED)).collect(),
                cnt: (0..m).map(|_| AtomicU8::new(0)).collect(),
                loss_max: (0..m).map(|_| AtomicU16::new(0)).collect(),
            }
        })
        .collect();
    let part_of = |k: SectorKey| find_part(&parts, k);
    // Open every table the unit's moves lead to once, so that lookups take no lock.
    let mut deps: Vec<Dep> = Vec::new();
    for &k in unit {
        for c in rules.successors(k) {
            if find_part(&parts, c).is_none() && !deps.iter().any(|d| d.0 == c.packed()) {
                deps.push((c.packed(), db.table(c)?));
            }
        }
    }
    let max_assigned = AtomicU16::new(0);
    let failed: std::sync::Mutex<Option<ProbeError>> = std::sync::Mutex::new(None);
    let stop = AtomicBool::new(false);

    let started = std::time::Instant::now();
    // 1. Initialisation, grouped by the opponent's stone class so that moves out of the unit
    //    look up neighbouring entries of the next tables.
    let buckets = Buckets::default();
    for (pi, part) in parts.iter().enumerate() {
        let classes = part.idx.opp_classes();
        (0..classes).into_par_iter().for_each_init(
            || (Children::default(), Vec::new(), Vec::new()),
            |(children, inside, found): &mut InitScratch, c| {
                if stop.load(Relaxed) {
                    return;
                }
                let mut local_max = 0u16;
                let mut visited = 0u64;
                part.idx.for_each_by_opp(c, c + 1, |own, opp| {
                    if !rules.valid(own, opp) {
                        // Not a position of the game (Dara: a run of four): stays wasted.
                        return;
                    }
                    let f = Folded {
                        own,
                        opp,
                        own_hand: part.key.wf,
                        opp_hand: part.key.bf,
                    };
                    // The slot is far from the last one: start fetching it before the work.
                    let slot = part.idx.index(own, opp);
                    let s = slot as usize;
                    prefetch(&part.vals[s]);
                    if !acyclic {
                        prefetch(&part.cnt[s]);
                        prefetch(&part.loss_max[s]);
                    }
                    visited += 1;
                    let e = match evaluate(&parts, &deps, &f, rules, children, inside) {
                        Ok(e) => e,
                        Err(e) => {
                            stop.store(true, Relaxed);
                            failed.lock().expect("error lock").get_or_insert(e);
                            return;
                        }
                    };
                    part.vals[s].store(e.code, Relaxed);
                    if !acyclic {
                        assert!(e.count < 256, "more than 255 distinct moves inside a unit");
                        part.cnt[s].store(e.count as u8, Relaxed);
                        part.loss_max[s].store(e.loss_max, Relaxed);
                    }
                    if e.code != DRAW {
                        let dist = e.code & MAX_DISTANCE;
                        local_max = local_max.max(dist);
                        if !acyclic {
                            found.push((dist, tag(pi, slot)));
                        }
                    }
                });
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
            || (Vec::new(), Vec::new(), Vec::new()),
            |(parents, work, found): &mut PassScratch, chunk| {
                let mut local_max = 0u16;
                // In batches: find the parents of a few children and start fetching their
                // entries, then update them (parent slots are scattered over the unit).
                for batch in chunk.chunks(32) {
                    work.clear();
                    for &tagged in batch {
                        let (pi, slot) = untag(tagged);
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
                        let first = work.len();
                        for p in parents.iter() {
                            if let Some(u) = part_of(p.key()) {
                                let s = parts[u].idx.index(p.own, p.opp);
                                prefetch(&parts[u].vals[s as usize]);
                                if !is_loss {
                                    prefetch(&parts[u].cnt[s as usize]);
                                }
                                work.push((is_loss, u, s));
                            }
                        }
                        // Two un-moves reach the same parent up to symmetry only through a
                        // symmetry fixing the child's own stones (the parent's opponent stones).
                        if !part.idx.own_set_asymmetric(own) {
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
                                let better = cur == DRAW
                                    || matches!(Value::decode(cur), Some(Value::Win(x)) if x > d + 1);
                                if !better {
                                    break;
                                }
                                match cell.compare_exchange_weak(cur, target, Relaxed, Relaxed) {
                                    Ok(_) => {
                                        local_max = local_max.max(d + 1);
                                        found.push((d + 1, tag(u, s)));
                                        break;
                                    }
                                    Err(now) => cur = now,
                                }
                            }
                        } else if pp.cnt[s as usize].fetch_sub(1, Relaxed) == 1 {
                            let dist = (d + 1).max(pp.loss_max[s as usize].load(Relaxed));
                            if pp.vals[s as usize].compare_exchange(DRAW, loss(dist), Relaxed, Relaxed).is_ok() {
                                local_max = local_max.max(dist);
                                found.push((dist, tag(u, s)));
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

    if std::env::var_os("RETRO_TIMING").is_some() {
        eprintln!(
            "unit {:?}: init {init_time:.2} s, {d} passes over {pass_entries} entries {:.2} s",
            unit,
            started.elapsed().as_secs_f64() - init_time
        );
    }

    // 3. Unknown is a draw (already encoded as DRAW).
    Ok(parts
        .into_iter()
        .map(|p| (p.key, p.vals.into_iter().map(|a| a.into_inner()).collect()))
        .collect())
}

/// An opened dependency: a sector's packed key, its table and index.
type Dep = (u32, std::sync::Arc<(crate::table::Table, BoardIndex)>);

fn find_part(parts: &[Part], k: SectorKey) -> Option<usize> {
    find_packed(parts, k.packed())
}

#[inline]
fn find_packed(parts: &[Part], k: u32) -> Option<usize> {
    parts.iter().position(|p| p.packed == k)
}

/// Per-thread buffers of the initialisation: moves, moves inside the unit, resolved slots.
type InitScratch = (Children, Vec<(usize, u64)>, Vec<(u16, u64)>);
/// Per-thread buffers of a frontier pass: parents, parent updates (whether the child is a loss,
/// part, slot), resolved slots.
type PassScratch = (Vec<Folded>, Vec<(bool, usize, u64)>, Vec<(u16, u64)>);

/// A slot tagged with the unit part it belongs to.
#[inline]
fn tag(part: usize, slot: u64) -> u64 {
    (part as u64) << 48 | slot
}

#[inline]
fn untag(t: u64) -> (usize, u64) {
    ((t >> 48) as usize, t & ((1 << 48) - 1))
}

/// Resolved slots waiting for their frontier pass, by distance.
#[derive(Default)]
struct Buckets(std::sync::Mutex<Vec<Vec<u64>>>);

impl Buckets {
    /// Files `(distance, tagged slot)` pairs and empties `found`.
    fn add(&self, found: &mut Vec<(u16, u64)>) {
        if found.is_empty() {
            return;
        }
        let mut b = self.0.lock().expect("bucket lock");
        for &(d, t) in found.iter() {
            let d = d as usize;
            if b.len() <= d {
                b.resize_with(d + 1, Vec::new);
            }
            b[d].push(t);
        }
        found.clear();
    }

    /// Takes the slots resolved at distance `d`.
    fn take(&self, d: u16) -> Vec<u64> {
        let mut b = self.0.lock().expect("bucket lock");
        b.get_mut(d as usize)
            .map(std::mem::take)
            .unwrap_or_default()
    }
}

/// Hints the CPU to bring a cache line in (no effect on results).
#[inline]
fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is only a hint; it reads no memory architecturally and cannot fault,
    // and the pointer comes from a live reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            p as *const T as *const i8,
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// What the moves of a position say before the frontier passes.
struct Eval {
    /// The value code if already known, else `DRAW` (unknown).
    code: u16,
    /// Distinct moves inside the unit, plus one if a move out of it draws.
    count: usize,
    /// The longest loss among moves out of the unit (plies, counted from this position).
    loss_max: u16,
}

/// Generates a position's moves, looks up those leaving the unit, and collects those inside it
/// (as (part, slot) pairs, deduplicated) into `inside`.
#[inline]
fn evaluate<R: SectorRules>(
    parts: &[Part],
    deps: &[Dep],
    f: &Folded,
    rules: &R,
    children: &mut Children,
    inside: &mut Vec<(usize, u64)>,
) -> Result<Eval, ProbeError> {
    rules.children(f, children);
    inside.clear();
    if children.wins_now {
        return Ok(Eval {
            code: win(1),
            count: 0,
            loss_max: 0,
        });
    }
    if children.list.is_empty() {
        // No legal move: the side to move loses.
        return Ok(Eval {
            code: loss(0),
            count: 0,
            loss_max: 0,
        });
    }
    let mut best_win: Option<u16> = None;
    let mut draw_out = false;
    let mut loss_max: u16 = 0;
    // Two moves can only lead to the same position up to symmetry through a symmetry that fixes
    // the opponent's stones (they are the child's own stones, untouched by the move). When none
    // does, moves inside the unit are counted without computing their slots.
    let mut plain_inside = 0usize;
    let mut asymmetric: Option<bool> = None;
    for c in children.list.iter() {
        let ck = c.packed_key();
        let value = if let Some(u) = find_packed(parts, ck) {
            let asym = *asymmetric.get_or_insert_with(|| parts[u].idx.own_set_asymmetric(f.opp));
            if asym {
                plain_inside += 1;
            } else {
                inside.push((u, parts[u].idx.index(c.own, c.opp)));
            }
            continue;
        } else if let Some((_, t)) = deps.iter().find(|d| d.0 == ck) {
            let slot = t.1.index(c.own, c.opp);
            t.0.value(slot).ok_or_else(|| {
                ProbeError::Unsupported(format!("table {} has no value at slot {slot}", c.key()))
            })?
        } else {
            return Err(ProbeError::Unsupported(format!(
                "no table opened for sector {}",
                c.key()
            )));
        };
        match value {
            Value::Loss(d) => {
                best_win = Some(best_win.map_or(d + 1, |b| b.min(d + 1)));
                if d == 0 {
                    break;
                }
            }
            Value::Win(d) => loss_max = loss_max.max(d + 1),
            Value::Draw => draw_out = true,
        }
    }
    if let Some(w) = best_win {
        // A win never needs its counter: it cannot become a loss.
        return Ok(Eval {
            code: win(w),
            count: 0,
            loss_max: 0,
        });
    }
    inside.sort_unstable();
    inside.dedup();
    let count = inside.len() + plain_inside + draw_out as usize;
    let code = if count == 0 { loss(loss_max) } else { DRAW };
    Ok(Eval {
        code,
        count,
        loss_max,
    })
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

/// Counts the values of a sector.
pub fn count(values: &[u16]) -> Counts {
    let mut c = Counts::default();
    for &v in values {
        match Value::decode(v) {
            Some(Value::Win(d)) => {
                c.wins += 1;
                c.longest_win = c.longest_win.max(d);
            }
            Some(Value::Draw) => c.draws += 1,
            Some(Value::Loss(_)) => c.losses += 1,
            None => continue,
        }
        c.positions += 1;
    }
    c
}
