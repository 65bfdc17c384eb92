//! How durable commits reach JavaScript: one threadsafe function per open engine.
//!
//! A promise per commit (`env.create_deferred()`) costs a threadsafe function, a
//! cleanup hook and a uv_async wake-up for every commit. Instead, `open` turns the
//! engine's `settle` callback into one long-lived threadsafe function; a commit's
//! completion (run by the storage core's sync thread) pushes `(id, result)` into a
//! shared vector, and the first push into an empty vector schedules one call that
//! drains it, so the completions of one group commit reach JavaScript in one call:
//! `settle(pairs, errors)`, where `pairs` is a Float64Array `[id, lsn, id, lsn, …]`
//! with `lsn = -1` for a failed commit, whose error is the next one of `errors`
//! (`error.rs`'s mapping, built here on the JavaScript thread).
//!
//! A panic while delivering (`unwind.rs`) fails every commit of that delivery with
//! `internal` (each may or may not be durable) and stops the database.
//!
//! Liveness: the function is unreferenced while no commit is in flight, so an idle
//! open engine never keeps the process alive, and referenced while one is (a pending
//! commit did keep it alive, and still does). It is released when the engine closes.

use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};

use napi::bindgen_prelude::{FnArgs, Float64ArraySlice, Function, ToNapiValue, Unknown};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{sys, Env, Status};

use crate::error::{to_js, Failure};
use crate::test_panic;
use crate::unwind::{self, Stop};

/// `settle`'s arguments: the `[id, lsn]` pairs and the errors of failed commits.
type SettleArgs = FnArgs<(Pairs, Option<Vec<napi::Error>>)>;
type SettleFn = ThreadsafeFunction<(), Unknown<'static>, SettleArgs, Status, false, true>;

type Settled = Vec<(f64, storage::Result<u64>)>;

/// What the sync thread and the JS thread share.
struct Shared {
    settled: Mutex<Settled>,
    /// Commits handed to the storage core and not yet delivered. JS thread only.
    in_flight: AtomicU32,
    /// The raw threadsafe function, to reference and unreference it. JS thread only.
    raw: AtomicPtr<sys::napi_threadsafe_function__>,
    /// The database a panic while delivering stops; set once it is open.
    db: OnceLock<Weak<storage::Database>>,
}

/// One open engine's completion channel.
pub struct Completions {
    shared: Arc<Shared>,
    /// `None` once released (the engine closed).
    settle: Mutex<Option<Arc<SettleFn>>>,
}

impl Completions {
    /// Makes `settle` the engine's one threadsafe function (unreferenced).
    pub fn new(settle: Function<'_, Unknown<'static>, Unknown<'static>>) -> napi::Result<Completions> {
        let shared = Arc::new(Shared {
            settled: Mutex::new(Vec::new()),
            in_flight: AtomicU32::new(0),
            raw: AtomicPtr::new(std::ptr::null_mut()),
            db: OnceLock::new(),
        });
        let drain = shared.clone();
        let tsfn: SettleFn = settle
            .build_threadsafe_function::<()>()
            .weak::<true>()
            .callee_handled::<false>()
            .build_callback(move |ctx| Ok(drain.deliver(&ctx.env)))?;
        shared.raw.store(tsfn.raw(), Ordering::Relaxed);
        Ok(Completions { shared, settle: Mutex::new(Some(Arc::new(tsfn))) })
    }

    /// Counts a commit about to be queued (JS thread) and returns its completion, or
    /// `None` once the channel is released.
    pub fn completion(&self, env: &Env, id: f64) -> Option<Box<dyn FnOnce(storage::Result<u64>) + Send>> {
        let settle = self.settle.lock().expect("settle lock").clone()?;
        let shared = self.shared.clone();
        if shared.in_flight.fetch_add(1, Ordering::Relaxed) == 0 {
            // A pending commit keeps the process alive until it settles.
            unsafe { sys::napi_ref_threadsafe_function(env.raw(), shared.raw.load(Ordering::Relaxed)) };
        }
        Some(Box::new(move |result| {
            let mut settled = shared.settled.lock().expect("settled lock");
            settled.push((id, result));
            let first = settled.len() == 1;
            drop(settled);
            if first {
                // Unbounded queue: never blocks. Fails only if Node is tearing the
                // environment down, when nobody is left to settle.
                settle.call((), ThreadsafeFunctionCallMode::NonBlocking);
            }
        }))
    }

    /// Names the database once it is open (JS thread).
    pub fn attach(&self, db: &Arc<storage::Database>) {
        let _ = self.shared.db.set(Arc::downgrade(db));
    }

    /// Releases the threadsafe function (JS thread, once the database is closed:
    /// calls already queued are still delivered).
    pub fn release(&self) {
        self.settle.lock().expect("settle lock").take();
    }
}

impl Shared {
    /// On the JS thread: takes everything settled since the last call.
    fn deliver(&self, env: &Env) -> SettleArgs {
        // Taken even from a lock a panic poisoned: these commits are settled either way.
        let mut settled = std::mem::take(&mut *self.settled.lock().unwrap_or_else(PoisonError::into_inner));
        let count = settled.len() as u32;
        if self.in_flight.fetch_sub(count, Ordering::Relaxed) == count && count > 0 {
            unsafe { sys::napi_unref_threadsafe_function(env.raw(), self.raw.load(Ordering::Relaxed)) };
        }
        let stop = self.db.get().map_or(Stop::Opening, Stop::Weak);
        let args = || {
            test_panic::trap("settle");
            Self::args(env, &mut settled)
        };
        unwind::contain(stop, "settle", args).unwrap_or_else(|panic| {
            let pairs = settled.iter().flat_map(|&(id, _)| [id, -1.0]).collect();
            let errors = settled.iter().map(|_| to_js(env, Failure::Panic(panic.clone()))).collect();
            FnArgs::from((Pairs(pairs), Some(errors)))
        })
    }

    /// `settle`'s arguments for these results (each result is taken; the ids stay).
    fn args(env: &Env, settled: &mut Settled) -> SettleArgs {
        let mut pairs = Vec::with_capacity(settled.len() * 2);
        let mut errors = Vec::new();
        for (id, result) in settled.iter_mut() {
            pairs.push(*id);
            match std::mem::replace(result, Ok(0)) {
                Ok(lsn) => pairs.push(lsn as f64),
                Err(err) => {
                    pairs.push(-1.0);
                    errors.push(to_js(env, err));
                }
            }
        }
        FnArgs::from((Pairs(pairs), (!errors.is_empty()).then_some(errors)))
    }
}

/// `[id, lsn, …]`, copied into a Float64Array owned by V8 (no external finalizer).
struct Pairs(Vec<f64>);

impl ToNapiValue for Pairs {
    unsafe fn to_napi_value(env: sys::napi_env, pairs: Self) -> napi::Result<sys::napi_value> {
        let array = Float64ArraySlice::copy_from(&Env::from_raw(env), &pairs.0)?;
        unsafe { ToNapiValue::to_napi_value(env, array) }
    }
}
