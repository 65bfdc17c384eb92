//! An in-memory file system for crash and fault-injection tests, in the spirit of
//! SQLite's crash-test VFS, RocksDB's FaultInjectionTestFS and TigerBeetle's storage
//! fault model. It is deterministic: the same workload and the same seed give the
//! same bytes.
//!
//! The model keeps two worlds apart, the one the running process sees and the one a
//! power loss would leave behind:
//!
//! - Files are inodes (so a handle follows its file across a rename or a removal, as
//!   on POSIX). Each inode has `current` bytes (what reads see now), `durable` bytes
//!   (what is on the platter), and an ordered list of pending, unsynced writes and
//!   `set_len`s. `sync` applies the pending list to `durable`; it does not copy
//!   `current`, because writes dropped by a failed fsync must stay out of the durable
//!   future for good (Linux "fsyncgate").
//! - Directory entries are a current namespace (path -> inode), a durable namespace,
//!   and an ordered list of pending directory operations. `sync_dir(dir)` applies the
//!   pending operations of that directory to the durable namespace. Directories
//!   themselves (`create_dir_all`) are durable at once: the core never depends on
//!   their creation being lost.
//! - [`SimVfs::crash`] builds the world found after power loss: the durable state
//!   plus, under [`CrashMode::Chaos`], a random subset of the pending operations,
//!   each write whole, lost, or torn at 512-byte sector boundaries.
//! - [`SimVfs::fail_at`] makes operations fail by index, so a test can run a workload
//!   once to learn [`SimVfs::op_count`] and then fail (or crash) at every index;
//!   [`SimVfs::fault_fired`] says whether (and on which operation) the fault fired,
//!   and [`SimVfs::op_trace`] lists the operations of a run (`ops.rs`).
//! - [`SimVfs::hold_next_sync`] stops the next file sync until the test lets it go,
//!   so a test can act while a thread is inside an fsync (`gate.rs`).
//! - [`SimVfs::set_capacity`] makes the disk hold only so many bytes (the current
//!   lengths of all files): an operation that would grow past it fails with ENOSPC,
//!   as on a full disk where a small write may still fit and a large one does not.
//!
//! Counted operations: `read_at`, `write_at`, `sync`, `set_len`, `sync_dir`, `remove`,
//! `rename`, and an `open(create = true)` that actually creates the file. An
//! `allocate` that extends the file counts (and fails, and tears in a crash) as the
//! `write_at` of zeros it is; one that does not extend it is bookkeeping. `len`,
//! `exists`, `list`, `create_dir_all`, `lock_dir` and opening an existing file are
//! bookkeeping: they neither count nor fail.
//!
//! Test-only: built with the crate's `testing` feature (Cargo.toml), which the binding
//! never turns on. Its unit tests are `tests.rs` and `ops_tests.rs`.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use super::{Vfs, VfsFile};

mod crash;
mod file;
mod gate;
mod ops;

pub use crash::CrashMode;
pub use gate::HeldSync;
pub use ops::{FaultKind, FiredFault};

use gate::SyncGate;
use file::SimFile;
use ops::{Ledger, OpKind, ENOSPC};

/// The in-memory file system. Clones share one state, as handles to one disk.
#[derive(Clone)]
pub struct SimVfs {
    state: Arc<Mutex<State>>,
    gate: Arc<SyncGate>,
}

type InodeId = u64;

#[derive(Clone)]
enum Pending {
    Write { offset: u64, bytes: Vec<u8> },
    SetLen(u64),
}

#[derive(Default)]
struct Inode {
    current: Vec<u8>,
    durable: Vec<u8>,
    pending: Vec<Pending>,
    /// Open `SimFile` handles, so an unlinked but open inode is not collected.
    handles: usize,
    /// Set when a failed sync discarded pending writes: from then on `current` may
    /// hold bytes that will never be durable, so `durable == current` after a sync
    /// is no longer an invariant to check.
    diverged: bool,
}

/// One pending directory change, recorded against the directories whose `sync_dir`
/// makes it durable.
#[derive(Clone)]
struct DirOp {
    /// One directory, or two for a rename across directories: that rename is one
    /// atomic journal transaction, made durable by syncing either directory, as on
    /// ext4 and XFS. (Portable code syncs both; the simulation does not insist.)
    dirs: Vec<PathBuf>,
    change: DirChange,
}

#[derive(Clone)]
enum DirChange {
    Create {
        path: PathBuf,
        id: InodeId,
    },
    Remove {
        path: PathBuf,
        id: InodeId,
    },
    /// Atomic: a crash leaves the old name or the new one, never neither or both.
    Rename {
        from: PathBuf,
        to: PathBuf,
        id: InodeId,
    },
}

impl DirChange {
    /// Applies the change to a namespace. With `checked`, a change whose premise does
    /// not hold there (because an earlier change it depends on was lost) is skipped
    /// and `false` is returned.
    fn apply(&self, names: &mut BTreeMap<PathBuf, InodeId>, checked: bool) -> bool {
        match self {
            DirChange::Create { path, id } => {
                if checked && names.contains_key(path) {
                    return false;
                }
                names.insert(path.clone(), *id);
            }
            DirChange::Remove { path, id } => {
                if checked && names.get(path) != Some(id) {
                    return false;
                }
                names.remove(path);
            }
            DirChange::Rename { from, to, id } => {
                if checked && names.get(from) != Some(id) {
                    return false;
                }
                names.remove(from);
                names.insert(to.clone(), *id);
            }
        }
        true
    }
}


#[derive(Default)]
struct State {
    inodes: BTreeMap<InodeId, Inode>,
    next_id: InodeId,
    names: BTreeMap<PathBuf, InodeId>,
    durable_names: BTreeMap<PathBuf, InodeId>,
    dir_ops: Vec<DirOp>,
    dirs: BTreeSet<PathBuf>,
    /// Locked directories: `None` exclusive, `Some(n)` shared by `n` holders.
    locked: HashMap<PathBuf, Option<usize>>,
    ledger: Ledger,
    /// Bytes the disk holds (`set_capacity`); `None`: unlimited.
    capacity: Option<u64>,
}

impl State {
    /// Counts one operation on `on` and decides whether it fails (`ops.rs`).
    fn begin(&mut self, op: OpKind, on: On<'_>) -> io::Result<()> {
        let names = &self.names;
        self.ledger.begin(op, || on.describe(names))
    }

    /// ENOSPC if growing the files by `growth` bytes would pass the capacity.
    fn make_room(&self, growth: u64) -> io::Result<()> {
        let Some(capacity) = self.capacity else {
            return Ok(());
        };
        let used: u64 = self.inodes.values().map(|i| i.current.len() as u64).sum();
        if growth > 0 && used + growth > capacity {
            return Err(io::Error::from_raw_os_error(ENOSPC));
        }
        Ok(())
    }

    fn dir_exists(&self, dir: &Path) -> bool {
        // A relative path's parent is "", the working directory: always there.
        dir.as_os_str().is_empty() || dir.parent().is_none() || self.dirs.contains(dir)
    }

    fn parent_exists(&self, path: &Path) -> bool {
        path.parent().is_none_or(|p| self.dir_exists(p))
    }

    fn inode(&mut self, id: InodeId) -> &mut Inode {
        self.inodes
            .get_mut(&id)
            .expect("a live handle's inode is never collected")
    }

    /// Forgets inodes nothing can reach any more: no current or durable name, no
    /// pending directory operation, no open handle.
    fn collect_garbage(&mut self) {
        let mut reachable: HashSet<InodeId> = self.names.values().copied().collect();
        reachable.extend(self.durable_names.values().copied());
        for op in &self.dir_ops {
            reachable.insert(match &op.change {
                DirChange::Create { id, .. }
                | DirChange::Remove { id, .. }
                | DirChange::Rename { id, .. } => *id,
            });
        }
        self.inodes
            .retain(|id, inode| inode.handles > 0 || reachable.contains(id));
    }
}

/// What an operation works on, spelled out for the operation trace.
enum On<'a> {
    /// A byte range of an open file.
    File { id: InodeId, offset: u64, len: u64 },
    /// An open file as a whole.
    Whole(InodeId),
    Path(&'a Path),
    Rename(&'a Path, &'a Path),
}

impl On<'_> {
    fn describe(&self, names: &BTreeMap<PathBuf, InodeId>) -> String {
        let name = |id: InodeId| {
            names.iter().find(|(_, &v)| v == id).map_or(format!("(unlinked inode {id})"), |(p, _)| p.display().to_string())
        };
        match self {
            On::File { id, offset, len } => format!("{} @{offset}+{len}", name(*id)),
            On::Whole(id) => name(*id),
            On::Path(path) => path.display().to_string(),
            On::Rename(from, to) => format!("{} -> {}", from.display(), to.display()),
        }
    }
}

/// The directory whose entry `path` is ("" for a bare relative name).
fn parent_of(path: &Path) -> PathBuf {
    path.parent().unwrap_or(Path::new("")).to_path_buf()
}

fn not_found(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotFound,
        format!("{}: no such file (simulated)", path.display()),
    )
}

/// Writes `bytes` at `offset`, zero-filling any gap, as a file system does.
fn write_into(data: &mut Vec<u8>, offset: u64, bytes: &[u8]) {
    let start = usize::try_from(offset).expect("offset fits in memory");
    let end = start + bytes.len();
    if data.len() < end {
        data.resize(end, 0);
    }
    data[start..end].copy_from_slice(bytes);
}

fn set_len_of(data: &mut Vec<u8>, len: u64) {
    data.resize(usize::try_from(len).expect("length fits in memory"), 0);
}

fn apply_pending(data: &mut Vec<u8>, op: &Pending) {
    match op {
        Pending::Write { offset, bytes } => write_into(data, *offset, bytes),
        Pending::SetLen(len) => set_len_of(data, *len),
    }
}

impl Default for SimVfs {
    fn default() -> Self {
        SimVfs::new()
    }
}

impl SimVfs {
    pub fn new() -> SimVfs {
        SimVfs {
            state: Arc::new(Mutex::new(State::default())),
            gate: Arc::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panicking test thread must not turn every later call into a second panic.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Count of counted I/O operations so far (see the module docs for which count).
    pub fn op_count(&self) -> u64 {
        self.lock().ledger.count()
    }

    /// From the operation with index `after_ops` (0-based, as counted by `op_count`)
    /// on, operations fail with `kind`: once (the first operation the fault applies
    /// to) or persistently (every such operation from then on). Replaces any earlier
    /// fault.
    ///
    /// A failed operation changes nothing, except a failed `sync`: it discards the
    /// file's pending writes from the durable future (they stay readable now but no
    /// later sync makes them durable), as Linux does with the dirty pages of a
    /// failed fsync. A failed `sync_dir` leaves its pending operations pending.
    pub fn fail_at(&self, after_ops: u64, kind: FaultKind, persistent: bool) {
        self.lock().ledger.fail_at(after_ops, kind, persistent);
    }

    /// Disarms the fault; `fault_fired` still says where it fired.
    pub fn clear_faults(&self) {
        self.lock().ledger.clear_fault();
    }

    /// Where the fault armed by the last `fail_at` fired, or `None` if no operation
    /// it applies to has run since: a test tells a checked case from one whose fault
    /// never met its operation (the workload ended first, or nothing grew).
    pub fn fault_fired(&self) -> Option<FiredFault> {
        self.lock().ledger.fired()
    }

    /// Starts recording every counted operation (kind, file, offset and length) from
    /// now on, for `op_trace`.
    pub fn trace_ops(&self) {
        self.lock().ledger.start_trace();
    }

    /// The operations recorded since `trace_ops`, one line each, failed ones marked
    /// with their errno: two runs of a deterministic workload give the same trace.
    pub fn op_trace(&self) -> Vec<String> {
        self.lock().ledger.trace()
    }

    /// Makes the next file `sync` (of any file) stop, before it does anything, until
    /// the returned guard is released or dropped: a test waits for that event
    /// (`HeldSync::wait_held`) to act while another thread is inside the sync.
    pub fn hold_next_sync(&self) -> HeldSync {
        self.gate.arm()
    }

    /// Makes the disk hold at most `bytes` (current file lengths, summed), or any
    /// amount with `None`. Growing past it fails with ENOSPC and changes nothing;
    /// shrinking and overwriting always work. Not kept by `crash`.
    pub fn set_capacity(&self, bytes: Option<u64>) {
        self.lock().capacity = bytes;
    }

    /// Bytes the files hold now (their current lengths, summed).
    pub fn used_bytes(&self) -> u64 {
        self.lock().inodes.values().map(|i| i.current.len() as u64).sum()
    }

    /// The durable bytes of the file at `path` (looked up by its current name, then
    /// its durable one), as a corruption test would read them off the disk.
    pub fn read_raw(&self, path: &Path) -> Option<Vec<u8>> {
        let state = self.lock();
        let id = state
            .names
            .get(path)
            .or_else(|| state.durable_names.get(path))?;
        Some(state.inodes[id].durable.clone())
    }

    /// Overwrites bytes of the file at `path` both in the current view and in the
    /// durable state, as bit rot would, extending it with zeros if needed. Pending
    /// writes are untouched and still land on top at the next sync. Panics if the file
    /// does not exist: a corruption test aiming at a missing file is a bug in the test.
    pub fn write_raw(&self, path: &Path, offset: u64, bytes: &[u8]) {
        let mut state = self.lock();
        let id = *state
            .names
            .get(path)
            .or_else(|| state.durable_names.get(path))
            .unwrap_or_else(|| panic!("write_raw: no file at {}", path.display()));
        let inode = state.inode(id);
        write_into(&mut inode.current, offset, bytes);
        write_into(&mut inode.durable, offset, bytes);
    }
}

impl Vfs for SimVfs {
    fn open(&self, path: &Path, create: bool) -> io::Result<Arc<dyn VfsFile>> {
        let mut state = self.lock();
        let id = match state.names.get(path) {
            Some(&id) => id,
            None if !create => return Err(not_found(path)),
            None => {
                state.begin(OpKind::Create, On::Path(path))?;
                if !state.parent_exists(path) || state.dirs.contains(path) {
                    return Err(not_found(path));
                }
                let id = state.next_id;
                state.next_id += 1;
                state.inodes.insert(id, Inode::default());
                state.names.insert(path.to_path_buf(), id);
                let change = DirChange::Create {
                    path: path.to_path_buf(),
                    id,
                };
                state.dir_ops.push(DirOp {
                    dirs: vec![parent_of(path)],
                    change,
                });
                id
            }
        };
        state.inode(id).handles += 1;
        Ok(Arc::new(SimFile::new(&self.state, &self.gate, id, false)))
    }

    fn open_read(&self, path: &Path) -> io::Result<Arc<dyn VfsFile>> {
        let mut state = self.lock();
        let Some(&id) = state.names.get(path) else {
            return Err(not_found(path));
        };
        state.inode(id).handles += 1;
        Ok(Arc::new(SimFile::new(&self.state, &self.gate, id, true)))
    }

    fn exists(&self, path: &Path) -> io::Result<bool> {
        let state = self.lock();
        Ok(state.names.contains_key(path) || state.dirs.contains(path))
    }

    /// Like `read_dir`, this lists subdirectories too, so code tested here behaves as
    /// it does on `RealVfs`. (Unlike `RealVfs`, `lock_dir` creates no `LOCK` file.)
    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let state = self.lock();
        if !state.dir_exists(dir) {
            return Err(not_found(dir));
        }
        let in_dir = |p: &&PathBuf| p.parent() == Some(dir);
        let mut names: Vec<String> = (state.names.keys().filter(in_dir))
            .chain(state.dirs.iter().filter(in_dir))
            .filter_map(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .collect();
        names.sort();
        Ok(names)
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        let mut state = self.lock();
        state.begin(OpKind::Remove, On::Path(path))?;
        let Some(id) = state.names.remove(path) else {
            return Err(not_found(path));
        };
        let change = DirChange::Remove {
            path: path.to_path_buf(),
            id,
        };
        state.dir_ops.push(DirOp {
            dirs: vec![parent_of(path)],
            change,
        });
        state.collect_garbage();
        Ok(())
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut state = self.lock();
        state.begin(OpKind::Rename, On::Rename(from, to))?;
        let Some(&id) = state.names.get(from) else {
            return Err(not_found(from));
        };
        if !state.parent_exists(to) || state.dirs.contains(to) {
            return Err(not_found(to));
        }
        if from == to {
            return Ok(());
        }
        state.names.remove(from);
        state.names.insert(to.to_path_buf(), id);
        let mut dirs = vec![parent_of(from)];
        if parent_of(to) != dirs[0] {
            dirs.push(parent_of(to));
        }
        let change = DirChange::Rename {
            from: from.to_path_buf(),
            to: to.to_path_buf(),
            id,
        };
        state.dir_ops.push(DirOp { dirs, change });
        state.collect_garbage();
        Ok(())
    }

    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        let mut state = self.lock();
        if let Some(file) = path.ancestors().find(|a| state.names.contains_key(*a)) {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{} is a file (simulated)", file.display()),
            ));
        }
        for dir in path.ancestors().filter(|a| !a.as_os_str().is_empty()) {
            state.dirs.insert(dir.to_path_buf());
        }
        Ok(())
    }

    /// The simulation keeps no modes: the same as `create_dir_all`.
    fn create_private_dir(&self, path: &Path) -> io::Result<()> {
        self.create_dir_all(path)
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        let mut state = self.lock();
        state.begin(OpKind::SyncDir, On::Path(dir))?;
        if !state.dir_exists(dir) {
            return Err(not_found(dir));
        }
        let (now, later): (Vec<DirOp>, Vec<DirOp>) = std::mem::take(&mut state.dir_ops)
            .into_iter()
            .partition(|op| op.dirs.iter().any(|d| d == dir));
        for op in &now {
            op.change.apply(&mut state.durable_names, false);
        }
        state.dir_ops = later;
        state.collect_garbage();
        Ok(())
    }

    fn lock_dir(&self, dir: &Path, shared: bool) -> crate::Result<Box<dyn Send + Sync>> {
        let mut state = self.lock();
        let held = state.locked.get(dir).copied();
        let next = match (held, shared) {
            (None, false) => None,
            (None, true) => Some(1),
            (Some(Some(n)), true) => Some(n + 1),
            _ => {
                return Err(crate::Error::Locked {
                    dir: dir.to_path_buf(),
                })
            }
        };
        state.locked.insert(dir.to_path_buf(), next);
        Ok(Box::new(SimDirLock {
            state: Arc::clone(&self.state),
            dir: dir.to_path_buf(),
        }))
    }
}

/// Held while a directory is locked; dropping it frees the directory.
struct SimDirLock {
    state: Arc<Mutex<State>>,
    dir: PathBuf,
}

impl Drop for SimDirLock {
    fn drop(&mut self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match state.locked.get(&self.dir).copied().flatten() {
            Some(n) if n > 1 => {
                state.locked.insert(self.dir.clone(), Some(n - 1));
            }
            _ => {
                state.locked.remove(&self.dir);
            }
        }
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod ops_tests;
