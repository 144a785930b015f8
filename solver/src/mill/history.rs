//! What the state the solver does not index would add to it: one-time mills' masks (marked
//! points while placing are indexed: [`crate::sectors::marked_points`]).
//!
//! Under one-time mills (russian-mill) each side carries
//! a formed-mills mask: the points of every mill it has counted. A mill whose three points are
//! all in the mask no longer counts, and the mask never shrinks. The mask is history, not
//! board: two positions with the same stones can differ in it.
//!
//! What of it still matters: nothing less than the whole mask. The mask is the union of the
//! counted mills, every point of it lies in a mill that no longer counts ("dead"), so the mask
//! and the set of dead mills determine each other; and with flying at 3 any dead mill could be
//! formed again later. In a position reached in play, each counted mill removed one stone, so
//! a side that has taken `c` stones holds one of the masks `masks_after(geo, ..)[c]`.

use crate::sectors::index::BINOM;
use retro_engine::mill::{Geometry, Profile};
use retro_tables::SectorKey;
use std::collections::HashSet;

/// How many different formed-mills masks a side can hold after counting `c` mills, for
/// `c = 0..=max` (a counted mill has at least one point outside the mask before it).
pub fn masks_after(geo: &Geometry, max: usize) -> Vec<u64> {
    let mills = &geo.mills[..geo.mill_count];
    let mut level: HashSet<u32> = HashSet::from([0]);
    let mut out = vec![1];
    for _ in 0..max {
        let mut next = HashSet::new();
        for &mask in &level {
            for &m in mills {
                if mask & m != m {
                    next.insert(mask | m);
                }
            }
        }
        out.push(next.len() as u64);
        level = next;
    }
    out
}

/// The slots sector `k` would take with both sides' masks in the index, for positions reached
/// in play (each counted mill took a stone: the side to move has counted as many mills as the
/// opponent has lost stones, and the other way round). Masks break the board's symmetry, so
/// no symmetry is folded. `masks` is [`masks_after`] up to the profile's stones.
pub fn slots_with_masks(profile: &Profile, k: SectorKey, masks: &[u64]) -> u64 {
    let points = profile.board.geometry().points;
    let lost = |on: u8, hand: u8| (profile.stones.saturating_sub(on + hand)) as usize;
    let boards = BINOM[points][k.w as usize] * BINOM[points - k.w as usize][k.b as usize];
    let own = masks.get(lost(k.b, k.bf)).copied().unwrap_or(0);
    let opp = masks.get(lost(k.w, k.wf)).copied().unwrap_or(0);
    boards.saturating_mul(own).saturating_mul(opp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_engine::mill::geometry::MORRIS24;

    /// Every union of `c` distinct mills is a mask after `c` counts here only when each mill
    /// adds a point; counted from the mills directly for small `c`, the numbers must agree.
    #[test]
    fn masks_after_counts_unions_of_live_mills() {
        let m = masks_after(&MORRIS24, 3);
        assert_eq!(m[0], 1);
        assert_eq!(m[1], 16);
        // Two different mills never cover each other on this board: every pair is a mask.
        assert_eq!(m[2], 16 * 15 / 2);
        // Three mills: a mill meets another in one point at most, so each adds a point in any
        // order, and different triples have different unions (the three top sides also cover
        // the spoke through their middles, but no other triple has those nine points).
        let mills = &MORRIS24.mills[..MORRIS24.mill_count];
        let mut unions = HashSet::new();
        for a in 0..16 {
            for b in a + 1..16 {
                for c in b + 1..16 {
                    unions.insert(mills[a] | mills[b] | mills[c]);
                }
            }
        }
        assert_eq!(m[3], unions.len() as u64);
        assert_eq!(m[3], 16 * 15 * 14 / 6);
    }

    #[test]
    fn masks_multiply_the_index() {
        let p = Profile::preset("russian-mill").unwrap();
        let masks = masks_after(p.board.geometry(), p.stones as usize);
        // 3 against 3 in the moving phase: each side has counted 6 mills.
        let k = SectorKey {
            w: 3,
            b: 3,
            wf: 0,
            bf: 0,
        };
        let boards = BINOM[24][3] * BINOM[21][3];
        assert_eq!(
            slots_with_masks(&p, k, &masks),
            boards * masks[6] * masks[6]
        );
        // The start: nothing counted yet, one mask each.
        let s = SectorKey {
            w: 0,
            b: 0,
            wf: 9,
            bf: 9,
        };
        assert_eq!(slots_with_masks(&p, s, &masks), 1);
    }

    #[test]
    fn marks_lie_on_the_free_points() {
        let p = Profile::preset("da-san-qi").unwrap();
        let plain = |k: SectorKey| {
            crate::sectors::index::BoardIndex::new(
                crate::sectors::index::Shape::Mill(p.board.geometry()),
                k.w as usize,
                k.b as usize,
            )
            .size()
        };
        // Nothing removed yet: no marks.
        let k = SectorKey {
            w: 3,
            b: 3,
            wf: 9,
            bf: 9,
        };
        let rules = crate::mill::rules::MillRules::new(retro_engine::mill::Mill::new(p.clone()));
        use crate::sectors::rules::SectorRules;
        assert_eq!(rules.slots(k), plain(k));
        // Black's last placement with 6 stones gone: 6 marks on the 7 free points.
        let k = SectorKey {
            w: 8,
            b: 9,
            wf: 1,
            bf: 0,
        };
        assert_eq!(rules.slots(k), plain(k) * 7);
    }
}
