//! The engine: an open database directory as JavaScript holds it. Each method is a
//! delegate to `storage::Database`, run contained (`unwind.rs`); work that touches the
//! disk runs as a task on the thread pool (`tasks.rs`). Opening one is `open.rs`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use napi::bindgen_prelude::{AsyncTask, BufferSlice};
use napi::Env;
use napi_derive::napi;

use crate::backup::BeginBackup;
use crate::completions::Completions;
use crate::convert::{self, EngineStats, WorkProgress};
use crate::error::to_js;
use crate::snapshot::Snapshot;
use crate::tasks::{self, Contained};
use crate::unwind::{self, Access, Stop};

/// An open database directory. Obtained from `open()` (`open.rs`); closed with `close()`.
#[napi]
pub struct Engine {
    pub(crate) db: Arc<storage::Database>,
    pub(crate) completions: Arc<Completions>,
    /// Attached from another thread (`share.rs`): reads only; the opener commits.
    pub(crate) attached: bool,
    /// An attached engine that let go (`detach`): every call fails as on a closed one.
    pub(crate) detached: AtomicBool,
}

impl Engine {
    /// Runs a synchronous delegate contained (`unwind.rs`) and maps its failure.
    fn call<T>(&self, env: &Env, entry: &'static str, access: Access, work: impl FnOnce() -> storage::Result<T>) -> napi::Result<T> {
        if self.detached.load(Ordering::Acquire) {
            return Err(to_js(env, storage::Error::Closed));
        }
        unwind::run(Stop::Db(&self.db), entry, access, work).map_err(|failure| to_js(env, failure))
    }

    /// Before an async task: refuses it through a detached engine, and through an
    /// attached one when only the opener may run it. Not an entry point of its own (no
    /// test-panic trap: the task's own entry is the one a test arms).
    fn task_allowed(&self, env: &Env, opener_only: Option<&'static str>) -> napi::Result<()> {
        if self.detached.load(Ordering::Acquire) {
            return Err(to_js(env, storage::Error::Closed));
        }
        match opener_only {
            Some(what) if self.attached => Err(to_js(env, storage::Error::ReadOnly(what))),
            _ => Ok(()),
        }
    }

    /// Refuses what only the thread that opened the database may do (`share.rs`).
    fn opener_only(&self, what: &'static str) -> storage::Result<()> {
        if self.attached { Err(storage::Error::ReadOnly(what)) } else { Ok(()) }
    }
}

#[napi]
impl Engine {
    /// Queues commit `id` (a Buffer in the WAL payload format); once it is durable,
    /// or failed, the storage core's sync thread hands `(id, result)` to `settle`.
    /// The payload is checked whole first (`storage::CommitPayload::parse`): a
    /// malformed one, or one over a limit, throws `invalid_argument` and changes
    /// nothing. Its bytes, copied once out of the Buffer (JavaScript could change the
    /// Buffer after this returns), are the WAL frame's payload as they are.
    #[napi]
    pub fn commit(&self, env: &Env, id: f64, payload: BufferSlice) -> napi::Result<()> {
        self.call(env, "commit", Access::Write, || {
            self.opener_only("a commit through an attached engine")?;
            let commit = storage::CommitPayload::parse(payload.to_vec())?;
            let done = self.completions.completion(env, id).ok_or(storage::Error::Closed)?;
            self.db.commit_payload(commit, done);
            Ok(())
        })
    }

    /// `commit` of several commits at once, with ids `first`, `first + 1`, … in order:
    /// queued together, so the sync thread takes them into one batch (pushed one by
    /// one, the first woke it and went to its fsync alone). Each payload is checked as
    /// `commit` checks one; a malformed one is settled at once with `invalid_argument`
    /// through `settle`, and the others are queued all the same.
    #[napi]
    pub fn commit_batch(&self, env: &Env, first: f64, payloads: Vec<BufferSlice>) -> napi::Result<()> {
        self.call(env, "commit", Access::Write, || {
            self.opener_only("a commit through an attached engine")?;
            let mut commits = Vec::with_capacity(payloads.len());
            for (i, payload) in payloads.iter().enumerate() {
                let done = self.completions.completion(env, first + i as f64).ok_or(storage::Error::Closed)?;
                match storage::CommitPayload::parse(payload.to_vec()) {
                    Ok(commit) => commits.push((commit, done)),
                    Err(err) => done(Err(err)),
                }
            }
            self.db.commit_payloads(commits);
            Ok(())
        })
    }

    /// Commits `id` on the calling (JavaScript) thread and returns its LSN once it is
    /// durable (`storage::Database::commit_payload_here`): for an embedder's synchronous
    /// write, which blocks its thread for the write and the fdatasync instead of two
    /// thread hand-offs. Commits queued before it are written first, in its batch. Its
    /// completion still reaches `settle` under `id` like any commit's (so the change
    /// tail hears of it in LSN order with the others); a failure throws here too.
    #[napi]
    pub fn commit_sync(&self, env: &Env, id: f64, payload: BufferSlice) -> napi::Result<f64> {
        self.call(env, "commitSync", Access::Write, || {
            self.opener_only("a commit through an attached engine")?;
            let commit = storage::CommitPayload::parse(payload.to_vec())?;
            let done = self.completions.completion(env, id).ok_or(storage::Error::Closed)?;
            Ok(self.db.commit_payload_here(commit, done)? as f64)
        })
    }

    /// Follower mode only: queues frame `lsn` of a primary (a Buffer in the WAL payload
    /// format, checked whole as a commit's is) to be applied by the storage core as
    /// recovery applies frames (`storage::Database::apply_frame`); settled through
    /// `settle` under `id` like a commit, refused unless `lsn` follows the head.
    #[napi]
    pub fn apply_frame(&self, env: &Env, id: f64, lsn: i64, payload: BufferSlice) -> napi::Result<()> {
        self.call(env, "applyFrame", Access::Write, || {
            self.opener_only("a frame through an attached engine")?;
            let commit = storage::CommitPayload::parse(payload.to_vec())?;
            let done = self.completions.completion(env, id).ok_or(storage::Error::Closed)?;
            self.db.apply_frame(lsn.max(0) as u64, commit, done);
            Ok(())
        })
    }

    /// Switches between follower mode (local commits refused with `not_primary`,
    /// frames applied) and primary mode (`storage::Database::set_follower`).
    #[napi]
    pub fn set_follower(&self, env: &Env, follower: bool) -> napi::Result<()> {
        self.call(env, "setFollower", Access::Read, || {
            self.opener_only("a mode switch through an attached engine")?;
            self.db.set_follower(follower);
            Ok(())
        })
    }

    /// The generation of the newest meta record (a snapshot's `epoch` when taken now).
    #[napi(getter)]
    pub fn generation(&self, env: &Env) -> napi::Result<f64> {
        self.call(env, "generation", Access::Read, || Ok(self.db.generation() as f64))
    }

    /// The newest durable version. Synchronous: it clones a reference.
    #[napi]
    pub fn snapshot(&self, env: &Env) -> napi::Result<Snapshot> {
        self.call(env, "snapshot", Access::Read, || Ok(Snapshot::new(&self.db, self.db.snapshot())))
    }

    /// Lets other threads of this process attach to this database (`share.rs`);
    /// returns the number they attach by.
    #[napi]
    pub fn share(&self, env: &Env) -> napi::Result<u32> {
        self.call(env, "share", Access::Read, || {
            self.opener_only("sharing an attached engine")?;
            Ok(crate::registry::share(&self.db))
        })
    }

    /// No thread attaches by `id` from now on (the opener, before it closes).
    #[napi]
    pub fn unshare(&self, id: u32) {
        crate::registry::unshare(id);
    }

    /// An attached engine lets go of the database: its completion channel is
    /// released; the database stays open for its opener.
    #[napi]
    pub fn detach(&self) {
        self.detached.store(true, Ordering::Release);
        self.completions.release();
    }

    #[napi(ts_return_type = "Promise<CheckpointInfo>")]
    pub fn checkpoint(&self, env: &Env) -> napi::Result<AsyncTask<Contained<tasks::Checkpoint>>> {
        self.task_allowed(env, Some("a checkpoint through an attached engine"))?;
        Ok(AsyncTask::new(Contained(tasks::Checkpoint(self.db.clone()))))
    }

    /// Releases what no version reaches and moves live pages down the page file so its
    /// free tail is cut off (`storage::Database::compact_space`).
    #[napi(ts_return_type = "Promise<CompactInfo>")]
    pub fn compact_space(&self, env: &Env) -> napi::Result<AsyncTask<Contained<tasks::CompactSpace>>> {
        self.task_allowed(env, Some("a compaction through an attached engine"))?;
        Ok(AsyncTask::new(Contained(tasks::CompactSpace(self.db.clone()))))
    }

    /// Begins an online backup on the thread pool (`storage::Database::begin_backup`):
    /// waits for a running checkpoint or compaction, then keeps them out until the
    /// backup ends.
    #[napi(ts_return_type = "Promise<Backup>")]
    pub fn begin_backup(&self, env: &Env) -> napi::Result<AsyncTask<Contained<BeginBackup>>> {
        self.task_allowed(env, None)?;
        Ok(AsyncTask::new(Contained(BeginBackup(self.db.clone()))))
    }

    #[napi(ts_return_type = "Promise<VerifyInfo>")]
    pub fn verify(&self, env: &Env) -> napi::Result<AsyncTask<Contained<tasks::Verify>>> {
        self.task_allowed(env, None)?;
        Ok(AsyncTask::new(Contained(tasks::Verify(self.db.clone()))))
    }

    /// Committed frames with LSN > `after`, in order, at most `framesMax` of them and
    /// about `bytesMax` bytes of payload (always at least one frame if any).
    #[napi(ts_return_type = "Promise<FrameBatch>")]
    pub fn read_frames(&self, env: &Env, after: i64, frames_max: u32, bytes_max: u32) -> napi::Result<AsyncTask<Contained<tasks::ReadFrames>>> {
        self.task_allowed(env, None)?;
        Ok(AsyncTask::new(Contained(tasks::ReadFrames {
            db: self.db.clone(),
            after: after.max(0) as u64,
            frames_max: frames_max as usize,
            bytes_max: bytes_max as usize,
        })))
    }

    /// The long work running now (a verify, a tree compaction, a checkpoint) and how
    /// far it has come, or null. Synchronous: it reads atomics, so it can be polled
    /// while that work runs on the thread pool.
    #[napi]
    pub fn progress(&self, env: &Env) -> napi::Result<Option<WorkProgress>> {
        self.call(env, "progress", Access::Read, || Ok(self.db.progress().map(convert::progress)))
    }

    /// Counters of the open database. Synchronous: memory and one stat() per file.
    #[napi]
    pub fn stats(&self, env: &Env) -> napi::Result<EngineStats> {
        self.call(env, "stats", Access::Read, || self.db.stats().map(convert::stats))
    }

    /// LSN of the newest durable commit (`stats().currentLsn`), from memory only.
    #[napi]
    pub fn head_lsn(&self, env: &Env) -> napi::Result<f64> {
        self.call(env, "headLsn", Access::Read, || self.db.durable_lsn().map(|lsn| lsn as f64))
    }

    /// Oldest LSN the WAL still holds (`stats().oldestLsn`), from memory only.
    #[napi]
    pub fn oldest_lsn(&self, env: &Env) -> napi::Result<f64> {
        self.call(env, "oldestLsn", Access::Read, || self.db.oldest_lsn().map(|lsn| lsn as f64))
    }

    /// Why the engine stopped writing (a failed fsync, a panic caught here), or null
    /// while it writes (`storage::Database::fail_stopped`).
    #[napi]
    pub fn fail_stopped(&self, env: &Env) -> napi::Result<Option<String>> {
        self.call(env, "failStopped", Access::Read, || Ok(self.db.fail_stopped()))
    }

    /// Completes queued commits, checkpoints and releases the directory lock, then
    /// the completion channel (their completions are still delivered). Resolves with
    /// `checkpointSkipped` set when a full disk skipped the checkpoint (not a failure).
    #[napi(ts_return_type = "Promise<CloseInfo>")]
    pub fn close(&self, env: &Env) -> napi::Result<AsyncTask<Contained<tasks::Close>>> {
        self.task_allowed(env, Some("closing the database through an attached engine (detach it)"))?;
        Ok(AsyncTask::new(Contained(tasks::Close(self.db.clone(), self.completions.clone()))))
    }
}
