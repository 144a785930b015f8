//! Checkpoints of a long Ô Ăn Quan solve, so that a killed solve resumes where it was: the
//! reachable set, the positions still to solve, the `P`/`M` pairs and the figures so far.
//!
//! Layout (little-endian): magic `RETROCK1`, fingerprint length (u32) and bytes, slot count,
//! positions, finished games, moves (u64 each), sweeps done (u32), the number of words of the
//! reachable set and of positions still to solve (u64 each), then those words (u64), those slots
//! (u32), one `P`/`M` word (u32) per slot, and the checksum of everything before it. Written to a
//! temporary file, synced and renamed, like the tables.

use crate::oaq::values::Stats;
use retro_tables::format::Checksum;
use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

const MAGIC: &[u8; 8] = b"RETROCK1";

/// What a solve needs to go on.
pub struct State {
    /// Reachable slots (a bit set).
    pub seen: Vec<AtomicU64>,
    /// Slots still to solve, ascending.
    pub active: Vec<u32>,
    /// `P`/`M` per slot.
    pub pm: Vec<AtomicU32>,
    /// Figures so far.
    pub stats: Stats,
}

/// A writer that checksums what it writes (in 8-byte multiples but for the last piece).
pub(crate) struct Summed<W: Write> {
    out: W,
    sum: Checksum,
    buf: Vec<u8>,
}

impl<W: Write> Summed<W> {
    /// Writes bytes.
    pub(crate) fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= 1 << 20 {
            let whole = self.buf.len() / 8 * 8;
            self.sum.update(&self.buf[..whole]);
            self.out.write_all(&self.buf[..whole])?;
            self.buf.drain(..whole);
        }
        Ok(())
    }

    /// Writes the checksum after everything.
    pub(crate) fn finish(mut self) -> io::Result<W> {
        self.sum.update(&self.buf);
        self.out.write_all(&self.buf)?;
        self.out.write_all(&self.sum.finish().to_le_bytes())?;
        Ok(self.out)
    }
}

fn body_len(fingerprint: &str, s: &Parts) -> u64 {
    (8 + 4 + fingerprint.len() + 8 * 4 + 4 + 8 * 2) as u64
        + 8 * s.seen.len() as u64
        + 4 * s.active.len() as u64
        + 4 * s.pm.len() as u64
}

/// The pieces of a solve's state, borrowed for saving.
pub struct Parts<'a> {
    /// Reachable slots (a bit set).
    pub seen: &'a [AtomicU64],
    /// Slots still to solve, ascending.
    pub active: &'a [u32],
    /// `P`/`M` per slot.
    pub pm: &'a [AtomicU32],
    /// Figures so far.
    pub stats: &'a Stats,
}

/// Writes a checkpoint atomically.
pub fn save(path: &Path, fingerprint: &str, s: &Parts) -> io::Result<()> {
    write_atomically(path, body_len(fingerprint, s), |w| {
        w.put(MAGIC)?;
        put_fingerprint(w, fingerprint)?;
        let st = &s.stats;
        for x in [st.slots, st.positions, st.terminal, st.moves] {
            w.put(&x.to_le_bytes())?;
        }
        w.put(&st.sweeps.to_le_bytes())?;
        w.put(&(s.seen.len() as u64).to_le_bytes())?;
        w.put(&(s.active.len() as u64).to_le_bytes())?;
        for x in s.seen {
            w.put(&x.load(Relaxed).to_le_bytes())?;
        }
        for x in s.active {
            w.put(&x.to_le_bytes())?;
        }
        for x in s.pm {
            w.put(&x.load(Relaxed).to_le_bytes())?;
        }
        Ok(())
    })
}

/// The writer of a checkpoint file.
pub(crate) type CheckpointWriter = Summed<BufWriter<File>>;

/// Writes a checkpoint of `body` bytes (checksum excluded) through `fill`: to a temporary
/// file, checksummed, synced, then renamed over `path`.
pub(crate) fn write_atomically(
    path: &Path,
    body: u64,
    fill: impl FnOnce(&mut CheckpointWriter) -> io::Result<()>,
) -> io::Result<()> {
    let tmp = path.with_extension("ckpt-tmp");
    let result = (|| {
        let file = File::create(&tmp)?;
        let mut w = Summed {
            out: BufWriter::with_capacity(1 << 20, file),
            sum: Checksum::new(body),
            buf: Vec::with_capacity(2 << 20),
        };
        fill(&mut w)?;
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

/// Writes the fingerprint's length (u32) and bytes.
pub(crate) fn put_fingerprint(w: &mut CheckpointWriter, fingerprint: &str) -> io::Result<()> {
    w.put(&(fingerprint.len() as u32).to_le_bytes())?;
    w.put(fingerprint.as_bytes())
}

/// Opens a checkpoint and reads its magic and fingerprint: the reader and the file length
/// (`None` if there is no such file, or its magic or fingerprint differs).
pub(crate) fn open_checked(
    path: &Path,
    magic: &[u8; 8],
    fingerprint: &str,
) -> Option<(SummedReader, u64)> {
    let file = File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let mut r = SummedReader::new(file, len)?;
    if r.take(8)? != magic {
        return None;
    }
    let fp_len = u32::from_le_bytes(r.take(4)?.try_into().ok()?) as usize;
    if fp_len > 4096 || r.take(fp_len)? != fingerprint.as_bytes() {
        return None;
    }
    Some((r, len))
}

/// Reads a checkpoint of this game (`None` when there is none, or it is for other rules, or
/// damaged: the solve then starts over).
pub fn load(path: &Path, fingerprint: &str, slots: u64) -> Option<State> {
    let (mut r, len) = open_checked(path, MAGIC, fingerprint)?;
    let fp_len = fingerprint.len();
    let u64_of = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    let head = r.take(8 * 4 + 4 + 8 * 2)?;
    let stats = stats_of(&head)?;
    let (words, active_len) = (u64_of(&head[36..44]), u64_of(&head[44..52]));
    if stats.slots != slots || words != slots.div_ceil(64) || active_len > slots {
        return None;
    }
    let expected = (8 + 4 + fp_len + 52) as u64 + 8 * words + 4 * active_len + 4 * slots + 8;
    if expected != len {
        return None;
    }
    let mut seen = Vec::with_capacity(words as usize);
    for chunk in (0..words).step_by(1 << 16) {
        let n = (words - chunk).min(1 << 16) as usize;
        let b = r.take(8 * n)?;
        seen.extend(b.chunks_exact(8).map(|c| AtomicU64::new(u64_of(c))));
    }
    let mut active = Vec::with_capacity(active_len as usize);
    for chunk in (0..active_len).step_by(1 << 18) {
        let n = (active_len - chunk).min(1 << 18) as usize;
        let b = r.take(4 * n)?;
        active.extend(
            b.chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))),
        );
    }
    let mut pm = Vec::with_capacity(slots as usize);
    for chunk in (0..slots).step_by(1 << 18) {
        let n = (slots - chunk).min(1 << 18) as usize;
        let b = r.take(4 * n)?;
        pm.extend(
            b.chunks_exact(4)
                .map(|c| AtomicU32::new(u32::from_le_bytes(c.try_into().expect("4 bytes")))),
        );
    }
    r.check()?;
    Some(State {
        seen,
        active,
        pm,
        stats,
    })
}

/// A reader that checksums what it reads, for checkpoints written by [`Summed`].
pub(crate) struct SummedReader {
    r: BufReader<File>,
    all: Checksum,
    pending: Vec<u8>,
}

impl SummedReader {
    /// Starts reading a file of `len` bytes (`None` if too short for a checksum).
    pub(crate) fn new(file: File, len: u64) -> Option<SummedReader> {
        Some(SummedReader {
            r: BufReader::with_capacity(1 << 20, file),
            all: Checksum::new(len.checked_sub(8)?),
            pending: Vec::new(),
        })
    }

    /// Reads exactly `n` bytes and feeds them to the checksum.
    pub(crate) fn take(&mut self, n: usize) -> Option<Vec<u8>> {
        let mut b = vec![0u8; n];
        self.r.read_exact(&mut b).ok()?;
        self.pending.extend_from_slice(&b);
        let whole = self.pending.len() / 8 * 8;
        self.all.update(&self.pending[..whole]);
        self.pending.drain(..whole);
        Some(b)
    }

    /// Reads the stored checksum and compares (`None`: damaged).
    pub(crate) fn check(mut self) -> Option<()> {
        self.all.update(&self.pending);
        let mut stored = [0u8; 8];
        self.r.read_exact(&mut stored).ok()?;
        (self.all.finish() == u64::from_le_bytes(stored)).then_some(())
    }
}

/// The figures at the head of a checkpoint (slots, positions, finished games, moves: u64 each;
/// sweeps: u32).
pub(crate) fn stats_of(head: &[u8]) -> Option<Stats> {
    let u64_at = |o: usize| Some(u64::from_le_bytes(head.get(o..o + 8)?.try_into().ok()?));
    Some(Stats {
        slots: u64_at(0)?,
        positions: u64_at(8)?,
        terminal: u64_at(16)?,
        moves: u64_at(24)?,
        sweeps: u32::from_le_bytes(head.get(32..36)?.try_into().ok()?),
    })
}
