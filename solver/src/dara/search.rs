//! Search for Dara positions outside the solved endgames: [`crate::search::alpha_beta`] with
//! the endgame tables at the leaves and a material estimate at the horizon.

use crate::dara::rules::DaraRules;
use crate::search::alpha_beta::{self, Edge, Searchable};
use crate::search::score::{lost_at, material_and_mobility, score_of, MATE};
use crate::sectors::db::{Db, ProbeError};
use crate::sectors::folded::Folded;
use retro_engine::dara::{Dara, Move, Position, ALL, NEIGHBOURS, NONE};
use retro_tables::value::{Value, Wdl};
use retro_tables::SectorKey;

pub use crate::search::score::{value_of, MATE_BOUND};
pub use crate::search::Limits;
/// A root move with its score.
pub type ScoredMove = crate::search::ScoredMove<Move>;
/// The result of a search.
pub type SearchResult = crate::search::SearchResult<Move>;

/// The endgame tables found in a directory, checked once.
pub struct Tables<'a> {
    db: &'a Db<DaraRules>,
    available: [[bool; 13]; 13],
}

impl<'a> Tables<'a> {
    /// Looks for the endgame tables of `db`. They are opened and checked when first probed: a
    /// table that fails its checks then makes the probe an error; a missing one is not used.
    pub fn open(db: &'a Db<DaraRules>) -> Tables<'a> {
        let mut available = [[false; 13]; 13];
        for (w, row) in available.iter_mut().enumerate().skip(3) {
            for (b, cell) in row.iter_mut().enumerate().skip(3) {
                let k = SectorKey {
                    w: w as u8,
                    b: b as u8,
                    wf: 0,
                    bf: 0,
                };
                *cell = db.has_table(k);
            }
        }
        Tables { db, available }
    }

    /// Tables that answer nothing (search only).
    pub fn none(db: &'a Db<DaraRules>) -> Tables<'a> {
        Tables {
            db,
            available: [[false; 13]; 13],
        }
    }

    /// Keeps only the endgames `keep` accepts (side to move's stones, other side's stones).
    pub fn restrict(mut self, keep: impl Fn(u8, u8) -> bool) -> Tables<'a> {
        for (w, row) in self.available.iter_mut().enumerate() {
            for (b, cell) in row.iter_mut().enumerate() {
                *cell &= keep(w as u8, b as u8);
            }
        }
        self
    }

    /// The endgames found, as (side to move's stones, other side's stones).
    pub fn sectors(&self) -> Vec<(u8, u8)> {
        let mut out = Vec::new();
        for w in 3..13 {
            for b in 3..13 {
                if self.available[w][b] {
                    out.push((w as u8, b as u8));
                }
            }
        }
        out
    }

    /// Whether a table holds this position (movement phase, material solved, and no run of
    /// four: only a typed-in position has one, and the tables leave them out).
    pub fn covers(&self, p: &Position) -> bool {
        let (s, o) = (p.side.index(), p.side.other().index());
        p.hand == [0, 0]
            && self.available[p.stones[s].count_ones() as usize][p.stones[o].count_ones() as usize]
            && !retro_engine::dara::has_four(p.stones[0])
            && !retro_engine::dara::has_four(p.stones[1])
    }

    /// The table value of a covered position.
    pub fn value(&self, p: &Position) -> Result<Value, ProbeError> {
        self.db.value_folded(&folded(p))
    }

    /// The table win/draw/loss of a covered position: what every table knows, `--wdl-only`
    /// ones included.
    pub fn wdl(&self, p: &Position) -> Result<Wdl, ProbeError> {
        self.db.wdl_folded(&folded(p))
    }
}

/// A movement-phase position with the side to move first, as the tables index it.
fn folded(p: &Position) -> Folded {
    let (s, o) = (p.side.index(), p.side.other().index());
    Folded {
        own: p.stones[s],
        opp: p.stones[o],
        own_hand: 0,
        opp_hand: 0,
    }
}

fn key(p: &Position) -> u128 {
    (p.stones[0] as u128)
        | (p.stones[1] as u128) << 30
        | (p.hand[0] as u128) << 60
        | (p.hand[1] as u128) << 64
        | (p.side.index() as u128) << 68
}

/// Estimate for a line cut off by the depth limit: material, then mobility.
pub fn evaluate(p: &Position) -> i32 {
    let (s, o) = (p.side.index(), p.side.other().index());
    let (stones, hand) = ([p.stones[s], p.stones[o]], [p.hand[s], p.hand[o]]);
    material_and_mobility(
        stones,
        hand,
        ALL & !(p.stones[0] | p.stones[1]),
        &NEIGHBOURS,
    )
}

/// Dara as the search sees it: the game and its endgame tables.
struct DaraSearch<'a> {
    game: &'a Dara,
    tables: &'a Tables<'a>,
}

impl Searchable for DaraSearch<'_> {
    type Position = Position;
    type Move = Move;
    type Child = (Move, Position);
    type Key = u128;
    type Error = ProbeError;
    const TT_LIMIT: usize = 8_000_000;

    fn over(&self, p: &Position) -> bool {
        self.game.outcome(p).is_some()
    }
    fn key(&self, p: &Position) -> u128 {
        key(p)
    }
    fn leaf(&mut self, p: &Position, ply: u32) -> Result<Option<i32>, ProbeError> {
        let (s, o) = (p.side.index(), p.side.other().index());
        if p.stones[s].count_ones() + p.hand[s] as u32 <= 2 {
            return Ok(Some(lost_at(ply)));
        }
        if p.stones[o].count_ones() + p.hand[o] as u32 <= 2 {
            return Ok(Some(MATE - ply as i32));
        }
        if self.tables.covers(p) {
            return Ok(Some(score_of(self.tables.value(p)?, ply)));
        }
        Ok(None)
    }
    fn horizon(&self, p: &Position, ply: u32) -> (i32, bool) {
        let mut list = Vec::with_capacity(48);
        self.game.moves(p, &mut list);
        if list.is_empty() {
            (lost_at(ply), true)
        } else {
            (evaluate(p), false)
        }
    }
    fn children(&self, p: &Position, out: &mut Vec<(Move, Position)>) {
        self.game.moves(p, out);
    }
    fn mv(c: &(Move, Position)) -> Move {
        c.0
    }
    fn position(c: &(Move, Position)) -> &Position {
        &c.1
    }
    fn edge(&self, _: &Position, _: &(Move, Position)) -> Edge {
        Edge {
            gain: 0,
            passes: true,
        }
    }
    /// The table's best move first, then removals, then the rest.
    fn order(&self, c: &(Move, Position), hinted: bool) -> i32 {
        if hinted {
            0
        } else if c.0.removed != NONE {
            1
        } else {
            2
        }
    }
}

/// Searches a position within the limits. `Ok(None)` when the game is over; an error when a
/// table the search needed cannot be read.
pub fn search(
    game: &Dara,
    tables: &Tables,
    p: &Position,
    limits: Limits,
) -> Result<Option<SearchResult>, ProbeError> {
    alpha_beta::search(&mut DaraSearch { game, tables }, p, limits)
}
