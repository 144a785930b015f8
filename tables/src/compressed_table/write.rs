//! Writing a compressed table: the symbols and distances of a raw table coded into the two
//! block files.

use super::*;

/// Compresses a raw table into a win/draw/loss file and, given `dtm`, a distance file (each
/// written atomically).
pub fn compress(raw: &Table, wdl: &Path, dtm: Option<&Path>, p: Params) -> Result<(), TableError> {
    compress_codes(&raw.header, &raw.codes_in_place()?, wdl, dtm, p, None).map(drop)
}

/// A raw table's codes in the order its compressed files store them (position `at` holds slot
/// `map(at)`), read through the slot map rather than copied: the copy, two bytes a slot of
/// fresh memory, took a sixth of the compression's time, most of it the kernel zeroing the
/// pages.
#[derive(Clone, Copy)]
pub(super) struct InFileOrder<'a> {
    pub(super) codes: &'a [u16],
    pub(super) map: &'a SlotMap,
}

impl InFileOrder<'_> {
    pub(super) fn len(&self) -> usize {
        self.codes.len()
    }

    /// The code at position `at`.
    #[inline]
    pub(super) fn at(&self, at: usize) -> u16 {
        self.codes[self.map.map(at as u64) as usize]
    }

    /// The codes at positions `first ..` into `out`.
    pub(super) fn fill(&self, first: usize, out: &mut [u16]) {
        for (x, slot) in out.iter_mut().zip(self.map.from(first as u64)) {
            *x = self.codes[slot as usize];
        }
    }

    /// The symbol of the last position before `at` that holds one (a draw if none).
    pub(super) fn symbol_before(&self, at: usize) -> u8 {
        (0..at)
            .rev()
            .find_map(|t| symbol_of(self.at(t)))
            .unwrap_or(SYM_DRAW)
    }
}

/// [`compress`] from the header and every slot's code of a raw table; gives back the searched
/// wins in the order the files store them when it is another (`None`: the raw table's order,
/// or no searched wins), for the read-back to go through in the files' order.
pub(super) fn compress_codes(
    h: &Header,
    codes: &[u16],
    wdl: &Path,
    dtm: Option<&Path>,
    p: Params,
    searched: Option<&SearchedWins>,
) -> Result<Option<SearchedWins>, TableError> {
    let bad = |m: &str| TableError::Mismatch(wdl.to_path_buf(), m.to_string());
    // The rANS coder's files name their slot order; without one, zstd blocks.
    let p = if p.wdl_sub > 0 && p.order.is_none() {
        Params {
            wdl_sub: 0,
            wdl_block: p.dtm_block,
            ..p
        }
    } else {
        p
    };
    if !p.wdl_block.is_power_of_two() || !p.dtm_block.is_power_of_two() || p.dtm_block > p.wdl_block
    {
        return Err(bad(
            "block sizes must be powers of two, the distance block the smaller",
        ));
    }
    let rans = p.wdl_sub > 0;
    if rans && (!p.wdl_sub.is_power_of_two() || p.wdl_sub < 64 || p.dtm_block < p.wdl_sub) {
        return Err(bad(
            "a sub-block must be a power of two from 64 up to the distance block",
        ));
    }
    if rans && !p.grouped {
        return Err(bad("the rANS coder groups distance entries by sub-block"));
    }
    // The head's counts are u16.
    if rans && p.dtm_block > 1 << 15 {
        return Err(bad(
            "distance blocks of at most 32768 slots under the rANS coder",
        ));
    }
    let n = h.slots as usize;
    if codes.len() != n {
        return Err(bad("codes of another table"));
    }
    // A win of an even number of plies or a loss of an odd one: halves would lose the
    // parity, so distances are stored whole, and no win is left to a search.
    // (A code's low bit is its distance's. Folded with selects, not searched for, so that
    // it vectorises.)
    let parity_broken = |broken: bool, &c: &u16| {
        let kind = c >> 14;
        broken | ((kind == 1 || kind == 2) && (c & 1 == 1) != (kind == 2))
    };
    let p = Params {
        whole_plies: p.whole_plies || codes.iter().fold(false, parity_broken),
        ..p
    };
    let searched = searched.filter(|_| !p.whole_plies);
    if searched.is_some_and(|w| w.bits.len() != n.div_ceil(64)) {
        return Err(bad("searched wins of another table"));
    }
    if p.order.is_some() && dtm.is_some() && !p.grouped {
        return Err(bad("a slot order needs grouped distance entries"));
    }
    // In another slot order, the codes as they will be stored (read through the order's
    // map) and the searched wins reordered (a bit a slot).
    if p.order
        .is_some_and(|o| !(n as u64).is_multiple_of(o.per_class()))
    {
        return Err(bad("a slot order of another table"));
    }
    let m = SlotMap::new(p.order);
    let codes = InFileOrder { codes, map: &m };
    let mut reordered: Option<SearchedWins> = None;
    let searched = match (p.order, searched) {
        (Some(_), Some(w)) => {
            // Whole words of bits a thread.
            let mut bits = vec![0u64; w.bits.len()];
            crate::par::for_each_piece_mut(&mut bits, 1, |start, out| {
                let mut slots = m.from(64 * start as u64);
                for (k, word) in out.iter_mut().enumerate() {
                    let first = 64 * (start + k);
                    for (i, slot) in (&mut slots).take(64.min(n - first)).enumerate() {
                        *word |= (bit(&w.bits, slot as usize) as u64) << i;
                    }
                }
            });
            Some(&*reordered.insert(SearchedWins { bits }))
        }
        (_, w) => w,
    };
    let (syms, decoded) = symbols_counted(codes);
    if rans {
        let (block, sub) = (p.wdl_block as usize, p.wdl_sub as usize);
        let model = if p.mix {
            WdlModel::fit_mix(&syms, block, sub)
        } else {
            WdlModel::fit(&syms, block, sub)
        }
        .map_err(|m| bad(&m))?;
        let parts: Vec<&[u8]> = syms.chunks(p.wdl_block as usize).collect();
        let (body, data_len) = rans_body(&model, &parts).map_err(|m| bad(&m))?;
        let layout = Layout {
            block_slots: p.wdl_block,
            coder: if p.mix { CODER_RANS_MIX } else { CODER_RANS },
            blocks: parts.len() as u64,
            dict_len: model.to_bytes().len() as u64,
            data_len,
        };
        write_body(wdl, h, ENCODING_WDL_ORDERED, decoded, layout, &body, &p)?;
    } else {
        let wdl_blocks: Vec<Vec<u8>> = syms.chunks(p.wdl_block as usize).map(pack).collect();
        let dict = dictionary(&wdl_blocks, ENCODING_WDL, &p);
        write_block_file(
            wdl,
            h,
            ENCODING_WDL,
            decoded,
            p.wdl_block,
            &wdl_blocks,
            &dict,
            &p,
        )?;
    }
    if let Some(dtm) = dtm {
        // The longest win stays stored (so `verify` finds it), and a table whose longest win
        // is 1 ply has nothing to search.
        let searched = searched.filter(|_| h.longest_win > 1);
        let shift = u32::from(!p.whole_plies);
        let longest = (h.longest_win & MAX_DISTANCE) >> shift;
        // The entry of a decided slot that holds a position: `h`; under encodings 7 and 9 a
        // win's is 0 when searched, else h + 1.
        let entry = |s: usize, code: u16| {
            let h = (code & MAX_DISTANCE) >> shift;
            match (searched, syms[s]) {
                (Some(w), SYM_WIN) if h != longest && bit(&w.bits, s) => 0,
                (Some(_), SYM_WIN) => h + 1,
                _ => h,
            }
        };
        // Entries grouped by this many slots (by sub-block under the rANS coder, whose
        // blocks start with the entries before each sub-block but the first).
        let group = if rans {
            p.wdl_sub as usize
        } else {
            p.dtm_block as usize
        };
        // Each distance block's entries by group: the wins', then the losses' (each in slot
        // order; all in slot order when not grouped). The blocks in parallel.
        let starts: Vec<usize> = (0..n).step_by(p.dtm_block as usize).collect();
        let groups: Vec<Vec<Vec<u16>>> = crate::par::map_items(&starts, |&start| {
            let end = (start + p.dtm_block as usize).min(n);
            let mut block = vec![0u16; end - start];
            codes.fill(start, &mut block);
            // A wasted slot decodes as the symbol before it: give it the entry before it
            // too, that of the last decided slot holding a position (looked for before the
            // block only when the block starts with such wasted slots).
            let mut last: Option<u16> = None;
            let mut losses = Vec::new();
            // Each group's entries gathered here, then copied into a vector of their own
            // length: as long as its group, the table's slots would take two bytes each of
            // fresh memory, which the kernel zeroes, however few entries they hold.
            let mut out = Vec::with_capacity(group);
            (start..end)
                .step_by(group)
                .map(|g0| {
                    let g1 = (g0 + group).min(end);
                    out.clear();
                    losses.clear();
                    for s in g0..g1 {
                        if syms[s] == SYM_DRAW {
                            continue;
                        }
                        let code = block[s - start];
                        let e = if code >> 14 != 3 {
                            entry(s, code)
                        } else {
                            *last.get_or_insert_with(|| {
                                (0..start)
                                    .rev()
                                    .find(|&t| syms[t] != SYM_DRAW && codes.at(t) >> 14 != 3)
                                    .map_or(0, |t| entry(t, codes.at(t)))
                            })
                        };
                        last = Some(e);
                        if syms[s] == SYM_WIN || !p.grouped {
                            out.push(e);
                        } else {
                            losses.push(e);
                        }
                    }
                    out.extend_from_slice(&losses);
                    out.to_vec()
                })
                .collect()
        });
        let encoding = match (searched.is_some(), p.grouped, rans) {
            (true, _, true) => ENCODING_DTM_SEARCHED_BY_SUB,
            (false, _, true) => ENCODING_DTM_BY_SUB,
            (true, true, _) => ENCODING_DTM_SEARCHED_GROUPED,
            (false, true, _) => ENCODING_DTM_GROUPED,
            (true, false, _) => ENCODING_DTM_SEARCHED,
            (false, false, _) => ENCODING_DTM,
        };
        if rans && p.dtm_rans {
            let all = groups.iter().flatten().map(|g| &g[..]);
            let model = if p.mix {
                DtmModel::fit_mix(all, p.wdl_sub)
            } else {
                DtmModel::fit(all, p.wdl_sub)
            }
            .map_err(|m| bad(&m))?;
            let (body, data_len) = dtm_rans_body(&model, &groups).map_err(|m| bad(&m))?;
            let layout = Layout {
                block_slots: p.dtm_block,
                coder: if p.mix {
                    CODER_DTM_RANS_MIX
                } else {
                    CODER_DTM_RANS
                },
                blocks: groups.len() as u64,
                dict_len: model.to_bytes().len() as u64,
                data_len,
            };
            write_body(dtm, h, encoding, decoded, layout, &body, &p)?;
            return Ok(reordered);
        }
        // Under the rANS coder, a head: the entries before each sub-block but the first.
        let blocks: Vec<Vec<u8>> = groups
            .iter()
            .map(|gs| {
                let mut out = Vec::new();
                let mut count = 0u16;
                for (j, g) in gs.iter().enumerate() {
                    if rans && j > 0 {
                        out.extend_from_slice(&count.to_le_bytes());
                    }
                    count += g.len() as u16;
                }
                for &e in gs.iter().flatten() {
                    put_distance(&mut out, e);
                }
                out
            })
            .collect();
        let dict = dictionary(&blocks, encoding, &p);
        write_block_file(dtm, h, encoding, decoded, p.dtm_block, &blocks, &dict, &p)?;
    }
    Ok(reordered)
}

/// The symbols of `codes` (a wasted slot repeating the symbol before it, a draw at the start,
/// as [`crate::packed::symbols`] gives them) and the wins and losses among them, in parallel.
pub(super) fn symbols_counted(codes: InFileOrder<'_>) -> (Vec<u8>, Decoded) {
    let mut syms = vec![0u8; codes.len()];
    crate::huge::advise(&syms);
    let wins = std::sync::atomic::AtomicU64::new(0);
    let losses = std::sync::atomic::AtomicU64::new(0);
    crate::par::for_each_piece_mut(&mut syms, 1 << 16, |start, out| {
        // The symbol before the piece: that of the last slot before it holding a position.
        let mut last = codes.symbol_before(start);
        let mut run = vec![0u16; 1 << 12];
        for (k, part) in out.chunks_mut(run.len()).enumerate() {
            let run = &mut run[..part.len()];
            codes.fill(start + (k << 12), run);
            for (s, &c) in part.iter_mut().zip(run.iter()) {
                last = symbol_of(c).unwrap_or(last);
                *s = last;
            }
        }
        let count = |x: u8| out.iter().filter(|&&s| s == x).count() as u64;
        wins.fetch_add(count(SYM_WIN), std::sync::atomic::Ordering::Relaxed);
        losses.fetch_add(count(SYM_LOSS), std::sync::atomic::Ordering::Relaxed);
    });
    let decoded = Decoded {
        wins: wins.into_inner(),
        losses: losses.into_inner(),
    };
    (syms, decoded)
}

/// The dictionary a block file of `encoding` gets: one trained on its blocks when
/// `p.dict_bytes` asks for it; for a win/draw/loss file otherwise, one of `p.wdl_dict_bytes`
/// made from a sample of its blocks when a sample of blocks says the file comes out smaller
/// with it; else none (empty).
pub(super) fn dictionary(blocks: &[Vec<u8>], encoding: u32, p: &Params) -> Vec<u8> {
    if p.dict_bytes > 0 {
        return train_dictionary(blocks, p.dict_bytes as usize);
    }
    if encoding == ENCODING_WDL && p.wdl_dict_bytes > 0 {
        let tried = finalize_dictionary(blocks, p.wdl_dict_bytes as usize, p.level);
        if !tried.is_empty() && smaller_with(blocks, &tried, p.level) {
            return tried;
        }
    }
    Vec::new()
}

/// Writes a block file of `blocks` compressed with `dict` (see [`dictionary`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn write_block_file(
    path: &Path,
    h: &Header,
    encoding: u32,
    decoded: Decoded,
    block_slots: u32,
    blocks: &[Vec<u8>],
    dict: &[u8],
    p: &Params,
) -> Result<(), TableError> {
    // Slots in an order of their own: an encoding of its own, which older readers refuse
    // (known before any block is compressed).
    let encoding = match p.order {
        Some(_) if unordered_encoding(encoding).1 => encoding,
        Some(_) => ordered_encoding(encoding).ok_or_else(|| {
            TableError::Mismatch(
                path.to_path_buf(),
                "no ordered variant of the encoding".into(),
            )
        })?,
        None => encoding,
    };
    let (body, data_len) =
        crate::par::map_items(&blocks.chunks(256).collect::<Vec<_>>(), |group| {
            build_body(group, dict, p.level)
        })
        .into_iter()
        .collect::<Result<Vec<_>, String>>()
        .map(|parts| join_bodies(dict, parts, blocks.len()))
        .map_err(|m| TableError::Io(path.to_path_buf(), std::io::Error::other(m)))?;
    let layout = Layout {
        block_slots,
        coder: CODER_ZSTD,
        blocks: blocks.len() as u64,
        dict_len: dict.len() as u64,
        data_len,
    };
    write_body(path, h, encoding, decoded, layout, &body, p)
}

/// Writes a block file: the header (`encoding`, `layout`, the decoded counts, `p`'s slot
/// order) and `body` (dictionary or model, index, data).
pub(super) fn write_body(
    path: &Path,
    h: &Header,
    encoding: u32,
    decoded: Decoded,
    layout: Layout,
    body: &[u8],
    p: &Params,
) -> Result<(), TableError> {
    let mut head = h.encode_as(encoding);
    layout.encode(&mut head);
    put_decoded(&mut head, decoded);
    if let Some(o) = p.order {
        o.encode(&mut head);
    }
    if p.whole_plies {
        head[123] = crate::slot_order::PLIES_WHOLE;
    }
    write_atomic(path, &head, body.len() as u64, |w| w.put(body))
}

/// Whether `blocks` compress smaller with `dict` (its own bytes counted) than without, judged
/// on a sample of about 1,024 blocks spread over them (each compressed both ways), so that
/// trying a dictionary costs a small part of compressing the file.
pub(super) fn smaller_with(blocks: &[Vec<u8>], dict: &[u8], level: i32) -> bool {
    let step = (blocks.len() / 1024).max(1);
    let sample: Vec<Vec<u8>> = blocks.iter().step_by(step).cloned().collect();
    let size = |d: &[u8]| build_body(&sample, d, level).map(|(_, len)| len);
    match (size(&[]), size(dict)) {
        (Ok(without), Ok(with)) => {
            // The sample stands for `step` times as many blocks.
            with.saturating_mul(step as u64) + (dict.len() as u64)
                < without.saturating_mul(step as u64)
        }
        _ => false,
    }
}

/// Joins the dictionary and the bodies built for consecutive groups of blocks (each an index
/// and data) into one: the dictionary, one index with offsets running on, then all data.
pub(super) fn join_bodies(
    dict: &[u8],
    parts: Vec<(Vec<u8>, u64)>,
    blocks: usize,
) -> (Vec<u8>, u64) {
    let mut index = dict.to_vec();
    index.reserve(8 * (blocks + 1));
    let mut data = Vec::new();
    index.extend_from_slice(&0u64.to_le_bytes());
    for (body, len) in parts {
        let k = (body.len() - len as usize) / 8 - 1; // blocks in this part
        let base = data.len() as u64;
        for j in 1..=k {
            let o = u64::from_le_bytes(body[8 * j..8 * j + 8].try_into().expect("8 bytes"));
            index.extend_from_slice(&(base + o).to_le_bytes());
        }
        data.extend_from_slice(&body[8 * (k + 1)..]);
    }
    let len = data.len() as u64;
    index.extend_from_slice(&data);
    (index, len)
}
