//! An online backup (`storage::Backup`): the files to copy and how many bytes of each,
//! read on the thread pool; `end` leaves the backup gate at once (so do the garbage
//! collector's drop and the engine's close, later).

use std::sync::Arc;

use napi::bindgen_prelude::{AsyncTask, Buffer};
use napi::{Env, Task};
use napi_derive::napi;

use crate::error::OrThrow;

#[napi]
pub struct Backup {
    pub(crate) inner: Arc<storage::Backup>,
}

/// A file of a backup: its path in the database directory and the bytes to copy.
#[napi(object)]
pub struct BackupFileInfo {
    pub path: String,
    pub bytes: f64,
}

#[napi]
impl Backup {
    /// The LSN the copy holds every commit up to.
    #[napi(getter)]
    pub fn lsn(&self) -> f64 {
        self.inner.lsn() as f64
    }

    #[napi(getter)]
    pub fn files(&self) -> Vec<BackupFileInfo> {
        self.inner.files().iter().map(|f| BackupFileInfo { path: f.path.clone(), bytes: f.bytes as f64 }).collect()
    }

    /// Up to `length` bytes of file `index` from `offset`: fewer only at the end of
    /// what the backup copies of it (none past it).
    #[napi(ts_return_type = "Promise<Buffer>")]
    pub fn read(&self, index: u32, offset: f64, length: u32) -> AsyncTask<ReadBackup> {
        AsyncTask::new(ReadBackup { backup: self.inner.clone(), index: index as usize, offset: offset.max(0.0) as u64, length: length as usize })
    }

    /// Ends the backup: checkpoints and compaction may run again; reads fail.
    #[napi]
    pub fn end(&self) {
        self.inner.end();
    }
}

pub struct BeginBackup(pub Arc<storage::Database>);

impl Task for BeginBackup {
    type Output = storage::Result<storage::Backup>;
    type JsValue = Backup;
    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(self.0.begin_backup())
    }
    fn resolve(&mut self, env: Env, backup: Self::Output) -> napi::Result<Backup> {
        Ok(Backup { inner: Arc::new(backup.or_throw(&env)?) })
    }
}

pub struct ReadBackup {
    backup: Arc<storage::Backup>,
    index: usize,
    offset: u64,
    length: usize,
}

impl Task for ReadBackup {
    type Output = storage::Result<Vec<u8>>;
    type JsValue = Buffer;
    fn compute(&mut self) -> napi::Result<Self::Output> {
        let mut buf = vec![0u8; self.length];
        Ok(self.backup.read(self.index, self.offset, &mut buf).map(|n| {
            buf.truncate(n);
            buf
        }))
    }
    fn resolve(&mut self, env: Env, bytes: Self::Output) -> napi::Result<Buffer> {
        bytes.or_throw(&env).map(Buffer::from)
    }
}
