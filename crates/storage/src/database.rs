//! A database directory: its lock, page file, WAL and corruption log, and the
//! versions readers see.
//!
//! Directory contents:
//!
//! | file             | owner               | purpose                                   |
//! |------------------|---------------------|-------------------------------------------|
//! | `LOCK`           | `dir_lock.rs`       | flock held while the directory is open    |
//! | `pages`          | `page_file.rs`      | page slots; slots 0 and 1 are meta slots  |
//! | `wal/*.wal`      | `wal/`              | WAL segments                              |
//! | `corruption.log` | `corruption_log.rs` | persisted corruption reports              |
//! | `checkpoint.journal` | `journal.rs`    | page images of an in-place checkpoint     |
//!
//! Only maintenance (checkpoints, compaction) writes `pages` and the journal and
//! deletes WAL segments, and the WAL appends only past its last durable frame: a backup
//! holds the gate that keeps maintenance out while it copies (`backup_gate.rs`).
//!
//! Life of a commit: `commit` applies it to the head version in memory (checking it
//! first; a failed check changes nothing) and queues it; the sync thread writes the
//! queued commits as one WAL batch, fsyncs once, publishes the newest version to
//! readers and completes each commit (`group_commit.rs`). A checkpoint writes the
//! unwritten nodes of the newest durable version (or of the oldest version a reader
//! holds, when that is newer than the last checkpoint) to free slots, or through
//! `checkpoint.journal` over the slots it frees itself (`space/mod.rs`, "Writing in
//! place"), fsyncs, publishes a new meta record naming them, the space map and the
//! checkpoint LSN in both meta slots, cuts off a free tail of the page file, then lets
//! the WAL drop segments that neither recovery nor tail retention needs. Opening reads the newest valid meta
//! record, its space map, and replays the frames after its checkpoint LSN.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use crate::backup_gate::{BackupGate, MaintenanceHold};
use crate::btree::{self, TreeCheck};
use crate::checkpoint::{checkpoint, swizzle, Plan, Published, ReleaseBudget};
use crate::checkpoint_totals::CheckpointTotals;
use crate::reports::{CheckpointStats, CloseReport, Stats, VerifyReport};
use crate::journal::Journal;
use crate::commit::Commit;
use crate::commit_payload::CommitPayload;
use crate::corruption_log::CorruptionLog;
use crate::error::{Error, Result};
use crate::group_commit::{run_sync_thread, BatchSink, Completion, GroupCommit, Pending};
use crate::histogram::Histogram;
use crate::limits::{CACHE_BYTES_DEFAULT, CHECKPOINT_WAL_BYTES_DEFAULT, TAIL_RETENTION_BYTES_DEFAULT, WAL_PREALLOCATE_BYTES_DEFAULT};
use crate::meta::Meta;
use crate::limits::PAGE_BYTES;
use crate::pager::Pager;
use crate::progress::{ProgressReport, WorkStep};
use crate::page_file::PageFile;
use crate::readers::{OldestRead, Readers};
use crate::relocate::{rebase, Moves};
use crate::snapshot::Snapshot;
use crate::space::{SpaceMap, SpaceStats};
use crate::{space_chain, space_trace};
use crate::version::Version;
use crate::vfs::{RealVfs, Vfs};
use crate::wal::{Frame, Wal};

#[derive(Clone)]
pub struct Options {
    /// Budget of the page cache, in bytes of decoded nodes.
    pub cache_bytes: usize,
    /// Checkpoint automatically once this many WAL bytes follow the last checkpoint.
    pub checkpoint_wal_bytes: u64,
    /// WAL bytes kept for the change feed after they are checkpointed.
    pub tail_retention_bytes: u64,
    /// WAL segments are zero-filled ahead of the write position in steps of this many
    /// bytes, so a commit's fdatasync flushes no file metadata (0: off).
    pub wal_preallocate_bytes: u64,
    /// Open without changing a byte of the directory (`tenantdb verify`): a shared
    /// lock, files opened read-only, recovery in memory only (a torn tail is skipped,
    /// not cleared), no corruption-log writes (reports stay in memory), and commits
    /// and checkpoints refused with `Error::ReadOnly`. The directory must exist and
    /// hold a page file.
    pub read_only: bool,
    /// Open in follower mode (`set_follower`): local commits are refused with
    /// `Error::NotPrimary`, and a primary's frames are applied (`apply_frame`).
    pub follower: bool,
    pub vfs: Arc<dyn Vfs>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            cache_bytes: CACHE_BYTES_DEFAULT,
            checkpoint_wal_bytes: CHECKPOINT_WAL_BYTES_DEFAULT,
            tail_retention_bytes: TAIL_RETENTION_BYTES_DEFAULT,
            wal_preallocate_bytes: WAL_PREALLOCATE_BYTES_DEFAULT,
            read_only: false,
            follower: false,
            vfs: Arc::new(RealVfs),
        }
    }
}

struct Head {
    version: Arc<Version>,
    next_lsn: u64,
}

pub(crate) struct Inner {
    pub(crate) dir: PathBuf,
    pub(crate) options: Options,
    pub(crate) pager: Pager,
    corruption: Arc<CorruptionLog>,
    /// The WAL serialises its own appends; reads and stats never wait on an fsync.
    pub(crate) wal: Wal,
    head: Mutex<Head>,
    durable: Mutex<Arc<Version>>,
    pub(crate) meta: Mutex<Meta>,
    /// `meta.generation`, read without its lock: a snapshot's epoch (`readers.rs`).
    generation: AtomicU64,
    pub(crate) readers: Arc<Readers>,
    /// The checkpoint journal (none when read-only: nothing is written).
    journal: Option<Journal>,
    /// The newest record's space map was damaged and rebuilt at open: `verify` says so
    /// until a checkpoint writes the rebuilt one.
    space_damage: Mutex<Option<String>>,
    checkpoint_lock: Mutex<()>,
    /// Keeps maintenance out while backups copy the files, and backups out while it runs.
    pub(crate) gate: BackupGate,
    failed: Mutex<Option<String>>,
    read_only: bool,
    /// Follower mode: local commits refused, a primary's frames applied.
    follower: AtomicBool,
    /// Set by the first `close` (or drop): later ones return at once.
    closing: AtomicBool,
    closed: AtomicBool,
    fsync: Mutex<Histogram>,
    checkpoints: Mutex<CheckpointTotals>,
    group: GroupCommit,
    replayed_frames: u64,
    torn_bytes: u64,
    open_micros: u64,
    lock: Mutex<Option<Box<dyn Send + Sync>>>,
}

pub struct Database {
    inner: Arc<Inner>,
    sync_thread: Mutex<Option<JoinHandle<()>>>,
}

impl Database {
    /// Opens (creating if needed) the database directory `dir`: takes its lock, reads
    /// the newest meta record and replays the WAL after its checkpoint.
    pub fn open(dir: &Path, options: Options) -> Result<Database> {
        let started = Instant::now();
        let vfs = options.vfs.clone();
        let read_only = options.read_only;
        if read_only {
            if !vfs.exists(dir).map_err(|e| Error::io("open directory", dir, e))? {
                let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
                return Err(Error::io("open directory", dir, missing));
            }
        } else {
            // Private to the owner (docs/operations.md, "File modes").
            vfs.create_private_dir(dir).map_err(|e| Error::io("create directory", dir, e))?;
        }
        let dir = std::path::absolute(dir).map_err(|e| Error::io("resolve", dir, e))?;
        let lock = vfs.lock_dir(&dir, read_only)?;
        let corruption = Arc::new(CorruptionLog::open(vfs.clone(), &dir, !read_only)?);
        let existing = if read_only { PageFile::open_read(&*vfs, &dir)? } else { PageFile::open(&*vfs, &dir)? };
        let journal = if read_only { Journal::open_read(&*vfs, &dir)? } else { Some(Journal::open(&*vfs, &dir)?) };
        let (pages, meta) = match existing {
            Some(pages) => {
                let (meta, stale) = Meta::read_newest(&pages).map_err(|e| record(&corruption, e))?;
                recover_checkpoint(pages, meta, stale, journal.as_ref(), read_only)?
            }
            None if read_only => {
                return Err(Error::InvalidArgument(format!(
                    "{} is not a tenantdb database directory (it has no page file)",
                    dir.display()
                )));
            }
            None => {
                let meta = Meta::initial();
                let pages = PageFile::create(&*vfs, &dir, |pages| {
                    meta.write_slot(pages, 0)?;
                    meta.write_slot(pages, 1)
                })?;
                (pages, meta)
            }
        };
        let pager = Pager::new(pages, SpaceMap::empty(meta.page_count), options.cache_bytes, corruption.clone());
        let (space, space_damage) = load_space(&pager, &meta, &corruption)?;
        pager.set_space(space);
        // The books count what they were built from: a rebuilt map does not count the
        // record's chain (it waits as pending), so the record kept in memory names none.
        let meta = if space_damage.is_some() { Meta { space: None, ..meta } } else { meta };
        let opened = if read_only {
            Wal::open_read_only(vfs.clone(), &dir, meta.checkpoint_lsn)
        } else {
            Wal::open(vfs.clone(), &dir, meta.checkpoint_lsn, options.wal_preallocate_bytes)
        };
        let (wal, mut recovered) = opened.map_err(|e| record(&corruption, e))?;
        // Damaged checkpointed history: the open goes on (recovery does not need it),
        // and the damage is reported and persisted like any corruption.
        for damage in &recovered.damage {
            record(&corruption, Error::WalCorrupted { segment: damage.segment.clone(), offset: damage.offset });
        }
        // Replay must start right after the checkpoint: a WAL that no longer reaches
        // back that far (a lost segment) cannot be replayed correctly.
        let first_lsn = recovered.frames.first().map_or(wal.next_lsn(), |f| f.lsn);
        if first_lsn != meta.checkpoint_lsn + 1 {
            let missing = Error::WalCorrupted { segment: format!("frames {}..{first_lsn} missing", meta.checkpoint_lsn + 1), offset: 0 };
            return Err(record(&corruption, missing));
        }
        let mut version = Version { lsn: meta.checkpoint_lsn, trees: meta.trees.clone(), pins: meta.pins.clone() };
        let replayed_frames = recovered.frames.len() as u64;
        for frame in std::mem::take(&mut recovered.frames) {
            let damaged = || Error::WalCorrupted { segment: format!("frame lsn {}", frame.lsn), offset: 0 };
            let commit = CommitPayload::parse(frame.payload).map_err(|_| record(&corruption, damaged()))?;
            // A logged commit passed these checks when it was made: one that fails them
            // now was damaged on disk (its frame checksum notwithstanding), not refused.
            assert_eq!(frame.lsn, version.lsn + 1, "replay applies recovered frames in LSN order, none skipped");
            version = version.apply(&pager, &commit, frame.lsn).map_err(|err| match err {
                Error::InvalidArgument(_) => record(&corruption, damaged()),
                other => other,
            })?;
        }
        let next_lsn = wal.next_lsn();
        assert_eq!(next_lsn, version.lsn + 1, "the WAL's next LSN follows the last replayed commit");
        let version = Arc::new(version);
        let inner_follower = options.follower;
        let inner = Arc::new(Inner {
            dir,
            options,
            pager,
            corruption,
            wal,
            head: Mutex::new(Head { version: version.clone(), next_lsn }),
            durable: Mutex::new(version),
            generation: AtomicU64::new(meta.generation),
            meta: Mutex::new(meta),
            readers: Arc::new(Readers::default()),
            journal: if read_only { None } else { journal },
            space_damage: Mutex::new(space_damage),
            checkpoint_lock: Mutex::new(()),
            gate: BackupGate::default(),
            failed: Mutex::new(None),
            read_only,
            follower: AtomicBool::new(inner_follower),
            closing: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            fsync: Mutex::new(Histogram::default()),
            checkpoints: Mutex::new(CheckpointTotals::default()),
            group: GroupCommit::new(),
            replayed_frames,
            torn_bytes: recovered.torn_bytes,
            open_micros: started.elapsed().as_micros() as u64,
            lock: Mutex::new(Some(lock)),
        });
        if read_only {
            return Ok(Database { inner, sync_thread: Mutex::new(None) });
        }
        let thread_inner = inner.clone();
        let sync_thread = std::thread::Builder::new()
            .name("tenantdb-sync".into())
            .spawn(move || run_sync_thread(&thread_inner.group, &*thread_inner))
            .map_err(|e| Error::io("spawn sync thread", &inner.dir, e))?;
        Ok(Database { inner, sync_thread: Mutex::new(Some(sync_thread)) })
    }

    /// Encodes `commit` (`Commit::encode`) and queues it (`commit_payload`); one over
    /// a limit completes with the error at once.
    pub fn commit(&self, commit: Commit, done: Completion) {
        match commit.to_payload() {
            Ok(payload) => self.commit_payload(payload, done),
            Err(err) => done(Err(err)),
        }
    }

    /// Queues `commit` for the sync thread, which applies it, writes its bytes as they
    /// are with the next group fsync and calls `done` with its LSN once durable, or
    /// with the error. A commit that fails its checks changes nothing. O(1) for the
    /// caller.
    pub fn commit_payload(&self, commit: CommitPayload, done: Completion) {
        if self.inner.follower.load(Ordering::SeqCst) {
            return done(Err(Error::NotPrimary));
        }
        self.enqueue(Pending { commit, lsn: None, done });
    }

    /// Follower mode only: queues a primary's frame, to be applied as frame `lsn` by
    /// the same `Version::apply` that recovery replays frames with and written to this
    /// WAL with the same payload, so the follower holds the primary's trees, pins and
    /// LSNs. Frames queued together share a WAL batch and its fsync. Refused (and
    /// nothing changed) unless `lsn` is the head's next LSN when the sync thread takes
    /// it, or in primary mode. `done` gets the LSN once durable, as for a commit.
    pub fn apply_frame(&self, lsn: u64, commit: CommitPayload, done: Completion) {
        if !self.inner.follower.load(Ordering::SeqCst) {
            return done(Err(Error::InvalidArgument(format!("frame {lsn} refused: a primary's frames are applied only in follower mode"))));
        }
        self.enqueue(Pending { commit, lsn: Some(lsn), done });
    }

    /// Switches between follower mode (local commits refused, frames applied) and
    /// primary mode. Queue order is apply order, so everything queued before the
    /// switch is applied before anything queued after it.
    pub fn set_follower(&self, follower: bool) {
        self.inner.follower.store(follower, Ordering::SeqCst);
    }

    pub fn is_follower(&self) -> bool {
        self.inner.follower.load(Ordering::SeqCst)
    }

    fn enqueue(&self, pending: Pending) {
        let inner = &self.inner;
        if inner.read_only {
            return (pending.done)(Err(Error::ReadOnly("a commit")));
        }
        if let Some(cause) = inner.failed() {
            return (pending.done)(Err(Error::FailStopped(cause)));
        }
        if let Err(pending) = inner.group.push(pending) {
            (pending.done)(Err(Error::Closed));
        }
    }

    /// Commits and waits until durable. Returns the commit's LSN.
    pub fn commit_sync(&self, commit: Commit) -> Result<u64> {
        let (send, receive) = mpsc::channel();
        self.commit(commit, Box::new(move |result| {
            let _ = send.send(result);
        }));
        receive.recv().expect("every commit completes")
    }

    /// The generation of the newest meta record: a snapshot taken now has it as its
    /// epoch, and one of an older epoch may keep slots from being reused (`readers.rs`).
    pub fn generation(&self) -> u64 {
        self.inner.generation.load(Ordering::SeqCst)
    }

    /// The newest durable version.
    pub fn snapshot(&self) -> Snapshot {
        // The epoch first: never newer than the version taken after it (readers.rs).
        let epoch = self.inner.generation.load(Ordering::SeqCst);
        let version = self.inner.durable.lock().expect("durable lock").clone();
        let hold = self.inner.readers.hold(epoch, version.lsn, Some(&version));
        Snapshot::new(self.inner.clone(), version, hold)
    }

    /// Checkpoints now; refused with `BackupInProgress` while a backup holds the gate.
    pub fn checkpoint(&self) -> Result<CheckpointStats> {
        self.inner.check_open()?;
        let hold = self.inner.gate.try_maintenance().ok_or(Error::BackupInProgress("a checkpoint"))?;
        self.inner.checkpoint(&hold)
    }

    /// Committed frames with LSN > `after`, in order, in a bounded batch. Each payload
    /// is a commit in the format of `commit.rs`, the bytes its committer handed in.
    pub fn read_frames(&self, after: u64, frames_max: usize, bytes_max: usize) -> Result<Vec<Frame>> {
        self.inner.check_open()?;
        let durable_lsn = self.inner.durable.lock().expect("durable lock").lsn;
        let mut frames = self.inner.wal.read_after(after, frames_max, bytes_max).map_err(|e| record(&self.inner.corruption, e))?;
        frames.retain(|frame| frame.lsn <= durable_lsn);
        Ok(frames)
    }

    /// Walks every page reachable from the newest version and its pins, and every WAL
    /// frame, checking checksums and tree invariants, and recounts the space map of
    /// the last checkpoint against the pages it describes. Damage found is also
    /// recorded as corruption reports.
    pub fn verify(&self) -> Result<VerifyReport> {
        let inner = &self.inner;
        inner.check_open()?;
        let version = inner.durable.lock().expect("durable lock").clone();
        let (pages, entries, tree_problems) = {
            // About the live slots: the walk counts the tree pages among them.
            let step = inner.pager.progress().begin(WorkStep::VerifyPages, inner.pager.space_stats().live);
            let mut check = TreeCheck::reporting(&step);
            btree::verify_tree(&inner.pager, &version.trees, "trees", &mut check);
            btree::verify_tree(&inner.pager, &version.pins, "pins", &mut check);
            (check.pages, check.entries, check.problems)
        };
        let (space, space_problems) = inner.verify_space()?;
        let wal_problems = inner.wal.verify_reporting(inner.pager.progress())?;
        let mut problems = crate::meta::check_slots(inner.pager.file());
        problems.extend(tree_problems);
        problems.extend(space_problems);
        let wal_count = wal_problems.len();
        problems.extend(wal_problems);
        Ok(VerifyReport { pages, entries, wal_problems: wal_count, space, problems })
    }

    /// LSN of the newest durable commit (`Stats::current_lsn`), without `stats`'s
    /// file sizes: the change feed asks on every read.
    pub fn durable_lsn(&self) -> Result<u64> {
        self.inner.check_open()?;
        Ok(self.inner.durable.lock().expect("durable lock").lsn)
    }

    /// Oldest LSN the WAL still holds (`Stats::oldest_lsn`), without `stats`'s file sizes.
    pub fn oldest_lsn(&self) -> Result<u64> {
        self.inner.check_open()?;
        Ok(self.inner.wal.oldest_lsn())
    }

    /// The long work running now and how far it has come (`progress.rs`): read from
    /// atomics, never waiting, so it can be polled while the work runs. Also when closed.
    pub fn progress(&self) -> Option<ProgressReport> {
        self.inner.pager.progress().read()
    }

    pub fn stats(&self) -> Result<Stats> {
        let inner = &self.inner;
        inner.check_open()?;
        let checkpoint_lsn = inner.meta.lock().expect("meta lock").checkpoint_lsn;
        let wal = &inner.wal;
        let (wal_bytes, lag_bytes, oldest_lsn) = (wal.bytes(), wal.bytes_after(checkpoint_lsn), wal.oldest_lsn());
        Ok(Stats {
            page_count: inner.pager.page_count(),
            page_file_bytes: inner.pager.file().len_bytes()?,
            wal_bytes,
            current_lsn: inner.durable.lock().expect("durable lock").lsn,
            checkpoint_lsn,
            lag_bytes,
            oldest_lsn,
            replayed_frames: inner.replayed_frames,
            torn_bytes: inner.torn_bytes,
            open_micros: inner.open_micros,
            fsync: inner.fsync.lock().expect("fsync lock").clone(),
            checkpoints: inner.checkpoints.lock().expect("checkpoints lock").clone(),
            cache: inner.pager.cache_stats(),
            space: inner.pager.space_stats(),
            corruption: inner.corruption.reports(),
            corruption_total: inner.corruption.total(),
            db_dir: inner.dir.clone(),
        })
    }

    pub(crate) fn inner(&self) -> &Inner {
        &self.inner
    }

    pub(crate) fn shared(&self) -> Arc<Inner> {
        self.inner.clone()
    }

    pub fn dir(&self) -> &Path {
        &self.inner.dir
    }

    /// Stops the sync thread (completing what was queued), checkpoints, and releases
    /// the directory lock. After a fail-stop it skips the checkpoint (recovery replays
    /// the WAL instead) and returns the failure. On a full disk it skips the
    /// checkpoint too, but that is no failure: it still stops and releases, and says
    /// so in the report, as it does while a backup is in progress (its later reads fail
    /// with `Closed`). Closing twice (or a read-only database) checkpoints nothing.
    pub fn close(&self) -> Result<CloseReport> {
        if self.inner.closing.swap(true, Ordering::SeqCst) {
            return Ok(CloseReport::default());
        }
        self.stop_sync_thread();
        let result = if self.inner.read_only {
            Ok(CloseReport::default())
        } else {
            match self.inner.failed() {
                Some(cause) => Err(Error::FailStopped(cause)),
                None => match self.inner.gate.try_maintenance() {
                    None => Ok(CloseReport { checkpoint_skipped: Some(Error::BackupInProgress("the closing checkpoint").to_string()) }),
                    Some(hold) => match self.inner.checkpoint(&hold) {
                        Ok(_) => Ok(CloseReport::default()),
                        Err(err @ Error::StorageFull { .. }) => Ok(CloseReport { checkpoint_skipped: Some(err.to_string()) }),
                        Err(err) => Err(err),
                    },
                },
            }
        };
        self.inner.release();
        result
    }

    fn stop_sync_thread(&self) {
        let Some(thread) = self.sync_thread.lock().expect("sync thread lock").take() else { return };
        self.inner.group.close();
        thread.join().expect("the sync thread does not panic");
    }
}

impl Drop for Database {
    /// Dropped without `close`: stop the sync thread and release the lock, without a
    /// checkpoint (the WAL holds every acknowledged commit).
    fn drop(&mut self) {
        if !self.inner.closing.swap(true, Ordering::SeqCst) {
            self.stop_sync_thread();
            self.inner.release();
        }
    }
}

impl Inner {
    pub(crate) fn failed(&self) -> Option<String> {
        self.failed.lock().expect("failed lock").clone()
    }

    pub(crate) fn check_open(&self) -> Result<()> {
        if self.closed.load(Ordering::SeqCst) { Err(Error::Closed) } else { Ok(()) }
    }

    fn release(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.lock.lock().expect("dir lock").take();
    }

    fn checkpoint(&self, hold: &MaintenanceHold<'_>) -> Result<CheckpointStats> {
        self.checkpoint_with(hold, ReleaseBudget::Bounded, None)
    }

    #[cfg(test)]
    pub(crate) fn current_meta(&self) -> Meta {
        self.meta.lock().expect("meta lock").clone()
    }

    /// A checkpoint, under a maintenance hold of the backup gate (`backup_gate.rs`).
    pub(crate) fn checkpoint_with(&self, hold: &MaintenanceHold<'_>, budget: ReleaseBudget, moves: Option<&Moves>) -> Result<CheckpointStats> {
        if self.read_only {
            return Err(Error::ReadOnly("a checkpoint"));
        }
        let _serial = self.checkpoint_lock.lock().expect("checkpoint lock");
        // Paired with the gate's own check where the hold was made.
        self.gate.assert_no_backup(hold);
        let started = Instant::now();
        if let Some(cause) = self.failed() {
            return Err(Error::FailStopped(cause));
        }
        let durable = self.durable.lock().expect("durable lock").clone();
        let previous = self.meta.lock().expect("meta lock").clone();
        // The version to write, and whether the slots it frees may take its pages at once
        // (no reader holds an older version: space/mod.rs, "Writing in place"). The
        // oldest version a reader holds is written instead of the newest when it is
        // still newer than the last checkpoint, so that a reader one commit behind (the
        // usual query in flight) does not keep every checkpoint from writing in place.
        let (version, in_place) = match self.readers.oldest_read() {
            None => (durable, true),
            Some(oldest) if oldest.lsn >= durable.lsn => (durable, true),
            Some(OldestRead { lsn, version: Some(version) }) if lsn > previous.checkpoint_lsn => (version, true),
            Some(_) => (durable, false),
        };
        // Never in place when pages move: a reader of the version written still reaches
        // the moved pages' old slots (only head and durable follow the copies), so those
        // slots must wait for it like any other. Nor while verify walks the current
        // record's pages (a hold without a version): the slots this checkpoint frees are
        // among them.
        let in_place = in_place && moves.is_none() && !self.readers.record_held();
        let plan = Plan { previous: &previous, version: &version, oldest_reader: self.readers.oldest(), in_place, budget, moves };
        let journal = self.journal.as_ref().expect("a writable database has its journal");
        let published = match checkpoint(&self.pager, journal, plan) {
            Ok(published) => published,
            // A full disk while writing slots: abandoned, retried later; nothing of the
            // attempt remains (checkpoint.rs, "A failed checkpoint leaves no trace").
            Err(err @ Error::StorageFull { .. }) => return Err(err),
            Err(err) => return Err(self.checkpoint_failed(err)),
        };
        let Published { meta, books, pages_written, pages_released, in_place, moved } = published;
        assert_eq!(meta.generation, previous.generation + 1, "each checkpoint publishes the next generation");
        assert!(meta.checkpoint_lsn >= previous.checkpoint_lsn, "a checkpoint never goes back in LSN");
        let page_count = meta.page_count;
        let generation = meta.generation;
        let trimmed = page_count < previous.page_count;
        let previous_checkpoint_lsn = previous.checkpoint_lsn;
        {
            // Installed together, so verify sees a record and the books that go with it.
            let mut current = self.meta.lock().expect("meta lock");
            self.pager.set_space(books);
            *current = meta;
            self.space_damage.lock().expect("space damage lock").take();
        }
        // The free tail is cut off only once the record naming the shorter file is
        // durable. Like any I/O error of a checkpoint but a full disk, a failure here
        // stops the database (nothing acknowledged is lost: the record is durable).
        if trimmed {
            self.pager.file().truncate(page_count * PAGE_BYTES as u64).map_err(|err| self.checkpoint_failed(err))?;
        }
        // The versions in memory follow moved pages to their copies, and refer to what
        // was written by its page from now on.
        let follow = |version: &Version| match &moved {
            Some(copies) => swizzle(&rebase(version, copies)),
            None => swizzle(version),
        };
        {
            let mut head = self.head.lock().expect("head lock");
            head.version = Arc::new(follow(&head.version));
        }
        {
            let mut durable = self.durable.lock().expect("durable lock");
            *durable = Arc::new(follow(&durable));
        }
        // Only now: a snapshot reads the generation (its epoch) before its version, so
        // one of the new epoch always has a version that follows the moved pages. One of
        // the old epoch with a new version only holds more back than it needs.
        self.generation.store(generation, Ordering::SeqCst);
        // The WAL keeps every frame after the previous checkpoint too: a crash between
        // the two slot writes of a publish leaves the previous record in one of them.
        self.wal.retain(previous_checkpoint_lsn, self.options.tail_retention_bytes).map_err(|err| self.checkpoint_failed(err))?;
        let stats = CheckpointStats { generation, checkpoint_lsn: version.lsn, pages_written, pages_released, in_place, page_count };
        self.checkpoints.lock().expect("checkpoints lock").record(&stats, started.elapsed().as_micros() as u64);
        Ok(stats)
    }

    /// Any failure other than a full disk: pages or meta may be half written, so carry
    /// on only after recovery.
    fn checkpoint_failed(&self, err: Error) -> Error {
        let cause = format!("checkpoint failed: {err}");
        self.fail_stop(cause.clone());
        Error::FailStopped(cause)
    }

    /// Recounts the space map of the current record against its pages. A reader hold
    /// of the record's epoch keeps every slot it reaches from being reused meanwhile.
    fn verify_space(self: &Inner) -> Result<(SpaceStats, Vec<String>)> {
        let (meta, _hold) = {
            let meta = self.meta.lock().expect("meta lock");
            (meta.clone(), self.readers.hold(meta.generation, meta.checkpoint_lsn, None))
        };
        let books = match meta.space {
            Some(first) => match space_chain::load(self.pager.file(), first, meta.page_count) {
                Ok(books) => books,
                Err(err) if err.is_corruption() => return Ok((SpaceStats::default(), vec![format!("space map: {}", self.pager.report(err))])),
                Err(err) => return Err(err),
            },
            // A record without a space map (format 1, or a damaged one, not checkpointed
            // since): the books open rebuilt are the ones to check.
            None => self.pager.space(),
        };
        let mut problems = self.space_damage.lock().expect("space damage lock").iter().cloned().collect::<Vec<_>>();
        problems.extend(space_trace::check(&self.pager, &meta, &books)?.problems);
        Ok((books.stats(), problems))
    }
}

/// The space map of `meta`: read from its chain, or rebuilt by tracing the live pages
/// when the record has none (a format-1 directory, a new one) or the chain is damaged.
/// Damage is recorded as corruption and returned (as a sentence for `verify`); the
/// rebuilt map is exact, since it is counted from the pages themselves.
fn load_space(pager: &Pager, meta: &Meta, corruption: &CorruptionLog) -> Result<(SpaceMap, Option<String>)> {
    let mut damage = None;
    if let Some(first) = meta.space {
        match space_chain::load(pager.file(), first, meta.page_count) {
            Ok(map) => return Ok((map, None)),
            Err(err) if err.is_corruption() => {
                damage = Some(format!("space map: {}; rebuilt from the pages at open", record(corruption, err)));
            }
            Err(err) => return Err(err),
        }
    }
    let (map, _problems) = space_trace::rebuild(pager, meta)?;
    Ok((map, damage))
}

impl BatchSink for Inner {
    fn apply(&self, commit: &CommitPayload, expected: Option<u64>) -> Result<u64> {
        let mut head = self.head.lock().expect("head lock");
        let lsn = head.next_lsn;
        assert_eq!(lsn, head.version.lsn + 1, "the head's next LSN follows its version");
        if let Some(expected) = expected.filter(|&expected| expected != lsn) {
            return Err(Error::InvalidArgument(format!("frame {expected} refused: the follower's next LSN is {lsn}")));
        }
        let version = head.version.apply(&self.pager, commit, lsn)?;
        head.version = Arc::new(version);
        head.next_lsn += 1;
        assert_eq!(head.next_lsn, head.version.lsn + 1, "the head's next LSN follows its version");
        Ok(lsn)
    }

    fn head(&self) -> Arc<Version> {
        self.head.lock().expect("head lock").version.clone()
    }

    fn write_batch(&self, frames: &[(u64, &[u8])]) -> Result<u64> {
        let started = Instant::now();
        self.wal.append_batch(frames)?;
        let micros = started.elapsed().as_micros() as u64;
        self.fsync.lock().expect("fsync lock").record(micros);
        Ok(micros)
    }

    fn publish(&self, version: Arc<Version>) {
        *self.durable.lock().expect("durable lock") = version;
    }

    fn roll_back(&self) {
        let durable = self.durable.lock().expect("durable lock").clone();
        let mut head = self.head.lock().expect("head lock");
        head.next_lsn = durable.lsn + 1;
        head.version = durable;
        assert_eq!(head.next_lsn, self.wal.next_lsn(), "a batch that was not written left the WAL as it was");
    }

    fn after_batch(&self) {
        let checkpoint_lsn = self.meta.lock().expect("meta lock").checkpoint_lsn;
        let lag = self.wal.bytes_after(checkpoint_lsn);
        if lag >= self.options.checkpoint_wal_bytes {
            // Skipped while a backup holds the gate or waits for it: retried after a
            // later batch. A failure here is already fail-stop (recorded by checkpoint
            // itself), or a full disk, and then the checkpoint is retried likewise.
            if let Some(hold) = self.gate.try_automatic() {
                let _ = self.checkpoint(&hold);
            }
        }
    }

    fn fail_stop(&self, cause: String) {
        self.failed.lock().expect("failed lock").get_or_insert(cause);
    }

    fn failed(&self) -> Option<String> {
        Inner::failed(self)
    }
}

/// Records a corruption error in the persisted log and passes it on.
fn record(log: &CorruptionLog, err: Error) -> Error {
    let _ = match &err {
        Error::Corrupted { page, kind } => log.record(format!("page:{page}"), err.file().expect("names its file"), Some(*page), kind.as_str()),
        Error::WalCorrupted { segment, offset } => {
            log.record(format!("wal:{segment}@{offset}"), err.file().expect("names its file"), None, "wal_frame")
        }
        _ => Ok(()),
    };
    err
}

/// Finishes a checkpoint an interruption left between its journal and its record
/// (`journal.rs`): a complete journal newer than the newest valid record is written
/// again, slots and record. Otherwise a slot holding an older record (a crash between
/// the two writes of a publish, `meta.rs`) gets the newest, so both slots mirror it
/// again. Read-only, nothing is written: the journal's pages are read in place of the
/// slots' and its record is the one used.
fn recover_checkpoint(pages: PageFile, meta: Meta, stale: bool, journal: Option<&Journal>, read_only: bool) -> Result<(PageFile, Meta)> {
    let complete = match journal {
        Some(journal) => journal.read()?.filter(|c| c.meta.generation > meta.generation).map(|c| (journal, c)),
        None => None,
    };
    let Some((journal, complete)) = complete else {
        if stale && !read_only {
            meta.publish(&pages)?;
        }
        return Ok((pages, meta));
    };
    if read_only {
        let mut overlay = std::collections::HashMap::with_capacity(complete.offsets.len());
        for (&page, &offset) in &complete.offsets {
            overlay.insert(page, journal.read_slot(offset)?);
        }
        return Ok((pages.with_overlay(overlay), complete.meta));
    }
    for (&page, &offset) in &complete.offsets {
        pages.write_slot(page, &journal.read_slot(offset)?)?;
    }
    pages.sync()?;
    complete.meta.publish(&pages)?;
    journal.clear()?;
    Ok((pages, complete.meta))
}
