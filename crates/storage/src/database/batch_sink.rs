//! The database as the sync thread sees it (`commit/group_commit.rs`): commits applied to the
//! head version, batches written to the WAL, the durable version published, a failed
//! batch rolled back, and a checkpoint after a batch when the WAL has grown enough.

use std::sync::{Arc, PoisonError};
use std::time::Instant;

use super::Inner;
use crate::commit::CommitPayload;
use crate::error::{Error, Result};
use crate::commit::BatchSink;

impl BatchSink for Inner {
    fn apply(&self, commit: &CommitPayload, expected: Option<u64>) -> Result<u64> {
        let mut head = self.head.lock().expect("head lock");
        let lsn = head.next_lsn;
        assert_eq!(lsn, head.version.lsn + 1, "the head's next LSN follows its version");
        if let Some(expected) = expected.filter(|&expected| expected != lsn) {
            return Err(Error::InvalidArgument(format!("frame {expected} refused: the follower's next LSN is {lsn}")));
        }
        let version = head.version.apply(&self.pager, commit, lsn)?;
        head.version = Arc::new(version);
        head.next_lsn += 1;
        assert_eq!(head.next_lsn, head.version.lsn + 1, "the head's next LSN follows its version");
        Ok(lsn)
    }

    fn write_batch(&self, frames: &[(u64, &[u8])]) -> Result<u64> {
        let started = Instant::now();
        self.wal.append_batch(frames)?;
        let micros = started.elapsed().as_micros() as u64;
        self.fsync.lock().expect("fsync lock").record(micros);
        Ok(micros)
    }

    fn publish(&self, last_lsn: u64) {
        // The head as it is now, under its lock: a checkpoint may have followed it since
        // the batch was applied (checkpoint/follow.rs), and publishing an older handle of the same
        // LSN would bring back the locations it left. Lock order: head, then durable.
        let head = self.head.lock().expect("head lock");
        assert_eq!(head.version.lsn, last_lsn, "the version published is the one holding the batch's last commit");
        *self.durable.lock().expect("durable lock") = head.version.clone();
    }

    fn roll_back(&self) {
        let durable = self.durable.lock().expect("durable lock").clone();
        let mut head = self.head.lock().expect("head lock");
        head.next_lsn = durable.lsn + 1;
        head.version = durable;
        assert_eq!(head.next_lsn, self.wal.next_lsn(), "a batch that was not written left the WAL as it was");
    }

    fn after_batch(&self) {
        if self.after_batch_due() {
            // Skipped while a backup holds the gate or waits for it: retried after a
            // later batch. A failure here is already fail-stop (recorded by checkpoint
            // itself), or a full disk, and then the checkpoint is retried likewise.
            if let Some(hold) = self.gate.try_automatic() {
                crate::panics::test_panic::trap("sync.checkpoint");
                let _ = self.checkpoint(&hold);
            }
        }
    }

    fn after_batch_due(&self) -> bool {
        let checkpoint_lsn = self.meta.lock().expect("meta lock").checkpoint_lsn;
        self.wal.bytes_after(checkpoint_lsn) >= self.options.checkpoint_wal_bytes
    }

    fn fail_stop(&self, cause: String) {
        // Even through a lock a panic poisoned: a stop must not fail (`Inner::failed`).
        self.failed.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert(cause);
    }

    fn failed(&self) -> Option<String> {
        Inner::failed(self)
    }
}
