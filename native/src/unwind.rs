//! No panic crosses the binding (docs/architecture.md, "The binding"). A panic that
//! unwinds out of a `#[napi]` method, an async task's `compute` (on a libuv thread) or
//! the completion channel's callback meets an `extern "C"` frame, and Rust aborts the
//! process there: every tenant is down and the request gets no answer. So every entry
//! point runs its delegate in `contain`, which catches the panic, fail-stops the
//! database (`storage::Database::fail_stop`) and returns it as a `Panic`, thrown as an
//! `internal` error (`error.rs`). `#[napi(catch_unwind)]` would catch it too, but as an
//! untyped error, and it stops nothing.
//!
//! Why fail-stop: a panic is a bug that may have left what it was changing half
//! changed, so nothing more is written from that state; the directory on disk is
//! what the last checkpoint and the WAL say, and reopening it recovers. Why reads go
//! on: they walk immutable versions, and each page is checked when read, so a read
//! either answers what was committed or fails with a typed error; a lock the panic
//! poisoned makes the next call that takes it panic in turn, and that is caught here
//! too. Hence `AssertUnwindSafe`: what the panic broke is fenced off by the stop, not
//! by the type system.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Weak;

use crate::error::{Failure, Panic};
use crate::test_panic;

/// The database a caught panic stops.
#[derive(Clone, Copy)]
pub enum Stop<'a> {
    Db(&'a storage::Database),
    /// Held by a snapshot or a backup, which must not keep a closed engine alive.
    Weak(&'a Weak<storage::Database>),
    /// None yet: the directory is being opened.
    Opening,
}

/// Whether a call writes: once the database stopped, one that does is refused with
/// `fail_stopped` before the core takes any lock a panic may have poisoned.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// Runs `work` for entry point `entry`; a panic in it stops the database and becomes a
/// `Panic`.
#[inline]
pub fn contain<T>(stop: Stop<'_>, entry: &'static str, work: impl FnOnce() -> T) -> Result<T, Panic> {
    catch_unwind(AssertUnwindSafe(work)).map_err(|payload| caught(stop, entry, payload))
}

/// Off the path of every call that does not panic.
#[cold]
#[inline(never)]
fn caught(stop: Stop<'_>, entry: &'static str, payload: Box<dyn Any + Send>) -> Panic {
    let message = storage::panic_message(&*payload);
    // Never dropped: a payload's Drop could panic again, outside any catch.
    std::mem::forget(payload);
    let cause = format!("a panic in {entry}: {message}");
    let stopped = match stop {
        Stop::Db(db) => {
            db.fail_stop(cause);
            true
        }
        Stop::Weak(db) => match db.upgrade() {
            Some(db) => {
                db.fail_stop(cause);
                true
            }
            None => false,
        },
        Stop::Opening => false,
    };
    Panic { entry, message, stopped }
}

/// `contain` for a delegate that returns the core's `Result`, refused up front when it
/// writes to a stopped database. The test trigger (`test_panic.rs`) fires in here.
#[inline]
pub fn run<T>(stop: Stop<'_>, entry: &'static str, access: Access, work: impl FnOnce() -> storage::Result<T>) -> Result<T, Failure> {
    if access == Access::Write {
        if let Stop::Db(db) = stop {
            if let Some(cause) = db.fail_stopped() {
                return Err(Failure::Storage(storage::Error::FailStopped(cause)));
            }
        }
    }
    let work = || {
        test_panic::trap(entry);
        work()
    };
    match contain(stop, entry, work) {
        Ok(result) => result.map_err(Failure::Storage),
        Err(panic) => Err(Failure::Panic(panic)),
    }
}

