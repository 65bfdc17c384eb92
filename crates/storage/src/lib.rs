//! tenantdb's storage core. Pure Rust; it knows nothing of Node.
//!
//! The public surface is listed here; everything else is private to the crate.

mod backup;
mod backup_gate;
mod btree;
mod byte_reader;
mod checkpoint;
mod checkpoint_sink;
mod checksum;
mod commit;
mod commit_payload;
mod compact_space;
mod corruption_log;
mod database;
/// Decoder properties for the fuzz targets and the replay test; not a storage API.
#[doc(hidden)]
pub mod decoders;
mod dir_lock;
mod disk_loc;
mod error;
mod fail_stop;
mod panic_message;
mod follow;
mod group_commit;
mod histogram;
mod journal;
pub mod limits;
mod meta;
mod overflow;
mod page;
mod page_cache;
mod page_file;
mod prefix_root_set;
mod readers;
mod release;
mod relocate;
mod reports;
mod space;
mod space_chain;
mod space_trace;
mod pager;
mod progress;
mod snapshot;
/// The test-only panic trigger, shared with the binding; not a storage API.
#[doc(hidden)]
pub mod test_panic;
mod version;
pub mod vfs;
pub mod wal;

pub use backup::{Backup, BackupFile};
pub use btree::Bytes;
pub use commit::{Commit, Malformed, Op, OpRef};
pub use commit_payload::{CommitPayload, Ops};
pub use reports::CheckpointTotals;
pub use compact_space::CompactReport;
pub use corruption_log::CorruptionReport;
pub use database::{Database, Options};
pub use panic_message::panic_message;
pub use reports::{CheckpointStats, CloseReport, Stats, VerifyReport};
pub use snapshot::{Snapshot, TreeDiff, TreeInfo};
pub use histogram::{Histogram, BUCKET_BOUNDS_MICROS};
pub use pager::CacheStats;
pub use progress::{ProgressReport, WorkStep};
pub use space::SpaceStats;
pub use wal::Frame;
pub use error::{CorruptionKind, Error, Result};
pub use page::{PageType, PAGE_HEADER_BYTES};
