//! Commits: a transaction as the storage core logs it (`codec.rs`: its operations and
//! their one encoding, the WAL frame payload), that encoding checked once and then used
//! as it is (`payload.rs`), and group commit (`group_commit.rs`: the sync thread that
//! applies queued commits, writes each batch with one fdatasync and completes them).
//! What a commit does to the trees is `versions/`'s; writing a batch is the database's
//! (`database/batch_sink.rs`), so nothing here knows pages or trees.

mod codec;
mod group_commit;
mod payload;

pub use codec::{Commit, Malformed, Op, OpRef};
pub use group_commit::{commit_here, run_sync_thread, BatchSink, Completion, GroupCommit, Pending};
pub use payload::{CommitPayload, Ops};
