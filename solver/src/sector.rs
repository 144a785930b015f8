//! Sectors: positions with the same material, seen from the side to move, and their order.

use retro_engine::mill::{Bits, Mill, MillAction, Position, Profile};
use retro_engine::Color;
use std::collections::{BTreeSet, HashMap};
use std::fmt;

/// Material of a sector from the side to move's point of view: stones on the board and in hand
/// for the side to move (`w`, `wf`) and for the opponent (`b`, `bf`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SectorKey {
    /// Side to move, on the board.
    pub w: u8,
    /// Opponent, on the board.
    pub b: u8,
    /// Side to move, in hand.
    pub wf: u8,
    /// Opponent, in hand.
    pub bf: u8,
}

impl fmt::Display for SectorKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}_{}_{}", self.w, self.b, self.wf, self.bf)
    }
}

impl SectorKey {
    /// The sector the opponent sees (colours swapped).
    pub const fn swapped(self) -> SectorKey {
        SectorKey {
            w: self.b,
            b: self.w,
            wf: self.bf,
            bf: self.wf,
        }
    }

    /// The key packed into one number: `w | b << 8 | wf << 16 | bf << 24`.
    pub const fn packed(self) -> u32 {
        self.w as u32 | (self.b as u32) << 8 | (self.wf as u32) << 16 | (self.bf as u32) << 24
    }

    /// Parses `W,B,WF,BF` (or with `_`).
    pub fn parse(s: &str) -> Option<SectorKey> {
        let v: Vec<u8> = s
            .split([',', '_'])
            .map(|x| x.trim().parse().ok())
            .collect::<Option<_>>()?;
        match v[..] {
            [w, b, wf, bf] => Some(SectorKey { w, b, wf, bf }),
            _ => None,
        }
    }
}

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

    /// The engine position with the side to move as White.
    pub fn to_position(&self, m: &Mill) -> Position {
        let mut p = m.start();
        p.stones = [self.own, self.opp];
        p.hand = [self.own_hand, self.opp_hand];
        p.side = Color::White;
        p.placing = self.own_hand > 0 || self.opp_hand > 0;
        p
    }
}

/// Why a rule profile cannot be solved by this solver.
pub fn unsupported(p: &Profile) -> Option<&'static str> {
    use retro_engine::mill::rules::{BoardFull, Stalemate};
    if p.mill_action == MillAction::MarkAndDelay {
        return Some("marked points (mark-and-delay) are extra state the solver does not index");
    }
    if p.mill_action == MillAction::MillCounts {
        return Some("removals by mill counts at the end of placing are not supported");
    }
    if p.one_time_mills {
        return Some("one-time mills are extra state the solver does not index");
    }
    if p.board_full != BoardFull::FirstPlayerLoses {
        return Some("removals on a full board are not supported");
    }
    if p.stalemate != Stalemate::Loss {
        return Some("stalemate removals are not supported");
    }
    if p.defender_first {
        return Some("defender-first needs the colours, which sectors fold away");
    }
    None
}

/// Whether a side with this material has lost.
pub fn lost(profile: &Profile, on_board: u8, in_hand: u8) -> bool {
    on_board + in_hand < profile.min_stones
}

/// The sectors a move from sector `k` can lead to (terminal sectors left out).
pub fn successors(profile: &Profile, k: SectorKey) -> Vec<SectorKey> {
    let mut out = BTreeSet::new();
    let points = profile.board.geometry().points as u8;
    let max_rm: u8 = if profile.remove_per_mill { 2 } else { 1 };
    let mut add = |c: SectorKey| {
        if !lost(profile, c.w, c.wf) && !lost(profile, c.b, c.bf) {
            out.insert(c);
        }
    };
    let removals = |b: u8, add: &mut dyn FnMut(u8)| {
        if b == 0 {
            add(0);
        }
        for r in 1..=max_rm.min(b) {
            add(r);
        }
    };
    if k.wf > 0 && k.w + k.b < points {
        // Placement: the opponent is to move next.
        add(SectorKey {
            w: k.b,
            b: k.w + 1,
            wf: k.bf,
            bf: k.wf - 1,
        });
        if k.w + 1 >= 3 {
            match profile.mill_action {
                MillAction::RemoveFromHand if k.bf > 0 => add(SectorKey {
                    w: k.b,
                    b: k.w + 1,
                    wf: k.bf - 1,
                    bf: k.wf - 1,
                }),
                _ => removals(k.b, &mut |r| {
                    add(SectorKey {
                        w: k.b - r,
                        b: k.w + 1,
                        wf: k.bf,
                        bf: k.wf - 1,
                    })
                }),
            }
        }
    }
    if (k.wf == 0 || profile.move_in_placing) && k.w > 0 {
        add(SectorKey {
            w: k.b,
            b: k.w,
            wf: k.bf,
            bf: k.wf,
        });
        if k.w >= 3 {
            removals(k.b, &mut |r| {
                add(SectorKey {
                    w: k.b - r,
                    b: k.w,
                    wf: k.bf,
                    bf: k.wf,
                })
            });
        }
    }
    out.into_iter().collect()
}

/// A set of sectors solved together: a sector and its colour-swapped twin (moves lead from
/// one to the other), or a single sector.
pub type Unit = Vec<SectorKey>;

/// Every sector needed to solve `targets`, grouped into units in an order where each unit
/// comes after every unit it depends on.
pub fn plan<R: crate::rules::SectorRules + ?Sized>(rules: &R, targets: &[SectorKey]) -> Vec<Unit> {
    // Collect the closure.
    let mut seen: BTreeSet<SectorKey> = BTreeSet::new();
    let mut stack: Vec<SectorKey> = targets.to_vec();
    while let Some(k) = stack.pop() {
        if rules.lost(k.w, k.wf) || rules.lost(k.b, k.bf) || !seen.insert(k) {
            continue;
        }
        stack.extend(rules.successors(k));
    }
    // Tarjan's strongly connected components, emitted children first.
    let keys: Vec<SectorKey> = seen.into_iter().collect();
    let id: HashMap<SectorKey, usize> = keys.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    let edges: Vec<Vec<usize>> = keys
        .iter()
        .map(|k| {
            rules
                .successors(*k)
                .iter()
                .filter_map(|c| id.get(c).copied())
                .collect()
        })
        .collect();
    let n = keys.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut st = Vec::new();
    let mut units = Vec::new();
    let mut counter = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // Iterative DFS: (node, next edge).
        let mut work = vec![(root, 0usize)];
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        st.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut e)) = work.last_mut() {
            if *e < edges[v].len() {
                let w = edges[v][*e];
                *e += 1;
                if index[w] == usize::MAX {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    st.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                work.pop();
                if let Some(&(u, _)) = work.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut unit = Vec::new();
                    loop {
                        let w = st.pop().expect("tarjan stack");
                        on_stack[w] = false;
                        unit.push(keys[w]);
                        if w == v {
                            break;
                        }
                    }
                    unit.sort();
                    units.push(unit);
                }
            }
        }
    }
    units
}

/// The moving-phase sectors with 3 to `n` stones a side (no stones in hand).
pub fn moving_phase(profile: &Profile, n: u8) -> Vec<SectorKey> {
    let lo = profile.min_stones;
    let mut v = Vec::new();
    for w in lo..=n.min(profile.stones) {
        for b in lo..=n.min(profile.stones) {
            v.push(SectorKey { w, b, wf: 0, bf: 0 });
        }
    }
    v
}

/// The sector of the start position.
pub fn start_sector(profile: &Profile) -> SectorKey {
    SectorKey {
        w: 0,
        b: 0,
        wf: profile.stones,
        bf: profile.stones,
    }
}
