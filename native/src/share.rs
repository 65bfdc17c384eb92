//! One open database, read from every JavaScript thread of the process
//! (docs/architecture.md, "Every core"). The thread that opened it `share`s it and
//! gets a number; a worker thread `attach`es by that number and gets an `Engine` over
//! the same `storage::Database` (the same page cache, versions and WAL), through which
//! it reads. Commits stay with the opening thread, whose committer keeps
//! first-committer-wins and the LSN order: an attached engine refuses to commit, to
//! checkpoint, to compact or to close the database, and `detach` only lets go of it.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};

use napi::bindgen_prelude::{Function, Unknown};
use napi::Env;
use napi_derive::napi;

use crate::completions::Completions;
use crate::engine::Engine;
use crate::error::{to_js, Failure};
use crate::unwind::{self, Stop};

/// Shared databases by number. Entries are removed by `unshare` (the opener's close).
static SHARED: Mutex<Option<HashMap<u32, Arc<storage::Database>>>> = Mutex::new(None);
static NEXT: Mutex<u32> = Mutex::new(1);

fn registry<T>(work: impl FnOnce(&mut HashMap<u32, Arc<storage::Database>>) -> T) -> T {
    // A panic elsewhere cannot leave the map half-changed: every change is one call.
    let mut guard = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
    work(guard.get_or_insert_with(HashMap::new))
}

/// Registers `db` for other threads to attach; returns its number.
pub fn share(db: &Arc<storage::Database>) -> u32 {
    let mut next = NEXT.lock().unwrap_or_else(PoisonError::into_inner);
    let id = *next;
    *next = next.wrapping_add(1).max(1);
    registry(|map| map.insert(id, db.clone()));
    id
}

/// Forgets number `id`: engines attached already keep reading until they detach.
pub fn unshare(id: u32) {
    registry(|map| map.remove(&id));
}

/// The database shared as `id` on another thread of this process, as an `Engine` of
/// this thread that reads and never writes. `settle` receives nothing (it commits
/// nothing) but keeps the engine's shape. Throws `invalid_argument` for a number
/// nobody shares.
#[napi(ts_args_type = "id: number, settle: (pairs: Float64Array, errors: Error[] | null) => void")]
pub fn attach(env: &Env, id: u32, settle: Function<'_, Unknown<'static>, Unknown<'static>>) -> napi::Result<Engine> {
    let db = registry(|map| map.get(&id).cloned())
        .ok_or_else(|| to_js(env, Failure::Storage(storage::Error::InvalidArgument(format!("no database is shared as {id}")))))?;
    let completions = unwind::contain(Stop::Db(&db), "attach", || Completions::new(settle)).map_err(|panic| to_js(env, Failure::Panic(panic)))??;
    completions.attach(&db);
    Ok(Engine { db, completions: Arc::new(completions), attached: true, detached: AtomicBool::new(false) })
}
