//! Fail-stop from outside the core. The binding catches a panic at every entry point
//! (docs/architecture.md, "The binding") and then stops the database here, as a failed
//! fsync stops it: commits, frames, checkpoints, compaction and backups are refused with
//! `FailStopped`, and `close` skips its checkpoint (recovery replays the WAL instead),
//! so nothing is written from state a panic may have left half changed. Reads go on.

use crate::database::Database;
use crate::commit::BatchSink;

impl Database {
    /// Stops writing until the directory is reopened; `cause` says why. The first cause
    /// is kept (a later call, or a failed fsync after it, changes nothing).
    pub fn fail_stop(&self, cause: String) {
        BatchSink::fail_stop(self.inner(), cause);
    }

    /// Why the database stopped writing, or `None` while it writes.
    pub fn fail_stopped(&self) -> Option<String> {
        self.inner().failed()
    }
}
