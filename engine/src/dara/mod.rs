//! Dara (RULES.md section 2): a 5x6 board, 12 stones a side, drops then orthogonal moves, runs of
//! four forbidden, an exact three made by a move removes an enemy stone.

pub mod notation;
mod runs;

pub use runs::{col_run, has_four, in_exact_threes, in_fours, row_run};

/// A set of cells, bit `6 * row + column` (row 0 is rank 1, column 0 is file a).
pub type Cells = u32;

/// Number of cells.
pub const CELLS: usize = 30;
/// All cells.
pub const ALL: Cells = (1 << CELLS) - 1;

const fn build_neighbours() -> [Cells; CELLS] {
    let mut t = [0; CELLS];
    let mut i = 0;
    while i < CELLS {
        let (r, c) = (i / 6, i % 6);
        if r > 0 {
            t[i] |= 1 << (i - 6);
        }
        if r < 4 {
            t[i] |= 1 << (i + 6);
        }
        if c > 0 {
            t[i] |= 1 << (i - 1);
        }
        if c < 5 {
            t[i] |= 1 << (i + 1);
        }
        i += 1;
    }
    t
}

/// Orthogonal neighbours of each cell.
pub static NEIGHBOURS: [Cells; CELLS] = build_neighbours();

/// The two players; White moves first.
pub use crate::Color;

/// Dara's rule knobs (RULES.md 2.7), both off by default.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DaraProfile {
    /// Dropping a stone that makes a three is illegal (Niger rules).
    pub drop_threes_forbidden: bool,
    /// With `false`, stones in exact threes are not protected: any enemy stone may be removed.
    pub unprotected_threes: bool,
}

impl DaraProfile {
    /// Sets a knob from `name=value`: `drop-threes-forbidden=on`, `protected-threes=off`.
    pub fn set(&mut self, setting: &str) -> Result<(), crate::RuleError> {
        use crate::RuleError;
        let (name, value) = setting.split_once('=').ok_or_else(|| {
            RuleError(format!(
                "rule setting '{setting}' is not of the form field=value"
            ))
        })?;
        let (name, value) = (name.trim().replace('_', "-"), value.trim());
        let on = match value {
            "on" | "true" | "yes" | "1" => true,
            "off" | "false" | "no" | "0" => false,
            _ => {
                return Err(RuleError(format!(
                    "rule field '{name}': expected on or off, found '{value}'"
                )))
            }
        };
        match name.as_str() {
            "drop-threes-forbidden" => self.drop_threes_forbidden = on,
            "protected-threes" => self.unprotected_threes = !on,
            _ => {
                return Err(RuleError(format!(
                    "unknown rule field '{name}' for dara; fields: drop-threes-forbidden, protected-threes"
                )))
            }
        }
        Ok(())
    }

    /// The rule fingerprint.
    pub fn fingerprint(&self) -> String {
        format!(
            "drop-threes-forbidden={},protected-threes={}",
            if self.drop_threes_forbidden {
                "on"
            } else {
                "off"
            },
            if self.unprotected_threes { "off" } else { "on" }
        )
    }
}

/// A Dara position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Stones on the board, indexed by colour.
    pub stones: [Cells; 2],
    /// Stones in hand, indexed by colour.
    pub hand: [u8; 2],
    /// The side to move.
    pub side: Color,
}

/// A move: a drop (`from == NONE`), or a step with an optional removal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// Origin of a step, or [`NONE`] for a drop.
    pub from: u8,
    /// Destination.
    pub to: u8,
    /// Removed enemy stone, or [`NONE`].
    pub removed: u8,
}

/// "No cell" in a [`Move`].
pub const NONE: u8 = u8::MAX;

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DaraEnd {
    /// The loser has 2 stones or fewer.
    TooFewStones,
    /// The loser, to move, has no legal move.
    NoLegalMove,
}

impl DaraEnd {
    /// A short human-readable description.
    pub const fn describe(self) -> &'static str {
        match self {
            DaraEnd::TooFewStones => "two stones or fewer",
            DaraEnd::NoLegalMove => "no legal move",
        }
    }
}

/// A Dara game under one rule profile.
#[derive(Clone, Debug, Default)]
pub struct Dara {
    /// The rules.
    pub profile: DaraProfile,
}

impl Dara {
    /// A game under the given rules.
    pub fn new(profile: DaraProfile) -> Dara {
        Dara { profile }
    }

    /// The start position: empty board, 12 stones in each hand, White to drop.
    pub fn start(&self) -> Position {
        Position {
            stones: [0, 0],
            hand: [12, 12],
            side: Color::White,
        }
    }

    fn total(p: &Position, c: Color) -> u32 {
        p.stones[c.index()].count_ones() + p.hand[c.index()] as u32
    }

    /// Stones the mover may remove from `victim`.
    pub fn removable(&self, victim: Cells) -> Cells {
        if self.profile.unprotected_threes {
            return victim;
        }
        let free = victim & !in_exact_threes(victim);
        if free != 0 {
            free
        } else {
            victim
        }
    }

    /// Every legal move with the position it leads to, in no particular order.
    pub fn moves(&self, p: &Position, out: &mut Vec<(Move, Position)>) {
        out.clear();
        let (s, o) = (p.side.index(), p.side.other().index());
        if Self::total(p, Color::White) <= 2 || Self::total(p, Color::Black) <= 2 {
            return;
        }
        let own = p.stones[s];
        let empty = ALL & !(p.stones[0] | p.stones[1]);
        if p.hand[s] > 0 {
            let mut e = empty;
            while e != 0 {
                let to = e.trailing_zeros() as usize;
                e &= e - 1;
                let now = own | (1 << to);
                let (r, c) = (row_run(now, to), col_run(now, to));
                if r >= 4 || c >= 4 || (self.profile.drop_threes_forbidden && (r == 3 || c == 3)) {
                    continue;
                }
                let mut q = *p;
                q.stones[s] = now;
                q.hand[s] -= 1;
                q.side = p.side.other();
                out.push((
                    Move {
                        from: NONE,
                        to: to as u8,
                        removed: NONE,
                    },
                    q,
                ));
            }
            return;
        }
        let mut set = own;
        while set != 0 {
            let from = set.trailing_zeros() as usize;
            set &= set - 1;
            let mut dests = NEIGHBOURS[from] & empty;
            while dests != 0 {
                let to = dests.trailing_zeros() as usize;
                dests &= dests - 1;
                let now = own ^ (1 << from) ^ (1 << to);
                let (r, c) = (row_run(now, to), col_run(now, to));
                if r >= 4 || c >= 4 {
                    continue;
                }
                let mut q = *p;
                q.stones[s] = now;
                q.side = p.side.other();
                if r == 3 || c == 3 {
                    let mut victims = self.removable(p.stones[o]);
                    while victims != 0 {
                        let x = victims.trailing_zeros() as usize;
                        victims &= victims - 1;
                        let mut r = q;
                        r.stones[o] &= !(1 << x);
                        out.push((
                            Move {
                                from: from as u8,
                                to: to as u8,
                                removed: x as u8,
                            },
                            r,
                        ));
                    }
                } else {
                    out.push((
                        Move {
                            from: from as u8,
                            to: to as u8,
                            removed: NONE,
                        },
                        q,
                    ));
                }
            }
        }
    }

    /// Whether the game is over: who lost and why.
    pub fn outcome(&self, p: &Position) -> Option<(Color, DaraEnd)> {
        for c in [p.side.other(), p.side] {
            if Self::total(p, c) <= 2 {
                return Some((c, DaraEnd::TooFewStones));
            }
        }
        let mut list = Vec::new();
        self.moves(p, &mut list);
        list.is_empty().then_some((p.side, DaraEnd::NoLegalMove))
    }

    /// Number of leaves of the move tree of the given depth (a finished game counts 1).
    pub fn perft(&self, p: &Position, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut list = Vec::with_capacity(64);
        self.moves(p, &mut list);
        if list.is_empty() {
            return 1;
        }
        if depth == 1 {
            return list.len() as u64;
        }
        list.iter().map(|(_, q)| self.perft(q, depth - 1)).sum()
    }

    /// Applies one of the 4 symmetries (bit 0 mirrors left-right, bit 1 top-bottom) to a set.
    pub fn transform(cells: Cells, sym: usize) -> Cells {
        let mut out = 0;
        let mut s = cells;
        while s != 0 {
            let i = s.trailing_zeros() as usize;
            s &= s - 1;
            let (mut r, mut c) = (i / 6, i % 6);
            if sym & 1 != 0 {
                c = 5 - c;
            }
            if sym & 2 != 0 {
                r = 4 - r;
            }
            out |= 1 << (6 * r + c);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_and_threes() {
        // a1 b1 c1 in a row; d2 d3 d4 in a column; e5 f5 pair.
        let own: Cells = 0b111 | (1 << 9) | (1 << 15) | (1 << 21) | (1 << 28) | (1 << 29);
        assert_eq!(row_run(own, 1), 3);
        assert_eq!(col_run(own, 15), 3);
        assert_eq!(row_run(own, 28), 2);
        assert_eq!(
            in_exact_threes(own),
            0b111 | (1 << 9) | (1 << 15) | (1 << 21)
        );
        for s in 0..4 {
            assert_eq!(Dara::transform(Dara::transform(own, s), s), own);
        }
    }

    #[test]
    fn perft_opening_is_plain_drops() {
        let g = Dara::default();
        let s = g.start();
        assert_eq!(g.perft(&s, 1), 30);
        assert_eq!(g.perft(&s, 2), 30 * 29);
        assert_eq!(g.perft(&s, 3), 30 * 29 * 28);
    }
}
