//! The page file: slot N lives at byte offset N * PAGE_BYTES. Positional reads and
//! writes only, so readers never race on a shared file cursor.

use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::limits::PAGE_BYTES;
use crate::page::{self, Page, PageType};

pub const PAGE_FILE_NAME: &str = "pages";

pub struct PageFile {
    file: File,
    path: PathBuf,
}

impl PageFile {
    pub fn open(dir: &Path) -> Result<PageFile> {
        let path = dir.join(PAGE_FILE_NAME);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| Error::io("open", &path, e))?;
        Ok(PageFile { file, path })
    }

    pub fn len_bytes(&self) -> Result<u64> {
        Ok(self.file.metadata().map_err(|e| Error::io("stat", &self.path, e))?.len())
    }

    /// Reads and verifies one slot. A slot past the end of the file reads as zeros,
    /// which fails its checksum: a truncated file is corruption, not an I/O error.
    pub fn read(&self, page_no: u64) -> Result<Page> {
        let mut slot = vec![0u8; PAGE_BYTES];
        match self.file.read_exact_at(&mut slot, page_no * PAGE_BYTES as u64) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => slot.fill(0),
            Err(e) => return Err(Error::io("read", &self.path, e)),
        }
        page::decode(page_no, &slot)
    }

    pub fn write(&self, page_no: u64, lsn: u64, page_type: PageType, payload: &[u8]) -> Result<()> {
        let slot = page::encode(page_no, lsn, page_type, payload)?;
        self.file
            .write_all_at(&slot, page_no * PAGE_BYTES as u64)
            .map_err(|e| Error::io("write", &self.path, e))
    }

    pub fn sync(&self) -> Result<()> {
        self.file.sync_data().map_err(|e| Error::io("fsync", &self.path, e))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}
