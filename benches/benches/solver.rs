//! The solver on a fixed sector (nine-mens-morris 3v3, moving phase) and probing its table.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use retro_engine::mill::{Mill, Profile};
use retro_solver::mill::Db;
use retro_solver::sectors::retro::solve_unit;
use retro_solver::sectors::solve::solve;
use retro_solver::sectors::{folded::Folded, sector::SectorKey};

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::new(Mill::new(Profile::default()), dir.path());
    let k = SectorKey {
        w: 3,
        b: 3,
        wf: 0,
        bf: 0,
    };
    let mut g = c.benchmark_group("solver");
    g.sample_size(10);
    g.bench_function("solve_unit_3v3", |b| {
        b.iter(|| solve_unit(&db, &[k], &()).unwrap().len())
    });
    g.finish();
    solve(&db, &[k], &()).unwrap();
    // Probe a spread of positions: a1 a4 a7 style sets shifted around the board.
    let probes: Vec<Folded> = (0..24u32)
        .map(|i| Folded {
            own: (0b1011u32.rotate_left(i)) & 0xff_ffff,
            opp: (0b111u32 << 12).rotate_left(i) & 0xff_ffff,
            own_hand: 0,
            opp_hand: 0,
        })
        .filter(|f| f.own.count_ones() == 3 && f.opp.count_ones() == 3 && f.own & f.opp == 0)
        .collect();
    c.bench_function("probe_3v3", |b| {
        b.iter(|| {
            probes
                .iter()
                .map(|f| db.value_folded(black_box(f)).unwrap().preference())
                .sum::<i32>()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
