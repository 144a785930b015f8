//! What a compressed block holds before compression: win/draw/loss symbols packed 2 bits a
//! slot, and the distances of a block's decided positions as bytes (`databases/README.md`).
//!
//! A distance's parity is its class's (a win takes an odd number of plies, a loss an even one:
//! the winner makes the last ply), so a block stores `d >> 1`: one byte below 255, else 255 and
//! the value as two little-endian bytes.

/// Win/draw/loss symbol of a draw.
pub const SYM_DRAW: u8 = 0;
/// Symbol of a loss.
pub const SYM_LOSS: u8 = 1;
/// Symbol of a win.
pub const SYM_WIN: u8 = 2;

/// The symbol of a stored `u16` code (`None` for a wasted slot).
#[inline]
pub fn symbol_of(code: u16) -> Option<u8> {
    match code >> 14 {
        3 => None,
        c => Some(c as u8),
    }
}

/// Symbols of a block's slots with wasted slots given the symbol before them (they are "don't
/// care": no position maps to them, and repeating the last symbol compresses best).
pub fn symbols(codes: &[u16], before: u8) -> Vec<u8> {
    let mut last = before;
    codes
        .iter()
        .map(|&c| {
            last = symbol_of(c).unwrap_or(last);
            last
        })
        .collect()
}

/// Packs symbols 2 bits each (slot `i` in bits `2 (i % 4)` of byte `i / 4`).
pub fn pack(symbols: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; symbols.len().div_ceil(4)];
    for (i, &s) in symbols.iter().enumerate() {
        out[i / 4] |= (s & 3) << (2 * (i % 4));
    }
    out
}

/// Symbol `i` of packed bytes.
#[inline]
pub fn unpack_at(packed: &[u8], i: usize) -> u8 {
    packed[i / 4] >> (2 * (i % 4)) & 3
}

/// Decided slots (wins and losses) among symbols `from..to` of packed bytes (`from` a
/// multiple of 4), eight bytes at a time.
pub fn decided_between(packed: &[u8], from: usize, to: usize) -> usize {
    // A symbol is decided when exactly one of its two bits is set (1 loss, 2 win; 3 unused).
    count_between(packed, from, to, |x| x ^ (x >> 1))
}

/// Wins (symbol 2: high bit set, low bit clear) among symbols `from..to` of packed bytes
/// (`from` a multiple of 4).
pub fn wins_between(packed: &[u8], from: usize, to: usize) -> usize {
    count_between(packed, from, to, |x| (x >> 1) & !x)
}

/// Losses (symbol 1) among symbols `from..to` of packed bytes (`from` a multiple of 4).
pub fn losses_between(packed: &[u8], from: usize, to: usize) -> usize {
    count_between(packed, from, to, |x| x & !(x >> 1))
}

/// Symbols among `from..to` whose low bit, after `f` of their word, is set: `f` maps each
/// 2-bit symbol's bits so that the low bit of each says whether it counts.
#[inline]
fn count_between(packed: &[u8], from: usize, to: usize, f: impl Fn(u64) -> u64) -> usize {
    debug_assert!(from.is_multiple_of(4) && from <= to);
    let count = |b: u8, k: usize| {
        let x = f(b as u64) & 0x55 & ((1u64 << (2 * k)) - 1);
        x.count_ones() as usize
    };
    let bytes = &packed[from / 4..to / 4];
    let mut words = bytes.chunks_exact(8);
    let mut c: usize = words
        .by_ref()
        .map(|w| {
            let x = u64::from_le_bytes(w.try_into().expect("8 bytes"));
            (f(x) & 0x5555_5555_5555_5555).count_ones() as usize
        })
        .sum();
    c += words
        .remainder()
        .iter()
        .map(|&b| count(b, 4))
        .sum::<usize>();
    if !to.is_multiple_of(4) {
        c += count(packed[to / 4], to % 4);
    }
    c
}

/// Appends one stored distance (`d >> 1`).
pub fn put_distance(out: &mut Vec<u8>, half: u16) {
    if half < 255 {
        out.push(half as u8);
    } else {
        out.push(255);
        out.extend_from_slice(&half.to_le_bytes());
    }
}

/// The `k`-th stored distance (`d >> 1`) of a block's distance bytes (`None` if the bytes end
/// first).
pub fn distance_at(bytes: &[u8], k: usize) -> Option<u16> {
    // Entries are single bytes up to the next escape byte (255): skip runs of them at once.
    let (mut at, mut left) = (0usize, k);
    while left > 0 {
        let run = bytes.get(at..(at + left).min(bytes.len()))?;
        match run.iter().position(|&b| b == 255) {
            Some(j) => (at, left) = (at + j + 3, left - j - 1),
            None if run.len() == left => (at, left) = (at + left, 0),
            None => return None,
        }
    }
    match *bytes.get(at)? {
        255 => Some(u16::from_le_bytes([
            *bytes.get(at + 1)?,
            *bytes.get(at + 2)?,
        ])),
        h => Some(h as u16),
    }
}

/// Every stored distance of a block's distance bytes (`None` if the last one is cut short).
pub fn distances(bytes: &[u8]) -> Option<Vec<u16>> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0usize;
    while at < bytes.len() {
        if bytes[at] == 255 {
            out.push(u16::from_le_bytes([
                *bytes.get(at + 1)?,
                *bytes.get(at + 2)?,
            ]));
            at += 3;
        } else {
            out.push(bytes[at] as u16);
            at += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_pack_and_count_as_a_plain_loop_does() {
        let codes: Vec<u16> = (0..1000u32)
            .map(|i| match (i * 7919 + i / 13) % 5 {
                0 => 0,
                1 => 0x4000 | (i % 40) as u16,
                2 => 0x8000 | (i % 31) as u16,
                3 => 0xC000,
                _ => 0x8001,
            })
            .collect();
        let syms = symbols(&codes, SYM_WIN);
        let packed = pack(&syms);
        for (i, &s) in syms.iter().enumerate() {
            assert_eq!(unpack_at(&packed, i), s);
            let want = match codes[i] >> 14 {
                3 if i == 0 => SYM_WIN,
                3 => syms[i - 1],
                c => c as u8,
            };
            assert_eq!(s, want, "slot {i}");
        }
        for n in 0..=syms.len() {
            let plain = syms[..n].iter().filter(|&&s| s == 1 || s == 2).count();
            assert_eq!(decided_between(&packed, 0, n), plain, "{n}");
            for from in (0..=n).step_by(4).filter(|f| f % 36 == 0 || f % 40 == 4) {
                let plain = syms[from..n].iter().filter(|&&s| s == 1 || s == 2).count();
                assert_eq!(decided_between(&packed, from, n), plain, "{from}..{n}");
                let of = |x: u8| syms[from..n].iter().filter(|&&s| s == x).count();
                assert_eq!(wins_between(&packed, from, n), of(SYM_WIN), "{from}..{n}");
                assert_eq!(
                    losses_between(&packed, from, n),
                    of(SYM_LOSS),
                    "{from}..{n}"
                );
            }
        }
    }

    #[test]
    fn a_distance_is_found_past_runs_and_escapes() {
        let ds: Vec<u16> = (0..3000u32)
            .map(|i| match i % 97 {
                0 | 5 => 255 + (i % 700) as u16,
                _ => (i % 250) as u16,
            })
            .chain([400])
            .collect();
        let mut bytes = Vec::new();
        for &d in &ds {
            put_distance(&mut bytes, d);
        }
        for (k, &d) in ds.iter().enumerate() {
            assert_eq!(distance_at(&bytes, k), Some(d), "entry {k}");
        }
        assert_eq!(distance_at(&bytes, ds.len()), None);
        // Cut inside an escaped entry: that entry is missing, not misread.
        let cut = &bytes[..bytes.len() - 2];
        assert_eq!(distance_at(cut, ds.len() - 1), None);
        assert_eq!(distance_at(cut, ds.len() - 2), Some(ds[ds.len() - 2]));
    }

    #[test]
    fn distances_round_trip_with_escapes() {
        let ds: Vec<u16> = vec![0, 1, 254, 255, 256, 8191, 3, 254, 300];
        let mut bytes = Vec::new();
        for &d in &ds {
            put_distance(&mut bytes, d);
        }
        assert_eq!(distances(&bytes).unwrap(), ds);
        for (k, &d) in ds.iter().enumerate() {
            assert_eq!(distance_at(&bytes, k), Some(d));
        }
        assert_eq!(distance_at(&bytes, ds.len()), None);
        assert_eq!(distances(&bytes[..bytes.len() - 1]), None);
        assert_eq!(distances(&[255, 1]), None);
    }
}
