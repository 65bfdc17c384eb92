//! The N-API binding: one-line delegates over `storage`, one error mapping
//! (`error.rs`), async tasks for anything that touches the disk, and commit
//! completions delivered by one threadsafe function per engine (`completions.rs`).
//!
//! Bytes cross as Buffers: a commit is one Buffer in the WAL payload format
//! (`crates/storage/src/commit/codec.rs`), checked by the storage core and logged as it is;
//! a range batch is one packed Buffer (`snapshot.rs`), so no call pays per-entry
//! conversion costs. Errors cross as objects with fields (`error.rs`), never as text
//! to parse. No panic crosses: every entry point catches one (`unwind.rs`).

// Catching a panic needs it to unwind; no profile of the workspace sets
// `panic = "abort"` (Cargo.toml), and this keeps one from doing so unnoticed.
#[cfg(panic = "abort")]
compile_error!("the binding catches panics at every entry point (native/src/unwind.rs): build it with panic = \"unwind\"");

mod backup;
mod completions;
mod convert;
mod engine;
mod error;
mod listen;
mod open;
mod registry;
mod share;
mod snapshot;
mod tasks;
mod test_panic;
mod unwind;

pub use backup::Backup;
pub use engine::Engine;
pub use open::open;
pub use listen::listen_socket;
pub use share::attach;
pub use error::ErrorCode;
pub use snapshot::Snapshot;
