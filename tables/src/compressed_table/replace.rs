//! Replacing a raw table by its compressed files, and writing a compressed table's files again
//! (each checked against the table before it replaces the old one).

use super::*;

/// What replacing a raw table by a compressed one left: the bytes of each file.
#[derive(Clone, Copy, Debug)]
pub struct Replaced {
    /// The raw table's bytes (removed).
    pub raw_bytes: u64,
    /// The win/draw/loss file's.
    pub wdl_bytes: u64,
    /// The distance file's (0 without distances).
    pub dtm_bytes: u64,
    /// Wins in the table.
    pub wins: u64,
    /// Wins whose distance is left to a search (encodings 7 and 9; 0 otherwise).
    pub searched_wins: u64,
}

/// Replaces the raw table at `raw_path` by compressed files beside it: verifies the raw table
/// whole when `check_raw`, compresses it (without distances when `wdl_only`; leaving the
/// distances of `searched` wins to a search), decodes every slot of the compressed files and
/// compares it with the raw table, and only then removes the raw file. On any error the raw
/// table is left in place.
///
/// # Safety
///
/// As [`Table::open`]: nothing may modify the files in place meanwhile (the folder's lock).
pub unsafe fn replace_raw(
    raw_path: &Path,
    p: Params,
    wdl_only: bool,
    check_raw: bool,
    searched: Option<&SearchedWins>,
) -> Result<Replaced, TableError> {
    let [_, wdl, dtm] = crate::location::table_files(raw_path);
    let len = |f: &Path| std::fs::metadata(f).map_or(0, |m| m.len());
    let raw_bytes = len(raw_path);
    // SAFETY: the caller's promise, passed on.
    let raw = unsafe { Table::open(raw_path) }?;
    if check_raw {
        raw.verify()?;
    }
    let dtm_out = (!wdl_only).then_some(dtm.as_path());
    let codes = raw.codes_in_place()?;
    let reordered = compress_codes(&raw.header, &codes, &wdl, dtm_out, p, searched)?;
    if wdl_only {
        let _ = std::fs::remove_file(&dtm);
    }
    // SAFETY: as above; the files were just renamed into place.
    let c = unsafe { CompressedTable::open(&wdl, dtm_out) }?;
    // Read back in the files' order, each value against the code stored at its position
    // (the raw table's, moved there).
    let map = c.slot_map();
    let stored = InFileOrder {
        codes: &codes,
        map: &map,
    };
    let searched = reordered.as_ref().or(searched).filter(|_| c.searches_wins);
    let distances = c.has_distances();
    // Each block's values against the codes at their positions; the wins the file leaves to
    // a search, as decoded (positions only), counted.
    let searched_wins = c.verify_stored_blocks(|first, got| {
        let mut want = vec![0u16; got.len().min(stored.len().saturating_sub(first as usize))];
        stored.fill(first as usize, &mut want);
        // The common case, every value with its distance as the raw table has it, at once
        // (no win is in 0 plies: a block with a searched win's `Win(0)` never passes here).
        if distances && want == got {
            return Ok(0);
        }
        let mut found = 0;
        for (j, &code) in got.iter().enumerate() {
            if distances && want.get(j) == Some(&code) && code != win(0) {
                continue;
            }
            let at = first + j as u64;
            let got = decoded_value(code);
            same_value(want.get(j).copied(), distances, searched, at, got).map_err(|m| {
                TableError::Corrupt(raw_path.to_path_buf(), format!("slot {}: {m}", map.map(at)))
            })?;
            if searched.is_some()
                && got == Value::Win(0)
                && want.get(j).and_then(|&c| Value::decode(c)).is_some()
            {
                found += 1;
            }
        }
        Ok(found)
    })?;
    drop(reordered);
    drop(codes);
    drop(raw);
    std::fs::remove_file(raw_path).map_err(|e| TableError::Io(raw_path.to_path_buf(), e))?;
    if let Some(dir) = raw_path.parent() {
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(Replaced {
        raw_bytes,
        wdl_bytes: len(&wdl),
        dtm_bytes: if wdl_only { 0 } else { len(&dtm) },
        wins: c.header.wins,
        searched_wins,
    })
}

/// Checks that the position `at` of a compressed table, if it holds a position, decodes to the
/// raw table's value (`want`, the raw code stored there; `searched` in the files' order; only
/// its win/draw/loss without distances; a searched win, `Win(0)`, only where `searched` has
/// it).
pub(super) fn same_value(
    want: Option<u16>,
    distances: bool,
    searched: Option<&SearchedWins>,
    at: u64,
    got: Value,
) -> Result<(), String> {
    let Some(want) = want.and_then(Value::decode) else {
        return Ok(());
    };
    let same = if got == Value::Win(0) && distances {
        searched.is_some_and(|w| w.has(at) && want.wdl() == got.wdl())
    } else if distances {
        got == want
    } else {
        std::mem::discriminant(&got) == std::mem::discriminant(&want)
    };
    if !same {
        return Err(format!(
            "the compressed table gives {got:?}, the raw one {want:?} (raw table kept)"
        ));
    }
    Ok(())
}

impl CompressedTable {
    /// Writes the distance file again with each block's entries grouped (encoding 8, or 9 for
    /// searched wins) if it is of the older layout (5 or 7), at zstd `level`; whether it did.
    /// The new file is written beside, every block of it compared with this table's before it
    /// replaces the old one (by rename). Check the table whole first: this trusts its values.
    pub fn regroup_distances(&self, level: i32) -> Result<bool, TableError> {
        let Some(dtm) = &self.dtm else {
            return Ok(false);
        };
        if self.grouped {
            return Ok(false);
        }
        let path = dtm.mapped().path().to_path_buf();
        let ds = dtm.layout().block_slots as usize;
        let mut blocks = Vec::new();
        for b in 0..self.blocks() {
            let values = self.block_values(b)?;
            for part in values.chunks(ds) {
                let (mut wins, mut losses) = (Vec::new(), Vec::new());
                let sh = u32::from(!self.whole);
                for v in part {
                    match *v {
                        Value::Win(d) if self.searches_wins => {
                            put_distance(&mut wins, if d == 0 { 0 } else { (d >> sh) + 1 })
                        }
                        Value::Win(d) => put_distance(&mut wins, d >> sh),
                        Value::Loss(d) => put_distance(&mut losses, d >> sh),
                        Value::Draw => {}
                    }
                }
                wins.extend_from_slice(&losses);
                blocks.push(wins);
            }
        }
        let encoding = if self.searches_wins {
            ENCODING_DTM_SEARCHED_GROUPED
        } else {
            ENCODING_DTM_GROUPED
        };
        let p = Params {
            level,
            order: self.order,
            whole_plies: self.whole,
            ..Params::default()
        };
        let dict = dictionary(&blocks, encoding, &p);
        self.replace_checked(&path, |tmp| {
            write_block_file(
                tmp,
                &self.header,
                encoding,
                self.decoded,
                ds as u32,
                &blocks,
                &dict,
                &p,
            )?;
            // SAFETY: the file was just written by this process and is not changed meanwhile.
            unsafe { CompressedTable::open(self.wdl.mapped().path(), Some(tmp)) }.map(Some)
        })
    }

    /// Writes the win/draw/loss file again with a dictionary (see [`Params::wdl_dict_bytes`])
    /// if it has none and comes out smaller with one, at zstd `level`; whether it did. The new
    /// file is written beside, every block of it compared with this table's before it replaces
    /// the old one (by rename). Check the table whole first: this trusts its values.
    pub fn add_wdl_dictionary(&self, level: i32) -> Result<bool, TableError> {
        if self.wdl.layout().dict_len > 0 {
            return Ok(false);
        }
        let path = self.wdl.mapped().path().to_path_buf();
        let blocks = (0..self.blocks())
            .map(|b| self.wdl.with_block(b, |p| Ok(p.to_vec())))
            .collect::<Result<Vec<_>, _>>()?;
        let p = Params {
            level,
            order: self.order,
            whole_plies: self.whole,
            ..Params::default()
        };
        let dict = dictionary(&blocks, ENCODING_WDL, &p);
        if dict.is_empty() {
            return Ok(false);
        }
        let s = self.block_slots() as u32;
        let size = |l: &Layout| l.dict_len + 8 * (l.blocks + 1) + l.data_len;
        let old = size(self.wdl.layout());
        self.replace_checked(&path, |tmp| {
            let (h, d) = (&self.header, self.decoded);
            write_block_file(tmp, h, ENCODING_WDL, d, s, &blocks, &dict, &p)?;
            // SAFETY: the file was just written by this process and is not changed meanwhile.
            let new = unsafe { CompressedTable::open(tmp, None) }?;
            // The sample judged it smaller; the whole file may still not be: keep the old.
            if size(new.wdl.layout()) >= old {
                return Ok(None);
            }
            match &self.dtm {
                // SAFETY: as above; the distance file is this table's, unchanged.
                Some(d) => unsafe { CompressedTable::open(tmp, Some(d.mapped().path())) }.map(Some),
                None => Ok(Some(new)),
            }
        })
    }

    /// Replaces file `path` of this table by the one `write` writes beside it (and opens as
    /// the table it becomes, or `None`: keep the old one): checked whole, every block compared
    /// with this table's, then renamed over it; whether it did. On any error, or `None`, the
    /// new file is removed and the old one kept.
    pub(super) fn replace_checked(
        &self,
        path: &Path,
        write: impl FnOnce(&Path) -> Result<Option<CompressedTable>, TableError>,
    ) -> Result<bool, TableError> {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(".regroup.tmp");
        let tmp = path.with_file_name(name);
        let written = (|| {
            let Some(new) = write(&tmp)? else {
                return Ok(false);
            };
            new.verify()?;
            for b in 0..self.blocks() {
                if new.block_values(b)? != self.block_values(b)? {
                    return Err(TableError::Corrupt(
                        tmp.clone(),
                        format!("block {b} rewritten does not decode to the same values"),
                    ));
                }
            }
            Ok(true)
        })();
        if !matches!(written, Ok(true)) {
            let _ = std::fs::remove_file(&tmp);
            return written;
        }
        std::fs::rename(&tmp, path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            TableError::Io(path.to_path_buf(), e)
        })?;
        if let Some(dir) = path.parent() {
            if let Ok(d) = std::fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(true)
    }
}
