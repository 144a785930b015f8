//! Board geometry of the Mill family: points, lines of movement, mills and symmetries.
//!
//! Points are numbered ring by ring, as the reference app's FEN lists them: ring 0 is the
//! innermost square, each ring has 8 points numbered clockwise from 12 o'clock (even numbers are
//! the mid-points of the sides, odd numbers the corners). Point `8 * ring + i` is bit
//! `8 * ring + i` of a bitboard. All tables are built at compile time by `const fn`.

/// A set of points, one bit per point.
pub type Bits = u32;

/// Which board a variant is played on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Board {
    /// Three concentric squares joined at the mid-points (24 points, 16 mills).
    Morris24,
    /// `Morris24` plus the four diagonals as lines and mills (20 mills).
    Morris24D,
    /// Six Men's Morris: two concentric squares (16 points, 8 mills).
    Morris16,
}

impl Board {
    /// The board's name as used in rule profiles.
    pub const fn name(self) -> &'static str {
        match self {
            Board::Morris24 => "morris24",
            Board::Morris24D => "morris24d",
            Board::Morris16 => "morris16",
        }
    }

    /// Parses a board name.
    pub fn from_name(s: &str) -> Option<Board> {
        match s {
            "morris24" => Some(Board::Morris24),
            "morris24d" => Some(Board::Morris24D),
            "morris16" => Some(Board::Morris16),
            _ => None,
        }
    }

    /// The geometry tables of this board.
    pub const fn geometry(self) -> &'static Geometry {
        match self {
            Board::Morris24 => &MORRIS24,
            Board::Morris24D => &MORRIS24D,
            Board::Morris16 => &MORRIS16,
        }
    }
}

/// Maximum number of points on any board.
pub const MAX_POINTS: usize = 24;
/// Maximum number of mills on any board.
pub const MAX_MILLS: usize = 20;

/// Compile-time tables of one board.
#[derive(Debug)]
pub struct Geometry {
    /// Which board this is.
    pub board: Board,
    /// Number of concentric squares (2 or 3).
    pub rings: usize,
    /// Number of points (`8 * rings`).
    pub points: usize,
    /// The set of all points.
    pub all: Bits,
    /// Neighbours of each point along the lines of movement.
    pub adjacent: [Bits; MAX_POINTS],
    /// Every mill as a set of three points.
    pub mills: [Bits; MAX_MILLS],
    /// Number of entries of `mills` in use.
    pub mill_count: usize,
    /// For each point, the mills through it (unused entries are 0).
    pub mills_through: [[Bits; 3]; MAX_POINTS],
    /// Point names (`a1` ... `g7`), indexed by point number.
    pub names: [&'static str; MAX_POINTS],
}

const NAMES24: [&str; MAX_POINTS] = [
    "d5", "e5", "e4", "e3", "d3", "c3", "c4", "c5", // inner
    "d6", "f6", "f4", "f2", "d2", "b2", "b4", "b6", // middle
    "d7", "g7", "g4", "g1", "d1", "a1", "a4", "a7", // outer
];

const NAMES16: [&str; MAX_POINTS] = [
    "c4", "d4", "d3", "d2", "c2", "b2", "b3", "b4", // inner
    "c5", "e5", "e3", "e1", "c1", "a1", "a3", "a5", // outer
    "", "", "", "", "", "", "", "",
];

const fn build(board: Board) -> Geometry {
    let (rings, diagonals, names) = match board {
        Board::Morris24 => (3, false, NAMES24),
        Board::Morris24D => (3, true, NAMES24),
        Board::Morris16 => (2, false, NAMES16),
    };
    let points = 8 * rings;
    let mut adjacent = [0u32; MAX_POINTS];
    let mut mills = [0u32; MAX_MILLS];
    let mut mill_count = 0;
    let mut r = 0;
    while r < rings {
        let mut i = 0;
        while i < 8 {
            let p = 8 * r + i;
            adjacent[p] |= 1 << (8 * r + (i + 1) % 8);
            adjacent[p] |= 1 << (8 * r + (i + 7) % 8);
            // Spokes join the mid-points (even i); diagonals join the corners (odd i).
            if r + 1 < rings && (i % 2 == 0 || diagonals) {
                adjacent[p] |= 1 << (p + 8);
                adjacent[p + 8] |= 1 << p;
            }
            i += 1;
        }
        // The four sides of the ring: corners i-1, mid-point i, corner i+1.
        let mut k = 0;
        while k < 4 {
            let mid = 2 * k;
            mills[mill_count] =
                (1 << (8 * r + (mid + 7) % 8)) | (1 << (8 * r + mid)) | (1 << (8 * r + mid + 1));
            mill_count += 1;
            k += 1;
        }
        r += 1;
    }
    if rings == 3 {
        let mut i = 0;
        while i < 8 {
            if i % 2 == 0 || diagonals {
                mills[mill_count] = (1 << i) | (1 << (i + 8)) | (1 << (i + 16));
                mill_count += 1;
            }
            i += 1;
        }
    }
    let mut mills_through = [[0u32; 3]; MAX_POINTS];
    let mut m = 0;
    while m < mill_count {
        let mut p = 0;
        while p < points {
            if mills[m] & (1 << p) != 0 {
                let mut slot = 0;
                while mills_through[p][slot] != 0 {
                    slot += 1;
                }
                mills_through[p][slot] = mills[m];
            }
            p += 1;
        }
        m += 1;
    }
    Geometry {
        board,
        rings,
        points,
        all: if points == 32 {
            u32::MAX
        } else {
            (1u32 << points) - 1
        },
        adjacent,
        mills,
        mill_count,
        mills_through,
        names,
    }
}

/// The standard 24-point board.
pub static MORRIS24: Geometry = build(Board::Morris24);
/// The 24-point board with diagonals.
pub static MORRIS24D: Geometry = build(Board::Morris24D);
/// The 16-point Six Men's Morris board.
pub static MORRIS16: Geometry = build(Board::Morris16);

/// Number of board symmetries (all three boards have 16).
pub const SYMMETRIES: usize = 16;

/// Image of ring position `i` under ring operation `op` (bits 0-1 rotation by 90 degrees
/// clockwise, bit 2 mirror about the vertical axis).
const fn ring_map(op: usize, i: usize) -> usize {
    let m = if op & 4 != 0 { (8 - i) % 8 } else { i };
    (m + 2 * (op & 3)) % 8
}

const fn build_ring_tables() -> [[u8; 256]; 8] {
    let mut t = [[0u8; 256]; 8];
    let mut op = 0;
    while op < 8 {
        let mut byte = 0;
        while byte < 256 {
            let mut out = 0u8;
            let mut i = 0;
            while i < 8 {
                if byte & (1 << i) != 0 {
                    out |= 1 << ring_map(op, i);
                }
                i += 1;
            }
            t[op][byte] = out;
            byte += 1;
        }
        op += 1;
    }
    t
}

static RING_TABLES: [[u8; 256]; 8] = build_ring_tables();

impl Geometry {
    /// The point with the given name, if any.
    pub fn point(&self, name: &str) -> Option<usize> {
        self.names[..self.points].iter().position(|n| *n == name)
    }

    /// Applies symmetry `sym` (0..16) to a set of points. Bits 0-1 rotate, bit 2 mirrors,
    /// bit 3 swaps the inner and outer squares. Symmetry 0 is the identity.
    #[inline]
    pub fn transform(&self, bits: Bits, sym: usize) -> Bits {
        let t = &RING_TABLES[sym & 7];
        let b0 = t[(bits & 0xff) as usize] as u32;
        let b1 = t[((bits >> 8) & 0xff) as usize] as u32;
        let b2 = t[((bits >> 16) & 0xff) as usize] as u32;
        match (self.rings, sym & 8 != 0) {
            (3, false) => b0 | (b1 << 8) | (b2 << 16),
            (3, true) => b2 | (b1 << 8) | (b0 << 16),
            (_, false) => b0 | (b1 << 8),
            (_, true) => b1 | (b0 << 8),
        }
    }

    /// Image of a single point under symmetry `sym`.
    pub fn transform_point(&self, p: usize, sym: usize) -> usize {
        self.transform(1 << p, sym).trailing_zeros() as usize
    }

    /// The symmetry that undoes `sym`.
    pub fn inverse(&self, sym: usize) -> usize {
        (0..SYMMETRIES)
            .find(|&s| {
                (0..self.points).all(|p| self.transform_point(self.transform_point(p, sym), s) == p)
            })
            .expect("every symmetry has an inverse")
    }

    /// Points of `own` that lie in a complete mill of `own`.
    #[inline]
    pub fn in_mills(&self, own: Bits) -> Bits {
        let mut out = 0;
        for &m in &self.mills[..self.mill_count] {
            if own & m == m {
                out |= m;
            }
        }
        out
    }

    /// Number of complete mills of `own` on the board.
    pub fn count_mills(&self, own: Bits) -> u32 {
        self.mills[..self.mill_count]
            .iter()
            .filter(|&&m| own & m == m)
            .count() as u32
    }

    /// Union of the neighbours of every point of `set`.
    #[inline]
    pub fn neighbours(&self, mut set: Bits) -> Bits {
        let mut out = 0;
        while set != 0 {
            out |= self.adjacent[set.trailing_zeros() as usize];
            set &= set - 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(g: &Geometry, n: &str) -> usize {
        g.point(n).unwrap()
    }

    #[test]
    fn mill_counts() {
        assert_eq!(MORRIS24.mill_count, 16);
        assert_eq!(MORRIS24D.mill_count, 20);
        assert_eq!(MORRIS16.mill_count, 8);
    }

    #[test]
    fn adjacency_matches_rules() {
        let g = &MORRIS24;
        let adj = |a: &str, b: &str| g.adjacent[pt(g, a)] & (1 << pt(g, b)) != 0;
        assert!(adj("a1", "a4") && adj("a1", "d1") && !adj("a1", "b2"));
        assert!(adj("d6", "d7") && adj("d6", "d5") && adj("d6", "b6"));
        let d = &MORRIS24D;
        let adjd = |a: &str, b: &str| d.adjacent[pt(d, a)] & (1 << pt(d, b)) != 0;
        assert!(adjd("a1", "b2") && adjd("b6", "c5") && adjd("f2", "g1"));
        let s = &MORRIS16;
        let adjs = |a: &str, b: &str| s.adjacent[pt(s, a)] & (1 << pt(s, b)) != 0;
        assert!(adjs("a3", "b3") && adjs("c1", "c2") && adjs("e3", "d3") && adjs("c5", "c4"));
        assert!(adjs("a1", "c1") && !adjs("a1", "b2"));
        let degrees: u32 = (0..24).map(|p| g.adjacent[p].count_ones()).sum();
        assert_eq!(degrees, 64);
    }

    #[test]
    fn named_mills_exist() {
        let g = &MORRIS24;
        for line in [
            "a7 d7 g7", "c3 d3 e3", "a1 a4 a7", "d5 d6 d7", "g1 g4 g7", "b2 b4 b6",
        ] {
            let m: Bits = line.split(' ').map(|n| 1 << pt(g, n)).sum();
            assert!(g.mills[..g.mill_count].contains(&m), "{line}");
        }
        let d = &MORRIS24D;
        let m: Bits = ["a1", "b2", "c3"].iter().map(|n| 1 << pt(d, n)).sum();
        assert!(d.mills[..d.mill_count].contains(&m));
        let s = &MORRIS16;
        let m: Bits = ["a5", "a3", "a1"].iter().map(|n| 1 << pt(s, n)).sum();
        assert!(s.mills[..s.mill_count].contains(&m));
    }

    #[test]
    fn symmetries_preserve_lines() {
        for g in [&MORRIS24, &MORRIS24D, &MORRIS16] {
            let mut images = std::collections::HashSet::new();
            for sym in 0..SYMMETRIES {
                let mut mills: Vec<Bits> = g.mills[..g.mill_count]
                    .iter()
                    .map(|&m| g.transform(m, sym))
                    .collect();
                let mut orig = g.mills[..g.mill_count].to_vec();
                mills.sort();
                orig.sort();
                assert_eq!(mills, orig, "{:?} sym {sym}", g.board);
                for p in 0..g.points {
                    let q = g.transform_point(p, sym);
                    assert_eq!(g.transform(g.adjacent[p], sym), g.adjacent[q]);
                }
                let inv = g.inverse(sym);
                assert_eq!(
                    g.transform(g.transform(0x00a5_3c17 & g.all, sym), inv),
                    0x00a5_3c17 & g.all
                );
                images.insert(
                    (0..g.points)
                        .map(|p| g.transform_point(p, sym))
                        .collect::<Vec<_>>(),
                );
            }
            assert_eq!(images.len(), SYMMETRIES);
        }
    }
}
