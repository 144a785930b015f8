//! Dense, symmetry-reduced ranking of Mill positions within a sector.
//!
//! A sector fixes how many stones the side to move (`w`) and the opponent (`b`) have on the
//! board. A position is ranked as `class(own) * C(points - w, b) + rank(opp squeezed into the
//! points own leaves free)`, where `class(own)` numbers the symmetry classes of `w`-point sets
//! (a table over all `C(points, w)` sets, built once per board and `w`). When the own set is
//! symmetric (its stabiliser is more than the identity), the stabiliser is applied to the
//! opponent's stones too and the smallest rank is taken; the other ranks of such a class are
//! *wasted slots*: they are never the canonical form of a position.

use retro_engine::mill::{Bits, Geometry};

/// Bit-reversal of 6-bit rows (Dara's left-right mirror).
static REV6: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        let mut j = 0;
        while j < 6 {
            if i & (1 << j) != 0 {
                t[i] |= 1 << (5 - j);
            }
            j += 1;
        }
        i += 1;
    }
    t
};

/// The board a sector index is laid out on: its points and its symmetry group.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// A Mill board (16 symmetries).
    Mill(&'static Geometry),
    /// Dara's 5x6 board, bit `6 * row + column` (4 symmetries: mirrors left-right, top-bottom).
    Dara,
}

impl From<&'static Geometry> for Shape {
    fn from(g: &'static Geometry) -> Shape {
        Shape::Mill(g)
    }
}

impl Shape {
    /// Number of points.
    pub fn points(self) -> usize {
        match self {
            Shape::Mill(g) => g.points,
            Shape::Dara => 30,
        }
    }

    /// The set of all points.
    pub fn all(self) -> Bits {
        match self {
            Shape::Mill(g) => g.all,
            Shape::Dara => (1 << 30) - 1,
        }
    }

    /// Size of the symmetry group.
    pub fn symmetries(self) -> usize {
        match self {
            Shape::Mill(_) => 16,
            Shape::Dara => 4,
        }
    }

    /// Applies symmetry `s` to a set of points (0 is the identity).
    #[inline]
    pub fn transform(self, bits: Bits, s: usize) -> Bits {
        match self {
            Shape::Mill(g) => g.transform(bits, s),
            Shape::Dara => {
                let mut out = 0;
                for r in 0..5 {
                    let mut row = (bits >> (6 * r)) & 63;
                    if s & 1 != 0 {
                        row = REV6[row as usize] as u32;
                    }
                    let rr = if s & 2 != 0 { 4 - r } else { r };
                    out |= row << (6 * rr);
                }
                out
            }
        }
    }

    /// The symmetry that undoes `s`.
    pub fn inverse(self, s: usize) -> usize {
        match self {
            Shape::Mill(g) => g.inverse(s),
            Shape::Dara => s,
        }
    }

    fn cache_key(self) -> usize {
        match self {
            Shape::Mill(g) => g.board as usize,
            Shape::Dara => 100,
        }
    }
}
use std::sync::{Arc, Mutex, OnceLock};

/// Binomial coefficients `C(n, k)` for `n, k <= 32`.
pub use retro_tables::slot_order::BINOM;

/// `RANK_BYTES[k][c][byte]`: the part of a colex rank contributed by the bits of byte `k` of a
/// set when `c` set bits lie below that byte (laid out by `c` first: the sets ranked together
/// have similar counts, so the entries they use share cache lines).
static RANK_BYTES: [[[u32; 256]; 25]; 4] = {
    let mut t = [[[0u32; 256]; 25]; 4];
    let mut k = 0;
    while k < 4 {
        let mut byte = 0;
        while byte < 256 {
            let mut c = 0;
            while c < 25 {
                let mut r = 0u64;
                let mut i = c + 1;
                let mut j = 0;
                while j < 8 {
                    if byte & (1 << j) != 0 {
                        r += BINOM[8 * k + j][i];
                        i += 1;
                    }
                    j += 1;
                }
                t[k][c][byte] = r as u32;
                c += 1;
            }
            byte += 1;
        }
        k += 1;
    }
    t
};

/// Colex rank of a set among the sets of the same size.
#[inline]
pub fn rank_set(set: u32) -> u64 {
    let (b0, b1, b2, b3) = (set & 0xff, (set >> 8) & 0xff, (set >> 16) & 0xff, set >> 24);
    let c1 = b0.count_ones() as usize;
    let c2 = c1 + b1.count_ones() as usize;
    let r = RANK_BYTES[0][0][b0 as usize] as u64
        + RANK_BYTES[1][c1][b1 as usize] as u64
        + RANK_BYTES[2][c2][b2 as usize] as u64;
    if b3 == 0 {
        // Every Mill board fits in 24 bits.
        return r;
    }
    let c3 = c2 + b2.count_ones() as usize;
    if c3 > 24 {
        return rank_set_slow(set);
    }
    r + RANK_BYTES[3][c3][b3 as usize] as u64
}

/// Colex rank by summing binomials bit by bit (any 32-bit set).
pub fn rank_set_slow(mut set: u32) -> u64 {
    let mut r = 0;
    let mut i = 1;
    while set != 0 {
        r += BINOM[set.trailing_zeros() as usize][i];
        set &= set - 1;
        i += 1;
    }
    r
}

/// The `k`-element set of colex rank `r`.
#[inline]
pub fn unrank_set(r: u64, k: usize) -> u32 {
    unrank_set_below(r, k, 32)
}

/// The `k`-element subset of `0..n` of colex rank `r` (`r < C(n, k)`, `n <= 32`).
#[inline]
pub fn unrank_set_below(mut r: u64, k: usize, n: usize) -> u32 {
    let mut set = 0;
    let mut p = n;
    for i in (1..=k).rev() {
        // The largest p with C(p, i) <= r.
        p -= 1;
        while BINOM[p][i] > r {
            p -= 1;
        }
        set |= 1 << p;
        r -= BINOM[p][i];
    }
    set
}

/// Squeezes the bits of `x` that lie in `mask` together (`pext`).
#[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
#[inline]
pub fn squeeze(x: u32, mask: u32) -> u32 {
    // SAFETY: compiled only when the target has BMI2 (cfg above), so the instruction exists.
    unsafe { std::arch::x86_64::_pext_u32(x, mask) }
}

/// Spreads the low bits of `x` over the set bits of `mask` (`pdep`).
#[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
#[inline]
pub fn spread(x: u32, mask: u32) -> u32 {
    // SAFETY: compiled only when the target has BMI2 (cfg above), so the instruction exists.
    unsafe { std::arch::x86_64::_pdep_u32(x, mask) }
}

/// Squeezes the bits of `x` that lie in `mask` together (software `pext`).
#[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
#[inline]
pub fn squeeze(x: u32, mask: u32) -> u32 {
    let mut out = 0;
    let mut m = mask;
    let mut i = 0;
    while m != 0 {
        let b = m & m.wrapping_neg();
        if x & b != 0 {
            out |= 1 << i;
        }
        i += 1;
        m &= m - 1;
    }
    out
}

/// Spreads the low bits of `x` over the set bits of `mask` (software `pdep`).
#[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
#[inline]
pub fn spread(x: u32, mask: u32) -> u32 {
    let mut out = 0;
    let mut m = mask;
    let mut i = 0;
    while m != 0 {
        let b = m & m.wrapping_neg();
        if x & (1 << i) != 0 {
            out |= b;
        }
        i += 1;
        m &= m - 1;
    }
    out
}

/// Symmetry classes of the `w`-point sets of one board.
pub struct SetClasses {
    /// For each colex rank of a `w`-set: its class number times 16 plus a symmetry that maps
    /// the set to its class representative.
    pub class_sym: Vec<u32>,
    /// Representative set of each class (the image with the smallest colex rank).
    pub reps: Vec<Bits>,
    /// For each class: bit `s` set when symmetry `s` fixes the representative.
    pub stabiliser: Vec<u16>,
}

/// The number of classes of `w`-sets on a board (orbits under its symmetries), counted
/// without building them (Burnside's lemma: the mean over the symmetries of the sets each one
/// fixes, a fixed set being a union of whole cycles of the symmetry's permutation of the
/// points). What a plan needs: building the classes of 12 stones on Dara's 30 cells takes
/// seconds and a GiB.
pub fn class_count(geo: Shape, w: usize) -> u64 {
    let n = geo.points();
    if w > n {
        return 0;
    }
    let mut fixed = 0u64;
    for s in 0..geo.symmetries() {
        // ways[k]: the k-sets made of whole cycles among those seen so far.
        let mut ways = vec![0u64; w + 1];
        ways[0] = 1;
        let mut seen: Bits = 0;
        for p in 0..n {
            if seen >> p & 1 != 0 {
                continue;
            }
            let (mut len, mut q) = (0, p);
            loop {
                seen |= 1 << q;
                len += 1;
                q = geo.transform(1 << q, s).trailing_zeros() as usize;
                if q == p {
                    break;
                }
            }
            for k in (len..=w).rev() {
                ways[k] += ways[k - len];
            }
        }
        fixed += ways[w];
    }
    fixed / geo.symmetries() as u64
}

impl SetClasses {
    fn build(geo: Shape, w: usize) -> SetClasses {
        let n = BINOM[geo.points()][w] as usize;
        let mut class_sym = vec![u32::MAX; n];
        let mut reps = Vec::new();
        let mut stabiliser = Vec::new();
        let inverse: Vec<u8> = (0..geo.symmetries())
            .map(|s| geo.inverse(s) as u8)
            .collect();
        for r in 0..n {
            if class_sym[r] != u32::MAX {
                continue;
            }
            // r is the smallest rank of its orbit, so it is the representative.
            let rep = unrank_set(r as u64, w);
            let class = reps.len() as u32;
            let mut stab = 0u16;
            for (s, &inv) in inverse.iter().enumerate() {
                let img = geo.transform(rep, s);
                let ir = rank_set(img) as usize;
                if img == rep {
                    stab |= 1 << s;
                }
                if class_sym[ir] == u32::MAX {
                    // img -> rep is the inverse of s.
                    class_sym[ir] = class << 4 | inv as u32;
                }
            }
            reps.push(rep);
            stabiliser.push(stab);
        }
        SetClasses {
            class_sym,
            reps,
            stabiliser,
        }
    }

    /// The classes of `w`-sets on a board (built once, shared).
    pub fn get(geo: Shape, w: usize) -> Arc<SetClasses> {
        type Cache = Mutex<Vec<((usize, usize), Arc<SetClasses>)>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let key = (geo.cache_key(), w);
        let cache = CACHE.get_or_init(|| Mutex::new(Vec::new()));
        if let Some((_, c)) = cache
            .lock()
            .expect("cache lock")
            .iter()
            .find(|(k, _)| *k == key)
        {
            return c.clone();
        }
        let built = Arc::new(SetClasses::build(geo, w));
        let mut guard = cache.lock().expect("cache lock");
        if let Some((_, c)) = guard.iter().find(|(k, _)| *k == key) {
            return c.clone();
        }
        guard.push((key, built.clone()));
        built
    }
}

/// The part of a slot that depends only on the own stones (see [`BoardIndex::own_class`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwnClass {
    /// First slot of the class.
    pub base: u64,
    /// Points the class representative leaves free.
    pub free: Bits,
    /// Symmetry mapping the own stones to the representative.
    pub g: u8,
    /// Symmetries fixing the representative (bit `s` for symmetry `s`).
    pub stab: u16,
}

/// The ranking of one sector's board configurations: `w` own stones, `b` opponent stones.
#[derive(Clone)]
pub struct BoardIndex {
    geo: Shape,
    w: usize,
    b: usize,
    classes: Arc<SetClasses>,
    per_class: u64,
}

impl BoardIndex {
    /// The index of positions with `w` stones of the side to move and `b` of the opponent.
    pub fn new(geo: impl Into<Shape>, w: usize, b: usize) -> BoardIndex {
        let geo = geo.into();
        assert!(w + b <= geo.points(), "too many stones for the board");
        let classes = SetClasses::get(geo, w);
        let per_class = BINOM[geo.points() - w][b];
        BoardIndex {
            geo,
            w,
            b,
            classes,
            per_class,
        }
    }

    /// The reflected slot order of this index's classes (the opponent's stones ranked among
    /// the free points numbered backwards), in which compressed tables store their slots.
    pub fn reflected_order(&self) -> Option<retro_tables::slot_order::SlotOrder> {
        retro_tables::slot_order::SlotOrder::reflected(self.geo.points() - self.w, self.b)
    }

    /// The board.
    pub fn shape(&self) -> Shape {
        self.geo
    }

    /// Points of the board.
    pub fn points(&self) -> usize {
        self.geo.points()
    }

    /// Points neither side's stones hold.
    pub fn free_points(&self) -> usize {
        self.geo.points() - self.w - self.b
    }

    /// Number of slots (canonical positions plus wasted slots).
    pub fn size(&self) -> u64 {
        self.classes.reps.len() as u64 * self.per_class
    }

    /// The slot of a position given as (own stones, opponent stones).
    #[inline]
    pub fn index(&self, own: Bits, opp: Bits) -> u64 {
        self.index_in(&self.own_class(own), opp)
    }

    /// What the slot of a position takes from its own stones: their class, the symmetry to
    /// its representative, the points the representative leaves free and its stabiliser.
    /// Worth keeping when many positions share their own stones (the children of one
    /// position, or of one opponent class).
    #[inline]
    pub fn own_class(&self, own: Bits) -> OwnClass {
        self.own_class_of_rank(rank_set(own))
    }

    /// Starts fetching what [`BoardIndex::own_class`] needs for the own stones `own`, and
    /// returns their colex rank for [`BoardIndex::own_class_of_rank`].
    #[inline]
    pub fn prefetch_class(&self, own: Bits) -> u64 {
        let r = rank_set(own);
        if let Some(cs) = self.classes.class_sym.get(r as usize) {
            crate::sectors::prefetch::prefetch(cs);
        }
        r
    }

    /// [`BoardIndex::own_class`] of the own stones of colex rank `r`.
    #[inline]
    pub fn own_class_of_rank(&self, r: u64) -> OwnClass {
        let cs = self.classes.class_sym[r as usize];
        let class = (cs >> 4) as usize;
        OwnClass {
            base: class as u64 * self.per_class,
            free: self.geo.all() & !self.classes.reps[class],
            g: (cs & 15) as u8,
            stab: self.classes.stabiliser[class],
        }
    }

    /// The slot of the position with the own stones of `c` (from [`BoardIndex::own_class`])
    /// and the opponent stones `opp`: the same as [`BoardIndex::index`].
    #[inline]
    pub fn index_in(&self, c: &OwnClass, opp: Bits) -> u64 {
        c.base + self.least(c, opp).0
    }

    /// The least rank among the images of the opponent stones `opp` under the class's
    /// symmetries, squeezed into the points its representative leaves free, with that image.
    #[inline]
    fn least(&self, c: &OwnClass, opp: Bits) -> (u64, Bits) {
        let opp = if c.g == 0 {
            opp
        } else {
            self.geo.transform(opp, c.g as usize)
        };
        // Sets of one size compare in colex order as they compare as integers (the highest
        // point where they differ decides both): the least image is found without ranking
        // each, and ranked once.
        let mut best = squeeze(opp, c.free);
        if c.stab != 1 {
            let mut s = c.stab & !1;
            while s != 0 {
                let h = s.trailing_zeros() as usize;
                s &= s - 1;
                best = best.min(squeeze(self.geo.transform(opp, h), c.free));
            }
        }
        (rank_set(best), best)
    }

    /// Where a table stored in [`BoardIndex::reflected_order`] keeps the position (own stones,
    /// opponent stones): that order's map of [`BoardIndex::index`], computed from the stones
    /// (the least image's free points numbered backwards) rather than by unranking the slot.
    #[inline]
    pub fn index_reflected(&self, own: Bits, opp: Bits) -> u64 {
        let c = self.own_class(own);
        let set = self.least(&c, opp).1;
        let n = c.free.count_ones();
        let mirrored = if n == 0 {
            0
        } else {
            set.reverse_bits() >> (32 - n)
        };
        c.base + rank_set(mirrored)
    }

    /// Whether the opponent set `opp` (squeezed to `set` among the points `free` that the
    /// class representative leaves) is the smallest of its images under the representative's
    /// stabiliser `stab`, i.e. whether its slot holds a position (colex order is the sets'
    /// order as integers, see [`BoardIndex::least`]).
    #[inline]
    fn canonical(&self, opp: Bits, free: Bits, stab: u16, set: Bits) -> bool {
        let mut s = stab & !1;
        while s != 0 {
            let h = s.trailing_zeros() as usize;
            s &= s - 1;
            if squeeze(self.geo.transform(opp, h), free) < set {
                return false;
            }
        }
        true
    }

    /// The position of a slot as (own stones, opponent stones), or `None` for a wasted slot.
    #[inline]
    pub fn unindex(&self, slot: u64) -> Option<(Bits, Bits)> {
        let class = (slot / self.per_class) as usize;
        let r = slot % self.per_class;
        let rep = self.classes.reps[class];
        let free = self.geo.all() & !rep;
        let set = unrank_set_below(r, self.b, self.geo.points() - self.w);
        let opp = spread(set, free);
        let stab = self.classes.stabiliser[class];
        self.canonical(opp, free, stab, set).then_some((rep, opp))
    }

    /// Visits the slots `lo..hi` in order with their positions (`None` for wasted slots),
    /// stepping from one opponent set to the next instead of unranking each slot.
    #[inline]
    pub fn for_each(&self, lo: u64, hi: u64, mut f: impl FnMut(u64, Option<(Bits, Bits)>)) {
        if lo >= hi {
            return;
        }
        let mut class = (lo / self.per_class) as usize;
        let mut r = lo % self.per_class;
        let mut comb = unrank_set(r, self.b);
        let mut rep = self.classes.reps[class];
        let mut free = self.geo.all() & !rep;
        let mut stab = self.classes.stabiliser[class];
        for slot in lo..hi {
            let opp = spread(comb, free);
            f(
                slot,
                self.canonical(opp, free, stab, comb).then_some((rep, opp)),
            );
            // Next set of the same size in colex order (Gosper), or the next class.
            r += 1;
            if r == self.per_class {
                r = 0;
                class += 1;
                if class < self.classes.reps.len() {
                    rep = self.classes.reps[class];
                    free = self.geo.all() & !rep;
                    stab = self.classes.stabiliser[class];
                }
                comb = if self.b == 0 { 0 } else { (1u32 << self.b) - 1 };
            } else {
                comb = next_set(comb);
            }
        }
    }

    /// Whether only the identity maps the own stones of slot `slot`'s class onto themselves
    /// (a small table indexed by class, where a lookup by the stones' rank would miss the
    /// cache: the retrograde step asks it of every child it takes).
    #[inline]
    pub fn slot_own_asymmetric(&self, slot: u64) -> bool {
        self.classes.stabiliser[(slot / self.per_class) as usize] == 1
    }

    /// Number of symmetry classes of the opponent's stone sets (the units of
    /// [`BoardIndex::for_each_by_opp`]).
    pub fn opp_classes(&self) -> usize {
        SetClasses::get(self.geo, self.b).reps.len()
    }

    /// Calls `f(own, opp)` once for every position of the sector (one member of each symmetry
    /// orbit), grouped by the opponent's stones: for each opponent class in `lo..hi` the
    /// opponent sits on its representative and the own stones run over the free points. Moves
    /// then lead to positions whose *own* stones are that representative, which sit together
    /// in the next sector's table.
    pub fn for_each_by_opp(&self, lo: usize, hi: usize, mut f: impl FnMut(Bits, Bits)) {
        let opp_classes = SetClasses::get(self.geo, self.b);
        let n = BINOM[self.geo.points() - self.b][self.w];
        for c in lo..hi.min(opp_classes.reps.len()) {
            let rep = opp_classes.reps[c];
            let free = self.geo.all() & !rep;
            let stab = opp_classes.stabiliser[c];
            let mut comb: u32 = if self.w == 0 { 0 } else { (1u32 << self.w) - 1 };
            for i in 0..n {
                let own = spread(comb, free);
                let mut first = true;
                if stab != 1 {
                    let mut s = stab & !1;
                    while s != 0 {
                        let h = s.trailing_zeros() as usize;
                        s &= s - 1;
                        if squeeze(self.geo.transform(own, h), free) < comb {
                            first = false;
                            break;
                        }
                    }
                }
                if first {
                    f(own, rep);
                }
                if i + 1 < n && comb != 0 {
                    comb = next_set(comb);
                }
            }
        }
    }

    /// Stones of the side to move.
    pub fn own_count(&self) -> usize {
        self.w
    }

    /// Stones of the opponent.
    pub fn opp_count(&self) -> usize {
        self.b
    }
}

/// The next set of as many points as `comb` (not empty) in colex order (Gosper's step). The
/// lowest point's bit is a power of two, so the step's division by it is a shift: a division
/// by a value known only at run time cost the position loops a 32-bit `div` a position.
#[inline]
fn next_set(comb: Bits) -> Bits {
    let low = comb & comb.wrapping_neg();
    let r = comb + low;
    (((r ^ comb) >> 2) >> low.trailing_zeros()) | r
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_engine::mill::geometry::{MORRIS16, MORRIS24};

    /// Burnside's count of the classes equals the classes built, on the three boards (the
    /// diagonal one has the plain one's symmetries) and every size small enough to build fast.
    #[test]
    fn class_count_is_the_number_of_classes_built() {
        for (shape, sizes) in [
            (Shape::from(&MORRIS16), 0..=16),
            (Shape::from(&MORRIS24), 0..=7),
            (Shape::Dara, 0..=5),
        ] {
            for w in sizes {
                let built = SetClasses::get(shape, w).reps.len() as u64;
                assert_eq!(
                    class_count(shape, w),
                    built,
                    "{} points, {w}",
                    shape.points()
                );
            }
        }
        // More than the points: none.
        assert_eq!(class_count(Shape::Dara, 31), 0);
    }

    #[test]
    fn dara_symmetries_agree_with_the_engines_cell_by_cell_ones() {
        use retro_engine::dara::Dara;
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for i in 0..100_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Single cells first, then random sets.
            let set = if i < 30 {
                1 << i
            } else {
                x as Bits & ((1 << 30) - 1)
            };
            for s in 0..4 {
                assert_eq!(
                    Shape::Dara.transform(set, s),
                    Dara::transform(set, s),
                    "{set:#x} {s}"
                );
            }
        }
    }

    #[test]
    fn colex_rank_round_trips() {
        for set in [
            0u32,
            1,
            0b1011,
            0xff_ffff,
            0x80_0001,
            0x12_3456,
            0xf0_0f0f,
            0x2000_0001,
            0x3fff_ffff,
        ] {
            assert_eq!(rank_set(set), rank_set_slow(set), "{set:#x}");
        }
        for (k, row) in BINOM[12].iter().enumerate().take(6) {
            for r in 0..*row {
                let s = unrank_set(r, k);
                assert_eq!(s.count_ones() as usize, k);
                assert_eq!(rank_set(s), r);
            }
        }
        // Gosper's step walks the sets of each size in rank order (on up to 24 points).
        for k in [1usize, 2, 5, 9, 12] {
            let mut s = unrank_set(0, k);
            for r in 1..BINOM[24][k].min(200_000) {
                s = next_set(s);
                assert_eq!(rank_set(s), r, "{k} {s:#x}");
            }
        }
        assert_eq!(squeeze(0b1010_0100, 0b1110_0110), 0b1_0110);
        assert_eq!(spread(0b1_0110, 0b1110_0110), 0b1010_0100);
    }

    #[test]
    fn every_position_has_one_canonical_slot() {
        for (geo, w, b) in [
            (Shape::Mill(&MORRIS16), 3usize, 3usize),
            (Shape::Mill(&MORRIS24), 3, 2),
            (Shape::Mill(&MORRIS16), 4, 2),
            (Shape::Dara, 2, 2),
            (Shape::Dara, 3, 1),
        ] {
            let idx = BoardIndex::new(geo, w, b);
            let mut used = vec![false; idx.size() as usize];
            let mut canonical = 0;
            for slot in 0..idx.size() {
                if let Some((own, opp)) = idx.unindex(slot) {
                    assert_eq!(idx.index(own, opp), slot);
                    used[slot as usize] = true;
                    canonical += 1;
                }
            }
            // Every raw position maps to a used slot, and symmetric images to the same slot.
            let n = geo.points();
            for r in 0..BINOM[n][w] {
                let own = unrank_set(r, w);
                for q in (0..BINOM[n - w][b]).step_by(3) {
                    let opp = spread(unrank_set(q, b), geo.all() & !own);
                    let slot = idx.index(own, opp);
                    assert!(used[slot as usize]);
                    // The reflected order's place, from the stones, is its map of the slot.
                    if let Some(order) = idx.reflected_order() {
                        assert_eq!(idx.index_reflected(own, opp), order.map(slot));
                    }
                    let s = (r as usize + q as usize) % geo.symmetries();
                    assert_eq!(
                        idx.index(geo.transform(own, s), geo.transform(opp, s)),
                        slot
                    );
                }
            }
            assert!(canonical as u64 * geo.symmetries() as u64 >= BINOM[n][w] * BINOM[n - w][b]);
            // Grouping by the opponent's class visits every position exactly once.
            let mut seen = vec![0u8; idx.size() as usize];
            idx.for_each_by_opp(0, idx.opp_classes(), |own, opp| {
                seen[idx.index(own, opp) as usize] += 1
            });
            for slot in 0..idx.size() {
                assert_eq!(
                    seen[slot as usize], used[slot as usize] as u8,
                    "slot {slot}"
                );
            }
            // Stepping through the slots gives what unranking each slot gives.
            for (lo, hi) in [(0, idx.size()), (7, idx.size() / 2 + 3)] {
                idx.for_each(lo, hi, |slot, pos| {
                    assert_eq!(pos, idx.unindex(slot), "slot {slot}")
                });
            }
        }
    }
}
