//! Commits: a transaction as the storage core logs it (`codec.rs`: its operations and
//! their one encoding, the WAL frame payload), that encoding checked once and then used
//! as it is (`payload.rs`), and group commit (`group_commit.rs`: the sync thread that
//! applies queued commits, writes each batch with one fdatasync and completes them;
//! `commit_here.rs`: a commit written and synced on its caller's thread instead;
//! `pacing.rs`: how long the sync thread polls before it sleeps).
//! What a commit does to the trees is `versions/`'s; writing a batch is the database's
//! (`database/batch_sink.rs`), so nothing here knows pages or trees.

mod codec;
mod commit_here;
mod group_commit;
mod pacing;
mod payload;

pub use codec::{Commit, Malformed, Op, OpRef};
pub use commit_here::commit_here;
pub use group_commit::{run_sync_thread, BatchSink, Completion, GroupCommit, Pending};
pub use payload::{CommitPayload, Ops};
