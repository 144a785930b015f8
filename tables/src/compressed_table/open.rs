//! Opening a compressed table's files: headers, layouts and the checks between them.

use super::*;

/// Opens one block file of a compressed table.
///
/// # Safety
///
/// As [`Table::open`].
pub(super) unsafe fn open_part(path: &Path, encodings: &[u32]) -> Result<Part, TableError> {
    let corrupt = |m: String| TableError::Corrupt(path.to_path_buf(), m);
    let mut decoded = None;
    let mut order = None;
    let mut whole = false;
    let mut found = encodings[0];
    // SAFETY: the caller's promise, passed on.
    let (h, layout, m) = unsafe {
        open_mapped(path, |b| {
            // The encoding at offset 20 picks among those allowed; `decode_as` checks it.
            let at = b
                .get(20..24)
                .map(|e| u32::from_le_bytes(e.try_into().expect("4 bytes")));
            found = *encodings
                .iter()
                .find(|&&e| Some(e) == at)
                .unwrap_or(&encodings[0]);
            let h = Header::decode_as(path, b, found)?;
            check_header(path, &h)?;
            let l = Layout::decode(b);
            l.check(h.slots).map_err(corrupt)?;
            // The slot order (bytes 120..128): one this reader knows, or the file is refused
            // rather than read in another order.
            order = SlotOrder::from_header(b, h.slots).map_err(corrupt)?;
            whole = crate::slot_order::whole_plies(b);
            if unordered_encoding(found).1 != order.is_some() {
                return Err(corrupt(format!(
                    "encoding {found} and header bytes 120..128 disagree on the slot order"
                )));
            }
            let d = get_decoded(b);
            let positions = h.wins + h.losses;
            if d.wins
                .checked_add(d.losses)
                .is_none_or(|t| t > h.slots || t < positions)
            {
                return Err(corrupt("decoded counts out of range".into()));
            }
            decoded = Some(d);
            Ok((h, l))
        })
    }?;
    Ok(Part {
        header: h,
        decoded: decoded.expect("set by decode"),
        layout,
        mapped: m,
        encoding: found,
        order,
        whole,
    })
}

impl CompressedTable {
    /// Opens a win/draw/loss file and, given, its distance file (which must describe the same
    /// table). Checks headers and layouts; blocks are checked when first read.
    ///
    /// # Safety
    ///
    /// As [`Table::open`]: nothing may modify or truncate the files in place while the table
    /// lives.
    pub unsafe fn open(wdl: &Path, dtm: Option<&Path>) -> Result<CompressedTable, TableError> {
        // SAFETY: the caller's promise, passed on.
        let Part {
            header,
            decoded,
            layout,
            mapped: m,
            order,
            whole,
            ..
        } = unsafe { open_part(wdl, &[ENCODING_WDL, ENCODING_WDL_ORDERED]) }?;
        let wdl_file = BlockFile::new(
            m,
            layout,
            header.slots,
            (layout.block_slots as usize).div_ceil(4),
        )?;
        if is_dtm_rans(layout.coder) {
            return Err(TableError::Corrupt(
                wdl.to_path_buf(),
                format!("a win/draw/loss file of block coder {}", layout.coder),
            ));
        }
        let sub = wdl_file.model().map(|m| m.sub_slots() as u32);
        if sub.is_some() && order.is_none() {
            return Err(TableError::Corrupt(
                wdl.to_path_buf(),
                "a win/draw/loss file of the rANS coder without a slot order of its own".into(),
            ));
        }
        let (mut searches_wins, mut grouped, mut by_sub) = (false, false, false);
        let dtm = match dtm {
            None => None,
            Some(p) => {
                // SAFETY: as above.
                let encodings = [
                    ENCODING_DTM_GROUPED,
                    ENCODING_DTM_SEARCHED_GROUPED,
                    ENCODING_DTM,
                    ENCODING_DTM_SEARCHED,
                    ENCODING_DTM_GROUPED_ORDERED,
                    ENCODING_DTM_SEARCHED_GROUPED_ORDERED,
                    ENCODING_DTM_BY_SUB,
                    ENCODING_DTM_SEARCHED_BY_SUB,
                ];
                let Part {
                    header: h,
                    decoded: d,
                    layout: l,
                    mapped: m,
                    encoding: e,
                    order: dtm_order,
                    whole: dtm_whole,
                } = unsafe { open_part(p, &encodings) }?;
                let e = unordered_encoding(e).0;
                searches_wins = [
                    ENCODING_DTM_SEARCHED,
                    ENCODING_DTM_SEARCHED_GROUPED,
                    ENCODING_DTM_SEARCHED_BY_SUB,
                ]
                .contains(&e);
                by_sub = [ENCODING_DTM_BY_SUB, ENCODING_DTM_SEARCHED_BY_SUB].contains(&e);
                grouped =
                    by_sub || [ENCODING_DTM_GROUPED, ENCODING_DTM_SEARCHED_GROUPED].contains(&e);
                // Entries by sub-block go with the rANS coder's sub-blocks, and only with them.
                // Coder 3 only there (with the same sub-blocks, checked below).
                if by_sub != sub.is_some()
                    || sub.is_some_and(|m| l.block_slots % m != 0 || l.block_slots > 1 << 15)
                    || (is_dtm_rans(l.coder) && !by_sub)
                    || is_wdl_rans(l.coder)
                {
                    return Err(TableError::Corrupt(
                        p.to_path_buf(),
                        format!(
                            "distance encoding {e} beside a win/draw/loss file of block coder {}",
                            layout.coder
                        ),
                    ));
                }
                if h != header || d != decoded || dtm_order != order || dtm_whole != whole {
                    return Err(TableError::Mismatch(
                        p.to_path_buf(),
                        format!("distances of another table than {}", wdl.display()),
                    ));
                }
                if l.block_slots > layout.block_slots {
                    return Err(TableError::Corrupt(
                        p.to_path_buf(),
                        "distance blocks larger than the win/draw/loss blocks".into(),
                    ));
                }
                // Entries of up to 3 bytes, and a head of 2 bytes a sub-block (64 slots or more).
                let file = BlockFile::new(m, l, header.slots, 4 * l.block_slots as usize)?;
                if file
                    .dtm_model()
                    .is_some_and(|d| Some(d.sub_slots() as u32) != sub)
                {
                    return Err(TableError::Corrupt(
                        p.to_path_buf(),
                        "a distance model of other sub-blocks than the win/draw/loss file's".into(),
                    ));
                }
                Some(file)
            }
        };
        Ok(CompressedTable {
            header,
            decoded,
            wdl: wdl_file,
            dtm,
            searches_wins,
            grouped,
            order,
            by_sub,
            whole,
        })
    }
}
