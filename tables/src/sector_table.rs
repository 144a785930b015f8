//! Sector tables (Mill and Dara): one little-endian `u16` value code per slot of the sector's
//! index, between the 512-byte header and the checksum trailer (a checksum per 4 KiB block,
//! [`crate::mapped`]).

use crate::format::{
    header_frame, read_frame, write_atomic, TableError, ENCODING_U16, FINGERPRINT_MAX, HEADER_SIZE,
};
use crate::mapped::Mapped;
use crate::sector_key::SectorKey;
use crate::value::{Value, MAX_DISTANCE, MAX_STORED_DISTANCE, WASTED};
use std::borrow::Cow;
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

    /// Adds stored codes to the counts (branch-free: `verify` reads tables whole).
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

    /// The same counts, added up (for tallies made in parallel).
    fn merge(mut self, o: Header) -> Header {
        self.wins += o.wins;
        self.draws += o.draws;
        self.losses += o.losses;
        self.wasted += o.wasted;
        self.longest_win = self.longest_win.max(o.longest_win);
        self.longest_loss = self.longest_loss.max(o.longest_loss);
        self
    }

    fn encode(&self) -> [u8; HEADER_SIZE] {
        self.encode_as(ENCODING_U16)
    }

    /// The header's bytes under a value encoding (compressed tables share the fields).
    pub(crate) fn encode_as(&self, encoding: u32) -> [u8; HEADER_SIZE] {
        let mut b = header_frame(self.game, encoding, &self.fingerprint);
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
        Header::decode_as(path, b, ENCODING_U16)
    }

    /// Reads a header written under a value encoding.
    pub(crate) fn decode_as(path: &Path, b: &[u8], encoding: u32) -> Result<Header, TableError> {
        let fingerprint = read_frame(path, b, None, encoding)?;
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

/// Checks what a header says on its own: the counts add up, the longest distances can be
/// stored.
pub(crate) fn check_header(path: &Path, h: &Header) -> Result<(), TableError> {
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

/// An open table: its header (checked) and memory-mapped values, each block checked when first
/// read ([`Table::verify`] checks them all and recounts the values).
pub struct Table {
    /// The header.
    pub header: Header,
    file: Mapped,
}

impl Table {
    /// Maps a table and checks magic, version, length, the header's counts and checksum; a
    /// block of values is checked (its checksum, and each code against the header's longest
    /// distances) the first time it is read. A version-1 table (no block checksums) is
    /// checked whole here: its checksum and its counts.
    ///
    /// # Safety
    ///
    /// The file is memory-mapped: while the `Table` lives, nothing may modify or truncate the
    /// file in place (replacing it by a rename, as every writer of this crate does, is fine).
    /// A file changed under the map can make a read return other bytes than were checked, and
    /// a file truncated under it makes a read fault (SIGBUS). The bytes themselves are never
    /// trusted: every value read is checked or decoded, none is used as a pointer or length.
    pub unsafe fn open(path: &Path) -> Result<Table, TableError> {
        // SAFETY: the caller's promise, passed on.
        let (header, file) = unsafe {
            Mapped::open(path, |b| {
                let h = Header::decode(path, b)?;
                check_header(path, &h)?;
                let len = h.slots.checked_mul(2).ok_or_else(|| {
                    TableError::Corrupt(path.to_path_buf(), "slot count out of range".into())
                })?;
                Ok((h, len))
            })
        }?;
        let t = Table { header, file };
        if t.file.version() == 1 {
            t.recount()?;
        }
        Ok(t)
    }

    /// Checks every block and the whole-file checksum, and recounts the values against the
    /// header (what `verify` does, and the solver before it builds on a table).
    pub fn verify(&self) -> Result<(), TableError> {
        self.file.check_all(&|_, b| self.check_codes(b))?;
        if self.file.version() >= 2 {
            self.recount()?;
        }
        Ok(())
    }

    fn recount(&self) -> Result<(), TableError> {
        let h = &self.header;
        let empty = || Header::from_values(h.game, &h.fingerprint, h.sector, &[]);
        // Blocks were checked already (version 1: at open; 2 and 3: by `verify`).
        let body = self.file.body(&|_, b| self.check_codes(b))?;
        let mut recount = crate::par::map_chunks(body, 1 << 20, |chunk| {
            let mut part = empty();
            part.tally(
                chunk
                    .chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]])),
            );
            part
        })
        .into_iter()
        .fold(empty(), Header::merge);
        recount.slots = h.slots;
        if recount != *h {
            return Err(TableError::Corrupt(
                self.file.path().to_path_buf(),
                "header counts do not match the stored values".into(),
            ));
        }
        Ok(())
    }

    /// Checks the codes of a block: each one a draw, a wasted slot, or a win or loss no longer
    /// than the header's longest.
    fn check_codes(&self, bytes: &[u8]) -> Result<(), String> {
        let (lw, ll) = (self.header.longest_win, self.header.longest_loss);
        // A draw and the wasted-slot code have no distance bits; a loss and a win at most the
        // header's longest. Written with selects, not branches, so that it vectorises.
        let mut bad = false;
        for c in bytes.chunks_exact(2) {
            let v = u16::from_le_bytes([c[0], c[1]]);
            let top = v >> 14;
            let most = if top == 1 {
                ll
            } else if top == 2 {
                lw
            } else {
                0
            };
            bad |= v & MAX_DISTANCE > most;
        }
        if bad {
            return Err("a value code is beyond what the header allows".into());
        }
        Ok(())
    }

    /// The mapped file.
    pub fn mapped(&self) -> &Mapped {
        &self.file
    }

    /// Blocks of values checked so far, of all.
    pub fn blocks_checked(&self) -> (usize, usize) {
        self.file.blocks_checked()
    }

    /// Checks every block not checked yet, in parallel and in file order: reads after it skip
    /// the per-block check (the solver's lookups into a dependency, billions of them).
    pub fn check_blocks(&self) -> Result<(), TableError> {
        self.file.check_blocks(&|_, b| self.check_codes(b))
    }

    /// Every slot's code, in slot order (each block checked as it is read).
    pub fn codes(&self) -> Result<Vec<u16>, TableError> {
        let n = 2 * self.header.slots as usize;
        let mut out = Vec::with_capacity(n / 2);
        // In steps of 4 MiB, so that a damaged block is reported before the rest is read.
        for at in (0..n).step_by(1 << 22) {
            let b = self
                .file
                .bytes(at..(at + (1 << 22)).min(n), &|_, b| self.check_codes(b))?;
            out.extend(b.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])));
        }
        Ok(out)
    }

    /// Every slot's code, as [`Table::codes`] gives them, read in place from the mapped file
    /// where its bytes are `u16`s as they lie (a little-endian machine; the body is aligned),
    /// else copied: compressing a big table then makes no copy of it.
    pub fn codes_in_place(&self) -> Result<Cow<'_, [u16]>, TableError> {
        let n = self.header.slots as usize;
        // Every block checked in parallel first (a table just written is checked whole here).
        self.check_blocks()?;
        let body = self.file.body(&|_, b| self.check_codes(b))?;
        match body.get(..2 * n) {
            Some(bytes)
                if cfg!(target_endian = "little") && bytes.as_ptr().align_offset(2) == 0 =>
            {
                // SAFETY: `bytes` is 2 n bytes of the read-only mapping, which lives as long
                // as `self` and which nothing changes in place (`Table::open`'s contract),
                // aligned for `u16` (checked); every bit pattern is a `u16`, and on a
                // little-endian machine each reads as the file's little-endian code.
                let codes = unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<u16>(), n) };
                Ok(Cow::Borrowed(codes))
            }
            _ => self.codes().map(Cow::Owned),
        }
    }

    /// The raw code of a slot (the wasted-slot code for a slot out of range); an error when
    /// the slot's block fails its check.
    #[inline(always)]
    pub fn code(&self, slot: u64) -> Result<u16, TableError> {
        if slot >= self.header.slots {
            return Ok(WASTED);
        }
        let o = 2 * slot as usize;
        match self.file.checked_pair(o) {
            Some(b) => Ok(u16::from_le_bytes(b)),
            None => self.code_checking(o),
        }
    }

    /// [`Table::code`] at body offset `o` when its block is not checked yet.
    #[inline(never)]
    fn code_checking(&self, o: usize) -> Result<u16, TableError> {
        let b = self.file.bytes(o..o + 2, &|_, b| self.check_codes(b))?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    /// The value of a slot (`None` for a wasted slot or a slot out of range).
    #[inline]
    pub fn value(&self, slot: u64) -> Result<Option<Value>, TableError> {
        Ok(Value::decode(self.code(slot)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{trailer_with, Sums};
    use crate::value::DRAW;

    /// A table written in format version 2 (16 KiB blocks, serial hash) is still read and
    /// verified, and a damaged block of it is still an error.
    #[test]
    fn version_2_tables_are_read_and_checked_as_before() {
        let dir = std::env::temp_dir().join(format!("retro-v2-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pick = [DRAW, crate::value::win(3), crate::value::loss(4), WASTED];
        let codes: Vec<u16> = (0..20_000usize).map(|i| pick[i % 7 % 4]).collect();
        let key = SectorKey {
            w: 3,
            b: 3,
            wf: 0,
            bf: 0,
        };
        let h = Header::from_values(crate::GAME_MILL, "fp", key, &codes);
        let mut head = h.encode();
        head[8..12].copy_from_slice(&2u32.to_le_bytes());
        let body: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
        let mut file = head.to_vec();
        file.extend_from_slice(&body);
        file.extend(trailer_with(Sums::V2, &head, &body));
        let v2 = dir.join("sector_3_3_0_0.rtb");
        std::fs::write(&v2, &file).unwrap();
        let v3 = dir.join("v3.rtb");
        write(&v3, &h, &codes).unwrap();
        // 40,000 bytes of body: 3 blocks in version 2, 10 in version 3.
        for (p, version, blocks) in [(&v2, 2, 3), (&v3, 3, 10)] {
            // SAFETY: the test's own files, not modified while open.
            let t = unsafe { Table::open(p) }.unwrap();
            assert_eq!(t.file.version(), version);
            assert_eq!(t.code(0).unwrap(), codes[0]);
            assert_eq!(t.blocks_checked(), (1, blocks));
            assert_eq!(t.codes().unwrap(), codes);
            assert_eq!(t.blocks_checked(), (blocks, blocks));
            t.verify().unwrap();
        }
        // A changed value in the second 16 KiB of the version-2 file: its block fails, the
        // first still reads.
        let mut bad = file.clone();
        bad[HEADER_SIZE + 20_000] ^= 1;
        std::fs::write(&v2, &bad).unwrap();
        // SAFETY: as above.
        let t = unsafe { Table::open(&v2) }.unwrap();
        assert!(t.code(10).is_ok());
        let e = t.code(10_000).unwrap_err().to_string();
        assert!(e.contains("fails its checksum"), "{e}");
        // Every other block read and checked: reads stop checking only once every block
        // passed, which the damaged one never does.
        assert!(t.code(19_999).is_ok());
        assert_eq!(t.blocks_checked(), (2, 3));
        for _ in 0..2 {
            assert!(t.code(10_000).is_err());
        }
        assert!(t.verify().is_err());
        drop(t);
        // A version-3 file relabelled as version 2 is refused (its trailer's length differs).
        let mut relabelled = std::fs::read(&v3).unwrap();
        relabelled[8..12].copy_from_slice(&2u32.to_le_bytes());
        std::fs::write(&v2, &relabelled).unwrap();
        // SAFETY: as above.
        assert!(unsafe { Table::open(&v2) }.is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
