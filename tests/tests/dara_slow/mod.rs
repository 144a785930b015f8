//! A deliberately simple Dara implementation, written from `../shared/RULES.md` section 2 for the
//! tests only.
//!
//! Nothing here uses the engine: the board is a `[[u8; 6]; 5]` grid holding the characters of the
//! position text (`W`, `B`, `.`), lines are counted by walking the grid from a cell in both
//! directions, and the move generator, the end test, the position text and the move notation are
//! all written again from the rule text. Speed does not matter; clarity does.
//!
//! Readings taken where the text leaves room (each is marked `READING` below):
//! - A drop or a step "makes" a line of four when the line through the stone just put down (along
//!   its row or its column) is four or more long; a run of four somewhere else on a typed-in board
//!   does not make a later move illegal.
//! - `drop-threes-forbidden`: a drop is illegal when the line through the dropped stone along its
//!   row or its column is exactly three long (a longer line is already illegal).
//! - "Every enemy stone" (2.5) means every enemy stone on the board; stones in hand cannot be
//!   removed. A step that makes a three while the enemy has no stone on the board has no legal
//!   form (no "three without removal").
//! - "Reduced to 2 stones" (2.6) counts stones on the board and in hand: a typed-in position with 2
//!   stones on the board and some in hand is not lost. Both sides at 2 stones or fewer cannot
//!   arise in play; this file then names White the loser, and the tests do not compare that case.

/// Rows (ranks 1 to 5) and columns (files a to f).
pub const ROWS: usize = 5;
pub const COLS: usize = 6;
/// The cell contents, as written in the position text.
pub const EMPTY: u8 = b'.';
pub const WHITE: u8 = b'W';
pub const BLACK: u8 = b'B';

/// A cell: (row, column); row 0 is rank 1, column 0 is file a.
pub type Cell = (usize, usize);

/// The opponent of `who`.
pub fn other(who: u8) -> u8 {
    if who == WHITE {
        BLACK
    } else {
        WHITE
    }
}

/// The two knobs of 2.7.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// `drop-threes-forbidden=on`: a drop that makes a three is illegal.
    pub drop_threes_forbidden: bool,
    /// `protected-threes` (on by default): stones in an enemy exact three may not be removed.
    pub protected_threes: bool,
}

impl Rules {
    /// The rules from a settings list: `default`, or `name=on|off` items separated by `;`.
    pub fn from_settings(text: &str) -> Result<Rules, String> {
        let mut rules = Rules {
            drop_threes_forbidden: false,
            protected_threes: true,
        };
        for item in text.split(';').map(str::trim) {
            if item.is_empty() || item == "default" {
                continue;
            }
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| format!("'{item}' is not name=value"))?;
            let on = match value.trim() {
                "on" => true,
                "off" => false,
                v => return Err(format!("'{v}' is not on or off")),
            };
            match name.trim() {
                "drop-threes-forbidden" => rules.drop_threes_forbidden = on,
                "protected-threes" => rules.protected_threes = on,
                n => return Err(format!("unknown rule '{n}'")),
            }
        }
        Ok(rules)
    }
}

/// A position: the grid, the side to move and the stones in hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pos {
    /// `grid[row][column]`, each `W`, `B` or `.`.
    pub grid: [[u8; COLS]; ROWS],
    /// `W` or `B`.
    pub to_move: u8,
    /// Stones in hand of White and of Black.
    pub hand_white: u8,
    pub hand_black: u8,
}

impl Pos {
    /// The empty board, 12 stones in each hand, White to drop (2.2, 2.8).
    pub fn start() -> Pos {
        Pos {
            grid: [[EMPTY; COLS]; ROWS],
            to_move: WHITE,
            hand_white: 12,
            hand_black: 12,
        }
    }

    pub fn hand(&self, who: u8) -> u8 {
        if who == WHITE {
            self.hand_white
        } else {
            self.hand_black
        }
    }

    fn take_from_hand(&mut self, who: u8) {
        if who == WHITE {
            self.hand_white -= 1;
        } else {
            self.hand_black -= 1;
        }
    }

    /// The cells holding a stone of `who`, rank 1 first.
    pub fn cells_of(&self, who: u8) -> Vec<Cell> {
        cells_holding(&self.grid, who)
    }

    /// READING: stones on the board plus stones in hand.
    pub fn stones(&self, who: u8) -> usize {
        self.cells_of(who).len() + self.hand(who) as usize
    }
}

/// The length of the line of same-coloured stones through `(r, c)` (which holds a stone) going
/// along `(dr, dc)` in both directions: walk away from the cell while the colour stays the same.
fn line_through(grid: &[[u8; COLS]; ROWS], (r, c): Cell, dr: i32, dc: i32) -> usize {
    let who = grid[r][c];
    assert_ne!(who, EMPTY, "no stone at {}", cell_text((r, c)));
    let mut n = 1;
    for sign in [-1, 1] {
        let (mut rr, mut cc) = (r as i32 + sign * dr, c as i32 + sign * dc);
        while (0..ROWS as i32).contains(&rr)
            && (0..COLS as i32).contains(&cc)
            && grid[rr as usize][cc as usize] == who
        {
            n += 1;
            rr += sign * dr;
            cc += sign * dc;
        }
    }
    n
}

/// The line through a stone along its row.
pub fn row_line(grid: &[[u8; COLS]; ROWS], cell: Cell) -> usize {
    line_through(grid, cell, 0, 1)
}

/// The line through a stone along its column.
pub fn col_line(grid: &[[u8; COLS]; ROWS], cell: Cell) -> usize {
    line_through(grid, cell, 1, 0)
}

/// Whether a stone is in an exact three: a row or column line of exactly three (2.5). A stone in a
/// line of four is in an exact three only if its other line is exactly three.
pub fn in_exact_three(grid: &[[u8; COLS]; ROWS], cell: Cell) -> bool {
    row_line(grid, cell) == 3 || col_line(grid, cell) == 3
}

/// A move of the notation of 2.8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SlowMove {
    /// Drop a stone from the hand.
    Drop { to: Cell },
    /// Step a stone to an orthogonal neighbour, removing an enemy stone if it makes a three.
    Step {
        from: Cell,
        to: Cell,
        remove: Option<Cell>,
    },
}

/// Counters of what the generator saw, for the test's report.
#[derive(Clone, Copy, Debug, Default)]
pub struct GenStats {
    /// Drops and steps rejected because they make a line of four or more.
    pub four_bans: u64,
    /// Drops rejected by `drop-threes-forbidden`.
    pub three_bans: u64,
    /// Steps that make a three (each gives one move per removable stone).
    pub threes: u64,
    /// Threes made with every enemy stone on the board in an exact three.
    pub all_protected: u64,
}

/// The cells of a grid holding `who`, rank 1 first.
pub fn cells_holding(grid: &[[u8; COLS]; ROWS], who: u8) -> Vec<Cell> {
    let mut out = Vec::new();
    for (r, row) in grid.iter().enumerate() {
        for (c, &x) in row.iter().enumerate() {
            if x == who {
                out.push((r, c));
            }
        }
    }
    out
}

/// Enemy stones the mover may remove after making a three (2.5, 2.7).
pub fn removable(rules: &Rules, grid: &[[u8; COLS]; ROWS], enemy: u8) -> Vec<Cell> {
    let all = cells_holding(grid, enemy);
    if !rules.protected_threes {
        return all;
    }
    let free: Vec<Cell> = all
        .iter()
        .copied()
        .filter(|&cell| !in_exact_three(grid, cell))
        .collect();
    if free.is_empty() {
        all
    } else {
        free
    }
}

/// Every legal move with the position after it; empty when the game is over.
pub fn legal_moves(rules: &Rules, pos: &Pos) -> Vec<(SlowMove, Pos)> {
    legal_moves_counted(rules, pos, &mut GenStats::default())
}

/// [`legal_moves`], counting what was rejected and why.
pub fn legal_moves_counted(rules: &Rules, pos: &Pos, stats: &mut GenStats) -> Vec<(SlowMove, Pos)> {
    let mut out = Vec::new();
    // 2.6: a side with 2 stones or fewer has lost; nobody moves any more.
    if pos.stones(WHITE) <= 2 || pos.stones(BLACK) <= 2 {
        return out;
    }
    let me = pos.to_move;
    let enemy = other(me);
    if pos.hand(me) > 0 {
        // 2.3: the drop phase, decided by the mover's own hand.
        for r in 0..ROWS {
            for c in 0..COLS {
                if pos.grid[r][c] != EMPTY {
                    continue;
                }
                let mut next = *pos;
                next.grid[r][c] = me;
                let (across, down) = (row_line(&next.grid, (r, c)), col_line(&next.grid, (r, c)));
                if across >= 4 || down >= 4 {
                    stats.four_bans += 1;
                    continue;
                }
                if rules.drop_threes_forbidden && (across == 3 || down == 3) {
                    stats.three_bans += 1;
                    continue;
                }
                next.take_from_hand(me);
                next.to_move = enemy;
                out.push((SlowMove::Drop { to: (r, c) }, next));
            }
        }
        return out;
    }
    // 2.4: the move phase.
    for from in pos.cells_of(me) {
        let (r, c) = from;
        let steps = [(-1i32, 0i32), (1, 0), (0, -1), (0, 1)];
        for (dr, dc) in steps {
            let (r2, c2) = (r as i32 + dr, c as i32 + dc);
            if !(0..ROWS as i32).contains(&r2) || !(0..COLS as i32).contains(&c2) {
                continue;
            }
            let to = (r2 as usize, c2 as usize);
            if pos.grid[to.0][to.1] != EMPTY {
                continue;
            }
            let mut next = *pos;
            next.grid[r][c] = EMPTY;
            next.grid[to.0][to.1] = me;
            next.to_move = enemy;
            let (across, down) = (row_line(&next.grid, to), col_line(&next.grid, to));
            if across >= 4 || down >= 4 {
                stats.four_bans += 1;
                continue;
            }
            if across == 3 || down == 3 {
                // 2.5: one move per removable stone, however many threes the step makes.
                stats.threes += 1;
                let victims = removable(rules, &next.grid, enemy);
                if rules.protected_threes
                    && victims.iter().all(|&cell| in_exact_three(&next.grid, cell))
                {
                    stats.all_protected += 1;
                }
                for victim in victims {
                    let mut after = next;
                    after.grid[victim.0][victim.1] = EMPTY;
                    let m = SlowMove::Step {
                        from,
                        to,
                        remove: Some(victim),
                    };
                    out.push((m, after));
                }
            } else {
                let m = SlowMove::Step {
                    from,
                    to,
                    remove: None,
                };
                out.push((m, next));
            }
        }
    }
    out
}

/// Why a game ended (2.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    TooFewStones,
    NoLegalMove,
}

/// Whether the game is over: the loser (`W` or `B`) and why.
pub fn outcome(rules: &Rules, pos: &Pos) -> Option<(u8, End)> {
    // READING: with both sides at 2 or fewer (never in play) White is named.
    for who in [WHITE, BLACK] {
        if pos.stones(who) <= 2 {
            return Some((who, End::TooFewStones));
        }
    }
    if legal_moves(rules, pos).is_empty() {
        return Some((pos.to_move, End::NoLegalMove));
    }
    None
}

/// Leaves of the move tree of the given depth; a finished game counts 1.
pub fn perft(rules: &Rules, pos: &Pos, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let list = legal_moves(rules, pos);
    if list.is_empty() {
        return 1;
    }
    if depth == 1 {
        return list.len() as u64;
    }
    list.iter().map(|(_, q)| perft(rules, q, depth - 1)).sum()
}

// ------------------------------------------------------------------------------------------------
// Text (2.8).

/// `a1` ... `f5`.
pub fn cell_text((r, c): Cell) -> String {
    format!("{}{}", (b'a' + c as u8) as char, r + 1)
}

/// A cell name, exactly a letter `a`-`f` and a digit `1`-`5`.
pub fn parse_cell(text: &str) -> Result<Cell, String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() != 2 {
        return Err(format!("'{text}' is not a cell"));
    }
    let c = "abcdef"
        .find(chars[0])
        .ok_or_else(|| format!("'{text}': no file {}", chars[0]))?;
    let r = "12345"
        .find(chars[1])
        .ok_or_else(|| format!("'{text}': no rank {}", chars[1]))?;
    Ok((r, c))
}

/// `c3`, `c3-c4`, `c3-c4xe2`.
pub fn move_text(m: &SlowMove) -> String {
    match *m {
        SlowMove::Drop { to } => cell_text(to),
        SlowMove::Step { from, to, remove } => {
            let mut s = format!("{}-{}", cell_text(from), cell_text(to));
            if let Some(x) = remove {
                s.push('x');
                s.push_str(&cell_text(x));
            }
            s
        }
    }
}

/// Reads a move of the notation (lower case, no spaces); says nothing about legality.
pub fn parse_move_text(text: &str) -> Result<SlowMove, String> {
    let (head, remove) = match text.split_once('x') {
        Some((h, x)) => (h, Some(parse_cell(x)?)),
        None => (text, None),
    };
    match head.split_once('-') {
        Some((a, b)) => Ok(SlowMove::Step {
            from: parse_cell(a)?,
            to: parse_cell(b)?,
            remove,
        }),
        None if remove.is_none() => Ok(SlowMove::Drop {
            to: parse_cell(head)?,
        }),
        None => Err(format!("'{text}': a drop removes nothing")),
    }
}

fn parse_count(field: &str) -> Result<u8, String> {
    if field.is_empty() || !field.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("'{field}' is not a number"));
    }
    let digits = field.trim_start_matches('0');
    if digits.len() > 2 {
        return Err(format!("{field} is more than 12"));
    }
    let n: u8 = if digits.is_empty() {
        0
    } else {
        digits.parse().map_err(|_| format!("'{field}'"))?
    };
    if n > 12 {
        return Err(format!("{field} is more than 12"));
    }
    Ok(n)
}

/// Reads a position text: `rows 5..1 / side / hand W / hand B`.
pub fn parse(text: &str) -> Result<Pos, String> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.len() != 4 {
        return Err(format!("{} fields, expected 4", fields.len()));
    }
    let rows: Vec<&str> = fields[0].split('/').collect();
    if rows.len() != ROWS {
        return Err(format!("{} rows, expected 5", rows.len()));
    }
    let mut pos = Pos::start();
    for (k, row) in rows.iter().enumerate() {
        let cells: Vec<char> = row.chars().collect();
        if cells.len() != COLS {
            return Err(format!("row '{row}' has {} cells, expected 6", cells.len()));
        }
        for (c, ch) in cells.into_iter().enumerate() {
            pos.grid[ROWS - 1 - k][c] = match ch {
                'W' => WHITE,
                'B' => BLACK,
                '.' => EMPTY,
                _ => return Err(format!("'{ch}' is not W, B or .")),
            };
        }
    }
    pos.to_move = match fields[1] {
        "w" => WHITE,
        "b" => BLACK,
        s => return Err(format!("side '{s}' is not w or b")),
    };
    pos.hand_white = parse_count(fields[2])?;
    pos.hand_black = parse_count(fields[3])?;
    for who in [WHITE, BLACK] {
        if pos.stones(who) > 12 {
            return Err(format!("{} has more than 12 stones", who as char));
        }
    }
    Ok(pos)
}

/// Writes a position text.
pub fn write(pos: &Pos) -> String {
    let rows: Vec<String> = (0..ROWS)
        .rev()
        .map(|r| pos.grid[r].iter().map(|&b| b as char).collect())
        .collect();
    format!(
        "{} {} {} {}",
        rows.join("/"),
        if pos.to_move == WHITE { 'w' } else { 'b' },
        pos.hand_white,
        pos.hand_black
    )
}

/// Whether the rules can reach a position, as far as its text shows (READING of 2.2-2.4 for the
/// parser's checks), or at least type it in (a line of four, which no drop or move makes, is
/// allowed: 2.5 names it "possible only in a typed-in position"): while any stone is in hand,
/// nothing has been captured
/// (threes made while dropping capture nothing), so each side's stones on the board are the 12
/// minus its hand; White drops first and the turns alternate, so White has dropped as many as
/// Black (White to move) or one more (Black to move); and with `drop-threes-forbidden` no exact
/// three stands on the board during the drop phase.
pub fn reachable(rules: &Rules, pos: &Pos) -> Result<(), String> {
    // A line of four is no reason: RULES.md 2.5 names it as possible in a typed-in position.
    if pos.hand_white == 0 && pos.hand_black == 0 {
        return Ok(());
    }
    for who in [WHITE, BLACK] {
        if pos.stones(who) != 12 {
            return Err(format!("{} lost a stone while dropping", who as char));
        }
    }
    let (white_down, black_down) = (12 - pos.hand_white, 12 - pos.hand_black);
    let expected = if white_down == black_down {
        WHITE
    } else if white_down == black_down + 1 {
        BLACK
    } else {
        return Err(format!("White dropped {white_down}, Black {black_down}"));
    };
    if pos.to_move != expected {
        return Err(format!("{} is not to drop", pos.to_move as char));
    }
    if rules.drop_threes_forbidden {
        for who in [WHITE, BLACK] {
            if pos
                .cells_of(who)
                .into_iter()
                .any(|c| in_exact_three(&pos.grid, c))
            {
                return Err(format!("{} has a three while dropping", who as char));
            }
        }
    }
    Ok(())
}
