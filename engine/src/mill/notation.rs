//! The reference app's FEN (17-field and legacy 12-field forms) and both move forms.

use super::geometry::{Bits, Board};
use super::position::{GameOver, Mill, Move, Position, Step, StepList, NO_POINT};
use super::rules::{BoardFull, MillAction, Stalemate};
use crate::{Color, NotationError};

fn field_err(field: &'static str, value: &str, reason: impl Into<String>) -> NotationError {
    NotationError::Field {
        field,
        value: value.to_string(),
        reason: reason.into(),
    }
}

fn number<T: std::str::FromStr>(field: &'static str, value: &str) -> Result<T, NotationError> {
    value
        .parse::<T>()
        .map_err(|_| field_err(field, value, "not a number in range"))
}

impl Mill {
    /// The name of a point.
    pub fn point_name(&self, p: u8) -> &'static str {
        self.geo.names[p as usize]
    }

    fn parse_point(&self, text: &str, whole: &str) -> Result<u8, NotationError> {
        self.geo
            .point(text)
            .map(|p| p as u8)
            .ok_or_else(|| NotationError::MoveSyntax {
                text: whole.to_string(),
                reason: format!(
                    "'{text}' is not a point of the {} board",
                    self.geo.board.name()
                ),
            })
    }

    /// Parses a position in the reference app's FEN (17 fields, optional extension tokens such
    /// as `s:1`; or the legacy 12-field form).
    pub fn parse_fen(&self, text: &str) -> Result<Position, NotationError> {
        let f: Vec<&str> = text.split_whitespace().collect();
        let (core, ext): (Vec<&str>, &[&str]) = match f.len() {
            12 => {
                let mut v = f[..10].to_vec();
                v.extend_from_slice(&["0", "0", "0", "0", "0"]);
                v.extend_from_slice(&f[10..12]);
                (v, &[])
            }
            n if n >= 17 => (f[..17].to_vec(), &f[17..]),
            n => {
                return Err(NotationError::FieldCount {
                    found: n,
                    expected: "17 (or the legacy 12)",
                })
            }
        };
        let mut node_ids = false;
        let mut stalemate_removal = false;
        for &tok in ext {
            match tok {
                "s:1" => stalemate_removal = true,
                "ids:nodes" => node_ids = true,
                _ => {
                    return Err(field_err(
                        "extension",
                        tok,
                        "unsupported (known: s:1 stalemate removal, ids:nodes)",
                    ))
                }
            }
        }
        let g = self.geo;
        // Board.
        let groups: Vec<&str> = core[0].split('/').collect();
        if groups.len() != g.rings || groups.iter().any(|gr| gr.chars().count() != 8) {
            return Err(field_err(
                "board",
                core[0],
                format!("expected {} groups of 8 points separated by '/'", g.rings),
            ));
        }
        let mut stones = [0u32; 2];
        let mut marked = 0u32;
        for (i, c) in groups.concat().chars().enumerate() {
            match c {
                'O' => stones[0] |= 1 << i,
                '@' => stones[1] |= 1 << i,
                'X' => marked |= 1 << i,
                '*' => {}
                _ => {
                    return Err(field_err(
                        "board",
                        core[0],
                        format!("'{c}' is not a point (O white, @ black, * empty, X marked)"),
                    ))
                }
            }
        }
        let side = match core[1] {
            "w" => Color::White,
            "b" => Color::Black,
            v => return Err(field_err("side to move", v, "expected w or b")),
        };
        let phase = match core[2] {
            v @ ("r" | "p" | "m" | "o" | "n") => v,
            v => return Err(field_err("phase", v, "expected r, p, m, o or n")),
        };
        let action = match core[3] {
            v @ ("p" | "s" | "r" | "?") => v,
            v => return Err(field_err("action", v, "expected p, s, r or ?")),
        };
        let w_on: u32 = number("white on board", core[4])?;
        let w_hand: u8 = number("white in hand", core[5])?;
        let b_on: u32 = number("black on board", core[6])?;
        let b_hand: u8 = number("black in hand", core[7])?;
        let w_rm: i8 = number("white removals", core[8])?;
        let b_rm: i8 = number("black removals", core[9])?;
        for (name, v) in [
            ("white mill from", core[10]),
            ("white mill to", core[11]),
            ("black mill from", core[12]),
            ("black mill to", core[13]),
        ] {
            let sq: i32 = number(name, v)?;
            let ok = if node_ids {
                (-1..g.points as i32).contains(&sq)
            } else {
                sq == 0 || (8..8 + g.points as i32).contains(&sq)
            };
            if !ok {
                return Err(field_err(name, v, "not a point id"));
            }
        }
        let mills_mask: u64 = number("mills mask", core[14])?;
        let rule50: u16 = number("rule50", core[15])?;
        let fullmove: u16 = number("fullmove", core[16])?;

        let n = self.profile.stones;
        let inconsistent = |m: String| Err(NotationError::Inconsistent(m));
        if w_on != stones[0].count_ones() || b_on != stones[1].count_ones() {
            return inconsistent(format!(
                "the board has {} white and {} black stones but the counts say {w_on} and {b_on}",
                stones[0].count_ones(),
                stones[1].count_ones()
            ));
        }
        for (c, on, hand) in [("white", w_on, w_hand), ("black", b_on, b_hand)] {
            if on + hand as u32 > n as u32 {
                return inconsistent(format!(
                    "{c} has {on} on the board and {hand} in hand, more than the variant's {n} stones"
                ));
            }
        }
        if self.below_minimum(stones[0], w_hand) && self.below_minimum(stones[1], b_hand) {
            return inconsistent(format!(
                "both sides have fewer than {} stones (board and hand), but a game ends as \
                 soon as one side has",
                self.profile.min_stones
            ));
        }
        let hand = [w_hand, b_hand];
        let placing = match phase {
            "p" | "r" => true,
            "o" => hand != [0, 0] || marked != 0,
            _ => hand != [0, 0],
        };
        if marked != 0 && (self.profile.mill_action != MillAction::MarkAndDelay || !placing) {
            return inconsistent(
                "marked points (X) exist only while placing in variants that mark removed stones"
                    .into(),
            );
        }
        let pending = [w_rm, b_rm];
        let (si, oi) = (side.index(), side.other().index());
        // What one ply can owe: one removal, or one per mill closed when the profile says so
        // (a point lies on at most 3 lines); at the end of placing under mill counts, one per
        // mill on the board plus one, or -1 (each side removes one of its own) when nobody has
        // a mill. Only that rule owes own stones.
        let counts = self.profile.mill_action == MillAction::MillCounts;
        let per_ply = if counts {
            g.mill_count as i32 + 1
        } else if self.profile.remove_per_mill {
            g.mills_through
                .iter()
                .take(g.points)
                .map(|t| t.iter().filter(|&&m| m != 0).count() as i32)
                .max()
                .unwrap_or(1)
        } else {
            1
        };
        for (c, name, text) in [
            (0, "white removals", core[8]),
            (1, "black removals", core[9]),
        ] {
            let owed = pending[c] as i32;
            let least = if counts { -1 } else { 0 };
            if owed < least || owed > per_ply {
                return Err(field_err(
                    name,
                    text,
                    format!("one ply owes from {least} to {per_ply} removals under these rules"),
                ));
            }
        }
        if (action == "r") != (pending[si] != 0) {
            return inconsistent(format!(
                "action '{action}' but the side to move owes {} removals",
                pending[si]
            ));
        }
        if pending[oi] != 0 && pending[si] == 0 {
            return inconsistent("the side not to move owes a removal".into());
        }
        if pending[oi] != 0 && !self.both_may_owe(&stones, hand, side) {
            return inconsistent(
                "both sides owe removals, which only the end of placing under mill counts \
                 or a board-full removal rule leaves (nothing in hand, the first remover to move)"
                    .into(),
            );
        }
        let victims = stones[oi].count_ones() as i32;
        if !counts && pending[si] as i32 > victims {
            return inconsistent(format!(
                "{} removals owed, more than the opponent's {victims} stones on the board",
                pending[si]
            ));
        }
        if action == "p" && hand[si] == 0 {
            return inconsistent(
                "action p (place) but the side to move has no stones in hand".into(),
            );
        }
        if action == "s" && hand[si] > 0 {
            return inconsistent(
                "action s (move) but the side to move still has stones in hand".into(),
            );
        }
        if matches!(phase, "p" | "r") && hand == [0, 0] && pending == [0, 0] {
            return inconsistent(format!(
                "phase '{phase}' (placing) but no stones in hand and no removal owed"
            ));
        }
        if stalemate_removal && pending[si] <= 0 {
            return inconsistent("stalemate removal (s:1) but no removal owed".into());
        }
        if stalemate_removal && self.profile.stalemate != Stalemate::RemoveAndMove {
            return inconsistent(
                "stalemate removal (s:1) under stalemate=loss: only stalemate=remove-and-move \
                 has one"
                    .into(),
            );
        }
        let shift = if node_ids { 0 } else { 8 };
        let formed_w = (mills_mask >> 32) as u32;
        let formed_b = mills_mask as u32;
        let valid = |m: u32| m.trailing_zeros() >= shift && (m >> shift) & !g.all == 0;
        if (formed_w != 0 && !valid(formed_w)) || (formed_b != 0 && !valid(formed_b)) {
            return Err(field_err("mills mask", core[14], "bits outside the board"));
        }
        let occupied = stones[0] | stones[1] | marked;
        // The board can only be full out of the placing phase if placing ended that way, which
        // ends the game under these rules (White loses, or a draw), whatever phase letter the
        // text gives (a full board with the side to move stuck reads and writes as the same
        // position).
        let board_full_end = !placing
            && occupied == g.all
            && matches!(
                self.profile.board_full,
                BoardFull::FirstPlayerLoses | BoardFull::Draw
            );
        let mut pos = Position {
            stones,
            marked,
            hand,
            side,
            pending,
            placing,
            stalemate_removal,
            board_full_end,
            formed: [formed_w >> shift, formed_b >> shift],
            rule50,
            fullmove,
        };
        // A side to move that is blocked under stalemate=remove-and-move owes its stalemate
        // removal (the engine sets it when the turn before ends): a text that leaves it out
        // reads as the position play reaches, and writes back with it (`r`, 1 owed, `s:1`).
        if pending == [0, 0] && !board_full_end && self.owes_stalemate_removal(&pos) {
            pos.pending[si] = 1;
            pos.stalemate_removal = true;
        }
        if stalemate_removal {
            // The removal is owed at the start of a turn by a side with nothing to place and
            // no step: the board as it stands, before the removal.
            let mut before = pos;
            before.pending = [0, 0];
            before.stalemate_removal = false;
            let turn_start = !(placing && hand == [0, 0]);
            if pending[si] != 1 || !turn_start || !self.owes_stalemate_removal(&before) {
                return inconsistent(
                    "stalemate removal (s:1) but the side to move is not blocked at the start \
                     of its turn (one removal owed, nothing to place, no step)"
                        .into(),
                );
            }
        }
        let over = self.outcome(&pos).is_some();
        if phase == "o" && !over {
            return inconsistent("phase o (game over) but the game is not over".into());
        }
        if over && hand == [0, 0] && marked == 0 {
            // A finished game with nothing left to place is out of the placing phase (as the
            // engine leaves it), so that every FEN that reads back writes the same.
            pos.placing = false;
        }
        Ok(pos)
    }

    /// Whether both sides may owe removals at once, the side to move first: only when placing
    /// has ended (nothing in hand) under mill counts (White removes first) or on a full board
    /// under a board-full removal rule (its first remover to move).
    fn both_may_owe(&self, stones: &[Bits; 2], hand: [u8; 2], side: Color) -> bool {
        if hand != [0, 0] {
            return false;
        }
        if self.profile.mill_action == MillAction::MillCounts {
            return side == Color::White;
        }
        let full = stones[0] | stones[1] == self.geo.all;
        match self.profile.board_full {
            BoardFull::FirstThenSecondRemove => full && side == Color::White,
            BoardFull::SecondThenFirstRemove => full && side == Color::Black,
            BoardFull::FirstPlayerLoses | BoardFull::Draw => false,
        }
    }

    /// Writes a position as a 17-field FEN (plus `s:1` during a stalemate removal).
    pub fn format_fen(&self, p: &Position) -> String {
        let g = self.geo;
        let mut board = String::with_capacity(27);
        for i in 0..g.points {
            if i > 0 && i % 8 == 0 {
                board.push('/');
            }
            let b = 1u32 << i;
            board.push(if p.stones[0] & b != 0 {
                'O'
            } else if p.stones[1] & b != 0 {
                '@'
            } else if p.marked & b != 0 {
                'X'
            } else {
                '*'
            });
        }
        let si = p.side.index();
        let phase = if self.outcome(p).is_some() {
            'o'
        } else if p.placing && (p.hand[si] > 0 || p.pending[si] != 0) {
            'p'
        } else {
            'm'
        };
        let action = if p.pending[si] != 0 {
            'r'
        } else if p.hand[si] > 0 {
            'p'
        } else {
            's'
        };
        let mask = ((p.formed[0] as u64) << 40) | ((p.formed[1] as u64) << 8);
        let mut s = format!(
            "{board} {} {phase} {action} {} {} {} {} {} {} 0 0 0 0 {mask} {} {}",
            if p.side == Color::White { 'w' } else { 'b' },
            p.stones[0].count_ones(),
            p.hand[0],
            p.stones[1].count_ones(),
            p.hand[1],
            p.pending[0],
            p.pending[1],
            p.rule50,
            p.fullmove
        );
        if p.stalemate_removal {
            s.push_str(" s:1");
        }
        s
    }

    /// Writes one step of the split form: `d6`, `a1-a4` or `xg7`.
    pub fn format_step(&self, s: Step) -> String {
        match s {
            Step::Place(t) => self.point_name(t).to_string(),
            Step::Move(f, t) => format!("{}-{}", self.point_name(f), self.point_name(t)),
            Step::Remove(r) => format!("x{}", self.point_name(r)),
        }
    }

    /// Writes a compound move: `d6`, `a1-a4`, `a1-a4xg7`, `xg7`; removals in point-name order.
    pub fn format_move(&self, m: &Move) -> String {
        let mut s = String::new();
        if m.from != NO_POINT {
            s.push_str(self.point_name(m.from));
            s.push('-');
        }
        if m.to != NO_POINT {
            s.push_str(self.point_name(m.to));
        }
        let mut names: Vec<&str> = bits(m.removed).map(|r| self.point_name(r)).collect();
        names.sort_unstable();
        for n in names {
            s.push('x');
            s.push_str(n);
        }
        s
    }

    /// Splits a move text into its steps (syntax only).
    fn parse_steps(&self, text: &str) -> Result<Vec<Step>, NotationError> {
        let lower = text.trim().to_ascii_lowercase();
        if lower.is_empty() {
            return Err(NotationError::MoveSyntax {
                text: text.into(),
                reason: "empty".into(),
            });
        }
        let mut parts = lower.split('x');
        let head = parts.next().unwrap_or("");
        let mut steps = Vec::new();
        if !head.is_empty() {
            steps.push(match head.split_once('-') {
                Some((a, b)) => Step::Move(self.parse_point(a, text)?, self.parse_point(b, text)?),
                None => Step::Place(self.parse_point(head, text)?),
            });
        }
        for r in parts {
            steps.push(Step::Remove(self.parse_point(r, text)?));
        }
        Ok(steps)
    }

    /// Parses one step of the split form and checks that it is legal.
    pub fn parse_step(&self, p: &Position, text: &str) -> Result<Step, NotationError> {
        let steps = self.parse_steps(text)?;
        if steps.len() != 1 {
            return Err(NotationError::MoveSyntax {
                text: text.into(),
                reason: "the split form has one action per step (`a1-a4`, then `xg7`)".into(),
            });
        }
        self.check_step(p, steps[0], text)?;
        Ok(steps[0])
    }

    fn check_step(&self, p: &Position, st: Step, text: &str) -> Result<(), NotationError> {
        let illegal = |reason: String| NotationError::IllegalMove {
            text: text.into(),
            reason,
        };
        if let Some(over) = self.outcome(p) {
            return Err(illegal(match over.loser {
                Some(l) => format!(
                    "the game is over ({} lost: {})",
                    l.name(),
                    over.reason.describe()
                ),
                None => format!("the game is over (a draw: {})", over.reason.describe()),
            }));
        }
        let mut list = StepList::default();
        self.steps(p, &mut list);
        if list.as_slice().contains(&st) {
            return Ok(());
        }
        let si = p.side.index();
        let expected = if p.pending[si] != 0 {
            "a removal (x<point>) is owed"
        } else if p.hand[si] > 0 && !self.profile.move_in_placing {
            "the side to move must place a stone"
        } else {
            "not among the legal moves"
        };
        Err(illegal(match st {
            Step::Remove(_) if p.pending[si] != 0 => "that stone may not be removed".into(),
            Step::Place(t) if p.hand[si] > 0 && p.pending[si] == 0 => {
                format!("{} is not empty", self.point_name(t))
            }
            _ => expected.to_string(),
        }))
    }

    /// Parses a compound move (`a1-a4xg7`) and checks that it is legal and complete.
    pub fn parse_move(&self, p: &Position, text: &str) -> Result<Move, NotationError> {
        let steps = self.parse_steps(text)?;
        let mut mv = Move {
            from: NO_POINT,
            to: NO_POINT,
            removed: 0,
        };
        for (i, &st) in steps.iter().enumerate() {
            match st {
                Step::Place(t) if i == 0 => mv.to = t,
                Step::Move(f, t) if i == 0 => (mv.from, mv.to) = (f, t),
                Step::Remove(r) if mv.removed & (1 << r) == 0 => mv.removed |= 1 << r,
                Step::Remove(_) => {
                    return Err(NotationError::MoveSyntax {
                        text: text.into(),
                        reason: "the same stone is removed twice".into(),
                    })
                }
                _ => unreachable!("parse_steps puts the placement or move first"),
            }
        }
        // Removals may be written in any order (several are legal only in some orders, e.g.
        // a protected stone after the last unprotected one): match the legal moves as sets.
        let mut moves = Vec::new();
        self.moves(p, &mut moves);
        if moves.iter().any(|(m, _)| *m == mv) {
            return Ok(mv);
        }
        // Not legal: replay the steps to say why.
        let mut q = *p;
        for &st in &steps {
            if q.side != p.side {
                return Err(NotationError::IllegalMove {
                    text: text.into(),
                    reason: "the turn passes before the last removal".into(),
                });
            }
            self.check_step(&q, st, text)?;
            q = self.play_step(&q, st);
        }
        let reason = if q.side == p.side && q.pending[p.side.index()] != 0 && !self.decided(&q) {
            "incomplete: a removal must follow (append x<point>)"
        } else {
            "not among the legal moves"
        };
        Err(NotationError::IllegalMove {
            text: text.into(),
            reason: reason.into(),
        })
    }

    /// Draws the board as a player would (with its diagonals where they are lines), with the
    /// FEN-independent state below it.
    pub fn diagram(&self, p: &Position) -> String {
        let g = self.geo;
        let template: &[&str] = if g.board == Board::Morris24D {
            &[
                "7 a7 ----------- d7 ----------- g7",
                "  | \\            |            / |",
                "6 |    b6 ------ d6 ------ f6   |",
                "  |    | \\       |       / |    |",
                "5 |    |    c5 - d5 - e5   |    |",
                "  |    |    |         |    |    |",
                "4 a4 - b4 - c4        e4 - f4 - g4",
                "  |    |    |         |    |    |",
                "3 |    |    c3 - d3 - e3   |    |",
                "  |    | /       |       \\ |    |",
                "2 |    b2 ------ d2 ------ f2   |",
                "  | /            |            \\ |",
                "1 a1 ----------- d1 ----------- g1",
                "  a    b    c    d    e    f    g",
            ]
        } else if g.rings == 3 {
            &[
                "7 a7 ----------- d7 ----------- g7",
                "  |              |              |",
                "6 |    b6 ------ d6 ------ f6   |",
                "  |    |         |         |    |",
                "5 |    |    c5 - d5 - e5   |    |",
                "  |    |    |         |    |    |",
                "4 a4 - b4 - c4        e4 - f4 - g4",
                "  |    |    |         |    |    |",
                "3 |    |    c3 - d3 - e3   |    |",
                "  |    |         |         |    |",
                "2 |    b2 ------ d2 ------ f2   |",
                "  |              |              |",
                "1 a1 ----------- d1 ----------- g1",
                "  a    b    c    d    e    f    g",
            ]
        } else {
            &[
                "5 a5 ------ c5 ------ e5",
                "  |         |         |",
                "4 |    b4 - c4 - d4   |",
                "  |    |         |    |",
                "3 a3 - b3        d3 - e3",
                "  |    |         |    |",
                "2 |    b2 - c2 - d2   |",
                "  |         |         |",
                "1 a1 ------ c1 ------ e1",
                "  a    b    c    d    e",
            ]
        };
        let mut out = String::new();
        for line in template {
            let mut l = line.to_string();
            for i in 0..g.points {
                let b = 1u32 << i;
                let mark = if p.stones[0] & b != 0 {
                    "O "
                } else if p.stones[1] & b != 0 {
                    "@ "
                } else if p.marked & b != 0 {
                    "X "
                } else {
                    "· "
                };
                let name = g.names[i];
                // Replace the point name (not the axis labels) with its contents.
                if let Some(pos) = l.find(name) {
                    if pos > 1 {
                        l.replace_range(pos..pos + 2, mark);
                    }
                }
            }
            out.push_str(l.trim_end());
            out.push('\n');
        }
        let who = |c: Color| {
            if c == Color::White {
                "White (O)"
            } else {
                "Black (@)"
            }
        };
        out.push_str(&format!(
            "White: {} on board, {} in hand   Black: {} on board, {} in hand\n",
            p.stones[0].count_ones(),
            p.hand[0],
            p.stones[1].count_ones(),
            p.hand[1]
        ));
        match self.outcome(p) {
            Some(GameOver {
                loser: Some(l),
                reason,
            }) => out.push_str(&format!(
                "Game over: {} wins ({} for {})\n",
                who(l.other()),
                reason.describe(),
                l.name()
            )),
            Some(over) => {
                out.push_str(&format!("Game over: a draw ({})\n", over.reason.describe()))
            }
            None => {
                let si = p.side.index();
                let act = if p.pending[si] > 0 {
                    format!("remove {} stone(s)", p.pending[si])
                } else if p.pending[si] < 0 {
                    format!("remove {} own stone(s)", -p.pending[si])
                } else if p.hand[si] > 0 {
                    "place".to_string()
                } else if self.flies(p, p.side) {
                    "fly".to_string()
                } else {
                    "move".to_string()
                };
                out.push_str(&format!("{} to {act}\n", who(p.side)));
            }
        }
        out
    }
}

/// Iterates over the points of a set, lowest first.
pub fn bits(mut set: Bits) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if set == 0 {
            None
        } else {
            let p = set.trailing_zeros() as u8;
            set &= set - 1;
            Some(p)
        }
    })
}

#[cfg(test)]
mod tests {
    use crate::mill::rules::Profile;
    use crate::mill::Mill;

    /// The board with diagonals draws them, each between the two corners it joins (rows of
    /// the diagram two apart, the diagonal's character midway); the others draw none.
    #[test]
    fn diagrams_draw_the_diagonals_of_boards_that_have_them() {
        let diagram = |name: &str| {
            let m = Mill::new(Profile::preset(name).unwrap());
            m.diagram(&m.start())
        };
        let d = diagram("morabaraba");
        let lines: Vec<&str> = d.lines().collect();
        let at = |row: usize, col: usize| lines[row].chars().nth(col);
        // a7-b6-c5, g7-f6-e5, c3-b2-a1, e3-f2-g1 (the points at columns 2, 7, 12 / 32, 27, 22).
        for (row, col, c) in [
            (1, 4, '\\'),
            (3, 9, '\\'),
            (1, 30, '/'),
            (3, 25, '/'),
            (9, 9, '/'),
            (11, 4, '/'),
            (9, 25, '\\'),
            (11, 30, '\\'),
        ] {
            assert_eq!(at(row, col), Some(c), "row {row} col {col}:\n{d}");
        }
        assert_eq!(d.matches(['/', '\\']).count(), 8, "{d}");
        for plain in ["nine-mens-morris", "lasker-morris", "six-mens-morris"] {
            let d = diagram(plain);
            assert!(!d.contains('/') && !d.contains('\\'), "{plain}:\n{d}");
        }
    }
}
