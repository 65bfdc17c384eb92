//! What a database reports to its caller: its statistics, a verify's findings, what a
//! close and a checkpoint did, and what the checkpoints since open did together. Plain
//! data, filled in by `database/`.

use std::path::PathBuf;

use super::histogram::Histogram;
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

/// What the checkpoints since open did, as health detail reports it: how many ran, how
/// many wrote over slots they released themselves (in place, through the journal), the
/// pages they wrote and released, and the slowest one. Operators read it to see that
/// space is being reused; the kill -9 loop of the HTTP server reads it to know its kills
/// landed among checkpoints that reuse slots.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckpointTotals {
    pub count: u64,
    pub in_place: u64,
    pub pages_written: u64,
    pub pages_released: u64,
    pub max_micros: u64,
}

impl CheckpointTotals {
    pub(crate) fn record(&mut self, stats: &CheckpointStats, micros: u64) {
        self.count += 1;
        self.in_place += u64::from(stats.in_place);
        self.pages_written += stats.pages_written;
        self.pages_released += stats.pages_released;
        self.max_micros = self.max_micros.max(micros);
        debug_assert!(self.in_place <= self.count);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_counts_and_keeps_the_slowest() {
        let mut totals = CheckpointTotals::default();
        let stats = |pages_written, pages_released, in_place| CheckpointStats { pages_written, pages_released, in_place, ..CheckpointStats::default() };
        totals.record(&stats(10, 0, false), 700);
        totals.record(&stats(4, 6, true), 300);
        assert_eq!(totals, CheckpointTotals { count: 2, in_place: 1, pages_written: 14, pages_released: 6, max_micros: 700 });
    }
}
