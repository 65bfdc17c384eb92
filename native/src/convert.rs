//! Plain objects that cross the binding, and their conversions. Numbers are JS
//! numbers: LSNs, counts and sizes stay far below 2^53.

use napi::bindgen_prelude::Buffer;
use napi_derive::napi;

#[napi(object)]
pub struct OpenOptions {
    pub cache_bytes: Option<f64>,
    pub checkpoint_wal_bytes: Option<f64>,
    pub tail_retention_bytes: Option<f64>,
    /// Open without changing a byte (`storage::Options::read_only`).
    pub read_only: Option<bool>,
    /// Open in follower mode (`storage::Options::follower`).
    pub follower: Option<bool>,
    /// Recount the space map from the trees (`storage::Options::rebuild_space`).
    pub rebuild_space: Option<bool>,
}

pub fn options(options: Option<OpenOptions>) -> storage::Options {
    let defaults = storage::Options::default();
    let Some(o) = options else { return defaults };
    storage::Options {
        cache_bytes: o.cache_bytes.map_or(defaults.cache_bytes, |v| v as usize),
        checkpoint_wal_bytes: o.checkpoint_wal_bytes.map_or(defaults.checkpoint_wal_bytes, |v| v as u64),
        tail_retention_bytes: o.tail_retention_bytes.map_or(defaults.tail_retention_bytes, |v| v as u64),
        read_only: o.read_only.unwrap_or(defaults.read_only),
        follower: o.follower.unwrap_or(defaults.follower),
        rebuild_space: o.rebuild_space.unwrap_or(defaults.rebuild_space),
        ..defaults
    }
}

#[napi(object)]
pub struct TreeInfo {
    pub name: Buffer,
    pub count: f64,
    pub lsn: f64,
}

impl From<storage::TreeInfo> for TreeInfo {
    fn from(info: storage::TreeInfo) -> TreeInfo {
        TreeInfo { name: Buffer::from(info.name), count: info.count as f64, lsn: info.lsn as f64 }
    }
}

#[napi(object)]
pub struct CheckpointInfo {
    pub checkpoint_lsn: f64,
    pub pages_written: f64,
    pub pages_released: f64,
    pub page_count: f64,
}

pub fn checkpoint(stats: storage::CheckpointStats) -> CheckpointInfo {
    CheckpointInfo {
        checkpoint_lsn: stats.checkpoint_lsn as f64,
        pages_written: stats.pages_written as f64,
        pages_released: stats.pages_released as f64,
        page_count: stats.page_count as f64,
    }
}

#[napi(object)]
pub struct CompactInfo {
    pub bytes_before: f64,
    pub bytes_after: f64,
    pub pages_moved: f64,
    pub page_count: f64,
}

pub fn compact(report: storage::CompactReport) -> CompactInfo {
    CompactInfo {
        bytes_before: report.bytes_before as f64,
        bytes_after: report.bytes_after as f64,
        pages_moved: report.pages_moved as f64,
        page_count: report.page_count as f64,
    }
}

/// The page file's slots by state (`storage::SpaceStats`).
#[napi(object)]
pub struct SpaceInfo {
    pub live: f64,
    pub free: f64,
    /// Unreachable, held back for the older meta record or a reader in flight.
    pub pending: f64,
    /// Unreachable, their own references not yet released.
    pub releasing: f64,
}

fn space(s: storage::SpaceStats) -> SpaceInfo {
    SpaceInfo { live: s.live as f64, free: s.free as f64, pending: s.pending as f64, releasing: s.releasing as f64 }
}

#[napi(object)]
pub struct CloseInfo {
    /// Why the final checkpoint was skipped (a full disk), or null. Nothing is lost:
    /// the next open replays the WAL.
    pub checkpoint_skipped: Option<String>,
}

pub fn close(report: storage::CloseReport) -> CloseInfo {
    CloseInfo { checkpoint_skipped: report.checkpoint_skipped }
}

#[napi(object)]
pub struct VerifyInfo {
    pub pages: f64,
    pub entries: f64,
    /// The slots of the space map checked (disjoint, covering the file, counts exact).
    pub space: SpaceInfo,
    pub problems: Vec<String>,
}

pub fn verify(report: storage::VerifyReport) -> VerifyInfo {
    VerifyInfo { pages: report.pages as f64, entries: report.entries as f64, space: space(report.space), problems: report.problems }
}

/// The long work running now (`storage::ProgressReport`): `step` is one of
/// verify_pages, verify_space, verify_wal, compact_trees, write_pages, move_pages; `unit` what
/// `done` and `total` count (pages, bytes, entries).
#[napi(object)]
pub struct WorkProgress {
    pub step: String,
    pub unit: String,
    pub done: f64,
    pub total: f64,
}

pub fn progress(report: storage::ProgressReport) -> WorkProgress {
    WorkProgress { step: report.step.name().into(), unit: report.step.unit().into(), done: report.done as f64, total: report.total as f64 }
}

#[napi(object)]
pub struct FrameBatch {
    pub lsns: Vec<i64>,
    pub payloads: Vec<Buffer>,
}

#[napi(object)]
pub struct FsyncBucket {
    /// Inclusive upper bound in microseconds; null for the last, unbounded bucket.
    pub le_micros: Option<f64>,
    pub count: f64,
}

#[napi(object)]
pub struct FsyncHistogram {
    pub count: f64,
    pub max_micros: f64,
    pub sum_micros: f64,
    pub buckets: Vec<FsyncBucket>,
}

/// What the checkpoints since open did (`storage::CheckpointTotals`).
#[napi(object)]
pub struct CheckpointTotals {
    pub count: f64,
    pub in_place: f64,
    pub pages_written: f64,
    pub pages_released: f64,
    pub max_micros: f64,
}

#[napi(object)]
pub struct CorruptionReport {
    pub id: String,
    pub file: String,
    pub page: Option<f64>,
    pub kind: String,
    pub count: f64,
    pub first_seen_ms: f64,
    pub last_seen_ms: f64,
}

#[napi(object)]
pub struct EngineStats {
    pub page_count: f64,
    pub page_file_bytes: f64,
    pub wal_bytes: f64,
    pub current_lsn: f64,
    pub checkpoint_lsn: f64,
    pub lag_bytes: f64,
    pub oldest_lsn: f64,
    pub replayed_frames: f64,
    pub torn_bytes: f64,
    pub open_micros: f64,
    pub fsync: FsyncHistogram,
    pub checkpoints: CheckpointTotals,
    pub cache_hits: f64,
    pub cache_misses: f64,
    pub cache_bytes: f64,
    pub cache_memory_reads: f64,
    pub space: SpaceInfo,
    pub corruption: Vec<CorruptionReport>,
    pub corruption_total: f64,
    pub db_dir: String,
}

pub fn stats(s: storage::Stats) -> EngineStats {
    let bounds = storage::BUCKET_BOUNDS_MICROS.iter().map(|&b| Some(b as f64)).chain(std::iter::once(None));
    let buckets = bounds.zip(s.fsync.buckets.iter()).map(|(le, &count)| FsyncBucket { le_micros: le, count: count as f64 }).collect();
    EngineStats {
        page_count: s.page_count as f64,
        page_file_bytes: s.page_file_bytes as f64,
        wal_bytes: s.wal_bytes as f64,
        current_lsn: s.current_lsn as f64,
        checkpoint_lsn: s.checkpoint_lsn as f64,
        lag_bytes: s.lag_bytes as f64,
        oldest_lsn: s.oldest_lsn as f64,
        replayed_frames: s.replayed_frames as f64,
        torn_bytes: s.torn_bytes as f64,
        open_micros: s.open_micros as f64,
        fsync: FsyncHistogram {
            count: s.fsync.count as f64,
            max_micros: s.fsync.max_micros as f64,
            sum_micros: s.fsync.sum_micros as f64,
            buckets,
        },
        checkpoints: CheckpointTotals {
            count: s.checkpoints.count as f64,
            in_place: s.checkpoints.in_place as f64,
            pages_written: s.checkpoints.pages_written as f64,
            pages_released: s.checkpoints.pages_released as f64,
            max_micros: s.checkpoints.max_micros as f64,
        },
        cache_hits: s.cache.hits as f64,
        cache_misses: s.cache.misses as f64,
        cache_bytes: s.cache.bytes as f64,
        cache_memory_reads: s.cache.memory_reads as f64,
        space: space(s.space),
        corruption: s
            .corruption
            .into_iter()
            .map(|r| CorruptionReport {
                id: r.id,
                file: r.file,
                page: r.page.map(|p| p as f64),
                kind: r.kind,
                count: r.count as f64,
                first_seen_ms: r.first_seen_ms as f64,
                last_seen_ms: r.last_seen_ms as f64,
            })
            .collect(),
        corruption_total: s.corruption_total as f64,
        db_dir: s.db_dir.to_string_lossy().into_owned(),
    }
}
