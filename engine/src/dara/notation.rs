//! Dara position text (`....../....../....../....../...... w 12 12`) and moves (`c3`, `c3-c4xe2`).

use super::{in_exact_threes, Cells, Dara, Move, Position, ALL, NONE};
use crate::{Color, NotationError};

fn field_err(field: &'static str, value: &str, reason: impl Into<String>) -> NotationError {
    NotationError::Field {
        field,
        value: value.to_string(),
        reason: reason.into(),
    }
}

/// The cells of a set by name, ascending (`a1 b1 c1`).
fn cells_list(set: Cells) -> String {
    (0..30u8)
        .filter(|&i| set & (1 << i) != 0)
        .map(cell_name)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The name of a cell (`a1` ... `f5`).
pub fn cell_name(i: u8) -> String {
    format!("{}{}", (b'a' + i % 6) as char, i / 6 + 1)
}

fn parse_cell(s: &str, whole: &str) -> Result<u8, NotationError> {
    let b = s.as_bytes();
    if b.len() == 2 && (b'a'..=b'f').contains(&b[0]) && (b'1'..=b'5').contains(&b[1]) {
        return Ok((b[1] - b'1') * 6 + (b[0] - b'a'));
    }
    Err(NotationError::MoveSyntax {
        text: whole.into(),
        reason: format!("'{s}' is not a cell (a1 to f5)"),
    })
}

impl Dara {
    /// Parses a position: rows 5 to 1 (`W`, `B`, `.`), side `w`/`b`, stones in hand of each,
    /// and refuses one the rules cannot reach (see [`Dara::check_reachable`]).
    pub fn parse_position(&self, text: &str) -> Result<Position, NotationError> {
        let p = self.parse_unchecked(text)?;
        self.check_reachable(&p)?;
        Ok(p)
    }

    /// Parses a position text field by field (at most 12 stones a side, board and hand), without
    /// asking whether the rules can reach it: for tests that drive the move generator through
    /// odd positions. Everything a user types goes through [`Dara::parse_position`].
    pub fn parse_unchecked(&self, text: &str) -> Result<Position, NotationError> {
        let f: Vec<&str> = text.split_whitespace().collect();
        if f.len() != 4 {
            return Err(NotationError::FieldCount {
                found: f.len(),
                expected: "4",
            });
        }
        let rows: Vec<&str> = f[0].split('/').collect();
        if rows.len() != 5 || rows.iter().any(|r| r.chars().count() != 6) {
            return Err(field_err(
                "board",
                f[0],
                "expected 5 rows of 6 cells separated by '/'",
            ));
        }
        let mut stones: [Cells; 2] = [0, 0];
        for (k, row) in rows.iter().enumerate() {
            let rank = 4 - k;
            for (c, ch) in row.chars().enumerate() {
                let bit = 1u32 << (6 * rank + c);
                match ch {
                    'W' => stones[0] |= bit,
                    'B' => stones[1] |= bit,
                    '.' => {}
                    _ => return Err(field_err("board", f[0], format!("'{ch}' is not W, B or ."))),
                }
            }
        }
        let side = match f[1] {
            "w" => Color::White,
            "b" => Color::Black,
            v => return Err(field_err("side to move", v, "expected w or b")),
        };
        let count = |name: &'static str, v: &str| {
            Some(v)
                .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|v| v.parse::<u8>().ok())
                .filter(|n| *n <= 12)
                .ok_or_else(|| field_err(name, v, "expected a number from 0 to 12"))
        };
        let hand = [count("white in hand", f[2])?, count("black in hand", f[3])?];
        for (c, name) in [(0, "White"), (1, "Black")] {
            if stones[c].count_ones() + hand[c] as u32 > 12 {
                return Err(NotationError::Inconsistent(format!(
                    "{name} has {} stones on the board and {} in hand, more than 12",
                    stones[c].count_ones(),
                    hand[c]
                )));
            }
        }
        debug_assert_eq!((stones[0] | stones[1]) & !ALL, 0);
        Ok(Position { stones, hand, side })
    }

    /// Refuses what the rules cannot reach (`docs/dara-rules.md`, "Position text"): in the drop
    /// phase stones on the board other than the ones dropped (nothing is captured while
    /// dropping), a side to move other than the one whose turn it is (White drops first, turns
    /// alternate), or with `drop-threes-forbidden=on` an exact three. A run of four is accepted:
    /// RULES.md 2.5 names it as possible in a typed-in position (its stones are not protected);
    /// no move makes one, and the endgame tables do not hold such a position.
    pub fn check_reachable(&self, p: &Position) -> Result<(), NotationError> {
        let names = ["White", "Black"];
        // The board field as text, for the error messages only.
        let board = || {
            let text = self.format_position(p);
            text.split(' ').next().unwrap_or("").to_string()
        };
        if p.hand == [0, 0] {
            return Ok(());
        }
        let dropped = [12 - p.hand[0] as u32, 12 - p.hand[1] as u32];
        for (c, name) in names.iter().enumerate() {
            let on_board = p.stones[c].count_ones();
            if on_board != dropped[c] {
                return Err(NotationError::Inconsistent(format!(
                    "{name} has {on_board} stones on the board and {} in hand (fields board and \
                     {} in hand): in the drop phase nothing is captured, so the board holds the \
                     {} it dropped",
                    p.hand[c],
                    name.to_lowercase(),
                    dropped[c]
                )));
            }
        }
        let to_move = match dropped[0] as i32 - dropped[1] as i32 {
            0 => Color::White,
            1 => Color::Black,
            _ => {
                return Err(NotationError::Inconsistent(format!(
                    "White has dropped {} stones and Black {} (fields white in hand, black in \
                     hand): White drops first and turns alternate, so White is never behind nor \
                     more than one ahead",
                    dropped[0], dropped[1]
                )))
            }
        };
        if p.side != to_move {
            let side = if p.side == Color::White { "w" } else { "b" };
            return Err(field_err(
                "side to move",
                side,
                format!(
                    "White has dropped {} and Black {}: it is {}'s turn to drop",
                    dropped[0], dropped[1], names[to_move as usize]
                ),
            ));
        }
        if self.profile.drop_threes_forbidden {
            for (c, name) in names.iter().enumerate() {
                let three = in_exact_threes(p.stones[c]);
                if three != 0 {
                    return Err(field_err(
                        "board",
                        &board(),
                        format!(
                            "{name} has a three ({}) in the drop phase, which \
                             drop-threes-forbidden=on forbids",
                            cells_list(three)
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Writes a position in the text form.
    pub fn format_position(&self, p: &Position) -> String {
        let mut rows = Vec::new();
        for rank in (0..5).rev() {
            let row: String = (0..6)
                .map(|c| {
                    let bit = 1u32 << (6 * rank + c);
                    if p.stones[0] & bit != 0 {
                        'W'
                    } else if p.stones[1] & bit != 0 {
                        'B'
                    } else {
                        '.'
                    }
                })
                .collect();
            rows.push(row);
        }
        format!(
            "{} {} {} {}",
            rows.join("/"),
            if p.side == Color::White { 'w' } else { 'b' },
            p.hand[0],
            p.hand[1]
        )
    }

    /// Writes a move: `c3`, `c3-c4`, `c3-c4xe2`.
    pub fn format_move(&self, m: &Move) -> String {
        let mut s = String::new();
        if m.from != NONE {
            s.push_str(&cell_name(m.from));
            s.push('-');
        }
        s.push_str(&cell_name(m.to));
        if m.removed != NONE {
            s.push('x');
            s.push_str(&cell_name(m.removed));
        }
        s
    }

    /// Parses a move and checks that it is legal; returns it with the position after it.
    pub fn parse_move(&self, p: &Position, text: &str) -> Result<(Move, Position), NotationError> {
        let t = text.trim().to_ascii_lowercase();
        let (head, removed) = match t.split_once('x') {
            Some((h, r)) => (h, parse_cell(r, text)?),
            None => (t.as_str(), NONE),
        };
        let (from, to) = match head.split_once('-') {
            Some((a, b)) => (parse_cell(a, text)?, parse_cell(b, text)?),
            None => (NONE, parse_cell(head, text)?),
        };
        let mv = Move { from, to, removed };
        let illegal = |reason: String| NotationError::IllegalMove {
            text: text.into(),
            reason,
        };
        if let Some((loser, why)) = self.outcome(p) {
            return Err(illegal(format!(
                "the game is over ({} lost: {})",
                loser.name(),
                why.describe()
            )));
        }
        let mut list = Vec::new();
        self.moves(p, &mut list);
        if let Some((m, q)) = list.iter().find(|(m, _)| *m == mv) {
            return Ok((*m, *q));
        }
        let needs_removal = list
            .iter()
            .any(|(m, _)| m.from == from && m.to == to && m.removed != NONE);
        Err(illegal(if needs_removal && removed == NONE {
            "this move makes a three: add the stone it removes (xe2)".into()
        } else if removed != NONE
            && list
                .iter()
                .any(|(m, _)| m.from == from && m.to == to && m.removed == NONE)
        {
            "this move makes no three, so it removes nothing".into()
        } else if p.hand[p.side.index()] > 0 && from != NONE {
            "the side to move still drops stones".into()
        } else {
            "not among the legal moves".into()
        }))
    }

    /// The board as players see it, with stones in hand and the side to move.
    pub fn diagram(&self, p: &Position) -> String {
        let mut out = String::new();
        for rank in (0..5).rev() {
            out.push_str(&format!("{} ", rank + 1));
            for c in 0..6 {
                let bit = 1u32 << (6 * rank + c);
                out.push_str(if p.stones[0] & bit != 0 {
                    " W"
                } else if p.stones[1] & bit != 0 {
                    " B"
                } else {
                    " ·"
                });
            }
            out.push('\n');
        }
        out.push_str("   a b c d e f\n");
        out.push_str(&format!(
            "White: {} on board, {} in hand   Black: {} on board, {} in hand\n",
            p.stones[0].count_ones(),
            p.hand[0],
            p.stones[1].count_ones(),
            p.hand[1]
        ));
        match self.outcome(p) {
            Some((loser, why)) => out.push_str(&format!(
                "Game over: {} wins ({} for {})\n",
                loser.other().name(),
                why.describe(),
                loser.name()
            )),
            None => out.push_str(&format!(
                "{} to {}\n",
                if p.side == Color::White {
                    "White"
                } else {
                    "Black"
                },
                if p.hand[p.side.index()] > 0 {
                    "drop"
                } else {
                    "move"
                }
            )),
        }
        out
    }
}
