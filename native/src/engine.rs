use std::sync::{Arc, Mutex, MutexGuard};

use napi_derive::napi;

use crate::error::IntoNapi;

/// An open database directory. Obtained from `open()`; closed with `close()`.
#[napi]
pub struct Engine {
    pub(crate) inner: Arc<Mutex<Option<storage::Database>>>,
}

#[napi(object)]
pub struct EngineStats {
    pub page_count: i64,
    pub checkpoint_lsn: i64,
    pub page_file_bytes: i64,
    pub db_dir: String,
}

#[napi]
impl Engine {
    /// Counters of the open database. Synchronous: it reads memory and one stat().
    #[napi]
    pub fn stats(&self) -> napi::Result<EngineStats> {
        let stats = lock(&self.inner).as_ref().ok_or(storage::Error::Closed).into_napi()?.stats().into_napi()?;
        Ok(EngineStats {
            page_count: stats.page_count as i64,
            checkpoint_lsn: stats.checkpoint_lsn as i64,
            page_file_bytes: stats.page_file_bytes as i64,
            db_dir: stats.db_dir.to_string_lossy().into_owned(),
        })
    }

    /// Publishes what was written and releases the directory lock. Idempotent.
    #[napi]
    pub fn close(&self) -> napi::Result<()> {
        lock(&self.inner).take().map(storage::Database::close).transpose().into_napi()?;
        Ok(())
    }

    #[napi(getter)]
    pub fn is_open(&self) -> bool {
        lock(&self.inner).is_some()
    }
}

/// A poisoned lock means a panic mid-operation: a bug, so carrying on is wrong.
fn lock(inner: &Mutex<Option<storage::Database>>) -> MutexGuard<'_, Option<storage::Database>> {
    inner.lock().expect("engine lock poisoned by an earlier panic")
}
