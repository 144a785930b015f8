//! A block coder for win/draw/loss symbols fitted to them: rANS (range asymmetric numeral
//! systems, byte-wise, 32-bit state) over a static model per file, the probabilities of each
//! symbol given the 4 symbols before it. A block's slots are cut into sub-blocks that each
//! start from a fresh state with the context "nothing before", so a probe decodes from the
//! start of its slot's sub-block up to the slot and no further (half a sub-block on average),
//! where a zstd block is decoded whole.
//!
//! Block coder 2 of the compressed win/draw/loss files ([`crate::block_file::CODER_RANS`]);
//! its measurements against zstd are in `databases/README.md` ("rANS for win/draw/loss").
//!
//! Model bytes: `u32` sub-block size in slots (a power of two, 64 to 16384), then for each of
//! the 256 contexts the frequencies of symbols 0, 1, 2 as `u16`, summing to 4096. The context
//! of a symbol is `p1 + 4 p2 + 16 p3 + 64 p4`, `p1` the symbol just before, `p4` the one 4
//! before, each `3` where it lies before the sub-block's start.
//!
//! Block bytes (a block of `n` slots, `k = ceil(n / m)` sub-blocks of `m` slots):
//! - a block whose slots all hold symbol `s` is the single byte `s`;
//! - otherwise the byte `3`, then for each of the `k` sub-blocks but the last a LEB128
//!   number `e`, then the streams. `e` = 0, 1 or 2: every slot of the sub-block holds that
//!   symbol, and it has no stream; otherwise its stream takes `e` bytes (the last sub-block's
//!   stream takes the rest of the block, unless the rest is the single byte `128 + s`: every
//!   slot of it holds symbol `s`). A stream is the coder's final state (3 bytes, most
//!   significant first, so its first byte is below 128) and the bytes its renormalisations
//!   read, in order.
//!
//! Block coder 4 ([`crate::block_file::CODER_RANS_MIX`]) is the same with a mixture of models
//! ([`crate::mixture`]) and streams coded from the state 0 ([`crate::rans`]): the model bytes
//! are the sub-block size, the number of models `K` (a power of two up to 64) as a `u32`, then `K`
//! models' frequencies as above; a stream's first symbol, when `K > 1`, is its model's number
//! `i`, coded with frequency `4096 / K` from `i * 4096 / K`.

use crate::mixture;
use crate::rans::{get_leb128, put_leb128, Decoder, Encoder, Paused, TOTAL};

/// Contexts: the 4 symbols before, 2 bits each.
const CONTEXTS: usize = 256;
/// The context at a sub-block's start: "nothing before", four times.
const START: usize = 255;
/// Bytes of a model.
pub const MODEL_BYTES: usize = 4 + CONTEXTS * 3 * 2;

/// The next context after `sym` in context `c`.
#[inline]
fn next(c: usize, sym: u8) -> usize {
    ((c << 2) | sym as usize) & 0xff
}

/// One model's frequencies per context.
type Freqs = [[u16; 3]; CONTEXTS];

/// A static model: per context, each symbol's frequency and the sum of those before it; under
/// coder 4, several such models, one for each kind of sub-block.
#[derive(Clone, Debug, PartialEq)]
pub struct WdlModel {
    sub: u32,
    /// Coder 4: the model numbers and the zero start.
    mix: bool,
    freq: Vec<Freqs>,
    cum: Vec<Freqs>,
    /// Bits of each (context, symbol) under each model (infinite for a frequency of 0): what
    /// the encoder picks a sub-block's model by.
    /// (Computed when first needed: readers never need it.)
    cost: std::sync::OnceLock<mixture::Chooser>,
}

impl WdlModel {
    /// The model (coder 2) of `symbols` (each 0, 1 or 2) cut into blocks of `block` slots
    /// and those into sub-blocks of `sub` (a power of two from 64 to 16384 dividing `block`),
    /// as they will be coded. A symbol that occurs in a context gets a frequency of at least 1.
    pub fn fit(symbols: &[u8], block: usize, sub: usize) -> Result<WdlModel, String> {
        check_layout(symbols, block, sub)?;
        let mut counts = vec![[0u64; 3]; CONTEXTS];
        for part in symbols.chunks(sub) {
            for (b, _) in pairs(part) {
                counts[b / 3][b % 3] += 1;
            }
        }
        Ok(WdlModel::with(sub as u32, false, vec![quantized(&counts)]))
    }

    /// The models (coder 4) of `symbols` as [`WdlModel::fit`] cuts them: the sub-blocks that
    /// need a stream sorted into kinds ([`mixture::fit`]), a model fitted to each kind.
    pub fn fit_mix(symbols: &[u8], block: usize, sub: usize) -> Result<WdlModel, String> {
        check_layout(symbols, block, sub)?;
        let parts: Vec<&[u8]> = symbols
            .chunks(sub)
            .filter(|p| p.iter().any(|&x| x != p[0]))
            .collect();
        let gather = |p: &&[u8], scratch: &mut [u32]| {
            mixture::gather(pairs(p).map(|(b, _)| b as u32), scratch)
        };
        let counts = mixture::fit(&parts, CONTEXTS * 3, 3, CONTEXTS * 6, gather);
        let freq = counts
            .iter()
            .map(|c| {
                let per_context: Vec<[u64; 3]> =
                    c.chunks_exact(3).map(|x| [x[0], x[1], x[2]]).collect();
                quantized(&per_context)
            })
            .collect();
        Ok(WdlModel::with(sub as u32, true, freq))
    }

    fn with(sub: u32, mix: bool, freq: Vec<Freqs>) -> WdlModel {
        let cum = freq
            .iter()
            .map(|m| {
                let mut cum = [[0u16; 3]; CONTEXTS];
                for (c, f) in cum.iter_mut().zip(m) {
                    *c = [0, f[0], f[0] + f[1]];
                }
                cum
            })
            .collect();
        WdlModel {
            sub,
            mix,
            freq,
            cum,
            cost: std::sync::OnceLock::new(),
        }
    }

    /// Slots of a sub-block.
    pub fn sub_slots(&self) -> usize {
        self.sub as usize
    }

    /// Whether this is a model of coder 4 (a mixture, streams from the state 0).
    pub fn is_mix(&self) -> bool {
        self.mix
    }

    /// The number of models (1 under coder 2).
    pub fn models(&self) -> usize {
        self.freq.len()
    }

    /// The model's bytes (see the module's documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let freqs = self.freq.iter().flatten().flatten();
        if self.mix {
            crate::rans::mix_model_bytes(self.sub, self.freq.len(), freqs)
        } else {
            crate::rans::model_bytes(self.sub, freqs)
        }
    }

    /// The model `bytes` hold (of coder 4 with `mix`, else 2), checked: a sub-block size it
    /// allows, a number of models it allows, every context's frequencies summing to 4096.
    pub fn from_bytes(bytes: &[u8], mix: bool) -> Result<WdlModel, String> {
        let (sub, all) = if mix {
            crate::rans::parse_mix_model(bytes, CONTEXTS, 3)?
        } else {
            crate::rans::parse_model(bytes, CONTEXTS, 3)?
        };
        let freq = all
            .chunks_exact(CONTEXTS * 3)
            .map(|m| {
                let mut f = [[0u16; 3]; CONTEXTS];
                for (f, x) in f.iter_mut().zip(m.chunks_exact(3)) {
                    f.copy_from_slice(x);
                }
                f
            })
            .collect();
        Ok(WdlModel::with(sub, mix, freq))
    }

    /// Codes one block's symbols (each 0, 1 or 2; at most 16384 sub-blocks' worth). Errors
    /// for a symbol the model cannot code (one it gives no frequency in its context).
    pub fn encode(&self, symbols: &[u8]) -> Result<Vec<u8>, String> {
        match symbols.first() {
            None => return Err("an empty block".into()),
            Some(&s) if symbols.iter().all(|&x| x == s) => {
                return if s <= 2 {
                    Ok(vec![s])
                } else {
                    Err(format!("symbol {s}"))
                }
            }
            _ => {}
        }
        let mut out = vec![3u8];
        let mut streams = Vec::new();
        let mut scratch = vec![0u32; if self.models() > 1 { CONTEXTS * 3 } else { 0 }];
        let parts: Vec<&[u8]> = symbols.chunks(self.sub_slots()).collect();
        for (j, part) in parts.iter().enumerate() {
            let constant = part.iter().all(|&x| x == part[0]);
            let stream = if constant {
                // Only the last sub-block's is written: a byte no stream starts with.
                vec![0x80 | part[0]]
            } else {
                self.encode_stream(part, &mut scratch)?
            };
            if j + 1 < parts.len() {
                // A constant sub-block's entry is its symbol (a stream is longer than 2).
                put_leb128(
                    &mut out,
                    if constant {
                        part[0] as usize
                    } else {
                        stream.len()
                    },
                );
            }
            if !constant || j + 1 == parts.len() {
                streams.push(stream);
            }
        }
        for s in &streams {
            out.extend_from_slice(s);
        }
        Ok(out)
    }

    /// One sub-block's stream (`scratch`: zeros, one for each context and symbol, when there
    /// are several models).
    fn encode_stream(&self, part: &[u8], scratch: &mut [u32]) -> Result<Vec<u8>, String> {
        // The contexts forward, then the symbols coded backward (rANS is last in, first out).
        let mut ctx = Vec::with_capacity(part.len());
        let mut c = START;
        for &s in part {
            if s > 2 {
                return Err(format!("symbol {s}"));
            }
            ctx.push(c);
            c = next(c, s);
        }
        // The model that codes the sub-block in the fewest bits.
        let m = if self.models() > 1 {
            let g = mixture::gather(pairs(part).map(|(b, _)| b as u32), scratch);
            self.chooser().best(&g)
        } else {
            0
        };
        let mut e = if self.mix {
            Encoder::zero()
        } else {
            Encoder::default()
        };
        for (&s, &c) in part.iter().zip(&ctx).rev() {
            let f = self.freq[m][c][s as usize] as u32;
            if f == 0 {
                return Err(format!("symbol {s} has no frequency in context {c}"));
            }
            e.put(f, self.cum[m][c][s as usize] as u32);
        }
        if self.models() > 1 {
            let f = TOTAL / self.models() as u32;
            e.put(f, m as u32 * f);
        }
        Ok(e.finish())
    }

    /// Starts decoding the stream at `range` of `data`: the decoder, past the model number,
    /// and the model's.
    fn open<'a>(
        &self,
        data: &'a [u8],
        range: std::ops::Range<usize>,
    ) -> Result<(Decoder<'a>, usize), String> {
        let mut d = Decoder::with_start(&data[range], self.mix)?;
        let m = self.model_number(&mut d)?;
        Ok((d, m))
    }

    /// The bits of each (context, symbol) under each model, laid out to choose a model by.
    fn chooser(&self) -> &mixture::Chooser {
        self.cost.get_or_init(|| {
            let costs: Vec<Vec<f32>> = self
                .freq
                .iter()
                .map(|m| m.iter().flatten().map(|&f| bits_of(f)).collect())
                .collect();
            mixture::Chooser::new(&costs)
        })
    }

    /// Reads a stream's model number (none when there is one model).
    fn model_number(&self, d: &mut Decoder) -> Result<usize, String> {
        crate::rans::model_number(d, self.models())
    }

    /// What sub-block `j` of a block of `n` slots holds: a symbol throughout, or a stream (its
    /// byte range in `data`, the block's kind byte counted).
    fn sub_block(&self, data: &[u8], n: usize, j: usize) -> Result<Sub, String> {
        let k = n.div_ceil(self.sub_slots());
        match data {
            [] => Err("an empty block".into()),
            [s @ 0..=2] if j < k => Ok(Sub::Constant(*s)),
            [3, rest @ ..] if j < k => {
                // The entries, and where sub-block j's stream starts.
                let (mut at, mut start, mut len) = (0usize, 0usize, None);
                for i in 0..k - 1 {
                    let e = get_leb128(rest, &mut at)?;
                    let bytes = if e <= 2 { 0 } else { e };
                    if i < j {
                        start += bytes;
                    } else if i == j {
                        len = Some(e);
                    }
                }
                // Where the streams start in `data` (after its kind byte).
                let start = 1 + at + start;
                let range = match len {
                    Some(e @ 0..=2) => return Ok(Sub::Constant(e as u8)),
                    Some(e) => start..start + e,
                    None => start..data.len(),
                };
                match data.get(range.clone()) {
                    None => Err("stream lengths beyond the block".into()),
                    Some([s @ 0x80..=0x82]) if len.is_none() => Ok(Sub::Constant(s & 3)),
                    Some(_) => Ok(Sub::Stream(range)),
                }
            }
            [3, ..] | [0..=2] => Err(format!("sub-block {j} of {k}")),
            _ => Err(format!("block kind {}", data[0])),
        }
    }

    /// Decodes sub-block `j` (its `m` slots) up to slot `to` of it, handing each symbol to
    /// `f`; with `whole`, checks that its stream ends there in the state coding started from.
    fn decode_sub(
        &self,
        data: &[u8],
        n: usize,
        j: usize,
        to: usize,
        whole: bool,
        mut f: impl FnMut(usize, u8),
    ) -> Result<(), String> {
        match self.sub_block(data, n, j)? {
            Sub::Constant(s) => (0..to).for_each(|i| f(i, s)),
            Sub::Stream(range) => {
                let (mut d, m) = self.open(data, range)?;
                let mut c = START;
                for i in 0..to {
                    let s = symbol(&mut d, self, m, c)?;
                    f(i, s);
                    c = next(c, s);
                }
                if whole && !d.finished() {
                    return Err(format!("sub-block {j} does not end where its stream does"));
                }
            }
        }
        Ok(())
    }

    /// Decodes every symbol of a block of `n` slots into `out` (cleared first), checking
    /// that each stream ends where it should, in the state it started from.
    pub fn decode(&self, data: &[u8], n: usize, out: &mut Vec<u8>) -> Result<(), String> {
        out.clear();
        let m = self.sub_slots();
        for j in 0..n.div_ceil(m) {
            let len = (n - j * m).min(m);
            self.decode_sub(data, n, j, len, true, |_, s| out.push(s))?;
        }
        Ok(())
    }

    /// Decodes sub-block `j` of a block of `n` slots on from where `cur` stopped (from its
    /// start for a fresh or cleared one), until `cur` holds the symbols of its first `to`
    /// slots (`to` at most the sub-block's slots). On an error `cur` must be cleared before it
    /// is used again.
    pub fn advance(
        &self,
        data: &[u8],
        n: usize,
        j: usize,
        cur: &mut WdlCursor,
        to: usize,
    ) -> Result<(), String> {
        let m = self.sub_slots();
        if j * m >= n || to > (n - j * m).min(m) {
            return Err(format!(
                "slot {to} of sub-block {j} of a block of {n} slots"
            ));
        }
        if cur.syms.len() >= to {
            return Ok(());
        }
        if let Place::Fresh = cur.place {
            cur.place = match self.sub_block(data, n, j)? {
                Sub::Constant(s) => Place::Constant(s),
                Sub::Stream(r) => {
                    let mut stream = Paused::start(data, r, self.mix)?;
                    let model = stream.run(data, |d| self.model_number(d))? as u8;
                    Place::Stream {
                        stream,
                        ctx: START as u8,
                        model,
                    }
                }
            };
        }
        match &mut cur.place {
            Place::Stream { stream, ctx, model } => {
                let syms = &mut cur.syms;
                let m = *model as usize;
                *ctx = stream.run(data, |d| {
                    let mut c = *ctx as usize;
                    while syms.len() < to {
                        let s = symbol(d, self, m, c)?;
                        syms.push(s);
                        c = next(c, s);
                    }
                    Ok(c as u8)
                })?;
            }
            Place::Constant(s) => cur.syms.resize(to, *s),
            // Placed above.
            Place::Fresh => return Err("a cursor placed nowhere".into()),
        }
        Ok(())
    }
}

/// What a sub-block holds.
enum Sub {
    Constant(u8),
    /// Its stream: where it lies in the block's bytes.
    Stream(std::ops::Range<usize>),
}

/// A sub-block's symbols decoded so far and where its decoding stopped, so that a later probe
/// of the sub-block goes on from there ([`WdlModel::advance`]): what a thread's cache of
/// sub-blocks keeps.
#[derive(Debug, Default)]
pub struct WdlCursor {
    /// The symbols decoded, from the sub-block's first slot on.
    pub syms: Vec<u8>,
    place: Place,
}

impl WdlCursor {
    /// Forgets what was decoded (before another sub-block's decoding).
    pub fn clear(&mut self) {
        self.syms.clear();
        self.place = Place::Fresh;
    }
}

/// Where a sub-block's decoding stands.
#[derive(Clone, Copy, Debug, Default)]
enum Place {
    /// Nothing decoded yet.
    #[default]
    Fresh,
    /// Every slot holds this symbol.
    Constant(u8),
    /// The stream, paused in context `ctx`, and its model's number.
    Stream { stream: Paused, ctx: u8, model: u8 },
}

/// Decodes the next symbol of `d` in context `c` of model `k` of `m`.
#[inline]
fn symbol(d: &mut Decoder, m: &WdlModel, k: usize, c: usize) -> Result<u8, String> {
    let slot = d.slot();
    let cum = &m.cum[k][c];
    let s = if slot >= cum[2] as u32 {
        2
    } else if slot >= cum[1] as u32 {
        1
    } else {
        0
    };
    // A slot at or above a symbol's start, below its end (the frequencies sum to TOTAL):
    // its frequency is above 0.
    d.take(slot, m.freq[k][c][s] as u32, cum[s] as u32)?;
    Ok(s as u8)
}

/// Each symbol of a sub-block with its context: `(context * 3 + symbol, symbol)`.
fn pairs(part: &[u8]) -> impl Iterator<Item = (usize, u8)> + '_ {
    let mut c = START;
    part.iter().map(move |&s| {
        let b = c * 3 + s.min(2) as usize;
        c = next(c, s.min(2));
        (b, s)
    })
}

/// Frequencies for the counts of each context.
fn quantized(counts: &[[u64; 3]]) -> Freqs {
    let mut f = [[0u16; 3]; CONTEXTS];
    for (f, n) in f.iter_mut().zip(counts) {
        *f = crate::rans::quantize(n);
    }
    f
}

/// Bits a symbol of frequency `f` costs (infinitely many for 0).
fn bits_of(f: u16) -> f32 {
    if f == 0 {
        f32::INFINITY
    } else {
        (TOTAL as f32 / f as f32).log2()
    }
}

/// Checks a file's layout and symbols for fitting.
fn check_layout(symbols: &[u8], block: usize, sub: usize) -> Result<(), String> {
    crate::rans::check_sub(sub as u64)?;
    if block == 0 || !block.is_multiple_of(sub) {
        return Err(format!("a block of {block} slots is no multiple of {sub}"));
    }
    // The largest symbol, a reduction that vectorises (a search for the first bad one does not).
    match symbols.iter().copied().max() {
        Some(s) if s > 2 => Err(format!("symbol {s}")),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pseudo-random symbols with runs, as tables have them.
    fn symbols(n: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        let mut s = 0u8;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if x.is_multiple_of(7) {
                    s = (x >> 8) as u8 % 3;
                }
                s
            })
            .collect()
    }

    /// A model of coder 2, or of coder 4 with `mix`, through its bytes.
    fn fitted(syms: &[u8], block: usize, sub: usize, mix: bool) -> WdlModel {
        let m = if mix {
            WdlModel::fit_mix(syms, block, sub).unwrap()
        } else {
            WdlModel::fit(syms, block, sub).unwrap()
        };
        let back = WdlModel::from_bytes(&m.to_bytes(), mix).unwrap();
        assert_eq!(back, m);
        back
    }

    /// Symbols of two kinds of sub-blocks, which the symbols before tell apart badly: draws
    /// and wins alike, and draws with a win in 32.
    fn two_kinds(n: usize, sub: usize) -> Vec<u8> {
        let mut x = 12345u64;
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                match ((i / sub).is_multiple_of(3), x % 32) {
                    (true, y) => 2 * (y % 2) as u8,
                    (false, 0) => 2,
                    (false, _) => 0,
                }
            })
            .collect()
    }

    #[test]
    fn a_mixture_picks_several_models_and_codes_smaller() {
        let syms = two_kinds(1 << 18, 512);
        let one = fitted(&syms, 4096, 512, false);
        let mix = fitted(&syms, 4096, 512, true);
        assert!(mix.models() >= 2, "{} models", mix.models());
        let size =
            |m: &WdlModel| -> usize { syms.chunks(4096).map(|p| m.encode(p).unwrap().len()).sum() };
        assert!(
            size(&mix) * 10 < size(&one) * 9,
            "{} against {}",
            size(&mix),
            size(&one)
        );
        // Too many models or too few in the bytes are refused.
        let mut bytes = mix.to_bytes();
        bytes[4..8].copy_from_slice(&3u32.to_le_bytes());
        assert!(WdlModel::from_bytes(&bytes, true).is_err());
        bytes[4..8].copy_from_slice(&32u32.to_le_bytes());
        assert!(WdlModel::from_bytes(&bytes, true).is_err());
    }

    #[test]
    fn blocks_decode_to_their_symbols_whole_and_by_range() {
        for (n, block, sub, quiet, mix) in [
            (10_000, 4096, 1024, false, true),
            (1 << 16, 4096, 512, false, true),
            (20_000, 4096, 1024, true, true),
            (5000, 1024, 64, true, true),
            (10_000, 4096, 1024, false, false),
            (5000, 1024, 64, false, false),
            (300, 16384, 16384, false, false),
            (20_000, 4096, 1024, true, false),
            (5000, 1024, 64, true, false),
        ] {
            let mut syms = if n == 1 << 16 {
                two_kinds(n, sub)
            } else {
                symbols(n, n as u64)
            };
            if quiet {
                // Constant sub-blocks, in the middle of blocks and at their ends.
                for (i, x) in syms.iter_mut().enumerate() {
                    if (i / sub) % 3 != 1 {
                        *x = (i / block % 3) as u8;
                    }
                }
            }
            let m = fitted(&syms, block, sub, mix);
            assert!(mix || m.models() == 1);
            let mut out = Vec::new();
            for part in syms.chunks(block) {
                let data = m.encode(part).unwrap();
                m.decode(&data, part.len(), &mut out).unwrap();
                assert_eq!(out, part);
                // Each sub-block decoded in steps, each going on from the one before.
                for (j, sub_part) in part.chunks(sub).enumerate() {
                    let mut cur = WdlCursor::default();
                    for to in [1, 29, 29, 30, 200, sub_part.len()] {
                        let to = to.min(sub_part.len());
                        m.advance(&data, part.len(), j, &mut cur, to).unwrap();
                        assert_eq!(cur.syms, &sub_part[..cur.syms.len().max(to)], "{j} {to}");
                        assert!(cur.syms.len() >= to);
                    }
                    assert!(m
                        .advance(&data, part.len(), j, &mut cur, sub_part.len() + 1)
                        .is_err());
                    cur.clear();
                    m.advance(&data, part.len(), j, &mut cur, sub_part.len())
                        .unwrap();
                    assert_eq!(cur.syms, sub_part);
                }
            }
        }
    }

    #[test]
    fn constant_blocks_take_one_byte_and_skewed_ones_little() {
        let mut syms = vec![0u8; 4096];
        let m = WdlModel::fit(&syms, 4096, 1024).unwrap();
        assert_eq!(m.encode(&syms).unwrap(), vec![0]);
        syms[100] = 2;
        let data = m.encode(&syms);
        assert!(data.is_err(), "a symbol the model never saw is refused");
        let m = WdlModel::fit(&syms, 4096, 1024).unwrap();
        let data = m.encode(&syms).unwrap();
        assert!(data.len() < 40, "{} bytes", data.len());
        let mut out = Vec::new();
        m.decode(&data, 4096, &mut out).unwrap();
        assert_eq!(out, syms);
    }

    #[test]
    fn damaged_blocks_and_models_are_errors() {
        for mix in [false, true] {
            damaged(mix);
        }
    }

    fn damaged(mix: bool) {
        let syms = symbols(4096, 5);
        let m = fitted(&syms, 4096, 1024, mix);
        let data = m.encode(&syms).unwrap();
        let mut out = Vec::new();
        let mut caught = 0;
        for i in 0..data.len() {
            for bit in [0, 3, 7] {
                let mut bad = data.clone();
                bad[i] ^= 1 << bit;
                match m.decode(&bad, 4096, &mut out) {
                    Err(_) => caught += 1,
                    // The state check catches nearly all; what passes must still be symbols.
                    Ok(()) => assert!(out.iter().all(|&s| s <= 2)),
                }
            }
        }
        assert!(
            caught * 10 > data.len() * 3 * 9,
            "{caught} of {}",
            data.len() * 3
        );
        for cut in 0..data.len() {
            assert!(
                m.decode(&data[..cut], 4096, &mut out).is_err(),
                "cut at {cut}"
            );
        }
        let mut bytes = m.to_bytes();
        bytes[10] ^= 1;
        assert!(WdlModel::from_bytes(&bytes, mix).is_err());
        assert!(WdlModel::from_bytes(&bytes[1..], mix).is_err());
        let mut bytes = m.to_bytes();
        bytes[..4].copy_from_slice(&100u32.to_le_bytes());
        assert!(WdlModel::from_bytes(&bytes, mix).is_err());
    }

    #[test]
    fn a_model_codes_near_its_entropy() {
        let syms = symbols(1 << 16, 9);
        let m = WdlModel::fit(&syms, 4096, 1024).unwrap();
        let coded: usize = syms.chunks(4096).map(|p| m.encode(p).unwrap().len()).sum();
        // The data's order-4 entropy, sub-blocks starting cold as the coder does.
        let mut counts = vec![[0f64; 3]; CONTEXTS];
        for part in syms.chunks(1024) {
            let mut c = START;
            for &s in part {
                counts[c][s as usize] += 1.0;
                c = next(c, s);
            }
        }
        let bits: f64 = counts
            .iter()
            .flat_map(|n| {
                let t: f64 = n.iter().sum();
                n.iter()
                    .map(move |&k| if k > 0.0 { -k * (k / t).log2() } else { 0.0 })
            })
            .sum();
        let ideal = bits / 8.0;
        // State flushes and lengths: 4 + 2 bytes a sub-block, 1 a block.
        let overhead = (syms.len() / 1024 * 6 + syms.len() / 4096) as f64;
        assert!(
            (coded as f64) < ideal * 1.01 + overhead,
            "{coded} bytes against {ideal:.0} + {overhead}"
        );
    }
}
