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

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::commit_payload::CommitPayload;
use crate::error::{Error, Result};
use crate::limits::{COMMIT_POLL_MICROS_MAX, WAL_BATCH_BYTES_MAX};

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
}

pub struct GroupCommit {
    pub queue: Mutex<Queue>,
    pub ready: Condvar,
    /// Set by each push, cleared when the sync thread takes the queue: what it polls.
    pushed: AtomicBool,
}

impl GroupCommit {
    pub fn new() -> GroupCommit {
        GroupCommit { queue: Mutex::new(Queue::default()), ready: Condvar::new(), pushed: AtomicBool::new(false) }
    }

    /// Queues `pending` for the sync thread, or gives it back once closing.
    pub fn push(&self, pending: Pending) -> std::result::Result<(), Pending> {
        let mut queue = self.queue.lock().expect("commit queue lock");
        if queue.closing {
            return Err(pending);
        }
        queue.pending.push(pending);
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

    /// Waits for work; `None` once closing and drained. Takes the queued commits in
    /// order until their payloads would pass `bytes_max` (at least one). `pacing`: the
    /// sync thread's record of recent gaps, which says how long to poll before sleeping.
    pub fn next_batch(&self, bytes_max: usize, pacing: &mut Pacing) -> Option<Vec<Pending>> {
        let mut queue = self.queue.lock().expect("commit queue lock");
        loop {
            if !queue.pending.is_empty() {
                pacing.arrived();
                self.pushed.store(false, Ordering::Relaxed);
                let mut bytes = 0usize;
                let take = queue
                    .pending
                    .iter()
                    .take_while(|p| {
                        bytes = bytes.saturating_add(p.commit.bytes().len());
                        bytes <= bytes_max
                    })
                    .count()
                    .max(1);
                assert!(take >= 1 && take <= queue.pending.len(), "a batch takes one queued commit or more");
                if take == queue.pending.len() {
                    return Some(std::mem::take(&mut queue.pending));
                }
                return Some(queue.pending.drain(..take).collect());
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
    fn fail_stop(&self, cause: String);
    fn failed(&self) -> Option<String>;
}

pub fn run_sync_thread(group: &GroupCommit, sink: &dyn BatchSink) {
    let mut pacing = Pacing::new();
    while let Some(batch) = group.next_batch(WAL_BATCH_BYTES_MAX, &mut pacing) {
        let batch_len = batch.len();
        let mut applied = Vec::with_capacity(batch.len());
        for pending in batch {
            if let Some(cause) = sink.failed() {
                (pending.done)(Err(Error::FailStopped(cause)));
                continue;
            }
            match sink.apply(&pending.commit, pending.lsn) {
                // Queue order is LSN order: the batch's commits take consecutive LSNs
                // (the WAL asserts the same of the frames it is given).
                Ok(lsn) if applied.last().is_some_and(|a: &Applied| a.lsn + 1 != lsn) => panic!("commit {lsn} does not follow the batch's last"),
                Ok(lsn) => applied.push(Applied { lsn, payload: pending.commit, done: pending.done }),
                Err(err) => (pending.done)(Err(err)),
            }
        }
        if applied.is_empty() {
            pacing.done(batch_len);
            continue;
        }
        let started = Instant::now();
        let frames: Vec<(u64, &[u8])> = applied.iter().map(|a| (a.lsn, a.payload.bytes())).collect();
        let result = sink.write_batch(&frames);
        drop(frames);
        match result {
            Ok(_) => {
                let last_lsn = applied.last().expect("a written batch holds commits").lsn;
                sink.publish(last_lsn);
                for commit in applied {
                    (commit.done)(Ok(commit.lsn));
                }
                pacing.done(batch_len);
                sink.after_batch();
            }
            Err(err) => {
                match &err {
                    Error::OutcomeUnknown(cause) | Error::FailStopped(cause) => {
                        sink.fail_stop(format!("{cause} after {} µs", started.elapsed().as_micros()));
                    }
                    // Not written and not stopped: the head goes back to what is durable.
                    _ => sink.roll_back(),
                }
                for commit in applied {
                    (commit.done)(Err(err.duplicate()));
                }
                pacing.done(batch_len);
            }
        }
    }
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
        assert!(group.push(Pending { commit: commit.to_payload().unwrap(), lsn: None, done: Box::new(|_| {}) }).is_ok());
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
                while let Some(batch) = group.next_batch(usize::MAX, &mut pacing) {
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
        assert_eq!(sizes(group.next_batch(400, pacing).unwrap()), vec![100, 100, 100]);
        // A single commit over the bound still goes, alone.
        assert_eq!(sizes(group.next_batch(400, pacing).unwrap()), vec![500]);
        assert_eq!(sizes(group.next_batch(400, pacing).unwrap()), vec![10]);
        group.close();
        assert!(group.next_batch(400, pacing).is_none());
    }
}
