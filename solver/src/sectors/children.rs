//! The moves of a solver position, as the games' generators report them.

use crate::sectors::folded::Folded;
use retro_engine::mill::Bits;

/// What a position's moves lead to.
#[derive(Default)]
pub struct Children {
    /// The positions after each move (colours swapped: the opponent to move).
    pub list: Vec<Folded>,
    /// The positions after each move that leaves the same side to move again (colours not
    /// swapped): Mill's stalemate removals, after which the blocked side moves.
    pub again: Vec<Folded>,
    /// Some move wins at once (the opponent is left with too few stones).
    pub wins_now: bool,
    /// Moves that slide or fly without making a mill, when `children_counting` was asked
    /// to count them rather than list them.
    pub plain: usize,
    /// The opponent's removable stones, once a move of the position makes a mill.
    pub(crate) removable: Option<Bits>,
}
