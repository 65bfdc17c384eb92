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
//! Committing on the caller's thread (`commit_here`). An embedder that can wait (a
//! synchronous durable write, docs/architecture.md "Synchronous commits") applies,
//! writes and syncs its commit on its own thread, with no hand-off to the sync thread
//! and back. One batch is worked on at a time (`GroupCommit::working`, held by the sync
//! thread for each of its batches and by such a caller), and the caller takes every
//! commit queued before its own into its batches, ahead of its own: queue order stays
//! LSN order, and commits of concurrent asynchronous writers share the caller's fsync
//! and are completed by it. The automatic checkpoint such a batch makes due is left to
//! the sync thread (woken for it), so the caller pays for its commit only.
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
use crate::limits::{COMMIT_POLL_MICROS_MAX, WAL_BATCH_BYTES_MAX};
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
struct Applied {
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
    sleeping: bool,
    /// A batch written on a caller's thread made the automatic checkpoint due: the sync
    /// thread runs it (`BatchSink::after_batch`) the next time it looks for work.
    after_batch_due: bool,
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
fn batch_len<'a>(pending: impl ExactSizeIterator<Item = &'a Pending>, bytes_max: usize) -> usize {
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

/// Commits `mine` on the calling thread (see the module's comment): waits for a batch
/// the sync thread is working on, takes every commit queued before it, and applies,
/// writes and syncs them and `mine` in batches of at most `bytes_max`, completing each
/// (`mine` too) as the sync thread would. Returns `mine`'s result. A panic is contained
/// as on the sync thread: the database fail-stops and each commit is answered once.
pub fn commit_here(group: &GroupCommit, sink: &dyn BatchSink, mine: Pending, bytes_max: usize) -> Result<u64> {
    let result = std::sync::Arc::new(Mutex::new(None::<Result<u64>>));
    let done = mine.done;
    let slot = result.clone();
    let mine = Pending {
        commit: mine.commit,
        lsn: mine.lsn,
        done: Box::new(move |answer: Result<u64>| {
            let kept = match &answer {
                Ok(lsn) => Ok(*lsn),
                Err(err) => Err(err.duplicate()),
            };
            *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(kept);
            done(answer)
        }),
    };
    let working = group.working();
    let mut queued: VecDeque<Pending> = {
        let mut queue = group.queue.lock().expect("commit queue lock");
        if queue.closing {
            drop(queue);
            (mine.done)(Err(Error::Closed));
            return Err(Error::Closed);
        }
        std::mem::take(&mut queue.pending).into()
    };
    queued.push_back(mine);
    let mut wrote = false;
    while !queued.is_empty() {
        let take = batch_len(queued.iter(), bytes_max);
        let batch: VecDeque<Pending> = queued.drain(..take).collect();
        let mut work = BatchWork { applied: VecDeque::with_capacity(batch.len()), queued: batch, may_be_durable: false };
        match catch_unwind(AssertUnwindSafe(|| run_batch(sink, &mut work))) {
            Ok(written) => wrote |= written,
            Err(payload) => {
                let cause = panicked(payload);
                sink.fail_stop(cause.clone());
                work.answer_after_panic(&cause);
            }
        }
    }
    drop(working);
    if wrote && sink.after_batch_due() {
        let mut queue = group.queue.lock().expect("commit queue lock");
        queue.after_batch_due = true;
        let sleeping = queue.sleeping;
        drop(queue);
        if sleeping {
            group.ready.notify_one();
        }
    }
    let answer = result.lock().unwrap_or_else(PoisonError::into_inner).take();
    answer.expect("every commit of a batch is answered, the caller's too")
}

/// The sync thread's record of how soon commits follow a batch's completion.
pub struct Pacing {
    /// When the last batch's commits were completed; `None` while a batch is worked on.
    done_at: Option<Instant>,
    /// How many commits that batch held.
    batch_len: usize,
    /// Moving average of those gaps (a quarter weight to each new one).
    gap_average: Duration,
}

impl Pacing {
    pub fn new() -> Pacing {
        // Starts as after a long idle gap: nothing polls until commits come back to back.
        Pacing { done_at: None, batch_len: 0, gap_average: Duration::from_secs(1) }
    }

    /// A batch of `batch_len` commits was completed.
    pub fn done(&mut self, batch_len: usize) {
        self.done_at = Some(Instant::now());
        self.batch_len = batch_len;
    }

    /// A commit was found queued: the gap since the last completion counts.
    fn arrived(&mut self) {
        if let Some(done_at) = self.done_at.take() {
            // Capped, so one long idle gap is forgotten after a few short ones.
            let gap = done_at.elapsed().min(Duration::from_millis(10));
            self.gap_average = (self.gap_average * 3 + gap) / 4;
        }
    }

    /// How long to poll before sleeping, if at all.
    fn poll(&self) -> Option<Duration> {
        let max = Duration::from_micros(COMMIT_POLL_MICROS_MAX);
        (self.done_at.is_some() && self.batch_len == 1 && self.gap_average < max).then(|| (self.gap_average * 2).min(max))
    }
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
struct BatchWork {
    /// Taken from the queue, not applied yet: the front is the one being applied.
    queued: VecDeque<Pending>,
    /// Applied, waiting for their write; the front is the next answered.
    applied: VecDeque<Applied>,
    /// Whether the write of `applied` began (and did not fail before its bytes went out).
    may_be_durable: bool,
}

impl BatchWork {
    /// After a panic: each commit not answered yet is answered now, `OutcomeUnknown`
    /// once its write began, else `FailStopped`. A completion that panics in turn is
    /// skipped; the others are answered all the same.
    fn answer_after_panic(&mut self, cause: &str) {
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
fn run_batch(sink: &dyn BatchSink, work: &mut BatchWork) -> bool {
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
fn panicked(payload: Box<dyn Any + Send>) -> String {
    let message = panic_message(&*payload);
    std::mem::forget(payload);
    format!("the storage core's sync thread panicked: {message}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commit::{Commit, Op, OpRef};
    use std::sync::Arc as StdArc;

    fn queued(group: &GroupCommit, value_bytes: usize) {
        let commit = Commit {
            meta: Vec::new(),
            ops: vec![Op::Put { tree: StdArc::from(&b"t"[..]), key: StdArc::from(&b"k"[..]), value: StdArc::from(vec![0u8; value_bytes]) }],
        };
        assert!(group.push(vec![Pending { commit: commit.to_payload().unwrap(), lsn: None, done: Box::new(|_| {}) }]).is_ok());
    }

    /// Commits pushed at every pace the sync thread meets (back to back, within its
    /// polling budget, just past it, and long after it went to sleep) are each taken:
    /// a push that finds it polling wakes nobody, and one that finds it asleep wakes it.
    #[test]
    fn no_commit_waits_unseen_whether_the_sync_thread_polls_or_sleeps() {
        let group = StdArc::new(GroupCommit::new());
        let (taken_send, taken) = std::sync::mpsc::channel();
        let consumer = {
            let group = group.clone();
            std::thread::spawn(move || {
                let mut pacing = Pacing::new();
                while let Some((batch, _working)) = group.next_batch(usize::MAX, &mut pacing) {
                    for _ in &batch {
                        taken_send.send(()).unwrap();
                    }
                    pacing.done(batch.len());
                }
            })
        };
        let gaps_micros = [0u64, 5, 20, 100, COMMIT_POLL_MICROS_MAX / 2, COMMIT_POLL_MICROS_MAX * 3, 3_000];
        let mut pushed = 0;
        for round in 0..40 {
            for (i, gap) in gaps_micros.iter().enumerate() {
                // Each pace held for a while, so the average follows it both ways.
                for _ in 0..(1 + (round + i) % 4) {
                    queued(&group, 10);
                    pushed += 1;
                    // Each commit is taken before the next is pushed: none rides along
                    // with a later push's wake-up. The bound only guards against a hang.
                    taken.recv_timeout(std::time::Duration::from_secs(60)).expect("a queued commit is taken");
                    std::thread::sleep(std::time::Duration::from_micros(*gap));
                }
            }
        }
        group.close();
        consumer.join().unwrap();
        assert!(taken.try_recv().is_err(), "nothing was taken twice");
        assert!(pushed > 500);
    }

    #[test]
    fn a_batch_stops_before_its_bytes_pass_the_bound_and_keeps_queue_order() {
        let group = GroupCommit::new();
        for size in [100, 100, 100, 500, 10] {
            queued(&group, size);
        }
        let sizes = |batch: Vec<Pending>| -> Vec<usize> {
            batch.iter().map(|p| match p.commit.ops().next() { Some(OpRef::Put { value, .. }) => value.len(), _ => 0 }).collect()
        };
        // Each commit encodes to its value plus ~30 bytes of framing.
        let pacing = &mut Pacing::new();
        assert_eq!(sizes(group.next_batch(400, pacing).unwrap().0), vec![100, 100, 100]);
        // A single commit over the bound still goes, alone.
        assert_eq!(sizes(group.next_batch(400, pacing).unwrap().0), vec![500]);
        assert_eq!(sizes(group.next_batch(400, pacing).unwrap().0), vec![10]);
        group.close();
        assert!(group.next_batch(400, pacing).is_none());
    }

    /// A database as the sync thread sees it, which panics at one step (`panic_at`:
    /// `apply#N` for the N-th apply, `write`, `publish`, `roll_back`, `after_batch`).
    #[derive(Default)]
    struct PanickingSink {
        panic_at: Mutex<Option<&'static str>>,
        /// `write_batch` fails with this instead of writing.
        write_fails: Option<fn() -> Error>,
        applied: Mutex<u64>,
        written: Mutex<Vec<u64>>,
        failed: Mutex<Option<String>>,
    }

    impl PanickingSink {
        fn reach(&self, step: &str) {
            let mut panic_at = self.panic_at.lock().unwrap();
            if *panic_at == Some(step) {
                *panic_at = None;
                drop(panic_at);
                panic!("a fake panic in {step}");
            }
        }
    }

    impl BatchSink for PanickingSink {
        fn apply(&self, _: &CommitPayload, _: Option<u64>) -> Result<u64> {
            let lsn = {
                let mut applied = self.applied.lock().unwrap();
                *applied += 1;
                *applied
            };
            self.reach(&format!("apply#{lsn}"));
            Ok(lsn)
        }
        fn write_batch(&self, frames: &[(u64, &[u8])]) -> Result<u64> {
            if let Some(error) = self.write_fails {
                return Err(error());
            }
            self.written.lock().unwrap().extend(frames.iter().map(|f| f.0));
            self.reach("write");
            Ok(1)
        }
        fn publish(&self, _: u64) {
            self.reach("publish");
        }
        fn roll_back(&self) {
            self.reach("roll_back");
        }
        fn after_batch(&self) {
            self.reach("after_batch");
        }
        fn after_batch_due(&self) -> bool {
            false
        }
        fn fail_stop(&self, cause: String) {
            self.failed.lock().unwrap().get_or_insert(cause);
        }
        fn failed(&self) -> Option<String> {
            self.failed.lock().unwrap().clone()
        }
    }

    /// What each commit of a batch was answered, as `Ok(lsn)` or the error's code.
    type Answers = Vec<std::result::Result<u64, &'static str>>;

    /// Queues `commits` commits (the `panicking_completion`-th completion, from 1,
    /// panics instead of answering), then runs the sync thread: they are one batch.
    /// Returns their answers, that of a commit queued after them, and the sink.
    fn one_batch(sink: PanickingSink, commits: usize, panicking_completion: Option<usize>) -> (Answers, &'static str, StdArc<PanickingSink>) {
        let group = StdArc::new(GroupCommit::new());
        let sink = StdArc::new(sink);
        let (send, answers) = std::sync::mpsc::channel();
        let push = |i: usize| {
            let send = send.clone();
            let commit = Commit { meta: Vec::new(), ops: vec![Op::Delete { tree: b"t".to_vec(), key: b"k".to_vec() }] };
            let done: Completion = Box::new(move |result: Result<u64>| {
                if panicking_completion == Some(i) {
                    panic!("a fake panic in completion {i}");
                }
                send.send((i, result.map_err(|e| e.code()))).unwrap();
            });
            assert!(group.push(vec![Pending { commit: commit.to_payload().unwrap(), lsn: None, done }]).is_ok());
        };
        (1..=commits).for_each(push);
        let thread = {
            let (group, sink) = (group.clone(), sink.clone());
            std::thread::spawn(move || run_sync_thread(&group, &*sink))
        };
        let wait = std::time::Duration::from_secs(60);
        let answered = commits - usize::from(panicking_completion.is_some());
        let mut got: Vec<(usize, std::result::Result<u64, &'static str>)> =
            (0..answered).map(|_| answers.recv_timeout(wait).expect("every commit of the batch is answered")).collect();
        got.sort_by_key(|a| a.0);
        push(commits + 1);
        let (later_i, later) = answers.recv_timeout(wait).expect("a later commit is answered");
        assert_eq!(later_i, commits + 1);
        group.close();
        thread.join().expect("the sync thread ends as usual: it contained the panic");
        assert!(answers.try_recv().is_err(), "each commit is answered once");
        let later = later.expect_err("the database stopped: a later commit is refused");
        (got.into_iter().map(|(_, a)| a).collect(), later, sink)
    }

    fn panicking_at(step: &'static str) -> PanickingSink {
        PanickingSink { panic_at: Mutex::new(Some(step)), ..PanickingSink::default() }
    }

    fn stopped_by(sink: &PanickingSink, what: &str) {
        assert_eq!(sink.failed().as_deref(), Some(&*format!("the storage core's sync thread panicked: a fake panic in {what}")));
    }

    #[test]
    fn a_panic_applying_a_batch_answers_each_of_its_commits_not_written() {
        let (answers, later, sink) = one_batch(panicking_at("apply#2"), 3, None);
        // The first was applied before the panic, the third never: none was written.
        assert_eq!(answers, [Err("fail_stopped"); 3]);
        assert_eq!(later, "fail_stopped");
        assert!(sink.written.lock().unwrap().is_empty());
        stopped_by(&sink, "apply#2");
    }

    #[test]
    fn a_panic_once_the_batch_was_written_answers_its_commits_outcome_unknown() {
        for step in ["write", "publish"] {
            let (answers, later, sink) = one_batch(panicking_at(step), 3, None);
            assert_eq!(answers, [Err("outcome_unknown"); 3], "{step}");
            assert_eq!(later, "fail_stopped");
            assert_eq!(*sink.written.lock().unwrap(), [1, 2, 3]);
            stopped_by(&sink, step);
        }
    }

    #[test]
    fn a_panic_after_a_write_that_failed_before_its_bytes_went_out_answers_not_written() {
        let sink = PanickingSink { write_fails: Some(|| Error::StorageFull { op: "zero-fill", path: "wal".into(), detail: "full".into() }), ..panicking_at("roll_back") };
        let (answers, later, sink) = one_batch(sink, 2, None);
        assert_eq!(answers, [Err("fail_stopped"); 2]);
        assert_eq!(later, "fail_stopped");
        stopped_by(&sink, "roll_back");
    }

    #[test]
    fn a_panic_in_a_completion_leaves_the_batch_s_others_answered() {
        let (answers, later, sink) = one_batch(PanickingSink::default(), 3, Some(2));
        // The first was answered before; the third, written, may be durable.
        assert_eq!(answers, [Ok(1), Err("outcome_unknown")]);
        assert_eq!(later, "fail_stopped");
        stopped_by(&sink, "completion 2");
    }

    #[test]
    fn a_panic_in_the_checkpoint_after_a_batch_stops_only_later_commits() {
        let (answers, later, sink) = one_batch(panicking_at("after_batch"), 3, None);
        assert_eq!(answers, [Ok(1), Ok(2), Ok(3)], "the batch was durable and answered first");
        assert_eq!(later, "fail_stopped");
        stopped_by(&sink, "after_batch");
    }
}
