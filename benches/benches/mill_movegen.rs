//! Move generation and perft of the Mill engine (nine-mens-morris).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use retro_engine::mill::{Mill, Profile, StepList};

const REMOVAL: &str = "O*@@@O*@/**@*@***/*@@**@O* b m r 3 0 9 0 0 1 0 0 0 0 0 0 1";
const MIDGAME: &str = "@O*O*@*O/*@O*@**@/O*@*O@*O w m s 7 0 7 0 0 0 0 0 0 0 0 0 1";
const FLYING: &str = "O***@*@*/**@*@***/*O**O@** w m s 3 0 5 0 0 0 0 0 0 0 0 0 1";

fn movegen(c: &mut Criterion) {
    let m = Mill::new(Profile::default());
    let positions = [
        ("start", m.start()),
        ("moving", m.parse_fen(MIDGAME).unwrap()),
        ("flying", m.parse_fen(FLYING).unwrap()),
        ("removal", m.parse_fen(REMOVAL).unwrap()),
    ];
    let mut g = c.benchmark_group("mill_steps");
    for (name, p) in &positions {
        g.bench_function(*name, |b| {
            b.iter(|| {
                let mut l = StepList::default();
                m.steps(black_box(p), &mut l);
                l.len()
            })
        });
    }
    g.finish();
    let mut g = c.benchmark_group("mill_compound_moves");
    for (name, p) in &positions {
        let mut out = Vec::with_capacity(128);
        g.bench_function(*name, |b| {
            b.iter(|| {
                m.moves(black_box(p), &mut out);
                out.len()
            })
        });
    }
    g.finish();
}

fn perft(c: &mut Criterion) {
    let m = Mill::new(Profile::default());
    let start = m.start();
    let mid = m.parse_fen(MIDGAME).unwrap();
    let mut g = c.benchmark_group("mill_perft");
    g.sample_size(10);
    let n = m.perft_split(&start, 5);
    g.throughput(Throughput::Elements(n));
    g.bench_function("start_split_d5", |b| {
        b.iter(|| m.perft_split(black_box(&start), 5))
    });
    let n = m.perft_split(&mid, 5);
    g.throughput(Throughput::Elements(n));
    g.bench_function("midgame_split_d5", |b| {
        b.iter(|| m.perft_split(black_box(&mid), 5))
    });
    let n = m.perft_compound(&start, 4);
    g.throughput(Throughput::Elements(n));
    g.bench_function("start_compound_d4", |b| {
        b.iter(|| m.perft_compound(black_box(&start), 4))
    });
    g.finish();
}

criterion_group!(benches, movegen, perft);
criterion_main!(benches);
