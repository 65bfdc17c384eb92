//! Online backup (docs/operations.md, "Backup and restore"): a consistent copy of the
//! directory's files at one durable LSN, taken while commits go on.
//!
//! `Database::begin_backup` takes the backup gate (`gate.rs`: it waits for a
//! running checkpoint or compaction, and keeps new ones out until the backup ends),
//! then lists what to copy and how much of each, in one look at the WAL's state:
//!
//! | file                 | bytes copied                         | why they stay as they were while the gate is held |
//! |----------------------|--------------------------------------|-------------------------------------------------|
//! | `pages`              | the file's length                    | only checkpoints write or cut it                 |
//! | `checkpoint.journal` | the file's length (0 at rest)        | only checkpoints write it                        |
//! | `corruption.log`     | the file's length, when there is one | replaced whole by a rename: the handle opened here keeps the old file |
//! | `wal/<segment>`      | to the end of its last durable frame (a sealed segment: the whole file) | appends only write past it; retention runs only inside a checkpoint |
//!
//! Not copied: `LOCK` (whoever opens the copy takes it) and `service.token` (a secret:
//! a server on the restored directory gets a token of its own).
//!
//! Every file is opened when the backup begins and read through that handle. The copy
//! is the directory as a crash at that moment would leave it, with no torn write: the
//! record in `pages` names a checkpoint at or below `lsn`, the WAL holds every frame
//! from before that checkpoint up to `lsn` (retention keeps the frames after the
//! previous checkpoint), so opening the copy replays exactly to `lsn`: every commit
//! acknowledged before the backup began, named snapshots (pins) included.
//!
//! Reads fail once the backup ended (`end`, or drop) or the database closed: after
//! that a checkpoint may change the files, so no later byte could be trusted.

use std::path::Path;
use std::sync::{Arc, RwLock};

use crate::corruption_log::CORRUPTION_FILE_NAME;
use crate::database::{Database, Inner};
use crate::error::{Error, Result};
use crate::checkpoint::JOURNAL_FILE_NAME;
use crate::page::PAGE_FILE_NAME;
use crate::vfs::VfsFile;

/// One file of a backup: its path relative to the database directory (`pages`,
/// `wal/<segment>`, ...) and the bytes to copy from its start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupFile {
    pub path: String,
    pub bytes: u64,
}

/// A backup in progress: holds the gate until `end` or drop.
pub struct Backup {
    inner: Arc<Inner>,
    lsn: u64,
    files: Vec<BackupFile>,
    handles: Vec<Arc<dyn VfsFile>>,
    /// True while this backup holds the gate. Reads hold it shared, so `end` waits for
    /// a read under way before maintenance may start.
    holding: RwLock<bool>,
}

impl Database {
    /// Begins a backup: waits for a running checkpoint or compaction to finish, then
    /// keeps them out (an explicit checkpoint or compaction is refused with
    /// `BackupInProgress`, an automatic checkpoint waits for a later batch) until the
    /// backup ends. Several backups may run at once. Commits go on throughout.
    pub fn begin_backup(&self) -> Result<Backup> {
        let inner = self.shared();
        inner.check_open()?;
        if let Some(cause) = inner.failed() {
            return Err(Error::FailStopped(cause));
        }
        inner.gate.enter_backup();
        // Built at once so that a failure below leaves the gate (drop ends it).
        let mut backup = Backup { inner, lsn: 0, files: Vec::new(), handles: Vec::new(), holding: RwLock::new(true) };
        backup.list()?;
        Ok(backup)
    }
}

impl Backup {
    /// The LSN the copy holds every commit up to (the newest durable one when it began).
    pub fn lsn(&self) -> u64 {
        self.lsn
    }

    /// The files to copy, in the order an archive lists them: `pages`, the journal, the
    /// corruption log, then the WAL segments oldest first.
    pub fn files(&self) -> &[BackupFile] {
        &self.files
    }

    /// Reads `files()[index]` from `offset` into `buf`, never past the bytes it copies;
    /// returns the count (0 at its end).
    pub fn read(&self, index: usize, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let holding = self.holding.read().unwrap_or_else(|e| e.into_inner());
        if !*holding {
            return Err(Error::InvalidArgument("the backup has ended: its files may have changed since".into()));
        }
        self.inner.check_open()?;
        // Paired with the checkpoint's own check that no backup copies while it writes.
        assert!(self.inner.gate.backups() > 0, "a backup reads only while it holds the gate");
        let (file, handle) = match (self.files.get(index), self.handles.get(index)) {
            (Some(file), Some(handle)) => (file, handle),
            _ => return Err(Error::InvalidArgument(format!("the backup has no file {index}"))),
        };
        if offset >= file.bytes {
            return Ok(0);
        }
        let n = buf.len().min((file.bytes - offset) as usize);
        let path = self.inner.dir.join(&file.path);
        let mut done = 0;
        while done < n {
            let read = handle.read_at(&mut buf[done..n], offset + done as u64).map_err(|e| Error::io("read", &path, e))?;
            if read == 0 {
                // Only something outside this process shortens a file under the gate.
                let short = std::io::Error::new(std::io::ErrorKind::UnexpectedEof, format!("shorter than the {} bytes the backup copies", file.bytes));
                return Err(Error::io("read", &path, short));
            }
            done += read;
        }
        Ok(n)
    }

    /// Ends the backup: leaves the gate, so checkpoints and compaction may run again.
    /// Later reads fail. Ending twice does nothing.
    pub fn end(&self) {
        let mut holding = self.holding.write().unwrap_or_else(|e| e.into_inner());
        if *holding {
            *holding = false;
            self.inner.gate.leave_backup();
        }
    }

    fn list(&mut self) -> Result<()> {
        let checkpoint_lsn = self.inner.meta.lock().expect("meta lock").checkpoint_lsn;
        let (next_lsn, segments) = self.inner.wal.backup_view()?;
        self.lsn = next_lsn - 1;
        // Paired with the checkpoint, which covers durable frames only.
        assert!(self.lsn >= checkpoint_lsn, "the WAL holds every frame up to the checkpoint the page file names");
        self.add(PAGE_FILE_NAME, None, true)?;
        self.add(JOURNAL_FILE_NAME, None, false)?;
        self.add(CORRUPTION_FILE_NAME, None, false)?;
        for (path, bytes) in segments {
            self.add(&path, Some(bytes), true)?;
        }
        Ok(())
    }

    /// Adds a file to copy: `bytes` of it, or all of it. A missing one that is not
    /// `required` is left out.
    fn add(&mut self, name: &str, bytes: Option<u64>, required: bool) -> Result<()> {
        let path = self.inner.dir.join(Path::new(name));
        let handle = match self.inner.options.vfs.open_read(&path) {
            Ok(handle) => handle,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => return Ok(()),
            Err(e) => return Err(Error::io("open", &path, e)),
        };
        let bytes = match bytes {
            Some(bytes) => bytes,
            None => handle.len().map_err(|e| Error::io("stat", &path, e))?,
        };
        self.files.push(BackupFile { path: name.to_owned(), bytes });
        self.handles.push(handle);
        Ok(())
    }
}

impl Drop for Backup {
    fn drop(&mut self) {
        self.end();
    }
}
