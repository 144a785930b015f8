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

/// Under `remove-per-mill` a capture from an equal-material sector reaches a sector that keeps
/// its values, so the initialisation chooses wins through it; one a pass then makes a win in
/// one ply (a slide leaving the opponent no move) is not searched, and its mark is taken back.
/// A mark on anything but a win of more than one ply is refused when the marks are taken.
#[test]
fn marks_agree_where_captures_reach_kept_sectors() {
    use retro_solver::sectors::searched::searched_wins_marked;
    use retro_tables::Value;
    let dir = tempfile::tempdir().unwrap();
    let mut p = Profile::preset("six-mens-morris").unwrap();
    p.set_all(["stones=5", "remove-per-mill=true"]).unwrap();
    let db = Db::new(Mill::new(p), dir.path());
    let start = retro_solver::mill::sectors::start_sector(&db.game().profile);
    let (sectors, marked) = marks_agree(&db, &[start]);
    assert!(sectors > 10 && marked > 1000, "{sectors} {marked}");

    let k = key(5, 5, 0, 0);
    let t = db.table(k).unwrap();
    let n = t.0.header().slots;
    let one = (0..n)
        .find(|&s| t.0.value(s).unwrap() == Some(Value::Win(1)))
        .expect("a win in one ply");
    let mut bits = searched_wins(&db, k).unwrap().expect("searched").bits;
    assert_eq!(bits[(one / 64) as usize] >> (one % 64) & 1, 0);
    bits[(one / 64) as usize] |= 1 << (one % 64);
    let Err(e) = searched_wins_marked(&db, k, Some(bits)) else {
        panic!("a win in one ply taken as a searched win");
    };
    let e = e.to_string();
    assert!(e.contains("no win to search"), "{e}");
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

/// Stops a solve (a panic) as unit `at` starts, as a kill would.
struct StopAt(usize);

impl retro_solver::sectors::retro::Progress for StopAt {
    fn init(&self, _: u64) {}
    fn pass(&self, _: u16) {}
}

impl retro_solver::sectors::solve::SolveObserver for StopAt {
    fn unit_start(&self, _: &[SectorKey], _: u64, index: usize, _: usize) {
        if index == self.0 {
            panic!("stopped at unit {index}");
        }
    }
    fn sector_done(&self, _: &retro_solver::sectors::solve::SectorReport) {}
}

/// Copies folder `from` (and its subfolders) into `to`.
fn copy_folder(from: &std::path::Path, to: &std::path::Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            copy_folder(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A `--compress` solve stopped between solving a unit and compressing its tables leaves their
/// searched-win marks saved beside them (the search's own choice); `retro compress` of that
/// folder uses them (the same files as without them) and removes them; resumed, the solve ends
/// with the files of a solve run straight through, and no marks files.
#[test]
fn a_stopped_compress_solve_resumes_with_its_saved_marks() {
    use retro_solver::sectors::saved_marks;
    use retro_solver::sectors::solve::{solve_with, SolveOptions};
    let profile = || Profile::preset("six-mens-morris").unwrap();
    let options = SolveOptions {
        compress: Some(retro_tables::compressed_table::Params::default()),
        ..SolveOptions::default()
    };
    let straight = tempfile::tempdir().unwrap();
    let db = Db::new(Mill::new(profile()), straight.path());
    let start = retro_solver::mill::sectors::start_sector(&db.game().profile);
    let units = plan(&db.rules, &[start]).len();
    solve_with(&db, &[start], &(), options).unwrap();
    let want = retro_tests::folder_bytes(straight.path());
    assert!(!want.keys().any(|n| n.ends_with(".marks")));
    // Stopped at the first unit that leaves saved marks behind.
    let mut checked = 0;
    for at in units / 3..units {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::new(Mill::new(profile()), dir.path());
        let stopped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            solve_with(&db, &[start], &StopAt(at), options)
        }));
        assert!(stopped.is_err());
        drop(db);
        let db = Db::new(Mill::new(profile()), dir.path());
        for p in walk(dir.path()) {
            if p.extension().is_some_and(|e| e == "marks") {
                let table = p.with_extension("rtb");
                let stem = table.file_stem().unwrap().to_string_lossy().to_string();
                let k = SectorKey::parse(stem.strip_prefix("sector_").unwrap()).unwrap();
                let t = db.table(k).unwrap();
                let saved = saved_marks::load(&table, t.0.header()).expect("marks load");
                let searched = searched_wins(&db, k).unwrap().expect("searched wins");
                assert!(saved == searched.bits, "{k}: the saved marks differ");
                checked += 1;
            }
        }
        if checked == 0 {
            continue;
        }
        drop(db);
        // `retro compress` of the stopped folder takes the saved marks (and removes them):
        // the files of a look at every win.
        let copies = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
        for (i, c) in copies.iter().enumerate() {
            copy_folder(dir.path(), c.path());
            if i == 1 {
                for p in walk(c.path()) {
                    if p.extension().is_some_and(|e| e == "marks") {
                        std::fs::remove_file(p).unwrap();
                    }
                }
            }
            let o = retro_tests::retro(&["compress", "--dir", c.path().to_str().unwrap()], None);
            assert!(o.status.success(), "{}", retro_tests::stderr(&o));
        }
        let (with, without) = (
            retro_tests::folder_bytes(copies[0].path()),
            retro_tests::folder_bytes(copies[1].path()),
        );
        assert!(with == without, "retro compress with saved marks");
        assert!(!with.keys().any(|n| n.ends_with(".marks")));
        let db = Db::new(Mill::new(profile()), dir.path());
        solve_with(&db, &[start], &(), options).unwrap();
        assert!(
            retro_tests::folder_bytes(dir.path()) == want,
            "stopped at unit {at}"
        );
        break;
    }
    assert!(checked > 0, "no stop left marks behind");
}
