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
//!   once to learn [`SimVfs::op_count`] and then fail (or crash) at every index.
//!
//! Counted operations: `read_at`, `write_at`, `sync`, `set_len`, `sync_dir`, `remove`,
//! `rename`, and an `open(create = true)` that actually creates the file. `len`,
//! `exists`, `list`, `create_dir_all`, `lock_dir` and opening an existing file are
//! bookkeeping: they neither count nor fail.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use super::{Vfs, VfsFile};

/// Torn writes are torn on disk-sector boundaries, counted from the start of the file.
const SECTOR: u64 = 512;

/// Linux errno values, spelled out so no `libc` dependency is needed.
const EIO: i32 = 5;
const ENOSPC: i32 = 28;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// Every operation kind fails, reads and syncs included.
    Eio,
    /// Only operations that can grow data fail: `write_at`, an extending `set_len`,
    /// and creating a file.
    Enospc,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashMode {
    /// Every unsynced write and unsynced directory change is lost.
    DropUnsynced,
    /// Each unsynced write independently survives whole, is lost, or is torn (only
    /// some of its 512-byte sectors survive). Each unsynced directory operation
    /// independently survives or not, as long as the result is consistent: an
    /// operation on a file whose creation (or earlier rename) was lost is lost too,
    /// and a file whose creation is lost loses its data with it.
    Chaos { seed: u64 },
}

/// The in-memory file system. Clones share one state, as handles to one disk.
#[derive(Clone)]
pub struct SimVfs {
    state: Arc<Mutex<State>>,
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

#[derive(Clone, Copy)]
struct Fault {
    at: u64,
    kind: FaultKind,
    persistent: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum OpKind {
    Read,
    Write,
    Sync,
    /// `set_len`; `grows` says whether it extends the file (only then can it ENOSPC).
    SetLen {
        grows: bool,
    },
    SyncDir,
    Create,
    Remove,
    Rename,
}

impl OpKind {
    fn can_grow(self) -> bool {
        matches!(
            self,
            OpKind::Write | OpKind::SetLen { grows: true } | OpKind::Create
        )
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
    locked: HashSet<PathBuf>,
    op_count: u64,
    fault: Option<Fault>,
}

impl State {
    /// Counts one operation and decides whether it fails. A one-shot fault fires on
    /// the first operation at or after its index that the fault applies to (for
    /// `Eio`, exactly that index), then disarms.
    fn begin(&mut self, op: OpKind) -> io::Result<()> {
        let index = self.op_count;
        self.op_count += 1;
        let Some(fault) = self.fault else {
            return Ok(());
        };
        if index < fault.at || (fault.kind == FaultKind::Enospc && !op.can_grow()) {
            return Ok(());
        }
        if !fault.persistent {
            self.fault = None;
        }
        Err(io::Error::from_raw_os_error(match fault.kind {
            FaultKind::Eio => EIO,
            FaultKind::Enospc => ENOSPC,
        }))
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

/// splitmix64: tiny, fast, and good enough to pick which writes a crash keeps.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Applies one unsynced write as a crash leaves it: whole, lost, or torn into the
/// sectors it touches, each kept or lost on its own.
fn apply_chaotic_write(data: &mut Vec<u8>, offset: u64, bytes: &[u8], rng: &mut Rng) {
    match rng.below(3) {
        0 => {}
        1 => write_into(data, offset, bytes),
        _ => {
            let end = offset + bytes.len() as u64;
            let mut pos = offset;
            while pos < end {
                let sector_end = ((pos / SECTOR) + 1) * SECTOR;
                let piece_end = sector_end.min(end);
                if rng.coin() {
                    let lo = (pos - offset) as usize;
                    let hi = (piece_end - offset) as usize;
                    write_into(data, pos, &bytes[lo..hi]);
                }
                pos = piece_end;
            }
        }
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
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panicking test thread must not turn every later call into a second panic.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The file system as it would be found after power loss at this instant: a new,
    /// independent `SimVfs` holding only what survives under `mode`. Open handles of
    /// this one are not carried over, and the new one starts with `op_count` 0, no
    /// faults and no locks. This one keeps working.
    pub fn crash(&self, mode: CrashMode) -> SimVfs {
        let state = self.lock();
        let mut names = state.durable_names.clone();
        let mut rng = match mode {
            CrashMode::DropUnsynced => None,
            CrashMode::Chaos { seed } => Some(Rng(seed)),
        };
        if let Some(rng) = rng.as_mut() {
            for op in &state.dir_ops {
                if rng.coin() {
                    op.change.apply(&mut names, true);
                }
            }
        }
        // Only inodes with a surviving name survive; their data is decided in inode
        // order so a seed always draws the same numbers for the same workload.
        let survivors: BTreeSet<InodeId> = names.values().copied().collect();
        let mut inodes = BTreeMap::new();
        for &id in &survivors {
            let old = &state.inodes[&id];
            let mut data = old.durable.clone();
            if let Some(rng) = rng.as_mut() {
                for op in &old.pending {
                    match op {
                        Pending::Write { offset, bytes } => {
                            apply_chaotic_write(&mut data, *offset, bytes, rng)
                        }
                        Pending::SetLen(len) => {
                            if rng.coin() {
                                set_len_of(&mut data, *len);
                            }
                        }
                    }
                }
            }
            inodes.insert(
                id,
                Inode {
                    current: data.clone(),
                    durable: data,
                    ..Inode::default()
                },
            );
        }
        let after = State {
            inodes,
            next_id: state.next_id,
            names: names.clone(),
            durable_names: names,
            dir_ops: Vec::new(),
            dirs: state.dirs.clone(),
            locked: HashSet::new(),
            op_count: 0,
            fault: None,
        };
        SimVfs {
            state: Arc::new(Mutex::new(after)),
        }
    }

    /// Count of counted I/O operations so far (see the module docs for which count).
    pub fn op_count(&self) -> u64 {
        self.lock().op_count
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
        self.lock().fault = Some(Fault {
            at: after_ops,
            kind,
            persistent,
        });
    }

    pub fn clear_faults(&self) {
        self.lock().fault = None;
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

/// An open file. It names the inode, not the path, so it follows its file across
/// renames and keeps an unlinked file readable, as a POSIX descriptor does.
struct SimFile {
    state: Arc<Mutex<State>>,
    id: InodeId,
}

impl SimFile {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for SimFile {
    fn drop(&mut self) {
        let mut state = self.lock();
        if let Some(inode) = state.inodes.get_mut(&self.id) {
            inode.handles -= 1;
        }
        state.collect_garbage();
    }
}

impl VfsFile for SimFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let mut state = self.lock();
        state.begin(OpKind::Read)?;
        let data = &state.inode(self.id).current;
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(data.len());
        let n = buf.len().min(data.len() - start);
        buf[..n].copy_from_slice(&data[start..start + n]);
        Ok(n)
    }

    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        let mut state = self.lock();
        state.begin(OpKind::Write)?;
        let inode = state.inode(self.id);
        write_into(&mut inode.current, offset, buf);
        inode.pending.push(Pending::Write {
            offset,
            bytes: buf.to_vec(),
        });
        Ok(())
    }

    fn sync(&self) -> io::Result<()> {
        let mut state = self.lock();
        let result = state.begin(OpKind::Sync);
        let inode = state.inode(self.id);
        if result.is_err() {
            // fsyncgate: the kernel may have dropped the dirty pages and cleared the
            // error, so a retried fsync succeeds without ever writing them.
            inode.pending.clear();
            inode.diverged = true;
            return result;
        }
        for op in std::mem::take(&mut inode.pending) {
            apply_pending(&mut inode.durable, &op);
        }
        debug_assert!(inode.diverged || inode.durable == inode.current);
        Ok(())
    }

    fn len(&self) -> io::Result<u64> {
        Ok(self.lock().inode(self.id).current.len() as u64)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        let mut state = self.lock();
        let grows = len > state.inode(self.id).current.len() as u64;
        state.begin(OpKind::SetLen { grows })?;
        let inode = state.inode(self.id);
        set_len_of(&mut inode.current, len);
        inode.pending.push(Pending::SetLen(len));
        Ok(())
    }
}

impl Vfs for SimVfs {
    fn open(&self, path: &Path, create: bool) -> io::Result<Arc<dyn VfsFile>> {
        let mut state = self.lock();
        let id = match state.names.get(path) {
            Some(&id) => id,
            None if !create => return Err(not_found(path)),
            None => {
                state.begin(OpKind::Create)?;
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
        Ok(Arc::new(SimFile {
            state: Arc::clone(&self.state),
            id,
        }))
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
        state.begin(OpKind::Remove)?;
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
        state.begin(OpKind::Rename)?;
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

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        let mut state = self.lock();
        state.begin(OpKind::SyncDir)?;
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

    fn lock_dir(&self, dir: &Path) -> crate::Result<Box<dyn Send + Sync>> {
        let mut state = self.lock();
        if !state.locked.insert(dir.to_path_buf()) {
            return Err(crate::Error::Locked {
                dir: dir.to_path_buf(),
            });
        }
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
        self.state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .locked
            .remove(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        PathBuf::from("/db")
    }

    /// A fresh file system with `/db` created.
    fn fresh() -> SimVfs {
        let vfs = SimVfs::new();
        vfs.create_dir_all(&root()).unwrap();
        vfs
    }

    /// Creates `/db/<name>` holding `bytes`, with data and directory entry durable.
    fn durable_file(vfs: &SimVfs, name: &str, bytes: &[u8]) -> Arc<dyn VfsFile> {
        let file = vfs.open(&root().join(name), true).unwrap();
        file.write_at(bytes, 0).unwrap();
        file.sync().unwrap();
        vfs.sync_dir(&root()).unwrap();
        file
    }

    fn read_all(vfs: &SimVfs, path: &Path) -> Vec<u8> {
        let file = vfs.open(path, false).unwrap();
        let mut buf = vec![0; file.len().unwrap() as usize];
        assert_eq!(file.read_at(&mut buf, 0).unwrap(), buf.len());
        buf
    }

    fn errno(e: &io::Error) -> Option<i32> {
        e.raw_os_error()
    }

    #[test]
    fn unsynced_writes_are_lost_under_drop_unsynced() {
        let vfs = fresh();
        let file = durable_file(&vfs, "a", b"old!");
        file.write_at(b"NEW", 0).unwrap();
        file.write_at(b"tail", 4).unwrap();
        assert_eq!(read_all(&vfs, &root().join("a")), b"NEW!tail");
        let after = vfs.crash(CrashMode::DropUnsynced);
        assert_eq!(read_all(&after, &root().join("a")), b"old!");
        // The old file system keeps working.
        assert_eq!(read_all(&vfs, &root().join("a")), b"NEW!tail");
    }

    #[test]
    fn synced_writes_survive() {
        let vfs = fresh();
        let file = durable_file(&vfs, "a", b"one");
        file.write_at(b"two", 3).unwrap();
        file.set_len(8).unwrap();
        file.sync().unwrap();
        let after = vfs.crash(CrashMode::DropUnsynced);
        assert_eq!(read_all(&after, &root().join("a")), b"onetwo\0\0");
        for seed in 0..20 {
            let after = vfs.crash(CrashMode::Chaos { seed });
            assert_eq!(read_all(&after, &root().join("a")), b"onetwo\0\0");
        }
    }

    #[test]
    fn unsynced_set_len_is_lost() {
        let vfs = fresh();
        let file = durable_file(&vfs, "a", b"0123456789");
        file.set_len(4).unwrap();
        assert_eq!(file.len().unwrap(), 4);
        let after = vfs.crash(CrashMode::DropUnsynced);
        assert_eq!(read_all(&after, &root().join("a")), b"0123456789");
    }

    #[test]
    fn creation_is_lost_without_sync_dir_even_with_synced_data() {
        let vfs = fresh();
        let path = root().join("new");
        let file = vfs.open(&path, true).unwrap();
        file.write_at(b"data", 0).unwrap();
        file.sync().unwrap();
        assert!(vfs.exists(&path).unwrap());
        let after = vfs.crash(CrashMode::DropUnsynced);
        assert!(!after.exists(&path).unwrap());
        assert_eq!(
            after.open(&path, false).err().unwrap().kind(),
            io::ErrorKind::NotFound
        );
        assert!(after.list(&root()).unwrap().is_empty());

        vfs.sync_dir(&root()).unwrap();
        let after = vfs.crash(CrashMode::DropUnsynced);
        assert_eq!(read_all(&after, &path), b"data");
    }

    #[test]
    fn chaos_never_keeps_data_of_a_lost_creation() {
        let vfs = fresh();
        let path = root().join("new");
        let file = vfs.open(&path, true).unwrap();
        file.write_at(&[7; 1024], 0).unwrap();
        let (mut kept, mut lost) = (0, 0);
        for seed in 0..64 {
            let after = vfs.crash(CrashMode::Chaos { seed });
            if after.exists(&path).unwrap() {
                kept += 1;
            } else {
                lost += 1;
                assert!(after.read_raw(&path).is_none());
            }
        }
        assert!(kept > 0 && lost > 0, "kept {kept}, lost {lost}");
    }

    #[test]
    fn removal_is_durable_only_after_sync_dir() {
        let vfs = fresh();
        let path = root().join("a");
        drop(durable_file(&vfs, "a", b"x"));
        vfs.remove(&path).unwrap();
        assert!(!vfs.exists(&path).unwrap());
        assert_eq!(
            vfs.remove(&path).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        assert_eq!(read_all(&vfs.crash(CrashMode::DropUnsynced), &path), b"x");
        vfs.sync_dir(&root()).unwrap();
        assert!(!vfs.crash(CrashMode::DropUnsynced).exists(&path).unwrap());
    }

    #[test]
    fn rename_is_atomic_now_and_durable_after_sync_dir() {
        let vfs = fresh();
        let (tmp, dst) = (root().join("meta.tmp"), root().join("meta"));
        drop(durable_file(&vfs, "meta", b"old"));
        let file = vfs.open(&tmp, true).unwrap();
        file.write_at(b"new", 0).unwrap();
        file.sync().unwrap();
        vfs.rename(&tmp, &dst).unwrap();
        assert_eq!(vfs.list(&root()).unwrap(), vec!["meta".to_string()]);
        assert_eq!(read_all(&vfs, &dst), b"new");
        // The handle follows the file across the rename.
        file.write_at(b"!", 3).unwrap();
        assert_eq!(read_all(&vfs, &dst), b"new!");

        // Before sync_dir the rename (and the creation) may be lost.
        let after = vfs.crash(CrashMode::DropUnsynced);
        assert_eq!(read_all(&after, &dst), b"old");
        assert!(!after.exists(&tmp).unwrap());

        // Under Chaos the target is always whole: old or new, never missing.
        for seed in 0..64 {
            let after = vfs.crash(CrashMode::Chaos { seed });
            let got = read_all(&after, &dst);
            assert!(
                got == b"old" || got == b"new" || got == b"new!",
                "seed {seed}: {got:?}"
            );
        }

        vfs.sync_dir(&root()).unwrap();
        let after = vfs.crash(CrashMode::DropUnsynced);
        assert_eq!(read_all(&after, &dst), b"new");
        assert_eq!(after.list(&root()).unwrap(), vec!["meta".to_string()]);
    }

    #[test]
    fn rename_of_missing_file_is_not_found() {
        let vfs = fresh();
        let err = vfs
            .rename(&root().join("nope"), &root().join("x"))
            .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }

    /// Writes 8 old sectors (durable), then 8 new ones (unsynced), and returns what a
    /// Chaos crash with `seed` leaves.
    fn chaos_sector_run(seed: u64) -> Vec<u8> {
        let vfs = fresh();
        let file = durable_file(&vfs, "a", &[0x11; 4096]);
        file.write_at(&[0xAA; 4096], 0).unwrap();
        read_all(&vfs.crash(CrashMode::Chaos { seed }), &root().join("a"))
    }

    #[test]
    fn chaos_tears_at_sector_boundaries_never_mid_sector() {
        let (mut mixed, mut all_old, mut all_new) = (0, 0, 0);
        for seed in 0..128 {
            let got = chaos_sector_run(seed);
            assert_eq!(got.len(), 4096);
            let mut new_sectors = 0;
            for sector in got.chunks(512) {
                let first = sector[0];
                assert!(
                    sector.iter().all(|&b| b == first),
                    "seed {seed}: torn mid-sector"
                );
                assert!(first == 0x11 || first == 0xAA);
                new_sectors += usize::from(first == 0xAA);
            }
            match new_sectors {
                0 => all_old += 1,
                8 => all_new += 1,
                _ => mixed += 1,
            }
        }
        assert!(
            mixed > 0 && all_old > 0 && all_new > 0,
            "{mixed} {all_old} {all_new}"
        );
    }

    #[test]
    fn chaos_tears_unaligned_writes_on_absolute_sector_boundaries() {
        for seed in 0..64 {
            let vfs = fresh();
            let file = durable_file(&vfs, "a", &[0x11; 2048]);
            // Spans sectors 0..=2 in part: [300, 512), [512, 1024), [1024, 1300).
            file.write_at(&[0xAA; 1000], 300).unwrap();
            let got = read_all(&vfs.crash(CrashMode::Chaos { seed }), &root().join("a"));
            assert!(got[..300].iter().all(|&b| b == 0x11));
            assert!(got[1300..].iter().all(|&b| b == 0x11));
            for piece in [&got[300..512], &got[512..1024], &got[1024..1300]] {
                assert!(piece.iter().all(|&b| b == piece[0]), "seed {seed}");
            }
        }
    }

    #[test]
    fn chaos_is_deterministic_for_a_seed() {
        for seed in 0..16 {
            assert_eq!(chaos_sector_run(seed), chaos_sector_run(seed));
        }
        let runs: HashSet<Vec<u8>> = (0..16).map(chaos_sector_run).collect();
        assert!(
            runs.len() > 1,
            "different seeds should give different results"
        );
    }

    #[test]
    fn chaos_applies_surviving_writes_in_order() {
        // Two whole-sector writes to the same sector: the later one, if it survives,
        // wins; the result is never a byte mix.
        for seed in 0..64 {
            let vfs = fresh();
            let file = durable_file(&vfs, "a", &[0; 512]);
            file.write_at(&[1; 512], 0).unwrap();
            file.write_at(&[2; 512], 0).unwrap();
            let got = read_all(&vfs.crash(CrashMode::Chaos { seed }), &root().join("a"));
            assert!(got.iter().all(|&b| b == got[0]));
        }
    }

    #[test]
    fn eio_once_fails_exactly_one_op() {
        let vfs = fresh();
        let file = durable_file(&vfs, "a", b"abc");
        let at = vfs.op_count();
        vfs.fail_at(at, FaultKind::Eio, false);
        let mut buf = [0; 3];
        assert_eq!(errno(&file.read_at(&mut buf, 0).unwrap_err()), Some(EIO));
        assert_eq!(file.read_at(&mut buf, 0).unwrap(), 3);
        file.write_at(b"x", 0).unwrap();
        file.sync().unwrap();
    }

    #[test]
    fn eio_persistent_fails_every_op_until_cleared() {
        let vfs = fresh();
        let file = durable_file(&vfs, "a", b"abc");
        vfs.fail_at(vfs.op_count() + 1, FaultKind::Eio, true);
        file.write_at(b"x", 0).unwrap(); // index before the fault
        let mut buf = [0; 3];
        assert_eq!(errno(&file.read_at(&mut buf, 0).unwrap_err()), Some(EIO));
        assert_eq!(errno(&file.write_at(b"y", 0).unwrap_err()), Some(EIO));
        assert_eq!(errno(&file.sync().unwrap_err()), Some(EIO));
        assert_eq!(errno(&vfs.sync_dir(&root()).unwrap_err()), Some(EIO));
        assert_eq!(
            errno(&vfs.open(&root().join("b"), true).err().unwrap()),
            Some(EIO)
        );
        assert_eq!(
            errno(&vfs.remove(&root().join("a")).unwrap_err()),
            Some(EIO)
        );
        // A failed op changes nothing.
        assert!(!vfs.exists(&root().join("b")).unwrap());
        assert!(vfs.exists(&root().join("a")).unwrap());
        vfs.clear_faults();
        assert_eq!(file.read_at(&mut buf, 0).unwrap(), 3);
        assert_eq!(&buf, b"xbc");
    }

    #[test]
    fn enospc_once_fails_only_the_first_growing_op() {
        let vfs = fresh();
        let file = durable_file(&vfs, "a", b"abc");
        vfs.fail_at(vfs.op_count(), FaultKind::Enospc, false);
        let mut buf = [0; 3];
        // Reads, syncs, shrinking set_len: not affected, and do not use up the fault.
        file.read_at(&mut buf, 0).unwrap();
        file.sync().unwrap();
        file.set_len(2).unwrap();
        assert_eq!(errno(&file.write_at(b"zz", 2).unwrap_err()), Some(ENOSPC));
        assert_eq!(read_all(&vfs, &root().join("a")), b"ab");
        file.write_at(b"zz", 2).unwrap();
        assert_eq!(read_all(&vfs, &root().join("a")), b"abzz");
    }

    #[test]
    fn enospc_persistent_fails_every_growing_op() {
        let vfs = fresh();
        let file = durable_file(&vfs, "a", b"abc");
        vfs.fail_at(0, FaultKind::Enospc, true);
        assert_eq!(errno(&file.write_at(b"x", 0).unwrap_err()), Some(ENOSPC));
        assert_eq!(errno(&file.set_len(100).unwrap_err()), Some(ENOSPC));
        assert_eq!(
            errno(&vfs.open(&root().join("b"), true).err().unwrap()),
            Some(ENOSPC)
        );
        assert_eq!(errno(&file.write_at(b"x", 0).unwrap_err()), Some(ENOSPC));
        // Everything else proceeds.
        file.set_len(1).unwrap();
        file.sync().unwrap();
        vfs.rename(&root().join("a"), &root().join("c")).unwrap();
        vfs.sync_dir(&root()).unwrap();
        vfs.remove(&root().join("c")).unwrap();
        vfs.clear_faults();
        vfs.open(&root().join("b"), true)
            .unwrap()
            .write_at(b"ok", 0)
            .unwrap();
    }

    #[test]
    fn eio_on_sync_loses_pending_writes_even_after_a_later_successful_sync() {
        let vfs = fresh();
        let path = root().join("a");
        let file = durable_file(&vfs, "a", b"old");
        file.write_at(b"new", 0).unwrap();
        vfs.fail_at(vfs.op_count(), FaultKind::Eio, false);
        assert_eq!(errno(&file.sync().unwrap_err()), Some(EIO));
        // Still visible to this process...
        assert_eq!(read_all(&vfs, &path), b"new");
        // ...and the retried fsync "succeeds"...
        file.sync().unwrap();
        // ...but the pages were dropped: no crash brings them back.
        assert_eq!(read_all(&vfs.crash(CrashMode::DropUnsynced), &path), b"old");
        for seed in 0..32 {
            assert_eq!(
                read_all(&vfs.crash(CrashMode::Chaos { seed }), &path),
                b"old"
            );
        }
        // Writes after the failure are durable again once synced.
        file.write_at(b"!", 3).unwrap();
        file.sync().unwrap();
        assert_eq!(
            read_all(&vfs.crash(CrashMode::DropUnsynced), &path),
            b"old!"
        );
    }

    #[test]
    fn op_count_counts_each_io_op() {
        let vfs = fresh();
        assert_eq!(vfs.op_count(), 0);
        let a = root().join("a");
        let file = vfs.open(&a, true).unwrap(); // 1: create
        let _again = vfs.open(&a, true).unwrap(); // existing: not counted
        file.write_at(b"x", 0).unwrap(); // 2
        file.read_at(&mut [0; 1], 0).unwrap(); // 3
        file.set_len(4).unwrap(); // 4
        file.sync().unwrap(); // 5
        vfs.sync_dir(&root()).unwrap(); // 6
        vfs.rename(&a, &root().join("b")).unwrap(); // 7
        vfs.remove(&root().join("b")).unwrap(); // 8
        let _ = file.len().unwrap();
        let _ = vfs.exists(&a).unwrap();
        let _ = vfs.list(&root()).unwrap();
        assert_eq!(vfs.op_count(), 8);
        assert_eq!(vfs.clone().op_count(), 8, "clones share state");
        assert_eq!(vfs.crash(CrashMode::DropUnsynced).op_count(), 0);
    }

    #[test]
    fn failing_at_every_index_hits_every_op() {
        // The intended use: learn the op count, then fail at each index in turn.
        fn workload(vfs: &SimVfs) -> io::Result<()> {
            let file = vfs.open(&root().join("a"), true)?;
            file.write_at(b"hello", 0)?;
            file.sync()?;
            vfs.sync_dir(&root())
        }
        let n = {
            let vfs = fresh();
            workload(&vfs).unwrap();
            vfs.op_count()
        };
        assert_eq!(n, 4);
        for i in 0..n {
            let vfs = fresh();
            vfs.fail_at(i, FaultKind::Eio, false);
            assert_eq!(errno(&workload(&vfs).unwrap_err()), Some(EIO), "index {i}");
        }
    }

    #[test]
    fn lock_dir_refuses_a_second_holder_and_frees_on_drop() {
        let vfs = fresh();
        let guard = vfs.lock_dir(&root()).unwrap();
        match vfs.clone().lock_dir(&root()) {
            Err(crate::Error::Locked { dir }) => assert_eq!(dir, root()),
            Err(e) => panic!("wrong error: {e}"),
            Ok(_) => panic!("second lock granted"),
        }
        // Other directories are independent.
        let other = vfs.lock_dir(Path::new("/other")).unwrap();
        drop(guard);
        let _again = vfs.lock_dir(&root()).unwrap();
        drop(other);
    }

    #[test]
    fn open_without_create_and_list_of_missing_dir_are_not_found() {
        let vfs = fresh();
        assert_eq!(
            vfs.open(&root().join("x"), false).err().unwrap().kind(),
            io::ErrorKind::NotFound
        );
        assert_eq!(
            vfs.list(Path::new("/nope")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        assert_eq!(
            vfs.open(Path::new("/nope/x"), true).err().unwrap().kind(),
            io::ErrorKind::NotFound
        );
    }

    #[test]
    fn list_is_sorted_and_only_direct_children() {
        let vfs = fresh();
        vfs.create_dir_all(&root().join("sub")).unwrap();
        for name in ["b", "a", "c"] {
            vfs.open(&root().join(name), true).unwrap();
        }
        vfs.open(&root().join("sub").join("deep"), true).unwrap();
        assert_eq!(vfs.list(&root()).unwrap(), ["a", "b", "c", "sub"]);
        assert_eq!(vfs.list(&root().join("sub")).unwrap(), ["deep"]);
    }

    #[test]
    fn raw_access_reads_durable_bytes_and_corrupts_both_views() {
        let vfs = fresh();
        let path = root().join("a");
        let file = durable_file(&vfs, "a", b"abcdef");
        file.write_at(b"X", 0).unwrap();
        assert_eq!(vfs.read_raw(&path).unwrap(), b"abcdef");
        vfs.write_raw(&path, 2, b"??");
        assert_eq!(read_all(&vfs, &path), b"Xb??ef");
        assert_eq!(
            read_all(&vfs.crash(CrashMode::DropUnsynced), &path),
            b"ab??ef"
        );
        assert!(vfs.read_raw(&root().join("missing")).is_none());
    }

    #[test]
    fn handle_of_removed_file_keeps_working() {
        let vfs = fresh();
        let path = root().join("a");
        let file = durable_file(&vfs, "a", b"abc");
        vfs.remove(&path).unwrap();
        vfs.sync_dir(&root()).unwrap();
        let mut buf = [0; 3];
        assert_eq!(file.read_at(&mut buf, 0).unwrap(), 3);
        assert_eq!(&buf, b"abc");
        file.write_at(b"z", 0).unwrap();
        file.sync().unwrap();
        assert!(!vfs.crash(CrashMode::DropUnsynced).exists(&path).unwrap());
    }

    #[test]
    fn cross_directory_rename_is_atomic() {
        let vfs = fresh();
        vfs.create_dir_all(&root().join("x")).unwrap();
        let (from, to) = (root().join("a"), root().join("x").join("a"));
        drop(durable_file(&vfs, "a", b"data"));
        vfs.rename(&from, &to).unwrap();
        for seed in 0..64 {
            let after = vfs.crash(CrashMode::Chaos { seed });
            assert!(
                after.exists(&from).unwrap() != after.exists(&to).unwrap(),
                "seed {seed}"
            );
        }
        // Syncing either directory commits it.
        vfs.sync_dir(&root().join("x")).unwrap();
        let after = vfs.crash(CrashMode::DropUnsynced);
        assert!(!after.exists(&from).unwrap());
        assert_eq!(read_all(&after, &to), b"data");
    }

    #[test]
    fn clones_share_state_and_threads_can_use_it() {
        let vfs = fresh();
        let file = vfs.open(&root().join("a"), true).unwrap();
        let threads: Vec<_> = (0..4u64)
            .map(|i| {
                let file = Arc::clone(&file);
                std::thread::spawn(move || file.write_at(&[i as u8; 512], i * 512).unwrap())
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        assert_eq!(file.len().unwrap(), 2048);
        assert_eq!(vfs.op_count(), 5);
    }
}
