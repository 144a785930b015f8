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

mod blocks;
mod open;
mod probe;
mod replace;
#[cfg(test)]
mod tests;
mod transcode;
mod verify;
mod write;

use blocks::decoded_value;
pub use blocks::BlockScratch;
pub use replace::{replace_raw, Replaced};
pub use write::compress;
use write::{compress_codes, dictionary, write_block_file, write_body, InFileOrder};

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
