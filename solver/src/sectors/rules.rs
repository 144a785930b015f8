//! What the sector solver needs from a game: its board shape, moves and un-moves on folded
//! positions, which sectors moves lead to, and when a side has lost. Mill and Dara implement it.

use crate::sectors::children::Children;
use crate::sectors::folded::Folded;
use crate::sectors::index::{BoardIndex, Shape};
use crate::sectors::marked_points::MarkedIndex;
use retro_engine::mill::Bits;
use retro_tables::SectorKey;

/// A game whose positions the sector solver can value.
pub trait SectorRules: Sync + Send {
    /// Name used in table folder names (`mill`, `dara`).
    fn name(&self) -> &'static str;
    /// Game id in table headers.
    fn game_id(&self) -> u32;
    /// The rule fingerprint tables must carry.
    fn fingerprint(&self) -> String;
    /// The board the index is laid out on.
    fn shape(&self) -> Shape;
    /// Why sector `k` cannot be solved under these rules, if it cannot.
    fn unsupported(&self, _k: SectorKey) -> Option<String> {
        None
    }
    /// The slots sector `k` would take with the state its positions carry beyond stones and
    /// hands (and the marked points of [`SectorRules::marked_points`]) in the index (Mill's
    /// one-time mills: each side's formed-mills mask); `None` when they carry none.
    fn extra_state_slots(&self, _k: SectorKey) -> Option<u64> {
        None
    }
    /// How many marked points the positions of sector `k` carry in its index (Mill's
    /// `mark-and-delay` while placing: one for each stone removed, so possibly none), or `None`
    /// when its index holds the stones alone. Such sectors are valued forwards
    /// ([`crate::sectors::forward`]): the retrograde solver's positions have no marks.
    fn marked_points(&self, _k: SectorKey) -> Option<usize> {
        None
    }
    /// The index of sector `k`'s table: its stones' [`BoardIndex`] with its marked points, if
    /// any ([`MarkedIndex`]; `None` when they do not fit beside the stones).
    fn marked_index(&self, k: SectorKey) -> Option<MarkedIndex> {
        let stones = BoardIndex::new(self.shape(), k.w as usize, k.b as usize);
        MarkedIndex::new(stones, self.marked_points(k).unwrap_or(0))
    }
    /// The slots of sector `k`'s table ([`SectorRules::marked_index`]); without marked
    /// points counted from the number of classes, without building them.
    fn slots(&self, k: SectorKey) -> u64 {
        let (shape, w, b) = (self.shape(), k.w as usize, k.b as usize);
        if self.marked_points(k).unwrap_or(0) == 0 && w + b <= shape.points() {
            return crate::sectors::index::class_count(shape, w)
                * crate::sectors::index::BINOM[shape.points() - w][b];
        }
        self.marked_index(k).map_or(0, |i| i.size())
    }
    /// Whether a side with this material has lost.
    fn lost(&self, on_board: u8, in_hand: u8) -> bool;
    /// Whether every position of sector `k` is a drawn end of the game (Mill: the board full
    /// when placing ends, under `board-full=draw`).
    fn drawn(&self, _k: SectorKey) -> bool {
        false
    }
    /// Whether a board configuration is a position of the game (Dara: no run of four).
    fn valid(&self, _own: Bits, _opp: Bits) -> bool {
        true
    }
    /// The sectors a move from sector `k` can lead to (terminal sectors left out).
    fn successors(&self, k: SectorKey) -> Vec<SectorKey>;
    /// Every move of a position not over by material (see [`Children`]).
    fn children(&self, f: &Folded, out: &mut Children);
    /// [`SectorRules::children`], where with `count_plain` the rules may count in `out.plain`
    /// instead of listing the moves that leave the opponent's stones and both hands as they
    /// are (moves to the colour-swapped sector, own stones the opponent's). By default every
    /// move is listed.
    fn children_counting(&self, f: &Folded, out: &mut Children, count_plain: bool) {
        let _ = count_plain;
        self.children(f, out);
        out.plain = 0;
    }
    /// The parents of a position by the moves that stay inside its unit (no capture, no
    /// placement): the inverse of the non-capturing part of `children`.
    fn unmoves(&self, child: &Folded, out: &mut Vec<Folded>);
}
