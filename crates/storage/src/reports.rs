//! What a database reports to its caller: its statistics, a verify's findings, what a
//! close and a checkpoint did. Plain data, filled in by `database/`.

use std::path::PathBuf;

use crate::checkpoint_totals::CheckpointTotals;
use crate::histogram::Histogram;
use crate::pager::CacheStats;
use crate::space::SpaceStats;
use crate::corruption_log::CorruptionReport;

#[derive(Debug, Clone)]
pub struct Stats {
    pub page_count: u64,
    pub page_file_bytes: u64,
    pub wal_bytes: u64,
    /// LSN of the newest durable commit (what readers see).
    pub current_lsn: u64,
    pub checkpoint_lsn: u64,
    /// WAL bytes after the checkpoint LSN: what recovery would replay.
    pub lag_bytes: u64,
    pub oldest_lsn: u64,
    pub replayed_frames: u64,
    pub torn_bytes: u64,
    pub open_micros: u64,
    pub fsync: Histogram,
    /// What the checkpoints since open did.
    pub checkpoints: CheckpointTotals,
    pub cache: CacheStats,
    /// The page file's slots by state, as of the last checkpoint.
    pub space: SpaceStats,
    pub corruption: Vec<CorruptionReport>,
    pub corruption_total: u64,
    pub db_dir: PathBuf,
}

#[derive(Debug, Clone, Default)]
pub struct VerifyReport {
    pub pages: u64,
    pub entries: u64,
    pub wal_problems: usize,
    /// The slots by state in the space map checked (live and free disjoint, covering
    /// the file, every count recounted).
    pub space: SpaceStats,
    pub problems: Vec<String>,
}

/// What `Database::close` did besides stopping.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CloseReport {
    /// The final checkpoint was skipped because the disk is full (the reason). Nothing
    /// is lost: every acknowledged commit is in the WAL and the next open replays it.
    pub checkpoint_skipped: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct CheckpointStats {
    /// The generation of the meta record it wrote.
    pub generation: u64,
    pub checkpoint_lsn: u64,
    pub pages_written: u64,
    /// Slots whose last reference went away and were read to release what they held.
    pub pages_released: u64,
    /// It wrote over slots it released itself, through the journal (space/mod.rs).
    pub in_place: bool,
    /// The allocator tip after the checkpoint (it comes down when the file's free
    /// tail is cut off).
    pub page_count: u64,
}
