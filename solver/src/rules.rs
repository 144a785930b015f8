//! What the sector solver needs from a game: its board shape, moves and un-moves on folded
//! positions, which sectors moves lead to, and when a side has lost. Mill and Dara implement it.

use crate::index::Shape;
use crate::mill_gen::{Children, Gen};
use crate::sector::{Folded, SectorKey};
use crate::table::{GAME_DARA, GAME_MILL};
use retro_engine::dara::{self, Dara};
use retro_engine::mill::{Bits, Mill};

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
    /// Why these rules cannot be solved, if they cannot.
    fn unsupported(&self) -> Option<String> {
        None
    }
    /// Whether a side with this material has lost.
    fn lost(&self, on_board: u8, in_hand: u8) -> bool;
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

/// Mill rules for the solver.
pub struct MillRules {
    /// The game.
    pub game: Mill,
    gen: Gen,
}

impl MillRules {
    /// Wraps a Mill game.
    pub fn new(game: Mill) -> MillRules {
        let gen = Gen::new(&game);
        MillRules { game, gen }
    }
}

impl SectorRules for MillRules {
    fn name(&self) -> &'static str {
        "mill"
    }
    fn game_id(&self) -> u32 {
        GAME_MILL
    }
    fn fingerprint(&self) -> String {
        self.game.profile.fingerprint()
    }
    fn shape(&self) -> Shape {
        Shape::Mill(self.game.geo)
    }
    fn unsupported(&self) -> Option<String> {
        crate::sector::unsupported(&self.game.profile).map(str::to_string)
    }
    fn lost(&self, on_board: u8, in_hand: u8) -> bool {
        crate::sector::lost(&self.game.profile, on_board, in_hand)
    }
    fn successors(&self, k: SectorKey) -> Vec<SectorKey> {
        crate::sector::successors(&self.game.profile, k)
    }
    fn children(&self, f: &Folded, out: &mut Children) {
        self.gen.children(f, out)
    }
    fn children_counting(&self, f: &Folded, out: &mut Children, count_plain: bool) {
        self.gen.children_counting(f, out, count_plain)
    }
    fn unmoves(&self, child: &Folded, out: &mut Vec<Folded>) {
        crate::retro::unmoves(&self.game, child, out)
    }
}

/// Dara's movement phase for the solver (sectors `W_B_0_0`).
pub struct DaraRules {
    /// The game.
    pub game: Dara,
}

impl SectorRules for DaraRules {
    fn name(&self) -> &'static str {
        "dara"
    }
    fn game_id(&self) -> u32 {
        GAME_DARA
    }
    fn fingerprint(&self) -> String {
        self.game.profile.fingerprint()
    }
    fn shape(&self) -> Shape {
        Shape::Dara
    }
    fn lost(&self, on_board: u8, in_hand: u8) -> bool {
        on_board + in_hand <= 2
    }
    fn valid(&self, own: Bits, opp: Bits) -> bool {
        no_four(own) && no_four(opp)
    }
    fn successors(&self, k: SectorKey) -> Vec<SectorKey> {
        let mut v = vec![SectorKey {
            w: k.b,
            b: k.w,
            wf: 0,
            bf: 0,
        }];
        if k.b > 3 {
            v.push(SectorKey {
                w: k.b - 1,
                b: k.w,
                wf: 0,
                bf: 0,
            });
        }
        v
    }
    fn children(&self, f: &Folded, out: &mut Children) {
        out.list.clear();
        out.wins_now = false;
        let empty = dara::ALL & !(f.own | f.opp);
        let mut set = f.own;
        while set != 0 {
            let from = set.trailing_zeros() as usize;
            set &= set - 1;
            let mut dests = dara::NEIGHBOURS[from] & empty;
            while dests != 0 {
                let to = dests.trailing_zeros() as usize;
                dests &= dests - 1;
                let own = f.own ^ (1 << from) ^ (1 << to);
                let (r, c) = (dara::row_run(own, to), dara::col_run(own, to));
                if r >= 4 || c >= 4 {
                    continue;
                }
                if r == 3 || c == 3 {
                    if f.opp.count_ones() <= 3 {
                        out.wins_now = true;
                        return;
                    }
                    let mut victims = self.game.removable(f.opp);
                    while victims != 0 {
                        let x = victims & victims.wrapping_neg();
                        victims &= victims - 1;
                        out.list.push(Folded {
                            own: f.opp ^ x,
                            opp: own,
                            own_hand: 0,
                            opp_hand: 0,
                        });
                    }
                } else {
                    out.list.push(Folded {
                        own: f.opp,
                        opp: own,
                        own_hand: 0,
                        opp_hand: 0,
                    });
                }
            }
        }
    }
    fn unmoves(&self, child: &Folded, out: &mut Vec<Folded>) {
        let mover = child.opp;
        let empty = dara::ALL & !(child.own | child.opp);
        let mut set = mover;
        while set != 0 {
            let to = set.trailing_zeros() as usize;
            set &= set - 1;
            // A move that made an exact three through `to` removed a stone: not inside the unit.
            if dara::row_run(mover, to) == 3 || dara::col_run(mover, to) == 3 {
                continue;
            }
            let mut froms = dara::NEIGHBOURS[to] & empty;
            while froms != 0 {
                let from = froms.trailing_zeros() as usize;
                froms &= froms - 1;
                let before = mover ^ (1 << to) ^ (1 << from);
                if !no_four(before) {
                    continue;
                }
                out.push(Folded {
                    own: before,
                    opp: child.own,
                    own_hand: 0,
                    opp_hand: 0,
                });
            }
        }
    }
}

/// Whether a set of Dara stones has no row or column run of four or more.
pub fn no_four(set: Bits) -> bool {
    let mut s = set;
    while s != 0 {
        let i = s.trailing_zeros() as usize;
        s &= s - 1;
        if dara::row_run(set, i) >= 4 || dara::col_run(set, i) >= 4 {
            return false;
        }
    }
    true
}
