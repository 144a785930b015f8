//! Runs of stones along rows and columns, computed on whole bitboards: a table of run lengths for
//! one stone, shifts and masks for every stone at once (fours, exact threes).

use super::Cells;

/// Cells in columns 0..=2 (where a horizontal run of four can start).
const FOUR_STARTS_H: Cells = row_mask(0b00_0111);
/// Cells in columns 0..=3 (where a horizontal run of three can start).
const THREE_STARTS_H: Cells = row_mask(0b00_1111);
/// Cells not in column 0.
const NOT_COL0: Cells = row_mask(0b11_1110);
/// Cells in rows 0..=1 (where a vertical run of four can start).
const FOUR_STARTS_V: Cells = (1 << 12) - 1;
/// Cells in rows 0..=2 (where a vertical run of three can start).
const THREE_STARTS_V: Cells = (1 << 18) - 1;

/// The same 6-bit pattern in each of the five rows.
const fn row_mask(row: Cells) -> Cells {
    row | row << 6 | row << 12 | row << 18 | row << 24
}

/// `RUNS[line][k]`: the length of the run through position `k` of a line whose occupied
/// positions are the bits of `line | 1 << k` (the cell itself counts as occupied).
const fn build_runs() -> [[u8; 6]; 64] {
    let mut t = [[0; 6]; 64];
    let mut line = 0;
    while line < 64 {
        let mut k = 0;
        while k < 6 {
            let bits = line | 1 << k;
            let mut n = 1;
            let mut j = k;
            while j > 0 && bits & (1 << (j - 1)) != 0 {
                n += 1;
                j -= 1;
            }
            let mut j = k;
            while j < 5 && bits & (1 << (j + 1)) != 0 {
                n += 1;
                j += 1;
            }
            t[line][k] = n;
            k += 1;
        }
        line += 1;
    }
    t
}

/// Run lengths through each position of every 6-cell line (a 5-cell column is a line whose
/// sixth position is empty).
static RUNS: [[u8; 6]; 64] = build_runs();

/// The bits of column `c` of `own` as a 5-bit line, row 0 lowest.
#[inline]
fn column(own: Cells, c: usize) -> usize {
    // Bits 0, 6, 12, 18, 24 times 1 + 2^5 + ... + 2^20: bit 6r lands alone at 20 + r (the
    // products' positions 6r + 5j never coincide for r, j < 5, so nothing carries).
    const COL0: u64 = 0x0104_1041;
    const SPREAD: u64 = 0x0010_8421;
    ((((own >> c) as u64 & COL0) * SPREAD) >> 20) as usize & 0x1f
}

/// Length of the run of `own` stones through cell `i` along its row (the cell counted as a
/// stone).
#[inline]
pub fn row_run(own: Cells, i: usize) -> u32 {
    let (r, c) = (i / 6, i % 6);
    RUNS[((own >> (6 * r)) & 0x3f) as usize][c] as u32
}

/// Length of the run of `own` stones through cell `i` along its column (the cell counted as a
/// stone).
#[inline]
pub fn col_run(own: Cells, i: usize) -> u32 {
    let (r, c) = (i / 6, i % 6);
    RUNS[column(own, c)][r] as u32
}

/// The first cells of `own`'s runs of four: along the rows (the leftmost cell of each four) and
/// up the columns (the lowest); a longer run has several.
#[inline]
fn four_starts(own: Cells) -> (Cells, Cells) {
    (
        own & own >> 1 & own >> 2 & own >> 3 & FOUR_STARTS_H,
        own & own >> 6 & own >> 12 & own >> 18 & FOUR_STARTS_V,
    )
}

/// Stones of `own` that lie in a row or column run of four or more.
#[inline]
pub fn in_fours(own: Cells) -> Cells {
    let (h, v) = four_starts(own);
    (h | h << 1 | h << 2 | h << 3) | (v | v << 6 | v << 12 | v << 18)
}

/// Whether `own` has a row or column run of four or more.
#[inline]
pub fn has_four(own: Cells) -> bool {
    let (h, v) = four_starts(own);
    h | v != 0
}

/// Stones of `own` that lie in a row or column run of exactly three.
#[inline]
pub fn in_exact_threes(own: Cells) -> Cells {
    // Starts of three stones in a row, with no stone just before (column 0 has none) nor just
    // after (a start in column 3 ends the row).
    let before_h = (own << 1) & NOT_COL0;
    let after_h = (own >> 3) & FOUR_STARTS_H;
    let h = own & own >> 1 & own >> 2 & THREE_STARTS_H & !before_h & !after_h;
    // Likewise down the columns (a start in row 2 ends the column; no cell lies past row 4).
    let v = own & own >> 6 & own >> 12 & THREE_STARTS_V & !(own << 6) & !(own >> 18);
    (h | h << 1 | h << 2) | (v | v << 6 | v << 12)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dara::ALL;

    /// Run through cell `i` along a direction, stepping cell by cell.
    fn slow_run(own: Cells, i: usize, dr: i32, dc: i32) -> u32 {
        let on = |r: i32, c: i32| {
            (0..5).contains(&r) && (0..6).contains(&c) && { own & (1 << (6 * r + c)) != 0 }
        };
        let (r, c) = ((i / 6) as i32, (i % 6) as i32);
        let mut n = 1;
        for s in [1, -1] {
            let (mut rr, mut cc) = (r + s * dr, c + s * dc);
            while on(rr, cc) {
                n += 1;
                rr += s * dr;
                cc += s * dc;
            }
        }
        n
    }

    fn slow_sets(own: Cells) -> (Cells, Cells) {
        let (mut fours, mut threes) = (0, 0);
        for i in (0..30).filter(|i| own & (1 << i) != 0) {
            let (r, c) = (slow_run(own, i, 0, 1), slow_run(own, i, 1, 0));
            if r >= 4 || c >= 4 {
                fours |= 1 << i;
            }
            if r == 3 || c == 3 {
                threes |= 1 << i;
            }
        }
        (fours, threes)
    }

    fn check(own: Cells) {
        for i in 0..30 {
            assert_eq!(row_run(own, i), slow_run(own, i, 0, 1), "{own:#x} {i}");
            assert_eq!(col_run(own, i), slow_run(own, i, 1, 0), "{own:#x} {i}");
        }
        let (fours, threes) = slow_sets(own);
        assert_eq!(in_fours(own), fours, "{own:#x}");
        assert_eq!(has_four(own), fours != 0, "{own:#x}");
        assert_eq!(in_exact_threes(own), threes, "{own:#x}");
    }

    #[test]
    fn every_pattern_of_three_rows_agrees_with_cell_by_cell_runs() {
        // All 2^18 sets of rows 0-2, placed at rows 0-2 and at rows 2-4: every row pattern, and
        // every column pattern of three rows at both ends of the columns.
        for s in 0..1 << 18 {
            check(s);
            check(s << 12);
        }
    }

    #[test]
    fn random_boards_agree_with_cell_by_cell_runs() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Dense and sparse boards alike: and/or of two draws.
            let (a, b) = (x as Cells & ALL, (x >> 32) as Cells & ALL);
            check(a);
            check(a & b);
            check(a | b);
        }
    }
}
