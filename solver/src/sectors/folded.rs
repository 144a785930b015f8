//! The solver's position: the side to move's stones and hand against the opponent's.

use retro_engine::mill::{Bits, Mill, MillAction, Position, Stalemate};
use retro_engine::Color;
use retro_tables::SectorKey;

/// A solver position: the side to move's stones and hand against the opponent's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Folded {
    /// Stones of the side to move.
    pub own: Bits,
    /// Stones of the opponent.
    pub opp: Bits,
    /// Stones in hand of the side to move.
    pub own_hand: u8,
    /// Stones in hand of the opponent.
    pub opp_hand: u8,
}

impl Folded {
    /// The position of sector `k` with these stones (from `BoardIndex::unindex`).
    pub fn in_sector(k: SectorKey, own: Bits, opp: Bits) -> Folded {
        Folded {
            own,
            opp,
            own_hand: k.wf,
            opp_hand: k.bf,
        }
    }

    /// The sector of this position.
    pub fn key(&self) -> SectorKey {
        SectorKey {
            w: self.own.count_ones() as u8,
            b: self.opp.count_ones() as u8,
            wf: self.own_hand,
            bf: self.opp_hand,
        }
    }

    /// The sector packed into one number (`SectorKey::packed` of `key()`), cheap to compare.
    #[inline]
    pub fn packed_key(&self) -> u32 {
        self.own.count_ones()
            | self.opp.count_ones() << 8
            | (self.own_hand as u32) << 16
            | (self.opp_hand as u32) << 24
    }

    /// Folds an engine position (the side to move becomes "own").
    pub fn from_position(p: &Position) -> Folded {
        let (s, o) = (p.side.index(), p.side.other().index());
        Folded {
            own: p.stones[s],
            opp: p.stones[o],
            own_hand: p.hand[s],
            opp_hand: p.hand[o],
        }
    }

    /// The engine position: the side to move is White, except while placing with one stone
    /// more in hand than the opponent, which is Black (White places first). Under
    /// `stalemate=remove-and-move` a blocked side to move owes its stalemate removal, as the
    /// engine leaves it; where placing has just ended under `mill-counts`, White owes the
    /// removals of the mill counts.
    pub fn to_position(&self, m: &Mill) -> Position {
        let mut p = m.start();
        let side = if self.own_hand == self.opp_hand + 1 {
            Color::Black
        } else {
            Color::White
        };
        let (s, o) = (side.index(), side.other().index());
        p.stones[s] = self.own;
        p.stones[o] = self.opp;
        p.hand[s] = self.own_hand;
        p.hand[o] = self.opp_hand;
        p.side = side;
        p.placing = self.own_hand > 0 || self.opp_hand > 0;
        let k = self.key();
        if m.profile.mill_counts_due(k.w, k.b, k.wf, k.bf) {
            // Placing has just ended under mill counts: White owes the removals they give.
            p.pending = MillAction::mill_count_removals(
                m.geo.count_mills(p.stones[0]),
                m.geo.count_mills(p.stones[1]),
            );
            return p;
        }
        if m.profile.stalemate == Stalemate::RemoveAndMove
            && self.own_hand == 0
            && !m.decided(&p)
            && m.count_steps(&p) == 0
        {
            p.pending[s] = 1;
            p.stalemate_removal = true;
        }
        p
    }
}
