//! The moves of a solver position, as the games' generators report them.

use crate::sectors::folded::Folded;
use crate::sectors::probe_error::ProbeError;
use retro_engine::mill::Bits;
use retro_tables::value::Value;

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
    /// Moves followed by removals the rules force on both sides (Mill's full board when
    /// placing ends): each root is a move, a tree of one ply per edge.
    pub forced: Forced,
}

/// Trees of forced plies. Node values are for the side acting at the node; an edge is one
/// ply, to a node whose actor is the other side (`Node::Choice`, `Node::Leaf` with
/// `again == false`) or the same side (`again == true`).
#[derive(Default)]
pub struct Forced {
    /// The nodes; a choice's children are consecutive.
    pub nodes: Vec<Node>,
    /// The nodes that are moves of the position.
    pub roots: Vec<u32>,
}

/// A node of a forced sequence.
#[derive(Clone, Copy)]
pub enum Node {
    /// The actor picks the best of `len` nodes from `first`; the other side acts at each.
    Choice {
        /// The first child's index.
        first: u32,
        /// How many.
        len: u32,
    },
    /// A position at the start of a ply; `again` when its side to move is the parent's actor.
    Leaf {
        /// The position.
        at: Folded,
        /// Whether the parent's actor moves again.
        again: bool,
    },
    /// The actor's opponent has too few stones: the parent's move won.
    Won,
}

impl Forced {
    /// Empties it.
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.roots.clear();
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }

    /// The value of node `i` for the side to move of the position whose move (or whose
    /// node) leads to it, one ply on; `leaf` gives a position's value for its side to move.
    pub fn edge_value(
        &self,
        i: u32,
        leaf: &mut dyn FnMut(&Folded) -> Result<Value, ProbeError>,
    ) -> Result<Value, ProbeError> {
        Ok(match self.nodes[i as usize] {
            Node::Won => Value::Win(1),
            Node::Leaf { at, again } => {
                let v = leaf(&at)?;
                if again {
                    v.later()
                } else {
                    v.parent()
                }
            }
            Node::Choice { first, len } => {
                let mut best: Option<Value> = None;
                for c in first..first + len {
                    let v = self.edge_value(c, leaf)?;
                    if best.is_none_or(|b| v.preference() > b.preference()) {
                        best = Some(v);
                    }
                }
                // A choice always has a child: the side to act owes a removal of stones
                // that exist.
                best.unwrap_or(Value::Loss(0)).parent()
            }
        })
    }
}
