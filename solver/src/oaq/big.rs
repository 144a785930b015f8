//! Exact values of bigger Ô Ăn Quan games in a quarter of the memory of `oaq/solve.rs`, same
//! values (RULES.md 3.9, the same `P`/`M` iteration; see there).
//!
//! Three savings. A position and its mirror (the board turned half a turn, the other side to
//! move) have the same value, so only positions with South to move are solved ("canonical").
//! Values live only for the canonical positions that are reachable (from the start, directly or
//! as a mirror), found through a rank directory over a bit set: slot `s` is position number
//! `ones before s`. And `P` and `M` take one byte each (a solve stops with an error if a value
//! passes ±120). The open positions are a bit set too, so no list of billions of slots is kept.
//!
//! Reachability is still found per dense slot (`oaq/index.rs`), so [`Big::code`] gives the dense
//! solver's code for every dense slot (the tests compare them); the table written at the end is
//! the compact one (`compact.rs`, format in `retro_tables::oaq_compact`): the solver's own bit set, directory and one byte a value.

use crate::oaq::big_checkpoint::{self as ckpt, BigState};
use crate::oaq::canon::{Canon, MAX_FINITE};
use crate::oaq::compact as oaq_compact;
use crate::oaq::huge::huge_vec;
use crate::oaq::ranked_bits::Ranked;
use crate::oaq::reach::{mark, Reach};
use crate::oaq::values::{
    final_value, gain, Checkpoints, OaqProgress, Stats, MAX_SWEEPS, UNREACHABLE,
};
use rayon::prelude::*;
use retro_engine::oaq::Oaq;
use retro_tables::oaq_table::OaqHeader;
use retro_tables::TableError;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering::Relaxed};

const NEG_INF: i8 = i8::MIN;
const POS_INF: i8 = i8::MAX;
/// Bit-set words handled by one task of a sweep.
const WORDS_PER_TASK: usize = 256;
/// Positions whose children are looked up together (see `oaq/solve.rs`).
const BATCH: usize = 64;

/// The solved game: values of the reachable canonical positions.
pub struct Big {
    /// The slots.
    pub canon: Canon,
    /// Reachable dense slots (a bit set).
    seen: Vec<AtomicU64>,
    /// Reachable canonical slots.
    ranked: Ranked,
    /// `P`/`M` per reachable canonical position.
    pm: Vec<AtomicU16>,
    /// Value of the start position.
    pub start: i16,
    /// Figures (dense: reachable positions and their moves as in `oaq/solve.rs`).
    pub stats: Stats,
    /// Reachable canonical positions (the values kept).
    pub canonical: u64,
}

impl Big {
    /// The table code of a dense slot: its value, or [`UNREACHABLE`].
    pub fn code(&self, g: &Oaq, d: u64) -> i16 {
        if self.seen[(d / 64) as usize].load(Relaxed) >> (d % 64) & 1 == 0 {
            return UNREACHABLE;
        }
        let p = self.canon.idx.unrank(g, d).expect("a dense slot");
        let c = self.canon.slot(&p);
        value_of(self.pm[self.ranked.rank(c) as usize].load(Relaxed))
    }

    /// The codes of the dense slots from `from` on, into `out` (in parallel).
    pub fn codes(&self, g: &Oaq, from: u64, out: &mut [i16]) {
        out.par_chunks_mut(1 << 12)
            .enumerate()
            .for_each(|(k, part)| {
                let first = from + (k << 12) as u64;
                for (i, v) in part.iter_mut().enumerate() {
                    *v = self.code(g, first + i as u64);
                }
            });
    }
}

impl Big {
    /// The values of the reachable canonical positions numbered `from` on (slot order), into
    /// `out`: the values a compact table stores.
    pub fn canonical_values(&self, from: u64, out: &mut [i8]) {
        let (from, n) = (from as usize, out.len());
        for (v, w) in out.iter_mut().zip(&self.pm[from..from + n]) {
            // Finite and within ±MAX_FINITE: the solve has stopped otherwise.
            *v = value_of(w.load(Relaxed)) as i8;
        }
    }

    /// Writes the game's compact table (`compact.rs`, format in `retro_tables::oaq_compact`) and returns its header.
    pub fn write_compact(&self, g: &Oaq, path: &Path) -> Result<OaqHeader, TableError> {
        let seeds = [g.profile.citizen_seeds, g.profile.mandarin_start()];
        let fill = |from: u64, out: &mut [i8]| self.canonical_values(from, out);
        let header = oaq_compact::header(
            &g.profile.fingerprint(),
            seeds,
            self.stats.slots,
            self.stats.positions,
            self.canon.size(),
            self.canonical,
            &fill,
        );
        oaq_compact::write(path, &header, &self.ranked, &fill)?;
        Ok(header)
    }
}

/// The value of a solved `P`/`M` pair.
fn value_of(w: u16) -> i16 {
    let (p, m) = unpack(w);
    if p > 0 {
        p as i16
    } else if m < 0 {
        m as i16
    } else {
        0
    }
}

/// Steps a pass over the reachable set is cut into (a checkpoint may follow each).
const REACH_STEPS: usize = 64;

/// Marks every dense slot reachable from the start, and the canonical slot of each: passes over
/// the set until nothing is left to expand (a pass expands what it finds, positions marked
/// during the pass in words not yet passed included). `save` is offered the state after each
/// step of a pass.
fn reach(
    g: &Oaq,
    canon: &Canon,
    mut r: Reach,
    progress: &dyn OaqProgress,
    save: &mut dyn FnMut(&Reach) -> Result<(), String>,
) -> Result<Reach, String> {
    let idx = &canon.idx;
    let step_words = r.expanded.len().div_ceil(REACH_STEPS).max(1);
    loop {
        let mut found_in_pass = 0u64;
        for lo in (0..r.expanded.len()).step_by(step_words) {
            let hi = (lo + step_words).min(r.expanded.len());
            let (seen, cseen) = (&r.seen, &r.cseen);
            let (found, terminal, moves) = r.expanded[lo..hi]
                .par_chunks_mut(WORDS_PER_TASK)
                .enumerate()
                .map(|(k, done)| {
                    let mut list = Vec::with_capacity(10);
                    let (mut found, mut terminal, mut moves) = (0u64, 0u64, 0u64);
                    for (j, e) in done.iter_mut().enumerate() {
                        let w = lo + k * WORDS_PER_TASK + j;
                        loop {
                            let todo = seen[w].load(Relaxed) & !*e;
                            if todo == 0 {
                                break;
                            }
                            *e |= todo;
                            let mut bits = todo;
                            while bits != 0 {
                                let d = w as u64 * 64 + bits.trailing_zeros() as u64;
                                bits &= bits - 1;
                                found += 1;
                                let pos = idx.unrank(g, d).expect("a reachable slot");
                                // No moves exactly when the game is over.
                                g.moves(&pos, &mut list);
                                if list.is_empty() {
                                    terminal += 1;
                                    continue;
                                }
                                moves += list.len() as u64;
                                for (_, t) in &list {
                                    if mark(seen, idx.rank(&t.position)) {
                                        mark(cseen, canon.slot(&t.position));
                                    }
                                }
                            }
                        }
                    }
                    (found, terminal, moves)
                })
                .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
            found_in_pass += found;
            r.stats.positions += found;
            r.stats.terminal += terminal;
            r.stats.moves += moves;
            progress.reached(r.stats.positions);
            save(&r)?;
        }
        if found_in_pass == 0 {
            return Ok(r);
        }
    }
}

/// Enumerates and solves a whole game, resuming from a checkpoint of this game when there is
/// one, saving one after the search of reachable positions and then now and then.
pub fn solve_big(
    g: &Oaq,
    progress: &dyn OaqProgress,
    checkpoints: Option<&Checkpoints>,
) -> Result<Big, String> {
    let canon = Canon::new(g);
    let fingerprint = g.profile.fingerprint();
    let resumed = checkpoints.and_then(|c| {
        ckpt::load(&c.path, &fingerprint, canon.idx.size(), canon.size())
            .unwrap_or_else(|why| refused(progress, c, why))
    });
    let resuming = resumed.is_some();
    let mut saved_at = std::time::Instant::now();
    let BigState {
        seen,
        ranked,
        mut open,
        pm,
        mut stats,
    } = match resumed {
        Some(state) => state,
        None => {
            // The search of reachable positions resumes from its own checkpoint.
            let begun = checkpoints.and_then(|c| {
                ckpt::load_reach(&c.path, &fingerprint, canon.idx.size(), canon.size())
                    .unwrap_or_else(|why| refused(progress, c, why))
            });
            let mut save_reach = |r: &Reach| -> Result<(), String> {
                match checkpoints {
                    Some(c) if saved_at.elapsed() >= c.every => {
                        ckpt::save_reach(&c.path, &fingerprint, r)
                            .map_err(|e| format!("{}: {e}", c.path.display()))?;
                        saved_at = std::time::Instant::now();
                        Ok(())
                    }
                    _ => Ok(()),
                }
            };
            let r = reach(
                g,
                &canon,
                begun.unwrap_or_else(|| Reach::new(&canon)),
                progress,
                &mut save_reach,
            )?;
            let Reach {
                seen,
                expanded,
                cseen,
                stats,
            } = r;
            drop(expanded);
            let cwords: Vec<u64> = cseen.into_iter().map(AtomicU64::into_inner).collect();
            let ranked = Ranked::build(&cwords);
            let pm: Vec<AtomicU16> = huge_vec(ranked.ones() as usize, |_| {
                AtomicU16::new(pack(NEG_INF, POS_INF))
            });
            BigState {
                seen,
                ranked,
                open: cwords,
                pm,
                stats,
            }
        }
    };
    let save = |open: &[u64], stats: &Stats| -> Result<(), String> {
        match checkpoints {
            Some(c) => {
                let parts = ckpt::BigParts {
                    seen: &seen,
                    ranked: &ranked,
                    open,
                    pm: &pm,
                    stats,
                };
                ckpt::save(&c.path, &fingerprint, &parts)
                    .map_err(|e| format!("{}: {e}", c.path.display()))
            }
            None => Ok(()),
        }
    };
    if !resuming {
        save(&open, &stats)?;
        saved_at = std::time::Instant::now();
    }
    let overflow = AtomicBool::new(false);
    loop {
        stats.sweeps += 1;
        if stats.sweeps > MAX_SWEEPS {
            return Err(format!(
                "values still changing after {} sweeps (a cycle that pays one side without \
                 end?): not solved",
                MAX_SWEEPS
            ));
        }
        let (done, total) = (AtomicU64::new(0), open.len() as u64);
        let changed: u64 = open
            .par_chunks_mut(WORDS_PER_TASK)
            .enumerate()
            .map(|(k, words)| {
                let n = words.len() as u64;
                let moved = sweep_words(
                    g,
                    &canon,
                    &ranked,
                    &pm,
                    k * WORDS_PER_TASK,
                    words,
                    &overflow,
                );
                progress.sweeping(stats.sweeps, done.fetch_add(n, Relaxed) + n, total);
                moved
            })
            .sum();
        progress.sweep(stats.sweeps, changed);
        if overflow.load(Relaxed) {
            // A rerun from the checkpoint would stop here again: it is only disk to free.
            let removed = checkpoints.is_some_and(|c| std::fs::remove_file(&c.path).is_ok());
            return Err(format!(
                "a value passed ±{MAX_FINITE} seeds (this solver keeps values in one byte): \
                 not solved{}",
                if removed {
                    "; its checkpoint is removed (a rerun would stop the same way)"
                } else {
                    ""
                }
            ));
        }
        if changed == 0 {
            break;
        }
        if checkpoints.is_some_and(|c| saved_at.elapsed() >= c.every) {
            save(&open, &stats)?;
            saved_at = std::time::Instant::now();
        }
    }
    let start = value_of(pm[ranked.rank(canon.size() - 1) as usize].load(Relaxed));
    let canonical = ranked.ones();
    Ok(Big {
        canon,
        seen,
        ranked,
        pm,
        start,
        stats,
        canonical,
    })
}

/// One sweep over some words of the open set: each open position is updated in place (a
/// finished game takes its final value) and leaves the set once its `P` and `M` meet.
/// Returns the values changed.
fn sweep_words(
    g: &Oaq,
    canon: &Canon,
    ranked: &Ranked,
    pm: &[AtomicU16],
    first_word: usize,
    words: &mut [u64],
    overflow: &AtomicBool,
) -> u64 {
    let mut changed = 0u64;
    let mut list = Vec::with_capacity(10);
    let mut batch: Vec<(u64, Option<i8>)> = Vec::with_capacity(BATCH);
    let mut kids: Vec<(u64, i16)> = Vec::with_capacity(BATCH * 12);
    let mut ids: Vec<usize> = Vec::with_capacity(BATCH * 12);
    let mut own = [0usize; BATCH];
    let mut ends = [0usize; BATCH];
    let mut read: Vec<u16> = Vec::with_capacity(BATCH * 12);
    let mut w = 0;
    let mut bits = words.first().copied().unwrap_or(0);
    loop {
        // Gather a batch of open positions with their moves' children.
        batch.clear();
        kids.clear();
        while batch.len() < BATCH {
            while bits == 0 && w + 1 < words.len() {
                w += 1;
                bits = words[w];
            }
            if bits == 0 {
                break;
            }
            let c = (first_word + w) as u64 * 64 + bits.trailing_zeros() as u64;
            bits &= bits - 1;
            let pos = canon.position(g, c);
            // No moves exactly when the game is over (`moves` has checked the end already).
            g.moves(&pos, &mut list);
            let end = if list.is_empty() {
                final_value(g, &pos).map(|v| narrow(v, overflow))
            } else {
                None
            };
            kids.extend(list.iter().map(|(_, t)| (canon.slot(&t.position), gain(t))));
            ends[batch.len()] = kids.len();
            batch.push((c, end));
        }
        if batch.is_empty() {
            break;
        }
        // The directory and value reads, each run free of dependencies between its reads.
        ids.clear();
        ids.extend(kids.iter().map(|&(k, _)| ranked.rank(k) as usize));
        for (o, &(c, _)) in own.iter_mut().zip(&batch) {
            *o = ranked.rank(c) as usize;
        }
        read.clear();
        read.extend(ids.iter().map(|&k| pm[k].load(Relaxed)));
        let mut from = 0;
        for (j, &(c, end)) in batch.iter().enumerate() {
            let (bp, bm) = match end {
                Some(v) => (v, v),
                None => {
                    let (mut bp, mut bm) = (WIDE_NEG, WIDE_NEG);
                    for (&(_, gn), &v) in kids[from..ends[j]].iter().zip(&read[from..ends[j]]) {
                        let (cp, cm) = unpack(v);
                        bp = bp.max(minus(gn, cm));
                        bm = bm.max(minus(gn, cp));
                    }
                    (narrow(bp, overflow), narrow(bm, overflow))
                }
            };
            from = ends[j];
            let id = own[j];
            // Only this task writes this position: P only rises, M only falls.
            let (op, om) = unpack(pm[id].load(Relaxed));
            let (np, nm) = (bp.max(op), bm.min(om));
            if (np, nm) != (op, om) {
                pm[id].store(pack(np, nm), Relaxed);
                changed += 1;
            }
            if np == nm {
                let local = (c - first_word as u64 * 64) as usize;
                words[local / 64] &= !(1u64 << (local % 64));
            }
        }
    }
    changed
}

/// Infinite bounds while computing in 16 bits.
const WIDE_POS: i16 = i16::MAX;
const WIDE_NEG: i16 = i16::MIN;

/// Reports a checkpoint that cannot be used; the solve goes on without it.
fn refused<T>(progress: &dyn OaqProgress, c: &Checkpoints, why: String) -> Option<T> {
    progress.refused(&c.path, &why);
    None
}

/// A bound back into one byte: the infinities kept; a finite value beyond ±[`MAX_FINITE`]
/// flags the overflow that stops the solve (it is never stored as something else).
fn narrow(v: i16, overflow: &AtomicBool) -> i8 {
    match v {
        WIDE_POS => POS_INF,
        WIDE_NEG => NEG_INF,
        x if x.unsigned_abs() > MAX_FINITE as u16 => {
            overflow.store(true, Relaxed);
            0
        }
        x => x as i8,
    }
}

/// `a - b` where `b` may be infinite (`a` is a finite gain).
#[inline]
fn minus(a: i16, b: i8) -> i16 {
    match b {
        POS_INF => WIDE_NEG,
        NEG_INF => WIDE_POS,
        _ => a - b as i16,
    }
}

/// P and M in one 16-bit word.
#[inline]
fn pack(p: i8, m: i8) -> u16 {
    (p as u8 as u16) << 8 | m as u8 as u16
}

#[inline]
fn unpack(w: u16) -> (i8, i8) {
    ((w >> 8) as u8 as i8, w as u8 as i8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oaq::canon::mirror;
    use crate::oaq::solve::solve;
    use crate::oaq::table::OaqProbe;
    use retro_engine::oaq::{OaqProfile, Side};
    use retro_tables::OaqTable;
    use std::sync::Mutex;

    fn game(setting: &str) -> Oaq {
        let mut prof = OaqProfile::default();
        for s in setting.split(';') {
            prof.set(s).unwrap();
        }
        Oaq::new(prof)
    }

    #[test]
    fn same_table_as_the_dense_solver() {
        for setting in [
            "seeds=1,0",
            "seeds=1,1",
            "big-mandarin=5;seeds=1,0",
            "big-mandarin=4;quan-non=3;seeds=1,0",
        ] {
            let g = game(setting);
            let dense = solve(&g, &()).unwrap();
            let big = solve_big(&g, &(), None).unwrap();
            assert_eq!(big.start, dense.start, "{setting}");
            let s = (&big.stats, &dense.stats);
            assert_eq!(
                (s.0.positions, s.0.terminal, s.0.moves),
                (s.1.positions, s.1.terminal, s.1.moves),
                "{setting}"
            );
            // Roughly half: a position and its mirror share one value.
            assert!(big.canonical < dense.stats.positions * 3 / 4, "{setting}");
            let mut codes = vec![0i16; dense.values.len()];
            big.codes(&g, 0, &mut codes);
            let differ = codes
                .iter()
                .zip(&dense.values)
                .filter(|(a, b)| a != b)
                .count();
            assert_eq!(differ, 0, "{setting}: slots whose codes differ");
            // The compact table answers as the dense one, and for the mirror of a reachable
            // position too.
            let path = std::env::temp_dir().join(format!(
                "retro-compact-{}-{}.rtb",
                std::process::id(),
                setting.replace([';', '=', ','], "_")
            ));
            let h = big.write_compact(&g, &path).unwrap();
            assert_eq!(h.positions(), dense.stats.positions, "{setting}");
            assert_eq!(h.stored(), big.canonical, "{setting}");
            // SAFETY: this test's own file, written above and not touched while mapped.
            let t = unsafe { OaqTable::open(&path) }.unwrap();
            std::fs::remove_file(&path).unwrap();
            let idx = &big.canon.idx;
            let mut mirrored = 0;
            for d in 0..idx.size() {
                let p = idx.unrank(&g, d).unwrap();
                let code = dense.values[d as usize];
                let expected = if code != UNREACHABLE {
                    Some(code)
                } else {
                    let m = dense.values[idx.rank(&mirror(&p)) as usize];
                    mirrored += (m != UNREACHABLE) as u64;
                    (m != UNREACHABLE && !p.first).then_some(m)
                };
                assert_eq!(
                    t.value(&g, idx, &p).unwrap(),
                    expected,
                    "{setting}: slot {d}"
                );
            }
            eprintln!("{setting}: {mirrored} unreachable positions answered as their mirror");
        }
    }

    /// Copies the checkpoint as it is when a given sweep ends (before that sweep's save).
    struct Snapshot {
        from: std::path::PathBuf,
        to: std::path::PathBuf,
        at: u32,
        taken: Mutex<bool>,
    }

    impl OaqProgress for Snapshot {
        fn reached(&self, positions: u64) {
            // Part way through the search of reachable positions: a copy of its checkpoint.
            let to = self.to.with_extension("reach");
            if positions > 300_000 && !to.exists() {
                std::fs::copy(&self.from, &to).unwrap();
            }
        }
        fn sweep(&self, sweep: u32, _changed: u64) {
            if sweep == self.at {
                std::fs::copy(&self.from, &self.to).unwrap();
                *self.taken.lock().unwrap() = true;
            }
        }
    }

    #[test]
    fn a_resumed_solve_ends_as_an_uninterrupted_one() {
        let g = game("seeds=1,0");
        let dir = std::env::temp_dir().join(format!("retro-big-ckpt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("game.ckpt");
        let snap = Snapshot {
            from: path.clone(),
            to: dir.join("mid.ckpt"),
            at: 6,
            taken: Mutex::new(false),
        };
        let every = std::time::Duration::ZERO;
        let c = Checkpoints { path, every };
        let whole = solve_big(&g, &snap, Some(&c)).unwrap();
        assert!(*snap.taken.lock().unwrap());
        let state = ckpt::load(
            &snap.to,
            &g.profile.fingerprint(),
            whole.canon.idx.size(),
            whole.canon.size(),
        )
        .expect("the mid-solve checkpoint loads")
        .expect("there is one");
        assert_eq!(state.stats.sweeps, 5);
        let mid = Checkpoints {
            path: snap.to.clone(),
            every,
        };
        let resumed = solve_big(&g, &(), Some(&mid)).unwrap();
        assert_eq!(resumed.start, whole.start);
        // (The sweep count may differ: threads see each other's updates at varying times.)
        let n = whole.canon.idx.size();
        assert!((0..n).all(|d| resumed.code(&g, d) == whole.code(&g, d)));
        // The search of reachable positions resumes too.
        let early = snap.to.with_extension("reach");
        let r = ckpt::load_reach(&early, &g.profile.fingerprint(), n, whole.canon.size())
            .expect("the mid-search checkpoint loads")
            .expect("there is one");
        assert!(r.stats.positions > 0 && r.stats.positions < whole.stats.positions);
        let from_reach = Checkpoints { path: early, every };
        let again = solve_big(&g, &(), Some(&from_reach)).unwrap();
        let counts = |s: &Stats| (s.positions, s.terminal, s.moves);
        assert_eq!(counts(&again.stats), counts(&whole.stats));
        assert!((0..n).all(|d| again.code(&g, d) == whole.code(&g, d)));
        // A damaged checkpoint is not used.
        let mut bytes = std::fs::read(&snap.to).unwrap();
        let k = bytes.len() / 2;
        bytes[k] ^= 1;
        std::fs::write(&snap.to, &bytes).unwrap();
        let refused = ckpt::load(&snap.to, &g.profile.fingerprint(), n, whole.canon.size());
        assert!(refused.err().expect("refused").contains("damaged"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn mirror_twice_is_the_position() {
        let g = Oaq::new(Default::default());
        let mut p = g.start();
        p.first = false;
        p.cells = [3, 1, 0, 2, 5, 4, 7, 0, 1, 9, 2, 6];
        p.big = [true, false];
        p.stores = [4, -2];
        let m = mirror(&p);
        assert_eq!(m.side, Side::North);
        assert_eq!(m.cells[0], 7);
        assert_eq!(m.big, [false, true]);
        assert_eq!(mirror(&m), p);
    }
}
