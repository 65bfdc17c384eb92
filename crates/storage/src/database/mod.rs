//! A database directory: its lock, page file, WAL and corruption log, and the
//! versions readers see.
//!
//! Directory contents:
//!
//! | file                 | owner                   | purpose                                   |
//! |----------------------|-------------------------|-------------------------------------------|
//! | `LOCK`               | `vfs/dir_lock.rs`       | flock held while the directory is open    |
//! | `pages`              | `page/file.rs`          | page slots; slots 0 and 1 are meta slots  |
//! | `wal/*.wal`          | `wal/`                  | WAL segments                              |
//! | `corruption.log`     | `corruption_log.rs`     | persisted corruption reports              |
//! | `checkpoint.journal` | `checkpoint/journal.rs` | page images of an in-place checkpoint     |
//!
//! Only maintenance (checkpoints, compaction) writes `pages` and the journal and
//! deletes WAL segments, and the WAL appends only past its last durable frame: a backup
//! holds the gate that keeps maintenance out while it copies (`backup/gate.rs`).
//!
//! Life of a commit: `commit` applies it to the head version in memory (checking it
//! first; a failed check changes nothing) and queues it; the sync thread writes the
//! queued commits as one WAL batch, fsyncs once, publishes the newest version to
//! readers and completes each commit (`commit/group_commit.rs`). A checkpoint writes the
//! unwritten nodes of the newest durable version (or of the oldest version a reader
//! holds, when that is newer than the last checkpoint) to free slots, or through
//! `checkpoint.journal` over the slots it frees itself (`space/mod.rs`, "Writing in
//! place"), fsyncs, publishes a new meta record naming them, the space map and the
//! checkpoint LSN in both meta slots, cuts off a free tail of the page file, then lets
//! the WAL drop segments that neither recovery nor tail retention needs. Opening reads the newest valid meta
//! record, its space map, and replays the frames after its checkpoint LSN.
//!
//! Beside `Database` itself (open, commit, verify, stats, close, follower mode): what
//! opening repairs (`recovery.rs`), the database as the sync thread writes it
//! (`batch_sink.rs`), a checkpoint of the open database (`checkpoint_run.rs`),
//! compaction of the page file (`compact_space.rs`), online backups (`backup/`), a
//! fail-stop from outside (`fail_stop.rs`), and what it reports (`reports.rs`,
//! `histogram.rs`).

mod backup;
mod batch_sink;
mod checkpoint_run;
mod compact_space;
mod fail_stop;
mod histogram;
mod recovery;
mod reports;

pub use backup::{Backup, BackupFile};
pub use compact_space::CompactReport;
pub use histogram::{Histogram, BUCKET_BOUNDS_MICROS};
pub use reports::{CheckpointStats, CheckpointTotals, CloseReport, Stats, VerifyReport};

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Instant;

use crate::btree::{self, TreeCheck};
use crate::checkpoint::Journal;
use crate::commit::{commit_here, run_sync_thread, Commit, CommitPayload, Completion, GroupCommit, Pending};
use crate::corruption_log::CorruptionLog;
use crate::error::{Error, Result};
use crate::limits::{CACHE_BYTES_DEFAULT, CHECKPOINT_WAL_BYTES_DEFAULT, COMPACT_READER_WAIT, SPACE_RELEASE_PAGES_MIN, TAIL_RETENTION_BYTES_DEFAULT, WAL_BATCH_BYTES_MAX, WAL_PREALLOCATE_BYTES_DEFAULT};
use crate::meta::Meta;
use crate::page::PageFile;
use crate::pager::Pager;
use crate::progress::{ProgressReport, WorkStep};
use crate::space::SpaceMap;
use crate::versions::{Readers, Snapshot, SnapshotSource, Version};
use crate::vfs::{RealVfs, Vfs};
use crate::wal::{Frame, Wal};
use backup::BackupGate;
use recovery::{load_space, record, recover_checkpoint};

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
    /// The least a checkpoint releases of what is queued (`space/mod.rs`, "Cost"):
    /// `SPACE_RELEASE_PAGES_MIN` unless a test wants queued releases to outlive
    /// checkpoints, restarts and crashes at a small scale.
    pub space_release_pages_min: u64,
    /// How long compaction waits for readers of older versions before it goes on
    /// around them (`COMPACT_READER_WAIT` but in tests that hold readers on purpose).
    pub compact_reader_wait: std::time::Duration,
    /// Recount the space map from the trees at open instead of loading it (`tenantdb
    /// repair`): the books are derivable from the pages, so books a bug or damage left
    /// wrong are replaced, and the next checkpoint writes them.
    pub rebuild_space: bool,
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
            space_release_pages_min: SPACE_RELEASE_PAGES_MIN,
            compact_reader_wait: COMPACT_READER_WAIT,
            rebuild_space: false,
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
    /// `meta.generation`, read without its lock: a snapshot's epoch (`versions/readers.rs`).
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
        let (space, space_damage) = load_space(&pager, &meta, &corruption, options.rebuild_space)?;
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
        self.commit_payloads(vec![(commit, done)]);
    }

    /// `commit_payload` of several commits, in order, queued at once: the sync thread
    /// takes them together (one wake-up, one batch while they fit `WAL_BATCH_BYTES_MAX`).
    pub fn commit_payloads(&self, commits: Vec<(CommitPayload, Completion)>) {
        if self.inner.follower.load(Ordering::SeqCst) {
            return commits.into_iter().for_each(|(_, done)| done(Err(Error::NotPrimary)));
        }
        self.enqueue(commits.into_iter().map(|(commit, done)| Pending { commit, lsn: None, done }).collect());
    }

    /// Commits `commit` on the calling thread and returns once it is durable, with its
    /// LSN (`commit/commit_here.rs`): no hand-off
    /// to the sync thread. Commits queued before it go first, in the same batch, and are
    /// completed here. `done` is called too, with the same result, as for a queued
    /// commit. Blocks for the write and its fdatasync: for callers that may wait.
    pub fn commit_payload_here(&self, commit: CommitPayload, done: Completion) -> Result<u64> {
        let refused = if self.inner.read_only {
            Some(Error::ReadOnly("a commit"))
        } else if self.inner.follower.load(Ordering::SeqCst) {
            Some(Error::NotPrimary)
        } else {
            self.inner.failed().map(Error::FailStopped)
        };
        if let Some(err) = refused {
            let returned = err.duplicate();
            done(Err(err));
            return Err(returned);
        }
        commit_here(&self.inner.group, &*self.inner, Pending { commit, lsn: None, done }, WAL_BATCH_BYTES_MAX)
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
        self.enqueue(vec![Pending { commit, lsn: Some(lsn), done }]);
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

    fn enqueue(&self, pending: Vec<Pending>) {
        let inner = &self.inner;
        if inner.read_only {
            return pending.into_iter().for_each(|p| (p.done)(Err(Error::ReadOnly("a commit"))));
        }
        if let Some(cause) = inner.failed() {
            return pending.into_iter().for_each(|p| (p.done)(Err(Error::FailStopped(cause.clone()))));
        }
        if let Err(pending) = inner.group.push(pending) {
            pending.into_iter().for_each(|p| (p.done)(Err(Error::Closed)));
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
    /// epoch, and one of an older epoch may keep slots from being reused (`versions/readers.rs`).
    pub fn generation(&self) -> u64 {
        self.inner.generation.load(Ordering::SeqCst)
    }

    /// The newest durable version.
    pub fn snapshot(&self) -> Snapshot {
        // The epoch first: never newer than the version taken after it (versions/readers.rs).
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
    /// is a commit in the format of `commit/codec.rs`, the bytes its committer handed in.
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
        // A batch a caller is working on on its own thread ends first (one that starts
        // later finds the queue closed).
        drop(self.inner.group.working());
        // The sync thread contains its own panics (`commit/group_commit.rs`), so it ends by
        // draining the queue. Should one end it all the same (outside a batch; the panic
        // hook reported it then), this does not panic in turn (in `Drop` that aborts): it
        // stops the database and answers the commits left queued.
        if let Err(payload) = thread.join() {
            std::mem::forget(payload);
            let cause = "the storage core's sync thread ended with a panic".to_string();
            self.fail_stop(cause.clone());
            for pending in self.inner.group.drain() {
                (pending.done)(Err(Error::FailStopped(cause.clone())));
            }
        }
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

impl SnapshotSource for Inner {
    fn pager(&self) -> &Pager {
        &self.pager
    }

    fn check_open(&self) -> Result<()> {
        Inner::check_open(self)
    }
}

impl Inner {
    pub(crate) fn failed(&self) -> Option<String> {
        // Read even from a lock a panic poisoned (nothing panics holding it, and a stop
        // must be seen whatever else a panic broke).
        self.failed.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    pub(crate) fn check_open(&self) -> Result<()> {
        if self.closed.load(Ordering::SeqCst) { Err(Error::Closed) } else { Ok(()) }
    }

    fn release(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.lock.lock().expect("dir lock").take();
    }

    #[cfg(test)]
    pub(crate) fn current_meta(&self) -> Meta {
        self.meta.lock().expect("meta lock").clone()
    }
}
