//! Online backup (docs/operations.md, "Backup and restore"): the gate that keeps
//! checkpoints and compaction out while backups copy the files, and backups out while
//! those run (`gate.rs`); and a backup itself, the files and the bytes of each that make
//! the directory at one LSN, read through handles opened when it began (`copy.rs`).

mod copy;
mod gate;

pub use copy::{Backup, BackupFile};
pub(crate) use gate::{BackupGate, MaintenanceHold};
