//! Dara endgame tables against a naive fixed-point solver on every raw 3v3 position, written
//! on the engine's own move generator (not the solver's).

use retro_engine::dara::{Dara, Position};
use retro_engine::Color;
use retro_solver::dara::rules::{no_four, DaraRules};
use retro_solver::sectors::db::Db;
use retro_solver::sectors::index::{rank_set, spread, squeeze, unrank_set, BINOM};
use retro_solver::sectors::solve::solve;
use retro_solver::sectors::{folded::Folded, sector::SectorKey};
use retro_tables::value::Value;

const ALL: u32 = (1 << 30) - 1;

/// Raw index of a 3v3 position (no symmetry): rank of own stones, rank of opponent stones among
/// the 27 cells left.
fn raw(own: u32, opp: u32) -> usize {
    (rank_set(own) * BINOM[27][3] + rank_set(squeeze(opp, ALL & !own))) as usize
}

#[test]
fn dara_3v3_agrees_with_naive_solver() {
    let g = Dara::default();
    let n = (BINOM[30][3] * BINOM[27][3]) as usize;
    // Children of every position: Ok(raw index) when the game goes on in 3v3, Err(()) when the
    // move wins at once (the opponent is left with 2 stones). `None` marks runs of four.
    let mut children: Vec<Option<Vec<Result<u32, ()>>>> = Vec::with_capacity(n);
    let mut list = Vec::new();
    for r in 0..BINOM[30][3] {
        let own = unrank_set(r, 3);
        for q in 0..BINOM[27][3] {
            let opp = spread(unrank_set(q, 3), ALL & !own);
            if !no_four(own) || !no_four(opp) {
                children.push(None);
                continue;
            }
            let p = Position {
                stones: [own, opp],
                hand: [0, 0],
                side: Color::White,
            };
            g.moves(&p, &mut list);
            children.push(Some(
                list.iter()
                    .map(|(_, c)| {
                        if c.stones[1].count_ones() <= 2 {
                            Err(())
                        } else {
                            Ok(raw(c.stones[1], c.stones[0]) as u32)
                        }
                    })
                    .collect(),
            ));
        }
    }
    // Rounds: win in k if a move reaches a loss in k-1 (or wins at once, k = 1); loss in k if
    // every move reaches a win and the slowest reaches a win in k-1. No move: loss in 0.
    let mut val: Vec<Option<Value>> = children
        .iter()
        .map(|c| match c {
            Some(v) if v.is_empty() => Some(Value::Loss(0)),
            _ => None,
        })
        .collect();
    for k in 1..500u16 {
        let prev = val.clone();
        let mut changed = false;
        for i in 0..n {
            let Some(ch) = &children[i] else { continue };
            if prev[i].is_some() {
                continue;
            }
            let vals: Vec<Option<Value>> = ch
                .iter()
                .map(|c| match c {
                    Err(()) => Some(Value::Loss(0)),
                    Ok(j) => prev[*j as usize],
                })
                .collect();
            if vals.iter().any(|v| *v == Some(Value::Loss(k - 1))) {
                val[i] = Some(Value::Win(k));
                changed = true;
            } else if vals.iter().all(|v| matches!(v, Some(Value::Win(_))))
                && vals.iter().any(|v| *v == Some(Value::Win(k - 1)))
            {
                val[i] = Some(Value::Loss(k));
                changed = true;
            }
        }
        if !changed && k > 2 {
            break;
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let db = Db::with_rules(DaraRules { game: g }, dir.path());
    solve(
        &db,
        &[SectorKey {
            w: 3,
            b: 3,
            wf: 0,
            bf: 0,
        }],
        &(),
    )
    .unwrap();
    let mut compared = 0;
    let mut decided = 0;
    for r in 0..BINOM[30][3] {
        let own = unrank_set(r, 3);
        for q in 0..BINOM[27][3] {
            let opp = spread(unrank_set(q, 3), ALL & !own);
            let i = raw(own, opp);
            if children[i].is_none() {
                continue;
            }
            let want = val[i].unwrap_or(Value::Draw);
            let got = db
                .value_folded(&Folded {
                    own,
                    opp,
                    own_hand: 0,
                    opp_hand: 0,
                })
                .unwrap();
            assert_eq!(got, want, "own {own:#x} opp {opp:#x}");
            compared += 1;
            decided += (want != Value::Draw) as u32;
        }
    }
    eprintln!("compared {compared} raw 3v3 positions, {decided} decided");
    assert!(compared > 10_000_000 && decided > 1_000_000);
}
