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

use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use crate::commit_payload::CommitPayload;
use crate::error::{Error, Result};
use crate::limits::WAL_BATCH_BYTES_MAX;
use crate::version::Version;

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
}

pub struct GroupCommit {
    pub queue: Mutex<Queue>,
    pub ready: Condvar,
}

impl GroupCommit {
    pub fn new() -> GroupCommit {
        GroupCommit { queue: Mutex::new(Queue::default()), ready: Condvar::new() }
    }

    /// Waits for work; `None` once closing and drained. Takes the queued commits in
    /// order until their payloads would pass `bytes_max` (at least one).
    pub fn next_batch(&self, bytes_max: usize) -> Option<Vec<Pending>> {
        let mut queue = self.queue.lock().expect("commit queue lock");
        loop {
            if !queue.pending.is_empty() {
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
            queue = self.ready.wait(queue).expect("commit queue lock");
        }
    }
}

/// What the sync thread needs from the database.
pub trait BatchSink {
    /// Applies a commit to the head version; returns its LSN. With `lsn` (a primary's
    /// frame), refused unless that is the head's next LSN.
    fn apply(&self, commit: &CommitPayload, lsn: Option<u64>) -> Result<u64>;
    /// The head version, after the batch's commits were applied.
    fn head(&self) -> Arc<Version>;
    /// Writes and syncs the frames; returns the microseconds the durable write took.
    fn write_batch(&self, frames: &[(u64, &[u8])]) -> Result<u64>;
    fn publish(&self, version: Arc<Version>);
    /// Makes the head version the durable one again, after a batch that was not
    /// written (its commits had been applied to the head).
    fn roll_back(&self);
    /// Called once per batch after completions ran; may checkpoint.
    fn after_batch(&self);
    fn fail_stop(&self, cause: String);
    fn failed(&self) -> Option<String>;
}

pub fn run_sync_thread(group: &GroupCommit, sink: &dyn BatchSink) {
    while let Some(batch) = group.next_batch(WAL_BATCH_BYTES_MAX) {
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
            continue;
        }
        let started = Instant::now();
        let frames: Vec<(u64, &[u8])> = applied.iter().map(|a| (a.lsn, a.payload.bytes())).collect();
        let result = sink.write_batch(&frames);
        drop(frames);
        match result {
            Ok(_) => {
                let last_lsn = applied.last().expect("a written batch holds commits").lsn;
                assert_eq!(sink.head().lsn, last_lsn, "the version published is the one holding the batch's last commit");
                sink.publish(sink.head());
                for commit in applied {
                    (commit.done)(Ok(commit.lsn));
                }
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
        group.queue.lock().unwrap().pending.push(Pending { commit: commit.to_payload().unwrap(), lsn: None, done: Box::new(|_| {}) });
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
        assert_eq!(sizes(group.next_batch(400).unwrap()), vec![100, 100, 100]);
        // A single commit over the bound still goes, alone.
        assert_eq!(sizes(group.next_batch(400).unwrap()), vec![500]);
        assert_eq!(sizes(group.next_batch(400).unwrap()), vec![10]);
        group.queue.lock().unwrap().closing = true;
        assert!(group.next_batch(400).is_none());
    }
}
