//! Probing one slot of a raw and of a compressed table (nine-mens-morris 5_5_0_0, 31 M slots,
//! both in the page cache), at random slots: the per-probe cost `retro analyse` and the solver
//! pay. The compressed table is written with `retro compress`'s parameters. And the checksum
//! of one block as a first read pays it: 16 KiB serial (format version 2) against 4 KiB in four
//! lanes (version 3).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use retro_engine::mill::{Mill, Profile};
use retro_solver::mill::Db;
use retro_solver::sectors::sector::SectorKey;
use retro_solver::sectors::solve::solve;
use retro_tables::compressed_table::{compress, CompressedTable, Params};
use retro_tables::sector_table::Table;

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::new(Mill::new(Profile::default()), dir.path());
    let k = SectorKey {
        w: 5,
        b: 5,
        wf: 0,
        bf: 0,
    };
    solve(&db, &[k], &()).unwrap();
    let path = db.path(k);
    // SAFETY: the files live in this benchmark's own folder and are never changed in place.
    let raw = unsafe { Table::open(&path) }.unwrap();
    raw.verify().unwrap();
    let (wdl, dtm) = (path.with_extension("rtbw"), path.with_extension("rtbd"));
    compress(&raw, &wdl, Some(&dtm), Params::default()).unwrap();
    // SAFETY: as above.
    let packed = unsafe { CompressedTable::open(&wdl, Some(&dtm)) }.unwrap();
    packed.verify().unwrap();
    let n = raw.header.slots;
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let slots: Vec<u64> = (0..1 << 16)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        })
        .collect();
    let mut g = c.benchmark_group("probe_5v5");
    let mut i = 0usize;
    g.bench_function("raw", |b| {
        b.iter(|| {
            i = (i + 1) & 0xFFFF;
            raw.value(black_box(slots[i])).unwrap()
        })
    });
    g.bench_function("compressed", |b| {
        b.iter(|| {
            i = (i + 1) & 0xFFFF;
            packed.value(black_box(slots[i])).unwrap()
        })
    });
    g.bench_function("compressed_wdl", |b| {
        b.iter(|| {
            i = (i + 1) & 0xFFFF;
            packed.symbol(black_box(slots[i])).unwrap()
        })
    });
    g.finish();
}

fn checksums(c: &mut Criterion) {
    use retro_tables::format::Sums;
    let bytes: Vec<u8> = (0..16 << 10).map(|i: u32| (i * 7 + i / 97) as u8).collect();
    let mut g = c.benchmark_group("block_checksum");
    g.bench_function("v2_serial_16k", |b| {
        b.iter(|| Sums::V2.sum(black_box(&bytes)))
    });
    g.bench_function("v3_lanes_16k", |b| {
        b.iter(|| Sums::CURRENT.sum(black_box(&bytes)))
    });
    g.bench_function("v3_lanes_4k", |b| {
        b.iter(|| Sums::CURRENT.sum(black_box(&bytes[..4 << 10])))
    });
    g.finish();
}

criterion_group!(benches, checksums, bench);
criterion_main!(benches);
