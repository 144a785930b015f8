//! Hardening, end to end with the `retro` binary: a solve killed with SIGKILL part-way resumes to
//! tables byte-identical to an uninterrupted run, and a solve that cannot write its tables
//! (read-only directory, a file in the way) fails cleanly, names the path and leaves no table
//! that `retro verify` accepts.

use retro_tests::{retro, retro_bin, stderr, stdout};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Every `.rtb` and `.tmp` file under `dir`, by file name.
fn table_files(dir: &Path) -> BTreeMap<String, PathBuf> {
    fn walk(dir: &Path, out: &mut BTreeMap<String, PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rtb" || x == "tmp") {
                out.insert(e.file_name().to_string_lossy().into_owned(), p);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, &mut out);
    out
}

fn count(files: &BTreeMap<String, PathBuf>, ext: &str) -> usize {
    files.keys().filter(|k| k.ends_with(ext)).count()
}

const SOLVE: &[&str] = &["solve", "mill", "--max-stones", "5", "-q"];

fn spawn_solve(dir: &Path) -> Child {
    Command::new(retro_bin())
        .args(SOLVE)
        .arg("--dir")
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn retro solve")
}

/// Polls `dir` until `stop` says so, then kills the solve with SIGKILL. Returns `None` when the
/// solve ended by itself first, else the files seen just before the kill.
fn kill_when(
    child: &mut Child,
    dir: &Path,
    stop: impl Fn(&BTreeMap<String, PathBuf>) -> bool,
) -> Option<BTreeMap<String, PathBuf>> {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if child.try_wait().expect("try_wait").is_some() {
            return None;
        }
        let files = table_files(dir);
        if stop(&files) || Instant::now() > deadline {
            child.kill().expect("kill");
            let status = child.wait().expect("wait");
            // Killed by a signal: no exit code. (The solve may also have ended in between.)
            if status.code().is_some() {
                return None;
            }
            return Some(files);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// After a kill: every `.rtb` left is byte-identical to the uninterrupted run's, and `retro
/// verify` passes or fails only on `.tmp` leftovers.
fn check_after_kill(dir: &Path, reference: &BTreeMap<String, Vec<u8>>, round: &str) -> usize {
    let files = table_files(dir);
    for (name, path) in &files {
        if name.ends_with(".rtb") {
            let bytes = std::fs::read(path).unwrap();
            assert!(
                reference.get(name) == Some(&bytes),
                "{round}: {name} left by the killed solve differs from the uninterrupted run"
            );
        }
    }
    let d = dir.to_str().unwrap();
    let o = retro(&["verify", "--dir", d], None);
    let out = stdout(&o);
    let fails: Vec<&str> = out.lines().filter(|l| l.starts_with("FAIL")).collect();
    let oks = out.lines().filter(|l| l.starts_with("ok")).count();
    assert_eq!(oks, count(&files, ".rtb"), "{round}: verify output:\n{out}");
    if fails.is_empty() {
        assert!(o.status.success(), "{round}: {out}\n{}", stderr(&o));
    } else {
        assert_eq!(o.status.code(), Some(1), "{round}: {out}\n{}", stderr(&o));
        assert!(
            fails.iter().all(|l| l.contains(".tmp ")),
            "{round}: verify failed on something other than a .tmp leftover:\n{out}"
        );
    }
    fails.len()
}

#[test]
fn killed_solve_resumes_to_identical_tables() {
    let t0 = Instant::now();
    let d1 = tempfile::tempdir().unwrap();
    let o = retro(
        &[SOLVE, &["--dir", d1.path().to_str().unwrap()]].concat(),
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let reference: BTreeMap<String, Vec<u8>> = table_files(d1.path())
        .into_iter()
        .map(|(n, p)| (n, std::fs::read(p).unwrap()))
        .collect();
    let total = reference.len();
    assert!(total >= 9 && reference.keys().all(|k| k.ends_with(".rtb")));
    let uninterrupted = t0.elapsed().as_secs_f64();

    // Round 1: kill as soon as the first table is in place.
    let mut attempt = 0;
    let (d2, seen) = loop {
        attempt += 1;
        let d2 = tempfile::tempdir().unwrap();
        let mut child = spawn_solve(d2.path());
        if let Some(seen) = kill_when(&mut child, d2.path(), |f| count(f, ".rtb") >= 1) {
            if count(&seen, ".rtb") < total {
                break (d2, seen);
            }
        }
        assert!(
            attempt < 3,
            "the solve finished before it could be killed ({attempt} attempts)"
        );
    };
    let left1 = count(&table_files(d2.path()), ".rtb");
    let tmp1 = check_after_kill(d2.path(), &reference, "round 1");
    eprintln!(
        "round 1 (attempt {attempt}): killed with {} of {total} tables written ({left1} after \
         the kill), {tmp1} .tmp leftovers",
        count(&seen, ".rtb")
    );

    // Round 2: resume, and kill while a table is being written (a .tmp exists) once at least
    // one more unit is done, or else after four more tables.
    let before = left1;
    let mut child = spawn_solve(d2.path());
    let killed = kill_when(&mut child, d2.path(), |f| {
        (count(f, ".tmp") > 0 && count(f, ".rtb") >= before + 2) || count(f, ".rtb") >= before + 4
    });
    let left2 = count(&table_files(d2.path()), ".rtb");
    let tmp2 = check_after_kill(d2.path(), &reference, "round 2");
    eprintln!(
        "round 2: {}; {left2} of {total} tables, {tmp2} .tmp leftovers",
        match &killed {
            Some(f) if count(f, ".tmp") > 0 => "killed while a table was being written",
            Some(_) => "killed between tables",
            None => "the solve ended before the kill",
        }
    );

    // Final run: resumes, keeps the finished units, and ends with the same bytes as run 1.
    let o = retro(
        &[
            "solve",
            "mill",
            "--max-stones",
            "5",
            "--json",
            "--dir",
            d2.path().to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let present: Vec<String> = table_files(d2.path()).into_keys().collect();
    let reused: Vec<String> = v["sectors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["reused"] == true)
        .map(|s| format!("sector_{}.rtb", s["sector"].as_str().unwrap()))
        .collect();
    // A unit (a sector and its colour-swapped twin) is kept only when all its tables are
    // there; the kill can split at most one unit.
    assert!(
        reused.len() + 1 >= left2 && reused.len() <= left2,
        "kept {reused:?} of {left2} tables left"
    );
    let files = table_files(d2.path());
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        reference.keys().collect::<Vec<_>>(),
        "files after the resumed solve (before it: {present:?})"
    );
    for (name, path) in &files {
        assert!(
            std::fs::read(path).unwrap() == reference[name],
            "{name} differs from the uninterrupted run"
        );
    }
    let o = retro(&["verify", "--dir", d2.path().to_str().unwrap()], None);
    assert!(o.status.success(), "{}", stdout(&o));
    eprintln!(
        "uninterrupted solve {uninterrupted:.1} s; resumed solve kept {} tables; {total} tables \
         byte-identical; whole test {:.1} s",
        reused.len(),
        t0.elapsed().as_secs_f64()
    );
}

/// Runs `retro` with the given arguments, as the user `uid` if given (root only).
fn retro_as(uid: Option<u32>, args: &[&str]) -> std::io::Result<std::process::Output> {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(retro_bin());
    cmd.args(args).stdin(Stdio::null());
    if let Some(id) = uid {
        cmd.gid(id).uid(id);
    }
    cmd.output()
}

/// A failed solve: non-zero exit code (not a panic), an `error:` message naming `path`, and no
/// table under `dir` that `retro verify` accepts.
fn check_failed_solve(dir: &Path, path: &Path, what: &str, uid: Option<u32>) {
    let d = dir.to_str().unwrap();
    let o = retro_as(
        uid,
        &["solve", "mill", "--max-stones", "3", "-q", "--dir", d],
    )
    .expect("run retro");
    let err = stderr(&o);
    assert!(
        !o.status.success() && o.status.code() != Some(101),
        "{what}: exit {:?}\n{err}",
        o.status.code()
    );
    assert!(
        err.starts_with("error:") && err.contains(&*path.to_string_lossy()),
        "{what}: the error does not name {}:\n{err}",
        path.display()
    );
    let v = retro(&["verify", "--dir", d], None);
    let out = stdout(&v);
    assert!(
        !out.lines().any(|l| l.starts_with("ok")),
        "{what}: verify accepts a table:\n{out}"
    );
    eprintln!("{what}: exit {:?}, {}", o.status.code(), err.trim());
}

#[test]
fn solve_that_cannot_write_fails_naming_the_path() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path, m: u32| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
    };
    let t = tempfile::tempdir().unwrap();
    mode(t.path(), 0o755);

    // A read-only directory, and a read-only profile folder inside a writable directory.
    let ro = t.path().join("read-only");
    std::fs::create_dir(&ro).unwrap();
    let dir = t.path().join("ro-folder");
    let folder = retro_solver::sectors::db::Db::new(
        retro_engine::mill::Mill::new(retro_engine::mill::Profile::default()),
        &dir,
    )
    .folder;
    std::fs::create_dir_all(&folder).unwrap();
    mode(&dir, 0o755);
    mode(&ro, 0o555);
    mode(&folder, 0o555);
    let probe = ro.join("probe");
    // Root writes anyway: then run the solve as `nobody` (65534) if that is possible.
    let mut uid = None;
    let mut skip = false;
    if std::fs::File::create(&probe).is_ok() {
        std::fs::remove_file(&probe).unwrap();
        match retro_as(Some(65534), &["variants"]) {
            Ok(o) if o.status.success() => {
                eprintln!(
                    "note: running as root, which may write to mode 0555 directories: the \
                     read-only cases run `retro` as uid 65534"
                );
                uid = Some(65534);
            }
            _ => {
                eprintln!(
                    "note: {} is writable despite mode 0555 (running as root) and `retro` \
                     cannot run as another user: read-only cases skipped",
                    ro.display()
                );
                skip = true;
            }
        }
    }
    if !skip {
        check_failed_solve(&ro, &ro, "read-only --dir", uid);
        check_failed_solve(&dir, &folder, "read-only profile folder", uid);
    }
    mode(&ro, 0o755);
    mode(&folder, 0o755);

    // Cases that fail for root too. `--dir` is a regular file:
    let file = t.path().join("a-file");
    std::fs::write(&file, b"not a directory").unwrap();
    check_failed_solve(&file, &file, "--dir is a file", None);

    // The table cannot be put in place (a directory is where it goes): the unit is solved,
    // written to its temporary file, then the rename fails and the temporary file goes.
    let dir = t.path().join("blocked");
    let db = retro_solver::sectors::db::Db::new(
        retro_engine::mill::Mill::new(retro_engine::mill::Profile::default()),
        &dir,
    );
    let rtb = db.path(retro_solver::sectors::sector::SectorKey {
        w: 3,
        b: 3,
        wf: 0,
        bf: 0,
    });
    std::fs::create_dir_all(rtb.join("in-the-way")).unwrap();
    check_failed_solve(&dir, &rtb, "table path blocked", None);
    let left: Vec<_> = std::fs::read_dir(&db.folder)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
    assert!(rtb.is_dir(), "a table was written at {}", rtb.display());
}
