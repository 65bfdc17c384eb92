//! Group commit. A caller only queues its commit (O(1), so Node's event loop never
//! applies a large transaction itself); one sync thread takes everything queued,
//! applies each commit in queue order (a commit that fails its checks completes with
//! the error and changes nothing), writes the rest as one WAL batch with one
//! fdatasync, then publishes the newest version to readers and calls each commit's
//! completion. So concurrent commits share an fsync, writes become visible only once
//! durable, and no caller thread blocks while waiting (the binding resolves a
//! promise from the completion).
//!
//! How a batch that could not be written completes (`docs/operations.md`, "Disk
//! full"):
//! - The file system was full before any of its bytes were written
//!   (`Error::StorageFull`; also `InvalidArgument`, `ReadOnly`): every commit of the
//!   batch completes with that error, the head version is rolled back to the durable
//!   one (the batch's commits were applied to it), and the next batch is tried as
//!   usual: once space is freed, commits succeed again.
//! - The write or the fsync itself failed (`Error::OutcomeUnknown`): fail-stop. The
//!   batch's commits complete with `OutcomeUnknown` (their bytes may be durable),
//!   every later one with `FailStopped` (definitely not written), and nothing more is
//!   acknowledged until the directory is reopened and recovered.
//! - The device failed before the batch's bytes were written (`FailStopped`): the
//!   same fail-stop, and the batch's commits complete with `FailStopped`.
//!
//! A panic on the sync thread (a bug: a failed assertion while it applies, writes or
//! publishes a batch, or a completion that panics) is contained there: no entry point
//! of the binding runs on this thread to catch it (docs/architecture.md, "The
//! binding"), and a thread that ended would leave every later commit waiting forever.
//! Each batch runs under `catch_unwind`, and its commits leave their queues
//! (`BatchWork`) only as they are answered, so after a panic each one still waiting is
//! there: the database fail-stops ("the storage core's sync thread panicked: ...") as
//! after a failed fsync, and each is answered once, `FailStopped` when its write had
//! not begun (not written), `OutcomeUnknown` once it had (it may be durable). The
//! thread goes on, answering every later commit with `FailStopped`, so nothing waits
//! and closing joins it as usual. The automatic checkpoint after a batch runs under a
//! `catch_unwind` of its own: a panic there comes after the batch's commits were
//! durable and answered, so it only fail-stops, and the next commit is refused. The
//! test-only trigger (`panics/test_panic.rs`) panics at `sync.apply`, `sync.write` (after the
//! write, before the publish) and `sync.checkpoint`.
//!
//! Committing on the caller's thread is `commit_here.rs`: it takes the same right to
//! work on a batch (`GroupCommit::working`) and runs its batches as the sync thread does.
//!
//! Polling before sleeping. A caller that awaits each commit before the next (P1 in
//! docs/performance.md) finds the sync thread asleep on the condition variable every
//! time: its commit pays a futex wake-up, and the commit waits for the scheduler to run
//! the woken thread (on an idle core of a virtual machine, tens of microseconds, and
//! the wake-up often runs the sync thread on the caller's core first). So after a batch
//! of one commit, when the recent gaps between a batch's completion and the next commit
//! were short, the sync thread polls the queue for up to twice their average (at most
//! `COMMIT_POLL_MICROS_MAX`), yielding its core at each poll, before it sleeps; and a
//! caller wakes it only when it does sleep (`Queue::sleeping`, read under the queue's
//! lock, so no wake-up is lost). After a batch of several commits (concurrent writers)
//! it never polls: taking the first of the next commits the moment it arrives would cut
//! the group that forms while the sleeping thread is woken, and so halve the batches
//! (measured: P2 fell from 9.5× to 8× P1 when it polled after every batch). After an
//! idle gap the average is long and nothing polls either.

use std::any::Any;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::payload::CommitPayload;
use crate::panics::panic_message;
use crate::error::{Error, Result};
use crate::limits::WAL_BATCH_BYTES_MAX;
use super::pacing::Pacing;
use crate::test_panic;

pub type Completion = Box<dyn FnOnce(Result<u64>) + Send>;

pub struct Pending {
    /// Checked already; its bytes become the WAL frame's payload as they are.
    pub commit: CommitPayload,
    /// A primary's frame applied by a follower (`Database::apply_frame`): the LSN it
    /// must take. `None` for a local commit, which takes the next one.
    pub lsn: Option<u64>,
    pub done: Completion,
}

/// A commit applied in memory, waiting for its fsync.
pub(super) struct Applied {
    lsn: u64,
    payload: CommitPayload,
    done: Completion,
}

#[derive(Default)]
pub struct Queue {
    pub pending: Vec<Pending>,
    pub closing: bool,
    /// The sync thread waits on `ready`: a push must wake it. While it polls or works,
    /// a push wakes nobody (no futex call).
    pub(super) sleeping: bool,
    /// A batch written on a caller's thread made the automatic checkpoint due: the sync
    /// thread runs it (`BatchSink::after_batch`) the next time it looks for work.
    pub(super) after_batch_due: bool,
}

pub struct GroupCommit {
    pub queue: Mutex<Queue>,
    pub ready: Condvar,
    /// Set by each push, cleared when the sync thread takes the queue: what it polls.
    pushed: AtomicBool,
    /// Held while a batch is worked on (applied, written, published, completed), by the
    /// sync thread or by a caller committing on its own thread: one batch at a time.
    /// Lock order: `working`, then `queue`.
    working: Mutex<()>,
}

/// The right to work on a batch (`GroupCommit::working`); taken even from a lock a
/// panic poisoned: a panic in a batch is contained and answered (`run_batch`).
pub struct Working<'a>(#[allow(dead_code)] MutexGuard<'a, ()>);

impl GroupCommit {
    pub fn new() -> GroupCommit {
        GroupCommit { queue: Mutex::new(Queue::default()), ready: Condvar::new(), pushed: AtomicBool::new(false), working: Mutex::new(()) }
    }

    /// Waits until no batch is worked on, and keeps any from starting until dropped.
    pub fn working(&self) -> Working<'_> {
        Working(self.working.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Queues `pending` for the sync thread, in order and at once (it finds them
    /// together), or gives them back once closing.
    pub fn push(&self, mut pending: Vec<Pending>) -> std::result::Result<(), Vec<Pending>> {
        let mut queue = self.queue.lock().expect("commit queue lock");
        if queue.closing {
            return Err(pending);
        }
        queue.pending.append(&mut pending);
        self.pushed.store(true, Ordering::Release);
        let sleeping = queue.sleeping;
        drop(queue);
        if sleeping {
            self.ready.notify_one();
        }
        Ok(())
    }

    /// Stops taking commits: the sync thread drains the queue and ends.
    pub fn close(&self) {
        self.queue.lock().expect("commit queue lock").closing = true;
        self.ready.notify_all();
    }

    /// Takes whatever is queued, even from a lock a panic poisoned: for answering the
    /// commits a sync thread that ended left behind.
    pub fn drain(&self) -> Vec<Pending> {
        std::mem::take(&mut self.queue.lock().unwrap_or_else(std::sync::PoisonError::into_inner).pending)
    }

    /// Waits for work; `None` once closing and drained. Takes the queued commits in
    /// order until their payloads would pass `bytes_max` (at least one), with the right
    /// to work on them; an empty batch asks for the automatic checkpoint a caller's
    /// batch made due. `pacing`: the sync thread's record of recent gaps, which says how
    /// long to poll before sleeping.
    pub fn next_batch(&self, bytes_max: usize, pacing: &mut Pacing) -> Option<(Vec<Pending>, Working<'_>)> {
        let mut queue = self.queue.lock().expect("commit queue lock");
        loop {
            if !queue.pending.is_empty() || queue.after_batch_due {
                // A caller may be working on a batch: wait for it without the queue's
                // lock (it takes the queue too), then look again.
                drop(queue);
                let working = self.working();
                queue = self.queue.lock().expect("commit queue lock");
                if queue.pending.is_empty() {
                    if std::mem::take(&mut queue.after_batch_due) {
                        return Some((Vec::new(), working));
                    }
                    continue;
                }
                pacing.arrived();
                self.pushed.store(false, Ordering::Relaxed);
                let take = batch_len(queue.pending.iter(), bytes_max);
                if take == queue.pending.len() {
                    return Some((std::mem::take(&mut queue.pending), working));
                }
                return Some((queue.pending.drain(..take).collect(), working));
            }
            if queue.closing {
                return None;
            }
            if let Some(poll) = pacing.poll() {
                drop(queue);
                self.poll(poll);
                queue = self.queue.lock().expect("commit queue lock");
                if !queue.pending.is_empty() || queue.closing {
                    continue;
                }
            }
            queue.sleeping = true;
            queue = self.ready.wait(queue).expect("commit queue lock");
            queue.sleeping = false;
        }
    }

    /// Polls for a push until `budget` has passed, yielding the core at each poll (a
    /// thread of the caller's may be waiting for it).
    fn poll(&self, budget: Duration) {
        let started = Instant::now();
        while !self.pushed.load(Ordering::Acquire) && started.elapsed() < budget {
            std::thread::yield_now();
        }
    }
}

/// How many of the commits at the front of a queue go into one batch: in order, until
/// their payloads would pass `bytes_max` (at least one).
pub(super) fn batch_len<'a>(pending: impl ExactSizeIterator<Item = &'a Pending>, bytes_max: usize) -> usize {
    let queued = pending.len();
    let mut bytes = 0usize;
    let take = pending
        .take_while(|p| {
            bytes = bytes.saturating_add(p.commit.bytes().len());
            bytes <= bytes_max
        })
        .count()
        .max(1);
    assert!(take >= 1 && take <= queued, "a batch takes one queued commit or more");
    take
}

/// What the sync thread needs from the database.
pub trait BatchSink {
    /// Applies a commit to the head version; returns its LSN. With `lsn` (a primary's
    /// frame), refused unless that is the head's next LSN.
    fn apply(&self, commit: &CommitPayload, lsn: Option<u64>) -> Result<u64>;
    /// Writes and syncs the frames; returns the microseconds the durable write took.
    fn write_batch(&self, frames: &[(u64, &[u8])]) -> Result<u64>;
    /// Makes the head, which holds the batch's last commit `last_lsn`, the durable
    /// version readers see.
    fn publish(&self, last_lsn: u64);
    /// Makes the head version the durable one again, after a batch that was not
    /// written (its commits had been applied to the head).
    fn roll_back(&self);
    /// Called once per batch after completions ran; may checkpoint.
    fn after_batch(&self);
    /// Whether `after_batch` would checkpoint now (cheap: a caller's thread asks).
    fn after_batch_due(&self) -> bool;
    fn fail_stop(&self, cause: String);
    fn failed(&self) -> Option<String>;
}

pub fn run_sync_thread(group: &GroupCommit, sink: &dyn BatchSink) {
    let mut pacing = Pacing::new();
    while let Some((batch, _working)) = group.next_batch(WAL_BATCH_BYTES_MAX, &mut pacing) {
        if batch.is_empty() {
            // The checkpoint a batch written on a caller's thread made due.
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| sink.after_batch())) {
                sink.fail_stop(panicked(payload));
            }
            continue;
        }
        let batch_len = batch.len();
        // Every commit of the batch not answered yet, held out of the containment so a
        // panic leaves each one here to be answered.
        let mut work = BatchWork { queued: batch.into(), applied: VecDeque::with_capacity(batch_len), may_be_durable: false };
        match catch_unwind(AssertUnwindSafe(|| run_batch(sink, &mut work))) {
            Ok(written) => {
                pacing.done(batch_len);
                if written {
                    let checkpoint = catch_unwind(AssertUnwindSafe(|| sink.after_batch()));
                    // The batch's commits were answered: they are durable. What stops is
                    // the next commit.
                    if let Err(payload) = checkpoint {
                        sink.fail_stop(panicked(payload));
                    }
                }
            }
            Err(payload) => {
                let cause = panicked(payload);
                sink.fail_stop(cause.clone());
                work.answer_after_panic(&cause);
                pacing.done(batch_len);
            }
        }
    }
}

/// The commits of the batch being worked on that are not answered yet.
pub(super) struct BatchWork {
    /// Taken from the queue, not applied yet: the front is the one being applied.
    pub(super) queued: VecDeque<Pending>,
    /// Applied, waiting for their write; the front is the next answered.
    pub(super) applied: VecDeque<Applied>,
    /// Whether the write of `applied` began (and did not fail before its bytes went out).
    pub(super) may_be_durable: bool,
}

impl BatchWork {
    /// After a panic: each commit not answered yet is answered now, `OutcomeUnknown`
    /// once its write began, else `FailStopped`. A completion that panics in turn is
    /// skipped; the others are answered all the same.
    pub(super) fn answer_after_panic(&mut self, cause: &str) {
        let may_be_durable = self.may_be_durable;
        let applied = self.applied.drain(..).map(|a| (a.done, may_be_durable));
        let queued = self.queued.drain(..).map(|p| (p.done, false));
        for (done, may_be_durable) in applied.chain(queued) {
            let error = if may_be_durable { Error::OutcomeUnknown(cause.to_string()) } else { Error::FailStopped(cause.to_string()) };
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| done(Err(error)))) {
                std::mem::forget(payload);
            }
        }
    }
}

/// Applies, writes and publishes the batch and answers its commits, each taken from
/// `work` only as it is answered (or applied). Returns whether a batch was written.
pub(super) fn run_batch(sink: &dyn BatchSink, work: &mut BatchWork) -> bool {
    while let Some(pending) = work.queued.front() {
        if let Some(cause) = sink.failed() {
            let pending = work.queued.pop_front().expect("the front was just seen");
            (pending.done)(Err(Error::FailStopped(cause)));
            continue;
        }
        test_panic::trap("sync.apply");
        let result = sink.apply(&pending.commit, pending.lsn);
        let pending = work.queued.pop_front().expect("the front was just seen");
        match result {
            // Queue order is LSN order: the batch's commits take consecutive LSNs
            // (the WAL asserts the same of the frames it is given).
            Ok(lsn) if work.applied.back().is_some_and(|a| a.lsn + 1 != lsn) => {
                // Applied to the head but not kept: answered like the batch's others.
                work.applied.push_back(Applied { lsn, payload: pending.commit, done: pending.done });
                panic!("commit {lsn} does not follow the batch's last")
            }
            Ok(lsn) => work.applied.push_back(Applied { lsn, payload: pending.commit, done: pending.done }),
            Err(err) => (pending.done)(Err(err)),
        }
    }
    if work.applied.is_empty() {
        return false;
    }
    let started = Instant::now();
    let frames: Vec<(u64, &[u8])> = work.applied.iter().map(|a| (a.lsn, a.payload.bytes())).collect();
    work.may_be_durable = true;
    let result = sink.write_batch(&frames);
    drop(frames);
    match result {
        Ok(_) => {
            test_panic::trap("sync.write");
            let last_lsn = work.applied.back().expect("a written batch holds commits").lsn;
            sink.publish(last_lsn);
            while let Some(commit) = work.applied.pop_front() {
                (commit.done)(Ok(commit.lsn));
            }
            true
        }
        Err(err) => {
            // Only a failed write or fsync may have left the batch's bytes on disk.
            work.may_be_durable = matches!(err, Error::OutcomeUnknown(_));
            match &err {
                Error::OutcomeUnknown(cause) | Error::FailStopped(cause) => {
                    sink.fail_stop(format!("{cause} after {} µs", started.elapsed().as_micros()));
                }
                // Not written and not stopped: the head goes back to what is durable.
                _ => sink.roll_back(),
            }
            while let Some(commit) = work.applied.pop_front() {
                (commit.done)(Err(err.duplicate()));
            }
            false
        }
    }
}

/// The fail-stop cause of a panic caught on the sync thread. The payload is never
/// dropped: its Drop could panic again, outside any catch.
#[cold]
#[inline(never)]
pub(super) fn panicked(payload: Box<dyn Any + Send>) -> String {
    let message = panic_message(&*payload);
    std::mem::forget(payload);
    format!("the storage core's sync thread panicked: {message}")
}

// Its tests, of the sync thread's pacing, batching and panic containment.
#[cfg(test)]
mod tests;
