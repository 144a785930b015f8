//! Tests of the compressed table: round trips, layouts, corruption.

use super::*;
use crate::any_table::{AnyTable, Place};
use crate::format::GAME_MILL;
use crate::sector_key::SectorKey;
use crate::value::Wdl;

/// The sector of the test tables.
const KEY_3V3: SectorKey = SectorKey {
    w: 3,
    b: 3,
    wf: 0,
    bf: 0,
};

fn raw_codes(n: usize) -> Vec<u16> {
    let mut x = 0x1234_5678_9abc_def1u64;
    let mut cur = 0u16;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Runs, as real tables have.
            if x.is_multiple_of(7) {
                cur = match x >> 60 {
                    0..=3 => 0,
                    4..=8 => 0x4000 | (2 * ((x >> 20) % 300) as u16),
                    9..=13 => 0x8000 | (2 * ((x >> 20) % 300) + 1) as u16,
                    _ => 0xC000,
                };
            }
            cur
        })
        .collect()
}

/// `n` slots of [`raw_codes`] as a 3v3 table, with every `every`-th slot's win searched.
fn with_searched_wins(n: usize, every: usize) -> (Vec<u16>, Header, SearchedWins) {
    let codes = raw_codes(n);
    let key = KEY_3V3;
    let h = Header::from_values(GAME_MILL, "fp", key, &codes);
    let mut bits = vec![0u64; codes.len().div_ceil(64)];
    for (s, &c) in codes.iter().enumerate() {
        if matches!(Value::decode(c), Some(Value::Win(_))) && s % every == 0 {
            bits[s / 64] |= 1 << (s % 64);
        }
    }
    (codes, h, SearchedWins { bits })
}

#[test]
fn searched_wins_decode_as_searched_and_the_rest_as_raw() {
    let dir = std::env::temp_dir().join(format!("retro-searched-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Every third win is searched (bits the writer's caller would vouch for).
    // 417 classes of C(10, 3) = 120 slots, for the reflected order.
    let (codes, h, searched) = with_searched_wins(50_040, 3);
    // Grouped entries (encoding 9), the older layout (7), grouped in another order (12),
    // and by sub-block beside the rANS coder (14).
    let reflected = SlotOrder::reflected(10, 3);
    for (grouped, order, wdl_sub) in [
        (true, None, 0),
        (false, None, 0),
        (true, reflected, 0),
        (true, reflected, WDL_SUB_SLOTS),
    ] {
        let (w, d) = (dir.join("s.rtbw"), dir.join("s.rtbd"));
        let p = Params {
            grouped,
            order,
            wdl_sub,
            ..Params::default()
        };
        compress_codes(&h, &codes, &w, Some(&d), p, Some(&searched)).unwrap();
        // SAFETY: test files are rewritten whole, never changed in place while mapped.
        let t = unsafe { CompressedTable::open(&w, Some(&d)) }.unwrap();
        assert!(t.searches_wins());
        let encoding =
            |f: &Path| u32::from_le_bytes(std::fs::read(f).unwrap()[20..24].try_into().unwrap());
        assert_eq!(
            encoding(&d),
            match (grouped, order, wdl_sub) {
                (true, Some(_), 0) => ENCODING_DTM_SEARCHED_GROUPED_ORDERED,
                (true, Some(_), _) => ENCODING_DTM_SEARCHED_BY_SUB,
                (true, None, _) => ENCODING_DTM_SEARCHED_GROUPED,
                _ => ENCODING_DTM_SEARCHED,
            }
        );
        let wdl_encoding = if order.is_some() {
            ENCODING_WDL_ORDERED
        } else {
            ENCODING_WDL
        };
        assert_eq!(encoding(&w), wdl_encoding);
        t.verify().unwrap();
        let (mut kept, mut left) = (0, 0);
        for (s, &c) in codes.iter().enumerate() {
            let Some(want) = Value::decode(c) else {
                continue;
            };
            let slot = s as u64;
            let searched_here = searched.has(slot) && want != Value::Win(h.longest_win);
            if searched_here {
                assert_eq!(
                    t.probe(slot).unwrap(),
                    Some(Stored::SearchedWin),
                    "slot {s}"
                );
                assert!(matches!(t.value(slot), Err(TableError::Searched(_, x)) if x == slot));
                left += 1;
            } else {
                assert_eq!(
                    t.probe(slot).unwrap(),
                    Some(Stored::Value(want)),
                    "slot {s}"
                );
                kept += 1;
            }
        }
        assert!(left > 1000 && kept > 1000, "{left} searched, {kept} kept");
        // Block decoding gives `Win(0)` at the same slots.
        let values: Vec<Value> = (0..t.blocks())
            .flat_map(|b| t.block_values(b).unwrap())
            .collect();
        assert_eq!(order.is_some(), t.stored_at(1) != 1);
        for (s, &c) in codes.iter().enumerate() {
            if let Some(want) = Value::decode(c) {
                let got = values[t.stored_at(s as u64) as usize];
                assert!(got == want || (got == Value::Win(0) && want.wdl() == Wdl::Win));
                assert_eq!(
                    got == Value::Win(0),
                    t.probe(s as u64).unwrap() == Some(Stored::SearchedWin)
                );
            }
        }
        // The same table without searched wins is encoding 8 (5) and keeps every distance.
        compress_codes(&h, &codes, &w, Some(&d), p, None).unwrap();
        // SAFETY: as above.
        let plain = unsafe { CompressedTable::open(&w, Some(&d)) }.unwrap();
        assert!(!plain.searches_wins());
        drop(plain);
        assert_eq!(
            encoding(&d),
            match (grouped, order, wdl_sub) {
                (true, Some(_), 0) => ENCODING_DTM_GROUPED_ORDERED,
                (true, Some(_), _) => ENCODING_DTM_BY_SUB,
                (true, None, _) => ENCODING_DTM_GROUPED,
                _ => ENCODING_DTM,
            }
        );
        // SAFETY: as above.
        let plain = unsafe { CompressedTable::open(&w, Some(&d)) }.unwrap();
        for (s, &c) in codes.iter().enumerate().step_by(7) {
            if let Some(want) = Value::decode(c) {
                assert_eq!(plain.value(s as u64).unwrap(), Some(want), "slot {s}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn regrouped_distances_are_the_bytes_the_grouped_writer_writes() {
    let dir = std::env::temp_dir().join(format!("retro-regroup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (codes, h, searched) = with_searched_wins(60_000, 2);
    for (wins, dtm_block) in [
        (None, 1 << 12),
        (Some(&searched), 1 << 12),
        (Some(&searched), 1 << 10),
    ] {
        let p = |grouped| Params {
            dtm_block,
            grouped,
            ..Params::default()
        };
        let (w, d) = (dir.join("old.rtbw"), dir.join("old.rtbd"));
        let (w2, d2) = (dir.join("new.rtbw"), dir.join("new.rtbd"));
        compress_codes(&h, &codes, &w, Some(&d), p(false), wins).unwrap();
        compress_codes(&h, &codes, &w2, Some(&d2), p(true), wins).unwrap();
        // SAFETY: test files, replaced by rename only.
        let old = unsafe { CompressedTable::open(&w, Some(&d)) }.unwrap();
        assert!(!old.grouped);
        assert!(old.regroup_distances(12).unwrap());
        drop(old);
        assert_eq!(std::fs::read(&d).unwrap(), std::fs::read(&d2).unwrap());
        // SAFETY: as above.
        let again = unsafe { CompressedTable::open(&w, Some(&d)) }.unwrap();
        assert!(again.grouped);
        assert!(!again.regroup_distances(12).unwrap());
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "tmp"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_win_draw_loss_dictionary_is_kept_only_where_the_file_comes_out_smaller() {
    let dir = std::env::temp_dir().join(format!("retro-wdl-dict-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let n = 1 << 21;
    let mixed = raw_codes(n);
    // Nearly all draws: the blocks are a few bytes, a dictionary only adds its own.
    let constant: Vec<u16> = (0..n)
        .map(|i| if i % 100_003 == 7 { 0x8001 } else { 0 })
        .collect();
    let key = KEY_3V3;
    for (codes, kept) in [(&mixed, true), (&constant, false)] {
        let h = Header::from_values(GAME_MILL, "fp", key, codes);
        let open = |wdl_dict_bytes| {
            let (w, d) = (dir.join("t.rtbw"), dir.join("t.rtbd"));
            let p = Params {
                wdl_dict_bytes,
                ..Params::default()
            };
            compress_codes(&h, codes, &w, Some(&d), p, None).unwrap();
            let bytes = std::fs::metadata(&w).unwrap().len();
            // SAFETY: test files are rewritten whole, never changed in place while mapped.
            (
                unsafe { CompressedTable::open(&w, Some(&d)) }.unwrap(),
                bytes,
            )
        };
        let (plain, plain_bytes) = open(0);
        assert_eq!(plain.wdl.layout().dict_len, 0);
        // `verify --upgrade` adds the dictionary where `compress` would have kept one:
        // the same file.
        assert_eq!(
            plain.add_wdl_dictionary(Params::default().level).unwrap(),
            kept
        );
        drop(plain);
        let upgraded = std::fs::read(dir.join("t.rtbw")).unwrap();
        let (t, bytes) = open(WDL_DICT_BYTES);
        assert_eq!(std::fs::read(dir.join("t.rtbw")).unwrap(), upgraded);
        assert!(!t.add_wdl_dictionary(Params::default().level).unwrap());
        assert_eq!(
            t.wdl.layout().dict_len > 0,
            kept,
            "{plain_bytes} -> {bytes}"
        );
        assert!(bytes <= plain_bytes, "{plain_bytes} -> {bytes}");
        assert_eq!(t.dtm.as_ref().unwrap().layout().dict_len, 0);
        t.verify().unwrap();
        for (s, &c) in codes.iter().enumerate().step_by(3) {
            let Some(v) = Value::decode(c) else { continue };
            assert_eq!(t.value(s as u64).unwrap(), Some(v), "slot {s}");
        }
        if kept {
            // A byte of the dictionary damaged: the file is refused when opened (the
            // dictionary's block checksums), naming it, never read with another one.
            let dict_len = t.wdl.layout().dict_len as usize;
            drop(t);
            let w = dir.join("t.rtbw");
            let good = std::fs::read(&w).unwrap();
            for at in [0, dict_len / 2, dict_len - 1] {
                let mut bad = good.clone();
                bad[HEADER_SIZE + at] ^= 0x10;
                std::fs::write(&w, &bad).unwrap();
                // SAFETY: as above.
                match unsafe { CompressedTable::open(&w, None) } {
                    Err(TableError::Corrupt(path, _)) => assert_eq!(path, w),
                    Err(e) => panic!("byte {at}: {e}"),
                    Ok(_) => panic!("byte {at} of the dictionary damaged, and opened"),
                }
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A zstd dictionary that zstd cannot load (its magic, then no entropy tables), in a file whose
/// checksums are made good again: refused when opened, naming the file, never a panic.
#[test]
fn a_dictionary_zstd_cannot_load_is_refused() {
    let dir = std::env::temp_dir().join(format!("retro-bad-dict-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let codes = raw_codes(1 << 21);
    let key = KEY_3V3;
    let h = Header::from_values(GAME_MILL, "fp", key, &codes);
    let w = dir.join("t.rtbw");
    compress_codes(&h, &codes, &w, None, Params::default(), None).unwrap();
    let good = std::fs::read(&w).unwrap();
    let mut head: [u8; HEADER_SIZE] = good[..HEADER_SIZE].try_into().unwrap();
    let mut layout = Layout::decode(&head);
    let (dict_len, body_len) = (
        layout.dict_len as usize,
        layout.body_len().unwrap() as usize,
    );
    assert!(dict_len > 0, "a mixed table keeps its dictionary");
    // The dictionary's magic and four zero bytes; the index and the blocks after it as they were.
    let mut body = vec![0x37, 0xA4, 0x30, 0xEC, 0, 0, 0, 0];
    body.extend_from_slice(&good[HEADER_SIZE + dict_len..HEADER_SIZE + body_len]);
    layout.dict_len = 8;
    layout.encode(&mut head);
    let mut bad = head.to_vec();
    bad.extend_from_slice(&body);
    bad.extend_from_slice(&crate::format::trailer(&head, &body));
    std::fs::write(&w, &bad).unwrap();
    // SAFETY: test files are rewritten whole, never changed in place while mapped.
    match unsafe { CompressedTable::open(&w, None) } {
        Err(TableError::Corrupt(path, why)) => {
            assert_eq!(path, w);
            assert!(why.contains("zstd cannot load"), "{why}");
        }
        Err(e) => panic!("refused for another reason: {e}"),
        Ok(_) => panic!("a dictionary zstd cannot load, and opened"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Header bytes 120..128 must name no slot order (all zero) or one this reader knows: a
/// file whose header says otherwise (its checksums made good again, as a later writer
/// would) is refused when opened.
#[test]
fn reserved_header_bytes_are_refused_unless_zero() {
    let dir = std::env::temp_dir().join(format!("retro-reserved-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A 3v3 table of 20,000 slots, none searched.
    let (codes, header, _) = with_searched_wins(20_000, usize::MAX);
    let (wdl, dtm) = (dir.join("t.rtbw"), dir.join("t.rtbd"));
    compress_codes(&header, &codes, &wdl, Some(&dtm), Params::default(), None).unwrap();
    // SAFETY: test files are rewritten whole, never changed in place while mapped.
    assert!(unsafe { CompressedTable::open(&wdl, Some(&dtm)) }.is_ok());
    // An order of a kind this reader does not know, stray bytes after a known one, and a
    // known order in one file of the two.
    for (path, at, x, says) in [
        (&wdl, 120, 7, "120..128"),
        (&dtm, 127, 1, "120..128"),
        (
            &wdl,
            120,
            1,
            "encoding 4 and header bytes 120..128 disagree",
        ),
    ] {
        let good = std::fs::read(path).unwrap();
        let mut head = good[..HEADER_SIZE].to_vec();
        let body_len = Layout::decode(&head).body_len().unwrap() as usize;
        let body = &good[HEADER_SIZE..HEADER_SIZE + body_len];
        head[at] = x;
        let mut bad = head.clone();
        bad.extend_from_slice(body);
        bad.extend_from_slice(&crate::format::trailer(&head, body));
        assert_eq!(bad.len(), good.len());
        std::fs::write(path, &bad).unwrap();
        // SAFETY: as above.
        let e = unsafe { CompressedTable::open(&wdl, Some(&dtm)) }
            .err()
            .expect("refused");
        assert!(e.to_string().contains(says), "{e}");
        std::fs::write(path, &good).unwrap();
    }
    // A reflected order whose class is larger than any board's (C(32, 16) = 601,080,390
    // slots, which a verify would map whole): refused when opened, before any map is made.
    let good = std::fs::read(&wdl).unwrap();
    let mut head = good[..HEADER_SIZE].to_vec();
    let body_len = Layout::decode(&head).body_len().unwrap() as usize;
    let body = &good[HEADER_SIZE..HEADER_SIZE + body_len];
    head[120..123].copy_from_slice(&[1, 32, 16]);
    let mut bad = head.clone();
    bad.extend_from_slice(body);
    bad.extend_from_slice(&crate::format::trailer(&head, body));
    std::fs::write(&wdl, &bad).unwrap();
    // SAFETY: as above.
    let e = unsafe { CompressedTable::open(&wdl, Some(&dtm)) }
        .err()
        .expect("refused");
    assert!(e.to_string().contains("more than any board has"), "{e}");
    std::fs::write(&wdl, &good).unwrap();
    // SAFETY: as above.
    let t = unsafe { CompressedTable::open(&wdl, Some(&dtm)) }.unwrap();
    t.verify().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_slot_decodes_to_the_raw_value() {
    let dir = std::env::temp_dir().join(format!("retro-compressed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (n, p) in [
        (1usize, Params::default()),
        (100_003, Params::default()),
        (
            70_000,
            Params {
                wdl_block: 1 << 10,
                dtm_block: 1 << 8,
                level: 3,
                dict_bytes: 4096,
                wdl_dict_bytes: 0,
                grouped: true,
                order: None,
                wdl_sub: 0,
                dtm_rans: false,
                mix: false,
                whole_plies: false,
            },
        ),
        (
            70_000,
            Params {
                wdl_block: 1 << 12,
                dtm_block: 1 << 12,
                level: 1,
                dict_bytes: 0,
                wdl_dict_bytes: 0,
                grouped: true,
                order: None,
                wdl_sub: 0,
                dtm_rans: false,
                mix: false,
                whole_plies: false,
            },
        ),
        // The older layout (encoding 5) is still read.
        (
            70_000,
            Params {
                grouped: false,
                ..Params::default()
            },
        ),
        (
            70_000,
            Params {
                wdl_block: 1 << 11,
                dtm_block: 1 << 9,
                grouped: false,
                ..Params::default()
            },
        ),
        // Slots stored in the reflected order: 6 classes of C(17, 6), as 3 stones against
        // 6 on the 24-point board; and 600 small classes in small blocks.
        (
            6 * 12_376,
            Params {
                order: SlotOrder::reflected(17, 6),
                ..Params::default()
            },
        ),
        (
            600 * 120,
            Params {
                wdl_block: 1 << 10,
                dtm_block: 1 << 8,
                order: SlotOrder::reflected(10, 3),
                wdl_sub: 64,
                ..Params::default()
            },
        ),
        // The rANS coder with sub-blocks as long as the distance blocks, and zstd blocks
        // in the reflected order.
        (
            6 * 12_376,
            Params {
                wdl_block: 1 << 12,
                dtm_block: 1 << 11,
                order: SlotOrder::reflected(17, 6),
                wdl_sub: 1 << 11,
                ..Params::default()
            },
        ),
        (
            6 * 12_376,
            Params {
                wdl_block: 1 << 12,
                order: SlotOrder::reflected(17, 6),
                wdl_sub: 0,
                ..Params::default()
            },
        ),
        // The first rANS coders (2 and 3: one model, streams from the state LOW).
        (
            6 * 12_376,
            Params {
                order: SlotOrder::reflected(17, 6),
                mix: false,
                ..Params::default()
            },
        ),
        // rANS win/draw/loss beside zstd distances (as written before coder 3).
        (
            6 * 12_376,
            Params {
                order: SlotOrder::reflected(17, 6),
                dtm_rans: false,
                ..Params::default()
            },
        ),
    ] {
        let codes = raw_codes(n);
        let key = KEY_3V3;
        let header = Header::from_values(GAME_MILL, "fp", key, &codes);
        let raw_path = dir.join("raw.rtb");
        crate::sector_table::write(&raw_path, &header, &codes).unwrap();
        // SAFETY: test files are rewritten whole, never changed in place while mapped.
        let raw = unsafe { Table::open(&raw_path) }.unwrap();
        assert_eq!(raw.codes().unwrap(), codes, "the bulk read");
        assert_eq!(*raw.codes_in_place().unwrap(), codes[..], "read in place");
        // A raw table has no stored positions of another order to be asked for.
        // SAFETY: as above.
        let any = AnyTable::Raw(unsafe { Table::open(&raw_path) }.unwrap());
        assert!(any.wdl_at(Place::Stored(0)).is_err());
        assert!(any.probe_at(Place::Stored(0)).is_err());
        assert_eq!(any.wdl_at(Place::Slot(0)).unwrap(), any.wdl(0).unwrap());
        drop(any);
        let (w, d) = (dir.join("t.rtbw"), dir.join("t.rtbd"));
        compress(&raw, &w, Some(&d), p).unwrap();
        // SAFETY: as above.
        let t = unsafe { CompressedTable::open(&w, Some(&d)) }.unwrap();
        t.verify().unwrap();
        // SAFETY: as above.
        let alone = unsafe { CompressedTable::open(&w, None) }.unwrap();
        alone.verify().unwrap();
        assert!(alone.value(0).is_err());
        for (s, &c) in codes.iter().enumerate() {
            let Some(v) = Value::decode(c) else { continue };
            assert_eq!(t.value(s as u64).unwrap(), Some(v), "{n} slots, slot {s}");
            let sym = match v {
                Value::Draw => SYM_DRAW,
                Value::Loss(_) => SYM_LOSS,
                Value::Win(_) => SYM_WIN,
            };
            assert_eq!(alone.symbol(s as u64).unwrap(), Some(sym));
            // Probed where it is stored, as a caller that ranks the stones does.
            let at = t.stored_at(s as u64);
            assert_eq!(t.probe_stored(at).unwrap(), Some(Stored::Value(v)));
            assert_eq!(alone.symbol_stored(at).unwrap(), Some(sym));
        }
        assert_eq!(t.value(n as u64).unwrap(), None);
        assert_eq!(t.probe_stored(n as u64).unwrap(), None);
        // The order is in both headers, and it is not the index's; the coder is rANS
        // wherever it was asked for with an order.
        let heads = [std::fs::read(&w).unwrap(), std::fs::read(&d).unwrap()];
        for head in &heads {
            assert_eq!(head[120] == 1, p.order.is_some());
        }
        let rans = p.order.is_some() && p.wdl_sub > 0;
        assert_eq!(is_wdl_rans(Layout::decode(&heads[0]).coder), rans);
        assert_eq!(
            is_dtm_rans(Layout::decode(&heads[1]).coder),
            rans && p.dtm_rans
        );
        assert_eq!(t.by_sub, rans);
        assert_eq!(p.order.is_some(), n > 1 && t.stored_at(1) != 1);
        // An upgrade (a dictionary added) keeps the order: the values stay where they were.
        drop((t, alone));
        let mut plain = Params {
            wdl_dict_bytes: 0,
            ..p
        };
        plain.dict_bytes = 0;
        compress(&raw, &w, Some(&d), plain).unwrap();
        // SAFETY: as above.
        let t = unsafe { CompressedTable::open(&w, Some(&d)) }.unwrap();
        t.add_wdl_dictionary(p.level).unwrap();
        drop(t);
        // SAFETY: as above.
        let t = unsafe { CompressedTable::open(&w, Some(&d)) }.unwrap();
        assert_eq!(std::fs::read(&w).unwrap()[120] == 1, p.order.is_some());
        for (s, &c) in codes.iter().enumerate().step_by(7) {
            if let Some(v) = Value::decode(c) {
                assert_eq!(t.value(s as u64).unwrap(), Some(v), "upgraded, slot {s}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
