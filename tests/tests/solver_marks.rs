//! The searched wins the solver marks while it solves a unit are exactly those the one-ply look
//! at every win (what `retro compress` does on raw tables) chooses: Mill placement and moving
//! sectors, a flying one, Dara.

use retro_engine::dara::Dara;
use retro_engine::mill::{Mill, Profile};
use retro_solver::dara::rules::DaraRules;
use retro_solver::sectors::db::Db;
use retro_solver::sectors::forward::Forward;
use retro_solver::sectors::retro::solve_unit_with;
use retro_solver::sectors::searched::{searchable, searched_wins};
use retro_solver::sectors::sector::{plan, SectorKey};
use retro_solver::sectors::solve::solve;

/// Solves `targets` raw, then each unit with a searchable sector again with marks: the values
/// are the table's and the marks the search's choice. Returns the sectors and marks compared.
fn marks_agree<R: Forward>(db: &Db<R>, targets: &[SectorKey]) -> (usize, u64) {
    solve(db, targets, &()).unwrap();
    let (mut sectors, mut marked) = (0, 0);
    for unit in plan(&db.rules, targets) {
        if !unit.iter().any(|&k| searchable(k)) {
            continue;
        }
        for s in solve_unit_with(db, &unit, &(), true).unwrap() {
            let t = db.table(s.key).unwrap();
            let stored: Vec<u16> = (0..s.values.len() as u64)
                .map(|slot| t.0.code(slot).unwrap())
                .collect();
            assert!(stored == s.values, "{}: values differ", s.key);
            let want = searched_wins(db, s.key).unwrap();
            assert_eq!(s.searched.is_some(), want.is_some(), "{}", s.key);
            if let (Some(got), Some(want)) = (s.searched, want) {
                let n = got.iter().map(|w| w.count_ones() as u64).sum::<u64>();
                assert!(got == want.bits, "{}: the marks differ", s.key);
                sectors += 1;
                marked += n;
            }
        }
    }
    (sectors, marked)
}

fn key(w: u8, b: u8, wf: u8, bf: u8) -> SectorKey {
    SectorKey { w, b, wf, bf }
}

#[test]
fn six_mens_morris_marks_agree_placement_included() {
    let dir = tempfile::tempdir().unwrap();
    let m = Mill::new(Profile::preset("six-mens-morris").unwrap());
    let db = Db::new(m, dir.path());
    let start = retro_solver::mill::sectors::start_sector(&db.game().profile);
    let (sectors, marked) = marks_agree(&db, &[start]);
    assert!(sectors > 10 && marked > 1000, "{sectors} {marked}");
}

#[test]
fn nine_mens_morris_endgames_marks_agree() {
    let dir = tempfile::tempdir().unwrap();
    let m = Mill::new(Profile::preset("nine-mens-morris").unwrap());
    let db = Db::new(m, dir.path());
    // 4v4 and 3v3 (flying), the sectors of 3v4 and 4v3 they read.
    let (sectors, marked) = marks_agree(&db, &[key(4, 4, 0, 0)]);
    assert!(sectors >= 2 && marked > 1000, "{sectors} {marked}");
}

#[test]
fn dara_marks_agree() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::with_rules(
        DaraRules {
            game: Dara::default(),
        },
        dir.path(),
    );
    let (sectors, marked) = marks_agree(&db, &[key(3, 3, 0, 0)]);
    assert!(sectors >= 1 && marked > 100, "{sectors} {marked}");
}
