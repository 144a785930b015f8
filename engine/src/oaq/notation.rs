//! Ô Ăn Quan position text (`10,5,5,5,5,5,10,5,5,5,5,5 s 0 0 1`) and moves (`3+`).

use super::position::{Move, Oaq, Position, Side, Turn};
use crate::NotationError;

fn field_err(field: &'static str, value: &str, reason: impl Into<String>) -> NotationError {
    NotationError::Field {
        field,
        value: value.to_string(),
        reason: reason.into(),
    }
}

/// Most small seeds a position text may bring (board and stores) when no `seeds=K,M` fixes the
/// total: a cell holds at most 255.
pub const MAX_SEEDS: i32 = 255;

/// Digits only (no sign): Rust's parser would also take a leading `+`.
fn digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// An optional `-` then digits.
fn signed(s: &str) -> bool {
    digits(s.strip_prefix('-').unwrap_or(s))
}

impl Oaq {
    /// Parses a position: 12 cell counts (a mandarin with its big piece as `Q<n>`), side
    /// `s`/`n`, South's and North's stores, `1` on the first ply else `0`.
    pub fn parse_position(&self, text: &str) -> Result<Position, NotationError> {
        let f: Vec<&str> = text.split_whitespace().collect();
        if f.len() != 5 {
            return Err(NotationError::FieldCount {
                found: f.len(),
                expected: "5",
            });
        }
        let cells_txt: Vec<&str> = f[0].split(',').collect();
        if cells_txt.len() != 12 {
            return Err(field_err(
                "cells",
                f[0],
                "expected 12 counts separated by ','",
            ));
        }
        let mut cells = [0u8; 12];
        let mut big = [false, false];
        for (i, t) in cells_txt.iter().enumerate() {
            let count_text = if let Some(rest) = t.strip_prefix('Q') {
                if i != 0 && i != 6 {
                    return Err(field_err(
                        "cells",
                        t,
                        format!("cell {i} is not a mandarin cell (0 or 6)"),
                    ));
                }
                if self.profile.big_mandarin.is_none() {
                    return Err(field_err(
                        "cells",
                        t,
                        "big pieces (Q) need the big-mandarin rule",
                    ));
                }
                big[i / 6] = true;
                rest
            } else {
                t
            };
            cells[i] = Some(count_text)
                .filter(|d| digits(d))
                .and_then(|d| d.parse().ok())
                .ok_or_else(|| {
                    field_err("cells", t, format!("cell {i}: expected 0 to 255 seeds"))
                })?;
        }
        let side = match f[1] {
            "s" => Side::South,
            "n" => Side::North,
            v => return Err(field_err("side to move", v, "expected s or n")),
        };
        let store = |name: &'static str, v: &str| {
            Some(v)
                .filter(|v| signed(v))
                .and_then(|v| v.parse::<i16>().ok())
                .filter(|s| s.unsigned_abs() <= 1000)
                .ok_or_else(|| field_err(name, v, "expected a number from -1000 to 1000"))
        };
        let south = store("south store", f[2])?;
        let north = store("north store", f[3])?;
        let first = match f[4] {
            "1" => true,
            "0" => false,
            v => return Err(field_err("first ply", v, "expected 1 or 0")),
        };
        let p = Position {
            cells,
            big,
            side,
            stores: [south, north],
            first,
        };
        let on_board = Self::on_board(&p);
        let off = self.off_board(&p);
        if off < 0 {
            let big = if off != south as i32 + north as i32 {
                ", less the big pieces already captured,"
            } else {
                ""
            };
            return Err(NotationError::Inconsistent(format!(
                "the stores ({south} and {north}){big} hold {off} seeds: fewer than none off the board"
            )));
        }
        let total = on_board + off;
        if let Some(fixed) = self.profile.fixed_total() {
            if total != fixed as i32 {
                return Err(NotationError::Inconsistent(format!(
                    "the position holds {total} seeds ({on_board} on the board, {off} off it in \
                     the stores), but rule seeds={},{} has {fixed}",
                    self.profile.citizen_seeds,
                    self.profile.mandarin_start()
                )));
            }
        } else if total > MAX_SEEDS {
            return Err(NotationError::Inconsistent(format!(
                "the position holds {total} seeds ({on_board} on the board, {off} off it in the \
                 stores); at most {MAX_SEEDS} are supported"
            )));
        }
        Ok(p)
    }

    /// Writes a position in the text form.
    pub fn format_position(&self, p: &Position) -> String {
        let cells: Vec<String> = (0..12)
            .map(|i| {
                if (i == 0 || i == 6) && p.big[i / 6] {
                    format!("Q{}", p.cells[i])
                } else {
                    p.cells[i].to_string()
                }
            })
            .collect();
        format!(
            "{} {} {} {} {}",
            cells.join(","),
            if p.side == Side::South { 's' } else { 'n' },
            p.stores[0],
            p.stores[1],
            if p.first { 1 } else { 0 }
        )
    }

    /// Writes a move: `3+`, `9-`.
    pub fn format_move(&self, m: &Move) -> String {
        format!("{}{}", m.cell, if m.dir > 0 { '+' } else { '-' })
    }

    /// Parses a move and checks that it is legal; returns it with its turn.
    pub fn parse_move(&self, p: &Position, text: &str) -> Result<(Move, Turn), NotationError> {
        let t = text.trim();
        let syntax = |reason: &str| NotationError::MoveSyntax {
            text: text.into(),
            reason: reason.into(),
        };
        let (num, dir) = match t.chars().last() {
            Some('+') => (&t[..t.len() - 1], 1i8),
            Some('-') => (&t[..t.len() - 1], -1i8),
            _ => {
                return Err(syntax(
                    "expected a cell number and a direction, e.g. 3+ or 9-",
                ))
            }
        };
        let cell: u8 = Some(num)
            .filter(|n| digits(n))
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| syntax("the cell is not a number from 0 to 11"))?;
        if cell > 11 {
            return Err(syntax("the cell is not a number from 0 to 11"));
        }
        let illegal = |reason: String| NotationError::IllegalMove {
            text: text.into(),
            reason,
        };
        if let Some(f) = self.outcome(p) {
            return Err(illegal(format!(
                "the game is over ({} to {})",
                f.stores[0], f.stores[1]
            )));
        }
        let own = p.side.cells();
        if !own.contains(&(cell as usize)) {
            return Err(illegal(format!(
                "cell {cell} is not one of {}'s cells ({}-{})",
                p.side.name(),
                own[0],
                own[4]
            )));
        }
        let mv = Move { cell, dir };
        self.play(p, mv)
            .map(|t| (mv, t))
            .ok_or_else(|| illegal(format!("cell {cell} is empty")))
    }

    /// Draws the board as players see it, with stores and the side to move.
    pub fn diagram(&self, p: &Position) -> String {
        let cell = |i: usize| {
            if (i == 0 || i == 6) && p.big[i / 6] {
                format!("Q{}", p.cells[i])
            } else {
                p.cells[i].to_string()
            }
        };
        let north: Vec<String> = (7..=11).rev().map(|i| format!("{:>4}", cell(i))).collect();
        let south: Vec<String> = (1..=5).map(|i| format!("{:>4}", cell(i))).collect();
        let mut out = String::new();
        out.push_str("         11  10   9   8   7\n");
        out.push_str(&format!(
            "     {}        North store {}\n",
            north.join(""),
            p.stores[1]
        ));
        out.push_str(&format!(
            "{:>4}                      {:<4}\n",
            cell(0),
            cell(6)
        ));
        out.push_str(&format!(
            "     {}        South store {}\n",
            south.join(""),
            p.stores[0]
        ));
        out.push_str("          1   2   3   4   5\n");
        match self.outcome(p) {
            Some(f) => out.push_str(&format!(
                "Game over: South {} North {} ({})\n",
                f.stores[0],
                f.stores[1],
                match f.winner {
                    Some(s) => format!("{} wins", s.name()),
                    None => "draw".to_string(),
                }
            )),
            None => out.push_str(&format!(
                "{} to move{}\n",
                if p.side == Side::South {
                    "South"
                } else {
                    "North"
                },
                if p.first {
                    " (first ply: mandarins cannot be captured)"
                } else {
                    ""
                }
            )),
        }
        out
    }
}
