//! Block coder 3 of compressed distance files ([`crate::block_file::CODER_DTM_RANS`]): the
//! entries of a distance block (each `d >> 1`, or a searched-win entry) coded by rANS over a
//! static model per file, the probabilities of an entry given the one before it. A block's
//! entries are cut as the win/draw/loss file's sub-blocks cut its slots (encodings 13 and 14),
//! each sub-block's a stream of its own from a fresh state, so a probe decodes its sub-block's
//! entries up to its own and no further, where a zstd block is decoded whole.
//!
//! Model bytes: `u32` sub-block size in slots (as the win/draw/loss file's), then for each of
//! the 49 contexts the frequencies of symbols `0 .. 64` as `u16`, summing to 4096. Symbol `v`
//! below 63 is the entry `v`; symbol 63 is an escape, followed in the stream by the entry
//! minus 63 as two 12-bit numbers, low first, each coded with frequency 1 (`cum` = the
//! number). The context of an entry is the entry before it in its sub-block, 47 and up
//! counting as 47, or 48 for the sub-block's first.
//!
//! Block bytes (a distance block of `k` sub-blocks): `k - 1` u16 numbers, number `j - 1` the
//! entries of the block before sub-block `j` (the head of encodings 13 and 14); a u16, the
//! block's entries; `k - 1` LEB128 numbers, the byte lengths of the streams of sub-blocks
//! `0 .. k - 1` (0: no entries, no stream); then the streams, the last taking the rest of the
//! block. A stream is the coder's final state (3 bytes, most significant first) and the bytes
//! its renormalisations read, in order, as in [`crate::wdl_rans`].
//!
//! Block coder 5 ([`crate::block_file::CODER_DTM_RANS_MIX`]) is the same with a mixture of
//! models ([`crate::mixture`]) and streams coded from the state 0 ([`crate::rans`]), as coder 4
//! is to coder 2: the model bytes are the sub-block size, the number of models `K` (a power
//! of two up to 64) as a `u32`, then `K` models' frequencies as above; a stream's first symbol, when
//! `K > 1`, is its model's number `i`, coded with frequency `4096 / K` from `i * 4096 / K`.

use std::ops::Range;

use crate::mixture;
use crate::rans::{get_leb128, put_leb128, Decoder, Encoder, Paused, PREC, TOTAL};

/// Symbols: entries 0 to 62, and the escape.
const SYMBOLS: usize = 64;
const ESCAPE: usize = SYMBOLS - 1;
/// Contexts: the entry before, 0 to 46 each, 47 and up together; and "none" (a sub-block's
/// first entry).
const BUCKETS: usize = 48;
const CONTEXTS: usize = BUCKETS + 1;
const START: usize = BUCKETS;
/// Bytes of a model.
pub const MODEL_BYTES: usize = 4 + CONTEXTS * SYMBOLS * 2;

/// The context after entry `v`.
#[inline]
fn next(v: u16) -> usize {
    (v as usize).min(BUCKETS - 1)
}

/// A static model of distance entries: per context, each symbol's frequency and the sum of
/// those before it.
#[derive(Clone, Debug, PartialEq)]
pub struct DtmModel {
    sub: u32,
    /// Coder 5: the model numbers and the zero start.
    mix: bool,
    /// Per context of each model in turn (model `m`'s context `c` at `m * CONTEXTS + c`).
    freq: Vec<[u16; SYMBOLS]>,
    cum: Vec<[u16; SYMBOLS + 1]>,
    /// Per context, for each 64 slots of the 4096, the symbol whose range holds the first:
    /// a decoder starts there and steps up (one or two steps as a rule).
    first: Vec<[u8; 64]>,
    /// Bits of each (context, symbol) of each model (infinite for a frequency of 0): what the
    /// encoder picks a sub-block's model by.
    /// (Computed when first needed: readers never need it.)
    cost: std::sync::OnceLock<mixture::Chooser>,
}

impl DtmModel {
    /// The model of the entries `groups` (each a sub-block's, in order) of a file of
    /// `sub`-slot sub-blocks. A symbol seen in a context gets a frequency of at least 1.
    pub fn fit<'a>(
        groups: impl IntoIterator<Item = &'a [u16]>,
        sub: u32,
    ) -> Result<DtmModel, String> {
        crate::rans::check_sub(sub as u64)?;
        let mut counts = vec![[0u64; SYMBOLS]; CONTEXTS];
        for g in groups {
            for b in pairs(g) {
                counts[b as usize / SYMBOLS][b as usize % SYMBOLS] += 1;
            }
        }
        Ok(DtmModel::with(
            sub,
            false,
            counts.iter().map(crate::rans::quantize).collect(),
        ))
    }

    /// The models (coder 5) of the entries `groups` as [`DtmModel::fit`] takes them: the
    /// sub-blocks with entries sorted into kinds ([`mixture::fit`]), a model fitted to
    /// each kind.
    pub fn fit_mix<'a>(
        groups: impl Iterator<Item = &'a [u16]>,
        sub: u32,
    ) -> Result<DtmModel, String> {
        crate::rans::check_sub(sub as u64)?;
        let coded: Vec<&[u16]> = groups.filter(|g| !g.is_empty()).collect();
        let gather = |g: &&[u16], scratch: &mut [u32]| mixture::gather(pairs(g), scratch);
        let bins = CONTEXTS * SYMBOLS;
        let counts = mixture::fit(&coded, bins, SYMBOLS, 2 * bins, gather);
        let freq = counts
            .iter()
            .flat_map(|c| c.chunks_exact(SYMBOLS))
            .map(|x| crate::rans::quantize(&<[u64; SYMBOLS]>::try_from(x).expect("SYMBOLS")))
            .collect();
        Ok(DtmModel::with(sub, true, freq))
    }

    fn with(sub: u32, mix: bool, freq: Vec<[u16; SYMBOLS]>) -> DtmModel {
        let cum = freq
            .iter()
            .map(|f| {
                let mut c = [0u16; SYMBOLS + 1];
                for s in 0..SYMBOLS {
                    c[s + 1] = c[s] + f[s];
                }
                c
            })
            .collect::<Vec<_>>();
        let first = cum
            .iter()
            .map(|c| {
                let mut t = [0u8; 64];
                for (b, x) in t.iter_mut().enumerate() {
                    *x = (c[1..].partition_point(|&v| v as usize <= 64 * b)) as u8;
                }
                t
            })
            .collect();
        DtmModel {
            sub,
            mix,
            freq,
            cum,
            first,
            cost: std::sync::OnceLock::new(),
        }
    }

    /// Whether this is a model of coder 5 (a mixture, streams from the state 0).
    pub fn is_mix(&self) -> bool {
        self.mix
    }

    /// The number of models (1 under coder 3).
    pub fn models(&self) -> usize {
        self.freq.len() / CONTEXTS
    }

    /// Slots of a sub-block.
    pub fn sub_slots(&self) -> usize {
        self.sub as usize
    }

    /// The model's bytes (see the module's documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let freqs = self.freq.iter().flatten();
        if self.mix {
            crate::rans::mix_model_bytes(self.sub, self.models(), freqs)
        } else {
            crate::rans::model_bytes(self.sub, freqs)
        }
    }

    /// The model `bytes` hold (of coder 5 with `mix`, else 3), checked: a sub-block size the
    /// coders allow, a number of models they allow, every context's frequencies summing to
    /// 4096.
    pub fn from_bytes(bytes: &[u8], mix: bool) -> Result<DtmModel, String> {
        let (sub, all) = if mix {
            crate::rans::parse_mix_model(bytes, CONTEXTS, SYMBOLS)?
        } else {
            crate::rans::parse_model(bytes, CONTEXTS, SYMBOLS)?
        };
        let freq = all
            .chunks_exact(SYMBOLS)
            .map(|x| x.try_into().expect("SYMBOLS frequencies"))
            .collect();
        Ok(DtmModel::with(sub, mix, freq))
    }

    /// Codes one distance block whose sub-blocks hold the entries `groups` (at most 65,535
    /// entries in all). Errors for an entry the model cannot code.
    pub fn encode(&self, groups: &[&[u16]]) -> Result<Vec<u8>, String> {
        let k = groups.len();
        if k == 0 {
            return Err("a block of no sub-blocks".into());
        }
        let total: usize = groups.iter().map(|g| g.len()).sum();
        if total > u16::MAX as usize {
            return Err(format!("{total} entries in a block"));
        }
        let mut out = Vec::new();
        let mut before = 0usize;
        for g in &groups[..k - 1] {
            before += g.len();
            out.extend_from_slice(&(before as u16).to_le_bytes());
        }
        out.extend_from_slice(&(total as u16).to_le_bytes());
        let mut scratch = vec![
            0u32;
            if self.models() > 1 {
                CONTEXTS * SYMBOLS
            } else {
                0
            }
        ];
        let streams = groups
            .iter()
            .map(|g| self.encode_stream(g, &mut scratch))
            .collect::<Result<Vec<_>, String>>()?;
        for s in &streams[..k - 1] {
            put_leb128(&mut out, s.len());
        }
        for s in &streams {
            out.extend_from_slice(s);
        }
        Ok(out)
    }

    /// One sub-block's stream (empty for no entries; `scratch`: zeros, one for each context
    /// and symbol, when there are several models).
    fn encode_stream(&self, entries: &[u16], scratch: &mut [u32]) -> Result<Vec<u8>, String> {
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        // The model that codes the sub-block in the fewest bits.
        let m = if self.models() > 1 {
            self.chooser()
                .best(&mixture::gather(pairs(entries), scratch))
        } else {
            0
        };
        let mut ctx = Vec::with_capacity(entries.len());
        let mut c = START;
        for &v in entries {
            ctx.push(m * CONTEXTS + c);
            c = next(v);
        }
        let mut e = if self.mix {
            Encoder::zero()
        } else {
            Encoder::default()
        };
        // rANS is last in, first out: code backwards, an escape's numbers before its symbol.
        for (&v, &c) in entries.iter().zip(&ctx).rev() {
            let s = (v as usize).min(ESCAPE);
            if s == ESCAPE {
                let rest = v as u32 - ESCAPE as u32;
                e.put(1, rest >> PREC);
                e.put(1, rest & (TOTAL - 1));
            }
            let f = self.freq[c][s] as u32;
            if f == 0 {
                return Err(format!("entry {v} has no frequency in context {c}"));
            }
            e.put(f, self.cum[c][s] as u32);
        }
        if self.models() > 1 {
            let f = TOTAL / self.models() as u32;
            e.put(f, m as u32 * f);
        }
        Ok(e.finish())
    }

    /// The bits of each (context, symbol) of each model, laid out to choose a model by.
    fn chooser(&self) -> &mixture::Chooser {
        self.cost.get_or_init(|| {
            let costs: Vec<Vec<f32>> = self
                .freq
                .chunks(CONTEXTS)
                .map(|m| m.iter().flatten().map(|&f| bits_of(f)).collect())
                .collect();
            mixture::Chooser::new(&costs)
        })
    }

    /// Reads a stream's model number (none when there is one model): the offset of its
    /// contexts.
    fn model_base(&self, d: &mut Decoder) -> Result<usize, String> {
        Ok(crate::rans::model_number(d, self.models())? * CONTEXTS)
    }

    /// The parts of a block of `k` sub-blocks: its head of counts (`k - 1` numbers, then the
    /// block's entries) and where each stream lies.
    fn parts<'a>(&self, data: &'a [u8], k: usize) -> Result<Parts<'a>, String> {
        let head = data
            .get(..2 * k)
            .ok_or_else(|| "a block shorter than its head".to_string())?;
        let count = |j: usize| u16::from_le_bytes([head[2 * j], head[2 * j + 1]]) as usize;
        let mut bounds = Vec::with_capacity(k + 1);
        bounds.push(0usize);
        for j in 0..k {
            if count(j) < bounds[j] {
                return Err(format!("the head's counts fall at sub-block {}", j + 1));
            }
            bounds.push(count(j));
        }
        let mut at = 2 * k;
        let mut lens = Vec::with_capacity(k);
        for _ in 0..k - 1 {
            lens.push(get_leb128(data, &mut at)?);
        }
        let mut starts = Vec::with_capacity(k + 1);
        starts.push(at);
        for &l in &lens {
            let end = starts[starts.len() - 1] + l;
            starts.push(end);
        }
        if starts[k - 1] > data.len() {
            return Err("stream lengths beyond the block".into());
        }
        starts.push(data.len());
        Ok(Parts {
            data,
            bounds,
            starts,
        })
    }

    /// The number of entries of sub-block `j` of a block of `k` sub-blocks and where its
    /// stream lies in the block's bytes: the head's counts checked as [`DtmModel::decode`]
    /// checks them, the stream lengths up to this sub-block's.
    fn locate(&self, data: &[u8], k: usize, j: usize) -> Result<(usize, Range<usize>), String> {
        if j >= k {
            return Err(format!("sub-block {j} of {k}"));
        }
        let head = data
            .get(..2 * k)
            .ok_or_else(|| "a block shorter than its head".to_string())?;
        let count = |i: usize| u16::from_le_bytes([head[2 * i], head[2 * i + 1]]) as usize;
        let mut before = 0;
        for i in 0..k {
            if count(i) < before {
                return Err(format!("the head's counts fall at sub-block {}", i + 1));
            }
            before = count(i);
        }
        let n = count(j) - if j == 0 { 0 } else { count(j - 1) };
        let (mut at, mut start, mut len) = (2 * k, 0usize, None);
        for i in 0..k - 1 {
            let l = get_leb128(data, &mut at)?;
            if i < j {
                start += l;
            } else if i == j {
                len = Some(l);
            }
        }
        let start = at + start;
        let end = len.map_or(data.len(), |l| start + l);
        if start > end || end > data.len() {
            return Err("stream lengths beyond the block".into());
        }
        Ok((n, start..end))
    }

    /// Decodes sub-block `j` of a block of `k` sub-blocks on from where `cur` stopped (from
    /// its start for a fresh or cleared one), until `cur` holds its first `to` entries; once
    /// it holds them all, checks that the stream ends there. On an error `cur` must be
    /// cleared before it is used again.
    pub fn advance(
        &self,
        data: &[u8],
        k: usize,
        j: usize,
        cur: &mut DtmCursor,
        to: usize,
    ) -> Result<(), String> {
        if cur.ents.len() >= to {
            return Ok(());
        }
        let p = match &mut cur.place {
            Some(p) => p,
            place @ None => {
                let (n, r) = self.locate(data, k, j)?;
                let mut stream = Paused::start(data, r, self.mix)?;
                let base = stream.run(data, |d| self.model_base(d))? as u16;
                place.insert(DtmPlace {
                    stream,
                    n: n as u32,
                    ctx: START as u8,
                    base,
                })
            }
        };
        let n = p.n as usize;
        if to > n {
            return Err(format!("entry {} of {n} in sub-block {j}", to - 1));
        }
        let ents = &mut cur.ents;
        let base = p.base as usize;
        p.ctx = p.stream.run(data, |d| {
            let mut c = p.ctx as usize;
            while ents.len() < to {
                let v = entry(d, self, base + c)?;
                ents.push(v);
                c = next(v);
            }
            if ents.len() == n && !d.finished() {
                return Err(format!("sub-block {j} does not end where its stream does"));
            }
            Ok(c as u8)
        })?;
        Ok(())
    }

    /// Decodes a whole block of `k` sub-blocks: its head (the entries before each sub-block
    /// but the first) into `head` and every entry into `out` (both cleared first), checking
    /// that each stream ends where it should, in the state it started from.
    pub fn decode(
        &self,
        data: &[u8],
        k: usize,
        head: &mut Vec<u16>,
        out: &mut Vec<u16>,
    ) -> Result<(), String> {
        let p = self.parts(data, k)?;
        head.clear();
        head.extend(p.bounds[1..k].iter().map(|&b| b as u16));
        out.clear();
        for j in 0..k {
            self.stream_entries(&p, j, out)?;
        }
        Ok(())
    }

    /// Appends the entries of sub-block `j` of `p` to `out`.
    fn stream_entries(&self, p: &Parts, j: usize, out: &mut Vec<u16>) -> Result<(), String> {
        let n = p.bounds[j + 1] - p.bounds[j];
        let stream = p.stream(j);
        if n == 0 {
            if !stream.is_empty() {
                return Err(format!("a stream for sub-block {j} of no entries"));
            }
            return Ok(());
        }
        let mut d = Decoder::with_start(stream, self.mix)?;
        let base = self.model_base(&mut d)?;
        let mut c = START;
        for _ in 0..n {
            let v = entry(&mut d, self, base + c)?;
            out.push(v);
            c = next(v);
        }
        if !d.finished() {
            return Err(format!("sub-block {j} does not end where its stream does"));
        }
        Ok(())
    }
}

/// A sub-block's distance entries decoded so far and where its decoding stopped, so that a
/// later probe of the sub-block goes on from there ([`DtmModel::advance`]).
#[derive(Debug, Default)]
pub struct DtmCursor {
    /// The entries decoded, from the sub-block's first on.
    pub ents: Vec<u16>,
    place: Option<DtmPlace>,
}

impl DtmCursor {
    /// The sub-block's entries as its block's head gives them (`None` before the first
    /// [`DtmModel::advance`]).
    pub fn entries(&self) -> Option<usize> {
        self.place.map(|p| p.n as usize)
    }

    /// Forgets what was decoded (before another sub-block's decoding).
    pub fn clear(&mut self) {
        self.ents.clear();
        self.place = None;
    }
}

/// Where a sub-block's entries' decoding stands: its `n` entries' stream, paused in context
/// `ctx`.
#[derive(Clone, Copy, Debug)]
struct DtmPlace {
    stream: Paused,
    n: u32,
    ctx: u8,
    /// The offset of its model's contexts.
    base: u16,
}

/// A block's head counts and stream bounds.
struct Parts<'a> {
    data: &'a [u8],
    /// Entries before each sub-block, and the block's (k + 1 numbers).
    bounds: Vec<usize>,
    /// Where each stream starts, and the block's end (k + 1 numbers).
    starts: Vec<usize>,
}

impl Parts<'_> {
    fn stream(&self, j: usize) -> &[u8] {
        &self.data[self.starts[j]..self.starts[j + 1]]
    }
}

/// Each entry of a sub-block as `context * SYMBOLS + symbol`.
fn pairs(entries: &[u16]) -> impl Iterator<Item = u32> + Clone + '_ {
    let mut c = START;
    entries.iter().map(move |&v| {
        let b = c * SYMBOLS + (v as usize).min(ESCAPE);
        c = next(v);
        b as u32
    })
}

/// Bits a symbol of frequency `f` costs (infinitely many for 0).
fn bits_of(f: u16) -> f32 {
    if f == 0 {
        f32::INFINITY
    } else {
        (TOTAL as f32 / f as f32).log2()
    }
}

/// Decodes the next entry of `d` in context `c` (of all models' contexts) of `m`.
#[inline(always)]
fn entry(d: &mut Decoder, m: &DtmModel, c: usize) -> Result<u16, String> {
    let t = d.slot();
    let cum = &m.cum[c];
    // The symbol whose range holds t: from the table's guess, step up past the ranges that
    // end at or below it (a symbol of frequency 0 has an empty range; cum[SYMBOLS] = TOTAL).
    let mut s = m.first[c][(t >> 6) as usize] as usize;
    let mut end = cum[s + 1] as u32;
    while end <= t {
        s += 1;
        end = cum[s + 1] as u32;
    }
    let lo = cum[s] as u32;
    d.take(t, end - lo, lo)?;
    if s < ESCAPE {
        return Ok(s as u16);
    }
    escaped(d)
}

/// The rest of an escaped entry: two 12-bit numbers of frequency 1 (the slot is the number).
#[cold]
fn escaped(d: &mut Decoder) -> Result<u16, String> {
    let mut number = || {
        let t = d.slot();
        d.take(t, 1, t).map(|()| t)
    };
    let low = number()?;
    let high = number()?;
    let v = ESCAPE as u32 + (high << PREC) + low;
    u16::try_from(v).map_err(|_| format!("an escaped entry of {v}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pseudo-random entries, mostly small and near the one before, some escaped.
    fn groups(k: usize, seed: u64) -> Vec<Vec<u16>> {
        let mut x = seed | 1;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        (0..k)
            .map(|j| {
                let n = if j % 5 == 3 {
                    0
                } else {
                    (rnd() % 300) as usize
                };
                if j % 5 == 1 {
                    // Constant sub-blocks.
                    return vec![(j % 3) as u16 * 100; n];
                }
                let mut v = 3u16;
                (0..n)
                    .map(|_| {
                        let r = rnd();
                        v = match r % 400 {
                            0 => (r >> 8) as u16 % 9000,
                            1..=80 => (r >> 8) as u16 % 40,
                            _ => v,
                        };
                        v
                    })
                    .collect()
            })
            .collect()
    }

    /// A model of coder 3, or of coder 5 with `mix`, through its bytes.
    fn fitted(gs: &[Vec<u16>], mix: bool) -> DtmModel {
        let all = gs.iter().map(|g| &g[..]);
        let m = if mix {
            DtmModel::fit_mix(all, 512).unwrap()
        } else {
            DtmModel::fit(all, 512).unwrap()
        };
        let back = DtmModel::from_bytes(&m.to_bytes(), mix).unwrap();
        assert_eq!(back, m);
        back
    }

    #[test]
    fn a_mixture_picks_several_models_and_codes_smaller() {
        // Sub-blocks of short distances (0 to 3) and of long ones (20 to 35), each entry
        // drawn alone, so the entry before tells the kinds apart only in part.
        let mut x = 99u64;
        let gs: Vec<Vec<u16>> = (0..3000)
            .map(|j| {
                (0..200)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        if j % 2 == 0 || x.is_multiple_of(8) {
                            (x % 4) as u16
                        } else {
                            20 + (x >> 8) as u16 % 16
                        }
                    })
                    .collect()
            })
            .collect();
        let one = fitted(&gs, false);
        let mix = fitted(&gs, true);
        assert!(mix.models() >= 2, "{} models", mix.models());
        let size = |m: &DtmModel| -> usize { gs.chunks(8).map(|c| coded(m, c).len()).sum() };
        assert!(
            size(&mix) * 100 < size(&one) * 97,
            "{} against {}",
            size(&mix),
            size(&one)
        );
        let (mut head, mut out) = (Vec::new(), Vec::new());
        for c in gs.chunks(8) {
            mix.decode(&coded(&mix, c), c.len(), &mut head, &mut out)
                .unwrap();
            assert_eq!(out, c.concat());
        }
    }

    fn coded(m: &DtmModel, gs: &[Vec<u16>]) -> Vec<u8> {
        let refs: Vec<&[u16]> = gs.iter().map(|g| &g[..]).collect();
        m.encode(&refs).unwrap()
    }

    #[test]
    fn blocks_decode_to_their_entries_whole_and_one_by_one() {
        for (k, seed, mix) in [
            (8, 1, false),
            (1, 2, false),
            (4, 3, false),
            (8, 4, false),
            (8, 1, true),
            (1, 2, true),
            (8, 4, true),
        ] {
            let gs = groups(k, seed);
            let m = fitted(&gs, mix);
            let data = coded(&m, &gs);
            let (mut head, mut out) = (Vec::new(), Vec::new());
            m.decode(&data, k, &mut head, &mut out).unwrap();
            assert_eq!(out, gs.concat());
            let mut before = 0;
            for (j, g) in gs.iter().enumerate() {
                if j > 0 {
                    assert_eq!(head[j - 1] as usize, before);
                }
                before += g.len();
                // Entry by entry, each step going on from the one before; then in one go.
                let mut cur = DtmCursor::default();
                for (i, &v) in g.iter().enumerate() {
                    m.advance(&data, k, j, &mut cur, i + 1).unwrap();
                    assert_eq!(cur.ents[i], v, "{j} {i}");
                }
                assert_eq!(&cur.ents, g);
                assert!(m.advance(&data, k, j, &mut cur, g.len() + 1).is_err());
                cur.clear();
                m.advance(&data, k, j, &mut cur, g.len()).unwrap();
                assert_eq!(&cur.ents, g);
            }
        }
    }

    #[test]
    fn damaged_and_cut_blocks_are_errors() {
        for mix in [false, true] {
            damaged(mix);
        }
    }

    fn damaged(mix: bool) {
        let mut gs = groups(8, 7);
        if mix {
            // No escapes: a mixture gives a sub-block of escaped entries alone a model where
            // the escape costs nothing, and its stream is the entries' bits, unchecked.
            gs.iter_mut().flatten().for_each(|v| *v %= 63);
        }
        let m = fitted(&gs, mix);
        let data = coded(&m, &gs);
        let (mut head, mut out) = (Vec::new(), Vec::new());
        // The head's counts (16 bytes) are checked by the table against the win/draw/loss
        // file's decided slots; a stream from the state 0 decodes extra entries from the
        // state 0 without noticing, so the coder alone is tried on the bytes after the head.
        let from = if mix { 16 } else { 0 };
        let mut caught = 0;
        for i in from..data.len() {
            let mut bad = data.clone();
            bad[i] ^= 0x10;
            if m.decode(&bad, 8, &mut head, &mut out).is_err() {
                caught += 1;
            }
        }
        // The final state catches nearly every flip; an escaped entry's 24 bits are coded
        // without redundancy (the file's block checksums catch those).
        let tried = data.len() - from;
        assert!(caught * 10 > tried * 8, "{caught} of {tried}");
        for cut in 0..data.len() {
            assert!(m.decode(&data[..cut], 8, &mut head, &mut out).is_err());
        }
        let mut bytes = m.to_bytes();
        bytes[100] ^= 1;
        assert!(DtmModel::from_bytes(&bytes, mix).is_err());
        assert!(DtmModel::from_bytes(&bytes[2..], mix).is_err());
    }

    #[test]
    fn an_entry_the_model_never_saw_is_refused() {
        let m = DtmModel::fit([&[1u16, 1, 2][..]], 512).unwrap();
        assert!(m.encode(&[&[1, 5]]).is_err());
        assert!(m.encode(&[]).is_err());
    }
}
