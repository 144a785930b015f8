//! The solver against a naive fixed-point solver, Six Men's Morris solved whole, and tables that
//! are corrupted, truncated or built for other rules.

use retro_engine::mill::{Mill, Profile};
use retro_engine::Color;
use retro_solver::sectors::db::{Db, ProbeError};
use retro_solver::sectors::index::{spread, unrank_set, BINOM};
use retro_solver::sectors::solve::solve;
use retro_solver::sectors::{folded::Folded, sector::SectorKey};
use retro_tables::value::Value;
use std::collections::HashMap;

/// Naive solver: every raw position of a moving-phase sector (both sides to move fold to the same
/// positions when w == b), values by rounds: win in k if a move reaches a loss in k-1; loss in k
/// if every move reaches a win and the slowest is a win in k-1. Captures end the game here.
fn naive(m: &Mill, w: usize) -> HashMap<(u32, u32), Value> {
    let geo = m.geo;
    let n = geo.points;
    let mut ids: HashMap<(u32, u32), usize> = HashMap::new();
    let mut list = Vec::new();
    for r in 0..BINOM[n][w] {
        let own = unrank_set(r, w);
        for q in 0..BINOM[n - w][w] {
            let opp = spread(unrank_set(q, w), geo.all & !own);
            ids.insert((own, opp), list.len());
            list.push((own, opp));
        }
    }
    // Children: Ok(index) inside the sector, Err(value) when the move ends the game.
    let mut children: Vec<Vec<Result<usize, Value>>> = Vec::new();
    let mut terminal = vec![false; list.len()];
    let mut moves = Vec::new();
    for (i, &(own, opp)) in list.iter().enumerate() {
        let pos = Folded {
            own,
            opp,
            own_hand: 0,
            opp_hand: 0,
        }
        .to_position(m);
        if m.outcome(&pos).is_some() {
            terminal[i] = true;
            children.push(Vec::new());
            continue;
        }
        m.moves(&pos, &mut moves);
        children.push(
            moves
                .iter()
                .map(|(_, q)| match m.outcome(q) {
                    Some(o) if q.side == Color::White => {
                        // Game over on the mover's own turn (a removal left the opponent with 2).
                        assert_eq!(o.loser, Some(Color::Black));
                        Err(Value::Loss(0))
                    }
                    _ => {
                        let c = Folded::from_position(q);
                        Ok(ids[&(c.own, c.opp)])
                    }
                })
                .collect(),
        );
    }
    let mut val: Vec<Option<Value>> = terminal
        .iter()
        .map(|&t| t.then_some(Value::Loss(0)))
        .collect();
    for k in 1..500u16 {
        let prev = val.clone();
        let mut changed = false;
        for i in 0..list.len() {
            if prev[i].is_some() {
                continue;
            }
            let vals: Vec<Option<Value>> = children[i]
                .iter()
                .map(|c| match c {
                    Ok(j) => prev[*j],
                    Err(v) => Some(*v),
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
    list.into_iter()
        .zip(val)
        .map(|(p, v)| (p, v.unwrap_or(Value::Draw)))
        .collect()
}

#[test]
fn retrograde_agrees_with_naive_solver_on_small_sectors() {
    for (variant, w) in [("six-mens-morris", 3usize), ("six-mens-morris-flying", 3)] {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::new(Mill::new(Profile::preset(variant).unwrap()), dir.path());
        let k = SectorKey {
            w: w as u8,
            b: w as u8,
            wf: 0,
            bf: 0,
        };
        solve(&db, &[k], &()).unwrap();
        let want = naive(db.game(), w);
        let mut decided = 0;
        for (&(own, opp), &v) in &want {
            let got = db
                .value_folded(&Folded {
                    own,
                    opp,
                    own_hand: 0,
                    opp_hand: 0,
                })
                .unwrap();
            assert_eq!(got, v, "{variant} own {own:#x} opp {opp:#x}");
            decided += (v != Value::Draw) as u32;
        }
        assert!(decided > 1000, "{variant}: {decided}");
    }
}

#[test]
fn six_mens_morris_is_a_draw() {
    let dir = tempfile::tempdir().unwrap();
    let m = Mill::new(Profile::preset("six-mens-morris").unwrap());
    let start = m.start();
    let db = Db::new(m, dir.path());
    let reports = solve(
        &db,
        &[retro_solver::mill::sectors::start_sector(
            &db.game().profile,
        )],
        &(),
    )
    .unwrap();
    assert!(reports.len() > 50);
    assert_eq!(db.value(&start).unwrap(), Value::Draw);
    // Running again keeps every table.
    let again = solve(
        &db,
        &[retro_solver::mill::sectors::start_sector(
            &db.game().profile,
        )],
        &(),
    )
    .unwrap();
    assert!(again.iter().all(|r| r.reused));
}

#[test]
fn damaged_or_foreign_tables_are_errors_and_get_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::new(Mill::new(Profile::default()), dir.path());
    let k = SectorKey {
        w: 3,
        b: 3,
        wf: 0,
        bf: 0,
    };
    solve(&db, &[k], &()).unwrap();
    let path = db.path(k);
    let good = std::fs::read(&path).unwrap();
    let probe = Folded {
        own: 0b111,
        opp: 0b111 << 8,
        own_hand: 0,
        opp_hand: 0,
    };
    let expected = db.value_folded(&probe).unwrap();

    let fresh = || Db::new(Mill::new(Profile::default()), dir.path());
    // A flipped byte in the probed value's block: checksum mismatch.
    let slot = db.table(k).unwrap().1.index(probe.own, probe.opp) as usize;
    let mut bad = good.clone();
    bad[retro_tables::format::HEADER_SIZE + 2 * slot] ^= 0x40;
    std::fs::write(&path, &bad).unwrap();
    let e = fresh().value_folded(&probe).unwrap_err();
    assert!(e.to_string().contains("checksum"), "{e}");
    // Truncated.
    std::fs::write(&path, &good[..good.len() - 7]).unwrap();
    let e = fresh().value_folded(&probe).unwrap_err();
    assert!(e.to_string().contains("bytes"), "{e}");
    // Not a table at all, and an empty file.
    std::fs::write(&path, b"hello").unwrap();
    assert!(retro_tests::open_table(&path).is_err());
    std::fs::write(&path, b"").unwrap();
    assert!(retro_tests::open_table(&path).is_err());
    // A table of other rules in this profile's place.
    let other = Db::new(
        Mill::new(Profile::preset("cheng-san-qi").unwrap()),
        dir.path(),
    );
    solve(&other, &[k], &()).unwrap();
    std::fs::copy(other.path(k), &path).unwrap();
    let e = fresh().value_folded(&probe).unwrap_err();
    assert!(
        matches!(&e, ProbeError::Table(t) if matches!(**t, retro_tables::TableError::Mismatch(..))
            && t.to_string().contains("other rules")),
        "{e}"
    );
    // Solving again rebuilds the damaged table to the same bytes.
    let db = fresh();
    let r = solve(&db, &[k], &()).unwrap();
    assert!(r.iter().any(|r| r.key == k && !r.reused));
    assert_eq!(std::fs::read(&path).unwrap(), good);
    assert_eq!(db.value_folded(&probe).unwrap(), expected);
}
