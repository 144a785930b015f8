//! What the two rANS block coders ([`crate::wdl_rans`], [`crate::dtm_rans`]) share: byte-wise
//! rANS with 12-bit frequencies and a 3-byte state, LEB128 stream lengths, and a block file's
//! body of model, index and coded blocks.
//!
//! A stream starts from the state [`LOW`] (block coders 2 and 3) or from 0 (coders 4 and 5,
//! "zero start"). From 0 the encoder writes no byte until its state first reaches the range a
//! byte can be shifted out of, and once it has, the state stays at or above [`LOW`]: so a
//! decoder reads while its state is below [`LOW`] and bytes are left, and ends with every byte
//! read in the state 0. The 15 bits the state [`LOW`] carries through a stream for nothing
//! are saved: about 1.9 bytes a stream.

use std::ops::Range;

/// Bits of the frequencies: each context's frequencies sum to `1 << PREC`.
pub const PREC: u32 = 12;
/// What each context's frequencies sum to.
pub const TOTAL: u32 = 1 << PREC;
/// The lower bound of the coder's state, where a stream starts and ends; states lie in
/// `LOW .. LOW << 8` (3 bytes).
pub const LOW: u32 = 1 << 15;
/// Bytes of a stream's state.
const STATE_BYTES: usize = 3;

/// The shift of [`RECIPROCALS`].
const RECIPROCAL_SHIFT: u32 = 35;

/// `ceil(2^35 / f)` for each frequency `f` from 1 to [`TOTAL`] (0 for 0): the encoder divides
/// a state `x` below `2^23` by `f` as `(x * r) >> 35`. Exact: with `r f = 2^35 + e`, `e < f`,
/// `x r / 2^35 = x / f + x e / (f 2^35)`, and `x e < 2^35`, so the excess stays below `1 / f`
/// and never reaches the next multiple. A division takes several times as long.
static RECIPROCALS: [u64; TOTAL as usize + 1] = {
    let mut r = [0u64; TOTAL as usize + 1];
    let mut f = 1;
    while f <= TOTAL as usize {
        r[f] = (1u64 << RECIPROCAL_SHIFT).div_ceil(f as u64);
        f += 1;
    }
    r
};

/// A stream being coded: symbols are put last first (rANS is last in, first out).
pub struct Encoder {
    x: u32,
    out: Vec<u8>,
}

impl Default for Encoder {
    /// A fresh stream, in the state decoding ends in.
    fn default() -> Encoder {
        Encoder {
            x: LOW,
            out: Vec::new(),
        }
    }
}

impl Encoder {
    /// A fresh stream starting from the state 0 (the zero start of coders 4 and 5).
    pub fn zero() -> Encoder {
        Encoder {
            x: 0,
            out: Vec::new(),
        }
    }

    /// Codes a symbol of frequency `f` (1 to [`TOTAL`]) starting at `cum`, renormalising
    /// first.
    #[inline]
    pub fn put(&mut self, f: u32, cum: u32) {
        let max = ((LOW >> PREC) << 8) * f;
        while self.x >= max {
            self.out.push(self.x as u8);
            self.x >>= 8;
        }
        // x / f by a multiplication (below 2^23 here, see RECIPROCALS), the remainder from it.
        let q = ((self.x as u64 * RECIPROCALS[f as usize]) >> RECIPROCAL_SHIFT) as u32;
        self.x = (q << PREC) + (self.x - q * f) + cum;
    }

    /// The stream: the final state (most significant byte first), then the bytes the
    /// renormalisations wrote, in the order a decoder reads them.
    pub fn finish(mut self) -> Vec<u8> {
        self.out
            .extend_from_slice(&self.x.to_le_bytes()[..STATE_BYTES]);
        self.out.reverse();
        self.out
    }
}

/// A stream's decoding paused between two symbols, for a later probe to go on from: where
/// the stream lies in its block's bytes, the coder's state and the bytes of it read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Paused {
    start: u32,
    end: u32,
    x: u32,
    at: u32,
    zero: bool,
}

impl Paused {
    /// The stream at `range` of a block's bytes `data`, paused before its first symbol
    /// (its starting state checked); `zero`: coded from the state 0.
    pub fn start(data: &[u8], range: Range<usize>, zero: bool) -> Result<Paused, String> {
        let bytes = data.get(range.clone()).ok_or("a stream beyond its block")?;
        let d = Decoder::with_start(bytes, zero)?;
        Ok(Paused {
            start: range.start as u32,
            end: range.end as u32,
            x: d.x,
            at: d.at as u32,
            zero,
        })
    }

    /// Goes on decoding with `f` from where the stream paused (`data`: the same block's
    /// bytes), then pauses it again where `f` left it.
    pub fn run<R>(
        &mut self,
        data: &[u8],
        f: impl FnOnce(&mut Decoder) -> Result<R, String>,
    ) -> Result<R, String> {
        let bytes = data
            .get(self.start as usize..self.end as usize)
            .ok_or("a paused stream beyond its block")?;
        let mut d = Decoder {
            x: self.x,
            bytes,
            at: self.at as usize,
            zero: self.zero,
        };
        let r = f(&mut d)?;
        (self.x, self.at) = (d.x, d.at as u32);
        Ok(r)
    }
}

/// The state of one stream's decoding.
pub struct Decoder<'a> {
    x: u32,
    bytes: &'a [u8],
    at: usize,
    /// Coded from the state 0: the bytes may run out while the state is below `LOW`.
    zero: bool,
}

impl<'a> Decoder<'a> {
    /// Starts decoding `bytes` (coded from the state `LOW`), checking the state it starts
    /// from.
    pub fn new(bytes: &'a [u8]) -> Result<Decoder<'a>, String> {
        Decoder::with_start(bytes, false)
    }

    /// Starts decoding `bytes`, coded from the state 0 (`zero`) or `LOW`, checking the state
    /// it starts from.
    pub fn with_start(bytes: &'a [u8], zero: bool) -> Result<Decoder<'a>, String> {
        let head = bytes
            .get(..STATE_BYTES)
            .ok_or("a stream shorter than its state")?;
        let x = head.iter().fold(0u32, |x, &b| (x << 8) | b as u32);
        // Every state the encoder leaves lies below LOW << 8 (from LOW on, at least LOW);
        // others would overflow.
        let lo = if zero { 0 } else { LOW };
        if !(lo..LOW << 8).contains(&x) {
            return Err("a stream's state out of range".into());
        }
        Ok(Decoder {
            x,
            bytes,
            at: STATE_BYTES,
            zero,
        })
    }

    /// The slot of the next symbol, `0 .. TOTAL`: the symbol is the one whose range holds it.
    #[inline]
    pub fn slot(&self) -> u32 {
        self.x & (TOTAL - 1)
    }

    /// Takes the symbol of frequency `f` starting at `cum` whose range holds `slot` (so
    /// `cum <= slot < cum + f`, and the new state stays below `LOW << 8`), renormalising.
    #[inline]
    pub fn take(&mut self, slot: u32, f: u32, cum: u32) -> Result<(), String> {
        self.x = f * (self.x >> PREC) + slot - cum;
        while self.x < LOW {
            let Some(&b) = self.bytes.get(self.at) else {
                if self.zero {
                    // The stream's first symbols, coded before any byte was written.
                    break;
                }
                return Err("a stream cut short".into());
            };
            self.x = (self.x << 8) | b as u32;
            self.at += 1;
        }
        Ok(())
    }

    /// Whether every byte was read and the state is the one coding started from.
    pub fn finished(&self) -> bool {
        self.at == self.bytes.len() && self.x == if self.zero { 0 } else { LOW }
    }
}

/// Reads a stream's model number under a mixture of `models` models (coders 4 and 5; none is
/// coded when there is one): frequency `TOTAL / models` each, model `m` from `m` times that.
pub fn model_number(d: &mut Decoder, models: usize) -> Result<usize, String> {
    if models == 1 {
        return Ok(0);
    }
    let f = TOTAL / models as u32;
    let t = d.slot();
    let m = t / f;
    d.take(t, f, m * f)?;
    Ok(m as usize)
}

/// Frequencies summing to [`TOTAL`] for the symbol counts `n` of one context: each symbol
/// seen gets at least 1; a context never seen gets all alike (the remainder to the first).
pub fn quantize<const N: usize>(n: &[u64; N]) -> [u16; N] {
    let total: u64 = n.iter().sum();
    if total == 0 {
        let mut f = [(TOTAL as usize / N) as u16; N];
        f[0] += (TOTAL as usize % N) as u16;
        return f;
    }
    let mut f = [0u32; N];
    for (x, &k) in f.iter_mut().zip(n) {
        if k > 0 {
            *x = ((k as u128 * TOTAL as u128 / total as u128) as u32).max(1);
        }
    }
    // The rounding's excess or shortfall goes to the most frequent symbol, which keeps at
    // least 1: its share is at least TOTAL / N, the others' excess below N.
    let big = (0..N).max_by_key(|&s| f[s]).expect("symbols");
    let sum: u32 = f.iter().sum();
    f[big] = f[big] + TOTAL - sum;
    f.map(|x| x as u16)
}

/// A model's bytes: the sub-block size `sub`, then every frequency as a u16.
pub fn model_bytes<'a>(sub: u32, freqs: impl IntoIterator<Item = &'a u16>) -> Vec<u8> {
    let mut out = sub.to_le_bytes().to_vec();
    for x in freqs {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

/// The sub-block size and the frequencies of a model of `contexts` contexts of `symbols`
/// symbols from its bytes, checked: the length, a sub-block size the coders allow, each
/// context's frequencies summing to [`TOTAL`].
pub fn parse_model(
    bytes: &[u8],
    contexts: usize,
    symbols: usize,
) -> Result<(u32, Vec<u16>), String> {
    let want = 4 + 2 * contexts * symbols;
    if bytes.len() != want {
        return Err(format!("a model of {} bytes, not {want}", bytes.len()));
    }
    let sub = u32::from_le_bytes(bytes[..4].try_into().expect("4 bytes"));
    check_sub(sub as u64)?;
    let freq: Vec<u16> = bytes[4..]
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    for (c, f) in freq.chunks(symbols).enumerate() {
        if f.iter().map(|&x| x as u32).sum::<u32>() != TOTAL {
            return Err(format!("context {c}: frequencies do not sum to {TOTAL}"));
        }
    }
    Ok((sub, freq))
}

/// A mixture's bytes (coders 4 and 5): the sub-block size `sub`, the number of models
/// `models`, then every frequency of each model in turn as a u16.
pub fn mix_model_bytes<'a>(
    sub: u32,
    models: usize,
    freqs: impl IntoIterator<Item = &'a u16>,
) -> Vec<u8> {
    let mut out = sub.to_le_bytes().to_vec();
    out.extend_from_slice(&(models as u32).to_le_bytes());
    for x in freqs {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

/// The sub-block size and the frequencies of a mixture of models of `contexts` contexts of
/// `symbols` symbols (coders 4 and 5) from its bytes, checked as [`parse_model`] checks one
/// model, and a number of models that is a power of two up to 64.
pub fn parse_mix_model(
    bytes: &[u8],
    contexts: usize,
    symbols: usize,
) -> Result<(u32, Vec<u16>), String> {
    let k = bytes
        .get(4..8)
        .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
        .ok_or("a model shorter than its head")?;
    if !k.is_power_of_two() || k > crate::mixture::MAX_MODELS {
        return Err(format!("{k} models"));
    }
    let mut one = bytes[..4].to_vec();
    one.extend_from_slice(&bytes[8..]);
    // The models as one of k times the contexts.
    parse_model(&one, contexts * k, symbols)
}

/// Appends `v` as LEB128 (7 bits a byte, low first, the high bit set on all but the last).
pub fn put_leb128(out: &mut Vec<u8>, mut v: usize) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a LEB128 number of at most 3 bytes at `*at`, moving past it.
pub fn get_leb128(bytes: &[u8], at: &mut usize) -> Result<usize, String> {
    let mut v = 0usize;
    for shift in [0, 7, 14] {
        let b = *bytes.get(*at).ok_or("stream lengths cut short")?;
        *at += 1;
        v |= ((b & 0x7f) as usize) << shift;
        if b < 0x80 {
            return Ok(v);
        }
    }
    Err("a stream length over 3 bytes".into())
}

/// A block file's body of `model` bytes (in the dictionary's place), the index and the coded
/// `blocks`; and the data's length.
pub fn body(model: Vec<u8>, coded: &[Vec<u8>]) -> (Vec<u8>, u64) {
    let mut body = model;
    let mut end = 0u64;
    body.extend_from_slice(&0u64.to_le_bytes());
    for c in coded {
        end += c.len() as u64;
        body.extend_from_slice(&end.to_le_bytes());
    }
    for c in coded {
        body.extend_from_slice(c);
    }
    (body, end)
}

/// The sub-block sizes a model may give.
const SUB_RANGE: std::ops::RangeInclusive<u32> = 64..=16384;

/// Whether `sub` is a valid sub-block size of the rANS coders (a power of two from 64 to 16,384).
pub(crate) fn check_sub(sub: u64) -> Result<(), String> {
    if sub.is_power_of_two() && SUB_RANGE.contains(&(sub as u32)) {
        Ok(())
    } else {
        Err(format!(
            "a sub-block of {sub} slots (a power of two from 64 to 16384)"
        ))
    }
}

#[cfg(test)]
mod reciprocal_tests {
    use super::*;

    /// The encoder's division by multiplication equals the division, for every frequency and
    /// states across the whole range it is used on (below `2^11 f`, at most `2^23`).
    #[test]
    fn reciprocals_divide_exactly() {
        for f in 1..=TOTAL {
            let limit = (LOW >> PREC << 8) * f;
            let step = (limit / 5000).max(1);
            let mut x = 0;
            while x < limit {
                for y in [x, limit - 1 - x.min(limit - 1)] {
                    let q = ((y as u64 * RECIPROCALS[f as usize]) >> RECIPROCAL_SHIFT) as u32;
                    assert_eq!(q, y / f, "x = {y}, f = {f}");
                }
                x += step;
            }
        }
    }
}
