//! Writing compact Ô Ăn Quan tables (the format is `retro_tables::oaq_compact`): the header's
//! counts tallied in parallel, the solver's rank directory as the stored one, and the conversion
//! of a dense table of an earlier version.

use crate::oaq::canon::{mirror, Canon, MAX_FINITE};
use crate::oaq::ranked_bits::Ranked;
use rayon::prelude::*;
use retro_engine::oaq::Oaq;
use retro_tables::oaq_compact::{self, Directory, CHUNK};
use retro_tables::oaq_table::{
    OaqHeader, OaqTable, ENCODING_OAQ_COMPACT, ENCODING_OAQ_I16, UNREACHABLE,
};
use retro_tables::ranked_view::BLOCK_BYTES;
use retro_tables::TableError;
use std::path::Path;

impl Directory for Ranked {
    fn ones(&self) -> u64 {
        Ranked::ones(self)
    }
    fn block_count(&self) -> usize {
        Ranked::block_count(self)
    }
    fn block_bytes(&self, i: usize) -> [u8; BLOCK_BYTES] {
        Ranked::block_bytes(self, i)
    }
}

/// The header of a compact table: the counts of the `stored` values that `fill(from, out)`
/// computes (`out.len()` values from value number `from`, in slot order), tallied in parallel.
pub fn header(
    fingerprint: &str,
    seeds: [u8; 2],
    slots: u64,
    reachable: u64,
    canonical_slots: u64,
    stored: u64,
    fill: &(dyn Fn(u64, &mut [i8]) + Sync),
) -> OaqHeader {
    let chunks = stored.div_ceil(CHUNK);
    let mut h = (0..chunks)
        .into_par_iter()
        .map(|k| {
            let from = k * CHUNK;
            let mut out = vec![0i8; (stored - from).min(CHUNK) as usize];
            fill(from, &mut out);
            let mut part = OaqHeader::empty(fingerprint, seeds, ENCODING_OAQ_COMPACT);
            let bytes: Vec<u8> = out.iter().map(|&v| v as u8).collect();
            oaq_compact::tally_bytes(&mut part, &bytes);
            part
        })
        .reduce(
            || OaqHeader::empty(fingerprint, seeds, ENCODING_OAQ_COMPACT),
            OaqHeader::merge,
        );
    h.slots = slots;
    h.reachable = reachable;
    h.canonical_slots = canonical_slots;
    h.unreachable = canonical_slots.saturating_sub(stored);
    h
}

/// Writes a compact table atomically from the solver's set of canonical slots with a value.
pub fn write(
    path: &Path,
    header: &OaqHeader,
    set: &Ranked,
    fill: &(dyn Fn(u64, &mut [i8]) + Sync),
) -> Result<(), TableError> {
    oaq_compact::write(path, header, set, fill)
}

/// Canonical slots converted by one task of [`from_dense`] (a multiple of 64).
const CONVERT_SLOTS: u64 = 1 << 16;

/// Writes the compact table of a game from its verified dense table (the file a solve would
/// write, byte for byte): a canonical slot gets the value of its South-to-move position, or,
/// when only the mirror is reachable, the mirror's. Returns the header written.
pub fn from_dense(g: &Oaq, dense: &OaqTable, path: &Path) -> Result<OaqHeader, TableError> {
    let canon = Canon::new(g);
    let h = &dense.header;
    if h.encoding != ENCODING_OAQ_I16 || h.slots != canon.idx.size() {
        return Err(TableError::Mismatch(
            path.to_path_buf(),
            "not a dense table of this game".into(),
        ));
    }
    if h.max > MAX_FINITE as i16 || h.min < -(MAX_FINITE as i16) {
        return Err(TableError::Mismatch(
            path.to_path_buf(),
            format!(
                "values from {} to {} do not fit the compact format (one byte each)",
                h.min, h.max
            ),
        ));
    }
    let size = canon.size();
    let parts = (0..size.div_ceil(CONVERT_SLOTS))
        .into_par_iter()
        .map(|k| {
            let (lo, hi) = (k * CONVERT_SLOTS, ((k + 1) * CONVERT_SLOTS).min(size));
            let mut words = vec![0u64; (hi - lo).div_ceil(64) as usize];
            let mut values = Vec::new();
            for c in lo..hi {
                let d = canon.south_dense(c);
                let mut code = dense.code(d)?.unwrap_or(UNREACHABLE);
                if code == UNREACHABLE && c != size - 1 {
                    let p = canon.idx.unrank(g, d).expect("a canonical slot");
                    code = dense
                        .code(canon.idx.rank(&mirror(&p)))?
                        .unwrap_or(UNREACHABLE);
                }
                if code != UNREACHABLE {
                    let o = c - lo;
                    words[(o / 64) as usize] |= 1 << (o % 64);
                    values.push(code as i8);
                }
            }
            Ok((words, values))
        })
        .collect::<Result<Vec<(Vec<u64>, Vec<i8>)>, TableError>>()?;
    let mut words = Vec::with_capacity(size.div_ceil(64) as usize);
    let mut values = Vec::new();
    for (w, v) in parts {
        words.extend(w);
        values.extend(v);
    }
    let set = Ranked::build(&words);
    drop(words);
    let fill = |from: u64, out: &mut [i8]| {
        out.copy_from_slice(&values[from as usize..from as usize + out.len()]);
    };
    let header = header(
        &h.fingerprint,
        h.seeds,
        h.slots,
        h.reachable,
        size,
        values.len() as u64,
        &fill,
    );
    oaq_compact::write(path, &header, &set, &fill)?;
    Ok(header)
}
