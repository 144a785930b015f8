//! Mill's sectors: which rule profiles the solver handles, when a side has lost, where a move
//! from a sector can lead, and the sector sets `retro solve mill` names (moving phase, start).

use retro_engine::mill::{MillAction, Profile};
use retro_tables::SectorKey;
use std::collections::BTreeSet;

/// Why no sector of a rule profile can be solved by this solver: rules that matter in the
/// moving phase too.
pub fn unsupported(p: &Profile) -> Option<&'static str> {
    if p.one_time_mills {
        return Some("one-time mills are extra state the solver does not index");
    }
    None
}

/// Why the placing sectors (stones in hand) of a rule profile cannot be solved, when its
/// moving phase can: rules that act only while placing or when it ends.
pub fn unsupported_in_placing(p: &Profile) -> Option<&'static str> {
    if p.mill_action == MillAction::MarkAndDelay && p.move_in_placing {
        // Marked sectors are valued forwards, one ply each, which needs every placing ply to
        // leave its sector; a move instead of a placement stays in it.
        return Some(
            "marked points (mark-and-delay) with moves while placing: the marks are indexed \
             only where every placing ply leaves its sector",
        );
    }
    if p.mill_action == MillAction::MillCounts {
        if p.move_in_placing {
            return Some(
                "removals by mill counts need to know who placed last (Black), which the \
                 hands do not tell when a side may move instead of placing",
            );
        }
        if p.stones <= p.min_stones {
            return Some(
                "removals by mill counts where a side's removal of its own stone ends the game",
            );
        }
    }
    if (p.board_full.removes() || p.defender_first)
        && (p.mill_action == MillAction::RemoveFromHand || p.move_in_placing)
    {
        // The solver knows who is White while placing from the hands (White places first),
        // which taking stones from hands or moving instead of placing would break.
        return Some(
            "removals on a full board and defender-first need the colours, which sectors \
             fold away, under rules where the hands do not tell them",
        );
    }
    None
}

/// Why sector `k` cannot be solved under profile `p`, if it cannot.
pub fn unsupported_sector(p: &Profile, k: SectorKey) -> Option<&'static str> {
    unsupported(p).or_else(|| {
        if k.wf > 0 || k.bf > 0 {
            unsupported_in_placing(p).or_else(|| {
                (p.mill_action == MillAction::MillCounts
                    && (k.w + k.wf != p.stones || k.b + k.bf != p.stones))
                    .then_some(
                        "under mill counts no stone leaves the game while placing, so this \
                         material never occurs then",
                    )
            })
        } else {
            None
        }
    })
}

/// Whether sector `k` is the full board after placing under `board-full=draw`: every position
/// of it is a drawn end (the board can only fill up while placing). Under `first-player-loses`
/// no rule is needed: White, to move on the full board, has no move and loses.
pub fn drawn(profile: &Profile, k: SectorKey) -> bool {
    use retro_engine::mill::rules::BoardFull;
    profile.board_full == BoardFull::Draw
        && profile.mill_action != MillAction::MillCounts
        && k.wf == 0
        && k.bf == 0
        && (k.w + k.b) as usize == profile.board.geometry().points
}

/// Whether a side with this material has lost.
pub fn lost(profile: &Profile, on_board: u8, in_hand: u8) -> bool {
    on_board + in_hand < profile.min_stones
}

/// Whether sector `k` is where placing ends under `mill-counts`: every stone placed, none
/// removed (mills remove nothing while placing), White to act with the removals its count
/// gives. Nothing else has that material: the removals come before any move.
pub fn placing_ended(profile: &Profile, k: SectorKey) -> bool {
    profile.mill_counts_due(k.w, k.b, k.wf, k.bf)
}

/// The most complete mills `n` stones can make on the board of `profile`.
pub fn max_mills(profile: &Profile, n: u32) -> u32 {
    let g = profile.board.geometry();
    let mills = &g.mills[..g.mill_count];
    (0u32..1 << mills.len())
        .filter(|set| {
            let mut points = 0;
            let mut s = *set;
            while s != 0 {
                points |= mills[s.trailing_zeros() as usize];
                s &= s - 1;
            }
            points.count_ones() <= n
        })
        .map(u32::count_ones)
        .max()
        .unwrap_or(0)
}

/// The moving-phase sectors (White to move) that the removals by mill counts lead to from
/// where placing ended.
fn after_mill_counts(profile: &Profile, k: SectorKey) -> BTreeSet<SectorKey> {
    let most = max_mills(profile, profile.stones as u32);
    let mut out = BTreeSet::new();
    for w in 0..=most {
        for b in 0..=most {
            let [rw, rb] = MillAction::mill_count_removals(w, b);
            // A positive count takes the opponent's stones, -1 one of one's own.
            let (white_lost, black_lost) = if rw < 0 { (1, 1) } else { (rb as u8, rw as u8) };
            let c = SectorKey {
                w: k.w.saturating_sub(white_lost),
                b: k.b.saturating_sub(black_lost),
                wf: 0,
                bf: 0,
            };
            if !lost(profile, c.w, 0) && !lost(profile, c.b, 0) {
                out.insert(c);
            }
        }
    }
    out
}

/// The sectors a move from sector `k` can lead to (terminal sectors left out).
pub fn successors(profile: &Profile, k: SectorKey) -> Vec<SectorKey> {
    if placing_ended(profile, k) {
        return after_mill_counts(profile, k).into_iter().collect();
    }
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
        if k.w + 1 >= 3 && profile.mill_action != MillAction::MillCounts {
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
    if profile.stalemate == retro_engine::mill::Stalemate::RemoveAndMove && k.wf == 0 && k.b > 0 {
        // A blocked side removes a stone next to its own, then moves: the same side to move.
        add(SectorKey {
            w: k.w,
            b: k.b - 1,
            wf: k.wf,
            bf: k.bf,
        });
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
    if k.wf == 1
        && k.bf == 0
        && !profile.move_in_placing
        && profile.mill_action != MillAction::MillCounts
    {
        let mut extra: Vec<SectorKey> = Vec::new();
        if profile.defender_first {
            // Black's last placement: Black moves first.
            extra.extend(out.iter().map(|c| c.swapped()));
        }
        if profile.board_full.removes() && k.w + 1 + k.b == points && k.w >= 1 && k.b >= 1 {
            // The board fills: a stone each is removed, then either side may move.
            let c = SectorKey {
                w: k.w,
                b: k.b - 1,
                wf: 0,
                bf: 0,
            };
            extra.extend([c, c.swapped()]);
        }
        out.extend(
            extra
                .into_iter()
                .filter(|c| !lost(profile, c.w, c.wf) && !lost(profile, c.b, c.bf)),
        );
    }
    out.into_iter().collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The most mills `n` stones make, from the mills' side, against every set of `n` points
    /// of the 16-point board.
    #[test]
    fn max_mills_matches_every_stone_set() {
        let p = Profile::preset("six-mens-morris").unwrap();
        let g = p.board.geometry();
        for n in 0..=16u32 {
            let brute = (0u32..1 << 16)
                .filter(|s| s.count_ones() == n)
                .map(|s| g.count_mills(s))
                .max()
                .unwrap();
            assert_eq!(max_mills(&p, n), brute, "{n} stones");
        }
        let nine = Profile::preset("nine-mens-morris").unwrap();
        assert_eq!(max_mills(&nine, 3), 1);
        assert_eq!(max_mills(&nine, 5), 2);
    }
}
