//! tenantdb's storage core. Pure Rust; it knows nothing of Node.
//!
//! The public surface is listed here; everything else is private to the crate. Each
//! folder is one concept, and its `mod.rs` says what the concept is and what it offers
//! the rest of the crate. The modules stand in layers, from files and bytes up through
//! pages, the space map, the pager and the B-trees to versions, checkpoints and the
//! database (docs/architecture.md, "Storage layers"; `tests/module_layers.rs` holds
//! every module to its layer).
//!
//! Test-only code is built only with the `testing` feature, off by default and never
//! turned on by the binding (the crate's own tests, examples and the fuzz targets turn
//! it on, see Cargo.toml): the simulated file system (`vfs/sim/`) and the fuzz targets'
//! decoder checks (`decoders/`).

#[cfg(all(test, not(feature = "testing")))]
compile_error!("the unit tests use the simulated file system: build them with the `testing` feature (Cargo.toml's dev-dependency on this crate turns it on)");

mod btree;
mod checkpoint;
mod commit;
mod corruption_log;
mod database;
/// Decoder properties for the fuzz targets and the replay test; not a storage API.
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod decoders;
mod encoding;
mod error;
pub mod limits;
mod meta;
mod page;
mod pager;
mod panics;
mod progress;
mod space;
mod versions;
pub mod vfs;
pub mod wal;

/// The test-only panic trigger, shared with the binding; not a storage API.
#[doc(hidden)]
pub use panics::test_panic;

pub use btree::Bytes;
pub use commit::{Commit, CommitPayload, Malformed, Op, OpRef, Ops};
pub use corruption_log::CorruptionReport;
pub use database::{Backup, BackupFile, CompactReport, Database, Options};
pub use database::{CheckpointStats, CheckpointTotals, CloseReport, Stats, VerifyReport};
pub use database::{Histogram, BUCKET_BOUNDS_MICROS};
pub use error::{CorruptionKind, Error, Result};
pub use page::{PageType, PAGE_HEADER_BYTES};
pub use pager::CacheStats;
pub use panics::panic_message;
pub use progress::{ProgressReport, WorkStep};
pub use space::SpaceStats;
pub use versions::{Snapshot, TreeDiff, TreeInfo};
pub use wal::Frame;
