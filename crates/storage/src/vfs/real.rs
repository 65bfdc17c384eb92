//! The real file system: positional I/O on std files, fdatasync, flock. Files it
//! creates are 0600 and the directories the core owns 0700 (`docs/operations.md`,
//! "File modes"): the data of every tenant is readable by the server's user only.

use std::fs::{self, DirBuilder, File, OpenOptions, Permissions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, FileExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::sync::Arc;

use super::{Vfs, VfsFile};
use super::dir_lock::{DirLock, FILE_MODE};

/// Mode of the database directory and its `wal/`.
pub const DIR_MODE: u32 = 0o700;

#[derive(Debug, Default, Clone, Copy)]
pub struct RealVfs;

struct RealFile(File);

impl VfsFile for RealFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        loop {
            match self.0.read_at(buf, offset) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => return other,
            }
        }
    }
    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.0.write_all_at(buf, offset)
    }
    fn sync(&self) -> io::Result<()> {
        self.0.sync_data()
    }
    fn len(&self) -> io::Result<u64> {
        Ok(self.0.metadata()?.len())
    }
    fn set_len(&self, len: u64) -> io::Result<()> {
        self.0.set_len(len)
    }
    fn allocate(&self, len: u64) -> io::Result<()> {
        let mut at = self.len()?;
        if at >= len {
            return Ok(());
        }
        let zeros = vec![0u8; (len - at).min(ZERO_CHUNK_BYTES) as usize];
        while at < len {
            let n = (len - at).min(zeros.len() as u64) as usize;
            self.0.write_all_at(&zeros[..n], at)?;
            at += n as u64;
        }
        Ok(())
    }
}

/// `allocate` writes zeros in pieces of at most this size (bounded memory).
const ZERO_CHUNK_BYTES: u64 = 1 << 20;

impl Vfs for RealVfs {
    fn open(&self, path: &Path, create: bool) -> io::Result<Arc<dyn VfsFile>> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(create)
            .truncate(false)
            .mode(FILE_MODE)
            .open(path)?;
        Ok(Arc::new(RealFile(file)))
    }
    fn open_read(&self, path: &Path) -> io::Result<Arc<dyn VfsFile>> {
        Ok(Arc::new(RealFile(OpenOptions::new().read(true).open(path)?)))
    }
    fn exists(&self, path: &Path) -> io::Result<bool> {
        path.try_exists()
    }
    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in fs::read_dir(dir)? {
            names.push(entry?.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        fs::rename(from, to)
    }
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        fs::create_dir_all(path)
    }
    fn create_private_dir(&self, path: &Path) -> io::Result<()> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent)?;
        }
        match DirBuilder::new().mode(DIR_MODE).create(path) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && path.is_dir() => {}
            Err(e) => return Err(e),
        }
        let mode = fs::metadata(path)?.permissions().mode();
        if mode & 0o077 != 0 {
            // Group and others lose every bit; the owner keeps what it had.
            fs::set_permissions(path, Permissions::from_mode(mode & !0o077))?;
        }
        Ok(())
    }
    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        File::open(dir)?.sync_all()
    }
    fn lock_dir(&self, dir: &Path, shared: bool) -> crate::Result<Box<dyn Send + Sync>> {
        let lock = if shared { DirLock::acquire_shared(dir)? } else { DirLock::acquire(dir)? };
        Ok(Box::new(lock))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocate_extends_with_zeros_and_never_shrinks() {
        let dir = std::env::temp_dir().join(format!("tenantdb-real-vfs-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a");
        let file = RealVfs.open(&path, true).unwrap();
        file.write_at(b"abc", 0).unwrap();
        file.allocate(ZERO_CHUNK_BYTES * 2 + 5).unwrap();
        assert_eq!(file.len().unwrap(), ZERO_CHUNK_BYTES * 2 + 5);
        file.allocate(10).unwrap();
        assert_eq!(file.len().unwrap(), ZERO_CHUNK_BYTES * 2 + 5);
        let mut buf = vec![1u8; 16];
        assert_eq!(file.read_at(&mut buf, 0).unwrap(), 16);
        assert_eq!(&buf, b"abc\0\0\0\0\0\0\0\0\0\0\0\0\0");
        let mut tail = vec![1u8; 5];
        file.read_at(&mut tail, ZERO_CHUNK_BYTES * 2).unwrap();
        assert_eq!(tail, [0; 5]);
        drop(file);
        fs::remove_dir_all(&dir).unwrap();
    }
}
