//! A deliberately simple Mill rules implementation, written for the differential test only.
//!
//! Nothing here uses the engine's tables or bit tricks: the boards are lists of point *names*
//! (adjacency and mills copied from `../shared/RULES.md` 1.1), a position is an array of cells,
//! and the rules follow `docs/mill-rules.md` step by step. The only engine data used is the rule
//! [`Profile`] (its public fields). Speed does not matter; clarity does.

use retro_engine::mill::rules::{BoardFull, MillAction, Stalemate};
use retro_engine::mill::{Board, Profile};

/// Cell contents.
pub const EMPTY: u8 = 0;
pub const WHITE: u8 = 1;
pub const BLACK: u8 = 2;
pub const MARKED: u8 = 3;

/// Side indices.
pub const W: usize = 0;
pub const B: usize = 1;

/// The stone colour of a side index.
fn stone(side: usize) -> u8 {
    if side == W {
        WHITE
    } else {
        BLACK
    }
}

// ------------------------------------------------------------------------------------------------
// Boards, by point name.

/// morris24 / morris24d points in the FEN's order: inner, middle, outer ring, each from
/// 12 o'clock clockwise (sanmill-format.md section 2).
const POINTS_24: [&str; 24] = [
    "d5", "e5", "e4", "e3", "d3", "c3", "c4", "c5", // inner
    "d6", "f6", "f4", "f2", "d2", "b2", "b4", "b6", // middle
    "d7", "g7", "g4", "g1", "d1", "a1", "a4", "a7", // outer
];

/// The lines of movement of morris24: the three squares and the four spokes.
const LINES_24: &[&str] = &[
    "a7-d7 d7-g7 g7-g4 g4-g1 g1-d1 d1-a1 a1-a4 a4-a7", // outer square
    "b6-d6 d6-f6 f6-f4 f4-f2 f2-d2 d2-b2 b2-b4 b4-b6", // middle square
    "c5-d5 d5-e5 e5-e4 e4-e3 e3-d3 d3-c3 c3-c4 c4-c5", // inner square
    "d7-d6 d6-d5 g4-f4 f4-e4 d1-d2 d2-d3 a4-b4 b4-c4", // spokes
];

/// The 16 mills of morris24 (RULES.md 1.1): 8 horizontal, 8 vertical.
const MILLS_24: &[&str] = &[
    "a7-d7-g7 b6-d6-f6 c5-d5-e5 a4-b4-c4 e4-f4-g4 c3-d3-e3 b2-d2-f2 a1-d1-g1",
    "a1-a4-a7 b2-b4-b6 c3-c4-c5 d1-d2-d3 d5-d6-d7 e3-e4-e5 f2-f4-f6 g1-g4-g7",
];

/// What morris24d adds: the four diagonals, both lines of movement and mills.
const DIAGONAL_LINES: &[&str] = &["a1-b2 b2-c3 g1-f2 f2-e3 a7-b6 b6-c5 g7-f6 f6-e5"];
const DIAGONAL_MILLS: &[&str] = &["a1-b2-c3 g1-f2-e3 a7-b6-c5 g7-f6-e5"];

/// morris16 points in the FEN's order: inner then outer square, from 12 o'clock clockwise.
const POINTS_16: [&str; 16] = [
    "c4", "d4", "d3", "d2", "c2", "b2", "b3", "b4", // inner
    "c5", "e5", "e3", "e1", "c1", "a1", "a3", "a5", // outer
];

/// morris16: outer square a1 c1 e1 e3 e5 c5 a5 a3, inner square b2 c2 d2 d3 d4 c4 b4 b3.
const LINES_16: &[&str] = &[
    "a1-c1 c1-e1 e1-e3 e3-e5 e5-c5 c5-a5 a5-a3 a3-a1", // outer square
    "b2-c2 c2-d2 d2-d3 d3-d4 d4-c4 c4-b4 b4-b3 b3-b2", // inner square
    "a3-b3 c1-c2 e3-d3 c5-c4",                         // connectors
];

/// The 8 mills of morris16: the sides of the two squares.
const MILLS_16: &[&str] = &[
    "a1-c1-e1 e1-e3-e5 e5-c5-a5 a5-a3-a1",
    "b2-c2-d2 d2-d3-d4 d4-c4-b4 b4-b3-b2",
];

/// Splits the lists above into their `-`-joined groups of point names.
fn groups(lists: &[&[&'static str]]) -> Vec<Vec<&'static str>> {
    lists
        .iter()
        .flat_map(|l| l.iter())
        .flat_map(|line| line.split_whitespace())
        .map(|g| g.split('-').collect())
        .collect()
}

/// A board as plain lists: point names in FEN order, neighbours and mills by point index.
#[derive(Clone, Debug)]
pub struct Tables {
    pub names: Vec<&'static str>,
    pub adjacent: Vec<Vec<usize>>,
    pub mills: Vec<[usize; 3]>,
    /// Number of `/`-separated groups of 8 in the FEN board field.
    pub rings: usize,
}

impl Tables {
    pub fn new(board: Board) -> Tables {
        let (points, lines, mills) = match board {
            Board::Morris24 => (&POINTS_24[..], groups(&[LINES_24]), groups(&[MILLS_24])),
            Board::Morris24D => (
                &POINTS_24[..],
                groups(&[LINES_24, DIAGONAL_LINES]),
                groups(&[MILLS_24, DIAGONAL_MILLS]),
            ),
            Board::Morris16 => (&POINTS_16[..], groups(&[LINES_16]), groups(&[MILLS_16])),
        };
        let names: Vec<&'static str> = points.to_vec();
        let index = |name: &str| -> usize {
            names
                .iter()
                .position(|n| *n == name)
                .unwrap_or_else(|| panic!("unknown point {name}"))
        };
        let mut adjacent = vec![Vec::new(); names.len()];
        for line in &lines {
            assert_eq!(line.len(), 2, "a line of movement joins two points");
            let (a, b) = (index(line[0]), index(line[1]));
            assert!(!adjacent[a].contains(&b), "line listed twice");
            adjacent[a].push(b);
            adjacent[b].push(a);
        }
        let mills = mills
            .iter()
            .map(|m| [index(m[0]), index(m[1]), index(m[2])])
            .collect();
        Tables {
            rings: names.len() / 8,
            names,
            adjacent,
            mills,
        }
    }

    pub fn points(&self) -> usize {
        self.names.len()
    }

    pub fn point(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| *n == name)
    }
}

// ------------------------------------------------------------------------------------------------
// Positions and steps.

/// A position, as plain as it gets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlowPos {
    /// `EMPTY`, `WHITE`, `BLACK` or `MARKED` per point (FEN order); unused tail on morris16.
    pub cells: [u8; 24],
    pub hand: [u8; 2],
    /// `W` or `B`.
    pub side: usize,
    /// Removals owed per side; negative: remove own stones.
    pub pending: [i8; 2],
    pub placing: bool,
    pub stalemate_removal: bool,
    pub board_full_end: bool,
    /// Points in the formed-mills mask (one-time mills), per side.
    pub formed: [[bool; 24]; 2],
    pub rule50: u32,
    pub fullmove: u32,
}

/// One step of the split form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowStep {
    Place(usize),
    Slide(usize, usize),
    Remove(usize),
}

/// Why the game ended (mirrors the rules doc's list).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowEnd {
    BoardFull,
    TooFewStones,
    NoLegalMove,
}

/// The rules, read from the engine's profile.
pub struct SlowMill {
    pub rules: Profile,
    pub t: Tables,
}

impl SlowMill {
    pub fn new(rules: &Profile) -> SlowMill {
        SlowMill {
            rules: rules.clone(),
            t: Tables::new(rules.board),
        }
    }

    pub fn start(&self) -> SlowPos {
        SlowPos {
            cells: [EMPTY; 24],
            hand: [self.rules.stones, self.rules.stones],
            side: W,
            pending: [0, 0],
            placing: true,
            stalemate_removal: false,
            board_full_end: false,
            formed: [[false; 24]; 2],
            rule50: 0,
            fullmove: 1,
        }
    }

    fn n(&self) -> usize {
        self.t.points()
    }

    /// Stones of `side` on the board.
    pub fn on_board(&self, p: &SlowPos, side: usize) -> usize {
        (0..self.n()).filter(|&i| p.cells[i] == stone(side)).count()
    }

    /// Whether the stone on `point` is part of a complete mill of its owner.
    fn in_complete_mill(&self, p: &SlowPos, point: usize) -> bool {
        let c = p.cells[point];
        self.t
            .mills
            .iter()
            .any(|m| m.contains(&point) && m.iter().all(|&q| p.cells[q] == c))
    }

    /// Number of complete mills of `side`.
    fn complete_mills(&self, p: &SlowPos, side: usize) -> i8 {
        let c = stone(side);
        self.t
            .mills
            .iter()
            .filter(|m| m.iter().all(|&q| p.cells[q] == c))
            .count() as i8
    }

    /// Whether `side` flies: flying on, nothing in hand, at most `fly_at` stones on the board.
    pub fn flies(&self, p: &SlowPos, side: usize) -> bool {
        self.rules.flying
            && p.hand[side] == 0
            && self.on_board(p, side) <= self.rules.fly_at as usize
    }

    /// Every legal step of the side to act (docs/mill-rules.md "Steps").
    pub fn steps(&self, p: &SlowPos) -> Vec<SlowStep> {
        let s = p.side;
        let o = 1 - s;
        let n = self.n();
        let mut out = Vec::new();
        if p.pending[s] > 0 {
            let theirs: Vec<usize> = (0..n).filter(|&i| p.cells[i] == stone(o)).collect();
            let victims: Vec<usize> = if p.stalemate_removal {
                theirs
                    .into_iter()
                    .filter(|&i| self.t.adjacent[i].iter().any(|&j| p.cells[j] == stone(s)))
                    .collect()
            } else if self.rules.remove_from_mills {
                theirs
            } else {
                let free: Vec<usize> = theirs
                    .iter()
                    .copied()
                    .filter(|&i| !self.in_complete_mill(p, i))
                    .collect();
                if free.is_empty() {
                    theirs
                } else {
                    free
                }
            };
            out.extend(victims.into_iter().map(SlowStep::Remove));
            return out;
        }
        if p.pending[s] < 0 {
            for i in 0..n {
                if p.cells[i] == stone(s) {
                    out.push(SlowStep::Remove(i));
                }
            }
            return out;
        }
        if p.hand[s] > 0 {
            for i in 0..n {
                if p.cells[i] == EMPTY {
                    out.push(SlowStep::Place(i));
                }
            }
            if self.rules.move_in_placing {
                self.slides(p, &mut out);
            }
            return out;
        }
        if self.flies(p, s) {
            for f in 0..n {
                if p.cells[f] == stone(s) {
                    for t in 0..n {
                        if p.cells[t] == EMPTY {
                            out.push(SlowStep::Slide(f, t));
                        }
                    }
                }
            }
        } else {
            self.slides(p, &mut out);
        }
        out
    }

    fn slides(&self, p: &SlowPos, out: &mut Vec<SlowStep>) {
        for f in 0..self.n() {
            if p.cells[f] == stone(p.side) {
                for &t in &self.t.adjacent[f] {
                    if p.cells[t] == EMPTY {
                        out.push(SlowStep::Slide(f, t));
                    }
                }
            }
        }
    }

    /// The game-over verdict: (loser, `None` for a draw; reason), docs/mill-rules.md "End of
    /// the game".
    pub fn outcome(&self, p: &SlowPos) -> Option<(Option<usize>, SlowEnd)> {
        if p.board_full_end {
            let loser = (self.rules.board_full != BoardFull::Draw).then_some(W);
            return Some((loser, SlowEnd::BoardFull));
        }
        for side in [W, B] {
            if self.on_board(p, side) + (p.hand[side] as usize) < self.rules.min_stones as usize {
                return Some((Some(side), SlowEnd::TooFewStones));
            }
        }
        if self.steps(p).is_empty() {
            return Some((Some(p.side), SlowEnd::NoLegalMove));
        }
        None
    }

    /// Counts the mills of the side to act through `t` (just placed or moved to); with one-time
    /// mills a mill whose three points were all in the formed mask before this step does not
    /// count, and counted mills join the mask.
    fn new_mills(&self, p: &mut SlowPos, t: usize) -> usize {
        let s = p.side;
        let c = stone(s);
        let mut closed: Vec<[usize; 3]> = Vec::new();
        for m in &self.t.mills {
            if m.contains(&t) && m.iter().all(|&q| p.cells[q] == c) {
                if self.rules.one_time_mills && m.iter().all(|&q| p.formed[s][q]) {
                    continue;
                }
                closed.push(*m);
            }
        }
        if self.rules.one_time_mills {
            for m in &closed {
                for &q in m {
                    p.formed[s][q] = true;
                }
            }
        }
        closed.len()
    }

    /// The side to act owes removals from the board for `mills` mills.
    fn owe_board_removals(&self, p: &mut SlowPos, mills: usize) {
        let s = p.side;
        let per = if self.rules.remove_per_mill { mills } else { 1 };
        let theirs = self.on_board(p, 1 - s);
        p.pending[s] = per.min(theirs) as i8;
    }

    /// Plays one step (docs/mill-rules.md "Effects").
    pub fn play(&self, pos: &SlowPos, step: SlowStep) -> SlowPos {
        let mut p = pos.clone();
        let s = p.side;
        let o = 1 - s;
        match step {
            SlowStep::Place(t) => {
                assert_eq!(p.cells[t], EMPTY);
                assert!(p.hand[s] > 0);
                p.hand[s] -= 1;
                p.cells[t] = stone(s);
                p.rule50 = 0;
                let mills = self.new_mills(&mut p, t);
                if mills > 0 {
                    match self.rules.mill_action {
                        MillAction::RemoveFromBoard | MillAction::MarkAndDelay => {
                            self.owe_board_removals(&mut p, mills)
                        }
                        MillAction::RemoveFromHand => {
                            if p.hand[o] > 0 {
                                p.hand[o] -= 1;
                            } else {
                                self.owe_board_removals(&mut p, mills)
                            }
                        }
                        MillAction::MillCounts => {}
                    }
                }
                if p.pending[s] == 0 {
                    self.end_turn(&mut p);
                }
            }
            SlowStep::Slide(f, t) => {
                assert_eq!(p.cells[f], stone(s));
                assert_eq!(p.cells[t], EMPTY);
                p.cells[f] = EMPTY;
                p.cells[t] = stone(s);
                p.rule50 += 1;
                let mills = self.new_mills(&mut p, t);
                if mills > 0 {
                    self.owe_board_removals(&mut p, mills);
                }
                if p.pending[s] == 0 {
                    self.end_turn(&mut p);
                }
            }
            SlowStep::Remove(x) => {
                assert!(p.cells[x] == WHITE || p.cells[x] == BLACK);
                assert!(p.pending[s] != 0);
                let mark = p.placing && self.rules.mill_action == MillAction::MarkAndDelay;
                p.cells[x] = if mark { MARKED } else { EMPTY };
                p.rule50 = 0;
                if p.pending[s] > 0 {
                    p.pending[s] -= 1;
                } else {
                    p.pending[s] += 1;
                }
                // 1. after a stalemate removal the same side moves
                if p.stalemate_removal {
                    p.stalemate_removal = false;
                    return p;
                }
                // 2. too few stones: the game is over, and nobody owes a removal any more
                let min = self.rules.min_stones as usize;
                if [W, B]
                    .iter()
                    .any(|&c| self.on_board(&p, c) + (p.hand[c] as usize) < min)
                {
                    p.pending = [0, 0];
                    return p;
                }
                // 3. still owing: remove again
                if p.pending[s] != 0 {
                    return p;
                }
                // 4. the opponent owes: it acts next
                if p.pending[o] != 0 {
                    p.side = o;
                    return p;
                }
                // 5. the turn ends
                self.end_turn(&mut p);
            }
        }
        p
    }

    /// The end of the turn of the side to act (docs/mill-rules.md "End of turn").
    fn end_turn(&self, p: &mut SlowPos) {
        let s = p.side;
        let o = 1 - s;
        if s == B {
            p.fullmove += 1;
        }
        let next;
        if p.placing && p.hand[W] == 0 && p.hand[B] == 0 {
            p.placing = false;
            for c in p.cells.iter_mut() {
                if *c == MARKED {
                    *c = EMPTY;
                }
            }
            let full = (0..self.n()).all(|i| p.cells[i] != EMPTY);
            if self.rules.mill_action == MillAction::MillCounts {
                let w = self.complete_mills(p, W);
                let b = self.complete_mills(p, B);
                p.pending = if w == 0 && b == 0 {
                    [-1, -1]
                } else if w == 0 {
                    [1, 2]
                } else if b == 0 {
                    [2, 1]
                } else if w == b {
                    [w, b]
                } else if w < b {
                    [w, w + 1]
                } else {
                    [b + 1, b]
                };
                next = W;
            } else if full {
                match self.rules.board_full {
                    BoardFull::FirstPlayerLoses | BoardFull::Draw => {
                        p.board_full_end = true;
                        next = o;
                    }
                    BoardFull::FirstThenSecondRemove => {
                        p.pending = [1, 1];
                        next = W;
                    }
                    BoardFull::SecondThenFirstRemove => {
                        p.pending = [1, 1];
                        next = B;
                    }
                }
            } else if self.rules.defender_first {
                next = B;
            } else {
                next = o;
            }
        } else {
            next = o;
        }
        p.side = next;
        if self.rules.stalemate == Stalemate::RemoveAndMove
            && !p.board_full_end
            && p.hand[next] == 0
            && self.steps(p).is_empty()
        {
            p.pending[next] = 1;
            p.stalemate_removal = true;
        }
    }

    // --------------------------------------------------------------------------------------------
    // Compound moves.

    /// Every compound move: its text and the position after it (docs/mill-rules.md "Compound
    /// moves"). Empty when the game is over.
    pub fn compound_moves(&self, p: &SlowPos) -> Vec<(String, SlowPos)> {
        let mut out: Vec<(String, SlowPos)> = Vec::new();
        if self.outcome(p).is_some() {
            return out;
        }
        let s = p.side;
        if p.pending[s] != 0 {
            self.finish_compound(p, s, "", &mut Vec::new(), &mut out);
        } else {
            for step in self.steps(p) {
                let q = self.play(p, step);
                let head = self.step_text(step);
                self.finish_compound(&q, s, &head, &mut Vec::new(), &mut out);
            }
        }
        out
    }

    fn finish_compound(
        &self,
        q: &SlowPos,
        s: usize,
        head: &str,
        removed: &mut Vec<usize>,
        out: &mut Vec<(String, SlowPos)>,
    ) {
        // A stalemate removal owed after a step starts the next turn (a ply of its own), even
        // the same side's; one owed at the start of the ply is this ply.
        let at_start = head.is_empty() && removed.is_empty();
        let next_turn = q.stalemate_removal && !at_start;
        if q.side == s && q.pending[s] != 0 && !next_turn && self.outcome(q).is_none() {
            for step in self.steps(q) {
                let SlowStep::Remove(x) = step else {
                    panic!("a side owing removals can only remove")
                };
                let r = self.play(q, step);
                removed.push(x);
                self.finish_compound(&r, s, head, removed, out);
                removed.pop();
            }
            return;
        }
        let mut names: Vec<&str> = removed.iter().map(|&x| self.t.names[x]).collect();
        names.sort_unstable();
        let mut text = head.to_string();
        for n in names {
            text.push('x');
            text.push_str(n);
        }
        if let Some((_, earlier)) = out.iter().find(|(t, _)| *t == text) {
            assert_eq!(
                self.fen(earlier),
                self.fen(q),
                "{text}: the same removals in another order give another position"
            );
            return;
        }
        out.push((text, q.clone()));
    }

    // --------------------------------------------------------------------------------------------
    // Text.

    pub fn step_text(&self, s: SlowStep) -> String {
        match s {
            SlowStep::Place(t) => self.t.names[t].to_string(),
            SlowStep::Slide(f, t) => format!("{}-{}", self.t.names[f], self.t.names[t]),
            SlowStep::Remove(x) => format!("x{}", self.t.names[x]),
        }
    }

    /// The 17-field FEN (plus `s:1`), docs/mill-rules.md "Position text".
    pub fn fen(&self, p: &SlowPos) -> String {
        let mut board = String::new();
        for i in 0..self.n() {
            if i > 0 && i % 8 == 0 {
                board.push('/');
            }
            board.push(match p.cells[i] {
                EMPTY => '*',
                WHITE => 'O',
                BLACK => '@',
                MARKED => 'X',
                c => panic!("bad cell {c}"),
            });
        }
        let s = p.side;
        let phase = if self.outcome(p).is_some() {
            'o'
        } else if p.placing && (p.hand[s] > 0 || p.pending[s] != 0) {
            'p'
        } else {
            'm'
        };
        let action = if p.pending[s] != 0 {
            'r'
        } else if p.hand[s] > 0 {
            'p'
        } else {
            's'
        };
        let mut mask: u64 = 0;
        for i in 0..self.n() {
            if p.formed[W][i] {
                mask += 1u64 << (i + 8 + 32);
            }
            if p.formed[B][i] {
                mask += 1u64 << (i + 8);
            }
        }
        let mut text = format!(
            "{board} {} {phase} {action} {} {} {} {} {} {} 0 0 0 0 {mask} {} {}",
            if s == W { 'w' } else { 'b' },
            self.on_board(p, W),
            p.hand[W],
            self.on_board(p, B),
            p.hand[B],
            p.pending[W],
            p.pending[B],
            p.rule50,
            p.fullmove,
        );
        if p.stalemate_removal {
            text.push_str(" s:1");
        }
        text
    }

    /// Reads the 17-field FEN this project writes (and the legacy 12-field form).
    pub fn parse_fen(&self, text: &str) -> Result<SlowPos, String> {
        let f: Vec<&str> = text.split_whitespace().collect();
        let (main, ext): (Vec<&str>, &[&str]) = if f.len() >= 17 {
            (f[..17].to_vec(), &f[17..])
        } else if f.len() == 12 {
            let mut v = f[..10].to_vec();
            v.extend(["0", "0", "0", "0", "0"]);
            v.extend(&f[10..12]);
            (v, &[])
        } else {
            return Err(format!("expected 17 (or 12) fields, got {}", f.len()));
        };
        let num = |i: usize| -> Result<i64, String> {
            main[i]
                .parse::<i64>()
                .map_err(|_| format!("field {} '{}' is not a number", i + 1, main[i]))
        };
        let groups: Vec<&str> = main[0].split('/').collect();
        if groups.len() != self.t.rings || groups.iter().any(|g| g.chars().count() != 8) {
            return Err(format!("board field '{}' has the wrong shape", main[0]));
        }
        let mut p = self.start();
        p.hand = [0, 0];
        p.placing = false;
        for (i, ch) in groups.concat().chars().enumerate() {
            p.cells[i] = match ch {
                '*' => EMPTY,
                'O' => WHITE,
                '@' => BLACK,
                'X' => MARKED,
                _ => return Err(format!("bad board character '{ch}'")),
            };
        }
        p.side = match main[1] {
            "w" => W,
            "b" => B,
            s => return Err(format!("bad side '{s}'")),
        };
        let phase = main[2];
        if !["r", "p", "m", "o", "n"].contains(&phase) {
            return Err(format!("bad phase '{phase}'"));
        }
        if !["p", "s", "r", "?"].contains(&main[3]) {
            return Err(format!("bad action '{}'", main[3]));
        }
        let (w_on, b_on) = (num(4)?, num(6)?);
        if w_on != self.on_board(&p, W) as i64 || b_on != self.on_board(&p, B) as i64 {
            return Err("on-board counts disagree with the board".to_string());
        }
        p.hand = [num(5)? as u8, num(7)? as u8];
        p.pending = [num(8)? as i8, num(9)? as i8];
        for i in 10..14 {
            num(i)?;
        }
        let mask: u64 = main[14]
            .parse()
            .map_err(|_| format!("bad mills mask '{}'", main[14]))?;
        for i in 0..self.n() {
            p.formed[W][i] = mask & (1u64 << (i + 8 + 32)) != 0;
            p.formed[B][i] = mask & (1u64 << (i + 8)) != 0;
        }
        p.rule50 = num(15)? as u32;
        p.fullmove = num(16)? as u32;
        for token in ext {
            match *token {
                "s:1" => p.stalemate_removal = true,
                t => return Err(format!("unknown extension token '{t}'")),
            }
        }
        let any_marked = p.cells.contains(&MARKED);
        p.placing = phase == "p" || p.hand != [0, 0] || any_marked;
        // The only stored game-over reason: a full board after placing under first-player-loses.
        let full = (0..self.n()).all(|i| p.cells[i] != EMPTY);
        p.board_full_end = phase == "o"
            && full
            && !p.placing
            && p.pending == [0, 0]
            && matches!(
                self.rules.board_full,
                BoardFull::FirstPlayerLoses | BoardFull::Draw
            )
            && self.rules.mill_action != MillAction::MillCounts;
        Ok(p)
    }

    // --------------------------------------------------------------------------------------------

    /// Split-form perft: leaves of the step tree; a finished game is a leaf.
    pub fn perft(&self, p: &SlowPos, depth: u32) -> u64 {
        if depth == 0 || self.outcome(p).is_some() {
            return 1;
        }
        self.steps(p)
            .into_iter()
            .map(|s| self.perft(&self.play(p, s), depth - 1))
            .sum()
    }
}
