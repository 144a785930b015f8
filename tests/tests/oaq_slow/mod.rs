//! A deliberately simple Ô Ăn Quan implementation, written from `../shared/RULES.md` section 3
//! for the tests only.
//!
//! Nothing here uses the engine: the rule settings, the position type, the sowing loop, the
//! position text and the move notation are all written again from the rule text. The sowing is a
//! small state machine whose states are the sentences of 3.3 and 3.4 ("sow", "look at the next
//! cell", "after an empty cell", "after a captured cell"). Speed does not matter; clarity does.
//!
//! Readings taken where the text leaves room (each is marked `READING` below):
//! - `big-mandarin=V` alone means "instead" of the 10 seeds: the mandarin cells start with the big
//!   piece and no small seeds. With `seeds=K,M` as well, they start with the big piece and M small
//!   seeds.
//! - The refill test "the two stores together hold fewer than 5 (that is, fewer than 5 seeds are
//!   off the board)" counts small seeds off the board: the two stores as the position gives them,
//!   less the worth of the big pieces already captured (a captured big piece is not seeds that
//!   can be put into cells). A position's own stores decide it, not the rule settings.
//! - With `seeds=K,M` given, a position must hold exactly the game's seeds (board and stores);
//!   without it, the position's total is its own.
//! - `quan-non=K` only protects a mandarin cell whose big piece is still there, so it does
//!   nothing without the big-mandarin rule.

/// The rule settings of section 3.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Small seeds per citizen cell at the start (K of `seeds=K,M`).
    pub citizen: u32,
    /// Small seeds per mandarin cell at the start (M of `seeds=K,M`).
    pub mandarin: u32,
    /// Worth of the big piece (`big-mandarin=V`), if the rule is on.
    pub big: Option<u32>,
    /// `quan-non=K` (0: off).
    pub quan_non: u32,
    /// Whether `seeds=K,M` was given (a position must then hold exactly the game's seeds).
    pub fixed: bool,
}

impl Rules {
    /// The rules from a settings list: `default`, or `name=value` items separated by `;`
    /// (`seeds=2,2;big-mandarin=10`).
    pub fn from_settings(text: &str) -> Result<Rules, String> {
        let mut seeds: Option<(u32, u32)> = None;
        let mut big = None;
        let mut quan_non = 0;
        for item in text.split(';').map(str::trim) {
            if item.is_empty() || item == "default" {
                continue;
            }
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| format!("setting '{item}' is not name=value"))?;
            let number = |v: &str| {
                v.trim()
                    .parse::<u32>()
                    .map_err(|_| format!("setting '{item}': '{v}' is not a number"))
            };
            match name.trim() {
                "seeds" => {
                    let (k, m) = value
                        .split_once(',')
                        .ok_or_else(|| format!("setting '{item}': expected K,M"))?;
                    seeds = Some((number(k)?, number(m)?));
                }
                "big-mandarin" => big = Some(number(value)?),
                "quan-non" => quan_non = number(value)?,
                other => return Err(format!("unknown setting '{other}'")),
            }
        }
        // READING: "big-mandarin=V: instead, each mandarin cell holds one big piece worth V ...
        // plus whatever small seeds are sown into it" -> no small seeds at the start, unless
        // seeds=K,M says otherwise.
        let (citizen, mandarin) = seeds.unwrap_or(if big.is_some() { (5, 0) } else { (5, 10) });
        Ok(Rules {
            citizen,
            mandarin,
            big,
            quan_non,
            fixed: seeds.is_some(),
        })
    }

    /// Small seeds in the whole game (on the board or off it).
    pub fn seeds_in_game(&self) -> u32 {
        10 * self.citizen + 2 * self.mandarin
    }

    /// The start position (3.2, 3.3: South moves first, first ply).
    pub fn start(&self) -> Pos {
        let mut cells = vec![self.citizen; 12];
        cells[0] = self.mandarin;
        cells[6] = self.mandarin;
        Pos {
            cells,
            big_piece: [self.big.is_some(); 2],
            side: SOUTH,
            stores: [0, 0],
            first: true,
        }
    }
}

/// Side indices.
pub const SOUTH: usize = 0;
pub const NORTH: usize = 1;

/// The citizen cells of a side (3.1).
pub fn row(side: usize) -> Vec<usize> {
    if side == SOUTH {
        (1..=5).collect()
    } else {
        (7..=11).collect()
    }
}

/// Whether a cell is a mandarin (quan) cell.
pub fn is_mandarin(cell: usize) -> bool {
    cell == 0 || cell == 6
}

/// A position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pos {
    /// Small seeds in cells 0..11.
    pub cells: Vec<u32>,
    /// Big piece still in cell 0 / cell 6.
    pub big_piece: [bool; 2],
    /// SOUTH or NORTH.
    pub side: usize,
    /// South's and North's stores.
    pub stores: [i64; 2],
    /// Next ply is the first of the game.
    pub first: bool,
}

impl Pos {
    /// Whether cell `c` holds a big piece.
    pub fn has_big(&self, c: usize) -> bool {
        match c {
            0 => self.big_piece[0],
            6 => self.big_piece[1],
            _ => false,
        }
    }

    /// Whether a cell has anything in it: seeds, or a big piece.
    pub fn non_empty(&self, c: usize) -> bool {
        self.cells[c] > 0 || self.has_big(c)
    }

    /// Small seeds on the board.
    pub fn on_board(&self) -> u32 {
        self.cells.iter().sum()
    }
}

/// A finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Final stores after the collection.
    pub stores: [i64; 2],
    /// SOUTH, NORTH, or None for a draw.
    pub winner: Option<usize>,
    /// True when the game ended because a refill was impossible (3.6), false when both
    /// mandarin cells were empty (3.7).
    pub by_refill: bool,
}

/// One legal move with what it does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlowTurn {
    /// The cell sown from.
    pub cell: usize,
    /// +1 or -1.
    pub dir: i32,
    /// The position after the turn.
    pub after: Pos,
    /// What the mover captured (big pieces at their worth).
    pub captured: i64,
    /// Whether the mover refilled its row first.
    pub refilled: bool,
    /// Seeds put into cells during the turn (the first hand and every relay).
    pub sown: u64,
    /// Relays (citizen cells picked up after a hand ran out).
    pub relays: u64,
    /// Cells captured.
    pub captures: u64,
}

/// Seeds off the board (READING: the refill test of 3.6 counts these).
pub fn seeds_off_board(rules: &Rules, pos: &Pos) -> i64 {
    let big_taken = pos.big_piece.iter().filter(|&&b| !b).count() as i64;
    pos.stores[0] + pos.stores[1] - big_taken * rules.big.unwrap_or(0) as i64
}

/// Small seeds of the position's game: on the board and off it.
pub fn seeds_of(rules: &Rules, pos: &Pos) -> u32 {
    (pos.on_board() as i64 + seeds_off_board(rules, pos)).max(0) as u32
}

/// 3.6 / 3.7: whether the game is over, with the final stores.
pub fn game_over(rules: &Rules, pos: &Pos) -> Option<Outcome> {
    // 3.7: "as soon as both mandarin cells are empty (no seeds, no big piece) after a turn
    // (never at the start position ...)".
    let mandarins_gone = !pos.non_empty(0) && !pos.non_empty(6);
    let ended_by_mandarins = mandarins_gone && !pos.first;
    // 3.6: the mover must refill but fewer than 5 seeds are off the board.
    let row_empty = row(pos.side).iter().all(|&c| pos.cells[c] == 0);
    let ended_by_refill = row_empty && seeds_off_board(rules, pos) < 5;
    if !ended_by_mandarins && !ended_by_refill {
        return None;
    }
    // "Each player then adds the seeds left in its own citizen cells to its store; seeds left in
    // a mandarin cell ... go to nobody."
    let mut stores = pos.stores;
    for side in [SOUTH, NORTH] {
        for c in row(side) {
            stores[side] += pos.cells[c] as i64;
        }
    }
    let winner = if stores[SOUTH] > stores[NORTH] {
        Some(SOUTH)
    } else if stores[NORTH] > stores[SOUTH] {
        Some(NORTH)
    } else {
        None
    };
    Some(Outcome {
        stores,
        winner,
        by_refill: !ended_by_mandarins,
    })
}

/// The cell after `c` in direction `dir`.
fn next(c: usize, dir: i32) -> usize {
    ((c as i32 + dir).rem_euclid(12)) as usize
}

/// Whether the capture chain may take mandarin/citizen cell `c` (3.5).
fn may_capture(rules: &Rules, pos: &Pos, c: usize) -> bool {
    if !is_mandarin(c) {
        return true;
    }
    if pos.first {
        return false; // "on the first ply of the game a mandarin cell cannot be captured"
    }
    // "quan-non=K: a mandarin cell holding fewer than K small seeds (big piece still there)
    // cannot be captured".
    !(rules.quan_non > 0 && pos.has_big(c) && pos.cells[c] < rules.quan_non)
}

/// The sowing states of 3.3 and 3.4.
enum State {
    /// Sowing `hand` seeds one per cell, from the cell after the current one.
    Sow(u32),
    /// The hand is empty: look at the next cell.
    Look,
    /// The current cell is empty: look at the one after it.
    AfterEmpty,
    /// The current cell was just captured: look at the one after it.
    AfterCapture,
}

/// Every legal move with its turn, cells ascending, `+` before `-` (3.3, 3.6). Empty when the
/// game is over. `Err` if a turn sows more than `limit` seeds (3.8 says that never happens).
pub fn turns(rules: &Rules, pos: &Pos, limit: u64) -> Result<Vec<SlowTurn>, String> {
    if game_over(rules, pos).is_some() {
        return Ok(Vec::new());
    }
    // 3.6: refill first if the row is empty: one seed each, the store drops by 5 (possibly below
    // zero: the rest is borrowed from the opponent, whose store keeps its value).
    let mut ready = pos.clone();
    let refilled = row(pos.side).iter().all(|&c| pos.cells[c] == 0);
    if refilled {
        for c in row(pos.side) {
            ready.cells[c] = 1;
        }
        ready.stores[pos.side] -= 5;
    }
    let mut out = Vec::new();
    for cell in row(pos.side) {
        if ready.cells[cell] == 0 {
            continue;
        }
        for dir in [1, -1] {
            out.push(sow(rules, &ready, cell, dir, refilled, limit)?);
        }
    }
    Ok(out)
}

/// Plays cell `cell` in direction `dir` on a position whose row is already refilled.
fn sow(
    rules: &Rules,
    ready: &Pos,
    cell: usize,
    dir: i32,
    refilled: bool,
    limit: u64,
) -> Result<SlowTurn, String> {
    let mut p = ready.clone();
    let mut at = cell;
    let mut captured = 0i64;
    let (mut sown, mut relays, mut captures) = (0u64, 0u64, 0u64);
    // 3.3: "take all its seeds and sow them one per cell, starting with the next cell".
    let mut state = State::Sow(std::mem::take(&mut p.cells[cell]));
    loop {
        state = match state {
            State::Sow(hand) => {
                for _ in 0..hand {
                    at = next(at, dir);
                    p.cells[at] += 1; // nothing is skipped; the big piece is never sown
                    sown += 1;
                }
                if sown > limit {
                    return Err(format!("turn {cell}{dir:+} sowed more than {limit} seeds"));
                }
                State::Look
            }
            State::Look => {
                let n = next(at, dir);
                if !is_mandarin(n) && p.cells[n] > 0 {
                    // "a citizen cell with seeds: take them all and keep sowing from the cell
                    // after it"
                    relays += 1;
                    at = n;
                    State::Sow(std::mem::take(&mut p.cells[n]))
                } else if is_mandarin(n) && p.non_empty(n) {
                    break; // "a mandarin cell with seeds (or with its big piece): the turn ends"
                } else {
                    at = n; // "an empty cell (citizen or mandarin)"
                    State::AfterEmpty
                }
            }
            State::AfterEmpty => {
                let n = next(at, dir);
                if !p.non_empty(n) {
                    break; // "Two empty cells in a row end the turn"
                }
                if !may_capture(rules, &p, n) {
                    break; // "the capture chain stops before it"
                }
                captured += p.cells[n] as i64;
                p.cells[n] = 0;
                if p.has_big(n) {
                    captured += rules.big.expect("big piece without the rule") as i64;
                    p.big_piece[n / 6] = false;
                }
                captures += 1;
                at = n;
                State::AfterCapture
            }
            State::AfterCapture => {
                let n = next(at, dir);
                if p.non_empty(n) {
                    break; // "a non-empty cell right after a captured one" ends the turn
                }
                at = n;
                State::AfterEmpty
            }
        };
    }
    p.stores[ready.side] += captured;
    p.side = 1 - ready.side;
    p.first = false;
    Ok(SlowTurn {
        cell,
        dir,
        after: p,
        captured,
        refilled,
        sown,
        relays,
        captures,
    })
}

/// A bound no turn of a game with `seeds` small seeds can pass (3.8): mandarin cells only gain
/// seeds while a turn sows, so at most `seeds` seeds go into them; every other sown seed lands
/// one or two cells (a relay skips the cell picked up) further in the one direction, so between
/// two seeds sown into mandarin cells (and before the first, and after the last) at most the 5
/// citizen cells of one row are sown: at most `seeds + 5 * (seeds + 1)` seeds in all.
pub fn sowing_limit(seeds: u32) -> u64 {
    6 * (seeds as u64 + 1)
}

/// Number of leaves of the move tree of `depth` plies (a finished game counts 1).
pub fn perft(rules: &Rules, pos: &Pos, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let list = turns(rules, pos, sowing_limit(seeds_of(rules, pos))).expect("turn ends");
    if list.is_empty() {
        return 1;
    }
    list.iter().map(|t| perft(rules, &t.after, depth - 1)).sum()
}

/// Reads a non-empty run of ASCII digits.
fn digits(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > 9 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Reads the position text of 3.10.
pub fn parse(rules: &Rules, text: &str) -> Result<Pos, String> {
    let fields: Vec<&str> = text.split_ascii_whitespace().collect();
    let [cells_text, side_text, south_text, north_text, first_text] = fields[..] else {
        return Err(format!("{} fields, expected 5", fields.len()));
    };
    let items: Vec<&str> = cells_text.split(',').collect();
    if items.len() != 12 {
        return Err(format!("{} cells, expected 12", items.len()));
    }
    let mut cells = Vec::new();
    let mut big_piece = [false, false];
    for (c, item) in items.iter().enumerate() {
        let count = match item.strip_prefix('Q') {
            Some(rest) => {
                if !is_mandarin(c) {
                    return Err(format!("Q in cell {c}, which is not a mandarin cell"));
                }
                if rules.big.is_none() {
                    return Err("Q without the big-mandarin rule".into());
                }
                big_piece[c / 6] = true;
                rest
            }
            None => item,
        };
        cells.push(
            digits(count).ok_or_else(|| format!("cell {c}: '{item}' is not a count"))? as u32,
        );
    }
    let side = match side_text {
        "s" => SOUTH,
        "n" => NORTH,
        _ => return Err(format!("side '{side_text}'")),
    };
    let store = |t: &str| -> Result<i64, String> {
        let (neg, body) = match t.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, t),
        };
        let v = digits(body).ok_or_else(|| format!("store '{t}'"))? as i64;
        Ok(if neg { -v } else { v })
    };
    let stores = [store(south_text)?, store(north_text)?];
    let first = match first_text {
        "1" => true,
        "0" => false,
        _ => return Err(format!("first-ply flag '{first_text}'")),
    };
    let pos = Pos {
        cells,
        big_piece,
        side,
        stores,
        first,
    };
    let off = seeds_off_board(rules, &pos);
    if off < 0 {
        return Err(format!("the stores hold {off} seeds off the board"));
    }
    let total = pos.on_board() as i64 + off;
    if rules.fixed && total != rules.seeds_in_game() as i64 {
        return Err(format!(
            "{total} seeds in the position, the game has {}",
            rules.seeds_in_game()
        ));
    }
    if !rules.fixed && total > 255 {
        return Err(format!("{total} seeds in the position, at most 255"));
    }
    if stores.iter().any(|s| s.abs() > 1000) {
        return Err("a store beyond 1000".into());
    }
    Ok(pos)
}

/// Writes the position text of 3.10.
pub fn write(pos: &Pos) -> String {
    let mut cells = Vec::new();
    for c in 0..12 {
        let q = if pos.has_big(c) { "Q" } else { "" };
        cells.push(format!("{q}{}", pos.cells[c]));
    }
    format!(
        "{} {} {} {} {}",
        cells.join(","),
        ["s", "n"][pos.side],
        pos.stores[SOUTH],
        pos.stores[NORTH],
        u8::from(pos.first)
    )
}

/// Writes a move: `3+`, `9-`.
pub fn write_move(cell: usize, dir: i32) -> String {
    format!("{cell}{}", if dir > 0 { '+' } else { '-' })
}

/// Reads a move and finds its turn among the legal ones.
pub fn parse_move(rules: &Rules, pos: &Pos, text: &str) -> Result<SlowTurn, String> {
    let text = text.trim();
    let (cell_text, dir) = if let Some(c) = text.strip_suffix('+') {
        (c, 1)
    } else if let Some(c) = text.strip_suffix('-') {
        (c, -1)
    } else {
        return Err(format!("'{text}': no direction"));
    };
    let cell = digits(cell_text)
        .filter(|&c| c < 12)
        .ok_or_else(|| format!("'{text}': no cell 0-11"))? as usize;
    if game_over(rules, pos).is_some() {
        return Err("the game is over".into());
    }
    if !row(pos.side).contains(&cell) {
        return Err(format!("cell {cell} is not the mover's"));
    }
    turns(rules, pos, sowing_limit(seeds_of(rules, pos)))?
        .into_iter()
        .find(|t| t.cell == cell && t.dir == dir)
        .ok_or_else(|| format!("cell {cell} is empty"))
}
