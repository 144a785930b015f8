//! Game-theoretic values: win, draw or loss for the side to move, with the distance in plies.
//!
//! Stored as a little-endian `u16` per slot: `0` draw (or unknown while solving), `0x4000 | d`
//! loss in `d` plies, `0x8000 | d` win in `d` plies, `0xC000` a wasted slot (no position).

/// Largest distance a value can hold (also the mask of the distance bits).
pub const MAX_DISTANCE: u16 = 0x3FFF;
/// Largest distance a table may store: one ply more must still fit, for the value of the
/// position before it (a table holding a longer distance is refused when opened).
pub const MAX_STORED_DISTANCE: u16 = MAX_DISTANCE - 1;
/// Draw (and "not yet known" while solving).
pub const DRAW: u16 = 0;
/// Marker of a slot that holds no position.
pub const WASTED: u16 = 0xC000;

/// The code of a loss in `d` plies.
#[inline]
pub const fn loss(d: u16) -> u16 {
    0x4000 | d
}

/// The code of a win in `d` plies.
#[inline]
pub const fn win(d: u16) -> u16 {
    0x8000 | d
}

/// A decoded value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move wins in this many plies.
    Win(u16),
    /// Neither side can force a win.
    Draw,
    /// The side to move loses in this many plies.
    Loss(u16),
}

impl Value {
    /// Decodes a stored code; `None` for a wasted slot.
    #[inline]
    pub const fn decode(code: u16) -> Option<Value> {
        match code & 0xC000 {
            0 => Some(Value::Draw),
            0x4000 => Some(Value::Loss(code & MAX_DISTANCE)),
            0x8000 => Some(Value::Win(code & MAX_DISTANCE)),
            _ => None,
        }
    }

    /// The stored code.
    pub const fn encode(self) -> u16 {
        match self {
            Value::Draw => DRAW,
            Value::Loss(d) => loss(d),
            Value::Win(d) => win(d),
        }
    }

    /// The value of the position before a move that leads to a position of this value.
    pub const fn parent(self) -> Value {
        match self {
            Value::Draw => Value::Draw,
            Value::Loss(d) => Value::Win(d + 1),
            Value::Win(d) => Value::Loss(d + 1),
        }
    }

    /// `"win"`, `"draw"` or `"loss"`.
    pub const fn result(self) -> &'static str {
        match self {
            Value::Win(_) => "win",
            Value::Draw => "draw",
            Value::Loss(_) => "loss",
        }
    }

    /// The distance in plies (`None` for a draw).
    pub const fn plies(self) -> Option<u16> {
        match self {
            Value::Win(d) | Value::Loss(d) => Some(d),
            Value::Draw => None,
        }
    }

    /// Orders values from the mover's point of view: quicker wins first, slower losses last.
    pub fn preference(self) -> i32 {
        match self {
            Value::Win(d) => 100_000 - d as i32,
            Value::Draw => 0,
            Value::Loss(d) => -100_000 + d as i32,
        }
    }

    /// The value of a position one ply before this one with the same side to move (the mover
    /// moves again): the same result, a ply further.
    pub const fn later(self) -> Value {
        match self {
            Value::Win(d) => Value::Win(d + 1),
            Value::Draw => Value::Draw,
            Value::Loss(d) => Value::Loss(d + 1),
        }
    }

    /// The result without the distance.
    pub const fn wdl(self) -> Wdl {
        match self {
            Value::Win(_) => Wdl::Win,
            Value::Draw => Wdl::Draw,
            Value::Loss(_) => Wdl::Loss,
        }
    }
}

/// A result without a distance: what a win/draw/loss table (`--wdl-only`) knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wdl {
    /// The side to move loses.
    Loss,
    /// Neither side can force a win.
    Draw,
    /// The side to move wins.
    Win,
}

impl Wdl {
    /// The result of the position before a move that leads to a position of this result.
    pub const fn parent(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }

    /// `"win"`, `"draw"` or `"loss"`.
    pub const fn result(self) -> &'static str {
        match self {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        }
    }
}

/// What a compressed table's slot holds: a value, or a win whose distance is a one-ply search
/// (`ENCODING_DTM_SEARCHED`), which a caller with the game's moves resolves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored {
    /// The slot's value.
    Value(Value),
    /// A win; its distance is 1 + the least distance of the moves that lose for the opponent.
    SearchedWin,
}
