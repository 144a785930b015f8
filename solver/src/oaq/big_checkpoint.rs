//! Checkpoints of a long `oaq/big.rs` solve: the reachable dense slots, the reachable canonical
//! slots, the open ones, the `P`/`M` pairs and the figures.
//!
//! Layout (little-endian): magic `RETROCK2`, fingerprint length (u32) and bytes, dense slot
//! count, positions, finished games, moves (u64 each), sweeps done (u32), the word counts of the
//! dense and canonical sets and the number of `P`/`M` pairs (u64 each), then the dense words,
//! the canonical words, the open words (u64 each), the pairs (u16 each), and the checksum of
//! everything before it. Written to a temporary file, synced and renamed.
//!
//! While the reachable positions are still being searched, the same file holds that search
//! instead: magic `RETROCK3`, the fingerprint and counts as above (sweeps 0), the word counts of
//! the dense and canonical sets and a zero, then the reachable dense words, the expanded dense words, the
//! reachable canonical words, and the checksum.

use crate::oaq::checkpoint::{
    damaged, open_checked, put_fingerprint, stats_of, tail_clear, write_atomically,
    CheckpointWriter, SummedReader,
};
use crate::oaq::huge::huge_capacity;
use crate::oaq::ranked_bits::Ranked;
use crate::oaq::reach::Reach;
use crate::oaq::values::Stats;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed};

// A change of either layout takes a new magic: a checkpoint in another layout must read as
// "none" (the solve starts that phase over), never as garbage. (The reach layout once gained
// its third length without one; a run begun before that needed a one-off bridge.)
const MAGIC: &[u8; 8] = b"RETROCK2";
const MAGIC_REACH: &[u8; 8] = b"RETROCK3";
/// Bytes of the fixed fields after the fingerprint.
const HEAD: usize = 8 * 4 + 4 + 8 * 3;

/// What a solve needs to go on.
pub struct BigState {
    /// Reachable dense slots.
    pub seen: Vec<AtomicU64>,
    /// Reachable canonical slots, ranked.
    pub ranked: Ranked,
    /// Canonical slots still open.
    pub open: Vec<u64>,
    /// `P`/`M` per reachable canonical position.
    pub pm: Vec<AtomicU16>,
    /// Figures so far.
    pub stats: Stats,
}

/// The pieces of a solve's state, borrowed for saving.
pub struct BigParts<'a> {
    /// Reachable dense slots.
    pub seen: &'a [AtomicU64],
    /// Reachable canonical slots.
    pub ranked: &'a Ranked,
    /// Canonical slots still open.
    pub open: &'a [u64],
    /// `P`/`M` pairs.
    pub pm: &'a [AtomicU16],
    /// Figures so far.
    pub stats: &'a Stats,
}

/// Writes a checkpoint atomically.
pub fn save(path: &Path, fingerprint: &str, s: &BigParts) -> io::Result<()> {
    let cwords = s.open.len();
    let body = (8 + 4 + fingerprint.len() + HEAD) as u64
        + 8 * (s.seen.len() + 2 * cwords) as u64
        + 2 * s.pm.len() as u64;
    write_atomically(path, body, |w| {
        w.put(MAGIC)?;
        put_fingerprint(w, fingerprint)?;
        put_counts(w, s.stats, [s.seen.len(), cwords, s.pm.len()])?;
        for x in s.seen {
            w.put(&x.load(Relaxed).to_le_bytes())?;
        }
        for x in s.ranked.words().take(cwords) {
            w.put(&x.to_le_bytes())?;
        }
        for x in s.open {
            w.put(&x.to_le_bytes())?;
        }
        for x in s.pm {
            w.put(&x.load(Relaxed).to_le_bytes())?;
        }
        Ok(())
    })
}

/// Writes the figures and the given lengths (u64 each).
fn put_counts(w: &mut CheckpointWriter, st: &Stats, lens: [usize; 3]) -> io::Result<()> {
    for x in [st.slots, st.positions, st.terminal, st.moves] {
        w.put(&x.to_le_bytes())?;
    }
    w.put(&st.sweeps.to_le_bytes())?;
    for x in lens {
        w.put(&(x as u64).to_le_bytes())?;
    }
    Ok(())
}

/// Reads `n` little-endian words of `size` bytes, `1 << 16` at a time.
fn words<T>(
    r: &mut SummedReader,
    n: u64,
    size: usize,
    each: impl Fn(&[u8]) -> T,
) -> Option<Vec<T>> {
    // Big arrays are read into huge pages (asked for before the first touch).
    let mut out = huge_capacity(n as usize);
    for at in (0..n).step_by(1 << 16) {
        let k = (n - at).min(1 << 16) as usize;
        out.extend(r.take(size * k)?.chunks_exact(size).map(&each));
    }
    Some(out)
}

/// Reads a checkpoint of this game: `Ok(None)` when there is none, an error saying why when it
/// is for other rules or sizes, damaged, or marks positions beyond them (the solve then starts
/// over).
pub fn load(
    path: &Path,
    fingerprint: &str,
    slots: u64,
    canonical: u64,
) -> Result<Option<BigState>, String> {
    let Some((mut r, len)) = open_checked(path, MAGIC, fingerprint)? else {
        return Ok(None);
    };
    let fp_len = fingerprint.len();
    let u64_of = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    let head = r.take(HEAD).ok_or_else(damaged)?;
    let stats = stats_of(&head).ok_or_else(damaged)?;
    let (dwords, cwords, pairs) = (
        u64_of(&head[36..44]),
        u64_of(&head[44..52]),
        u64_of(&head[52..60]),
    );
    if stats.slots != slots
        || dwords != slots.div_ceil(64)
        || cwords != canonical.div_ceil(64)
        || pairs > canonical
    {
        return Err(format!("made for {} slots, not {slots}", stats.slots));
    }
    let expected = (8 + 4 + fp_len + HEAD) as u64 + 8 * (dwords + 2 * cwords) + 2 * pairs + 8;
    if expected != len {
        return Err(damaged());
    }
    let seen = words(&mut r, dwords, 8, |b| AtomicU64::new(u64_of(b))).ok_or_else(damaged)?;
    let ranked_words = words(&mut r, cwords, 8, u64_of).ok_or_else(damaged)?;
    let open = words(&mut r, cwords, 8, u64_of).ok_or_else(damaged)?;
    let pm = words(&mut r, pairs, 2, |b| {
        AtomicU16::new(u16::from_le_bytes([b[0], b[1]]))
    })
    .ok_or_else(damaged)?;
    r.check().ok_or_else(damaged)?;
    if !tail_clear(seen.last().map(|w| w.load(Relaxed)), slots)
        || !tail_clear(ranked_words.last().copied(), canonical)
        || !tail_clear(open.last().copied(), canonical)
    {
        return Err("marks positions beyond the index".into());
    }
    let ranked = Ranked::build(&ranked_words);
    if ranked.ones() != pairs {
        return Err(damaged());
    }
    Ok(Some(BigState {
        seen,
        ranked,
        open,
        pm,
        stats,
    }))
}

/// Writes the search of reachable positions atomically.
pub fn save_reach(path: &Path, fingerprint: &str, r: &Reach) -> io::Result<()> {
    let body =
        (8 + 4 + fingerprint.len() + HEAD) as u64 + 8 * (2 * r.seen.len() + r.cseen.len()) as u64;
    write_atomically(path, body, |w| {
        w.put(MAGIC_REACH)?;
        put_fingerprint(w, fingerprint)?;
        // Sweeps 0; the third length is unused.
        let st = Stats {
            sweeps: 0,
            ..r.stats.clone()
        };
        put_counts(w, &st, [r.seen.len(), r.cseen.len(), 0])?;
        for x in &r.seen {
            w.put(&x.load(Relaxed).to_le_bytes())?;
        }
        for x in &r.expanded {
            w.put(&x.to_le_bytes())?;
        }
        for x in &r.cseen {
            w.put(&x.load(Relaxed).to_le_bytes())?;
        }
        Ok(())
    })
}

/// Reads a search of reachable positions of this game: `Ok(None)` when there is none, an error
/// saying why when it is for other rules or sizes, or damaged.
pub fn load_reach(
    path: &Path,
    fingerprint: &str,
    slots: u64,
    canonical: u64,
) -> Result<Option<Reach>, String> {
    let Some((mut r, len)) = open_checked(path, MAGIC_REACH, fingerprint)? else {
        return Ok(None);
    };
    let fp_len = fingerprint.len();
    let u64_of = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    let head = r.take(HEAD).ok_or_else(damaged)?;
    let stats = stats_of(&head).ok_or_else(damaged)?;
    let (dwords, cwords) = (u64_of(&head[36..44]), u64_of(&head[44..52]));
    if stats.slots != slots || dwords != slots.div_ceil(64) || cwords != canonical.div_ceil(64) {
        return Err(format!("made for {} slots, not {slots}", stats.slots));
    }
    let expected = (8 + 4 + fp_len + HEAD) as u64 + 8 * (2 * dwords + cwords) + 8;
    if expected != len {
        return Err(damaged());
    }
    let seen = words(&mut r, dwords, 8, |b| AtomicU64::new(u64_of(b))).ok_or_else(damaged)?;
    let expanded = words(&mut r, dwords, 8, u64_of).ok_or_else(damaged)?;
    let cseen = words(&mut r, cwords, 8, |b| AtomicU64::new(u64_of(b))).ok_or_else(damaged)?;
    r.check().ok_or_else(damaged)?;
    if !tail_clear(seen.last().map(|w| w.load(Relaxed)), slots)
        || !tail_clear(expanded.last().copied(), slots)
        || !tail_clear(cseen.last().map(|w| w.load(Relaxed)), canonical)
    {
        return Err("marks positions beyond the index".into());
    }
    Ok(Some(Reach {
        seen,
        expanded,
        cseen,
        stats,
    }))
}
