use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::AsyncTask;
use napi::{Env, Task};
use napi_derive::napi;

use crate::engine::Engine;
use crate::error::IntoNapi;

pub struct OpenTask {
    dir: PathBuf,
}

impl Task for OpenTask {
    type Output = storage::Database;
    type JsValue = Engine;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        storage::Database::open(&self.dir, storage::Options::default()).into_napi()
    }

    fn resolve(&mut self, _env: Env, db: Self::Output) -> napi::Result<Self::JsValue> {
        Ok(Engine { inner: Arc::new(Mutex::new(Some(db))) })
    }
}

/// Opens (creating if needed) a database directory on the thread pool and takes its
/// exclusive lock.
#[napi(ts_return_type = "Promise<Engine>")]
pub fn open(dir: String) -> AsyncTask<OpenTask> {
    AsyncTask::new(OpenTask { dir: PathBuf::from(dir) })
}
