//! `retro verify --upgrade`'s step for compressed tables written before December 2026 (slots
//! in the index's order, or win/draw/loss or distance blocks coded by zstd): written again in
//! the reflected order (see `retro_tables::slot_order`) with the rANS coders
//! (`retro_tables::wdl_rans`, `retro_tables::dtm_rans`), where the folder's rules are known,
//! since the order needs the board. Through a raw working copy: the values decoded and the wasted slots found again from
//! the index, then compressed as `retro compress` does, the same wins left to a search, every
//! slot compared with the copy before the copy is removed.
//!
//! Tables of the first rANS coders (block coders 2 and 3, before December 5, 2026) are only
//! coded again (`CompressedTable::transcode`): the same symbols and entries, no working copy.

use crate::derive::FolderDb;
use crate::error::CliError;
use retro_tables::compressed_table::{replace_raw, CompressedTable, Params};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Writes the compressed table whose win/draw/loss file is `wdl` again in the reflected slot
/// order with the rANS coders, if it is in the index's order or either part is coded by zstd,
/// has distances and the folder's rules are known; whether it did.
/// `dbs` caches each folder's rules. Call with the folder's lock held, after
/// [`finish_left_over`].
pub fn rewrite(wdl: &Path, dbs: &mut HashMap<PathBuf, Option<FolderDb>>) -> Result<bool, CliError> {
    let dtm = wdl.with_extension("rtbd");
    let has_dtm = dtm.exists();
    // SAFETY: the folder's lock is held; retro's writers replace files by rename only.
    let c =
        unsafe { CompressedTable::open(wdl, has_dtm.then_some(&dtm)) }.map_err(CliError::other)?;
    if c.order().is_some() && c.transcodable() {
        if c.is_mix() {
            return Ok(false);
        }
        transcode(c, wdl, has_dtm.then_some(&dtm))?;
        return Ok(true);
    }
    if !has_dtm {
        return Ok(false);
    }
    let folder = wdl.parent().unwrap_or(Path::new(".")).to_path_buf();
    let db = dbs
        .entry(folder)
        .or_insert_with_key(|folder| FolderDb::of_header(&c.header, folder));
    let Some(db) = db.as_ref() else {
        return Ok(false);
    };
    let k = c.header.sector;
    let Some(order) = db.slot_order(k) else {
        return Ok(false);
    };
    let searched = c.searched_slots().map_err(CliError::other)?;
    // The distance blocks as they were; the win/draw/loss blocks at least as long as the
    // rANS coder's default (its probes decode a sub-block, whatever the block).
    // (at most 32768 slots: the rANS coders count a block's entries in u16).
    let dtm_block = c
        .distance_block_slots()
        .unwrap_or(c.block_slots())
        .min(1 << 15) as u32;
    let params = Params {
        wdl_block: Params::default().wdl_block.max(dtm_block),
        dtm_block,
        order: Some(order),
        ..Params::default()
    };
    drop(c);
    db.forget(k);
    if !db.restore_raw(k)? {
        return Err(CliError::other(format!(
            "{}: its values decoded do not give its header's counts (not rewritten)",
            wdl.display()
        )));
    }
    // SAFETY: as above; the raw copy was just written, and it is compared slot by slot with
    // what is written from it.
    unsafe { replace_raw(&db.raw_path(k), params, false, false, searched.as_ref()) }
        .map_err(CliError::other)?;
    db.forget(k);
    Ok(true)
}

/// Codes the table `c` (files `wdl` and `dtm`) again with the second rANS coders (block
/// coders 4 and 5), beside its files first, compared block by block, then renamed over them
/// (the distance file first: either pair of files is a whole table).
fn transcode(c: CompressedTable, wdl: &Path, dtm: Option<&Path>) -> Result<(), CliError> {
    let new_wdl = wdl.with_extension("rtbw.upgrade");
    let new_dtm = dtm.map(|d| d.with_extension("rtbd.upgrade"));
    let written = c.transcode(&new_wdl, new_dtm.as_deref());
    drop(c);
    let renamed = written.map_err(CliError::other).and_then(|()| {
        let rename = |from: &Path, to: &Path| {
            std::fs::rename(from, to).map_err(|e| CliError::other(format!("{}: {e}", to.display())))
        };
        if let (Some(from), Some(to)) = (&new_dtm, dtm) {
            rename(from, to)?;
        }
        rename(&new_wdl, wdl)
    });
    if renamed.is_err() {
        // What was written beside is of no use: the table stays as it was.
        let _ = std::fs::remove_file(&new_wdl);
        if let Some(d) = &new_dtm {
            let _ = std::fs::remove_file(d);
        }
    }
    renamed
}

/// Compresses the raw table at `raw` in place as `retro compress` does (its searched wins
/// chosen again, the reflected order) if compressed files lie beside it, which is what a
/// rewrite or a solve killed before its end leaves (probes read the raw table meanwhile, and
/// the compressed pair may be half rewritten); whether it did. Call with the folder's lock
/// held.
pub fn finish_left_over(
    raw: &Path,
    dbs: &mut HashMap<PathBuf, Option<FolderDb>>,
) -> Result<bool, CliError> {
    if !raw.with_extension("rtbw").exists() {
        return Ok(false);
    }
    let folder = raw.parent().unwrap_or(Path::new(".")).to_path_buf();
    let db = dbs.entry(folder).or_insert_with(|| FolderDb::of_table(raw));
    let Some(db) = db.as_ref() else {
        return Ok(false);
    };
    // SAFETY: as in `rewrite`.
    let k = unsafe { retro_tables::Table::open(raw) }
        .map_err(CliError::other)?
        .header
        .sector;
    let params = Params {
        order: db.slot_order(k),
        ..Params::default()
    };
    let searched = db.searched_wins(k)?;
    db.forget(k);
    // SAFETY: as in `rewrite`; the raw table is checked whole first.
    unsafe { replace_raw(raw, params, false, true, searched.as_ref()) }.map_err(CliError::other)?;
    db.forget(k);
    Ok(true)
}
