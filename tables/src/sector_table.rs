//! Sector tables (Mill and Dara): one little-endian `u16` value code per slot of the sector's
//! index, between the 512-byte header and the checksum trailer.

use crate::format::{
    header_frame, read_frame, write_atomic, Checksum, TableError, ENCODING_U16, END_MAGIC,
    FINGERPRINT_MAX, HEADER_SIZE, TRAILER_SIZE,
};
use crate::sector_key::SectorKey;
use crate::value::{Value, MAX_DISTANCE, MAX_STORED_DISTANCE, WASTED};
use memmap2::{Advice, Mmap};
use std::fs::File;
use std::path::Path;

/// What a table's header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Game id.
    pub game: u32,
    /// The rule profile's fingerprint.
    pub fingerprint: String,
    /// The sector.
    pub sector: SectorKey,
    /// Number of slots.
    pub slots: u64,
    /// Positions won, drawn and lost for the side to move, and wasted slots.
    pub wins: u64,
    /// Drawn positions.
    pub draws: u64,
    /// Lost positions.
    pub losses: u64,
    /// Slots that hold no position.
    pub wasted: u64,
    /// Longest win in plies.
    pub longest_win: u16,
    /// Longest loss in plies.
    pub longest_loss: u16,
}

impl Header {
    /// Counts the values of a finished table into a header.
    pub fn from_values(game: u32, fingerprint: &str, sector: SectorKey, values: &[u16]) -> Header {
        let mut h = Header {
            game,
            fingerprint: fingerprint.to_string(),
            sector,
            slots: values.len() as u64,
            wins: 0,
            draws: 0,
            losses: 0,
            wasted: 0,
            longest_win: 0,
            longest_loss: 0,
        };
        h.tally(values.iter().copied());
        h
    }

    /// Adds stored codes to the counts (branch-free: tables are read whole when opened).
    fn tally(&mut self, codes: impl Iterator<Item = u16>) {
        let (mut w, mut d, mut l, mut x) = (0u64, 0u64, 0u64, 0u64);
        let (mut lw, mut ll) = (self.longest_win, self.longest_loss);
        for v in codes {
            let class = v >> 14;
            let dist = v & MAX_DISTANCE;
            d += (class == 0) as u64;
            l += (class == 1) as u64;
            w += (class == 2) as u64;
            x += (class == 3) as u64;
            lw = lw.max(dist * (class == 2) as u16);
            ll = ll.max(dist * (class == 1) as u16);
        }
        self.wins += w;
        self.draws += d;
        self.losses += l;
        self.wasted += x;
        self.longest_win = lw;
        self.longest_loss = ll;
    }

    fn encode(&self) -> [u8; HEADER_SIZE] {
        let mut b = header_frame(self.game, ENCODING_U16, &self.fingerprint);
        b[16..20].copy_from_slice(&[self.sector.w, self.sector.b, self.sector.wf, self.sector.bf]);
        b[24..32].copy_from_slice(&self.slots.to_le_bytes());
        b[32..40].copy_from_slice(&self.wins.to_le_bytes());
        b[40..48].copy_from_slice(&self.draws.to_le_bytes());
        b[48..56].copy_from_slice(&self.losses.to_le_bytes());
        b[56..64].copy_from_slice(&self.wasted.to_le_bytes());
        b[64..66].copy_from_slice(&self.longest_win.to_le_bytes());
        b[66..68].copy_from_slice(&self.longest_loss.to_le_bytes());
        b
    }

    fn decode(path: &Path, b: &[u8]) -> Result<Header, TableError> {
        let fingerprint = read_frame(path, b, None, ENCODING_U16)?;
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        let u16_at = |o: usize| u16::from_le_bytes(b[o..o + 2].try_into().expect("2 bytes"));
        Ok(Header {
            game: u32_at(12),
            fingerprint,
            sector: SectorKey {
                w: b[16],
                b: b[17],
                wf: b[18],
                bf: b[19],
            },
            slots: u64_at(24),
            wins: u64_at(32),
            draws: u64_at(40),
            losses: u64_at(48),
            wasted: u64_at(56),
            longest_win: u16_at(64),
            longest_loss: u16_at(66),
        })
    }
}

/// Writes a table atomically: to a temporary file, fsync, rename, fsync the directory.
pub fn write(path: &Path, header: &Header, values: &[u16]) -> Result<(), TableError> {
    if header.fingerprint.len() > FINGERPRINT_MAX {
        return Err(TableError::Mismatch(
            path.to_path_buf(),
            format!(
                "a rule fingerprint of {} bytes does not fit the header",
                header.fingerprint.len()
            ),
        ));
    }
    if values.len() as u64 != header.slots {
        return Err(TableError::Mismatch(
            path.to_path_buf(),
            "the header does not describe these values".into(),
        ));
    }
    write_atomic(path, &header.encode(), 2 * values.len() as u64, |w| {
        let mut buf = Vec::with_capacity(1 << 17);
        for chunk in values.chunks(1 << 16) {
            buf.clear();
            for v in chunk {
                buf.extend_from_slice(&v.to_le_bytes());
            }
            w.put(&buf)?;
        }
        Ok(())
    })
}

/// Checks a header's counts: they add up, and they match `recount`, the counts of the values
/// actually stored.
fn check_counts(path: &Path, h: &Header, recount: &Header) -> Result<(), TableError> {
    let total = h
        .wins
        .checked_add(h.draws)
        .and_then(|t| t.checked_add(h.losses))
        .and_then(|t| t.checked_add(h.wasted));
    if total != Some(h.slots) || h.longest_win > MAX_DISTANCE || h.longest_loss > MAX_DISTANCE {
        return Err(TableError::Corrupt(
            path.to_path_buf(),
            "header counts do not add up".into(),
        ));
    }
    if recount != h {
        return Err(TableError::Corrupt(
            path.to_path_buf(),
            "header counts do not match the stored values".into(),
        ));
    }
    let longest = h.longest_win.max(h.longest_loss);
    if longest > MAX_STORED_DISTANCE {
        return Err(TableError::Corrupt(
            path.to_path_buf(),
            format!(
                "a distance of {longest} plies is beyond the {MAX_STORED_DISTANCE} a table may \
                 store (the position before it would have no code)"
            ),
        ));
    }
    Ok(())
}

/// An open, verified table: its header and memory-mapped values.
pub struct Table {
    /// The header.
    pub header: Header,
    map: Mmap,
}

impl Table {
    /// Maps a table and checks magic, version, length, checksum and counts.
    ///
    /// # Safety
    ///
    /// The file is memory-mapped: while the `Table` lives, nothing may modify or truncate the
    /// file in place (replacing it by a rename, as every writer of this crate does, is fine).
    /// A file changed under the map can make a read return other bytes than were checked, and
    /// a file truncated under it makes a read fault (SIGBUS). The bytes themselves are never
    /// trusted: every value read is checked or decoded, none is used as a pointer or length.
    pub unsafe fn open(path: &Path) -> Result<Table, TableError> {
        let io_err = |e| TableError::Io(path.to_path_buf(), e);
        let file = File::open(path).map_err(io_err)?;
        // SAFETY: the caller promises the file is not modified in place while mapped.
        let map = unsafe { Mmap::map(&file) }.map_err(io_err)?;
        let header = Header::decode(path, &map)?;
        let expected = (HEADER_SIZE as u64)
            .checked_add(header.slots.saturating_mul(2))
            .and_then(|n| n.checked_add(TRAILER_SIZE as u64));
        if expected != Some(map.len() as u64) {
            return Err(TableError::Corrupt(
                path.to_path_buf(),
                format!(
                    "file is {} bytes but the header's {} slots need {}",
                    map.len(),
                    header.slots,
                    expected.map_or("more".into(), |e| e.to_string())
                ),
            ));
        }
        let body_end = map.len() - TRAILER_SIZE;
        if &map[body_end + 8..] != END_MAGIC {
            return Err(TableError::Corrupt(
                path.to_path_buf(),
                "bad end marker".into(),
            ));
        }
        let stored = u64::from_le_bytes(map[body_end..body_end + 8].try_into().expect("8 bytes"));
        // One pass over the file: the checksum of every byte and the counts of the values.
        // Read-ahead helps the pass; probing afterwards jumps around.
        let _ = map.advise(Advice::Sequential);
        let mut sum = Checksum::new(body_end as u64);
        sum.update(&map[..HEADER_SIZE]);
        let mut recount = Header::from_values(header.game, &header.fingerprint, header.sector, &[]);
        for chunk in map[HEADER_SIZE..body_end].chunks(1 << 20) {
            sum.update(chunk);
            recount.tally(
                chunk
                    .chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]])),
            );
        }
        recount.slots = header.slots;
        if sum.finish() != stored {
            return Err(TableError::Corrupt(
                path.to_path_buf(),
                "checksum mismatch".into(),
            ));
        }
        check_counts(path, &header, &recount)?;
        let _ = map.advise(Advice::Random);
        Ok(Table { header, map })
    }

    /// The raw code of a slot.
    #[inline]
    pub fn code(&self, slot: u64) -> u16 {
        let o = HEADER_SIZE + 2 * slot as usize;
        let b: [u8; 2] = self.map[o..o + 2].try_into().expect("two bytes");
        u16::from_le_bytes(b)
    }

    /// The raw code of a slot, or the wasted-slot code for a slot out of range.
    #[inline]
    pub fn code_or_wasted(&self, slot: u64) -> u16 {
        if slot < self.header.slots {
            self.code(slot)
        } else {
            WASTED
        }
    }

    /// The value of a slot (`None` for a wasted slot or a slot out of range).
    #[inline]
    pub fn value(&self, slot: u64) -> Option<Value> {
        if slot >= self.header.slots {
            return None;
        }
        Value::decode(self.code(slot))
    }
}
