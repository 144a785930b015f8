//! The solver's move generator against the engine's compound moves, on random positions of
//! every preset the solver supports (playouts and arbitrary stone sets).

use retro_engine::mill::{EndReason, Mill, Profile, PRESETS};
use retro_engine::Color;
use retro_solver::mill::gen::Gen;
use retro_solver::mill::sectors::unsupported;
use retro_solver::sectors::children::Children;
use retro_solver::sectors::folded::Folded;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Compares both generators on one folded position; returns whether it had moves.
fn compare(m: &Mill, gen: &Gen, f: &Folded, out: &mut Children) -> bool {
    let pos = f.to_position(m);
    let mut moves = Vec::new();
    m.moves(&pos, &mut moves);
    let engine_wins_now = moves.iter().any(|(_, q)| {
        m.outcome(q)
            .is_some_and(|o| o.loser == Some(Color::Black) && o.reason == EndReason::TooFewStones)
    });
    gen.children(f, out);
    assert_eq!(out.wins_now, engine_wins_now, "{}", m.format_fen(&pos));
    if !engine_wins_now {
        let mut want: Vec<(u32, u32, u8, u8)> = moves
            .iter()
            .map(|(_, q)| Folded::from_position(q))
            .map(|c| (c.own, c.opp, c.own_hand, c.opp_hand))
            .collect();
        let mut got: Vec<(u32, u32, u8, u8)> = out
            .list
            .iter()
            .map(|c| (c.own, c.opp, c.own_hand, c.opp_hand))
            .collect();
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, want, "{}", m.format_fen(&pos));
    }
    !moves.is_empty()
}

#[test]
fn solver_generator_matches_engine() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let mut out = Children::default();
    let mut total = 0;
    for preset in PRESETS {
        let profile = Profile::preset(preset.name).unwrap();
        if unsupported(&profile).is_some() {
            continue;
        }
        let m = Mill::new(profile);
        let gen = Gen::new(&m);
        let mut compared = 0;
        // Positions from random compound playouts.
        let mut moves = Vec::new();
        for _ in 0..300 {
            let mut p = m.start();
            for _ in 0..120 {
                if m.decided(&p) {
                    break;
                }
                let f = Folded::from_position(&p);
                if !compare(&m, &gen, &f, &mut out) {
                    break;
                }
                compared += 1;
                m.moves(&p, &mut moves);
                p = moves[rng.below(moves.len() as u64) as usize].1;
            }
        }
        // Arbitrary stone sets and hands (most are unreachable in play but are in the tables).
        let n = m.profile.stones as u64;
        let points = m.geo.points as u64;
        while compared < 40_000 {
            let (w, b) = (rng.below(n + 1), rng.below(n + 1));
            if w + b > points {
                continue;
            }
            let (wf, bf) = (rng.below(n - w + 1) as u8, rng.below(n - b + 1) as u8);
            if (w as u8 + wf) < 3 || (b as u8 + bf) < 3 {
                continue;
            }
            let mut own = 0u32;
            let mut opp = 0u32;
            while own.count_ones() < w as u32 {
                own |= 1 << rng.below(points);
            }
            while opp.count_ones() < b as u32 {
                let bit = 1 << rng.below(points);
                if own & bit == 0 {
                    opp |= bit;
                }
            }
            compare(
                &m,
                &gen,
                &Folded {
                    own,
                    opp,
                    own_hand: wf,
                    opp_hand: bf,
                },
                &mut out,
            );
            compared += 1;
        }
        total += compared;
    }
    assert!(total >= 8 * 40_000, "{total}");
}
