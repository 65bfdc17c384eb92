//! Versions and their readers. A version (`version.rs`) is the root set and the pin
//! table at one LSN, immutable; applying a commit yields a new one sharing every
//! unchanged node. A prefix pin saves the trees under a prefix as a root set of their
//! own (`prefix_root_set.rs`). The readers in flight hold versions (`readers.rs`), which
//! says which freed slots may be reused; a `Snapshot` reads one version
//! (`snapshot.rs`).

mod prefix_root_set;
mod readers;
mod snapshot;
mod version;

pub use readers::{OldestRead, Readers};
pub(crate) use snapshot::SnapshotSource;
pub use snapshot::{Snapshot, TreeDiff, TreeInfo};
pub use version::Version;
