//! An online backup (`storage::Backup`): the files to copy and how many bytes of each,
//! read on the thread pool; `end` leaves the backup gate at once (so do the garbage
//! collector's drop and the engine's close, later).

use std::sync::{Arc, Weak};

use napi::bindgen_prelude::{AsyncTask, Buffer};
use napi::Env;
use napi_derive::napi;

use crate::error::to_js;
use crate::tasks::{Contained, Work};
use crate::unwind::{self, Access, Stop};

#[napi]
pub struct Backup {
    /// `None` once dropped (only `Drop` takes it).
    inner: Option<Arc<storage::Backup>>,
    /// The database a panic here stops (`unwind.rs`); a backup does not keep it open.
    db: Weak<storage::Database>,
}

/// A file of a backup: its path in the database directory and the bytes to copy.
#[napi(object)]
pub struct BackupFileInfo {
    pub path: String,
    pub bytes: f64,
}

impl Backup {
    /// Runs a synchronous delegate contained (`unwind.rs`) and maps its failure.
    fn call<T>(&self, env: &Env, entry: &'static str, work: impl FnOnce(&storage::Backup) -> T) -> napi::Result<T> {
        unwind::run(Stop::Weak(&self.db), entry, Access::Read, || Ok(work(self.inner.as_deref().expect("taken only by drop"))))
            .map_err(|failure| to_js(env, failure))
    }
}

#[napi]
impl Backup {
    /// The LSN the copy holds every commit up to.
    #[napi(getter)]
    pub fn lsn(&self, env: &Env) -> napi::Result<f64> {
        self.call(env, "backup.lsn", |backup| backup.lsn() as f64)
    }

    #[napi(getter)]
    pub fn files(&self, env: &Env) -> napi::Result<Vec<BackupFileInfo>> {
        self.call(env, "backup.files", |backup| backup.files().iter().map(|f| BackupFileInfo { path: f.path.clone(), bytes: f.bytes as f64 }).collect())
    }

    /// Up to `length` bytes of file `index` from `offset`: fewer only at the end of
    /// what the backup copies of it (none past it).
    #[napi(ts_return_type = "Promise<Buffer>")]
    pub fn read(&self, index: u32, offset: f64, length: u32) -> AsyncTask<Contained<ReadBackup>> {
        AsyncTask::new(Contained(ReadBackup {
            backup: self.inner.clone().expect("taken only by drop"),
            db: self.db.clone(),
            index: index as usize,
            offset: offset.max(0.0) as u64,
            length: length as usize,
        }))
    }

    /// Ends the backup: checkpoints and compaction may run again; reads fail.
    #[napi]
    pub fn end(&self, env: &Env) -> napi::Result<()> {
        self.call(env, "backup.end", |backup| backup.end())
    }
}

impl Drop for Backup {
    /// Collected: leaves the backup gate (`storage::Backup`'s own drop), contained, as
    /// the garbage collector's finalizer is an entry point too.
    fn drop(&mut self) {
        if let Some(inner) = self.inner.take() {
            let _ = unwind::contain(Stop::Weak(&self.db), "backup.drop", || drop(inner));
        }
    }
}

pub struct BeginBackup(pub Arc<storage::Database>);

impl Work for BeginBackup {
    type Output = storage::Backup;
    type JsValue = Backup;
    const ENTRY: &'static str = "beginBackup";
    fn stop(&self) -> Stop<'_> {
        Stop::Db(&self.0)
    }
    fn compute(&self) -> storage::Result<storage::Backup> {
        self.0.begin_backup()
    }
    fn resolve(&self, backup: storage::Backup) -> Backup {
        Backup { inner: Some(Arc::new(backup)), db: Arc::downgrade(&self.0) }
    }
}

pub struct ReadBackup {
    backup: Arc<storage::Backup>,
    db: Weak<storage::Database>,
    index: usize,
    offset: u64,
    length: usize,
}

impl Work for ReadBackup {
    type Output = Vec<u8>;
    type JsValue = Buffer;
    const ENTRY: &'static str = "backup.read";
    fn stop(&self) -> Stop<'_> {
        Stop::Weak(&self.db)
    }
    fn compute(&self) -> storage::Result<Vec<u8>> {
        let mut buf = vec![0u8; self.length];
        let n = self.backup.read(self.index, self.offset, &mut buf)?;
        buf.truncate(n);
        Ok(buf)
    }
    fn resolve(&self, bytes: Vec<u8>) -> Buffer {
        Buffer::from(bytes)
    }
}
