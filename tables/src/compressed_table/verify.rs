//! Checking a compressed table: checksums, and every block decoded against the header.

use super::*;

impl CompressedTable {
    /// The mapped win/draw/loss file and, if opened with it, the distance file.
    pub fn mapped(&self) -> (&crate::mapped::Mapped, Option<&crate::mapped::Mapped>) {
        (self.wdl.mapped(), self.dtm.as_ref().map(|d| d.mapped()))
    }

    /// Checks both files' checksums: every block's and each file's whole.
    pub fn check_sums(&self) -> Result<(), TableError> {
        self.wdl.mapped().check_all(&|_, _| Ok(()))?;
        if let Some(dtm) = &self.dtm {
            dtm.mapped().check_all(&|_, _| Ok(()))?;
        }
        Ok(())
    }

    /// Checks both files whole: every block's checksum, every block decodes to what its slots
    /// need ([`CompressedTable::block_values`]), the decoded counts, and the longest distances
    /// found equal the header's.
    pub fn verify(&self) -> Result<(), TableError> {
        self.verify_with(|_, _| Ok(()))
    }

    /// [`CompressedTable::verify`], handing every slot's decoded value to `each` on the way
    /// (one decoding pass for a check against another copy).
    pub fn verify_with(
        &self,
        each: impl Fn(u64, Value) -> Result<(), TableError> + Sync,
    ) -> Result<(), TableError> {
        let map = self.slot_map();
        self.verify_stored_blocks(|first, codes| {
            for (&c, slot) in codes.iter().zip(map.from(first)) {
                each(slot, decoded_value(c))?;
            }
            Ok(0)
        })
        .map(|_| ())
    }

    /// [`CompressedTable::verify`], handing each block's decoded value codes (as
    /// [`CompressedTable::block_codes_into`] gives them) to `each` with the position of the
    /// first in the files (see [`CompressedTable::symbol_stored`]); the numbers `each`
    /// returns are summed.
    pub fn verify_stored_blocks(
        &self,
        each: impl Fn(u64, &[u16]) -> Result<u64, TableError> + Sync,
    ) -> Result<u64, TableError> {
        self.check_sums()?;
        // Groups of blocks decoded in parallel: (wins, losses, longest win, longest loss, sum).
        let firsts: Vec<u64> = (0..self.blocks()).step_by(64).collect();
        let parts = crate::par::map_items(&firsts, |&first| {
            let (mut wins, mut losses, mut lw, mut ll, mut sum) = (0u64, 0u64, 0u16, 0u16, 0u64);
            let (mut codes, mut scratch) = (Vec::new(), BlockScratch::default());
            for b in first..(first + 64).min(self.blocks()) {
                self.block_codes_into(b, &mut codes, &mut scratch)?;
                sum += each(b * self.block_slots(), &codes)?;
                // Counted with selects, not branches (the kinds come in no order).
                for &c in &codes {
                    let (kind, d) = (c >> 14, c & MAX_DISTANCE);
                    wins += u64::from(kind == 2);
                    losses += u64::from(kind == 1);
                    lw = lw.max(if kind == 2 { d } else { 0 });
                    ll = ll.max(if kind == 1 { d } else { 0 });
                }
            }
            Ok::<_, TableError>((wins, losses, lw, ll, sum))
        });
        let (mut wins, mut losses, mut lw, mut ll, mut sum) = (0u64, 0u64, 0u16, 0u16, 0u64);
        for part in parts {
            let (w, l, a, b, n) = part?;
            (wins, losses, lw, ll, sum) = (wins + w, losses + l, lw.max(a), ll.max(b), sum + n);
        }
        let found = Decoded { wins, losses };
        if found != self.decoded {
            return Err(self.corrupt_wdl(format!(
                "{wins} wins and {losses} losses decoded, the header says {} and {}",
                self.decoded.wins, self.decoded.losses
            )));
        }
        if let Some(dtm) = &self.dtm {
            if (lw, ll) != (self.header.longest_win, self.header.longest_loss) {
                return Err(TableError::Corrupt(
                    dtm.mapped().path().to_path_buf(),
                    format!(
                        "longest win {lw} and loss {ll} stored, the header says {} and {}",
                        self.header.longest_win, self.header.longest_loss
                    ),
                ));
            }
        }
        Ok(sum)
    }
}
