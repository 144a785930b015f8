//! The order a compressed table stores its slots in. A sector table's slot is
//! `class * C(n, b) + r`: `r` is the colex rank of the opponent's `b` stones among the `n`
//! points the class representative leaves free. The reflected order stores the slot at
//! `class * C(n, b) + r'`, where `r'` ranks the same stones with the free points numbered
//! backwards (`s` becomes `n - 1 - s`): the opponent's stones nearest the representative's
//! then vary slowest, which groups like values (`databases/README.md`, "Slot order inside a
//! class"). Reflecting twice gives the slot back, so one function maps both ways.

/// Binomial coefficients `C(n, k)` for `n, k <= 32` (the solver's index ranks with them too).
pub static BINOM: [[u64; 33]; 33] = {
    let mut t = [[0u64; 33]; 33];
    let mut n = 0;
    while n <= 32 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
};

/// Header byte 120 of a compressed file in the reflected order (0: slots in index order).
pub const ORDER_REFLECTED: u8 = 1;

/// Header byte 123 of a compressed file whose distances are stored in whole plies (0: in
/// halves, `d >> 1`, the parity being the kind's). Rules under which a side can move twice in a
/// row (Black's first move after its own last placement under `defender-first`, a stalemate
/// removal) have wins of an even number of plies and losses of an odd one.
pub const PLIES_WHOLE: u8 = 1;

/// Whether header bytes 120..128 say that distances are stored in whole plies (byte 123;
/// [`SlotOrder::from_header`] refuses any value but 0 and [`PLIES_WHOLE`] there).
pub fn whole_plies(bytes: &[u8]) -> bool {
    bytes.get(123) == Some(&PLIES_WHOLE)
}

/// The reflected slot order of a table whose classes rank `b` opponent stones among `n` free
/// points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotOrder {
    n: u8,
    b: u8,
    per_class: u64,
}

/// The largest class a reader accepts (a verify maps a whole class, 4 bytes a slot): twice
/// the largest of any table `retro` writes, Dara's 3 stones against 12, C(27, 12) =
/// 17,383,860 (the 24-point boards: C(24, 12) = 2,704,156).
pub const MAX_PER_CLASS: u64 = 1 << 25;

impl SlotOrder {
    /// The reflected order for `n` free points and `b` opponent stones (`None` when `b > n` or
    /// `n > 32`).
    pub fn reflected(n: usize, b: usize) -> Option<SlotOrder> {
        (n <= 32 && b <= n).then(|| SlotOrder {
            n: n as u8,
            b: b as u8,
            per_class: BINOM[n][b],
        })
    }

    /// The order header bytes 120..128 give for a table of `slots` slots: `Ok(None)` for the
    /// index order (all zero), else the reflected order they describe, or why they describe
    /// none.
    pub fn from_header(bytes: &[u8], slots: u64) -> Result<Option<SlotOrder>, String> {
        let Some(f) = bytes.get(120..128) else {
            return Err("header cut short".into());
        };
        let bad = || {
            format!(
                "header bytes 120..128 ({f:?}) name no slot order this reader knows (a newer \
                 format?)"
            )
        };
        // Byte 123: how distances are stored ([`whole_plies`]).
        if f[3] > PLIES_WHOLE || f[4..].iter().any(|&x| x != 0) {
            return Err(bad());
        }
        if f[..3].iter().all(|&x| x == 0) {
            return Ok(None);
        }
        if f[0] != ORDER_REFLECTED {
            return Err(bad());
        }
        let o = SlotOrder::reflected(f[1] as usize, f[2] as usize).ok_or_else(bad)?;
        if o.per_class > MAX_PER_CLASS {
            return Err(format!(
                "a class of C({}, {}) = {} slots, more than any board has (at most {MAX_PER_CLASS})",
                o.n, o.b, o.per_class
            ));
        }
        if !slots.is_multiple_of(o.per_class) {
            return Err(format!(
                "{slots} slots are not whole classes of C({}, {}) = {}",
                o.n, o.b, o.per_class
            ));
        }
        Ok(Some(o))
    }

    /// Slots of a class: `C(n, b)`.
    pub fn per_class(&self) -> u64 {
        self.per_class
    }

    /// Writes the order into header bytes 120..123.
    pub fn encode(&self, head: &mut [u8]) {
        head[120..123].copy_from_slice(&[ORDER_REFLECTED, self.n, self.b]);
    }

    /// Where slot `slot` is stored, and (the same map) which slot a stored position holds.
    #[inline]
    pub fn map(&self, slot: u64) -> u64 {
        let (class, r) = (slot / self.per_class, slot % self.per_class);
        class * self.per_class + reflect_rank(r, self.n as usize, self.b as usize)
    }
}

/// [`SlotOrder::map`] over a whole table, with the class's permutation computed once: what a
/// pass over every slot (compressing, verifying) uses instead of reflecting each rank anew.
pub struct SlotMap {
    /// Slots of a class (0: the identity map).
    per_class: u64,
    /// Where each rank of a class is stored.
    perm: Vec<u32>,
}

impl SlotMap {
    /// The map of `order` (`None`: the identity).
    pub fn new(order: Option<SlotOrder>) -> SlotMap {
        match order {
            None => SlotMap {
                per_class: 0,
                perm: Vec::new(),
            },
            Some(o) => SlotMap {
                per_class: o.per_class,
                perm: (0..o.per_class)
                    .map(|r| reflect_rank(r, o.n as usize, o.b as usize) as u32)
                    .collect(),
            },
        }
    }

    /// [`SlotMap::map`] of `start`, `start + 1`, ... (no division a slot).
    pub fn from(&self, start: u64) -> impl Iterator<Item = u64> + '_ {
        let pc = self.per_class.max(1);
        let (mut base, mut r) = (start - start % pc, start % pc);
        let mut plain = start;
        std::iter::from_fn(move || {
            if self.per_class == 0 {
                plain += 1;
                return Some(plain - 1);
            }
            let at = base + self.perm[r as usize] as u64;
            r += 1;
            if r == pc {
                (base, r) = (base + pc, 0);
            }
            Some(at)
        })
    }

    /// Where each rank of a class is stored (and which rank each position of a class holds);
    /// empty for the identity map.
    pub fn perm(&self) -> &[u32] {
        &self.perm
    }

    /// [`SlotOrder::map`] of `slot`.
    #[inline]
    pub fn map(&self, slot: u64) -> u64 {
        if self.per_class == 0 {
            return slot;
        }
        let (class, r) = (slot / self.per_class, slot % self.per_class);
        class * self.per_class + self.perm[r as usize] as u64
    }
}

/// The colex rank of the `b`-subset of `0..n` whose rank is `r`, each element `s` replaced by
/// `n - 1 - s`.
#[inline]
pub fn reflect_rank(mut r: u64, n: usize, b: usize) -> u64 {
    // Unrank from the largest element down, reflecting each, then rank the reflected set
    // (whose elements come out smallest first, the k-th smallest weighing C(s, k)).
    let mut out = 0;
    let mut top = n;
    for k in (1..=b).rev() {
        // The largest s < top with C(s, k) <= r.
        let mut s = top - 1;
        while BINOM[s][k] > r {
            s -= 1;
        }
        r -= BINOM[s][k];
        out += BINOM[n - 1 - s][b + 1 - k];
        top = s;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The colex rank of a set given as a bit mask.
    fn rank(mut set: u64) -> u64 {
        let (mut r, mut k) = (0, 1);
        while set != 0 {
            r += BINOM[set.trailing_zeros() as usize][k];
            set &= set - 1;
            k += 1;
        }
        r
    }

    /// Against the plain definition: every subset of every small board, and both ways.
    #[test]
    fn reflection_reranks_the_reflected_set_and_is_its_own_inverse() {
        for n in 0..=12usize {
            for set in 0u64..1 << n {
                let b = set.count_ones() as usize;
                let mirrored = (0..n)
                    .filter(|&s| set >> s & 1 == 1)
                    .fold(0u64, |m, s| m | 1 << (n - 1 - s));
                assert_eq!(
                    reflect_rank(rank(set), n, b),
                    rank(mirrored),
                    "n {n} set {set:b}"
                );
            }
        }
        for (n, b) in [(17, 6), (24, 9), (21, 3)] {
            let o = SlotOrder::reflected(n, b).unwrap();
            let m = SlotMap::new(Some(o));
            for slot in (0..3 * o.per_class).step_by(97) {
                assert_eq!(o.map(o.map(slot)), slot);
                assert_eq!(m.map(slot), o.map(slot));
                assert!(m
                    .from(slot)
                    .take(300)
                    .eq((slot..slot + 300).map(|x| o.map(x))));
                assert!(o.map(slot) / o.per_class == slot / o.per_class);
            }
        }
    }

    #[test]
    fn header_bytes_name_the_order_or_are_refused() {
        let mut head = vec![0u8; 512];
        assert_eq!(SlotOrder::from_header(&head, 100), Ok(None));
        let o = SlotOrder::reflected(17, 6).unwrap();
        o.encode(&mut head);
        assert_eq!(SlotOrder::from_header(&head, 4 * 12376), Ok(Some(o)));
        assert!(SlotOrder::from_header(&head, 4 * 12376 + 1).is_err());
        for (at, x) in [(120, 2u8), (121, 40), (122, 18), (125, 1), (123, 2)] {
            let mut bad = head.clone();
            bad[at] = x;
            assert!(SlotOrder::from_header(&bad, 4 * 12376).is_err(), "{at}");
        }
        // Distances in whole plies: the same order, in either order of the index or its own.
        let mut whole = head.clone();
        whole[123] = PLIES_WHOLE;
        assert_eq!(SlotOrder::from_header(&whole, 4 * 12376), Ok(Some(o)));
        assert!(whole_plies(&whole) && !whole_plies(&head));
        let mut plain = vec![0u8; 512];
        plain[123] = PLIES_WHOLE;
        assert_eq!(SlotOrder::from_header(&plain, 100), Ok(None));
    }
}
