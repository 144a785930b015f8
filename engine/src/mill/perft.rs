//! Perft: leaf counts of the move tree, in the split or the compound form.
//!
//! A position whose game is over (or with no legal move) is a leaf and counts 1 whatever depth
//! is left, as the reference app counts. At depth 1 the split form counts moves without playing
//! them (bulk counting).

use super::position::{Mill, Position, StepList};

impl Mill {
    /// Perft in the split form (a removal is its own ply).
    pub fn perft_split(&self, p: &Position, depth: u32) -> u64 {
        if depth == 0 || self.decided(p) {
            return 1;
        }
        if depth == 1 {
            return self.count_steps(p).max(1);
        }
        let mut list = StepList::default();
        self.steps(p, &mut list);
        if list.is_empty() {
            return 1;
        }
        list.as_slice()
            .iter()
            .map(|&s| self.perft_split(&self.play_step(p, s), depth - 1))
            .sum()
    }

    /// Perft in the split form without bulk counting: every step of the last ply is made (its
    /// position built) and counted, for a like-for-like comparison with engines that do not
    /// bulk-count. Same counts as [`Mill::perft_split`].
    pub fn perft_split_made(&self, p: &Position, depth: u32) -> u64 {
        if depth == 0 || self.decided(p) {
            return 1;
        }
        let mut list = StepList::default();
        self.steps(p, &mut list);
        if list.is_empty() {
            return 1;
        }
        if depth == 1 {
            for &s in list.as_slice() {
                std::hint::black_box(self.play_step(p, s));
            }
            return list.len() as u64;
        }
        list.as_slice()
            .iter()
            .map(|&s| self.perft_split_made(&self.play_step(p, s), depth - 1))
            .sum()
    }

    /// Perft in the compound form (a move with its removals is one ply).
    pub fn perft_compound(&self, p: &Position, depth: u32) -> u64 {
        if depth == 0 || self.decided(p) {
            return 1;
        }
        let mut moves = Vec::new();
        self.moves(p, &mut moves);
        if moves.is_empty() {
            return 1;
        }
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .iter()
            .map(|(_, q)| self.perft_compound(q, depth - 1))
            .sum()
    }

    /// Perft in either form.
    pub fn perft(&self, p: &Position, depth: u32, split: bool) -> u64 {
        if split {
            self.perft_split(p, depth)
        } else {
            self.perft_compound(p, depth)
        }
    }

    /// Perft in either form, with bulk counting at the last ply or without it (the compound
    /// generator builds every child's position anyway, so there `bulk` changes nothing).
    pub fn perft_with(&self, p: &Position, depth: u32, split: bool, bulk: bool) -> u64 {
        match (split, bulk) {
            (true, true) => self.perft_split(p, depth),
            (true, false) => self.perft_split_made(p, depth),
            (false, _) => self.perft_compound(p, depth),
        }
    }

    /// The children of `p` one ply down, each with its move text, in the chosen form.
    pub fn children(&self, p: &Position, split: bool) -> Vec<(String, Position)> {
        if self.decided(p) {
            return Vec::new();
        }
        let mut out: Vec<(String, Position)> = if split {
            let mut list = StepList::default();
            self.steps(p, &mut list);
            list.as_slice()
                .iter()
                .map(|&s| (self.format_step(s), self.play_step(p, s)))
                .collect()
        } else {
            let mut moves = Vec::new();
            self.moves(p, &mut moves);
            moves
                .into_iter()
                .map(|(m, q)| (self.format_move(&m), q))
                .collect()
        };
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::rules::Profile;
    use super::*;

    #[test]
    fn nine_mens_morris_start() {
        let m = Mill::new(Profile::default());
        let s = m.start();
        let want = [24, 552, 12144, 255024];
        for (d, &n) in want.iter().enumerate() {
            assert_eq!(m.perft_split(&s, d as u32 + 1), n, "depth {}", d + 1);
            assert_eq!(m.perft_split_made(&s, d as u32 + 1), n, "depth {}", d + 1);
        }
    }
}
