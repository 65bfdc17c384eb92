//! The write-ahead log: one frame per committed transaction, with an opaque payload,
//! and the change feed (frames stay readable until retention deletes their segment).
//!
//! # Files
//!
//! Segments live in `<db dir>/wal/`, named `{first_lsn:020}.wal`. LSNs grow by exactly
//! one per frame, across segments and restarts. Frames are written in batches (group
//! commit): one batch is one `write_at` then one `sync`, and the next batch is only
//! written after that sync returned, so at most ONE batch is ever unsynced. A batch
//! never spans segments: a new segment is started, at a batch boundary, once the
//! current one holds `SEGMENT_BYTES_MAX` bytes (or is sealed, rule 7). A new segment is
//! made durable with the batch that starts it: create, zero-fill, write, sync the file,
//! sync the directory. Frame format: see `frame.rs`.
//!
//! # Preallocation: why a segment ends in zeros
//!
//! An fdatasync after an append that grows the file must also commit the new size
//! (and block allocation) to the file system's journal: on ext4 that makes a small
//! durable commit about 1.4x slower than overwriting blocks that already exist. So a
//! segment is zero-filled ahead of the write position: when a batch would run past the
//! file's end, the writer first `allocate`s (writes zeros) up to the next multiple of
//! the preallocation step (at least to the batch's end, never past
//! `SEGMENT_BYTES_MAX` unless the batch itself does), then writes the batch into
//! them, and the batch's one sync makes both durable. Every other batch overwrites
//! zeros in place and its sync flushes data only. A segment file is therefore its
//! frames, then zeros (then, only for the segment's last batch, nothing: it may end
//! past the last step). Only zeros may ever follow the last frame: recovery keeps it
//! so (rule 4).
//!
//! # A full disk: allocate first, so a failed batch is gone
//!
//! Zero-filling *before* writing the batch is what makes a full disk harmless: ENOSPC
//! (or EDQUOT) can only come from the allocation (or from creating a new segment),
//! when nothing of the batch is in the file, so `append_batch` returns
//! `Error::StorageFull` and the WAL carries on (a just-created segment is removed,
//! best effort; an empty or zero-filled one is harmless to recovery anyway). Had the
//! frames been written first, a failed allocation would leave them in the page
//! cache, the kernel would write them later, and recovery would replay a commit its
//! client was told had failed. Overwriting allocated zeros needs no new space. Once
//! the batch's `write_at` started, a failure of it or of its `sync` (or of the new
//! segment's directory sync) may leave its bytes on disk: `Error::OutcomeUnknown`, and
//! the WAL fail-stops; a failure before it of any other kind is `FailStopped` (not
//! written, but the device is failing).
//!
//! # Recovery: a torn tail versus corruption
//!
//! After a crash the last batch may be partly on disk: each of its frames missing,
//! torn at 512-byte sectors, or whole, in any combination (unsynced writes are
//! reordered). That is normal, and recovery discards it. A damaged frame of a batch
//! that had been synced is corruption, and must never be dropped silently. The two are
//! told apart with `batch_start_lsn`:
//!
//! 1. Frames are scanned in order. A frame that is *unreadable* (bad magic, length
//!    over the cap or past the end of the file, bad checksum) at offset X, where LSN E
//!    was expected, starts the decision below, unless every byte from X to the end of
//!    the file is zero: then the segment's frames end at X (preallocated space, or an
//!    unsynced batch none of whose sectors landed), nothing is torn, and the scan goes
//!    on with the next segment, which must start at E.
//! 2. Search forward, from X in the same segment and then through every later
//!    segment, at 8-aligned offsets, for any readable frame F with `F.lsn >= E`. A
//!    readable frame is skipped over whole, so payload bytes that happen to look like
//!    a frame are not mistaken for one; an unreadable spot advances by 8 bytes. Every
//!    byte is probed once: linear, and only paid on this failure path.
//! 3. If some F has `F.batch_start_lsn > E`, a batch that started after E was written
//!    and (since a batch is only written after the previous one was synced) E's batch
//!    had been synced: `Error::WalCorrupted { segment, offset: X }`.
//! 4. Otherwise every such F (if any) belongs to E's batch, the one unsynced batch:
//!    a torn tail. Everything from X on is discarded: later segment files are removed
//!    (`sync_dir`), then the segment's bytes from X to its last nonzero byte are
//!    overwritten with zeros (`write_at` + `sync`; the file keeps its length and so its
//!    preallocated space). New frames then append cleanly at X, and no torn frame can
//!    reappear after them: a whole frame of the torn batch, left in place, could sit
//!    exactly where a new frame of E's LSN ends and pass as its batch's next frame.
//!    `Recovered::torn_bytes` counts the nonzero bytes discarded.
//!
//! A *readable* frame after the checkpoint that does not fit where it sits (LSN other
//! than E, a `batch_start_lsn` that is neither its own LSN nor its batch's, nonzero
//! padding) is corruption at once (a checkpointed one: rule 5): a crash tears or drops writes but never moves whole frames,
//! and a frame left over from before an earlier recovery cannot exist because that
//! recovery zeroed it durably. The same holds for a segment whose name promises
//! another LSN than its first frame has, and for a segment that does not start right
//! after the previous one ends (a gap in the middle: retention only deletes the
//! oldest segments, so only the oldest may start anywhere; it must start at or below
//! `checkpoint_lsn + 1`, or frames needed for replay are gone).
//!
//! Limits of the rule: damage to the *last* synced batch after the checkpoint, with no
//! later batch, looks exactly like a torn tail and is discarded (nothing on disk tells
//! them apart; once checkpointed, rule 5 reports it instead). And
//! inside a torn frame whose header was lost, its payload is probed like any bytes: a
//! payload that embeds a well-formed frame with a larger LSN and batch start would
//! make a torn tail read as corruption (the safe direction: refuse, never drop).
//!
//! # Checkpointed history: damage that does not stop the open
//!
//! A frame with LSN <= `checkpoint_lsn` was synced: a checkpoint covers only durable
//! versions, and a version is durable only once its frames were synced. So such a frame
//! can never be a torn write, and damage to it is corruption; but replay does not need
//! it, so it must be reported without refusing the open (only history recovery needs
//! may do that):
//!
//! 5. When the frame expected at offset X (LSN E <= `checkpoint_lsn`) is unreadable,
//!    or readable but does not fit, and the file is not all zeros from X: probe
//!    forward from X (8-aligned, readable frames skipped whole, as in rule 2) for the
//!    next readable frame F with `F.lsn > E`.
//!    - `F.lsn <= checkpoint_lsn + 1`: resynchronise there. LSNs `E..F.lsn` are
//!      damaged; each keeps an index entry pointing at X, so reading it fails with
//!      `WalCorrupted { offset: X }` while the frames from F on read as usual.
//!    - `F.lsn > checkpoint_lsn + 1`: frames replay needs are unreadable too. Rules
//!      2-4 decide from `checkpoint_lsn + 1`: corruption (refuse the open), or a torn
//!      tail, whose readable frames are zeroed; the damaged checkpointed bytes are left
//!      as they are (evidence; nothing is appended after them, see below).
//!    - no such F in the segment: LSNs from E up to where the next segment starts (or
//!      to `checkpoint_lsn + 1` for the newest segment) are damaged at X. If that would
//!      lose a frame after the checkpoint, the open is refused.
//! 6. Missing checkpointed frames are damage too: a segment whose frames end cleanly
//!    (zeros) before the next segment starts, or, for the newest segment (retention
//!    never deletes it), before `checkpoint_lsn + 1`. They are indexed at the offset
//!    where the frames end. A gap that reaches past the checkpoint is refused (rule
//!    above). Nothing is ever deleted to hide damage: the WAL goes on at
//!    `checkpoint_lsn + 1`.
//! 7. A segment holding damage is sealed: no batch is appended to it, the next one
//!    starts a new segment (so no new frame ever sits after damage, and every open
//!    finds the same damage again). `Recovered::damage` lists it; `Database::open`
//!    records each as a corruption report (`wal:<segment>@<offset>`, kind
//!    `wal_frame`), and `verify` reports each as a problem.
//!
//! A WAL directory with no segment at all starts afresh at `checkpoint_lsn + 1`
//! (a new database, or one whose segments an older version removed): nothing is
//! left to index, so nothing is reported.
//!
//! # Read-only
//!
//! `Wal::open_read_only` runs the same recovery in memory: nothing is zeroed, removed
//! or created (a torn tail stays on disk and is skipped; later segments a writable
//! open would remove are remembered so `verify` does not call them strays), and
//! `append_batch` and `retain` are refused with `Error::ReadOnly`.
//!
//! # Concurrency
//!
//! Every method takes `&self`; share the log as `Arc<Wal>`. `append_batch` and
//! `retain` are serialized by an internal writer mutex, which also holds the
//! fail-stop cause. Readers (`read_after`, `verify`, the stats) take a read lock on the
//! segment list only to copy out what they need (file handles, offsets), and do their
//! file I/O without any lock (`verify` also takes the writer mutex for its directory
//! listing and snapshot, so it may wait for one batch, never for its own reads). The writer does its write and sync without the list
//! lock too, and publishes new frames (and the new `next_lsn`) only after the sync
//! returned, so readers only ever see durable frames and never a half-written batch.
//!
//! # Sizes
//!
//! `bytes_after` is exact: each segment keeps the offset of every frame (4 bytes per
//! frame, at most an eighth of the segment since a frame is at least 32 bytes).

mod frame;
mod reader;
mod recovery;
mod segment;
mod verify;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::error::{Error, Result};
use crate::vfs::Vfs;
use segment::Segment;

pub use frame::{FRAME_HEADER_BYTES, FRAME_MAGIC};
pub use segment::WalDamage;

pub use crate::limits::{WAL_PREALLOCATE_BYTES_DEFAULT as PREALLOCATE_BYTES_DEFAULT, WAL_FRAME_PAYLOAD_BYTES_MAX as FRAME_PAYLOAD_BYTES_MAX, WAL_SEGMENT_BYTES_MAX as SEGMENT_BYTES_MAX, WAL_SEGMENT_FILE_BYTES_MAX as SEGMENT_FILE_BYTES_MAX};

/// Name of the WAL's directory inside the database directory.
pub const WAL_DIR_NAME: &str = "wal";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub lsn: u64,
    pub payload: Vec<u8>,
}

#[derive(Debug, Default)]
pub struct Recovered {
    /// Frames with `lsn > checkpoint_lsn`, in LSN order: what to replay.
    pub frames: Vec<Frame>,
    /// Bytes discarded as a torn tail (0 after a clean shutdown).
    pub torn_bytes: u64,
    /// Checkpointed frames found damaged or missing, oldest first: corruption to
    /// report (the open goes on; reading those frames is `WalCorrupted`).
    pub damage: Vec<WalDamage>,
}

pub struct Wal {
    vfs: Arc<dyn Vfs>,
    /// `<db dir>/wal`.
    dir: PathBuf,
    /// Step of zero-filling ahead of the write position (0: off); see the module docs.
    preallocate_bytes: u64,
    /// Opened with `open_read_only`: appends and retention are refused.
    read_only: bool,
    /// Read-only: segment files recovery would have removed as a torn tail (verify
    /// does not count them as strays).
    doomed: Vec<String>,
    /// Serializes `append_batch` and `retain`; `Some(cause)` once fail-stopped.
    writer: Mutex<Option<String>>,
    /// What readers see: durable segments and the next LSN. Held only briefly.
    state: RwLock<State>,
}

struct State {
    /// Oldest first, contiguous in LSN. May be empty (fresh, or all removed).
    segments: Vec<Segment>,
    /// LSN the next appended frame gets; every frame below it is durable.
    next_lsn: u64,
}

// Shared as `Arc<Wal>` across the sync thread and readers.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Wal>();
};

impl State {
    fn oldest_lsn(&self) -> u64 {
        self.segments.first().map_or(self.next_lsn, |s| s.first_lsn)
    }

    fn bytes(&self) -> u64 {
        self.segments.iter().map(|s| s.bytes).sum()
    }
}

impl Wal {
    /// Opens `<dir>/wal` (creating it), recovers (see the module docs) and returns the
    /// frames after `checkpoint_lsn` to replay. `next_lsn` becomes
    /// `max(last valid lsn, checkpoint_lsn) + 1`. Segments are zero-filled ahead of the
    /// write position in steps of `preallocate_bytes` (0: never).
    pub fn open(
        vfs: Arc<dyn Vfs>,
        dir: &Path,
        checkpoint_lsn: u64,
        preallocate_bytes: u64,
    ) -> Result<(Wal, Recovered)> {
        let wal_dir = dir.join(WAL_DIR_NAME);
        let existed = vfs
            .exists(&wal_dir)
            .map_err(|e| Error::io("stat WAL directory", &wal_dir, e))?;
        // Private to the owner; an existing directory with wider modes is tightened.
        vfs.create_private_dir(&wal_dir)
            .map_err(|e| Error::io("create WAL directory", &wal_dir, e))?;
        if !existed {
            // The new directory's entry must be durable before segments in it are.
            vfs.sync_dir(dir)
                .map_err(|e| Error::io("sync directory", dir, e))?;
        }
        Wal::recover(vfs, wal_dir, checkpoint_lsn, preallocate_bytes, false)
    }

    /// Opens `<dir>/wal` without changing anything: recovery runs in memory (a torn
    /// tail is left on disk and skipped, nothing is zeroed, removed or created), and
    /// `append_batch` and `retain` are refused with `Error::ReadOnly`. A missing WAL
    /// directory is an empty WAL.
    pub fn open_read_only(vfs: Arc<dyn Vfs>, dir: &Path, checkpoint_lsn: u64) -> Result<(Wal, Recovered)> {
        Wal::recover(vfs, dir.join(WAL_DIR_NAME), checkpoint_lsn, 0, true)
    }

    fn recover(
        vfs: Arc<dyn Vfs>,
        wal_dir: PathBuf,
        checkpoint_lsn: u64,
        preallocate_bytes: u64,
        read_only: bool,
    ) -> Result<(Wal, Recovered)> {
        let outcome = recovery::recover(&*vfs, &wal_dir, checkpoint_lsn, read_only)?;
        let wal = Wal {
            vfs,
            dir: wal_dir,
            preallocate_bytes,
            read_only,
            doomed: outcome.doomed,
            writer: Mutex::new(None),
            state: RwLock::new(State {
                segments: outcome.segments,
                next_lsn: outcome.next_lsn,
            }),
        };
        Ok((wal, outcome.recovered))
    }

    /// LSN the next appended frame must have. Every frame below it is durable.
    pub fn next_lsn(&self) -> u64 {
        self.read_state().next_lsn
    }

    /// What a backup copies of the log (`database/backup/`), read in one look at the state so
    /// it belongs to one LSN: the next LSN, and each segment's name and the bytes to
    /// copy: up to the end of its last durable frame (appends only ever write past it),
    /// or, for a sealed segment, the whole file (it holds damage, kept as evidence, and
    /// nothing is ever appended to it). Retention, the only thing that deletes a
    /// segment, runs only inside a checkpoint, which the backup gate keeps out.
    pub(crate) fn backup_view(&self) -> Result<(u64, Vec<(String, u64)>)> {
        let state = self.read_state();
        let mut segments = Vec::with_capacity(state.segments.len());
        for segment in &state.segments {
            let bytes = if segment.sealed() {
                segment.file.len().map_err(|e| Error::io("stat", &segment.path, e))?
            } else {
                segment.bytes
            };
            segments.push((format!("{WAL_DIR_NAME}/{}", segment.name), bytes));
        }
        Ok((state.next_lsn, segments))
    }

    /// Appends `frames` (`(lsn, payload)`, LSNs consecutive from `next_lsn()`: anything
    /// else is a bug and panics) as one batch: one `write_at`, then one `sync`, after
    /// starting a new segment if the current one is full or sealed. Returns `Ok` only
    /// once the batch is durable. A full disk before anything was written is
    /// `StorageFull` (not fail-stopped); a failed write or sync is `OutcomeUnknown`,
    /// another failure before the write `FailStopped`, and from then on every append
    /// and `retain` fails with `Error::FailStopped` (reopen to recover). An empty batch
    /// is a no-op; a payload over `FRAME_PAYLOAD_BYTES_MAX` is `InvalidArgument`
    /// (nothing written, not fail-stopped). Read-only: `ReadOnly`.
    pub fn append_batch(&self, frames: &[(u64, &[u8])]) -> Result<()> {
        writer::append_batch(self, frames)
    }

    /// Frames with `lsn > after`, in order: at most `max_frames`, and no more than
    /// `max_bytes` of payload in total, except that the first frame is always returned
    /// even if it alone is larger. Only durable frames are read. Empty if nothing is
    /// after `after` (or `max_frames` is 0). `InvalidArgument` if frames right after
    /// `after` were already deleted by retention (so a change-feed reader never skips
    /// frames without knowing). A frame failing its checksum, or one recovery found
    /// damaged (rule 5), is `WalCorrupted`: the whole read fails, unless the frame
    /// count limit ends it before that frame.
    pub fn read_after(
        &self,
        after: u64,
        max_frames: usize,
        max_bytes: usize,
    ) -> Result<Vec<Frame>> {
        reader::read_after(self, after, max_frames, max_bytes)
    }

    /// Lowest LSN still stored (`next_lsn()` if the WAL holds no frame).
    pub fn oldest_lsn(&self) -> u64 {
        self.read_state().oldest_lsn()
    }

    /// Total bytes of all segments (durable frames only).
    pub fn bytes(&self) -> u64 {
        self.read_state().bytes()
    }

    /// Exact bytes (headers and padding included) of the stored frames with LSN > `lsn`.
    pub fn bytes_after(&self, lsn: u64) -> u64 {
        let state = self.read_state();
        state
            .segments
            .iter()
            .filter(|s| s.end_lsn() > lsn.saturating_add(1))
            .map(|s| s.bytes - s.offset_of(lsn.saturating_add(1).max(s.first_lsn)))
            .sum()
    }

    /// Deletes whole segments whose every frame has `lsn <= checkpoint_lsn`, oldest
    /// first, as long as the bytes remaining stay `>= retention_bytes`; never the
    /// newest segment. Durable (`sync_dir`) when it returns. An I/O error fail-stops
    /// the WAL like a failed append.
    pub fn retain(&self, checkpoint_lsn: u64, retention_bytes: u64) -> Result<()> {
        writer::retain(self, checkpoint_lsn, retention_bytes)
    }

    /// Reads every frame of every segment and checks format, checksums and LSN
    /// continuity, and that the directory holds exactly the segments the WAL knows;
    /// damage recovery found (rules 5-7) is a problem too. Returns the problems as
    /// sentences (empty: clean). Modifies nothing; I/O errors are returned as errors.
    pub fn verify(&self) -> Result<Vec<String>> {
        verify::verify(self, None)
    }

    /// `verify`, counting the bytes it reads in `progress` (`progress.rs`).
    pub(crate) fn verify_reporting(&self, progress: &crate::progress::Progress) -> Result<Vec<String>> {
        verify::verify(self, Some(progress))
    }

    fn read_state(&self) -> RwLockReadGuard<'_, State> {
        // Nothing panics while holding the lock, but a poisoned lock must not turn
        // every later read into a panic either.
        self.state.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write_state(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|e| e.into_inner())
    }

    fn lock_writer(&self) -> MutexGuard<'_, Option<String>> {
        // The LSN assertion panics while holding this lock, before any I/O or state
        // change, so the state behind a poisoned lock is still sound.
        self.writer.lock().unwrap_or_else(|e| e.into_inner())
    }
}
