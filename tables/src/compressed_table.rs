//! Compressed sector tables: a win/draw/loss file (`.rtbw`) a user can keep alone, and a
//! distance file (`.rtbd`) beside it, both block files ([`crate::block_file`]). Block `i` of
//! the win/draw/loss file holds slots `S i .. S (i + 1)` packed 2 bits a slot; the distance
//! file's blocks cover slot ranges of their own size (a divisor of `S`) and hold the distances
//! of the range's decided slots, in slot order ([`crate::packed`]). Wasted slots are "don't
//! care": they repeat the symbol (and distance) before them. A distance file of encoding 7 or 9
//! leaves the distances of chosen wins to a one-ply search: their entries are 0. Encodings 8
//! and 9 (what is written) group each block's entries, the wins' before the losses'; 5 and 7
//! keep them in slot order.

use crate::block_file::{
    build_body, dtm_rans_body, finalize_dictionary, is_dtm_rans, is_wdl_rans, open_mapped,
    rans_body, train_dictionary, BlockFile, Layout, CODER_DTM_RANS, CODER_DTM_RANS_MIX, CODER_RANS,
    CODER_RANS_MIX, CODER_ZSTD,
};
use crate::dtm_rans::DtmModel;
use crate::format::{
    ordered_encoding, unordered_encoding, write_atomic, TableError, ENCODING_DTM,
    ENCODING_DTM_BY_SUB, ENCODING_DTM_GROUPED, ENCODING_DTM_GROUPED_ORDERED, ENCODING_DTM_SEARCHED,
    ENCODING_DTM_SEARCHED_BY_SUB, ENCODING_DTM_SEARCHED_GROUPED,
    ENCODING_DTM_SEARCHED_GROUPED_ORDERED, ENCODING_WDL, ENCODING_WDL_ORDERED, HEADER_SIZE,
};
use crate::packed::{
    decided_between, distance_at, distances, losses_between, pack, put_distance, symbol_of,
    unpack_at, wins_between, SYM_DRAW, SYM_LOSS, SYM_WIN,
};
use crate::sector_table::{check_header, Header, Table};
use crate::slot_order::{SlotMap, SlotOrder};
use crate::sub_cache;
use crate::value::{loss, win, Stored, Value, DRAW, MAX_DISTANCE};
use crate::wdl_rans::{WdlCursor, WdlModel};
use std::path::Path;

mod transcode;

/// How to compress a table.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Slots a win/draw/loss block covers.
    pub wdl_block: u32,
    /// Slots a distance block covers (divides `wdl_block`).
    pub dtm_block: u32,
    /// zstd level.
    pub level: i32,
    /// Bytes of the dictionary trained per file (0: none).
    pub dict_bytes: u32,
    /// Bytes of a dictionary tried for the win/draw/loss file when `dict_bytes` is 0: made
    /// from a sample of its blocks ([`finalize_dictionary`]) and kept when the file comes out
    /// smaller with it (0: none tried). Its
    /// entropy tables serve every block that reuses them, so those blocks also decode faster.
    pub wdl_dict_bytes: u32,
    /// Group each distance block's entries, wins' then losses' (encodings 8 and 9; `false`
    /// writes the older layout, encodings 5 and 7, as earlier versions did).
    pub grouped: bool,
    /// Store the slots in this order instead of the index's ([`SlotOrder`]; header byte 120).
    pub order: Option<SlotOrder>,
    /// Slots of a sub-block of the win/draw/loss file's rANS coder ([`crate::wdl_rans`];
    /// a power of two from 64 dividing both block sizes), whose distance file groups its
    /// entries by those sub-blocks (encodings 13 and 14); 0 for zstd blocks and the grouping
    /// of encodings 8 and 9. Without a slot order of its own (`order`), zstd blocks of
    /// `dtm_block` slots are written instead.
    pub wdl_sub: u32,
    /// With `wdl_sub`: code the distance blocks by rANS too ([`crate::dtm_rans`], block coder
    /// 3), each sub-block's entries a stream of their own; else zstd.
    pub dtm_rans: bool,
    /// With `wdl_sub`: the rANS coders' second versions (block coders 4 and 5: a mixture of
    /// models, streams from the state 0; [`crate::mixture`]); else coders 2 and 3.
    pub mix: bool,
    /// Store distances in whole plies rather than halves (header byte 123,
    /// [`crate::slot_order::PLIES_WHOLE`]). The compressor sets it itself for a table with a
    /// win of an even number of plies or a loss of an odd one (rules where a side moves twice
    /// in a row), whose halves would lose the parity; such a table searches no wins.
    pub whole_plies: bool,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            wdl_block: 1 << 14,
            dtm_block: 1 << 12,
            level: 12,
            dict_bytes: 0,
            wdl_dict_bytes: WDL_DICT_BYTES,
            grouped: true,
            order: None,
            wdl_sub: WDL_SUB_SLOTS,
            dtm_rans: true,
            mix: true,
            whole_plies: false,
        }
    }
}

/// Slots of a sub-block of the win/draw/loss coder (a probe decodes half of one on average).
/// Measured on nine-mens-morris tables against zstd on 4096-slot blocks: 7-60% smaller,
/// a probe's decoding 2-3 times faster; 1024 is 4-12% smaller still and decodes as slowly as
/// zstd (`databases/README.md`).
pub const WDL_SUB_SLOTS: u32 = 512;

/// The dictionary tried for win/draw/loss files ([`finalize_dictionary`]). Measured on
/// nine-mens-morris tables (zstd 12, 4096-slot blocks): it makes mixed tables 2.5-7% smaller
/// and their blocks decode about a quarter faster (the entropy tables come with the
/// dictionary); nearly constant tables would lose (its bytes outweigh what it saves), so none
/// is kept there.
pub const WDL_DICT_BYTES: u32 = 2048;

/// Decoded symbol counts: wins and losses among all slots, wasted ones included as they
/// decode (bytes 104 and 112 of both headers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Decoded {
    wins: u64,
    losses: u64,
}

fn put_decoded(b: &mut [u8; HEADER_SIZE], d: Decoded) {
    b[104..112].copy_from_slice(&d.wins.to_le_bytes());
    b[112..120].copy_from_slice(&d.losses.to_le_bytes());
}

fn get_decoded(b: &[u8]) -> Decoded {
    let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
    Decoded {
        wins: u64_at(104),
        losses: u64_at(112),
    }
}

/// Compresses a raw table into a win/draw/loss file and, given `dtm`, a distance file (each
/// written atomically).
pub fn compress(raw: &Table, wdl: &Path, dtm: Option<&Path>, p: Params) -> Result<(), TableError> {
    compress_codes(&raw.header, &raw.codes_in_place()?, wdl, dtm, p, None).map(drop)
}

/// Whether bit `i` of a slot bit set is set.
#[inline]
fn bit(bits: &[u64], i: usize) -> bool {
    bits.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
}

/// Wins whose distance a one-ply search gives: one bit a slot, slot `i` in bit `i % 64` of
/// word `i / 64`. Given to [`replace_raw`], their entries become 0 in a distance file of
/// encoding 7, where every other win's entry is `h + 1` (the longest win's always: `verify`
/// finds it). The caller, which knows the moves, vouches for each: a win whose distance is 1 +
/// the least distance of its moves that lose for the opponent into tables keeping values.
pub struct SearchedWins {
    /// The bits.
    pub bits: Vec<u64>,
}

impl SearchedWins {
    /// Whether slot `i` is one.
    pub fn has(&self, i: u64) -> bool {
        bit(&self.bits, i as usize)
    }
}

/// The number a distance block's head (encodings 13 and 14) gives for sub-block `j` (at least
/// 1): the block's entries before it; `None` when the head is cut short.
fn head_count(bytes: &[u8], j: usize) -> Option<usize> {
    bytes
        .get(2 * (j - 1)..2 * j)
        .map(|h| u16::from_le_bytes([h[0], h[1]]) as usize)
}

/// A raw table's codes in the order its compressed files store them (position `at` holds slot
/// `map(at)`), read through the slot map rather than copied: the copy, two bytes a slot of
/// fresh memory, took a sixth of the compression's time, most of it the kernel zeroing the
/// pages.
#[derive(Clone, Copy)]
struct InFileOrder<'a> {
    codes: &'a [u16],
    map: &'a SlotMap,
}

impl InFileOrder<'_> {
    fn len(&self) -> usize {
        self.codes.len()
    }

    /// The code at position `at`.
    #[inline]
    fn at(&self, at: usize) -> u16 {
        self.codes[self.map.map(at as u64) as usize]
    }

    /// The codes at positions `first ..` into `out`.
    fn fill(&self, first: usize, out: &mut [u16]) {
        for (x, slot) in out.iter_mut().zip(self.map.from(first as u64)) {
            *x = self.codes[slot as usize];
        }
    }

    /// The symbol of the last position before `at` that holds one (a draw if none).
    fn symbol_before(&self, at: usize) -> u8 {
        (0..at)
            .rev()
            .find_map(|t| symbol_of(self.at(t)))
            .unwrap_or(SYM_DRAW)
    }
}

/// [`compress`] from the header and every slot's code of a raw table; gives back the searched
/// wins in the order the files store them when it is another (`None`: the raw table's order,
/// or no searched wins), for the read-back to go through in the files' order.
fn compress_codes(
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
fn symbols_counted(codes: InFileOrder<'_>) -> (Vec<u8>, Decoded) {
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
fn dictionary(blocks: &[Vec<u8>], encoding: u32, p: &Params) -> Vec<u8> {
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
fn write_block_file(
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
fn write_body(
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
fn smaller_with(blocks: &[Vec<u8>], dict: &[u8], level: i32) -> bool {
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
fn join_bodies(dict: &[u8], parts: Vec<(Vec<u8>, u64)>, blocks: usize) -> (Vec<u8>, u64) {
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
    let [_, wdl, dtm] = crate::any_table::table_files(raw_path);
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
fn same_value(
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

/// An open compressed table: the header, the win/draw/loss file and perhaps the distances.
pub struct CompressedTable {
    /// The header (of the raw table it was made from).
    pub header: Header,
    decoded: Decoded,
    wdl: BlockFile,
    dtm: Option<BlockFile>,
    /// The distance file is of encoding 7 or 9: a win's entry 0 is searched.
    searches_wins: bool,
    /// The distance file is of encoding 8 or 9: a block's wins' entries come first, then its
    /// losses'.
    grouped: bool,
    /// The order the slots are stored in (`None`: the index's).
    order: Option<SlotOrder>,
    /// The distance file is of encoding 13 or 14 (beside a win/draw/loss file of the rANS
    /// coder): a block's entries grouped by sub-block after a head of entry counts.
    by_sub: bool,
    /// Distances stored in whole plies, not halves (header byte 123).
    whole: bool,
}

/// One block file of a compressed table, opened: its header, decoded counts, layout, mapped
/// bytes, encoding and slot order.
struct Part {
    header: Header,
    decoded: Decoded,
    layout: Layout,
    mapped: crate::mapped::Mapped,
    encoding: u32,
    order: Option<SlotOrder>,
    /// Distances in whole plies (header byte 123).
    whole: bool,
}

/// Opens one block file of a compressed table.
///
/// # Safety
///
/// As [`Table::open`].
unsafe fn open_part(path: &Path, encodings: &[u32]) -> Result<Part, TableError> {
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

    fn corrupt_wdl(&self, m: String) -> TableError {
        TableError::Corrupt(self.wdl.mapped().path().to_path_buf(), m)
    }

    /// Checks that win/draw/loss block `b` decoded to the bytes its slots need.
    fn check_len(&self, b: u64, packed: &[u8]) -> Result<(), TableError> {
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
    fn decided(&self, sym: u8, half: u16, at: impl Fn() -> String) -> Result<Value, TableError> {
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
    fn zstd_entry(&self, dtm: &BlockFile, db: u64, rank: usize) -> Result<u16, TableError> {
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
    fn wdl_up_to(
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
    fn stored(&self, sym: u8, entry: u16, slot: u64) -> Result<Option<Stored>, TableError> {
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
    fn probe_by_sub(&self, slot: u64, dtm: &BlockFile) -> Result<(u8, u16), TableError> {
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
    fn head_len(&self, db: u64) -> usize {
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
    fn place_of(&self, slot: u64) -> u64 {
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
    fn packed_block_codes(&self, b: u64) -> Result<Vec<u16>, TableError> {
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
    fn rans_block_codes(
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
    fn sub_block_codes(
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
    fn group_codes(
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
    fn replace_checked(
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

/// The value of a code [`CompressedTable::block_codes_into`] decoded: a draw, a win or a
/// loss (it never gives the wasted-slot code: distances are checked against the header's
/// longest, at most [`crate::value::MAX_STORED_DISTANCE`]).
fn decoded_value(code: u16) -> Value {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::any_table::{AnyTable, Place};
    use crate::format::GAME_MILL;
    use crate::sector_key::SectorKey;
    use crate::value::Wdl;

    fn raw_codes(n: usize) -> Vec<u16> {
        let mut x = 0x1234_5678_9abc_def1u64;
        let mut cur = 0u16;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Runs, as real tables have.
                if x.is_multiple_of(7) {
                    cur = match x >> 60 {
                        0..=3 => 0,
                        4..=8 => 0x4000 | (2 * ((x >> 20) % 300) as u16),
                        9..=13 => 0x8000 | (2 * ((x >> 20) % 300) + 1) as u16,
                        _ => 0xC000,
                    };
                }
                cur
            })
            .collect()
    }

    /// `n` slots of [`raw_codes`] as a 3v3 table, with every `every`-th slot's win searched.
    fn with_searched_wins(n: usize, every: usize) -> (Vec<u16>, Header, SearchedWins) {
        let codes = raw_codes(n);
        let key = SectorKey {
            w: 3,
            b: 3,
            wf: 0,
            bf: 0,
        };
        let h = Header::from_values(GAME_MILL, "fp", key, &codes);
        let mut bits = vec![0u64; codes.len().div_ceil(64)];
        for (s, &c) in codes.iter().enumerate() {
            if matches!(Value::decode(c), Some(Value::Win(_))) && s % every == 0 {
                bits[s / 64] |= 1 << (s % 64);
            }
        }
        (codes, h, SearchedWins { bits })
    }

    #[test]
    fn searched_wins_decode_as_searched_and_the_rest_as_raw() {
        let dir = std::env::temp_dir().join(format!("retro-searched-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Every third win is searched (bits the writer's caller would vouch for).
        // 417 classes of C(10, 3) = 120 slots, for the reflected order.
        let (codes, h, searched) = with_searched_wins(50_040, 3);
        // Grouped entries (encoding 9), the older layout (7), grouped in another order (12),
        // and by sub-block beside the rANS coder (14).
        let reflected = SlotOrder::reflected(10, 3);
        for (grouped, order, wdl_sub) in [
            (true, None, 0),
            (false, None, 0),
            (true, reflected, 0),
            (true, reflected, WDL_SUB_SLOTS),
        ] {
            let (w, d) = (dir.join("s.rtbw"), dir.join("s.rtbd"));
            let p = Params {
                grouped,
                order,
                wdl_sub,
                ..Params::default()
            };
            compress_codes(&h, &codes, &w, Some(&d), p, Some(&searched)).unwrap();
            // SAFETY: test files are rewritten whole, never changed in place while mapped.
            let t = unsafe { CompressedTable::open(&w, Some(&d)) }.unwrap();
            assert!(t.searches_wins());
            let encoding = |f: &Path| {
                u32::from_le_bytes(std::fs::read(f).unwrap()[20..24].try_into().unwrap())
            };
            assert_eq!(
                encoding(&d),
                match (grouped, order, wdl_sub) {
                    (true, Some(_), 0) => ENCODING_DTM_SEARCHED_GROUPED_ORDERED,
                    (true, Some(_), _) => ENCODING_DTM_SEARCHED_BY_SUB,
                    (true, None, _) => ENCODING_DTM_SEARCHED_GROUPED,
                    _ => ENCODING_DTM_SEARCHED,
                }
            );
            let wdl_encoding = if order.is_some() {
                ENCODING_WDL_ORDERED
            } else {
                ENCODING_WDL
            };
            assert_eq!(encoding(&w), wdl_encoding);
            t.verify().unwrap();
            let (mut kept, mut left) = (0, 0);
            for (s, &c) in codes.iter().enumerate() {
                let Some(want) = Value::decode(c) else {
                    continue;
                };
                let slot = s as u64;
                let searched_here = searched.has(slot) && want != Value::Win(h.longest_win);
                if searched_here {
                    assert_eq!(
                        t.probe(slot).unwrap(),
                        Some(Stored::SearchedWin),
                        "slot {s}"
                    );
                    assert!(matches!(t.value(slot), Err(TableError::Searched(_, x)) if x == slot));
                    left += 1;
                } else {
                    assert_eq!(
                        t.probe(slot).unwrap(),
                        Some(Stored::Value(want)),
                        "slot {s}"
                    );
                    kept += 1;
                }
            }
            assert!(left > 1000 && kept > 1000, "{left} searched, {kept} kept");
            // Block decoding gives `Win(0)` at the same slots.
            let values: Vec<Value> = (0..t.blocks())
                .flat_map(|b| t.block_values(b).unwrap())
                .collect();
            assert_eq!(order.is_some(), t.stored_at(1) != 1);
            for (s, &c) in codes.iter().enumerate() {
                if let Some(want) = Value::decode(c) {
                    let got = values[t.stored_at(s as u64) as usize];
                    assert!(got == want || (got == Value::Win(0) && want.wdl() == Wdl::Win));
                    assert_eq!(
                        got == Value::Win(0),
                        t.probe(s as u64).unwrap() == Some(Stored::SearchedWin)
                    );
                }
            }
            // The same table without searched wins is encoding 8 (5) and keeps every distance.
            compress_codes(&h, &codes, &w, Some(&d), p, None).unwrap();
            // SAFETY: as above.
            let plain = unsafe { CompressedTable::open(&w, Some(&d)) }.unwrap();
            assert!(!plain.searches_wins());
            drop(plain);
            assert_eq!(
                encoding(&d),
                match (grouped, order, wdl_sub) {
                    (true, Some(_), 0) => ENCODING_DTM_GROUPED_ORDERED,
                    (true, Some(_), _) => ENCODING_DTM_BY_SUB,
                    (true, None, _) => ENCODING_DTM_GROUPED,
                    _ => ENCODING_DTM,
                }
            );
            // SAFETY: as above.
            let plain = unsafe { CompressedTable::open(&w, Some(&d)) }.unwrap();
            for (s, &c) in codes.iter().enumerate().step_by(7) {
                if let Some(want) = Value::decode(c) {
                    assert_eq!(plain.value(s as u64).unwrap(), Some(want), "slot {s}");
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn regrouped_distances_are_the_bytes_the_grouped_writer_writes() {
        let dir = std::env::temp_dir().join(format!("retro-regroup-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (codes, h, searched) = with_searched_wins(60_000, 2);
        for (wins, dtm_block) in [
            (None, 1 << 12),
            (Some(&searched), 1 << 12),
            (Some(&searched), 1 << 10),
        ] {
            let p = |grouped| Params {
                dtm_block,
                grouped,
                ..Params::default()
            };
            let (w, d) = (dir.join("old.rtbw"), dir.join("old.rtbd"));
            let (w2, d2) = (dir.join("new.rtbw"), dir.join("new.rtbd"));
            compress_codes(&h, &codes, &w, Some(&d), p(false), wins).unwrap();
            compress_codes(&h, &codes, &w2, Some(&d2), p(true), wins).unwrap();
            // SAFETY: test files, replaced by rename only.
            let old = unsafe { CompressedTable::open(&w, Some(&d)) }.unwrap();
            assert!(!old.grouped);
            assert!(old.regroup_distances(12).unwrap());
            drop(old);
            assert_eq!(std::fs::read(&d).unwrap(), std::fs::read(&d2).unwrap());
            // SAFETY: as above.
            let again = unsafe { CompressedTable::open(&w, Some(&d)) }.unwrap();
            assert!(again.grouped);
            assert!(!again.regroup_distances(12).unwrap());
            let left: Vec<_> = std::fs::read_dir(&dir)
                .unwrap()
                .flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "tmp"))
                .collect();
            assert!(left.is_empty(), "{left:?}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_win_draw_loss_dictionary_is_kept_only_where_the_file_comes_out_smaller() {
        let dir = std::env::temp_dir().join(format!("retro-wdl-dict-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let n = 1 << 21;
        let mixed = raw_codes(n);
        // Nearly all draws: the blocks are a few bytes, a dictionary only adds its own.
        let constant: Vec<u16> = (0..n)
            .map(|i| if i % 100_003 == 7 { 0x8001 } else { 0 })
            .collect();
        let key = SectorKey {
            w: 3,
            b: 3,
            wf: 0,
            bf: 0,
        };
        for (codes, kept) in [(&mixed, true), (&constant, false)] {
            let h = Header::from_values(GAME_MILL, "fp", key, codes);
            let open = |wdl_dict_bytes| {
                let (w, d) = (dir.join("t.rtbw"), dir.join("t.rtbd"));
                let p = Params {
                    wdl_dict_bytes,
                    ..Params::default()
                };
                compress_codes(&h, codes, &w, Some(&d), p, None).unwrap();
                let bytes = std::fs::metadata(&w).unwrap().len();
                // SAFETY: test files are rewritten whole, never changed in place while mapped.
                (
                    unsafe { CompressedTable::open(&w, Some(&d)) }.unwrap(),
                    bytes,
                )
            };
            let (plain, plain_bytes) = open(0);
            assert_eq!(plain.wdl.layout().dict_len, 0);
            // `verify --upgrade` adds the dictionary where `compress` would have kept one:
            // the same file.
            assert_eq!(
                plain.add_wdl_dictionary(Params::default().level).unwrap(),
                kept
            );
            drop(plain);
            let upgraded = std::fs::read(dir.join("t.rtbw")).unwrap();
            let (t, bytes) = open(WDL_DICT_BYTES);
            assert_eq!(std::fs::read(dir.join("t.rtbw")).unwrap(), upgraded);
            assert!(!t.add_wdl_dictionary(Params::default().level).unwrap());
            assert_eq!(
                t.wdl.layout().dict_len > 0,
                kept,
                "{plain_bytes} -> {bytes}"
            );
            assert!(bytes <= plain_bytes, "{plain_bytes} -> {bytes}");
            assert_eq!(t.dtm.as_ref().unwrap().layout().dict_len, 0);
            t.verify().unwrap();
            for (s, &c) in codes.iter().enumerate().step_by(3) {
                let Some(v) = Value::decode(c) else { continue };
                assert_eq!(t.value(s as u64).unwrap(), Some(v), "slot {s}");
            }
            if kept {
                // A byte of the dictionary damaged: the file is refused when opened (the
                // dictionary's block checksums), naming it, never read with another one.
                let dict_len = t.wdl.layout().dict_len as usize;
                drop(t);
                let w = dir.join("t.rtbw");
                let good = std::fs::read(&w).unwrap();
                for at in [0, dict_len / 2, dict_len - 1] {
                    let mut bad = good.clone();
                    bad[HEADER_SIZE + at] ^= 0x10;
                    std::fs::write(&w, &bad).unwrap();
                    // SAFETY: as above.
                    match unsafe { CompressedTable::open(&w, None) } {
                        Err(TableError::Corrupt(path, _)) => assert_eq!(path, w),
                        Err(e) => panic!("byte {at}: {e}"),
                        Ok(_) => panic!("byte {at} of the dictionary damaged, and opened"),
                    }
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Header bytes 120..128 must name no slot order (all zero) or one this reader knows: a
    /// file whose header says otherwise (its checksums made good again, as a later writer
    /// would) is refused when opened.
    #[test]
    fn reserved_header_bytes_are_refused_unless_zero() {
        let dir = std::env::temp_dir().join(format!("retro-reserved-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // A 3v3 table of 20,000 slots, none searched.
        let (codes, header, _) = with_searched_wins(20_000, usize::MAX);
        let (wdl, dtm) = (dir.join("t.rtbw"), dir.join("t.rtbd"));
        compress_codes(&header, &codes, &wdl, Some(&dtm), Params::default(), None).unwrap();
        // SAFETY: test files are rewritten whole, never changed in place while mapped.
        assert!(unsafe { CompressedTable::open(&wdl, Some(&dtm)) }.is_ok());
        // An order of a kind this reader does not know, stray bytes after a known one, and a
        // known order in one file of the two.
        for (path, at, x, says) in [
            (&wdl, 120, 7, "120..128"),
            (&dtm, 127, 1, "120..128"),
            (
                &wdl,
                120,
                1,
                "encoding 4 and header bytes 120..128 disagree",
            ),
        ] {
            let good = std::fs::read(path).unwrap();
            let mut head = good[..HEADER_SIZE].to_vec();
            let body_len = Layout::decode(&head).body_len().unwrap() as usize;
            let body = &good[HEADER_SIZE..HEADER_SIZE + body_len];
            head[at] = x;
            let mut bad = head.clone();
            bad.extend_from_slice(body);
            bad.extend_from_slice(&crate::format::trailer(&head, body));
            assert_eq!(bad.len(), good.len());
            std::fs::write(path, &bad).unwrap();
            // SAFETY: as above.
            let e = unsafe { CompressedTable::open(&wdl, Some(&dtm)) }
                .err()
                .expect("refused");
            assert!(e.to_string().contains(says), "{e}");
            std::fs::write(path, &good).unwrap();
        }
        // SAFETY: as above.
        let t = unsafe { CompressedTable::open(&wdl, Some(&dtm)) }.unwrap();
        t.verify().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn every_slot_decodes_to_the_raw_value() {
        let dir = std::env::temp_dir().join(format!("retro-compressed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (n, p) in [
            (1usize, Params::default()),
            (100_003, Params::default()),
            (
                70_000,
                Params {
                    wdl_block: 1 << 10,
                    dtm_block: 1 << 8,
                    level: 3,
                    dict_bytes: 4096,
                    wdl_dict_bytes: 0,
                    grouped: true,
                    order: None,
                    wdl_sub: 0,
                    dtm_rans: false,
                    mix: false,
                    whole_plies: false,
                },
            ),
            (
                70_000,
                Params {
                    wdl_block: 1 << 12,
                    dtm_block: 1 << 12,
                    level: 1,
                    dict_bytes: 0,
                    wdl_dict_bytes: 0,
                    grouped: true,
                    order: None,
                    wdl_sub: 0,
                    dtm_rans: false,
                    mix: false,
                    whole_plies: false,
                },
            ),
            // The older layout (encoding 5) is still read.
            (
                70_000,
                Params {
                    grouped: false,
                    ..Params::default()
                },
            ),
            (
                70_000,
                Params {
                    wdl_block: 1 << 11,
                    dtm_block: 1 << 9,
                    grouped: false,
                    ..Params::default()
                },
            ),
            // Slots stored in the reflected order: 6 classes of C(17, 6), as 3 stones against
            // 6 on the 24-point board; and 600 small classes in small blocks.
            (
                6 * 12_376,
                Params {
                    order: SlotOrder::reflected(17, 6),
                    ..Params::default()
                },
            ),
            (
                600 * 120,
                Params {
                    wdl_block: 1 << 10,
                    dtm_block: 1 << 8,
                    order: SlotOrder::reflected(10, 3),
                    wdl_sub: 64,
                    ..Params::default()
                },
            ),
            // The rANS coder with sub-blocks as long as the distance blocks, and zstd blocks
            // in the reflected order.
            (
                6 * 12_376,
                Params {
                    wdl_block: 1 << 12,
                    dtm_block: 1 << 11,
                    order: SlotOrder::reflected(17, 6),
                    wdl_sub: 1 << 11,
                    ..Params::default()
                },
            ),
            (
                6 * 12_376,
                Params {
                    wdl_block: 1 << 12,
                    order: SlotOrder::reflected(17, 6),
                    wdl_sub: 0,
                    ..Params::default()
                },
            ),
            // The first rANS coders (2 and 3: one model, streams from the state LOW).
            (
                6 * 12_376,
                Params {
                    order: SlotOrder::reflected(17, 6),
                    mix: false,
                    ..Params::default()
                },
            ),
            // rANS win/draw/loss beside zstd distances (as written before coder 3).
            (
                6 * 12_376,
                Params {
                    order: SlotOrder::reflected(17, 6),
                    dtm_rans: false,
                    ..Params::default()
                },
            ),
        ] {
            let codes = raw_codes(n);
            let key = SectorKey {
                w: 3,
                b: 3,
                wf: 0,
                bf: 0,
            };
            let header = Header::from_values(GAME_MILL, "fp", key, &codes);
            let raw_path = dir.join("raw.rtb");
            crate::sector_table::write(&raw_path, &header, &codes).unwrap();
            // SAFETY: test files are rewritten whole, never changed in place while mapped.
            let raw = unsafe { Table::open(&raw_path) }.unwrap();
            assert_eq!(raw.codes().unwrap(), codes, "the bulk read");
            assert_eq!(*raw.codes_in_place().unwrap(), codes[..], "read in place");
            // A raw table has no stored positions of another order to be asked for.
            // SAFETY: as above.
            let any = AnyTable::Raw(unsafe { Table::open(&raw_path) }.unwrap());
            assert!(any.wdl_at(Place::Stored(0)).is_err());
            assert!(any.probe_at(Place::Stored(0)).is_err());
            assert_eq!(any.wdl_at(Place::Slot(0)).unwrap(), any.wdl(0).unwrap());
            drop(any);
            let (w, d) = (dir.join("t.rtbw"), dir.join("t.rtbd"));
            compress(&raw, &w, Some(&d), p).unwrap();
            // SAFETY: as above.
            let t = unsafe { CompressedTable::open(&w, Some(&d)) }.unwrap();
            t.verify().unwrap();
            // SAFETY: as above.
            let alone = unsafe { CompressedTable::open(&w, None) }.unwrap();
            alone.verify().unwrap();
            assert!(alone.value(0).is_err());
            for (s, &c) in codes.iter().enumerate() {
                let Some(v) = Value::decode(c) else { continue };
                assert_eq!(t.value(s as u64).unwrap(), Some(v), "{n} slots, slot {s}");
                let sym = match v {
                    Value::Draw => SYM_DRAW,
                    Value::Loss(_) => SYM_LOSS,
                    Value::Win(_) => SYM_WIN,
                };
                assert_eq!(alone.symbol(s as u64).unwrap(), Some(sym));
                // Probed where it is stored, as a caller that ranks the stones does.
                let at = t.stored_at(s as u64);
                assert_eq!(t.probe_stored(at).unwrap(), Some(Stored::Value(v)));
                assert_eq!(alone.symbol_stored(at).unwrap(), Some(sym));
            }
            assert_eq!(t.value(n as u64).unwrap(), None);
            assert_eq!(t.probe_stored(n as u64).unwrap(), None);
            // The order is in both headers, and it is not the index's; the coder is rANS
            // wherever it was asked for with an order.
            let heads = [std::fs::read(&w).unwrap(), std::fs::read(&d).unwrap()];
            for head in &heads {
                assert_eq!(head[120] == 1, p.order.is_some());
            }
            let rans = p.order.is_some() && p.wdl_sub > 0;
            assert_eq!(is_wdl_rans(Layout::decode(&heads[0]).coder), rans);
            assert_eq!(
                is_dtm_rans(Layout::decode(&heads[1]).coder),
                rans && p.dtm_rans
            );
            assert_eq!(t.by_sub, rans);
            assert_eq!(p.order.is_some(), n > 1 && t.stored_at(1) != 1);
            // An upgrade (a dictionary added) keeps the order: the values stay where they were.
            drop((t, alone));
            let mut plain = Params {
                wdl_dict_bytes: 0,
                ..p
            };
            plain.dict_bytes = 0;
            compress(&raw, &w, Some(&d), plain).unwrap();
            // SAFETY: as above.
            let t = unsafe { CompressedTable::open(&w, Some(&d)) }.unwrap();
            t.add_wdl_dictionary(p.level).unwrap();
            drop(t);
            // SAFETY: as above.
            let t = unsafe { CompressedTable::open(&w, Some(&d)) }.unwrap();
            assert_eq!(std::fs::read(&w).unwrap()[120] == 1, p.order.is_some());
            for (s, &c) in codes.iter().enumerate().step_by(7) {
                if let Some(v) = Value::decode(c) {
                    assert_eq!(t.value(s as u64).unwrap(), Some(v), "upgraded, slot {s}");
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
