//! The N-API binding: one-line delegates over `storage`, one error mapping
//! (`error.rs`), async tasks for anything that touches the disk, and commit
//! completions delivered by one threadsafe function per engine (`completions.rs`).
//!
//! Bytes cross as Buffers: a commit is one Buffer in the WAL payload format
//! (`crates/storage/src/commit.rs`), a range batch is one packed Buffer
//! (`snapshot.rs`), so no call pays per-entry conversion costs.

mod completions;
mod convert;
mod engine;
mod error;
mod snapshot;
mod tasks;

pub use engine::{open, Engine};
pub use snapshot::Snapshot;
