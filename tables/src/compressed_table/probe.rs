//! Probing a compressed table: one slot's symbol, value or stored entry, and the layout
//! figures a reader asks for.

use super::*;

impl CompressedTable {
    /// Whether distances are available.
    pub fn has_distances(&self) -> bool {
        self.dtm.is_some()
    }

    /// The win/draw/loss symbol of a slot ([`SYM_DRAW`], [`SYM_LOSS`], [`SYM_WIN`]; a wasted
    /// slot gives one of them), `None` out of range.
    pub fn symbol(&self, slot: u64) -> Result<Option<u8>, TableError> {
        self.symbol_stored(self.place_of(slot))
    }

    /// [`CompressedTable::symbol`] of the slot stored at `slot` ([`CompressedTable::stored_at`]
    /// of it: for a caller that computes where a position is stored from the position).
    pub fn symbol_stored(&self, slot: u64) -> Result<Option<u8>, TableError> {
        if slot >= self.header.slots {
            return Ok(None);
        }
        let s = self.wdl.layout().block_slots as u64;
        let (b, i) = (slot / s, (slot % s) as usize);
        if let Some(m) = self.wdl.model() {
            // The slot's sub-block, up to the slot, on from where earlier probes left it.
            let sub = m.sub_slots();
            return sub_cache::with(self.wdl.id(), slot / sub as u64, |w, _| {
                self.wdl_up_to(m, w, b, i, i % sub + 1)?;
                Ok(Some(w.syms[i % sub]))
            });
        }
        self.wdl.with_block(b, |packed| {
            self.check_len(b, packed)?;
            match unpack_at(packed, i) {
                3 => Err(self.corrupt_wdl(format!("block {b}: symbol 3"))),
                x => Ok(Some(x)),
            }
        })
    }

    pub(super) fn corrupt_wdl(&self, m: String) -> TableError {
        TableError::Corrupt(self.wdl.mapped().path().to_path_buf(), m)
    }

    /// Checks that win/draw/loss block `b` decoded to the bytes its slots need.
    pub(super) fn check_len(&self, b: u64, packed: &[u8]) -> Result<(), TableError> {
        let s = self.wdl.layout().block_slots as u64;
        let want = ((self.header.slots - b * s).min(s) as usize).div_ceil(4);
        if packed.len() != want {
            return Err(self.corrupt_wdl(format!("block {b} decodes to {} bytes", packed.len())));
        }
        Ok(())
    }

    /// The value of a decided symbol whose distance is stored as `half` (`d >> 1`, or `d` in a
    /// table of whole plies), checked
    /// against the header's longest win or loss (`at` says where, for the error: built only
    /// then, as probes are hot).
    pub(super) fn decided(
        &self,
        sym: u8,
        half: u16,
        at: impl Fn() -> String,
    ) -> Result<Value, TableError> {
        let win = sym == SYM_WIN;
        let d = if self.whole {
            half as u32
        } else {
            2 * half as u32 + u32::from(win)
        };
        let longest = if win {
            self.header.longest_win
        } else {
            self.header.longest_loss
        };
        if d > longest as u32 {
            let path = self
                .dtm
                .as_ref()
                .map_or(self.wdl.mapped(), |f| f.mapped())
                .path();
            return Err(TableError::Corrupt(
                path.to_path_buf(),
                format!(
                    "{}: a distance of {d} plies, beyond the header's {longest}",
                    at()
                ),
            ));
        }
        let d = d as u16;
        Ok(if sym == SYM_WIN {
            Value::Win(d)
        } else {
            Value::Loss(d)
        })
    }

    /// Whether some wins' distances are left to a one-ply search (encoding 7 or 9).
    pub fn searches_wins(&self) -> bool {
        self.searches_wins
    }

    /// The value of a slot with its distance (`None` out of range; a wasted slot gives some
    /// value). An error when the table has no distances, when the slot is a win whose
    /// distance is searched ([`TableError::Searched`]: see [`CompressedTable::probe`]), or
    /// when a block fails its checks.
    pub fn value(&self, slot: u64) -> Result<Option<Value>, TableError> {
        match self.probe(slot)? {
            None => Ok(None),
            Some(Stored::Value(v)) => Ok(Some(v)),
            Some(Stored::SearchedWin) => Err(TableError::Searched(
                self.dtm
                    .as_ref()
                    .map_or(self.wdl.mapped(), |f| f.mapped())
                    .path()
                    .to_path_buf(),
                slot,
            )),
        }
    }

    /// What a slot holds: its value with the distance, or a win whose distance a one-ply
    /// search gives (`None` out of range; a wasted slot gives something). An error when the
    /// table has no distances or a block fails its checks.
    pub fn probe(&self, slot: u64) -> Result<Option<Stored>, TableError> {
        self.probe_stored(self.place_of(slot))
    }

    /// [`CompressedTable::probe`] of the slot stored at `slot` (see
    /// [`CompressedTable::symbol_stored`]).
    pub fn probe_stored(&self, slot: u64) -> Result<Option<Stored>, TableError> {
        let Some(dtm) = &self.dtm else {
            return Err(TableError::NoDistances(
                self.wdl.mapped().path().to_path_buf(),
            ));
        };
        if slot >= self.header.slots {
            return Ok(None);
        }
        let s = self.wdl.layout().block_slots as u64;
        let ds = dtm.layout().block_slots as u64;
        let (b, i) = (slot / s, (slot % s) as usize);
        if self.by_sub {
            let (sym, entry) = self.probe_by_sub(slot, dtm)?;
            return self.stored(sym, entry, slot);
        }
        let (sym, rank) = {
            self.wdl.with_block(b, |packed| {
                self.check_len(b, packed)?;
                let sym = unpack_at(packed, i);
                let first = i - i % ds as usize;
                let rank = match (self.grouped, sym) {
                    (false, _) => decided_between(packed, first, i),
                    // Grouped: the wins' entries, then the losses'.
                    (true, SYM_WIN) => wins_between(packed, first, i),
                    (true, _) => {
                        // The range ends with the block's slots, not with its last byte's padding.
                        let n = (self.header.slots - b * s).min(s) as usize;
                        let end = (first + ds as usize).min(n);
                        wins_between(packed, first, end) + losses_between(packed, first, i)
                    }
                };
                Ok((sym, rank))
            })?
        };
        let half = match sym {
            SYM_DRAW => return Ok(Some(Stored::Value(Value::Draw))),
            3 => return Err(self.corrupt_wdl(format!("block {b}: symbol 3"))),
            _ => self.zstd_entry(dtm, slot / ds, rank)?,
        };
        self.stored(sym, half, slot)
    }

    /// Entry `rank` (counted after the head) of zstd distance block `db`.
    pub(super) fn zstd_entry(
        &self,
        dtm: &BlockFile,
        db: u64,
        rank: usize,
    ) -> Result<u16, TableError> {
        dtm.with_block(db, |bytes| {
            let head = self.head_len(db);
            distance_at(bytes.get(head..).unwrap_or_default(), rank).ok_or_else(|| {
                TableError::Corrupt(
                    dtm.mapped().path().to_path_buf(),
                    format!("block {db} has too few distances"),
                )
            })
        })
    }

    /// Under the rANS coder: decodes slot `i`'s sub-block of win/draw/loss block `b` on from
    /// where `w` stopped until `w` holds its first `to` symbols.
    pub(super) fn wdl_up_to(
        &self,
        m: &WdlModel,
        w: &mut WdlCursor,
        b: u64,
        i: usize,
        to: usize,
    ) -> Result<(), TableError> {
        if w.syms.len() >= to {
            return Ok(());
        }
        let data = self.wdl.block_bytes(b)?;
        m.advance(data, self.wdl.slots_of(b), i / m.sub_slots(), w, to)
            .map_err(|e| self.corrupt_wdl(format!("block {b}: {e}")))
    }

    /// What a decided symbol `sym` with the distance entry `entry` at stored position `slot`
    /// holds (a draw for [`SYM_DRAW`], whatever the entry).
    pub(super) fn stored(
        &self,
        sym: u8,
        entry: u16,
        slot: u64,
    ) -> Result<Option<Stored>, TableError> {
        let half = match (sym, self.searches_wins) {
            (SYM_DRAW, _) => return Ok(Some(Stored::Value(Value::Draw))),
            (SYM_WIN, true) if entry == 0 => return Ok(Some(Stored::SearchedWin)),
            (SYM_WIN, true) => entry - 1,
            _ => entry,
        };
        Ok(Some(Stored::Value(
            self.decided(sym, half, || format!("slot {slot}"))?,
        )))
    }

    /// Under encodings 13 and 14: the symbol at stored position `slot` and its distance entry
    /// (0 for a draw), from the thread's cache of sub-blocks, decoding what it lacks: the
    /// slot's sub-block of symbols up to the slot (a loss: to the sub-block's end, to count
    /// its wins, whose entries come first), then under coder 3 the sub-block's entries up to
    /// the slot's, or a zstd block's entry, counted from the distance block's head.
    pub(super) fn probe_by_sub(&self, slot: u64, dtm: &BlockFile) -> Result<(u8, u16), TableError> {
        let m = self
            .wdl
            .model()
            .expect("encodings 13 and 14 go with the rANS coder");
        let sub = m.sub_slots();
        let s = self.wdl.layout().block_slots as u64;
        let (b, i) = (slot / s, (slot % s) as usize);
        let at = i % sub;
        sub_cache::with(self.wdl.id(), slot / sub as u64, |w, d| {
            self.wdl_up_to(m, w, b, i, at + 1)?;
            let sym = w.syms[at];
            let count = |syms: &[u8], x: u8| syms.iter().filter(|&&y| y == x).count();
            // For a loss, the sub-block's decided slots (it is decoded whole), which the
            // distance head must give entries to.
            let (within, decided) = match sym {
                SYM_WIN => (count(&w.syms[..at], SYM_WIN), None),
                SYM_LOSS => {
                    let len = (self.wdl.slots_of(b) - (i - at)).min(sub);
                    self.wdl_up_to(m, w, b, i, len)?;
                    let wins = count(&w.syms, SYM_WIN);
                    let losses_before = count(&w.syms[..at], SYM_LOSS);
                    let losses = losses_before + count(&w.syms[at..], SYM_LOSS);
                    (wins + losses_before, Some(wins + losses))
                }
                _ => return Ok((sym, 0)),
            };
            let ds = dtm.layout().block_slots as u64;
            let (db, j) = (slot / ds, (slot % ds) as usize / sub);
            let corrupt = |e: String| {
                TableError::Corrupt(
                    dtm.mapped().path().to_path_buf(),
                    format!("block {db}: {e}"),
                )
            };
            let Some(dm) = dtm.dtm_model() else {
                // zstd blocks: the entries before the sub-block are in the head.
                let before = if j == 0 {
                    0
                } else {
                    dtm.with_block(db, |bytes| {
                        head_count(bytes, j).ok_or_else(|| corrupt("its head cut short".into()))
                    })?
                };
                return Ok((sym, self.zstd_entry(dtm, db, before + within)?));
            };
            if d.ents.len() <= within {
                let k = dtm.slots_of(db).div_ceil(dm.sub_slots());
                dm.advance(dtm.block_bytes(db)?, k, j, d, within + 1)
                    .map_err(corrupt)?;
            }
            if let Some(decided) = decided.filter(|&n| d.entries() != Some(n)) {
                return Err(corrupt(format!(
                    "sub-block {j} has {:?} distances for {decided} decided slots",
                    d.entries()
                )));
            }
            Ok((sym, d.ents[within]))
        })
    }

    /// Bytes of distance block `db`'s head of entry counts (encodings 13 and 14: 2 a
    /// sub-block but the first; else none).
    pub(super) fn head_len(&self, db: u64) -> usize {
        match (&self.dtm, self.wdl.model()) {
            (Some(dtm), Some(m)) if self.by_sub => {
                let ds = dtm.layout().block_slots as u64;
                let n = (self.header.slots - db * ds).min(ds) as usize;
                2 * (n.div_ceil(m.sub_slots()) - 1)
            }
            _ => 0,
        }
    }

    /// The order the slots are stored in (`None`: the index's).
    pub fn order(&self) -> Option<SlotOrder> {
        self.order
    }

    /// Where slot `slot` is stored; also which slot stored position `slot` holds (the map is
    /// its own inverse). The identity unless the file has a slot order of its own.
    #[inline]
    pub fn stored_at(&self, slot: u64) -> u64 {
        self.order.map_or(slot, |o| o.map(slot))
    }

    /// [`CompressedTable::stored_at`], a slot out of range left as it is.
    pub(super) fn place_of(&self, slot: u64) -> u64 {
        if slot < self.header.slots {
            self.stored_at(slot)
        } else {
            slot
        }
    }

    /// [`CompressedTable::stored_at`] for a pass over many slots (a table per class, built
    /// here once).
    pub fn slot_map(&self) -> SlotMap {
        SlotMap::new(self.order)
    }

    /// Win/draw/loss blocks.
    pub fn blocks(&self) -> u64 {
        self.wdl.layout().blocks
    }

    /// Slots a win/draw/loss block covers.
    pub fn block_slots(&self) -> u64 {
        self.wdl.layout().block_slots as u64
    }

    /// The win/draw/loss file's block coder ([`CODER_ZSTD`] or [`CODER_RANS`]).
    pub fn wdl_coder(&self) -> u32 {
        self.wdl.layout().coder
    }

    /// The distance file's block coder ([`CODER_ZSTD`] or [`CODER_DTM_RANS`]; `None` without
    /// distances).
    pub fn distance_coder(&self) -> Option<u32> {
        self.dtm.as_ref().map(|d| d.layout().coder)
    }

    /// Slots a distance block covers (`None` without distances).
    pub fn distance_block_slots(&self) -> Option<u64> {
        self.dtm.as_ref().map(|d| d.layout().block_slots as u64)
    }
}
