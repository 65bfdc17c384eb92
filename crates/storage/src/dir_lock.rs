//! The exclusive lock on a database directory: one opener at a time, across processes
//! and within one. The lock is advisory (flock) on `<dir>/LOCK` and is released when
//! the handle is dropped, including when the process dies.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

pub const LOCK_FILE_NAME: &str = "LOCK";

pub struct DirLock {
    _file: File,
}

impl DirLock {
    pub fn acquire(dir: &Path) -> Result<DirLock> {
        let path: PathBuf = dir.join(LOCK_FILE_NAME);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| Error::io("open", &path, e))?;
        match file.try_lock() {
            Ok(()) => Ok(DirLock { _file: file }),
            Err(TryLockError::WouldBlock) => Err(Error::Locked { dir: dir.to_path_buf() }),
            Err(TryLockError::Error(e)) => Err(Error::io("lock", &path, e)),
        }
    }
}
