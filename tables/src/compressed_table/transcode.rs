//! A compressed table coded again with the rANS coders' second versions (block coders 4 and
//! 5): the same symbols and distance entries in the same slot order, only the coding changes,
//! so no raw working copy and no search of wins is needed. What `retro verify --upgrade` does
//! to tables of coders 2 and 3.

use super::*;

impl CompressedTable {
    /// Whether [`CompressedTable::transcode`] applies: the win/draw/loss file is rANS coded
    /// (coder 2 or 4) and the distance file, if any, too (coder 3 or 5).
    pub fn transcodable(&self) -> bool {
        self.wdl.model().is_some() && self.dtm.as_ref().is_none_or(|d| d.dtm_model().is_some())
    }

    /// Whether the files are of coders 4 and 5 already.
    pub fn is_mix(&self) -> bool {
        self.wdl.model().is_some_and(|m| m.is_mix())
            && self
                .dtm
                .as_ref()
                .is_none_or(|d| d.dtm_model().is_some_and(|m| m.is_mix()))
    }

    /// Writes the table again with coders 4 and 5 to `wdl` and, if it has distances, `dtm`
    /// (each written atomically; other paths than its own): every block decoded (its streams
    /// checked to their ends), the symbols and entries coded again, the new files read back
    /// and compared with these block by block. Errors for a table
    /// [`CompressedTable::transcodable`] refuses.
    pub fn transcode(&self, wdl: &Path, dtm: Option<&Path>) -> Result<(), TableError> {
        let model = self
            .wdl
            .model()
            .filter(|_| self.transcodable())
            .ok_or_else(|| self.corrupt_wdl("not of the rANS coders: no transcoding".into()))?;
        let (block, sub) = (self.block_slots() as usize, model.sub_slots());
        let syms = self.all_symbols()?;
        let mut p = Params {
            wdl_block: block as u32,
            wdl_sub: sub as u32,
            order: self.order,
            whole_plies: self.whole,
            dtm_rans: true,
            mix: true,
            ..Params::default()
        };
        let bad = |m: String| TableError::Corrupt(wdl.to_path_buf(), m);
        let fitted = WdlModel::fit_mix(&syms, block, sub).map_err(bad)?;
        let parts: Vec<&[u8]> = syms.chunks(block).collect();
        let (body, data_len) = rans_body(&fitted, &parts).map_err(bad)?;
        let layout = Layout {
            block_slots: block as u32,
            coder: CODER_RANS_MIX,
            blocks: parts.len() as u64,
            dict_len: fitted.to_bytes().len() as u64,
            data_len,
        };
        write_body(
            wdl,
            &self.header,
            ENCODING_WDL_ORDERED,
            self.decoded,
            layout,
            &body,
            &p,
        )?;
        drop((parts, body));
        let groups = match (&self.dtm, dtm) {
            (Some(file), Some(path)) => {
                let groups = self.all_entries()?;
                let bad = |m: String| TableError::Corrupt(path.to_path_buf(), m);
                let fitted = DtmModel::fit_mix(groups.iter().flatten().map(|g| &g[..]), sub as u32)
                    .map_err(bad)?;
                let (body, data_len) = dtm_rans_body(&fitted, &groups).map_err(bad)?;
                p.dtm_block = file.layout().block_slots;
                let layout = Layout {
                    block_slots: p.dtm_block,
                    coder: CODER_DTM_RANS_MIX,
                    blocks: groups.len() as u64,
                    dict_len: fitted.to_bytes().len() as u64,
                    data_len,
                };
                let encoding = if self.searches_wins {
                    ENCODING_DTM_SEARCHED_BY_SUB
                } else {
                    ENCODING_DTM_BY_SUB
                };
                write_body(
                    path,
                    &self.header,
                    encoding,
                    self.decoded,
                    layout,
                    &body,
                    &p,
                )?;
                Some(groups)
            }
            _ => None,
        };
        // Read back and compared, block by block.
        // SAFETY: the files were just written by this process, and nothing else writes them.
        let new = unsafe { CompressedTable::open(wdl, groups.as_ref().and(dtm)) }?;
        if new.all_symbols()? != syms {
            return Err(bad(
                "its symbols coded again do not decode to themselves".into()
            ));
        }
        if let Some(g) = groups {
            if new.all_entries()? != g {
                return Err(bad(
                    "its distances coded again do not decode to themselves".into()
                ));
            }
        }
        Ok(())
    }

    /// Every slot's symbol, in the stored order, each block decoded whole.
    fn all_symbols(&self) -> Result<Vec<u8>, TableError> {
        let model = self
            .wdl
            .model()
            .ok_or_else(|| self.corrupt_wdl("not of the rANS coder".into()))?;
        let mut syms = Vec::with_capacity(self.header.slots as usize);
        let mut out = Vec::new();
        for b in 0..self.blocks() {
            model
                .decode(self.wdl.block_bytes(b)?, self.wdl.slots_of(b), &mut out)
                .map_err(|m| self.corrupt_wdl(format!("block {b}: {m}")))?;
            syms.extend_from_slice(&out);
        }
        Ok(syms)
    }

    /// Every distance block's entries, by sub-block (its head's counts cutting them).
    fn all_entries(&self) -> Result<Vec<Vec<Vec<u16>>>, TableError> {
        let Some(file) = &self.dtm else {
            return Ok(Vec::new());
        };
        let corrupt = |m: String| TableError::Corrupt(file.mapped().path().to_path_buf(), m);
        let model = file
            .dtm_model()
            .ok_or_else(|| corrupt("not of the rANS coder".into()))?;
        let (mut head, mut entries) = (Vec::new(), Vec::new());
        let mut out = Vec::with_capacity(file.layout().blocks as usize);
        for b in 0..file.layout().blocks {
            let k = file.slots_of(b).div_ceil(model.sub_slots());
            model
                .decode(file.block_bytes(b)?, k, &mut head, &mut entries)
                .map_err(|m| corrupt(format!("block {b}: {m}")))?;
            let mut bounds = vec![0usize];
            bounds.extend(head.iter().map(|&h| h as usize));
            bounds.push(entries.len());
            out.push(
                bounds
                    .windows(2)
                    .map(|w| entries[w[0]..w[1]].to_vec())
                    .collect(),
            );
        }
        Ok(out)
    }
}
