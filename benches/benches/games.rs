//! Ô Ăn Quan and Dara: move generation, the exact Ô Ăn Quan solver on its smallest
//! configuration, and the Dara search from the start position.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use retro_engine::dara::Dara;
use retro_engine::oaq::{Oaq, OaqProfile};
use retro_solver::dara::rules::DaraRules;
use retro_solver::dara::search::{search as dara_search, Limits as DaraLimits, Tables};
use retro_solver::oaq::big::solve_big;
use retro_solver::oaq::solve::solve;
use retro_solver::sectors::db::Db;

fn oaq(seeds: &str) -> Oaq {
    let mut prof = OaqProfile::default();
    prof.set(&format!("seeds={seeds}")).unwrap();
    Oaq::new(prof)
}

fn bench(c: &mut Criterion) {
    let g = Oaq::new(OaqProfile::default());
    let start = g.start();
    let mut list = Vec::new();
    c.bench_function("oaq_moves_start", |b| {
        b.iter(|| {
            g.moves(black_box(&start), &mut list);
            list.len()
        })
    });
    c.bench_function("oaq_perft_start_d5", |b| {
        b.iter(|| g.perft(black_box(&start), 5))
    });

    let d = Dara::default();
    let dstart = d.start();
    let mid = d
        .parse_position("WW.WW./B....B/BB.B../....W./.W..B. w 0 0")
        .unwrap();
    let mut dlist = Vec::new();
    c.bench_function("dara_moves_drop_start", |b| {
        b.iter(|| {
            d.moves(black_box(&dstart), &mut dlist);
            dlist.len()
        })
    });
    c.bench_function("dara_moves_move_phase", |b| {
        b.iter(|| {
            d.moves(black_box(&mid), &mut dlist);
            dlist.len()
        })
    });
    c.bench_function("dara_perft_start_d3", |b| {
        b.iter(|| d.perft(black_box(&dstart), 3))
    });

    let mut group = c.benchmark_group("solvers");
    group.sample_size(10);
    let small = oaq("1,0");
    group.bench_function("oaq_solve_seeds_1_0", |b| {
        b.iter(|| solve(&small, &()).unwrap().start)
    });
    group.bench_function("oaq_solve_big_seeds_1_0", |b| {
        b.iter(|| solve_big(&small, &(), None).unwrap().start)
    });
    let dir = tempfile::tempdir().unwrap();
    let db = Db::with_rules(DaraRules { game: d.clone() }, dir.path());
    let tables = Tables::none(&db);
    let limits = DaraLimits {
        depth: 4,
        time: None,
    };
    group.bench_function("dara_search_start_depth4", |b| {
        b.iter(|| {
            dara_search(&d, &tables, &dstart, limits)
                .unwrap()
                .unwrap()
                .nodes
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
