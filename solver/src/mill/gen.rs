//! The solver's own move generator on folded positions (side to move first).
//!
//! Equivalent to the engine's compound moves for the profiles the solver supports (a test
//! compares them), but without building engine positions, sorting or allocating: children are
//! pushed into a reused buffer, and a move that wins at once is reported as such.

use crate::sectors::children::Children;
use crate::sectors::children::Node;
use crate::sectors::folded::Folded;
use retro_engine::mill::{Bits, BoardFull, Geometry, Mill, MillAction, Profile};

/// Move generation for one rule profile.
#[derive(Clone)]
pub struct Gen {
    geo: &'static Geometry,
    flying: bool,
    fly_at: u32,
    min_stones: u32,
    from_hand: bool,
    remove_from_mills: bool,
    remove_per_mill: bool,
    move_in_placing: bool,
    /// A blocked side removes an opponent stone next to its own and moves again.
    stalemate_removes: bool,
    /// What a full board when placing ends does.
    board_full: BoardFull,
    /// Black, who places last, moves first when placing ends (`defender-first`).
    defender_first: bool,
    /// Mills while placing remove nothing; when placing ends both sides remove by their mill
    /// counts (`mill-counts`), from the sector of `stones` against `stones`.
    mill_counts: Option<u32>,
}

impl Gen {
    /// The generator for a game's rules.
    pub fn new(game: &Mill) -> Gen {
        let p: &Profile = &game.profile;
        Gen {
            geo: game.geo,
            flying: p.flying,
            fly_at: p.fly_at as u32,
            min_stones: p.min_stones as u32,
            from_hand: p.mill_action == MillAction::RemoveFromHand,
            remove_from_mills: p.remove_from_mills,
            remove_per_mill: p.remove_per_mill,
            move_in_placing: p.move_in_placing,
            stalemate_removes: p.stalemate == retro_engine::mill::Stalemate::RemoveAndMove,
            board_full: p.board_full,
            defender_first: p.defender_first,
            mill_counts: (p.mill_action == MillAction::MillCounts).then_some(p.stones as u32),
        }
    }

    /// Whether `f` is where placing ended under `mill-counts` (White to act, both hands empty,
    /// every stone on the board): its moves are White's removals by the mill counts.
    /// ([`crate::mill::sectors::placing_ended`] on the generator's copy of the rules.)
    #[inline]
    fn placing_ended(&self, f: &Folded) -> bool {
        self.mill_counts.is_some_and(|n| {
            f.own_hand == 0 && f.opp_hand == 0 && f.own.count_ones() == n && f.opp.count_ones() == n
        })
    }

    #[inline]
    fn mills_at(&self, own: Bits, to: usize) -> u32 {
        let [a, b, c] = self.geo.mills_through[to];
        (a != 0 && own & a == a) as u32
            + (b != 0 && own & b == b) as u32
            + (c != 0 && own & c == c) as u32
    }

    #[inline]
    fn removable(&self, opp: Bits) -> Bits {
        if self.remove_from_mills {
            return opp;
        }
        let free = opp & !self.geo.in_mills(opp);
        if free != 0 {
            free
        } else {
            opp
        }
    }

    /// Pushes the children of a move by the side to move that leaves its stones as `own` with
    /// `own_hand` in hand, having made `mills` mills (placement when `placed`).
    #[inline(never)]
    fn after(
        &self,
        f: &Folded,
        own: Bits,
        own_hand: u8,
        mills: u32,
        placed: bool,
        out: &mut Children,
    ) {
        let (opp, opp_hand) = (f.opp, f.opp_hand);
        let child = |o: Bits, oh: u8| Folded {
            own: o,
            opp: own,
            own_hand: oh,
            opp_hand: own_hand,
        };
        if mills == 0 {
            out.list.push(child(opp, opp_hand));
            return;
        }
        if placed && self.from_hand && opp_hand > 0 {
            if opp.count_ones() + opp_hand as u32 - 1 < self.min_stones {
                out.wins_now = true;
            } else {
                out.list.push(child(opp, opp_hand - 1));
            }
            return;
        }
        if opp == 0 {
            out.list.push(child(opp, opp_hand));
            return;
        }
        let want = if self.remove_per_mill {
            mills.min(opp.count_ones())
        } else {
            1
        };
        if want == 1 {
            // One removal (what `remove` does for n = 1, without the recursion).
            if opp.count_ones() - 1 + (opp_hand as u32) < self.min_stones {
                out.wins_now = true;
                return;
            }
            let mut r = *out.removable.get_or_insert_with(|| self.removable(opp));
            while r != 0 {
                let x = r & r.wrapping_neg();
                r &= r - 1;
                out.list.push(child(opp ^ x, opp_hand));
            }
            return;
        }
        let start = out.list.len();
        self.remove(opp, opp_hand, want, &|o| child(o, opp_hand), out);
        if want > 1 && !out.wins_now {
            // The same set of stones can be removed in different orders.
            let tail = &mut out.list[start..];
            tail.sort_unstable_by_key(|c| c.own);
            let mut keep = start;
            for i in start..out.list.len() {
                if i == start || out.list[i].own != out.list[keep - 1].own {
                    out.list[keep] = out.list[i];
                    keep += 1;
                }
            }
            out.list.truncate(keep);
        }
    }

    /// Pushes the results of `n` more removals from `opp` (reporting a win as soon as the
    /// opponent is left with too few stones).
    fn remove(
        &self,
        opp: Bits,
        opp_hand: u8,
        n: u32,
        child: &dyn Fn(Bits) -> Folded,
        out: &mut Children,
    ) {
        if n == 0 || opp == 0 {
            out.list.push(child(opp));
            return;
        }
        if opp.count_ones() - 1 + (opp_hand as u32) < self.min_stones {
            out.wins_now = true;
            return;
        }
        let mut r = self.removable(opp);
        while r != 0 {
            let x = r & r.wrapping_neg();
            r &= r - 1;
            self.remove(opp ^ x, opp_hand, n - 1, child, out);
            if out.wins_now {
                return;
            }
        }
    }

    /// The slides (or flies) of [`Gen::children_counting`] with `count_plain`: those making no
    /// mill are counted by sets, those making one are listed with their removals.
    #[inline]
    fn count_slides(&self, f: &Folded, empty: Bits, fly: bool, out: &mut Children) {
        let g = self.geo;
        // The mills with two own stones and an empty third point: a stone from outside such a
        // mill moving onto that point closes it (and only such moves close a mill).
        let mut open: u32 = 0;
        for (i, &m) in g.mills[..g.mill_count].iter().enumerate() {
            if (f.own & m).count_ones() == 2 && m & empty != 0 {
                open |= 1 << i;
            }
        }
        let mut set = f.own;
        while set != 0 {
            let from = set.trailing_zeros() as usize;
            set &= set - 1;
            let dests = if fly { empty } else { g.adjacent[from] & empty };
            let mut closing = 0;
            let mut o = open;
            while o != 0 {
                let m = g.mills[o.trailing_zeros() as usize];
                o &= o - 1;
                if m & (1 << from) == 0 {
                    closing |= m & empty;
                }
            }
            closing &= dests;
            out.plain += (dests & !closing).count_ones() as usize;
            while closing != 0 {
                let to = closing.trailing_zeros() as usize;
                closing &= closing - 1;
                let own = f.own ^ (1 << from) ^ (1 << to);
                let mills = self.mills_at(own, to);
                self.after(f, own, f.own_hand, mills, false, out);
                if out.wins_now {
                    return;
                }
            }
        }
    }

    /// Every move of a position that is not over by material. An empty result (and no win)
    /// means the side to move has no legal move.
    pub fn children(&self, f: &Folded, out: &mut Children) {
        self.children_counting(f, out, false)
    }

    /// [`Gen::children`], except that with `count_plain` the slides and flies that make no
    /// mill are only counted (in `out.plain`), not listed: they all lead to the colour-swapped
    /// sector with the opponent's stones unchanged, and a caller that needs no more than their
    /// number saves building them.
    pub fn children_counting(&self, f: &Folded, out: &mut Children, count_plain: bool) {
        out.again.clear();
        out.forced.clear();
        if self.placing_ended(f) {
            out.list.clear();
            out.wins_now = false;
            out.plain = 0;
            out.removable = None;
            self.mill_count_removals(f, out);
            return;
        }
        self.moves(f, out, count_plain);
        if self.defender_first && self.mill_counts.is_none() && f.own_hand == 1 && f.opp_hand == 0 {
            // The last placement (Black's): Black moves first, unless the board is full.
            let all = self.geo.all;
            let mut keep = 0;
            for i in 0..out.list.len() {
                let c = out.list[i];
                if c.own | c.opp == all {
                    out.list[keep] = c;
                    keep += 1;
                } else {
                    out.again.push(Folded {
                        own: c.opp,
                        opp: c.own,
                        own_hand: c.opp_hand,
                        opp_hand: c.own_hand,
                    });
                }
            }
            out.list.truncate(keep);
        }
        if self.stalemate_removes
            && f.own_hand == 0
            && !out.wins_now
            && out.list.is_empty()
            && out.plain == 0
        {
            self.stalemate_removals(f, out);
        }
    }

    /// The last placement (Black's) filled the board, leaving its stones `own`: both sides
    /// remove a stone, White first (`first-then-second-remove`: a ply of White's, then one of
    /// Black's, then White moves) or Black first (`second-then-first-remove`: Black's removal
    /// ends its placing ply, then White's removal ply, then Black moves).
    fn full_board_removals(&self, f: &Folded, own: Bits, out: &mut Children) {
        let opp = f.opp;
        let min = self.min_stones;
        let t = &mut out.forced;
        let bits = |mut s: Bits| {
            std::iter::from_fn(move || {
                (s != 0).then(|| {
                    let x = s & s.wrapping_neg();
                    s &= s - 1;
                    x
                })
            })
        };
        // A choice by the side that removes from `from` and leaves `next(from ^ x)`.
        let choice = |t: &mut crate::sectors::children::Forced,
                      at: usize,
                      from: Bits,
                      leaf: &dyn Fn(Bits) -> Folded| {
            let first = t.nodes.len() as u32;
            for x in bits(self.removable(from)) {
                let left = from ^ x;
                t.nodes.push(if left.count_ones() < min {
                    Node::Won
                } else {
                    Node::Leaf {
                        at: leaf(left),
                        again: false,
                    }
                });
            }
            let len = t.nodes.len() as u32 - first;
            t.nodes[at] = Node::Choice { first, len };
        };
        if self.board_full == BoardFull::FirstThenSecondRemove {
            // White removes one of Black's (the mover's), then Black one of White's.
            let root = t.nodes.len();
            t.nodes.push(Node::Won);
            t.roots.push(root as u32);
            let first = t.nodes.len();
            let firsts: Vec<Bits> = bits(self.removable(own)).collect();
            t.nodes.extend(std::iter::repeat_n(Node::Won, firsts.len()));
            t.nodes[root] = Node::Choice {
                first: first as u32,
                len: firsts.len() as u32,
            };
            for (j, x) in firsts.into_iter().enumerate() {
                let mine = own ^ x;
                if mine.count_ones() < min {
                    continue; // stays Won: White's removal won.
                }
                choice(t, first + j, opp, &|o| Folded {
                    own: o,
                    opp: mine,
                    own_hand: 0,
                    opp_hand: 0,
                });
            }
        } else {
            // Black (the mover) removes one of White's within its ply, then White one of Black's.
            for x in bits(self.removable(opp)) {
                let theirs = opp ^ x;
                let at = t.nodes.len();
                t.nodes.push(Node::Won);
                t.roots.push(at as u32);
                if theirs.count_ones() < min {
                    continue; // the placing ply won.
                }
                choice(t, at, own, &|m| Folded {
                    own: m,
                    opp: theirs,
                    own_hand: 0,
                    opp_hand: 0,
                });
            }
        }
    }

    /// Where placing ended under `mill-counts` (White to act, its stones `f.own`): White's ply
    /// of the removals its mill count gives, then Black's, then White moves.
    fn mill_count_removals(&self, f: &Folded, out: &mut Children) {
        let (white, black) = (f.own, f.opp);
        let [rw, rb] = MillAction::mill_count_removals(
            self.geo.count_mills(white),
            self.geo.count_mills(black),
        );
        let Some(after_white) = self.removal_ply(white, black, rw) else {
            out.wins_now = true;
            return;
        };
        let t = &mut out.forced;
        for (w1, b1) in after_white {
            let at = t.nodes.len();
            t.nodes.push(Node::Won);
            t.roots.push(at as u32);
            let first = t.nodes.len() as u32;
            match self.removal_ply(b1, w1, rb) {
                // Black's ply leaves White too few stones.
                None => t.nodes.push(Node::Won),
                Some(after_black) => {
                    t.nodes
                        .extend(after_black.into_iter().map(|(b2, w2)| Node::Leaf {
                            at: Folded {
                                own: w2,
                                opp: b2,
                                own_hand: 0,
                                opp_hand: 0,
                            },
                            again: false,
                        }))
                }
            }
            let len = t.nodes.len() as u32 - first;
            t.nodes[at] = Node::Choice { first, len };
        }
    }

    /// The stones (`mine`, `theirs`) one ply of `n` removals can leave: `n > 0` of the
    /// opponent's (one at a time, each among its removable stones then), `n < 0` one of its
    /// own (any). Different orders of the same stones are one ply. `None` when the ply wins,
    /// leaving the opponent too few stones.
    fn removal_ply(&self, mine: Bits, theirs: Bits, n: i8) -> Option<Vec<(Bits, Bits)>> {
        if n < 0 {
            // The profile check keeps a side's own removal from losing it the game.
            debug_assert!(mine.count_ones() > self.min_stones);
            let mut out = Vec::new();
            let mut set = mine;
            while set != 0 {
                let x = set & set.wrapping_neg();
                set &= set - 1;
                out.push((mine ^ x, theirs));
            }
            return Some(out);
        }
        let mut level = vec![theirs];
        for _ in 0..n {
            if level[0].count_ones() <= self.min_stones {
                return None;
            }
            let mut next = Vec::new();
            for &o in &level {
                let mut r = self.removable(o);
                while r != 0 {
                    let x = r & r.wrapping_neg();
                    r &= r - 1;
                    next.push(o ^ x);
                }
            }
            next.sort_unstable();
            next.dedup();
            level = next;
        }
        Some(level.into_iter().map(|o| (mine, o)).collect())
    }

    /// A blocked side's removals (`stalemate=remove-and-move`): any opponent stone next to one
    /// of its own, mills or not; then it moves again.
    fn stalemate_removals(&self, f: &Folded, out: &mut Children) {
        let mut near = 0;
        let mut set = f.own;
        while set != 0 {
            near |= self.geo.adjacent[set.trailing_zeros() as usize];
            set &= set - 1;
        }
        let mut r = near & f.opp;
        if r != 0 && f.opp.count_ones() - 1 + (f.opp_hand as u32) < self.min_stones {
            out.wins_now = true;
            return;
        }
        while r != 0 {
            let x = r & r.wrapping_neg();
            r &= r - 1;
            out.again.push(Folded {
                opp: f.opp ^ x,
                ..*f
            });
        }
    }

    /// The moves of [`Gen::children_counting`] but the stalemate removals.
    fn moves(&self, f: &Folded, out: &mut Children, count_plain: bool) {
        out.list.clear();
        out.wins_now = false;
        out.plain = 0;
        let g = self.geo;
        let empty = g.all & !(f.own | f.opp);
        out.removable = None;
        if f.own_hand > 0 {
            let mut e = empty;
            while e != 0 {
                let to = e.trailing_zeros() as usize;
                e &= e - 1;
                let own = f.own | (1 << to);
                let mills = if self.mill_counts.is_some() {
                    0
                } else {
                    self.mills_at(own, to)
                };
                if mills == 0
                    && f.own_hand == 1
                    && f.opp_hand == 0
                    && own | f.opp == g.all
                    && self.board_full.removes()
                    && self.mill_counts.is_none()
                {
                    self.full_board_removals(f, own, out);
                    continue;
                }
                if mills == 0 {
                    out.list.push(Folded {
                        own: f.opp,
                        opp: own,
                        own_hand: f.opp_hand,
                        opp_hand: f.own_hand - 1,
                    });
                    continue;
                }
                self.after(f, own, f.own_hand - 1, mills, true, out);
                if out.wins_now {
                    return;
                }
            }
            if !self.move_in_placing {
                return;
            }
        }
        let fly = self.flying && f.own_hand == 0 && f.own.count_ones() <= self.fly_at;
        if count_plain {
            self.count_slides(f, empty, fly, out);
            return;
        }
        let mut set = f.own;
        while set != 0 {
            let from = set.trailing_zeros() as usize;
            set &= set - 1;
            let mut dests = if fly { empty } else { g.adjacent[from] & empty };
            while dests != 0 {
                let to = dests.trailing_zeros() as usize;
                dests &= dests - 1;
                let own = f.own ^ (1 << from) ^ (1 << to);
                let mills = self.mills_at(own, to);
                if mills == 0 {
                    out.list.push(Folded {
                        own: f.opp,
                        opp: own,
                        own_hand: f.opp_hand,
                        opp_hand: f.own_hand,
                    });
                    continue;
                }
                self.after(f, own, f.own_hand, mills, false, out);
                if out.wins_now {
                    return;
                }
            }
        }
    }
}
