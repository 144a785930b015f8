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
    let tmp = retro_tables::format::temp_path(path);
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
/// (`Ok(None)` if there is no such file; an error saying why it cannot be used otherwise).
pub(crate) fn open_checked(
    path: &Path,
    magic: &[u8; 8],
    fingerprint: &str,
) -> Result<Option<(SummedReader, u64)>, String> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot be read: {e}")),
    };
    let len = file
        .metadata()
        .map_err(|e| format!("cannot be read: {e}"))?
        .len();
    let mut r = SummedReader::new(file, len).ok_or_else(damaged)?;
    if r.take(8).ok_or_else(damaged)? != magic {
        return Err("not a checkpoint of this solver".into());
    }
    let fp_len = u32::from_le_bytes(r.take(4).ok_or_else(damaged)?.try_into().expect("4 bytes"));
    if fp_len > 4096 || r.take(fp_len as usize).ok_or_else(damaged)? != fingerprint.as_bytes() {
        return Err("made under other rules".into());
    }
    Ok(Some((r, len)))
}

/// Why a checkpoint whose lengths or checksum are wrong is not used.
pub(crate) fn damaged() -> String {
    "damaged (its lengths or its checksum are wrong)".to_string()
}

/// Whether the last word of a bit set of `bits` bits has no bit beyond them.
pub(crate) fn tail_clear(last: Option<u64>, bits: u64) -> bool {
    bits.is_multiple_of(64) || last.is_none_or(|w| w >> (bits % 64) == 0)
}

/// Reads a checkpoint of this game: `Ok(None)` when there is none, an error saying why when it
/// is for other rules, damaged or its contents are out of range (the solve then starts over). `valid` says whether a slot's stored bounds are in range.
pub fn load(
    path: &Path,
    fingerprint: &str,
    slots: u64,
    valid: impl Fn(u32) -> bool,
) -> Result<Option<State>, String> {
    let Some((r, len)) = open_checked(path, MAGIC, fingerprint)? else {
        return Ok(None);
    };
    load_state(r, len, fingerprint.len(), slots, valid).map(Some)
}

fn load_state(
    mut r: SummedReader,
    len: u64,
    fp_len: usize,
    slots: u64,
    valid: impl Fn(u32) -> bool,
) -> Result<State, String> {
    let u64_of = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    let head = r.take(8 * 4 + 4 + 8 * 2).ok_or_else(damaged)?;
    let stats = stats_of(&head).ok_or_else(damaged)?;
    let (words, active_len) = (u64_of(&head[36..44]), u64_of(&head[44..52]));
    if stats.slots != slots || words != slots.div_ceil(64) || active_len > slots {
        return Err(format!("made for {} slots, not {slots}", stats.slots));
    }
    let expected = (8 + 4 + fp_len + 52) as u64 + 8 * words + 4 * active_len + 4 * slots + 8;
    if expected != len {
        return Err(damaged());
    }
    let mut seen = Vec::with_capacity(words as usize);
    for chunk in (0..words).step_by(1 << 16) {
        let n = (words - chunk).min(1 << 16) as usize;
        let b = r.take(8 * n).ok_or_else(damaged)?;
        seen.extend(b.chunks_exact(8).map(|c| AtomicU64::new(u64_of(c))));
    }
    let mut active = Vec::with_capacity(active_len as usize);
    for chunk in (0..active_len).step_by(1 << 18) {
        let n = (active_len - chunk).min(1 << 18) as usize;
        let b = r.take(4 * n).ok_or_else(damaged)?;
        active.extend(
            b.chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))),
        );
    }
    let mut pm = Vec::with_capacity(slots as usize);
    for chunk in (0..slots).step_by(1 << 18) {
        let n = (slots - chunk).min(1 << 18) as usize;
        let b = r.take(4 * n).ok_or_else(damaged)?;
        pm.extend(
            b.chunks_exact(4)
                .map(|c| AtomicU32::new(u32::from_le_bytes(c.try_into().expect("4 bytes")))),
        );
    }
    r.check().ok_or_else(damaged)?;
    if !tail_clear(seen.last().map(|w| w.load(Relaxed)), slots) {
        return Err(format!("marks a position beyond the {slots} slots"));
    }
    if let Some(s) = active.iter().find(|&&s| s as u64 >= slots) {
        return Err(format!("lists slot {s}, beyond the {slots} slots"));
    }
    if let Some(i) = pm.iter().position(|w| !valid(w.load(Relaxed))) {
        return Err(format!("holds a value out of range at slot {i}"));
    }
    Ok(State {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A checkpoint of 70 slots: slots 3 and 69 reachable, 69 still to solve.
    fn saved(dir: &Path, active: u32, pm_at_5: u32, tail: u64) -> std::path::PathBuf {
        let path = dir.join(format!("{active}-{pm_at_5}-{tail}.ckpt"));
        let seen = [AtomicU64::new(1 << 3), AtomicU64::new(1 << 5 | tail)];
        let pm: Vec<AtomicU32> = (0..70)
            .map(|i| AtomicU32::new(if i == 5 { pm_at_5 } else { 0 }))
            .collect();
        let stats = Stats {
            slots: 70,
            positions: 2,
            ..Stats::default()
        };
        let parts = Parts {
            seen: &seen,
            active: &[active],
            pm: &pm,
            stats: &stats,
        };
        save(&path, "fp", &parts).unwrap();
        path
    }

    #[test]
    fn out_of_range_contents_are_refused_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let fine = |w: u32| w < 100;
        let ok = saved(dir.path(), 69, 7, 0);
        let s = load(&ok, "fp", 70, fine).unwrap().expect("a checkpoint");
        assert_eq!((s.active, s.stats.positions), (vec![69], 2));
        assert!(load(&ok, "other", 70, fine)
            .err()
            .expect("refused")
            .contains("other rules"));
        assert!(load(&dir.path().join("none"), "fp", 70, fine)
            .unwrap()
            .is_none());
        let cases = [
            (saved(dir.path(), 70, 7, 0), "lists slot 70"),
            (saved(dir.path(), 69, 100, 0), "out of range at slot 5"),
            (saved(dir.path(), 69, 7, 1 << 6), "beyond the 70 slots"),
        ];
        for (path, why) in cases {
            let e = load(&path, "fp", 70, fine).err().expect("refused");
            assert!(e.contains(why), "{e}");
        }
        let mut bytes = fs::read(&ok).unwrap();
        let k = bytes.len() / 2;
        bytes[k] ^= 1;
        fs::write(&ok, &bytes).unwrap();
        assert!(load(&ok, "fp", 70, fine)
            .err()
            .expect("refused")
            .contains("damaged"));
        assert!(load(&ok, "fp", 71, fine)
            .err()
            .expect("refused")
            .contains("made for 70"));
    }
}
