//! Dara's movement phase for the sector solver, behind the [`SectorRules`] interface.

use crate::sectors::children::Children;
use crate::sectors::folded::Folded;
use crate::sectors::index::Shape;
use crate::sectors::rules::SectorRules;
use retro_engine::dara::{self, Dara};
use retro_engine::mill::Bits;
use retro_tables::{SectorKey, GAME_DARA};

/// Dara's movement phase for the solver (sectors `W_B_0_0`).
pub struct DaraRules {
    /// The game.
    pub game: Dara,
}

/// Every Dara sector is solved by retrograde analysis.
impl crate::sectors::forward::Forward for DaraRules {}

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
#[inline]
pub fn no_four(set: Bits) -> bool {
    !dara::has_four(set)
}
