//! The one place where failures become JavaScript errors: an `Error` whose `message`
//! is a sentence for people and whose own properties carry what a caller acts on, so
//! nothing ever reads the message: `code` (an `ErrorCode`), and for corruption `file`
//! (the damaged file, relative to the database directory, as the corruption log names
//! it: `pages` or `wal/<segment>`) and `page` (the page of the page file that failed).
//! `src/engine/engine-error.ts` makes it an `EngineError`.
//!
//! A failure is the storage core's error, or a panic the binding caught (`unwind.rs`),
//! which is `internal`.
//!
//! A JavaScript object is made on the JavaScript thread only, so the mapping takes
//! `env`: synchronous methods map their failure where they return, async tasks return
//! it from `compute` and map it in `resolve`, and commit completions are mapped where
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
    /// A bug: the engine panicked in this call. The panic was caught and the engine
    /// stopped writing (later writes fail with `fail_stopped`); reads go on.
    Internal,
}

/// What a call of the binding fails with.
pub enum Failure {
    Storage(storage::Error),
    Panic(Panic),
}

/// A panic caught at an entry point of the binding (`unwind.rs`).
#[derive(Clone)]
pub struct Panic {
    /// The entry point, as JavaScript calls it (`checkpoint`, `snapshot.range`, …).
    pub entry: &'static str,
    /// The panic's message.
    pub message: String,
    /// Whether a database was fail-stopped (not when it was still being opened).
    pub stopped: bool,
}

impl From<storage::Error> for Failure {
    fn from(err: storage::Error) -> Failure {
        Failure::Storage(err)
    }
}

impl Failure {
    fn message(&self) -> String {
        match self {
            Failure::Storage(err) => err.to_string(),
            Failure::Panic(Panic { entry, message, stopped: true }) => format!(
                "internal error (a bug): the engine panicked in {entry}: {message}; the engine \
                 stopped writing: commits, checkpoints and compaction are refused until the \
                 directory is reopened (reads go on)"
            ),
            Failure::Panic(Panic { entry, message, stopped: false }) => {
                format!("internal error (a bug): the engine panicked in {entry}: {message}; the directory was not opened")
            }
        }
    }
}

fn code(failure: &Failure) -> ErrorCode {
    use storage::Error as E;
    let Failure::Storage(err) = failure else { return ErrorCode::Internal };
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

/// The JavaScript error for `failure` (on the JavaScript thread).
pub fn to_js(env: &Env, failure: impl Into<Failure>) -> napi::Error {
    let failure = failure.into();
    // Building fails only while the environment is torn down, when nobody receives it.
    build(env, &failure).unwrap_or_else(|_| napi::Error::from_reason(failure.message()))
}

fn build(env: &Env, failure: &Failure) -> napi::Result<napi::Error> {
    let mut error: Object = env.create_error(napi::Error::from_reason(failure.message()))?;
    error.set_named_property("code", code(failure))?;
    if let Failure::Storage(err) = failure {
        if let Some(file) = err.file() {
            error.set_named_property("file", file)?;
        }
        if let Some(page) = err.page() {
            error.set_named_property("page", page as f64)?;
        }
    }
    // Thrown or rejected as this very object (napi-rs keeps a reference to it).
    Ok(napi::Error::from(error.to_unknown()))
}
