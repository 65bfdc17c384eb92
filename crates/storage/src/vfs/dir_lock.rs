//! The lock on a database directory: one writer at a time, across processes and within
//! one. The lock is advisory (flock) on `<dir>/LOCK` and is released when the handle is
//! dropped, including when the process dies. A writer takes it exclusive; a read-only
//! opener (`tenantdb verify`) takes it shared, so it fails while a server runs and a
//! server cannot start while it reads.

use std::fs::{File, OpenOptions, TryLockError};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

pub const LOCK_FILE_NAME: &str = "LOCK";

/// Mode of every file the core creates: readable by its owner only.
pub const FILE_MODE: u32 = 0o600;

pub struct DirLock {
    _file: Option<File>,
}

impl DirLock {
    /// Takes the exclusive lock, creating `LOCK` if needed.
    pub fn acquire(dir: &Path) -> Result<DirLock> {
        let path: PathBuf = dir.join(LOCK_FILE_NAME);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(FILE_MODE)
            .open(&path)
            .map_err(|e| Error::io("open", &path, e))?;
        lock(file, dir, &path, false)
    }

    /// Takes the shared lock without writing anything. A directory without `LOCK` has
    /// never been opened by a writer (every writer creates it first and nothing removes
    /// it), so there is nothing to lock against and no lock is taken: a read-only
    /// mount holding such a copy stays readable.
    pub fn acquire_shared(dir: &Path) -> Result<DirLock> {
        let path: PathBuf = dir.join(LOCK_FILE_NAME);
        match OpenOptions::new().read(true).open(&path) {
            Ok(file) => lock(file, dir, &path, true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(DirLock { _file: None }),
            Err(e) => Err(Error::io("open", &path, e)),
        }
    }
}

fn lock(file: File, dir: &Path, path: &Path, shared: bool) -> Result<DirLock> {
    let locked = if shared { file.try_lock_shared() } else { file.try_lock() };
    match locked {
        Ok(()) => Ok(DirLock { _file: Some(file) }),
        Err(TryLockError::WouldBlock) => Err(Error::Locked { dir: dir.to_path_buf() }),
        Err(TryLockError::Error(e)) => Err(Error::io("lock", path, e)),
    }
}
