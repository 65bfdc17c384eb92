//! One open database, read from every JavaScript thread of the process
//! (docs/architecture.md, "Every core"). The thread that opened it `share`s it and
//! gets a number; a worker thread `attach`es by that number and gets an `Engine` over
//! the same `storage::Database` (the same page cache, versions and WAL), through which
//! it reads. Commits stay with the opening thread, whose committer keeps
//! first-committer-wins and the LSN order: an attached engine refuses to commit, to
//! checkpoint, to compact or to close the database, and `detach` only lets go of it.
//! The numbers are kept by `registry.rs`, which the engine (sharing) and this module
//! (attaching) both use without naming each other.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use napi::bindgen_prelude::{Function, Unknown};
use napi::Env;
use napi_derive::napi;

use crate::completions::Completions;
use crate::engine::Engine;
use crate::error::{to_js, Failure};
use crate::registry;
use crate::unwind::{self, Stop};

/// The database shared as `id` on another thread of this process, as an `Engine` of
/// this thread that reads and never writes. `settle` receives nothing (it commits
/// nothing) but keeps the engine's shape. Throws `invalid_argument` for a number
/// nobody shares.
#[napi(ts_args_type = "id: number, settle: (pairs: Float64Array, errors: Error[] | null) => void")]
pub fn attach(env: &Env, id: u32, settle: Function<'_, Unknown<'static>, Unknown<'static>>) -> napi::Result<Engine> {
    let db = registry::shared(id)
        .ok_or_else(|| to_js(env, Failure::Storage(storage::Error::InvalidArgument(format!("no database is shared as {id}")))))?;
    let completions = unwind::contain(Stop::Db(&db), "attach", || Completions::new(settle)).map_err(|panic| to_js(env, Failure::Panic(panic)))??;
    completions.attach(&db);
    Ok(Engine { db, completions: Arc::new(completions), attached: true, detached: AtomicBool::new(false) })
}
