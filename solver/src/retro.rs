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
use crate::mill_gen::{Children, Gen};
use crate::sector::{successors, Folded, SectorKey};
use crate::value::{loss, win, Value, DRAW, MAX_DISTANCE, WASTED};
use rayon::prelude::*;
use retro_engine::mill::{Bits, Mill};
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU8, Ordering::Relaxed};

/// Slots per work chunk.
const CHUNK: u64 = 1 << 12;

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
pub fn solve_unit(
    db: &Db,
    unit: &[SectorKey],
    progress: &dyn Progress,
) -> Result<Vec<(SectorKey, Vec<u16>)>, ProbeError> {
    let game = &db.game;
    // A unit none of whose moves stays inside it (placement without Lasker moves) is solved in
    // one pass over its positions, grouped by the opponent's stones.
    let acyclic = unit.len() == 1 && !successors(&game.profile, unit[0]).contains(&unit[0]);
    let parts: Vec<Part> = unit
        .iter()
        .map(|&key| {
            let idx = BoardIndex::new(game.geo, key.w as usize, key.b as usize);
            let n = idx.size() as usize;
            let m = if acyclic { 0 } else { n };
            Part {
                key,
                packed: key.packed(),
                idx,
                vals: (0..n).map(|_| AtomicU16::new(if acyclic { WASTED } else { DRAW })).collect(),
                cnt: (0..m).map(|_| AtomicU8::new(0)).collect(),
                loss_max: (0..m).map(|_| AtomicU16::new(0)).collect(),
            }
        })
        .collect();
    let part_of = |k: SectorKey| find_part(&parts, k);
    // Open every table the unit's moves lead to once, so that lookups take no lock.
    let mut deps: Vec<Dep> = Vec::new();
    for &k in unit {
        for c in successors(&game.profile, k) {
            if find_part(&parts, c).is_none() && !deps.iter().any(|d| d.0 == c.packed()) {
                deps.push((c.packed(), db.table(c)?));
            }
        }
    }
    let max_assigned = AtomicU16::new(0);
    let failed: std::sync::Mutex<Option<ProbeError>> = std::sync::Mutex::new(None);
    let stop = AtomicBool::new(false);

    // 1. Initialisation.
    let gen = Gen::new(game);
    if acyclic {
        let part = &parts[0];
        let classes = part.idx.opp_classes();
        (0..classes).into_par_iter().with_min_len(4).for_each_init(
            || (Children::default(), Vec::new()),
            |(children, inside): &mut (Children, Vec<(usize, u64)>), c| {
                if stop.load(Relaxed) {
                    return;
                }
                let mut local_max = 0u16;
                let mut visited = 0u64;
                part.idx.for_each_by_opp(c, c + 1, |own, opp| {
                    let f = Folded { own, opp, own_hand: part.key.wf, opp_hand: part.key.bf };
                    // The slot is far from the last one: start fetching it before the work.
                    let slot = part.idx.index(own, opp) as usize;
                    prefetch(&part.vals[slot]);
                    match evaluate(&parts, &deps, &f, &gen, children, inside) {
                        Ok(e) => {
                            part.vals[slot].store(e.code, Relaxed);
                            if e.code != DRAW {
                                local_max = local_max.max(e.code & MAX_DISTANCE);
                            }
                        }
                        Err(e) => {
                            stop.store(true, Relaxed);
                            failed.lock().expect("error lock").get_or_insert(e);
                        }
                    }
                    visited += 1;
                });
                max_assigned.fetch_max(local_max, Relaxed);
                progress.init(visited);
            },
        );
    }
    for pi in (0..parts.len()).filter(|_| !acyclic) {
        let n = parts[pi].idx.size();
        let chunks = n.div_ceil(CHUNK);
        (0..chunks).into_par_iter().for_each_init(
            || (Children::default(), Vec::new()),
            |(children, inside): &mut (Children, Vec<(usize, u64)>), c| {
                if stop.load(Relaxed) {
                    return;
                }
                let (lo, hi) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
                let mut local_max = 0u16;
                parts[pi].idx.for_each(lo, hi, |slot, pos| {
                    if stop.load(Relaxed) {
                        return;
                    }
                    match init_slot(&parts, &deps, pi, slot, pos, &gen, children, inside) {
                        Ok(Some(d)) => local_max = local_max.max(d),
                        Ok(None) => {}
                        Err(e) => {
                            stop.store(true, Relaxed);
                            failed.lock().expect("error lock").get_or_insert(e);
                        }
                    }
                });
                max_assigned.fetch_max(local_max, Relaxed);
                progress.init(hi - lo);
            },
        );
    }
    if let Some(e) = failed.into_inner().expect("error lock") {
        return Err(e);
    }

    // 2. Frontier passes (none when no move stays inside the unit).
    let mut d: u16 = 0;
    while !acyclic {
        let (lv, wv) = (loss(d), win(d));
        for part in &parts {
            let n = part.idx.size();
            let chunks = n.div_ceil(CHUNK);
            (0..chunks).into_par_iter().for_each_init(
                || (Vec::new(), Vec::new()),
                |(parents, slots): &mut (Vec<Folded>, Vec<(usize, u64)>), c| {
                    let (lo, hi) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
                    for slot in lo..hi {
                        let v = part.vals[slot as usize].load(Relaxed);
                        if v != lv && v != wv {
                            continue;
                        }
                        let (own, opp) = part.idx.unindex(slot).expect("valued slot is a position");
                        let child = Folded { own, opp, own_hand: part.key.wf, opp_hand: part.key.bf };
                        parents.clear();
                        unmoves(game, &child, parents);
                        slots.clear();
                        for p in parents.iter() {
                            if let Some(u) = part_of(p.key()) {
                                slots.push((u, parts[u].idx.index(p.own, p.opp)));
                            }
                        }
                        slots.sort_unstable();
                        slots.dedup();
                        for &(u, s) in slots.iter() {
                            let pp = &parts[u];
                            if v == lv {
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
                                            max_assigned.fetch_max(d + 1, Relaxed);
                                            break;
                                        }
                                        Err(now) => cur = now,
                                    }
                                }
                            } else if pp.cnt[s as usize].fetch_sub(1, Relaxed) == 1 {
                                let dist = (d + 1).max(pp.loss_max[s as usize].load(Relaxed));
                                if pp.vals[s as usize].compare_exchange(DRAW, loss(dist), Relaxed, Relaxed).is_ok() {
                                    max_assigned.fetch_max(dist, Relaxed);
                                }
                            }
                        }
                    }
                },
            );
        }
        progress.pass(d);
        if d >= max_assigned.load(Relaxed) || d >= MAX_DISTANCE - 1 {
            break;
        }
        d += 1;
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

/// Hints the CPU to bring a cache line in (no effect on results).
#[inline]
fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is only a hint; it reads no memory architecturally and cannot fault,
    // and the pointer comes from a live reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const T as *const i8)
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
fn evaluate(
    parts: &[Part],
    deps: &[Dep],
    f: &Folded,
    gen: &Gen,
    children: &mut Children,
    inside: &mut Vec<(usize, u64)>,
) -> Result<Eval, ProbeError> {
    gen.children(f, children);
    inside.clear();
    if children.wins_now {
        return Ok(Eval { code: win(1), count: 0, loss_max: 0 });
    }
    if children.list.is_empty() {
        // No legal move: the side to move loses.
        return Ok(Eval { code: loss(0), count: 0, loss_max: 0 });
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
            return Err(ProbeError::Unsupported(format!("no table opened for sector {}", c.key())));
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
        return Ok(Eval { code: win(w), count: 0, loss_max: 0 });
    }
    inside.sort_unstable();
    inside.dedup();
    let count = inside.len() + plain_inside + draw_out as usize;
    let code = if count == 0 { loss(loss_max) } else { DRAW };
    Ok(Eval { code, count, loss_max })
}

/// Initialises one slot; returns the distance assigned, if any.
#[allow(clippy::too_many_arguments)]
#[inline]
fn init_slot(
    parts: &[Part],
    deps: &[Dep],
    pi: usize,
    slot: u64,
    pos: Option<(Bits, Bits)>,
    gen: &Gen,
    children: &mut Children,
    inside: &mut Vec<(usize, u64)>,
) -> Result<Option<u16>, ProbeError> {
    let part = &parts[pi];
    let s = slot as usize;
    let Some((own, opp)) = pos else {
        part.vals[s].store(WASTED, Relaxed);
        return Ok(None);
    };
    let f = Folded { own, opp, own_hand: part.key.wf, opp_hand: part.key.bf };
    let e = evaluate(parts, deps, &f, gen, children, inside)?;
    assert!(e.count < 256, "more than 255 distinct moves inside a unit");
    part.cnt[s].store(e.count as u8, Relaxed);
    part.loss_max[s].store(e.loss_max, Relaxed);
    part.vals[s].store(e.code, Relaxed);
    Ok((e.code != DRAW).then_some(e.code & MAX_DISTANCE))
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
