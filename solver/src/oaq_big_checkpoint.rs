//! Checkpoints of a long `oaq_big.rs` solve: the reachable dense slots, the reachable canonical
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
//! the dense and canonical sets, then the reachable dense words, the expanded dense words, the
//! reachable canonical words, and the checksum.

use crate::oaq_big::{Ranked, Reach};
use crate::oaq_checkpoint::{Summed, SummedReader};
use crate::oaq_solve::{huge_pages, Stats};
use crate::table::Checksum;
use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::Path;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed};

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
    let tmp = path.with_extension("ckpt-tmp");
    let cwords = s.open.len();
    let body = (8 + 4 + fingerprint.len() + HEAD) as u64
        + 8 * (s.seen.len() + 2 * cwords) as u64
        + 2 * s.pm.len() as u64;
    let result = (|| {
        let file = File::create(&tmp)?;
        let mut w = Summed {
            out: BufWriter::with_capacity(1 << 20, file),
            sum: Checksum::new(body),
            buf: Vec::with_capacity(2 << 20),
        };
        w.put(MAGIC)?;
        w.put(&(fingerprint.len() as u32).to_le_bytes())?;
        w.put(fingerprint.as_bytes())?;
        let st = s.stats;
        for x in [st.slots, st.positions, st.terminal, st.moves] {
            w.put(&x.to_le_bytes())?;
        }
        w.put(&st.sweeps.to_le_bytes())?;
        for x in [s.seen.len(), cwords, s.pm.len()] {
            w.put(&(x as u64).to_le_bytes())?;
        }
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
        let out = w.finish()?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    fs::rename(&tmp, path)
}

/// Reads `n` little-endian words of `size` bytes, `1 << 16` at a time.
fn words<T>(
    r: &mut SummedReader,
    n: u64,
    size: usize,
    each: impl Fn(&[u8]) -> T,
) -> Option<Vec<T>> {
    let mut out = Vec::with_capacity(n as usize);
    for at in (0..n).step_by(1 << 16) {
        let k = (n - at).min(1 << 16) as usize;
        out.extend(r.take(size * k)?.chunks_exact(size).map(&each));
    }
    Some(out)
}

/// Reads a checkpoint of this game (`None` when there is none, or it is for other rules or
/// sizes, or damaged: the solve then starts over).
pub fn load(path: &Path, fingerprint: &str, slots: u64, canonical: u64) -> Option<BigState> {
    let file = File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let mut r = SummedReader::new(file, len)?;
    let u64_of = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    if r.take(8)? != MAGIC {
        return None;
    }
    let fp_len = u32::from_le_bytes(r.take(4)?.try_into().ok()?) as usize;
    if fp_len > 4096 || r.take(fp_len)? != fingerprint.as_bytes() {
        return None;
    }
    let head = r.take(HEAD)?;
    let stats = Stats {
        slots: u64_of(&head[0..8]),
        positions: u64_of(&head[8..16]),
        terminal: u64_of(&head[16..24]),
        moves: u64_of(&head[24..32]),
        sweeps: u32::from_le_bytes(head[32..36].try_into().ok()?),
    };
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
        return None;
    }
    let expected = (8 + 4 + fp_len + HEAD) as u64 + 8 * (dwords + 2 * cwords) + 2 * pairs + 8;
    if expected != len {
        return None;
    }
    let seen = words(&mut r, dwords, 8, |b| AtomicU64::new(u64_of(b)))?;
    let ranked = Ranked::build(&words(&mut r, cwords, 8, u64_of)?);
    let open = words(&mut r, cwords, 8, u64_of)?;
    let pm = words(&mut r, pairs, 2, |b| {
        AtomicU16::new(u16::from_le_bytes([b[0], b[1]]))
    })?;
    huge_pages(&seen);
    huge_pages(&pm);
    r.check()?;
    (ranked.ones() == pairs).then_some(BigState {
        seen,
        ranked,
        open,
        pm,
        stats,
    })
}

/// Writes the search of reachable positions atomically.
pub fn save_reach(path: &Path, fingerprint: &str, r: &Reach) -> io::Result<()> {
    let tmp = path.with_extension("ckpt-tmp");
    let body = (8 + 4 + fingerprint.len() + HEAD - 8) as u64
        + 8 * (2 * r.seen.len() + r.cseen.len()) as u64;
    let result = (|| {
        let file = File::create(&tmp)?;
        let mut w = Summed {
            out: BufWriter::with_capacity(1 << 20, file),
            sum: Checksum::new(body),
            buf: Vec::with_capacity(2 << 20),
        };
        w.put(MAGIC_REACH)?;
        w.put(&(fingerprint.len() as u32).to_le_bytes())?;
        w.put(fingerprint.as_bytes())?;
        let st = &r.stats;
        for x in [st.slots, st.positions, st.terminal, st.moves] {
            w.put(&x.to_le_bytes())?;
        }
        w.put(&0u32.to_le_bytes())?;
        for x in [r.seen.len(), r.cseen.len()] {
            w.put(&(x as u64).to_le_bytes())?;
        }
        for x in &r.seen {
            w.put(&x.load(Relaxed).to_le_bytes())?;
        }
        for x in &r.expanded {
            w.put(&x.to_le_bytes())?;
        }
        for x in &r.cseen {
            w.put(&x.load(Relaxed).to_le_bytes())?;
        }
        let out = w.finish()?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    fs::rename(&tmp, path)
}

/// Reads a search of reachable positions of this game (`None` when there is none, or it is for
/// other rules or sizes, or damaged).
pub fn load_reach(path: &Path, fingerprint: &str, slots: u64, canonical: u64) -> Option<Reach> {
    let file = File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let mut r = SummedReader::new(file, len)?;
    let u64_of = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    if r.take(8)? != MAGIC_REACH {
        return None;
    }
    let fp_len = u32::from_le_bytes(r.take(4)?.try_into().ok()?) as usize;
    if fp_len > 4096 || r.take(fp_len)? != fingerprint.as_bytes() {
        return None;
    }
    let head = r.take(HEAD - 8)?;
    let stats = Stats {
        slots: u64_of(&head[0..8]),
        positions: u64_of(&head[8..16]),
        terminal: u64_of(&head[16..24]),
        moves: u64_of(&head[24..32]),
        sweeps: 0,
    };
    let (dwords, cwords) = (u64_of(&head[36..44]), u64_of(&head[44..52]));
    if stats.slots != slots || dwords != slots.div_ceil(64) || cwords != canonical.div_ceil(64) {
        return None;
    }
    let expected = (8 + 4 + fp_len + HEAD - 8) as u64 + 8 * (2 * dwords + cwords) + 8;
    if expected != len {
        return None;
    }
    let seen = words(&mut r, dwords, 8, |b| AtomicU64::new(u64_of(b)))?;
    let expanded = words(&mut r, dwords, 8, u64_of)?;
    let cseen = words(&mut r, cwords, 8, |b| AtomicU64::new(u64_of(b)))?;
    huge_pages(&seen);
    huge_pages(&cseen);
    r.check()?;
    Some(Reach {
        seen,
        expanded,
        cseen,
        stats,
    })
}
