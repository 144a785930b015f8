//! Hardening, end to end with the `retro` binary: a solve whose disk fills up part-way fails
//! cleanly (exit code 1, an `error:` naming the file or folder and the system's reason), keeps
//! only complete tables (byte-identical to an uninterrupted run, so `retro verify` accepts
//! nothing partial), leaves no `.tmp` file, and a later solve resumes to the same tables.
//!
//! Two ways to fill the disk without root or a mount, on any Linux machine:
//! - a file-size limit (`ulimit -f`, with SIGXFSZ ignored so that a write past the limit fails
//!   with EFBIG instead of killing the process), raised step by step so that each run writes a
//!   few more tables and fails on the next one;
//! - `/dev/full` (every write fails with ENOSPC) put in place of a table's temporary file, or of
//!   the write test a solve makes before it starts, through a symbolic link. The writer opens the
//!   link, fails, and removes the link (never `/dev/full` itself).

use retro_tests::{retro, retro_bin, stderr, stdout};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::Instant;

/// The solve of every test: nine-mens-morris moving phase up to 4 against 4, four tables of
/// 0.4 to 7.3 MB in two-sector units (3_3; 3_4 + 4_3; 4_4), about 1.6 s.
const SOLVE: &[&str] = &["solve", "mill", "--max-stones", "4"];

/// The uninterrupted solve: table names in the order the solve writes them, and their bytes.
struct Reference {
    order: Vec<String>,
    bytes: BTreeMap<String, Vec<u8>>,
}

fn reference() -> &'static Reference {
    static REF: OnceLock<Reference> = OnceLock::new();
    REF.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        let o = retro(
            &[SOLVE, &["--json", "--dir", d.path().to_str().unwrap()]].concat(),
            None,
        );
        assert!(o.status.success(), "reference solve: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        let order: Vec<String> = v["sectors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["sector"].as_str().unwrap().to_string())
            .collect();
        let bytes = tables(&folder(d.path()));
        assert_eq!(
            order.iter().cloned().collect::<BTreeSet<_>>(),
            bytes.keys().cloned().collect::<BTreeSet<_>>(),
            "the reference solve's report and its tables"
        );
        assert_eq!(order.len(), 4, "{order:?}");
        Reference { order, bytes }
    })
}

/// The folder of the default rules' tables under `dir`.
fn folder(dir: &Path) -> PathBuf {
    retro_solver::sectors::db::Db::new(
        retro_engine::mill::Mill::new(retro_engine::mill::Profile::default()),
        dir,
    )
    .folder
}

/// A sector's table path without its extension (`.../sector_3_4_0_0`).
fn stem(folder: &Path, sector: &str) -> PathBuf {
    let [w, b, wf, bf] = sector
        .split('_')
        .map(|n| n.parse::<u8>().unwrap())
        .collect::<Vec<_>>()[..]
    else {
        panic!("sector name {sector}")
    };
    let db = retro_solver::sectors::db::Db::new(
        retro_engine::mill::Mill::new(retro_engine::mill::Profile::default()),
        folder.parent().unwrap(),
    );
    let path = db.path(retro_solver::sectors::sector::SectorKey { w, b, wf, bf });
    assert_eq!(path.parent(), Some(folder));
    path.with_extension("")
}

/// The `.rtb` tables in `folder`, by sector name (`3_4_0_0`), with their bytes.
fn tables(folder: &Path) -> BTreeMap<String, Vec<u8>> {
    files(folder, "rtb")
        .into_iter()
        .map(|(name, path)| {
            let sector = name
                .strip_prefix("sector_")
                .and_then(|n| n.strip_suffix(".rtb"))
                .unwrap_or(&name)
                .to_string();
            (sector, std::fs::read(path).unwrap())
        })
        .collect()
}

/// Files with the extension `ext` in `folder`, by file name.
fn files(folder: &Path, ext: &str) -> BTreeMap<String, PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return BTreeMap::new();
    };
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect()
}

/// The colour-swapped twin of a sector (`3_4_0_0` -> `4_3_0_0`): solved in the same unit.
fn twin(sector: &str) -> String {
    let f: Vec<&str> = sector.split('_').collect();
    format!("{}_{}_{}_{}", f[1], f[0], f[3], f[2])
}

/// Runs `retro solve` through `sh` with SIGXFSZ ignored and, if given, a file-size limit of
/// `blocks` of the shell's `ulimit -f` unit.
fn solve_limited(dir: &Path, blocks: u64) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(r#"trap "" XFSZ; ulimit -f "$1" || exit 125; shift; exec "$@""#)
        .arg("sh")
        .arg(blocks.to_string())
        .arg(retro_bin())
        .args(SOLVE)
        .args(["-q", "--dir"])
        .arg(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run sh")
}

/// Bytes per block of `ulimit -f` in `sh` (512 in dash and POSIX shells, 1024 in bash): the size
/// of what the shell's own `printf` manages to write under a limit of one block.
fn ulimit_block() -> u64 {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("probe");
    let o = Command::new("sh")
        .arg("-c")
        .arg(r#"trap "" XFSZ; ulimit -f 1 || exit 125; printf '%5000s' x > "$1""#)
        .arg("sh")
        .arg(&f)
        .stdin(Stdio::null())
        .output()
        .expect("run sh");
    let size = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
    assert!(
        !o.status.success() && (size == 512 || size == 1024),
        "ulimit -f 1 in sh: exit {:?}, wrote {size} bytes (expected the write to fail after 512 \
         or 1024): {}",
        o.status.code(),
        stderr(&o)
    );
    size
}

/// A failed solve: exit code 1 (not a panic, not a signal); one `error:` line naming `path` and
/// the system's reason `errno`; the tables are exactly `expected` (sector names), each
/// byte-identical to the reference; no `.tmp` file is left; `retro verify` accepts those tables
/// and fails on nothing.
fn check_failure(
    what: &str,
    o: &Output,
    dir: &Path,
    path: &Path,
    errno: &str,
    expected: &BTreeSet<String>,
) {
    let r = reference();
    let err = stderr(o);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{what}: exit {:?} (none: killed by a signal; 101: a panic)\n{err}",
        o.status.code()
    );
    assert!(
        err.starts_with("error: ")
            && err.trim_end().lines().count() == 1
            && err.contains(&*path.to_string_lossy())
            && err.contains(errno),
        "{what}: the error does not name {} with '{errno}':\n{err}",
        path.display()
    );
    let f = folder(dir);
    let present = tables(&f);
    assert_eq!(
        present.keys().cloned().collect::<BTreeSet<_>>(),
        *expected,
        "{what}: tables left"
    );
    for (sector, bytes) in &present {
        assert!(
            r.bytes[sector] == *bytes,
            "{what}: the table of {sector} differs from the uninterrupted solve's"
        );
    }
    let tmp = files(&f, "tmp");
    assert!(tmp.is_empty(), "{what}: temporary files left: {tmp:?}");
    let v = retro(&["verify", "--dir", dir.to_str().unwrap()], None);
    let out = stdout(&v);
    if expected.is_empty() {
        // Nothing was kept: verify says there is nothing to verify, rather than passing.
        assert_eq!(v.status.code(), Some(1), "{what}: verify\n{out}");
        assert!(
            stderr(&v).contains("no tables under"),
            "{what}: {}",
            stderr(&v)
        );
    } else {
        assert!(v.status.success(), "{what}: verify\n{out}{}", stderr(&v));
    }
    assert_eq!(
        out.lines().filter(|l| l.starts_with("ok")).count(),
        expected.len(),
        "{what}: verify\n{out}"
    );
    eprintln!(
        "{what}: exit 1, {}; {} table(s) kept",
        err.trim(),
        present.len()
    );
}

/// A solve without faults in `dir`: succeeds, keeps exactly the complete units of `before`
/// (the tables left by the failed solves), and ends with the reference tables; verify passes.
fn check_resume(what: &str, dir: &Path, before: &BTreeSet<String>) {
    let r = reference();
    let o = retro(
        &[SOLVE, &["--json", "--dir", dir.to_str().unwrap()]].concat(),
        None,
    );
    assert!(o.status.success(), "{what}: {}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let reused: BTreeSet<String> = v["sectors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["reused"] == true)
        .map(|s| s["sector"].as_str().unwrap().to_string())
        .collect();
    let complete: BTreeSet<String> = before
        .iter()
        .filter(|s| before.contains(&twin(s)))
        .cloned()
        .collect();
    assert_eq!(
        reused, complete,
        "{what}: tables kept (present: {before:?})"
    );
    let after = tables(&folder(dir));
    assert!(
        after == r.bytes,
        "{what}: tables after the resumed solve differ from the uninterrupted solve's: {:?}",
        after.keys().collect::<Vec<_>>()
    );
    let v = retro(&["verify", "--dir", dir.to_str().unwrap()], None);
    assert!(v.status.success(), "{what}: verify\n{}", stdout(&v));
    eprintln!(
        "{what}: kept {reused:?}, {} tables byte-identical, verify passes",
        after.len()
    );
}

/// The tables a solve under a file-size limit of `limit` bytes keeps, starting from `present`:
/// in write order, each table either is present with its whole unit (kept) or fits; the first
/// that does neither fails the solve. Returns (the tables after the solve, the failing one).
fn expected_under(limit: u64, present: &BTreeSet<String>) -> (BTreeSet<String>, Option<String>) {
    let r = reference();
    let mut kept = BTreeSet::new();
    for s in &r.order {
        let reused = present.contains(s) && present.contains(&twin(s));
        if reused || r.bytes[s].len() as u64 <= limit {
            kept.insert(s.clone());
        } else {
            // The failing unit's tables written before the failure stay: a unit's first table
            // is renamed into place before its second is written.
            return (kept, Some(s.clone()));
        }
    }
    (kept, None)
}

#[test]
fn solve_under_a_file_size_limit_fails_cleanly_and_resumes() {
    let t0 = Instant::now();
    let r = reference();
    let block = ulimit_block();
    let size = |s: &str| r.bytes[s].len() as u64;
    // Limits in blocks: the first table does not fit (the failure comes before any table is
    // written); then 3_3 fits and 3_4 does not; then everything but 4_4 fits.
    let (s33, s34, s43, s44) = (
        size("3_3_0_0"),
        size("3_4_0_0"),
        size("4_3_0_0"),
        size("4_4_0_0"),
    );
    assert!(s33 < s34.min(s43) && s34.max(s43) < s44, "table sizes");
    let limits = [
        1,
        (s33 + s34.min(s43)) / 2 / block,
        (s34.max(s43) + s44) / 2 / block,
    ];
    let d = tempfile::tempdir().unwrap();
    let f = folder(d.path());
    let mut present = BTreeSet::new();
    for (step, &blocks) in limits.iter().enumerate() {
        let limit = blocks * block;
        let (expected, failing) = expected_under(limit, &present);
        let failing = failing.expect("a table that does not fit");
        let what = format!("file-size limit {limit} bytes (step {})", step + 1);
        let o = solve_limited(d.path(), blocks);
        check_failure(
            &what,
            &o,
            d.path(),
            &stem(&f, &failing),
            "(os error 27)",
            &expected,
        );
        assert!(
            expected.len() > present.len() || step == 0,
            "{what}: no progress"
        );
        present = expected;
    }
    assert_eq!(present.len(), 3);
    check_resume("resume after the file-size limits", d.path(), &present);
    eprintln!("whole test {:.1} s", t0.elapsed().as_secs_f64());
}

#[test]
fn solve_on_a_full_device_fails_cleanly_and_resumes() {
    let t0 = Instant::now();
    let full = Path::new("/dev/full");
    if cfg!(not(target_os = "linux")) && !full.exists() {
        eprintln!("note: no /dev/full on this system: the ENOSPC cases did not run");
        return;
    }
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::metadata(full).is_ok_and(|m| m.file_type().is_char_device()),
        "/dev/full is missing or not a device on this Linux system"
    );
    let r = reference();
    let d = tempfile::tempdir().unwrap();
    let f = folder(d.path());
    std::fs::create_dir_all(&f).unwrap();

    // 1. The disk is full before the solve starts: its write test fails, before any solving.
    let probe = f.join(".write-test");
    std::os::unix::fs::symlink(full, &probe).unwrap();
    let start = Instant::now();
    let o = retro(
        &[SOLVE, &["-q", "--dir", d.path().to_str().unwrap()]].concat(),
        None,
    );
    check_failure(
        "full before the start",
        &o,
        d.path(),
        &f,
        "(os error 28)",
        &BTreeSet::new(),
    );
    assert!(
        start.elapsed().as_secs_f64() < 1.0,
        "the solve should fail before solving anything"
    );
    // The solve removes its write test's file even when the write failed (here: our link).
    assert!(
        std::fs::symlink_metadata(&probe).is_err(),
        "the write test's file was left behind"
    );

    // 2. The disk fills while writing the second table of a unit: the unit's first table is in
    // place (complete, it verifies), the second is not.
    let second = &r.order[2];
    assert_eq!(&twin(second), &r.order[1], "unit order {:?}", r.order);
    // Temporary names are `<table>.<pid>-<n>.tmp`, `n` counting the process's writes from 0:
    // the shell links the third one's name to /dev/full, then becomes the solve (same pid).
    let table = stem(&f, second).with_extension("rtb");
    let child = Command::new("sh")
        .arg("-c")
        .arg(r#"ln -s "$1" "$2.$$-2.tmp" && shift 2 && exec "$@""#)
        .arg("sh")
        .arg(full)
        .arg(&table)
        .arg(retro_tests::retro_bin())
        .args(SOLVE)
        .args(["-q", "--dir", d.path().to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let tmp = PathBuf::from(format!("{}.{}-2.tmp", table.display(), child.id()));
    let o = child.wait_with_output().unwrap();
    let expected: BTreeSet<String> = r.order[..2].iter().cloned().collect();
    check_failure(
        "full while writing a unit's second table",
        &o,
        d.path(),
        &tmp,
        "(os error 28)",
        &expected,
    );
    assert!(
        std::fs::symlink_metadata(&tmp).is_err(),
        "the writer removes its temporary file"
    );
    assert!(
        std::fs::metadata(full).is_ok_and(|m| m.file_type().is_char_device()),
        "/dev/full is still there"
    );

    // 3. Space again: the solve keeps the complete unit, redoes the split one, and finishes.
    check_resume("resume after the full device", d.path(), &expected);
    eprintln!("whole test {:.1} s", t0.elapsed().as_secs_f64());
}
