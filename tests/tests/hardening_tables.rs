//! Hardening of the table reader and of concurrent probing.
//!
//! A solved nine-mens-morris 3_3_0_0 table is damaged at random (bit flips aimed at every header
//! field, the fingerprint, the values, the checksum and the end magic; byte overwrites; zeroed
//! ranges; truncation; extension) and opened with `Table::open` and through a fresh `Db`: a
//! damaged table is an error, never a panic and never a value. Headers forged with a valid
//! checksum (another version, game, sector, slot count, fingerprint...) must not make the `Db`
//! return a value other than the true one. Many threads probing the same `Db` at once get the
//! same answers as one thread.
//!
//! Each property prints how many cases ran and how many faults were injected
//! (`cargo test ... -- --nocapture`); `PROPTEST_CASES=N` overrides the number of cases.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use retro_engine::mill::{Mill, Profile};
use retro_solver::mill::Db;
use retro_solver::sectors::index::{spread, unrank_set, BoardIndex, BINOM};
use retro_solver::sectors::solve::solve;
use retro_solver::sectors::{folded::Folded, sector::SectorKey};
use retro_tables::format::HEADER_SIZE;
use retro_tables::value::Value;
use retro_tests::props::run;
use retro_tests::reseal;
use std::cell::Cell;
use std::path::PathBuf;

const K33: SectorKey = SectorKey {
    w: 3,
    b: 3,
    wf: 0,
    bf: 0,
};

fn nine() -> Mill {
    Mill::new(Profile::default())
}

/// A solved 3_3_0_0 table, its bytes, and probe positions with their true values.
struct Fixture {
    _solved: tempfile::TempDir,
    good: Vec<u8>,
    /// Bytes of values (the body) in `good`.
    body_len: usize,
    fingerprint_len: usize,
    /// Positions probed through a `Db`, with their values.
    probes: Vec<(Folded, Value)>,
    /// The same positions as slots of the table, with their values.
    slots: Vec<(u64, Option<Value>)>,
}

fn fixture() -> Fixture {
    let solved = tempfile::tempdir().unwrap();
    let db = Db::new(nine(), solved.path());
    solve(&db, &[K33], &()).unwrap();
    let good = std::fs::read(db.path(K33)).unwrap();
    let fingerprint_len = u32::from_le_bytes(good[68..72].try_into().unwrap()) as usize;
    assert_eq!(fingerprint_len, db.fingerprint().len());
    let geo = db.game().geo;
    let idx = BoardIndex::new(geo, 3, 3);
    let table = retro_tests::open_table(&db.path(K33)).unwrap();
    // Every 40009th raw position (about 67), plus the first win, draw and loss found.
    let mut probes = Vec::new();
    let mut seen = [false; 3];
    let mut i = 0u64;
    for r in 0..BINOM[24][3] {
        let own = unrank_set(r, 3);
        for q in 0..BINOM[21][3] {
            let opp = spread(unrank_set(q, 3), geo.all & !own);
            let f = Folded {
                own,
                opp,
                own_hand: 0,
                opp_hand: 0,
            };
            let v = db.value_folded(&f).unwrap();
            let kind = match v {
                Value::Win(_) => 0,
                Value::Draw => 1,
                Value::Loss(_) => 2,
            };
            if i.is_multiple_of(40009) || !seen[kind] {
                seen[kind] = true;
                probes.push((f, v));
            }
            i += 1;
        }
    }
    assert!(seen.iter().all(|&s| s) && probes.len() > 50);
    let slots = probes
        .iter()
        .map(|(f, _)| {
            let s = idx.index(f.own, f.opp);
            (s, table.value(s).unwrap())
        })
        .collect();
    Fixture {
        _solved: solved,
        body_len: retro_tests::body_len(&good),
        good,
        fingerprint_len,
        probes,
        slots,
    }
}

/// A scratch directory holding a `Db` folder where damaged tables are written.
struct Scratch {
    dir: tempfile::TempDir,
    path: PathBuf,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        let path = Db::new(nine(), dir.path()).path(K33);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        Scratch { dir, path }
    }
    fn db(&self) -> Db {
        Db::new(nine(), self.dir.path())
    }
}

/// Byte ranges of the table file, by field (`len` bytes long, `body` of them values).
fn regions(len: usize, fp_len: usize, body: usize) -> Vec<(&'static str, usize, usize)> {
    let values_end = (HEADER_SIZE + body).min(len - 24);
    let sums = (HEADER_SIZE + body.next_multiple_of(8)).min(len - 24);
    vec![
        ("magic", 0, 8),
        ("version", 8, 12),
        ("game", 12, 16),
        ("sector", 16, 20),
        ("encoding", 20, 24),
        ("slot count", 24, 32),
        ("counts", 32, 64),
        ("longest win/loss", 64, 68),
        ("fingerprint length", 68, 72),
        ("reserved", 72, 128),
        ("fingerprint", 128, 128 + fp_len),
        ("header padding", 128 + fp_len, HEADER_SIZE),
        ("values", HEADER_SIZE, values_end),
        ("padding", values_end, sums),
        ("block checksums", sums, len - 24),
        ("checksum of the block checksums", len - 24, len - 16),
        ("checksum", len - 16, len - 8),
        ("end magic", len - 8, len),
        ("anywhere", 0, len),
    ]
}

#[derive(Clone, Debug)]
enum Damage {
    /// Flip one bit of a field: (region, offset in it, bit).
    Flip(usize, usize, u8),
    /// Overwrite a byte of a field.
    Set(usize, usize, u8),
    /// Zero up to 64 bytes from a point of a field.
    Zero(usize, usize, usize),
    /// Cut the file: a special length (index into `special_lengths`) or anywhere.
    Truncate(usize, Option<usize>),
    /// Append bytes.
    Extend(Vec<u8>),
}

fn special_lengths(len: usize, body: usize) -> Vec<usize> {
    vec![
        0,
        1,
        7,
        8,
        HEADER_SIZE - 1,
        HEADER_SIZE,
        HEADER_SIZE + 1,
        HEADER_SIZE + 2,
        HEADER_SIZE + body - 2,
        HEADER_SIZE + body,
        len - 24,
        len - 16,
        len - 9,
        len - 8,
        len - 2,
        len - 1,
    ]
}

fn damage(n_regions: usize) -> impl Strategy<Value = Damage> {
    prop_oneof![
        5 => (0..n_regions, any::<usize>(), 0u8..8).prop_map(|(r, o, b)| Damage::Flip(r, o, b)),
        2 => (0..n_regions, any::<usize>(), any::<u8>()).prop_map(|(r, o, v)| Damage::Set(r, o, v)),
        1 => (0..n_regions, any::<usize>(), 1usize..64).prop_map(|(r, o, n)| Damage::Zero(r, o, n)),
        1 => (any::<usize>(), any::<bool>())
            .prop_map(|(i, special)| Damage::Truncate(i, special.then_some(i))),
        1 => prop_oneof![
            prop::collection::vec(any::<u8>(), 1..64),
            Just(vec![0u8, 0]),
            Just(vec![0u8; 16]),
        ]
        .prop_map(Damage::Extend),
    ]
}

fn apply(bytes: &mut Vec<u8>, d: &Damage, fp_len: usize, body: usize) {
    let len = bytes.len();
    if len < HEADER_SIZE + body + 24 {
        // Already cut short: field positions no longer apply; damage anywhere.
        match d {
            Damage::Flip(_, o, b) if len > 0 => bytes[o % len] ^= 1 << b,
            Damage::Set(_, o, v) if len > 0 => bytes[o % len] = *v,
            Damage::Extend(extra) => bytes.extend_from_slice(extra),
            Damage::Truncate(i, _) => bytes.truncate(i % (len + 1)),
            _ => {}
        }
        return;
    }
    let reg = regions(len, fp_len, body);
    let at = |r: usize, o: usize| {
        let (_, s, e) = reg[r % reg.len()];
        s + o % (e - s).max(1)
    };
    match d {
        Damage::Flip(r, o, b) => {
            let i = at(*r, *o);
            bytes[i] ^= 1 << b;
        }
        Damage::Set(r, o, v) => {
            let i = at(*r, *o);
            bytes[i] = *v;
        }
        Damage::Zero(r, o, n) => {
            let i = at(*r, *o);
            let e = (i + n).min(len);
            bytes[i..e].fill(0);
        }
        Damage::Truncate(i, special) => {
            let new_len = match special {
                Some(k) => {
                    let s = special_lengths(len, body);
                    s[k % s.len()]
                }
                None => i % len,
            };
            bytes.truncate(new_len);
        }
        Damage::Extend(extra) => bytes.extend_from_slice(extra),
    }
}

/// Random damage (1 to 4 faults) without repairing the checksums. Opening checks the frame and
/// the header; each block of values is checked when first read. So a damaged table is refused
/// when opened, or a probe into a damaged block is an error, and `verify` refuses it always;
/// a probe that answers gives the true value.
#[test]
fn damaged_tables_are_errors_never_values() {
    let fx = fixture();
    let scratch = Scratch::new();
    let n_regions = regions(fx.good.len(), fx.fingerprint_len, fx.body_len).len();
    let damaged = Cell::new(0u64);
    let unchanged = Cell::new(0u64);
    // Refused at open; opened, then a probe refused; refused by a Db probe.
    let refused_by = Cell::new([0u64; 3]);
    let strategy = prop::collection::vec(damage(n_regions), 1..5);
    run(
        "damaged_tables_are_errors_never_values",
        2500,
        strategy,
        |faults| {
            let mut bytes = fx.good.clone();
            for d in &faults {
                apply(&mut bytes, d, fx.fingerprint_len, fx.body_len);
            }
            std::fs::write(&scratch.path, &bytes).unwrap();
            let same = bytes == fx.good;
            if same {
                unchanged.set(unchanged.get() + 1);
            } else {
                damaged.set(damaged.get() + 1);
            }
            let names_file = |msg: String| {
                prop_assert!(
                    msg.contains(&*scratch.path.to_string_lossy()),
                    "error does not name the file: {}",
                    msg
                );
                Ok(())
            };
            let mut r = refused_by.get();
            match (retro_tests::open_table(&scratch.path), same) {
                (Ok(t), true) => {
                    for &(slot, v) in &fx.slots {
                        prop_assert_eq!(t.value(slot).map_err(|e| e.to_string()), Ok(v));
                    }
                    prop_assert!(t.verify().is_ok(), "intact table fails verify");
                }
                (Err(e), true) => {
                    return Err(TestCaseError::fail(format!("intact table refused: {e}")))
                }
                (Ok(t), false) => {
                    let mut refused = false;
                    for &(slot, v) in &fx.slots {
                        match t.value(slot) {
                            Ok(got) => prop_assert_eq!(got, v, "a damaged block gave a value"),
                            Err(e) => {
                                names_file(e.to_string())?;
                                refused = true;
                            }
                        }
                    }
                    r[1] += refused as u64;
                    match t.verify() {
                        Ok(()) => {
                            return Err(TestCaseError::fail(format!(
                                "damaged table ({} bytes) passes verify: {:?}",
                                bytes.len(),
                                t.header
                            )))
                        }
                        Err(e) => names_file(e.to_string())?,
                    }
                }
                (Err(e), false) => {
                    names_file(e.to_string())?;
                    r[0] += 1;
                }
            }
            let db = scratch.db();
            let mut refused = false;
            for (f, v) in &fx.probes {
                match db.value_folded(f) {
                    Ok(got) => prop_assert_eq!(got, *v, "a damaged table gave another value"),
                    Err(_) if same => {
                        return Err(TestCaseError::fail(
                            "intact table: probe failed".to_string(),
                        ))
                    }
                    Err(_) => refused = true,
                }
            }
            r[2] += refused as u64;
            refused_by.set(r);
            Ok(())
        },
    );
    let r = refused_by.get();
    eprintln!(
        "  {} damaged tables ({} faults cancelled out): {} refused by Table::open, {} more by a \
         probe of the table, {} by a Db probe ({} probes each); all by verify",
        damaged.get(),
        unchanged.get(),
        r[0],
        r[1],
        r[2],
        fx.probes.len()
    );
}

#[derive(Clone, Debug)]
enum Forgery {
    /// Overwrite 1 to 8 bytes of the header (region, offset, bytes); checksum repaired.
    Header(usize, usize, Vec<u8>),
    /// Set a field to a chosen little-endian value (offset, width, value); checksum repaired.
    Field(usize, usize, u64),
    /// Change the slot count and resize the values to match, moving the difference into the
    /// wasted count so that the counts add up; checksum repaired.
    Resize(i64),
}

const FIELDS: &[(usize, usize)] = &[
    (8, 4),  // version
    (12, 4), // game
    (16, 1), // sector w
    (17, 1), // sector b
    (18, 1), // sector wf
    (19, 1), // sector bf
    (20, 4), // encoding
    (24, 8), // slots
    (32, 8), // wins
    (40, 8), // draws
    (48, 8), // losses
    (56, 8), // wasted
    (64, 2), // longest win
    (66, 2), // longest loss
    (68, 4), // fingerprint length
];

fn forgery(n_regions: usize) -> impl Strategy<Value = Forgery> {
    let value = prop_oneof![
        0u64..16,
        any::<u64>(),
        Just(u64::MAX),
        Just(0x3FFF),
        Just(0x4000),
        Just(384),
        Just(385),
        Just(1 << 62),
    ];
    prop_oneof![
        (
            0..n_regions,
            any::<usize>(),
            prop::collection::vec(any::<u8>(), 1..8)
        )
            .prop_map(|(r, o, b)| Forgery::Header(r, o, b)),
        (0..FIELDS.len(), value).prop_map(|(f, v)| Forgery::Field(FIELDS[f].0, FIELDS[f].1, v)),
        prop_oneof![-3i64..=3, -100000i64..100000, Just(i64::MIN / 4)].prop_map(Forgery::Resize),
    ]
}

fn forge(good: &[u8], fp_len: usize, body: usize, f: &Forgery) -> Vec<u8> {
    let mut b = good[..HEADER_SIZE + body].to_vec();
    let mut body = body;
    let header_regions = 12; // magic .. header padding
    match f {
        Forgery::Header(r, o, bytes) => {
            let (_, s, e) = regions(good.len(), fp_len, body)[r % header_regions];
            let i = s + o % (e - s).max(1);
            for (k, &x) in bytes.iter().enumerate() {
                if i + k < HEADER_SIZE {
                    b[i + k] = x;
                }
            }
        }
        Forgery::Field(off, width, v) => {
            b[*off..off + width].copy_from_slice(&v.to_le_bytes()[..*width]);
        }
        Forgery::Resize(d) => {
            let slots = u64::from_le_bytes(b[24..32].try_into().unwrap());
            let wasted = u64::from_le_bytes(b[56..64].try_into().unwrap());
            let new_slots = (slots as i64 + d).max(0) as u64;
            let new_wasted = (wasted as i64 + d).max(0) as u64;
            b[24..32].copy_from_slice(&new_slots.to_le_bytes());
            b[56..64].copy_from_slice(&new_wasted.to_le_bytes());
            body = 2 * new_slots as usize;
            // New slots wasted (0xC000 little-endian).
            let old = b.len();
            b.resize(HEADER_SIZE + body, 0);
            for k in (old..b.len()).step_by(2) {
                b[k + 1] = 0xC0;
            }
        }
    }
    reseal(&b, body)
}

/// Headers forged with a repaired checksum: `Table::open` may accept some (it checks format,
/// not meaning), but the `Db` (which checks game, rules, sector and slot count) must refuse
/// every table that is not the one it expects, and otherwise give the true values.
#[test]
fn forged_headers_never_give_a_wrong_value() {
    let fx = fixture();
    let scratch = Scratch::new();
    let n_regions = regions(fx.good.len(), fx.fingerprint_len, fx.body_len).len();
    let good_header = retro_tests::open_table(&{
        std::fs::write(&scratch.path, &fx.good).unwrap();
        scratch.path.clone()
    })
    .unwrap()
    .header;
    let stats = Cell::new([0u64; 4]); // forged, opened by Table::open, refused by Db, unchanged
    run(
        "forged_headers_never_give_a_wrong_value",
        1500,
        forgery(n_regions),
        |f| {
            let bytes = forge(&fx.good, fx.fingerprint_len, fx.body_len, &f);
            std::fs::write(&scratch.path, &bytes).unwrap();
            let mut s = stats.get();
            let same = bytes == fx.good;
            if same {
                s[3] += 1;
            } else {
                s[0] += 1;
            }
            let opened = retro_tests::open_table(&scratch.path);
            if let Ok(t) = &opened {
                s[1] += 1;
                if t.header.slots == good_header.slots {
                    // Only the header was forged: the values are the true ones (or refused,
                    // when the forged header's longest distances are shorter than a value's).
                    for &(slot, v) in &fx.slots {
                        if let Ok(got) = t.value(slot) {
                            prop_assert_eq!(got, v);
                        }
                    }
                }
            }
            let db = scratch.db();
            let mut refused = false;
            for (pos, v) in &fx.probes {
                match db.value_folded(pos) {
                    Ok(got) => {
                        prop_assert_eq!(got, *v, "forged table gave another value");
                        let h = &opened.as_ref().expect("the Db opened it").header;
                        prop_assert!(
                            h.game == good_header.game
                                && h.fingerprint == good_header.fingerprint
                                && h.sector == good_header.sector
                                && h.slots == good_header.slots,
                            "the Db accepted a foreign header {:?}",
                            h
                        );
                    }
                    Err(_) => refused = true,
                }
            }
            prop_assert!(!(same && refused), "intact table refused");
            s[2] += refused as u64;
            stats.set(s);
            Ok(())
        },
    );
    let s = stats.get();
    eprintln!(
        "  {} forged tables ({} identical to the original): {} opened by Table::open, {} refused \
         by the Db",
        s[0], s[3], s[1], s[2]
    );
}

/// Every header field forged to a wrong value with a repaired checksum: the `Db` refuses the
/// table with an error naming the file; a stale format version is reported as such.
#[test]
fn forged_header_fields_are_refused_by_name() {
    let fx = fixture();
    let scratch = Scratch::new();
    let fp = fx.fingerprint_len;
    let cases: Vec<(&str, Forgery)> = vec![
        ("magic", Forgery::Header(0, 0, b"RETROTC\0".to_vec())),
        ("version 4", Forgery::Field(8, 4, 4)),
        ("version 2", Forgery::Field(8, 4, 2)),
        ("version 1", Forgery::Field(8, 4, 1)),
        ("version 0", Forgery::Field(8, 4, 0)),
        ("game 2", Forgery::Field(12, 4, 2)),
        ("sector w", Forgery::Field(16, 1, 4)),
        ("sector b", Forgery::Field(17, 1, 2)),
        ("sector wf", Forgery::Field(18, 1, 1)),
        ("sector bf", Forgery::Field(19, 1, 6)),
        ("encoding", Forgery::Field(20, 4, 2)),
        (
            "slot count +1",
            Forgery::Field(24, 8, fx.body_len as u64 / 2 + 1),
        ),
        ("slot count huge", Forgery::Field(24, 8, u64::MAX)),
        (
            "wins +1",
            Forgery::Field(
                32,
                8,
                u64::from_le_bytes(fx.good[32..40].try_into().unwrap()) + 1,
            ),
        ),
        ("longest win", Forgery::Field(64, 2, 0x4000)),
        (
            "fingerprint length +1",
            Forgery::Field(68, 4, fp as u64 + 1),
        ),
        ("fingerprint length 385", Forgery::Field(68, 4, 385)),
        ("fingerprint length 0", Forgery::Field(68, 4, 0)),
        ("fingerprint byte", Forgery::Header(10, 0, vec![b'#'])),
        ("fingerprint not UTF-8", Forgery::Header(10, 1, vec![0xFF])),
        ("slot count -1, resized", Forgery::Resize(-1)),
        ("slot count +1, resized", Forgery::Resize(1)),
    ];
    let name = scratch.path.to_string_lossy().into_owned();
    let mut report = Vec::new();
    for (what, f) in &cases {
        let bytes = forge(&fx.good, fp, fx.body_len, f);
        assert_ne!(bytes, fx.good, "{what}: forgery changed nothing");
        std::fs::write(&scratch.path, &bytes).unwrap();
        let open = retro_tests::open_table(&scratch.path)
            .map(|_| ())
            .map_err(|e| e.to_string());
        let e = scratch
            .db()
            .value_folded(&fx.probes[0].0)
            .expect_err(what)
            .to_string();
        assert!(
            e.contains(&name),
            "{what}: error does not name the file: {e}"
        );
        // (A version-1 or -2 header on a version-3 file is refused for its length or its
        // checksums, which are of another kind.)
        if what.starts_with("version") && !["version 1", "version 2"].contains(what) {
            assert!(e.contains("format version"), "{what}: {e}");
        }
        report.push(format!(
            "{what}: Table::open {}, Db: {e}",
            if open.is_ok() { "accepts" } else { "refuses" }
        ));
    }
    eprintln!("{}", report.join("\n"));
}

/// A raw-position list of the moving-phase sectors 3v3, 3v4 and 4v3 (every 3v3 position and
/// every 5th of the others).
fn raw_positions(m: &Mill) -> Vec<Folded> {
    let geo = m.geo;
    let mut out = Vec::new();
    for (w, b, every) in [(3usize, 3usize, 1u64), (3, 4, 5), (4, 3, 5)] {
        let mut i = 0u64;
        for r in 0..BINOM[24][w] {
            let own = unrank_set(r, w);
            for q in 0..BINOM[24 - w][b] {
                if i.is_multiple_of(every) {
                    let opp = spread(unrank_set(q, b), geo.all & !own);
                    out.push(Folded {
                        own,
                        opp,
                        own_hand: 0,
                        opp_hand: 0,
                    });
                }
                i += 1;
            }
        }
    }
    out
}

fn code(v: Result<Value, impl std::fmt::Display>) -> u16 {
    v.map(Value::encode)
        .unwrap_or_else(|e| panic!("probe failed: {e}"))
}

/// Many threads probing one `Db` at once (tables opened lazily by whichever thread comes
/// first) give the same answers as one thread.
#[test]
fn concurrent_probes_agree_with_one_thread() {
    let dir = tempfile::tempdir().unwrap();
    let targets = [
        SectorKey {
            w: 3,
            b: 4,
            wf: 0,
            bf: 0,
        },
        SectorKey {
            w: 4,
            b: 3,
            wf: 0,
            bf: 0,
        },
    ];
    solve(&Db::new(nine(), dir.path()), &targets, &()).unwrap();
    let positions = raw_positions(&nine());
    let n = positions.len();

    let t0 = std::time::Instant::now();
    let one = Db::new(nine(), dir.path());
    let reference: Vec<u16> = positions
        .iter()
        .map(|f| code(one.value_folded(f)))
        .collect();
    let single = t0.elapsed().as_secs_f64();

    const THREADS: usize = 8;
    // Each thread walks a quarter of the list with its own stride (coprime with n), so that the
    // threads hit the three tables in different orders and every position is probed about
    // twice in all.
    let strides: Vec<usize> = {
        let mut s = Vec::new();
        let mut c = 7919usize;
        while s.len() < THREADS {
            if gcd(c, n) == 1 {
                s.push(c);
            }
            c += 2;
        }
        s
    };
    let shared = Db::new(nine(), dir.path());
    let barrier = std::sync::Barrier::new(THREADS);
    let t1 = std::time::Instant::now();
    let results: Vec<(u64, u64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let (db, positions, reference, barrier) =
                    (&shared, &positions, &reference, &barrier);
                let stride = strides[t];
                scope.spawn(move || {
                    barrier.wait();
                    let (mut probes, mut mismatches) = (0u64, 0u64);
                    let mut i = t * n / THREADS;
                    for _ in 0..n / 4 {
                        let got = code(db.value_folded(&positions[i]));
                        probes += 1;
                        mismatches += (got != reference[i]) as u64;
                        i = (i + stride) % n;
                    }
                    (probes, mismatches)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let probes: u64 = results.iter().map(|r| r.0).sum();
    let mismatches: u64 = results.iter().map(|r| r.1).sum();
    eprintln!(
        "concurrent_probes_agree_with_one_thread: {n} positions probed by one thread in {single:.2} s; \
         {probes} probes by {THREADS} threads in {:.2} s; {mismatches} mismatches",
        t1.elapsed().as_secs_f64()
    );
    assert_eq!(mismatches, 0);
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Distances a table cannot store although their code exists: the longest, 0x3FFF plies, has no
/// code one ply on (a win in 0x4000 would be the wasted-slot code, a loss in 0x4000 a loss in
/// 0). A table holding one, with its counts and checksum made to agree, is refused when opened,
/// and by the `Db` that would read it as a dependency.
#[test]
fn distances_without_a_parent_code_are_refused() {
    let fx = fixture();
    let scratch = Scratch::new();
    let u16_at = |b: &[u8], o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
    let slots = fx.body_len / 2;
    let find = |class: u16| {
        (0..slots)
            .find(|&s| u16_at(&fx.good, HEADER_SIZE + 2 * s) >> 14 == class)
            .expect("a slot of this class")
    };
    let mut injected = 0;
    for (what, class, longest_at) in [("win", 2u16, 64usize), ("loss", 1, 66)] {
        for d in [0x3FFEu16, 0x3FFF] {
            let mut b = fx.good.clone();
            let o = HEADER_SIZE + 2 * find(class);
            b[o..o + 2].copy_from_slice(&(class << 14 | d).to_le_bytes());
            b[longest_at..longest_at + 2].copy_from_slice(&d.to_le_bytes());
            let b = reseal(&b, fx.body_len);
            std::fs::write(&scratch.path, &b).unwrap();
            let open = retro_tests::open_table(&scratch.path);
            if d == 0x3FFE {
                // The longest a table may store: accepted (this forgery changed one value).
                assert!(open.is_ok(), "{what} in {d}");
                continue;
            }
            let e = open.err().expect("refused").to_string();
            assert!(e.contains("16383 plies") && e.contains("16382"), "{e}");
            let e = scratch
                .db()
                .value_folded(&fx.probes[0].0)
                .expect_err(what)
                .to_string();
            assert!(e.contains("16383 plies"), "{what}: {e}");
            injected += 1;
        }
    }
    eprintln!("{injected} distance codes without a parent code refused");
}
