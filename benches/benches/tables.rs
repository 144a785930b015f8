//! Probing one slot of a raw and of a compressed table (nine-mens-morris 5_5_0_0, 31 M slots,
//! nearly all draws, and 5_6_0_0, 72 M, mixed; in the page cache), at random slots: the
//! per-probe cost `retro analyse` and the solver pay. The compressed tables: zstd blocks in the
//! index's slot order (`compressed`, `compressed_wdl`; 5_6_0_0's win/draw/loss file also
//! without the dictionary, `compressed_wdl_no_dictionary`), and what `retro compress` writes,
//! the reflected order with the rANS coders (`rans`, `rans_wdl`). And the checksum
//! of one block as a first read pays it: 16 KiB serial (format version 2) against 4 KiB in four
//! lanes (version 3).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use retro_engine::mill::{Mill, Profile};
use retro_solver::mill::Db;
use retro_solver::sectors::sector::SectorKey;
use retro_solver::sectors::solve::solve;
use retro_tables::compressed_table::{compress, CompressedTable, Params};
use retro_tables::sector_table::Table;

/// Random slots of a table of `n` slots.
fn random_slots(n: u64) -> Vec<u64> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..1 << 16)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        })
        .collect()
}

/// Solves sector `w`,`b` (moving phase) and what it depends on into `dir`; its raw table, the
/// table compressed in zstd blocks in the index's order, (for `with_plain`) the win/draw/loss
/// file compressed without a dictionary, and the table compressed as `retro compress` does.
fn tables(
    dir: &std::path::Path,
    w: u8,
    b: u8,
    with_plain: bool,
) -> (
    Table,
    CompressedTable,
    Option<CompressedTable>,
    CompressedTable,
) {
    let db = Db::new(Mill::new(Profile::default()), dir);
    let k = SectorKey { w, b, wf: 0, bf: 0 };
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
    let plain = with_plain.then(|| {
        let p = Params {
            wdl_dict_bytes: 0,
            ..Params::default()
        };
        let wdl = path.with_extension("plain.rtbw");
        compress(&raw, &wdl, None, p).unwrap();
        // SAFETY: as above.
        unsafe { CompressedTable::open(&wdl, None) }.unwrap()
    });
    let p = Params {
        order: db.slot_order(k),
        ..Params::default()
    };
    let (wdl, dtm) = (
        path.with_extension("rans.rtbw"),
        path.with_extension("rans.rtbd"),
    );
    compress(&raw, &wdl, Some(&dtm), p).unwrap();
    // SAFETY: as above.
    let rans = unsafe { CompressedTable::open(&wdl, Some(&dtm)) }.unwrap();
    rans.verify().unwrap();
    (raw, packed, plain, rans)
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    for (w, b) in [(5, 5), (5, 6)] {
        let (raw, packed, plain, rans) = tables(dir.path(), w, b, w != b);
        let slots = random_slots(raw.header.slots);
        let mut g = c.benchmark_group(format!("probe_{w}v{b}"));
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
        g.bench_function("rans", |b| {
            b.iter(|| {
                i = (i + 1) & 0xFFFF;
                rans.value(black_box(slots[i])).unwrap()
            })
        });
        g.bench_function("rans_wdl", |b| {
            b.iter(|| {
                i = (i + 1) & 0xFFFF;
                rans.symbol(black_box(slots[i])).unwrap()
            })
        });
        if let Some(plain) = &plain {
            g.bench_function("compressed_wdl_no_dictionary", |b| {
                b.iter(|| {
                    i = (i + 1) & 0xFFFF;
                    plain.symbol(black_box(slots[i])).unwrap()
                })
            });
        }
        g.finish();
    }
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
