//! Block files: the container of compressed tables. A header, then a body of an optional
//! compression dictionary, an index of block offsets and the blocks, each compressed on its
//! own (zstd), so that any block can be read alone; the trailer (a checksum per 4 KiB of
//! body, checked when first read) as every table has. `databases/README.md` gives
//! the byte layout.

use crate::dtm_rans::DtmModel;
use crate::format::{TableError, HEADER_SIZE};
use crate::mapped::Mapped;
use crate::wdl_rans::WdlModel;
use std::cell::RefCell;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Coder id of zstd blocks.
pub const CODER_ZSTD: u32 = 1;
/// Coder id of win/draw/loss blocks coded by [`crate::wdl_rans`]: the dictionary bytes are
/// its model.
pub const CODER_RANS: u32 = 2;
/// Coder id of distance blocks coded by [`crate::dtm_rans`] (beside a [`CODER_RANS`] file,
/// encodings 13 and 14): the dictionary bytes are its model.
pub const CODER_DTM_RANS: u32 = 3;
/// Coder id of win/draw/loss blocks coded by [`crate::wdl_rans`] with a mixture of models and
/// streams from the state 0 (what `retro` writes since December 2026).
pub const CODER_RANS_MIX: u32 = 4;
/// Coder id of distance blocks coded by [`crate::dtm_rans`] with a mixture of models and
/// streams from the state 0 (beside a [`CODER_RANS_MIX`] file).
pub const CODER_DTM_RANS_MIX: u32 = 5;

/// Whether `coder` codes win/draw/loss blocks by [`crate::wdl_rans`] (coder 2 or 4).
pub fn is_wdl_rans(coder: u32) -> bool {
    coder == CODER_RANS || coder == CODER_RANS_MIX
}

/// Whether `coder` codes distance blocks by [`crate::dtm_rans`] (coder 3 or 5).
pub fn is_dtm_rans(coder: u32) -> bool {
    coder == CODER_DTM_RANS || coder == CODER_DTM_RANS_MIX
}

/// The layout fields of a block file's header (bytes 72 to 112).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Slots a block covers (a power of two; the last block may cover fewer).
    pub block_slots: u32,
    /// The block coder.
    pub coder: u32,
    /// Number of blocks.
    pub blocks: u64,
    /// Bytes of the dictionary (0: none).
    pub dict_len: u64,
    /// Bytes of compressed blocks.
    pub data_len: u64,
}

impl Layout {
    /// Reads the layout fields of a header.
    pub fn decode(b: &[u8]) -> Layout {
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        Layout {
            block_slots: u32_at(72),
            coder: u32_at(76),
            blocks: u64_at(80),
            dict_len: u64_at(88),
            data_len: u64_at(96),
        }
    }

    /// Writes the layout fields into a header.
    pub fn encode(&self, b: &mut [u8; HEADER_SIZE]) {
        b[72..76].copy_from_slice(&self.block_slots.to_le_bytes());
        b[76..80].copy_from_slice(&self.coder.to_le_bytes());
        b[80..88].copy_from_slice(&self.blocks.to_le_bytes());
        b[88..96].copy_from_slice(&self.dict_len.to_le_bytes());
        b[96..104].copy_from_slice(&self.data_len.to_le_bytes());
    }

    /// Bytes of the body (`None` if they overflow).
    pub fn body_len(&self) -> Option<u64> {
        self.blocks
            .checked_add(1)?
            .checked_mul(8)?
            .checked_add(self.dict_len)?
            .checked_add(self.data_len)
    }

    /// Checks the fields against the slots the table has and the largest block a block may
    /// decode to (`max_block_bytes`).
    pub fn check(&self, slots: u64) -> Result<(), String> {
        if !(CODER_ZSTD..=CODER_DTM_RANS_MIX).contains(&self.coder) {
            return Err(format!("unknown block coder {}", self.coder));
        }
        // At least 64 slots: a block's symbols are counted a byte (4 slots) at a time.
        if !self.block_slots.is_power_of_two() || !(64..=1 << 20).contains(&self.block_slots) {
            return Err(format!("block size {} slots", self.block_slots));
        }
        if self.blocks != slots.div_ceil(self.block_slots as u64) {
            return Err(format!(
                "{} blocks of {} slots for {slots} slots",
                self.blocks, self.block_slots
            ));
        }
        if self.body_len().is_none() {
            return Err("block layout out of range".into());
        }
        Ok(())
    }
}

/// An open block file: its mapped body, index and dictionary.
pub struct BlockFile {
    file: Mapped,
    layout: Layout,
    dict: Option<zstd_safe::DDict<'static>>,
    /// The model of a file of [`CODER_RANS`].
    model: Option<WdlModel>,
    /// The model of a file of [`CODER_DTM_RANS`].
    dtm_model: Option<DtmModel>,
    /// Slots of the table (the last block may cover fewer than the others).
    slots: u64,
    /// Largest size a block may decode to.
    max_block: usize,
    /// This process's number for the file (keys the decoded-block cache; never reused).
    id: u64,
}

/// Decoded blocks each thread keeps: the children of a position mostly lie in one or two
/// blocks of their sector, so an analysis decodes each block once instead of once a move; a
/// derived position's search reads a block per capture (128 against 32: its probes about 10%
/// faster on placement sectors, a batch 5-10%).
const CACHED_BLOCKS: usize = 128;

/// The next [`BlockFile`] number.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// A decoded block of the cache.
struct Cached {
    /// The file's number (`u64::MAX`: an empty entry).
    file: u64,
    block: u64,
    /// When last used (the cache's clock).
    used: u64,
    bytes: Vec<u8>,
}

/// A thread's decoded blocks, least recently used replaced first.
struct Cache {
    clock: u64,
    entries: Vec<Cached>,
}

thread_local! {
    /// One decompression context per thread (a context is not shared between threads).
    static DCTX: RefCell<Option<zstd_safe::DCtx<'static>>> = const { RefCell::new(None) };
    /// The thread's decoded blocks.
    static CACHE: RefCell<Cache> = const { RefCell::new(Cache { clock: 0, entries: Vec::new() }) };
}

impl BlockFile {
    /// Wraps a mapped block file of a table of `slots` slots whose header was read into
    /// `layout` (checked); `max_block` is the most bytes a block may decode to.
    pub fn new(
        file: Mapped,
        layout: Layout,
        slots: u64,
        max_block: usize,
    ) -> Result<BlockFile, TableError> {
        let (mut dict, mut model, mut dtm_model) = (None, None, None);
        let mix = layout.coder == CODER_RANS_MIX || layout.coder == CODER_DTM_RANS_MIX;
        if is_dtm_rans(layout.coder) {
            dtm_model = Some(model_of(
                &file,
                &layout,
                |b| DtmModel::from_bytes(b, mix),
                |m| m.sub_slots(),
            )?);
        } else if is_wdl_rans(layout.coder) {
            model = Some(model_of(
                &file,
                &layout,
                |b| WdlModel::from_bytes(b, mix),
                |m| m.sub_slots(),
            )?);
        } else if layout.dict_len > 0 {
            let bytes = file.bytes(0..layout.dict_len as usize, &|_, _| Ok(()))?;
            // zstd refuses a dictionary that has its magic but not its entropy tables.
            dict = Some(zstd_safe::DDict::try_create(bytes).ok_or_else(|| {
                TableError::Corrupt(
                    file.path().to_path_buf(),
                    format!(
                        "a zstd dictionary of {} bytes that zstd cannot load",
                        layout.dict_len
                    ),
                )
            })?);
        }
        Ok(BlockFile {
            file,
            layout,
            dict,
            model,
            dtm_model,
            slots,
            max_block,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// The mapped file.
    pub fn mapped(&self) -> &Mapped {
        &self.file
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    fn corrupt(&self, m: String) -> TableError {
        TableError::Corrupt(self.file.path().to_path_buf(), m)
    }

    /// The model of a file of [`CODER_RANS`] or [`CODER_RANS_MIX`].
    pub fn model(&self) -> Option<&WdlModel> {
        self.model.as_ref()
    }

    /// This process's number for the file (never reused).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The model of a file of [`CODER_DTM_RANS`] or [`CODER_DTM_RANS_MIX`].
    pub fn dtm_model(&self) -> Option<&DtmModel> {
        self.dtm_model.as_ref()
    }

    /// Slots block `b` covers.
    pub fn slots_of(&self, b: u64) -> usize {
        let s = self.layout.block_slots as u64;
        self.slots.saturating_sub(b * s).min(s) as usize
    }

    /// The compressed bytes of block `b` (checked against their block checksums).
    pub fn block_bytes(&self, b: u64) -> Result<&[u8], TableError> {
        let l = &self.layout;
        if b >= l.blocks {
            return Err(self.corrupt(format!("block {b} of {}", l.blocks)));
        }
        let at = l.dict_len as usize + 8 * b as usize;
        let ix = self.file.bytes(at..at + 16, &|_, _| Ok(()))?;
        let start = u64::from_le_bytes(ix[..8].try_into().expect("8 bytes"));
        let end = u64::from_le_bytes(ix[8..].try_into().expect("8 bytes"));
        if start > end || end > l.data_len {
            return Err(self.corrupt(format!("block {b}: index entries out of order")));
        }
        let data = l.dict_len as usize + 8 * (l.blocks as usize + 1);
        self.file
            .bytes(data + start as usize..data + end as usize, &|_, _| Ok(()))
    }

    /// Decodes block `b` (or finds it in the thread's cache of decoded blocks) and hands its
    /// bytes to `f`, which must not call `with_block` itself.
    pub fn with_block<R>(
        &self,
        b: u64,
        f: impl FnOnce(&[u8]) -> Result<R, TableError>,
    ) -> Result<R, TableError> {
        CACHE.with(|cache| {
            let mut cache = cache.borrow_mut();
            let cache = &mut *cache;
            cache.clock += 1;
            let now = cache.clock;
            let hit = cache
                .entries
                .iter()
                .position(|e| e.file == self.id && e.block == b);
            let at = match hit {
                Some(at) => at,
                None => {
                    let at = if cache.entries.len() < CACHED_BLOCKS {
                        cache.entries.push(Cached {
                            file: u64::MAX,
                            block: 0,
                            used: 0,
                            bytes: Vec::new(),
                        });
                        cache.entries.len() - 1
                    } else {
                        (0..CACHED_BLOCKS)
                            .min_by_key(|&i| cache.entries[i].used)
                            .expect("a full cache")
                    };
                    let e = &mut cache.entries[at];
                    e.file = u64::MAX;
                    self.decode(b, &mut e.bytes)?;
                    (e.file, e.block) = (self.id, b);
                    at
                }
            };
            let e = &mut cache.entries[at];
            e.used = now;
            f(&e.bytes)
        })
    }

    /// Decodes block `b` into `out` (a [`CODER_RANS`] block's symbols packed 2 bits a slot,
    /// as a zstd block of win/draw/loss holds them; a [`CODER_DTM_RANS`] block's head and
    /// entries as a zstd block of encoding 13 or 14 holds them).
    fn decode(&self, b: u64, out: &mut Vec<u8>) -> Result<(), TableError> {
        if self.dtm_model.is_some() {
            let (mut head, mut entries) = (Vec::new(), Vec::new());
            self.decode_entries(b, &mut head, &mut entries)?;
            out.clear();
            for h in head {
                out.extend_from_slice(&h.to_le_bytes());
            }
            for e in entries {
                crate::packed::put_distance(out, e);
            }
            return Ok(());
        }
        if self.model.is_some() {
            let mut syms = Vec::with_capacity(self.layout.block_slots as usize);
            self.decode_symbols(b, &mut syms)?;
            *out = crate::packed::pack(&syms);
            return Ok(());
        }
        let src = self.block_bytes(b)?;
        let n = DCTX.with(|c| {
            let mut ctx = c.borrow_mut();
            let ctx = ctx.get_or_insert_with(zstd_safe::DCtx::create);
            out.clear();
            out.reserve(self.max_block);
            let r = match &self.dict {
                Some(d) => ctx.decompress_using_ddict(&mut *out, src, d),
                None => ctx.decompress(&mut *out, src),
            };
            r.map_err(|code| {
                format!(
                    "block {b} does not decode: {}",
                    zstd_safe::get_error_name(code)
                )
            })
        });
        let n = n.map_err(|m| self.corrupt(m))?;
        debug_assert_eq!(out.len(), n);
        Ok(())
    }
}

impl BlockFile {
    /// Under the rANS win/draw/loss coders: block `b`'s symbols into `out` (cleared first),
    /// one a slot, uncached (a pass over every block: `verify`, a compression's read-back).
    pub fn decode_symbols(&self, b: u64, out: &mut Vec<u8>) -> Result<(), TableError> {
        let m = self
            .model
            .as_ref()
            .ok_or_else(|| self.corrupt("not a rANS win/draw/loss file".into()))?;
        m.decode(self.block_bytes(b)?, self.slots_of(b), out)
            .map_err(|e| self.corrupt(format!("block {b}: {e}")))
    }

    /// Under the rANS distance coders: block `b`'s head (the entries before each sub-block but
    /// the first) into `head` and its entries into `entries` (both cleared first), uncached.
    pub fn decode_entries(
        &self,
        b: u64,
        head: &mut Vec<u16>,
        entries: &mut Vec<u16>,
    ) -> Result<(), TableError> {
        let m = self
            .dtm_model
            .as_ref()
            .ok_or_else(|| self.corrupt("not a rANS distance file".into()))?;
        let k = self.slots_of(b).div_ceil(m.sub_slots());
        m.decode(self.block_bytes(b)?, k, head, entries)
            .map_err(|e| self.corrupt(format!("block {b}: {e}")))
    }
}

/// A rANS coder's model, from the dictionary's place of `file`, checked: sub-blocks within a
/// block.
fn model_of<M>(
    file: &Mapped,
    layout: &Layout,
    parse: impl Fn(&[u8]) -> Result<M, String>,
    sub: impl Fn(&M) -> usize,
) -> Result<M, TableError> {
    let bytes = file.bytes(0..layout.dict_len as usize, &|_, _| Ok(()))?;
    let corrupt = |m: String| TableError::Corrupt(file.path().to_path_buf(), m);
    let m = parse(bytes).map_err(|m| corrupt(format!("its model: {m}")))?;
    if sub(&m) as u64 > layout.block_slots as u64 {
        return Err(corrupt("sub-blocks larger than blocks".into()));
    }
    Ok(m)
}

/// Compresses blocks (with a dictionary, if not empty) into an index of their ends and their
/// data: `(8 (blocks + 1)` bytes of index from offset 0, then the data`, data length)`.
pub fn build_body(blocks: &[Vec<u8>], dict: &[u8], level: i32) -> Result<(Vec<u8>, u64), String> {
    let mut cctx = zstd_safe::CCtx::create();
    cctx.set_parameter(zstd_safe::CParameter::CompressionLevel(level))
        .map_err(|c| zstd_safe::get_error_name(c).to_string())?;
    if !dict.is_empty() {
        cctx.load_dictionary(dict)
            .map_err(|c| zstd_safe::get_error_name(c).to_string())?;
    }
    // Each block's frame: no checksum (the file's block checksums cover it), no dictionary
    // id (4 bytes a frame; the reader takes the file's dictionary whatever the frame says).
    cctx.set_parameter(zstd_safe::CParameter::ChecksumFlag(false))
        .map_err(|c| zstd_safe::get_error_name(c).to_string())?;
    cctx.set_parameter(zstd_safe::CParameter::DictIdFlag(false))
        .map_err(|c| zstd_safe::get_error_name(c).to_string())?;
    let mut index = Vec::with_capacity(8 * (blocks.len() + 1));
    let mut data = Vec::new();
    let mut out = Vec::new();
    index.extend_from_slice(&0u64.to_le_bytes());
    for b in blocks {
        out.clear();
        out.reserve(zstd_safe::compress_bound(b.len()));
        cctx.compress2(&mut out, b)
            .map_err(|c| zstd_safe::get_error_name(c).to_string())?;
        data.extend_from_slice(&out);
        index.extend_from_slice(&(data.len() as u64).to_le_bytes());
    }
    let data_len = data.len() as u64;
    index.extend_from_slice(&data);
    Ok((index, data_len))
}

/// A [`CODER_RANS`] file's body from its model and each block's symbols: the model (as the
/// dictionary), the index, the coded blocks; and the data's length.
pub fn rans_body(model: &WdlModel, blocks: &[&[u8]]) -> Result<(Vec<u8>, u64), String> {
    let coded = crate::par::map_items(blocks, |b| model.encode(b))
        .into_iter()
        .collect::<Result<Vec<_>, String>>()?;
    Ok(crate::rans::body(model.to_bytes(), &coded))
}

/// A [`CODER_DTM_RANS`] file's body from its model and each block's entries by sub-block,
/// as [`rans_body`].
pub fn dtm_rans_body(model: &DtmModel, blocks: &[Vec<Vec<u16>>]) -> Result<(Vec<u8>, u64), String> {
    let coded = crate::par::map_items(blocks, |b| {
        let groups: Vec<&[u16]> = b.iter().map(|g| &g[..]).collect();
        model.encode(&groups)
    })
    .into_iter()
    .collect::<Result<Vec<_>, String>>()?;
    Ok(crate::rans::body(model.to_bytes(), &coded))
}

/// About 100 times `size` bytes of blocks spread evenly over `blocks` (those of at least 8
/// bytes), concatenated, and their lengths: the samples a dictionary of `size` bytes is made
/// from.
fn samples(blocks: &[Vec<u8>], size: usize) -> (Vec<u8>, Vec<usize>) {
    let total: usize = blocks.iter().map(Vec::len).sum();
    let mean = (total / blocks.len().max(1)).max(1);
    let step = (blocks.len() / (100 * size).div_ceil(mean)).max(1);
    let (mut samples, mut sizes) = (Vec::new(), Vec::new());
    for b in blocks.iter().step_by(step).filter(|b| b.len() >= 8) {
        samples.extend_from_slice(b);
        sizes.push(b.len());
    }
    (samples, sizes)
}

/// A dictionary of at most `size` bytes trained on a sample of the blocks (empty when the
/// blocks are too few or too alike to train one).
pub fn train_dictionary(blocks: &[Vec<u8>], size: usize) -> Vec<u8> {
    let (samples, sizes) = samples(blocks, size);
    if sizes.len() < 16 {
        return Vec::new();
    }
    let mut dict = Vec::with_capacity(size);
    match zstd_safe::train_from_buffer(&mut dict, &samples, &sizes) {
        Ok(_) => dict,
        Err(_) => Vec::new(),
    }
}

/// A dictionary of at most `size` bytes for zstd level `level`: the entropy tables of a sample
/// of the blocks, and the last bytes of that sample as content (zstd's
/// `ZDICT_finalizeDictionary`, no training search; empty when the blocks are too few or too
/// alike). On win/draw/loss blocks it does better than a trained one of the same size (the
/// tables are what the blocks share), in milliseconds.
pub fn finalize_dictionary(blocks: &[Vec<u8>], size: usize, level: i32) -> Vec<u8> {
    use zstd_safe::zstd_sys::{ZDICT_finalizeDictionary, ZDICT_isError, ZDICT_params_t};
    let (samples, sizes) = samples(blocks, size);
    if sizes.len() < 16 || size < 1024 {
        return Vec::new();
    }
    let content = &samples[samples.len().saturating_sub(size / 2)..];
    let mut dict = vec![0u8; size];
    let params = ZDICT_params_t {
        compressionLevel: level,
        notificationLevel: 0,
        dictID: 0,
    };
    // SAFETY: every pointer comes with its length from a live slice or vector: `dict` has
    // `size` writable bytes (at least 1 KiB, above ZDICT_DICTSIZE_MIN), `content` and
    // `samples` are read only, and `sizes` holds `sizes.len()` lengths adding up to
    // `samples.len()`; the function writes at most `size` bytes and keeps no pointer.
    let n = unsafe {
        ZDICT_finalizeDictionary(
            dict.as_mut_ptr().cast(),
            size,
            content.as_ptr().cast(),
            content.len(),
            samples.as_ptr().cast(),
            sizes.as_ptr(),
            sizes.len() as u32,
            params,
        )
    };
    // SAFETY: a plain function of the returned code.
    if unsafe { ZDICT_isError(n) } != 0 || n > size {
        return Vec::new();
    }
    dict.truncate(n);
    dict
}

/// Opens a block file's mapping: `decode` reads the header into the caller's type and layout.
///
/// # Safety
///
/// As [`crate::Table::open`]: nothing may modify or truncate the file in place while it lives.
pub unsafe fn open_mapped<H>(
    path: &Path,
    decode: impl FnOnce(&[u8]) -> Result<(H, Layout), TableError>,
) -> Result<(H, Layout, Mapped), TableError> {
    let mut layout = None;
    // SAFETY: the caller's promise, passed on.
    let (h, m) = unsafe {
        Mapped::open(path, |b| {
            let (h, l) = decode(b)?;
            let len = l.body_len().ok_or_else(|| {
                TableError::Corrupt(path.to_path_buf(), "block layout out of range".into())
            })?;
            layout = Some(l);
            Ok((h, len))
        })
    }?;
    Ok((h, layout.expect("set by decode"), m))
}
