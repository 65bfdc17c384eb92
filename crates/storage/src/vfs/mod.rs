//! The file system as the storage core sees it. Every byte the core reads or writes
//! goes through [`Vfs`], so tests can swap the real file system ([`RealVfs`], with the
//! directory lock, `dir_lock.rs`) for a simulated one that loses unsynced writes, tears
//! and reorders them, and fails on command (`SimVfs`, `sim/`: test-only, built with the
//! `testing` feature).
//!
//! Durability contract (what the core may rely on, and what `SimVfs` enforces):
//! - `VfsFile::write_at` is durable only after a later `VfsFile::sync` of that file.
//! - Creating, removing or renaming a file is durable only after `Vfs::sync_dir` of
//!   its directory.
//! - `VfsFile::allocate` is a write (of zeros) for every purpose above.
//! - A write that was not synced may, after a crash, be absent, present, or present
//!   in part (torn at 512-byte sector boundaries), independently of other unsynced
//!   writes (reordering).

mod dir_lock;
mod real;
#[cfg(feature = "testing")]
mod sim;

use std::io;
use std::path::Path;
use std::sync::Arc;

pub use real::RealVfs;
#[cfg(feature = "testing")]
pub use sim::{CrashMode, FaultKind, FiredFault, HeldSync, SimVfs};

pub trait VfsFile: Send + Sync {
    /// Reads up to `buf.len()` bytes at `offset`; returns fewer only at end of file.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize>;
    /// Writes all of `buf` at `offset`, extending the file if needed.
    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()>;
    /// Makes every completed write of this file durable (fdatasync).
    fn sync(&self) -> io::Result<()>;
    fn len(&self) -> io::Result<u64>;
    /// Truncates or extends (with zeros) the file. Durable after `sync`.
    fn set_len(&self, len: u64) -> io::Result<()>;
    /// Extends the file to `len` bytes by *writing* zeros after its current end: real,
    /// initialised blocks rather than a hole (`set_len`) or unwritten extents
    /// (`fallocate`), so that later writes inside them change no file metadata and
    /// the `sync` after them flushes data only (no journal commit for a new size or
    /// extent conversion). A no-op when the file is already `len` bytes or longer.
    /// Durable after `sync`, like a write.
    fn allocate(&self, len: u64) -> io::Result<()>;
}

pub trait Vfs: Send + Sync {
    /// Opens a file for reading and writing, creating it (readable by its owner
    /// only, mode 0600) when `create` is true. A missing file without `create` is
    /// `io::ErrorKind::NotFound`.
    fn open(&self, path: &Path, create: bool) -> io::Result<Arc<dyn VfsFile>>;
    /// Opens an existing file for reading only: every write, `sync`, `set_len` and
    /// `allocate` through the handle fails. Missing is `NotFound`.
    fn open_read(&self, path: &Path) -> io::Result<Arc<dyn VfsFile>>;
    fn exists(&self, path: &Path) -> io::Result<bool>;
    /// File names (not paths) in `dir`, sorted. A missing directory is `NotFound`.
    fn list(&self, dir: &Path) -> io::Result<Vec<String>>;
    fn remove(&self, path: &Path) -> io::Result<()>;
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    fn create_dir_all(&self, path: &Path) -> io::Result<()>;
    /// Creates `path` (and its missing parents, with the default mode) so that
    /// `path` itself is private to its owner (mode 0700), and tightens an existing
    /// `path` whose mode lets anyone else in.
    fn create_private_dir(&self, path: &Path) -> io::Result<()>;
    /// Makes creations, removals and renames in `dir` durable.
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;
    /// Takes the directory's lock, held until the returned guard drops: exclusive
    /// (a writer), or `shared` (read-only openers, which write nothing to take it).
    fn lock_dir(&self, dir: &Path, shared: bool) -> crate::Result<Box<dyn Send + Sync>>;
}

/// Reads exactly `buf.len()` bytes; a short file reads as zeros past its end, so a
/// truncated page fails its checksum instead of surfacing as an I/O error.
pub fn read_full_or_zero(file: &dyn VfsFile, buf: &mut [u8], offset: u64) -> io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        let n = file.read_at(&mut buf[done..], offset + done as u64)?;
        if n == 0 {
            buf[done..].fill(0);
            break;
        }
        done += n;
    }
    Ok(())
}
