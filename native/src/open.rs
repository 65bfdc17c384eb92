//! Opening a database directory: the `open` entry point and the task that opens it on
//! the thread pool, then hands the `Engine` (`engine.rs`) its database. Kept apart from
//! both so that the engine, which starts the other tasks (`tasks.rs`), and the tasks
//! never import each other.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use napi::bindgen_prelude::{AsyncTask, Function, Unknown};
use napi::Env;
use napi_derive::napi;

use crate::completions::Completions;
use crate::convert::{self, OpenOptions};
use crate::engine::Engine;
use crate::error::{to_js, Failure};
use crate::tasks::{Contained, Work};
use crate::unwind::{self, Stop};

/// Opens (creating if needed) a database directory on the thread pool: takes its
/// exclusive lock, reads the newest meta record and replays the WAL (with
/// `readOnly`: a shared lock, and nothing written). `settle` receives the engine's
/// commit completions (`completions.rs`).
#[napi(
    ts_args_type = "dir: string, options: OpenOptions | undefined | null, settle: (pairs: Float64Array, errors: Error[] | null) => void",
    ts_return_type = "Promise<Engine>"
)]
pub fn open(
    env: &Env,
    dir: String,
    options: Option<OpenOptions>,
    settle: Function<'_, Unknown<'static>, Unknown<'static>>,
) -> napi::Result<AsyncTask<Contained<Open>>> {
    let completions = unwind::contain(Stop::Opening, "open", || Completions::new(settle)).map_err(|panic| to_js(env, Failure::Panic(panic)))??;
    Ok(AsyncTask::new(Contained(Open { dir: PathBuf::from(dir), options: convert::options(options), completions: Arc::new(completions) })))
}

pub struct Open {
    pub dir: PathBuf,
    pub options: storage::Options,
    pub completions: Arc<Completions>,
}

impl Work for Open {
    type Output = storage::Database;
    type JsValue = Engine;
    const ENTRY: &'static str = "open";
    fn stop(&self) -> Stop<'_> {
        Stop::Opening
    }
    fn compute(&self) -> storage::Result<storage::Database> {
        storage::Database::open(&self.dir, self.options.clone())
    }
    fn resolve(&self, db: storage::Database) -> Engine {
        let db = Arc::new(db);
        self.completions.attach(&db);
        Engine { db, completions: self.completions.clone(), attached: false, detached: AtomicBool::new(false) }
    }
}
