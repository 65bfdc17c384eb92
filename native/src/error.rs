//! The one place where storage errors become JavaScript errors: an `Error` whose
//! `message` is the storage core's sentence and whose own properties carry what a
//! caller acts on, so nothing ever reads the message: `code` (an `ErrorCode`), and for
//! corruption `file` (the damaged file, relative to the database directory, as the
//! corruption log names it: `pages` or `wal/<segment>`) and `page` (the page of the
//! page file that failed). `src/engine/engine-error.ts` makes it an `EngineError`.
//!
//! A JavaScript object is made on the JavaScript thread only, so the mapping takes
//! `env`: synchronous methods end in `or_throw(env)`, async tasks compute a
//! `storage::Result` and map it in `resolve`, and commit completions are mapped where
//! they are delivered (`completions.rs`).

use napi::bindgen_prelude::{JsObjectValue, Object};
use napi::{Env, JsValue};
use napi_derive::napi;

/// The stable codes of storage errors, as JavaScript sees them.
#[napi(string_enum = "snake_case")]
pub enum ErrorCode {
    /// Stored bytes are damaged (`file`, and `page` for the page file, say where).
    Corrupted,
    /// Another process holds the directory's lock.
    Locked,
    /// The operating system refused an operation.
    Io,
    /// The caller asked for something the storage core cannot do (a malformed commit).
    InvalidArgument,
    Closed,
    /// The database stopped writing earlier: this change was not written.
    FailStopped,
    /// Writing this commit failed after its bytes went out: it may or may not be durable.
    OutcomeUnknown,
    /// A full disk refused the change before any of it was written.
    StorageFull,
    ReadOnly,
    /// A backup is in progress: a checkpoint or compaction was refused; retry once it ends.
    BackupInProgress,
    /// The database is in follower mode: local commits are refused.
    NotPrimary,
}

fn code(err: &storage::Error) -> ErrorCode {
    use storage::Error as E;
    match err {
        E::Corrupted { .. } | E::WalCorrupted { .. } => ErrorCode::Corrupted,
        E::Locked { .. } => ErrorCode::Locked,
        E::Io { .. } => ErrorCode::Io,
        E::InvalidArgument(_) => ErrorCode::InvalidArgument,
        E::Closed => ErrorCode::Closed,
        E::FailStopped(_) => ErrorCode::FailStopped,
        E::OutcomeUnknown(_) => ErrorCode::OutcomeUnknown,
        E::StorageFull { .. } => ErrorCode::StorageFull,
        E::ReadOnly(_) => ErrorCode::ReadOnly,
        E::BackupInProgress(_) => ErrorCode::BackupInProgress,
        E::NotPrimary => ErrorCode::NotPrimary,
    }
}

/// The JavaScript error for `err` (on the JavaScript thread).
pub fn to_js(env: &Env, err: storage::Error) -> napi::Error {
    // Building fails only while the environment is torn down, when nobody receives it.
    build(env, &err).unwrap_or_else(|_| napi::Error::from_reason(err.to_string()))
}

fn build(env: &Env, err: &storage::Error) -> napi::Result<napi::Error> {
    let mut error: Object = env.create_error(napi::Error::from_reason(err.to_string()))?;
    error.set_named_property("code", code(err))?;
    if let Some(file) = err.file() {
        error.set_named_property("file", file)?;
    }
    if let Some(page) = err.page() {
        error.set_named_property("page", page as f64)?;
    }
    // Thrown or rejected as this very object (napi-rs keeps a reference to it).
    Ok(napi::Error::from(error.to_unknown()))
}

pub trait OrThrow<T> {
    fn or_throw(self, env: &Env) -> napi::Result<T>;
}

impl<T> OrThrow<T> for storage::Result<T> {
    fn or_throw(self, env: &Env) -> napi::Result<T> {
        self.map_err(|err| to_js(env, err))
    }
}
