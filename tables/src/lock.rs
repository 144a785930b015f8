//! An advisory lock on a table folder for the length of a solve: two solves into one folder
//! would write the same tables side by side, so the second one is refused (or waits).

use crate::format::TableError;
use std::fs::{self, File, TryLockError};
use std::path::{Path, PathBuf};

/// The name of the lock file in a table folder.
pub const LOCK_FILE: &str = "solve.lock";

/// A held lock on a table folder; released when dropped (or when the process ends, however it
/// ends: the operating system drops the lock with the file).
#[derive(Debug)]
pub struct FolderLock {
    _file: File,
    path: PathBuf,
}

impl FolderLock {
    /// Locks `dir` (created if missing). `wait`: block until the lock is free; otherwise
    /// [`TableError::Busy`] when another process holds it.
    pub fn acquire(dir: &Path, wait: bool) -> Result<FolderLock, TableError> {
        fs::create_dir_all(dir).map_err(|e| TableError::Io(dir.to_path_buf(), e))?;
        let path = dir.join(LOCK_FILE);
        let io_err = |e| TableError::Io(path.clone(), e);
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io_err)?;
        if wait {
            file.lock().map_err(io_err)?;
        } else {
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => return Err(TableError::Busy(path)),
                Err(TryLockError::Error(e)) => return Err(io_err(e)),
            }
        }
        Ok(FolderLock { _file: file, path })
    }

    /// Whether another process holds the lock of `dir` now (`false` when there is no lock file).
    pub fn held_elsewhere(dir: &Path) -> bool {
        let Ok(file) = File::options().write(true).open(dir.join(LOCK_FILE)) else {
            return false;
        };
        matches!(file.try_lock(), Err(TryLockError::WouldBlock))
    }

    /// Removes the temporary files (`*.tmp`) writers left in the folder when they were killed:
    /// with the lock held, no writer of this folder is at work. Returns how many went.
    pub fn remove_stale_temps(&self) -> Result<usize, TableError> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let io_err = |e| TableError::Io(dir.to_path_buf(), e);
        let mut removed = 0;
        for entry in fs::read_dir(dir).map_err(io_err)? {
            let p = entry.map_err(io_err)?.path();
            if p.is_file() && p.extension().is_some_and(|e| e == "tmp") {
                fs::remove_file(&p).map_err(|e| TableError::Io(p.clone(), e))?;
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_until_the_first_is_dropped() {
        let dir = tempfile_dir();
        let first = FolderLock::acquire(&dir, false).unwrap();
        // Locks are per open file: a second open in this process conflicts like another
        // process would.
        match FolderLock::acquire(&dir, false) {
            Err(TableError::Busy(p)) => assert_eq!(p, first.path()),
            other => panic!("expected Busy, got {other:?}"),
        }
        assert!(FolderLock::held_elsewhere(&dir));
        fs::write(
            dir.join("sector_3_3_0_0.rtb.7-0.tmp"),
            b"left by a killed writer",
        )
        .unwrap();
        fs::write(dir.join("sector_3_3_0_0.rtb"), b"kept").unwrap();
        assert_eq!(first.remove_stale_temps().unwrap(), 1);
        assert!(dir.join("sector_3_3_0_0.rtb").exists());
        drop(first);
        assert!(!FolderLock::held_elsewhere(&dir));
        FolderLock::acquire(&dir, false).unwrap();
        fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!("retro-lock-{}", std::process::id()));
        fs::create_dir_all(&d).unwrap();
        d
    }
}
