//! `retro compress`: the raw sector tables under a folder turned into compressed ones, in
//! place: verified, compressed, decoded and compared, and only then the raw file removed. A
//! derivable sector (its side to move has less material) becomes a derived table instead, unless
//! `--no-derive`: a header whose values a one-ply search over the other tables gives.

use crate::args::{CompressArgs, WdlCoder};
use crate::derive::FolderDb;
use crate::error::CliError;
use crate::solve::lock_folder;
use indicatif::{ProgressBar, ProgressStyle};
use retro_tables::compressed_table::{replace_raw, CompressedTable, Params, Replaced};
use retro_tables::verify::table_files;
use serde_json::json;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Whether a file is a sector table's (raw, win/draw/loss or distances) by its name.
fn is_sector_file(p: &Path) -> bool {
    p.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("sector_"))
}

/// Compresses one raw table; returns what it became and the seconds it took.
fn one(
    raw_path: &Path,
    a: &CompressArgs,
    db: Option<(&FolderDb, retro_tables::SectorKey)>,
) -> Result<(Replaced, f64), CliError> {
    let t0 = Instant::now();
    // Wins whose distance a one-ply search gives, unless every value is to be kept.
    let searched = match db {
        Some((db, k)) if !a.no_derive && !a.wdl_only => db.searched_wins(k)?,
        _ => None,
    };
    let (wdl_block, dtm_block) = block_sizes(a);
    let params = Params {
        level: a.level,
        wdl_block,
        dtm_block,
        wdl_sub: match a.wdl_coder {
            WdlCoder::Rans => a.sub_block_slots,
            WdlCoder::Zstd => 0,
        },
        dtm_rans: a.distance_coder == WdlCoder::Rans,
        mix: !a.single_model,
        // The reflected slot order where the folder's rules are known (they give the index).
        order: db
            .filter(|_| !a.index_order)
            .and_then(|(db, k)| db.slot_order(k)),
        ..Params::default()
    };
    // SAFETY: the folder's lock is held; retro's writers replace files by rename only.
    let r = unsafe { replace_raw(raw_path, params, a.wdl_only, true, searched.as_ref()) }
        .map_err(CliError::other)?;
    // Marks a stopped `solve --compress` saved for the raw table go with it.
    retro_solver::sectors::saved_marks::remove(raw_path).map_err(CliError::other)?;
    if let Some((db, k)) = db {
        db.forget(k);
    }
    Ok((r, t0.elapsed().as_secs_f64()))
}

/// The win/draw/loss and distance block sizes `a` asks for, defaults filled in.
fn block_sizes(a: &CompressArgs) -> (u32, u32) {
    let wdl = a.block_slots.unwrap_or(match a.wdl_coder {
        WdlCoder::Rans => 1 << 14,
        WdlCoder::Zstd => 1 << 12,
    });
    (wdl, a.distance_block_slots.unwrap_or(wdl.min(1 << 12)))
}

/// The sector a raw table's file name gives (`sector_W_B_WF_BF.rtb`); deriving it checks the
/// header says the same. Read from the name, not the file: opening an older (version 1) raw
/// table reads it whole, and deriving or compressing it opens it again.
fn sector_of(p: &Path) -> Option<retro_tables::SectorKey> {
    let stem = p.file_stem()?.to_str()?.strip_prefix("sector_")?;
    retro_tables::SectorKey::parse(stem)
}

/// `retro compress`.
pub fn run(a: &CompressArgs) -> Result<(), CliError> {
    let (wdl_block, dtm_block) = block_sizes(a);
    if dtm_block > wdl_block {
        return Err(CliError::input(format!(
            "--distance-block-slots {dtm_block} is more than --block-slots {wdl_block}"
        )));
    }
    if a.wdl_coder == WdlCoder::Rans && a.sub_block_slots > dtm_block {
        return Err(CliError::input(format!(
            "--sub-block-slots {} is more than the distance block ({dtm_block} slots)",
            a.sub_block_slots
        )));
    }
    let files = table_files(&a.dir)
        .map_err(|e| CliError::input(format!("cannot read {}: {e}", a.dir.display())))?;
    let raw: Vec<PathBuf> = files
        .iter()
        .filter(|p| is_sector_file(p) && p.extension().is_some_and(|e| e == "rtb"))
        .cloned()
        .collect();
    // Distances to drop: of tables compressed already, under --wdl-only.
    let drop_dtm: Vec<PathBuf> = files
        .iter()
        .filter(|p| a.wdl_only && is_sector_file(p) && p.extension().is_some_and(|e| e == "rtbd"))
        .filter(|p| !p.with_extension("rtb").exists())
        .cloned()
        .collect();
    if raw.is_empty() && drop_dtm.is_empty() {
        // A folder compressed already (a second run, or one after a finished resume) is done;
        // one without tables is a mistake.
        let done = files
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "rtbw" || e == "rtbp"))
            .count();
        if done == 0 {
            return Err(CliError::other(format!(
                "no raw sector tables under {} (nothing to compress)",
                a.dir.display()
            )));
        }
        if a.json {
            println!("{}", json!({"tables": [], "compressed_already": done}));
        } else {
            println!(
                "nothing to compress: the {done} sector tables under {} are compressed already",
                a.dir.display()
            );
        }
        return Ok(());
    }
    let folders: BTreeSet<PathBuf> = raw
        .iter()
        .chain(&drop_dtm)
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .collect();
    let quiet = a.quiet || a.json;
    let _locks = folders
        .iter()
        .map(|f| lock_folder(f, false, quiet))
        .collect::<Result<Vec<_>, _>>()?;
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(raw.len() as u64)
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} tables {elapsed} {msg}")
            .expect("a valid template"),
    );
    let (mut total_raw, mut total_wdl, mut total_dtm) = (0u64, 0u64, 0u64);
    let mut total_searched = 0u64;
    let mut rows = Vec::new();
    let mut dbs: HashMap<PathBuf, Option<FolderDb>> = HashMap::new();
    let mut derived = 0usize;
    for p in &raw {
        bar.set_message(
            p.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
        let db = match p.parent() {
            Some(folder) => dbs
                .entry(folder.to_path_buf())
                .or_insert_with(|| FolderDb::of_table(p))
                .as_ref(),
            _ => None,
        };
        let with_key = db.and_then(|db| Some((db, sector_of(p)?)));
        let to_derive = with_key.filter(|(db, k)| !a.no_derive && db.derivable(*k));
        let (r, w, d, secs, derive, searched) = match to_derive {
            Some((db, key)) => {
                let t0 = Instant::now();
                let r = db.derive(key)?;
                derived += 1;
                (r, 0, 0, t0.elapsed().as_secs_f64(), true, None)
            }
            None => {
                let (r, secs) = one(p, a, with_key)?;
                let searched = (r.searched_wins, r.wins);
                (
                    r.raw_bytes,
                    r.wdl_bytes,
                    r.dtm_bytes,
                    secs,
                    false,
                    Some(searched),
                )
            }
        };
        let (s, of) = searched.unwrap_or((0, 0));
        total_searched += s;
        total_raw += r;
        total_wdl += w;
        total_dtm += d;
        if !a.json {
            bar.suspend(|| {
                if derive {
                    println!(
                        "{}: {r} bytes raw -> derived (a one-ply search gives its values), \
                         {secs:.1} s",
                        p.display()
                    )
                } else {
                    println!(
                        "{}: {r} bytes raw -> {w} win/draw/loss + {d} distances ({:.1}%){}, \
                         {secs:.1} s",
                        p.display(),
                        100.0 * (w + d) as f64 / r.max(1) as f64,
                        if s > 0 {
                            format!(", {s} of {of} wins' distances left to a search")
                        } else {
                            String::new()
                        }
                    )
                }
            });
        }
        rows.push(
            json!({"table": p.display().to_string(), "raw_bytes": r, "wdl_bytes": w,
            "dtm_bytes": d, "derived": derive, "searched_wins": s, "seconds": secs}),
        );
        bar.inc(1);
    }
    bar.finish_and_clear();
    for d in &drop_dtm {
        // SAFETY: as in `one`.
        let c = unsafe { CompressedTable::open(&d.with_extension("rtbw"), None) }
            .map_err(CliError::other)?;
        c.verify().map_err(CliError::other)?;
        std::fs::remove_file(d).map_err(|e| CliError::other(format!("{}: {e}", d.display())))?;
    }
    if a.json {
        println!(
            "{}",
            json!({"tables": rows, "raw_bytes": total_raw, "wdl_bytes": total_wdl,
                "dtm_bytes": total_dtm, "derived": derived, "searched_wins": total_searched,
                "distances_dropped": drop_dtm.len()})
        );
    } else {
        println!(
            "{} compressed ({derived} of them derived): {total_raw} bytes raw -> \
             {total_wdl} win/draw/loss + {total_dtm} distances{}{}",
            crate::output::count(raw.len(), "table"),
            if total_searched > 0 {
                format!("; {total_searched} wins' distances left to a search")
            } else {
                String::new()
            },
            if drop_dtm.is_empty() {
                String::new()
            } else {
                format!(
                    "; distances of {} dropped",
                    crate::output::count(drop_dtm.len(), "table")
                )
            }
        );
    }
    Ok(())
}
