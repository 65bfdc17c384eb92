//! Every limit of the storage core, in one place, each named with its unit.

/// Size of one page slot on disk. Fixed for the life of a directory (recorded in meta).
pub const PAGE_BYTES: usize = 4096;

/// Number of meta slots at the head of the page file (both hold the newest record: a publish writes slot 0, then slot 1).
pub const META_SLOTS: u64 = 2;

/// Largest page number the allocator hands out: 2^40 pages of 4 KiB is 4 PiB.
pub const PAGE_NO_MAX: u64 = 1 << 40;

const _: () = assert!(PAGE_BYTES.is_power_of_two() && PAGE_BYTES >= 512);

/// Largest key of a B-tree entry (docs/operations.md, "Limits": key 1 KiB).
pub const KEY_BYTES_MAX: usize = 1024;

/// Largest value of a B-tree entry (docs/operations.md, "Limits": row 1 MiB).
pub const VALUE_BYTES_MAX: usize = 1024 * 1024;

/// Values longer than this go to overflow pages. Chosen so that two entries with a
/// maximal key and a maximal inline value always fit in one leaf, which makes a
/// two-way split of an overfull node always fit.
pub const INLINE_VALUE_BYTES_MAX: usize = 960;

/// Longest tree or pin name.
pub const NAME_BYTES_MAX: usize = 255;

/// A WAL segment is closed once it holds this many bytes; the next batch starts a new one.
pub const WAL_SEGMENT_BYTES_MAX: u64 = 16 << 20;

/// WAL segments are zero-filled ahead of the write position in steps of this many
/// bytes (never past `WAL_SEGMENT_BYTES_MAX`), so that a commit overwrites
/// allocated blocks and its fdatasync flushes data only, with no metadata (file size,
/// extent) journal commit. One batch per step pays for writing the step's zeros.
pub const WAL_PREALLOCATE_BYTES_DEFAULT: u64 = 1 << 20;

const _: () = assert!(WAL_PREALLOCATE_BYTES_DEFAULT <= WAL_SEGMENT_BYTES_MAX);

/// Largest payload of one WAL frame (one commit); a frame claiming more is invalid.
///
/// Sized for a bulk load of a million rows in one atomic block (docs/performance.md,
/// P4: 1e6 rows of a 24-byte key and a 150-byte value are about 240 MB of commit), with
/// room for rows twice that size. Memory follows the size: while it is committed, a
/// commit of N payload bytes is held as the caller's buffer (N), the binding's checked
/// copy of it (N, the WAL frame's payload as it is), the tree entries its puts become
/// (about N plus 40 bytes per op) and the batch the WAL writes (N); opening a
/// directory whose unreplayed WAL holds it reads its segment (N), copies the frame (N)
/// and builds the entries (N). So about 4 N at the peak: 2 GiB for a commit at this
/// cap. The change feed hands a frame out whole, so a reader of the tail holds
/// one such payload too. A batch of several big commits must still fit one segment
/// file (`WAL_SEGMENT_FILE_BYTES_MAX`, 4 GiB, 8 commits at this cap).
pub const WAL_FRAME_PAYLOAD_BYTES_MAX: usize = 512 << 20;

/// Hard cap on a WAL segment file, so frame offsets fit in u32.
pub const WAL_SEGMENT_FILE_BYTES_MAX: u64 = u32::MAX as u64;

/// Payload bytes one group-commit batch takes from the queue at most (always at least
/// one commit). A batch is written to one segment file, so without this bound eight
/// queued commits at the frame cap would exceed `WAL_SEGMENT_FILE_BYTES_MAX` and the
/// failed write would stop the database; the rest waits for the next batch.
pub const WAL_BATCH_BYTES_MAX: usize = 1 << 30;
const _: () = assert!(WAL_BATCH_BYTES_MAX as u64 + WAL_FRAME_PAYLOAD_BYTES_MAX as u64 * 2 <= WAL_SEGMENT_FILE_BYTES_MAX);

/// Longest the sync thread polls for the next commit before it sleeps on the queue's
/// condition variable, when commits have been arriving within this time of the last
/// batch's completion (an awaited writer committing one by one): the next commit is then
/// taken without the futex wake-up and the scheduler's latency of waking an idle thread
/// (`commit/group_commit.rs`, "Polling before sleeping"). While the thread sleeps, or once the
/// gap between batches grows past this, no time is spent polling.
pub const COMMIT_POLL_MICROS_MAX: u64 = 250;

/// Slots one checkpoint releases at least (reading each page once), when references
/// were dropped; it releases twice the pages it wrote if that is more, so releasing
/// keeps ahead of churn while a large drop is spread over several checkpoints
/// (`space/mod.rs`, "Cost").
pub const SPACE_RELEASE_PAGES_MIN: u64 = 4096;

/// Free slots compaction leaves below its target beyond the live pages (or 1/256 of
/// them if more), for the space map and the checkpoints that follow.
pub const COMPACT_SLACK_PAGES_MIN: u64 = 16;

/// How long compaction waits for readers of older versions to finish before it moves
/// on (the slots they hold are then cut off by a later checkpoint instead).
pub const COMPACT_READER_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// How often a wait for readers looks again.
pub const READER_POLL: std::time::Duration = std::time::Duration::from_millis(10);

/// How full a commit's repacking leaves the leaves it built (`btree/repack.rs`): full
/// enough that a batched load leaves pages about as full as an ascending one, not so
/// full that the next insert splits them again.
pub const REPACK_FILL_PERCENT: usize = 90;

/// Default size of the page cache, in bytes of decoded nodes.
pub const CACHE_BYTES_DEFAULT: usize = 64 * 1024 * 1024;

/// Checkpoint automatically once this many WAL bytes follow the last checkpoint.
pub const CHECKPOINT_WAL_BYTES_DEFAULT: u64 = 64 * 1024 * 1024;

/// WAL kept for the change feed even after checkpoint (docs/operations.md, "Disk space": 256 MiB).
pub const TAIL_RETENTION_BYTES_DEFAULT: u64 = 256 * 1024 * 1024;

/// Entries one range call returns at most (results cross the binding in batches).
pub const RANGE_BATCH_ENTRIES_MAX: usize = 10_000;

const _: () = assert!(
    2 * (2 + 1 + KEY_BYTES_MAX + 4 + INLINE_VALUE_BYTES_MAX) + 3 <= PAGE_BYTES - 32,
    "two maximal leaf entries must fit in one page"
);
