//! Decoding whole blocks of a compressed table (passes over many slots: verify, upgrades,
//! working copies).

use super::*;

impl CompressedTable {
    /// The values of every slot of win/draw/loss block `b`, each block decoded once (a wasted
    /// slot gives the value it decodes to), in the order they are stored: value `i` is slot
    /// [`CompressedTable::stored_at`]`(b S + i)`. Without distances, wins and losses come as
    /// `Win(0)` and `Loss(0)`; a searched win comes as `Win(0)` too.
    pub fn block_values(&self, b: u64) -> Result<Vec<Value>, TableError> {
        let mut out = Vec::new();
        self.block_codes_into(b, &mut out, &mut BlockScratch::default())?;
        Ok(out.into_iter().map(decoded_value).collect())
    }

    /// [`CompressedTable::block_values`] as value codes (see [`Value::encode`]; a searched
    /// win is `Win(0)`'s code), into `out` (cleared first), decoding through `scratch`'s
    /// buffers: a pass over many blocks allocates nothing per block, and compares codes as
    /// they lie.
    pub fn block_codes_into(
        &self,
        b: u64,
        out: &mut Vec<u16>,
        scratch: &mut BlockScratch,
    ) -> Result<(), TableError> {
        out.clear();
        if b >= self.blocks() {
            return Err(self.corrupt_wdl(format!("block {b} of {}", self.blocks())));
        }
        if let Some(dtm) = self
            .dtm
            .as_ref()
            .filter(|d| self.by_sub && d.dtm_model().is_some())
        {
            return self.rans_block_codes(b, dtm, out, scratch);
        }
        *out = self.packed_block_codes(b)?;
        Ok(())
    }

    /// [`CompressedTable::block_values`] of a table of the zstd coder (or of rANS win/draw/loss
    /// beside zstd distances).
    pub(super) fn packed_block_codes(&self, b: u64) -> Result<Vec<u16>, TableError> {
        let s = self.block_slots();
        let packed = self.wdl.with_block(b, |p| Ok(p.to_vec()))?;
        self.check_len(b, &packed)?;
        let n = (self.header.slots - b * s).min(s) as usize;
        let syms: Vec<u8> = (0..n).map(|j| unpack_at(&packed, j)).collect();
        if syms.contains(&3) {
            return Err(self.corrupt_wdl(format!("block {b}: symbol 3")));
        }
        let mut out = Vec::with_capacity(n);
        let Some(dtm) = &self.dtm else {
            out.extend(syms.iter().map(|&x| match x {
                SYM_WIN => win(0),
                SYM_LOSS => loss(0),
                _ => DRAW,
            }));
            return Ok(out);
        };
        let corrupt = |m: String| TableError::Corrupt(dtm.mapped().path().to_path_buf(), m);
        let ds = dtm.layout().block_slots as usize;
        for (k, part) in syms.chunks(ds).enumerate() {
            let db = b * (s / ds as u64) + k as u64;
            let head = self.head_len(db);
            let (counts, list) = dtm.with_block(db, |bytes| {
                let (h, rest) = bytes
                    .split_at_checked(head)
                    .ok_or_else(|| corrupt(format!("block {db}: its head cut short")))?;
                let counts: Vec<u16> = h
                    .chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]))
                    .collect();
                let list = distances(rest)
                    .ok_or_else(|| corrupt(format!("block {db}: a distance cut short")))?;
                Ok((counts, list))
            })?;
            if self.by_sub {
                let sub = self.wdl.model().map_or(ds, |m| m.sub_slots());
                self.sub_block_codes(part, sub, &counts, &list, &mut out, db, dtm)?;
                continue;
            }
            self.group_codes(part, &list, &mut out, db)?;
        }
        Ok(out)
    }

    /// [`CompressedTable::block_values`] of a table of the rANS coders, decoded straight into
    /// symbols and entries (the same checks, no packing and parsing between).
    pub(super) fn rans_block_codes(
        &self,
        b: u64,
        dtm: &BlockFile,
        out: &mut Vec<u16>,
        scratch: &mut BlockScratch,
    ) -> Result<(), TableError> {
        let BlockScratch {
            syms,
            head,
            entries,
        } = scratch;
        syms.clear();
        self.wdl.decode_symbols(b, syms)?;
        let n = (self.header.slots - b * self.block_slots()).min(self.block_slots()) as usize;
        if syms.len() != n || syms.contains(&3) {
            return Err(self.corrupt_wdl(format!("block {b}: not {n} symbols of 0, 1 or 2")));
        }
        let ds = dtm.layout().block_slots as usize;
        let sub = self.wdl.model().map_or(ds, |m| m.sub_slots());
        out.reserve(n);
        for (k, part) in syms.chunks(ds).enumerate() {
            let db = b * (self.block_slots() / ds as u64) + k as u64;
            dtm.decode_entries(db, head, entries)?;
            self.sub_block_codes(part, sub, head, entries, out, db, dtm)?;
        }
        Ok(())
    }

    /// The values of distance block `db`'s symbols `part` under encodings 13 and 14: each
    /// `sub`-slot sub-block's from its own entries of `list`, which `head` (the entries before
    /// each sub-block but the first) must place where the symbols before them do.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn sub_block_codes(
        &self,
        part: &[u8],
        sub: usize,
        head: &[u16],
        list: &[u16],
        out: &mut Vec<u16>,
        db: u64,
        dtm: &BlockFile,
    ) -> Result<(), TableError> {
        let corrupt = |m: String| TableError::Corrupt(dtm.mapped().path().to_path_buf(), m);
        let mut at = 0;
        for (j, g) in part.chunks(sub).enumerate() {
            if j > 0 && head.get(j - 1).map(|&h| h as usize) != Some(at) {
                return Err(corrupt(format!(
                    "block {db}: its head says {:?} entries before sub-block {j}, not {at}",
                    head.get(j - 1)
                )));
            }
            let decided = g.iter().filter(|&&x| x != SYM_DRAW).count();
            let entries = list
                .get(at..at + decided)
                .ok_or_else(|| corrupt(format!("block {db} holds too few distances")))?;
            self.group_codes(g, entries, out, db)?;
            at += decided;
        }
        if at != list.len() {
            return Err(corrupt(format!("block {db} holds too many distances")));
        }
        Ok(())
    }

    /// The values of symbols `part` whose entries are `list` (a distance block's, or under
    /// encodings 13 and 14 a sub-block's), appended to `out`.
    pub(super) fn group_codes(
        &self,
        part: &[u8],
        list: &[u16],
        out: &mut Vec<u16>,
        db: u64,
    ) -> Result<(), TableError> {
        let corrupt = |m: String| {
            let path = self
                .dtm
                .as_ref()
                .map_or(self.wdl.mapped(), |d| d.mapped())
                .path();
            TableError::Corrupt(path.to_path_buf(), m)
        };
        // Grouped: the wins' entries, then the losses'.
        let wins = part.iter().filter(|&&x| x == SYM_WIN).count();
        let split = if self.grouped {
            wins.min(list.len())
        } else {
            list.len()
        };
        let (mut next, mut next_loss) = (list[..split].iter(), list[split..].iter());
        for &x in part {
            out.push(match x {
                SYM_DRAW => DRAW,
                _ => {
                    let from = if x == SYM_LOSS && self.grouped {
                        &mut next_loss
                    } else {
                        &mut next
                    };
                    let h = *from
                        .next()
                        .ok_or_else(|| corrupt(format!("block {db} holds too few distances")))?;
                    match (x, self.searches_wins) {
                        (SYM_WIN, true) if h == 0 => win(0),
                        (SYM_WIN, true) => {
                            self.decided(x, h - 1, || format!("block {db}"))?.encode()
                        }
                        _ => self.decided(x, h, || format!("block {db}"))?.encode(),
                    }
                }
            });
        }
        if next.next().is_some() || next_loss.next().is_some() {
            return Err(corrupt(format!("block {db} holds too many distances")));
        }
        Ok(())
    }

    /// The slots whose win's distance the file leaves to a search (`None` when it leaves none
    /// or has no distances), every block decoded: what [`replace_raw`] needs to write the
    /// table again with the same wins searched. A wasted slot that repeats such a win is one
    /// too (it holds no position, so a writer ignores it).
    pub fn searched_slots(&self) -> Result<Option<SearchedWins>, TableError> {
        if !self.searches_wins || self.dtm.is_none() {
            return Ok(None);
        }
        let n = self.header.slots;
        let mut bits = vec![0u64; n.div_ceil(64) as usize];
        let map = self.slot_map();
        for b in 0..self.blocks() {
            let values = self.block_values(b)?;
            for (v, slot) in values.into_iter().zip(map.from(b * self.block_slots())) {
                if v == Value::Win(0) {
                    bits[(slot / 64) as usize] |= 1 << (slot % 64);
                }
            }
        }
        Ok(Some(SearchedWins { bits }))
    }
}

/// The value of a code [`CompressedTable::block_codes_into`] decoded: a draw, a win or a
/// loss (it never gives the wasted-slot code: distances are checked against the header's
/// longest, at most [`crate::value::MAX_STORED_DISTANCE`]).
pub(super) fn decoded_value(code: u16) -> Value {
    debug_assert_ne!(code, crate::value::WASTED);
    Value::decode(code).unwrap_or(Value::Draw)
}

/// Buffers a pass over many blocks decodes through ([`CompressedTable::block_codes_into`]).
#[derive(Default)]
pub struct BlockScratch {
    syms: Vec<u8>,
    head: Vec<u16>,
    entries: Vec<u16>,
}
