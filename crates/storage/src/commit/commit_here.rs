//! Committing on the caller's thread (`commit_here`). An embedder that can wait (a
//! synchronous durable write, docs/architecture.md "Synchronous commits") applies,
//! writes and syncs its commit on its own thread, with no hand-off to the sync thread
//! and back. One batch is worked on at a time (`GroupCommit::working`, held by the sync
//! thread for each of its batches and by such a caller), and the caller takes every
//! commit queued before its own into its batches, ahead of its own: queue order stays
//! LSN order, and commits of concurrent asynchronous writers share the caller's fsync
//! and are completed by it. The automatic checkpoint such a batch makes due is left to
//! the sync thread (woken for it), so the caller pays for its commit only.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, PoisonError};

use super::group_commit::{batch_len, panicked, run_batch, BatchSink, BatchWork, GroupCommit, Pending};
use crate::error::{Error, Result};

/// Commits `mine` on the calling thread (see the module's comment): waits for a batch
/// the sync thread is working on, takes every commit queued before it, and applies,
/// writes and syncs them and `mine` in batches of at most `bytes_max`, completing each
/// (`mine` too) as the sync thread would. Returns `mine`'s result. A panic is contained
/// as on the sync thread: the database fail-stops and each commit is answered once.
pub fn commit_here(group: &GroupCommit, sink: &dyn BatchSink, mine: Pending, bytes_max: usize) -> Result<u64> {
    let result = Arc::new(Mutex::new(None::<Result<u64>>));
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

