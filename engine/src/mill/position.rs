//! The Mill position and the rules context that moves it.

use super::geometry::{Bits, Geometry};
use super::rules::{BoardFull, MillAction, Profile, Stalemate};
use crate::Color;

/// A Mill position: everything the rules need to know, in a small `Copy` value.
///
/// The fields mirror the reference app's FEN. Whether the game is over is derived from them
/// (see [`Mill::outcome`]); only a loss by a full board is stored, since it depends on the
/// history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Stones on the board, indexed by colour.
    pub stones: [Bits; 2],
    /// Marked points (removed stones that block placement until placing ends).
    pub marked: Bits,
    /// Stones in hand, indexed by colour.
    pub hand: [u8; 2],
    /// The side to act.
    pub side: Color,
    /// Removals owed, indexed by colour; negative means the side removes its own stones.
    pub pending: [i8; 2],
    /// Whether the game is still in the placing phase (cleared when both hands are empty).
    pub placing: bool,
    /// The side to move was blocked and removes a neighbour before moving (`s:1`).
    pub stalemate_removal: bool,
    /// Placing ended with the board full and the profile's board-full rule ended the game
    /// (White lost, or a draw).
    pub board_full_end: bool,
    /// Points of the mills each side has already scored (one-time mills).
    pub formed: [Bits; 2],
    /// Plies since the last removal or placement (the reference app's rule50 counter).
    pub rule50: u16,
    /// Full-move number, starting at 1 and incremented after each Black turn.
    pub fullmove: u16,
}

/// One action of the reference app's split form: a placement, a slide or fly, or a removal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    /// Put a stone from the hand on a point.
    Place(u8),
    /// Slide or fly a stone from one point to another.
    Move(u8, u8),
    /// Remove a stone (an opponent's, or one's own when the removal count is negative).
    Remove(u8),
}

/// Marker for "no point" in [`Move`].
pub const NO_POINT: u8 = u8::MAX;

/// A compound move: one placement or move plus the removals that complete it, one ply.
/// A ply that consists of removals only (a removal owed at the start of the turn) has
/// `to == NO_POINT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// Origin of a slide or fly, else `NO_POINT`.
    pub from: u8,
    /// Destination of a placement, slide or fly, else `NO_POINT`.
    pub to: u8,
    /// The stones removed by this ply.
    pub removed: Bits,
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// The loser has fewer stones than the profile's minimum (board plus hand).
    TooFewStones,
    /// The loser, to move, has no legal move.
    NoLegalMove,
    /// The board was full when placing ended: White loses, or a draw (the profile says which).
    BoardFull,
}

impl EndReason {
    /// A short human-readable description, without the profile's figures (`Mill::describe_end`
    /// has them).
    pub const fn describe(self) -> &'static str {
        match self {
            EndReason::TooFewStones => "too few stones",
            EndReason::NoLegalMove => "no legal move",
            EndReason::BoardFull => "board full when placing ended",
        }
    }
}

/// A finished game: who lost and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameOver {
    /// The side that lost; `None` for a draw (a full board under `board-full=draw`).
    pub loser: Option<Color>,
    /// Why.
    pub reason: EndReason,
}

impl GameOver {
    /// Whether `side` won (`Some(true)`) or lost (`Some(false)`); `None` for a draw.
    pub fn won_by(&self, side: Color) -> Option<bool> {
        self.loser.map(|l| l != side)
    }
}

/// A fixed-capacity list of steps (no allocation in the move generator).
pub struct StepList {
    steps: [Step; 128],
    len: usize,
}

impl Default for StepList {
    fn default() -> Self {
        StepList {
            steps: [Step::Place(0); 128],
            len: 0,
        }
    }
}

impl StepList {
    #[inline]
    fn push(&mut self, s: Step) {
        self.steps[self.len] = s;
        self.len += 1;
    }
    /// The steps generated.
    pub fn as_slice(&self) -> &[Step] {
        &self.steps[..self.len]
    }
    /// Number of steps.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A Mill game under one rule profile: generates and plays moves.
#[derive(Clone, Debug)]
pub struct Mill {
    /// The rules.
    pub profile: Profile,
    /// The board tables.
    pub geo: &'static Geometry,
}

#[inline]
fn bit(p: u8) -> Bits {
    1 << p
}

impl Mill {
    /// A game under the given rules.
    pub fn new(profile: Profile) -> Mill {
        let geo = profile.board.geometry();
        Mill { profile, geo }
    }

    /// The start position: empty board, every stone in hand, White to place.
    pub fn start(&self) -> Position {
        let n = self.profile.stones;
        Position {
            stones: [0, 0],
            marked: 0,
            hand: [n, n],
            side: Color::White,
            pending: [0, 0],
            placing: true,
            stalemate_removal: false,
            board_full_end: false,
            formed: [0, 0],
            rule50: 0,
            fullmove: 1,
        }
    }

    /// Empty points (not occupied, not marked).
    #[inline]
    pub fn empty(&self, p: &Position) -> Bits {
        self.geo.all & !(p.stones[0] | p.stones[1] | p.marked)
    }

    /// Whether side `c` would fly if it moved now.
    #[inline]
    pub fn flies(&self, p: &Position, c: Color) -> bool {
        self.profile.flying
            && p.hand[c.index()] == 0
            && p.stones[c.index()].count_ones() <= self.profile.fly_at as u32
    }

    /// The stones side `by` may remove from side `victim` under the mill-protection rule.
    #[inline]
    pub fn removable(&self, p: &Position, victim: Color) -> Bits {
        let opp = p.stones[victim.index()];
        if self.profile.remove_from_mills {
            return opp;
        }
        let free = opp & !self.geo.in_mills(opp);
        if free != 0 {
            free
        } else {
            opp
        }
    }

    /// Targets of the removal step the side to move owes (0 if it owes none).
    #[inline]
    fn removal_targets(&self, p: &Position) -> Bits {
        let s = p.side;
        let owed = p.pending[s.index()];
        if owed > 0 {
            if p.stalemate_removal {
                p.stones[s.other().index()] & self.geo.neighbours(p.stones[s.index()])
            } else {
                self.removable(p, s.other())
            }
        } else if owed < 0 {
            p.stones[s.index()]
        } else {
            0
        }
    }

    /// Destinations of slides (or flies) from each own stone, as (from, destinations).
    #[inline]
    fn for_each_move(&self, p: &Position, mut f: impl FnMut(u8, Bits)) {
        let s = p.side.index();
        let empty = self.empty(p);
        let mut own = p.stones[s];
        let fly = self.flies(p, p.side);
        while own != 0 {
            let from = own.trailing_zeros() as u8;
            own &= own - 1;
            let dests = if fly {
                empty
            } else {
                self.geo.adjacent[from as usize] & empty
            };
            f(from, dests);
        }
    }

    /// Whether the side to move places (rather than moves) this turn.
    #[inline]
    fn places(&self, p: &Position) -> bool {
        p.hand[p.side.index()] > 0
    }

    /// Lists every legal step of the split form into `out` (cleared first). Does not check for
    /// a finished game.
    pub fn steps(&self, p: &Position, out: &mut StepList) {
        out.len = 0;
        let targets = self.removal_targets(p);
        if p.pending[p.side.index()] != 0 {
            push_points(targets, out, Step::Remove);
            return;
        }
        if self.places(p) {
            push_points(self.empty(p), out, Step::Place);
            if !self.profile.move_in_placing {
                return;
            }
        }
        self.for_each_move(p, |from, mut dests| {
            while dests != 0 {
                let to = dests.trailing_zeros() as u8;
                dests &= dests - 1;
                out.push(Step::Move(from, to));
            }
        });
    }

    /// Number of legal steps of the split form (what `steps` would append), without listing them.
    #[inline]
    pub fn count_steps(&self, p: &Position) -> u64 {
        if p.pending[p.side.index()] != 0 {
            return self.removal_targets(p).count_ones() as u64;
        }
        let mut n = 0u64;
        if self.places(p) {
            n += self.empty(p).count_ones() as u64;
            if !self.profile.move_in_placing {
                return n;
            }
        }
        let s = p.side.index();
        if self.flies(p, p.side) {
            return n + p.stones[s].count_ones() as u64 * self.empty(p).count_ones() as u64;
        }
        self.for_each_move(p, |_, d| n += d.count_ones() as u64);
        n
    }

    /// Whether a side with `stones` on the board and `hand` in hand is below the profile's
    /// minimum (and so has lost by material).
    #[inline]
    pub(crate) fn below_minimum(&self, stones: Bits, hand: u8) -> bool {
        stones.count_ones() + (hand as u32) < self.profile.min_stones as u32
    }

    /// The side that has lost by material, if any.
    #[inline]
    fn too_few(&self, p: &Position) -> Option<Color> {
        [p.side.other(), p.side]
            .into_iter()
            .find(|&c| self.below_minimum(p.stones[c.index()], p.hand[c.index()]))
    }

    /// Why a game ended, in words, with this profile's figures ("fewer than 3 stones").
    pub fn describe_end(&self, reason: EndReason) -> String {
        match reason {
            EndReason::TooFewStones => format!("fewer than {} stones", self.profile.min_stones),
            r => r.describe().to_string(),
        }
    }

    /// Whether the game is over, and how. A side to move with no legal step loses.
    pub fn outcome(&self, p: &Position) -> Option<GameOver> {
        if p.board_full_end {
            let loser = match self.profile.board_full {
                BoardFull::Draw => None,
                _ => Some(Color::White),
            };
            return Some(GameOver {
                loser,
                reason: EndReason::BoardFull,
            });
        }
        if let Some(loser) = self.too_few(p) {
            return Some(GameOver {
                loser: Some(loser),
                reason: EndReason::TooFewStones,
            });
        }
        if self.count_steps(p) == 0 {
            return Some(GameOver {
                loser: Some(p.side),
                reason: EndReason::NoLegalMove,
            });
        }
        None
    }

    /// Whether the game is over by a stored or material rule (cheap; no move generation).
    #[inline]
    pub fn decided(&self, p: &Position) -> bool {
        p.board_full_end || self.too_few(p).is_some()
    }

    /// Counts the mills of side `c` through point `to`, recording them if mills are one-time.
    fn new_mills(&self, p: &mut Position, c: Color, to: u8) -> u32 {
        let own = p.stones[c.index()];
        let mut n = 0;
        for &m in &self.geo.mills_through[to as usize] {
            if m != 0 && own & m == m {
                if self.profile.one_time_mills {
                    if p.formed[c.index()] & m == m {
                        continue;
                    }
                    p.formed[c.index()] |= m;
                }
                n += 1;
            }
        }
        n
    }

    /// Sets the removals owed after side `c` closed `mills` mills.
    fn owe_removals(&self, p: &mut Position, c: Color, mills: u32) {
        let want = if self.profile.remove_per_mill {
            mills
        } else {
            1
        };
        let available = p.stones[c.other().index()].count_ones();
        p.pending[c.index()] = want.min(available) as i8;
    }

    /// Plays one step of the split form. The step must be legal (from [`Mill::steps`]).
    pub fn play_step(&self, pos: &Position, step: Step) -> Position {
        let mut p = *pos;
        let s = p.side;
        let (si, oi) = (s.index(), s.other().index());
        match step {
            Step::Place(to) => {
                p.stones[si] |= bit(to);
                p.hand[si] -= 1;
                p.rule50 = 0;
                let mills = self.new_mills(&mut p, s, to);
                if mills > 0 {
                    match self.profile.mill_action {
                        MillAction::RemoveFromBoard | MillAction::MarkAndDelay => {
                            self.owe_removals(&mut p, s, mills)
                        }
                        MillAction::RemoveFromHand => {
                            if p.hand[oi] > 0 {
                                p.hand[oi] -= 1;
                            } else {
                                self.owe_removals(&mut p, s, mills)
                            }
                        }
                        MillAction::MillCounts => {}
                    }
                }
                if p.pending[si] == 0 {
                    self.end_turn(&mut p);
                }
            }
            Step::Move(from, to) => {
                p.stones[si] ^= bit(from) | bit(to);
                p.rule50 = p.rule50.saturating_add(1);
                let mills = self.new_mills(&mut p, s, to);
                if mills > 0 {
                    self.owe_removals(&mut p, s, mills);
                }
                if p.pending[si] == 0 {
                    self.end_turn(&mut p);
                }
            }
            Step::Remove(at) => {
                if p.pending[si] > 0 {
                    p.stones[oi] &= !bit(at);
                    if p.placing && self.profile.mill_action == MillAction::MarkAndDelay {
                        p.marked |= bit(at);
                    }
                    p.pending[si] -= 1;
                } else {
                    p.stones[si] &= !bit(at);
                    p.pending[si] += 1;
                }
                p.rule50 = 0;
                if p.stalemate_removal {
                    // The blocked side has made room; it now moves itself.
                    p.stalemate_removal = false;
                    p.pending[si] = 0;
                } else if self.too_few(&p).is_some() {
                    // Game over: nobody owes a removal any more (under mill counts the other
                    // side's own removal is left undone). A finished game that had nothing
                    // left to place is written (and read back) as out of the placing phase.
                    p.pending = [0, 0];
                    if p.hand == [0, 0] && p.marked == 0 {
                        p.placing = false;
                    }
                } else if p.pending[si] != 0 {
                    // More removals to make.
                } else if p.pending[oi] != 0 {
                    p.side = s.other();
                } else {
                    self.end_turn(&mut p);
                }
            }
        }
        p
    }

    /// Passes the turn after the side to move has finished, handling the end of placing.
    fn end_turn(&self, p: &mut Position) {
        let s = p.side;
        if s == Color::Black {
            p.fullmove = p.fullmove.saturating_add(1);
        }
        if p.placing && p.hand == [0, 0] {
            p.placing = false;
            p.marked = 0;
            if self.profile.mill_action == MillAction::MillCounts {
                p.pending = MillAction::mill_count_removals(
                    self.geo.count_mills(p.stones[0]),
                    self.geo.count_mills(p.stones[1]),
                );
                p.side = Color::White;
                return;
            }
            if self.empty(p) == 0 {
                match self.profile.board_full {
                    BoardFull::FirstPlayerLoses | BoardFull::Draw => {
                        p.board_full_end = true;
                        p.side = s.other();
                        return;
                    }
                    BoardFull::FirstThenSecondRemove => {
                        p.pending = [1, 1];
                        p.side = Color::White;
                        return;
                    }
                    BoardFull::SecondThenFirstRemove => {
                        p.pending = [1, 1];
                        p.side = Color::Black;
                        return;
                    }
                }
            }
            p.side = if self.profile.defender_first {
                Color::Black
            } else {
                s.other()
            };
        } else {
            p.side = s.other();
        }
        if self.owes_stalemate_removal(p) {
            p.pending[p.side.index()] = 1;
            p.stalemate_removal = true;
        }
    }

    /// Whether the side to move, at the start of its turn, owes a stalemate removal
    /// (`stalemate=remove-and-move`: nothing to place, not lost on material, no legal step).
    /// The end of the turn before sets it; a typed-in text may leave it out.
    pub(crate) fn owes_stalemate_removal(&self, p: &Position) -> bool {
        self.profile.stalemate == Stalemate::RemoveAndMove
            && !self.places(p)
            && self.too_few(p).is_none()
            && self.count_steps(p) == 0
    }

    /// Appends every legal compound move with the position it leads to, sorted and without
    /// duplicates. Empty when the game is over.
    pub fn moves(&self, p: &Position, out: &mut Vec<(Move, Position)>) {
        out.clear();
        if self.decided(p) {
            return;
        }
        let mut steps = StepList::default();
        self.steps(p, &mut steps);
        for &st in steps.as_slice() {
            let (from, to, removed) = match st {
                Step::Place(t) => (NO_POINT, t, 0),
                Step::Move(f, t) => (f, t, 0),
                Step::Remove(r) => (NO_POINT, NO_POINT, bit(r)),
            };
            let q = self.play_step(p, st);
            self.complete(Move { from, to, removed }, q, p.side, out);
        }
        out.sort_unstable_by_key(|(m, _)| *m);
        out.dedup_by_key(|(m, _)| *m);
    }

    /// Extends a partial compound move by the removals its side still owes. A stalemate
    /// removal is not one of them: it starts the next turn, a ply of its own, even when that
    /// turn is the same side's (Black's last placement under `defender-first`).
    fn complete(&self, mv: Move, q: Position, side: Color, out: &mut Vec<(Move, Position)>) {
        if q.side != side || q.pending[side.index()] == 0 || q.stalemate_removal || self.decided(&q)
        {
            out.push((mv, q));
            return;
        }
        let mut steps = StepList::default();
        self.steps(&q, &mut steps);
        if steps.is_empty() {
            out.push((mv, q));
        }
        for &st in steps.as_slice() {
            if let Step::Remove(r) = st {
                let next = Move {
                    removed: mv.removed | bit(r),
                    ..mv
                };
                self.complete(next, self.play_step(&q, st), side, out);
            }
        }
    }

    /// Applies a symmetry (0..16) to every point set of a position.
    pub fn transform(&self, p: &Position, sym: usize) -> Position {
        let t = |b: Bits| self.geo.transform(b, sym);
        Position {
            stones: [t(p.stones[0]), t(p.stones[1])],
            marked: t(p.marked),
            formed: [t(p.formed[0]), t(p.formed[1])],
            ..*p
        }
    }
}

#[inline]
fn push_points(mut set: Bits, out: &mut StepList, f: impl Fn(u8) -> Step) {
    while set != 0 {
        out.push(f(set.trailing_zeros() as u8));
        set &= set - 1;
    }
}
