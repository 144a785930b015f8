//! Exact values of whole small Ô Ăn Quan games (RULES.md 3.9).
//!
//! Positions are taken without their stores (they do not change what happens next) and live in
//! the dense index of `oaq/index.rs`. First every position reachable from the start is marked
//! (parallel breadth-first search over a bit set). Then the values: with `P` what the mover can
//! force when endless play counts as a loss for it and `M` what it gets when endless play counts
//! as a win, the value is `P` if `P > 0`, `M` if `M < 0`, else 0, where
//!
//! `P(x) = max over moves (gain - M(child))`, `M(x) = max over moves (gain - P(child))`,
//!
//! the gain being the seeds captured minus 5 for a refill, and a finished game's `P = M =` its
//! final collection (own row minus the opponent's). `P` is the least solution (iterated up from
//! minus infinity: the mover must end the game to score) and `M` the greatest (iterated down
//! from plus infinity). The sweeps go over the positions in slot order, update in place, in
//! parallel; they stop when a whole sweep changes nothing, and then the values are exact. As the iterates of `P` stay below its solution and those of `M` above theirs
//! (which is at least `P`'s), a position whose two iterates meet is final and leaves the list. A gain the mover could force beyond every
//! bound would make the sweeps climb for ever: the solve stops with an error when a value
//! passes ±30000 or after a sweep limit, rather than store a wrong value.

use crate::oaq::checkpoint::{Parts, State};
use crate::oaq::huge::huge_vec;
use crate::oaq::index::OaqIndex;
use crate::oaq::values::{final_value, gain};
pub use crate::oaq::values::{Checkpoints, OaqProgress, Stats, MAX_SWEEPS, UNREACHABLE};
use rayon::prelude::*;
use retro_engine::oaq::Oaq;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};

/// Largest finite value magnitude; beyond it a solve stops (the most a table may store).
pub const MAX_FINITE: i16 = retro_tables::oaq_table::MAX_VALUE;
const NEG_INF: i16 = i16::MIN + 1;
const POS_INF: i16 = i16::MAX;
const CHUNK: u64 = 1 << 14;

/// The solved game: a value code per index slot.
pub struct Solved {
    /// The index.
    pub index: OaqIndex,
    /// Per slot: the value for the side to move, or [`UNREACHABLE`].
    pub values: Vec<i16>,
    /// Value of the start position.
    pub start: i16,
    /// Figures.
    pub stats: Stats,
}

/// What the breadth-first search leaves: the reachable set, the positions still to solve,
/// and counts.
struct Reached {
    seen: Vec<AtomicU64>,
    active: Vec<u32>,
    positions: u64,
    moves: u64,
}

/// Marks every position reachable from the start (breadth first). Finished games get their
/// final value in `p` and `m` at once; the others are listed to be solved.
fn reach(g: &Oaq, idx: &OaqIndex, pm: &[AtomicU32], progress: &dyn OaqProgress) -> Reached {
    let words = idx.size().div_ceil(64) as usize;
    let seen: Vec<AtomicU64> = (0..words).map(|_| AtomicU64::new(0)).collect();
    let start = idx.start_slot();
    seen[(start / 64) as usize].fetch_or(1 << (start % 64), Relaxed);
    let mut frontier = vec![start as u32];
    let mut active = Vec::new();
    let (mut positions, mut moves) = (1u64, 0u64);
    while !frontier.is_empty() {
        let parts: Vec<(Vec<u32>, Vec<u32>, u64)> = frontier
            .par_chunks(1 << 12)
            .map(|chunk| {
                let (mut next, mut going, mut count) = (Vec::new(), Vec::new(), 0u64);
                let mut list = Vec::with_capacity(10);
                for &slot in chunk {
                    let pos = idx.unrank(g, slot as u64).expect("a slot of the index");
                    if let Some(v) = final_value(g, &pos) {
                        pm[slot as usize].store(pack(v, v), Relaxed);
                        continue;
                    }
                    going.push(slot);
                    g.moves(&pos, &mut list);
                    count += list.len() as u64;
                    for (_, t) in &list {
                        let c = idx.rank(&t.position);
                        let mask = 1u64 << (c % 64);
                        if seen[(c / 64) as usize].fetch_or(mask, Relaxed) & mask == 0 {
                            next.push(c as u32);
                        }
                    }
                }
                (next, going, count)
            })
            .collect();
        frontier = Vec::new();
        for (next, going, count) in parts {
            frontier.extend_from_slice(&next);
            active.extend_from_slice(&going);
            moves += count;
        }
        positions += frontier.len() as u64;
        progress.reached(positions);
    }
    Reached {
        seen,
        active,
        positions,
        moves,
    }
}

/// Enumerates and solves a whole game.
pub fn solve(g: &Oaq, progress: &dyn OaqProgress) -> Result<Solved, String> {
    solve_with(g, progress, None)
}

/// Enumerates and solves a whole game, resuming from a checkpoint when there is one for this
/// game and saving one after the search of reachable positions and then now and then.
pub fn solve_with(
    g: &Oaq,
    progress: &dyn OaqProgress,
    checkpoints: Option<&Checkpoints>,
) -> Result<Solved, String> {
    let idx = OaqIndex::new(g);
    let n = idx.size();
    if n > u32::MAX as u64 {
        return Err(format!(
            "{n} index slots: more than this solver's 32-bit slot lists hold"
        ));
    }
    let fingerprint = g.profile.fingerprint();
    let resumed = checkpoints.and_then(|c| {
        crate::oaq::checkpoint::load(&c.path, &fingerprint, n, valid_bounds).unwrap_or_else(|why| {
            progress.refused(&c.path, &why);
            None
        })
    });
    let resuming = resumed.is_some();
    let State {
        seen,
        mut active,
        pm,
        mut stats,
    } = match resumed {
        Some(state) => state,
        None => {
            // P and M per slot, side by side (one memory access reads both); finished games
            // hold their final value in both.
            let pm: Vec<AtomicU32> =
                huge_vec(n as usize, |_| AtomicU32::new(pack(NEG_INF, POS_INF)));
            let Reached {
                seen,
                mut active,
                positions,
                moves,
            } = reach(g, &idx, &pm, progress);
            // The positions still to solve, in slot order (the values they read and write are
            // then near each other in memory).
            active.par_sort_unstable();
            let stats = Stats {
                slots: n,
                positions,
                terminal: positions - active.len() as u64,
                moves,
                sweeps: 0,
            };
            State {
                seen,
                active,
                pm,
                stats,
            }
        }
    };
    let save = |active: &[u32], stats: &Stats| -> Result<(), String> {
        match checkpoints {
            Some(c) => {
                let parts = Parts {
                    seen: &seen,
                    active,
                    pm: &pm,
                    stats,
                };
                crate::oaq::checkpoint::save(&c.path, &fingerprint, &parts)
                    .map_err(|e| format!("{}: {e}", c.path.display()))
            }
            None => Ok(()),
        }
    };
    let mut saved_at = std::time::Instant::now();
    if !resuming {
        save(&active, &stats)?;
        saved_at = std::time::Instant::now();
    }
    let overflow = AtomicBool::new(false);
    while !active.is_empty() {
        stats.sweeps += 1;
        if stats.sweeps > MAX_SWEEPS {
            return Err(format!(
                "values still changing after {MAX_SWEEPS} sweeps (a cycle that pays one side \
                 without end?): not solved"
            ));
        }
        // Each position is updated in place; one that comes out with P = M is final (P never
        // exceeds its solution, M never goes below its own, which is at least P's) and leaves
        // the list.
        // Positions that stay open are moved to the front of their chunk, then the chunks
        // are joined in place: no second copy of the list (it can hold a billion slots).
        let results: Vec<(u64, usize)> = active
            .par_chunks_mut(CHUNK as usize)
            .map(|chunk| sweep_chunk(g, &idx, &pm, chunk, &overflow))
            .collect();
        let changed: u64 = results.iter().map(|r| r.0).sum();
        progress.sweep(stats.sweeps, changed);
        if overflow.load(Relaxed) {
            return Err(format!(
                "a value passed ±{MAX_FINITE} seeds (a cycle that pays one side without end?): \
                 not solved"
            ));
        }
        if changed == 0 {
            break;
        }
        let mut open = 0;
        for (i, &(_, kept)) in results.iter().enumerate() {
            let from = i * CHUNK as usize;
            active.copy_within(from..from + kept, open);
            open += kept;
        }
        active.truncate(open);
        if checkpoints.is_some_and(|c| saved_at.elapsed() >= c.every) {
            save(&active, &stats)?;
            saved_at = std::time::Instant::now();
        }
    }
    let values: Vec<i16> = pm
        .par_iter()
        .enumerate()
        .map(|(slot, w)| {
            if seen[slot / 64].load(Relaxed) >> (slot % 64) & 1 == 0 {
                return UNREACHABLE;
            }
            let (a, b) = unpack(w.load(Relaxed));
            if a > 0 {
                a
            } else if b < 0 {
                b
            } else {
                0
            }
        })
        .collect();
    let start = values[idx.start_slot() as usize];
    Ok(Solved {
        index: idx,
        values,
        start,
        stats,
    })
}

/// Positions whose children are looked up together: their slots are computed first, then the
/// values are loaded in one run of independent reads, which the processor overlaps (the table
/// is far bigger than the caches, so each read is a memory round trip).
const BATCH: usize = 64;

/// One sweep over a chunk of the open positions: updates each in place and moves those still
/// open to the front, in their order. Returns the values changed and the positions kept.
fn sweep_chunk(
    g: &Oaq,
    idx: &OaqIndex,
    pm: &[AtomicU32],
    chunk: &mut [u32],
    overflow: &AtomicBool,
) -> (u64, usize) {
    let mut changed = 0u64;
    let mut kept = 0;
    let mut list = Vec::with_capacity(10);
    let mut kids: Vec<(usize, i16)> = Vec::with_capacity(BATCH * 12);
    let mut ends = [0usize; BATCH];
    let mut read: Vec<u32> = Vec::with_capacity(BATCH * 12);
    for start in (0..chunk.len()).step_by(BATCH) {
        let end = (start + BATCH).min(chunk.len());
        kids.clear();
        for (j, &slot) in chunk[start..end].iter().enumerate() {
            let pos = idx.unrank(g, slot as u64).expect("a slot of the index");
            g.moves(&pos, &mut list);
            kids.extend(
                list.iter()
                    .map(|(_, t)| (idx.rank(&t.position) as usize, gain(t))),
            );
            ends[j] = kids.len();
        }
        read.clear();
        read.extend(kids.iter().map(|&(c, _)| pm[c].load(Relaxed)));
        let mut from = 0;
        for j in 0..end - start {
            let slot = chunk[start + j];
            let s = slot as usize;
            let (mut bp, mut bm) = (NEG_INF, NEG_INF);
            for (&(_, w), &v) in kids[from..ends[j]].iter().zip(&read[from..ends[j]]) {
                let (cp, cm) = unpack(v);
                bp = bp.max(minus(w, cm));
                bm = bm.max(minus(w, cp));
            }
            from = ends[j];
            if (bp != POS_INF && bp > MAX_FINITE) || (bm != NEG_INF && bm < -MAX_FINITE) {
                overflow.store(true, Relaxed);
            }
            // Only this thread writes this slot: P only rises, M only falls.
            let (op, om) = unpack(pm[s].load(Relaxed));
            let (np, nm) = (bp.max(op), bm.min(om));
            if (np, nm) != (op, om) {
                pm[s].store(pack(np, nm), Relaxed);
                changed += 1;
            }
            // Only slots already read are overwritten (kept <= start + j).
            if np != nm {
                chunk[kept] = slot;
                kept += 1;
            }
        }
    }
    (changed, kept)
}

/// P and M in one word.
#[inline]
fn pack(p: i16, m: i16) -> u32 {
    (p as u16 as u32) << 16 | m as u16 as u32
}

#[inline]
fn unpack(w: u32) -> (i16, i16) {
    ((w >> 16) as u16 as i16, w as u16 as i16)
}

/// Whether a slot's packed bounds are each infinite or finite within ±[`MAX_FINITE`].
fn valid_bounds(w: u32) -> bool {
    let ok = |v: i16| v == NEG_INF || v == POS_INF || v.unsigned_abs() <= MAX_FINITE as u16;
    let (p, m) = unpack(w);
    ok(p) && ok(m)
}

/// `a - b` where `b` may be infinite (`a` is a finite gain).
#[inline]
fn minus(a: i16, b: i16) -> i16 {
    match b {
        POS_INF => NEG_INF,
        NEG_INF => POS_INF,
        _ => a - b,
    }
}
