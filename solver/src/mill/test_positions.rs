//! Random positions for the solver's tests.

use crate::sectors::folded::Folded;
use retro_engine::mill::{Mill, Position};

/// `n` random moving-phase positions of a 24-point Mill game with `own` stones for the side to
/// move and `opp` for the other, from a xorshift `seed` (advanced).
pub(crate) fn random_moving_positions(
    m: &Mill,
    own: u32,
    opp: u32,
    n: usize,
    seed: &mut u64,
) -> Vec<Position> {
    let mut next = || {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    };
    let mut pick = |count: u32, taken: u32| {
        let mut set = 0u32;
        while set.count_ones() < count {
            let b = 1u32 << (next() % 24);
            if (set | taken) & b == 0 {
                set |= b;
            }
        }
        set
    };
    (0..n)
        .map(|_| {
            let a = pick(own, 0);
            let b = pick(opp, a);
            Folded {
                own: a,
                opp: b,
                own_hand: 0,
                opp_hand: 0,
            }
            .to_position(m)
        })
        .collect()
}
