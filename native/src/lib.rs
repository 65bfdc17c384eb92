//! The N-API binding: one-line delegates over `storage`, one error mapping
//! (`error.rs`), async tasks for anything that touches the disk, and commit promises
//! settled by the storage core's sync thread.
//!
//! Bytes cross as Buffers: a commit is one Buffer in the WAL payload format
//! (`crates/storage/src/commit.rs`), a range batch is one packed Buffer
//! (`snapshot.rs`), so no call pays per-entry conversion costs.

mod convert;
mod engine;
mod error;
mod snapshot;
mod tasks;

pub use engine::{open, Engine};
pub use snapshot::Snapshot;
