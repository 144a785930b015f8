//! Ô Ăn Quan positions and turns: refill, sowing, relays, capture chains, the end.

use super::rules::OaqProfile;

/// The two players. South moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// Owns cells 1-5; moves first.
    South = 0,
    /// Owns cells 7-11.
    North = 1,
}

impl Side {
    /// 0 for South, 1 for North.
    pub const fn index(self) -> usize {
        self as usize
    }
    /// The opponent.
    pub const fn other(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }
    /// The side's citizen cells.
    pub const fn cells(self) -> [usize; 5] {
        match self {
            Side::South => [1, 2, 3, 4, 5],
            Side::North => [7, 8, 9, 10, 11],
        }
    }
    /// `"south"` or `"north"`.
    pub const fn name(self) -> &'static str {
        match self {
            Side::South => "south",
            Side::North => "north",
        }
    }
}

/// A position: cell contents, big pieces, side to move, stores, and the first-ply flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Small seeds per cell, in ring order (0 and 6 are the mandarin cells).
    pub cells: [u8; 12],
    /// Whether the big piece is still in mandarin cell 0 / cell 6 (big-mandarin rule only).
    pub big: [bool; 2],
    /// The side to move.
    pub side: Side,
    /// Stores of South and North (negative after borrowing for a refill).
    pub stores: [i16; 2],
    /// The next ply is the first of the game (mandarins cannot be captured).
    pub first: bool,
}

/// A move: a citizen cell of the side to move and a direction (`+1` or `-1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// The cell sown from (1-5 for South, 7-11 for North).
    pub cell: u8,
    /// `+1` towards higher cell numbers, `-1` towards lower.
    pub dir: i8,
}

/// The result of playing a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Turn {
    /// The position after the turn.
    pub position: Position,
    /// What the mover captured (big pieces at their worth).
    pub captured: i16,
    /// Whether the mover refilled its row from its store before sowing (costs 5).
    pub refilled: bool,
}

/// A finished game: final stores after the collection, and the winner (`None`: a draw).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Final {
    /// South's and North's final stores.
    pub stores: [i16; 2],
    /// The side with the larger store.
    pub winner: Option<Side>,
}

/// An Ô Ăn Quan game under one rule profile.
#[derive(Clone, Debug)]
pub struct Oaq {
    /// The rules.
    pub profile: OaqProfile,
}

#[inline]
fn step(c: usize, dir: i8) -> usize {
    if dir > 0 {
        (c + 1) % 12
    } else {
        (c + 11) % 12
    }
}

#[inline]
const fn is_mandarin(c: usize) -> bool {
    c == 0 || c == 6
}

impl Oaq {
    /// A game under the given rules.
    pub fn new(profile: OaqProfile) -> Oaq {
        Oaq { profile }
    }

    /// The start position.
    pub fn start(&self) -> Position {
        let p = &self.profile;
        let mut cells = [p.citizen_seeds; 12];
        cells[0] = p.mandarin_start();
        cells[6] = p.mandarin_start();
        let big = p.big_mandarin.is_some();
        Position {
            cells,
            big: [big, big],
            side: Side::South,
            stores: [0, 0],
            first: true,
        }
    }

    /// Whether a cell holds anything (seeds or a big piece).
    #[inline]
    pub fn occupied(&self, p: &Position, c: usize) -> bool {
        p.cells[c] > 0 || (is_mandarin(c) && p.big[c / 6])
    }

    /// Worth of a cell's contents (big piece included).
    #[inline]
    pub fn worth(&self, p: &Position, c: usize) -> i16 {
        let big = if is_mandarin(c) && p.big[c / 6] {
            self.profile.big_mandarin.unwrap_or(0)
        } else {
            0
        };
        p.cells[c] as i16 + big as i16
    }

    /// Small seeds off the board, read from the stores as they stand (RULES.md 3.6: "the two
    /// stores together"): their sum, less the worth of the big pieces already captured (a big
    /// piece is never sown, so it cannot refill a row).
    pub fn off_board(&self, p: &Position) -> i32 {
        p.stores[0] as i32 + p.stores[1] as i32 - self.big_taken(p)
    }

    /// Worth of the big pieces already captured (they sit in a store but are not seeds).
    fn big_taken(&self, p: &Position) -> i32 {
        match self.profile.big_mandarin {
            Some(v) => v as i32 * p.big.iter().filter(|&&b| !b).count() as i32,
            None => 0,
        }
    }

    /// Small seeds on the board.
    pub fn on_board(p: &Position) -> i32 {
        p.cells.iter().map(|&c| c as i32).sum()
    }

    /// Small seeds in the position's game: on the board and off it. Every turn keeps it.
    pub fn seeds_in_game(&self, p: &Position) -> i32 {
        Self::on_board(p) + self.off_board(p)
    }

    /// `p` with its stores replaced by the ones a store-less position of this rule profile
    /// implies (South's store holds every seed off the board, North's none), so that the
    /// refill rule sees the profile's total. The solver's positions carry no stores; values
    /// and gains never depend on how the seeds off the board are split between the stores.
    pub fn with_profile_stores(&self, mut p: Position) -> Position {
        let off = self.profile.total_seeds() as i32 - Self::on_board(&p);
        p.stores = [(off + self.big_taken(&p)) as i16, 0];
        p
    }

    fn row_empty(p: &Position, s: Side) -> bool {
        s.cells().iter().all(|&c| p.cells[c] == 0)
    }

    /// Whether the game is over, with the final stores (after each side collects its row).
    pub fn outcome(&self, p: &Position) -> Option<Final> {
        let mandarins_empty = !self.occupied(p, 0) && !self.occupied(p, 6);
        let stuck = Self::row_empty(p, p.side) && self.off_board(p) < 5;
        if !(mandarins_empty && !p.first || stuck) {
            return None;
        }
        let mut stores = p.stores;
        for s in [Side::South, Side::North] {
            stores[s.index()] += s.cells().iter().map(|&c| p.cells[c] as i16).sum::<i16>();
        }
        let winner = match stores[0].cmp(&stores[1]) {
            std::cmp::Ordering::Greater => Some(Side::South),
            std::cmp::Ordering::Less => Some(Side::North),
            std::cmp::Ordering::Equal => None,
        };
        Some(Final { stores, winner })
    }

    /// The position at the start of the mover's turn, after a refill if its row is empty.
    fn refilled(&self, p: &Position) -> (Position, bool) {
        let mut q = *p;
        if Self::row_empty(p, p.side) {
            for c in p.side.cells() {
                q.cells[c] = 1;
            }
            q.stores[p.side.index()] -= 5;
            return (q, true);
        }
        (q, false)
    }

    /// Every legal move with its turn, in notation order (cells ascending, `+` before `-`).
    /// Empty when the game is over.
    pub fn moves(&self, p: &Position, out: &mut Vec<(Move, Turn)>) {
        out.clear();
        if self.outcome(p).is_some() {
            return;
        }
        let (q, refilled) = self.refilled(p);
        for c in p.side.cells() {
            if q.cells[c] == 0 {
                continue;
            }
            for dir in [1i8, -1] {
                let mv = Move { cell: c as u8, dir };
                out.push((mv, self.sow(&q, mv, refilled)));
            }
        }
    }

    /// Number of legal moves (0 when the game is over).
    pub fn count_moves(&self, p: &Position) -> usize {
        if self.outcome(p).is_some() {
            return 0;
        }
        if Self::row_empty(p, p.side) {
            return 10;
        }
        2 * p.side.cells().iter().filter(|&&c| p.cells[c] > 0).count()
    }

    /// Whether a capture chain may take this mandarin cell.
    fn capturable(&self, p: &Position, c: usize) -> bool {
        if !is_mandarin(c) {
            return true;
        }
        if p.first {
            return false;
        }
        let q = self.profile.quan_non;
        !(q > 0 && p.big[c / 6] && p.cells[c] < q)
    }

    /// Plays a legal move (as produced by [`Oaq::moves`]) on the position after refill.
    fn sow(&self, start: &Position, mv: Move, refilled: bool) -> Turn {
        let mut q = *start;
        let mut at = mv.cell as usize;
        let mut hand = q.cells[at];
        q.cells[at] = 0;
        let mut captured: i16 = 0;
        loop {
            while hand > 0 {
                at = step(at, mv.dir);
                q.cells[at] += 1;
                hand -= 1;
            }
            let next = step(at, mv.dir);
            if !is_mandarin(next) && q.cells[next] > 0 {
                // Relay: pick the cell up and sow on from the cell after it.
                hand = q.cells[next];
                q.cells[next] = 0;
                at = next;
                continue;
            }
            if self.occupied(&q, next) {
                break; // a mandarin cell with something in it: the turn ends
            }
            // An empty cell: capture the cell after it, and again while "empty, non-empty".
            let mut empty = next;
            loop {
                let target = step(empty, mv.dir);
                if !self.occupied(&q, target) || !self.capturable(&q, target) {
                    break;
                }
                captured += self.worth(&q, target);
                q.cells[target] = 0;
                if is_mandarin(target) {
                    q.big[target / 6] = false;
                }
                let after = step(target, mv.dir);
                if self.occupied(&q, after) {
                    break;
                }
                empty = after;
            }
            break;
        }
        let s = start.side.index();
        q.stores[s] += captured;
        q.first = false;
        q.side = start.side.other();
        Turn {
            position: q,
            captured,
            refilled,
        }
    }

    /// Plays a move, checking that it is legal.
    pub fn play(&self, p: &Position, mv: Move) -> Option<Turn> {
        let mut list = Vec::new();
        self.moves(p, &mut list);
        list.into_iter().find(|(m, _)| *m == mv).map(|(_, t)| t)
    }

    /// Number of leaves of the move tree of the given depth (a finished game counts 1).
    pub fn perft(&self, p: &Position, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if depth == 1 {
            return self.count_moves(p).max(1) as u64;
        }
        let mut list = Vec::with_capacity(10);
        self.moves(p, &mut list);
        if list.is_empty() {
            return 1;
        }
        list.iter()
            .map(|(_, t)| self.perft(&t.position, depth - 1))
            .sum()
    }

    /// Perft without bulk counting: every move of the last ply is played (its turn sown) and
    /// counted. Same counts as [`Oaq::perft`].
    pub fn perft_made(&self, p: &Position, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut list = Vec::with_capacity(10);
        self.moves(p, &mut list);
        if list.is_empty() {
            return 1;
        }
        if depth == 1 {
            return std::hint::black_box(&list).len() as u64;
        }
        list.iter()
            .map(|(_, t)| self.perft_made(&t.position, depth - 1))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perft_from_the_start() {
        let g = Oaq::new(OaqProfile::default());
        let s = g.start();
        let counts: Vec<u64> = (1..=4).map(|d| g.perft(&s, d)).collect();
        assert_eq!(counts, [10, 80, 664, 5128]);
        let made: Vec<u64> = (1..=4).map(|d| g.perft_made(&s, d)).collect();
        assert_eq!(made, counts);
    }
}
