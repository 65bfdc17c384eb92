//! The page file: slot N lives at byte offset N * PAGE_BYTES. Positional reads and
//! writes only (through the Vfs), so readers never race on a shared file cursor.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::limits::PAGE_BYTES;
use crate::page::{self, Page, PageType};
use crate::vfs::{read_full_or_zero, Vfs, VfsFile};

pub const PAGE_FILE_NAME: &str = "pages";

pub struct PageFile {
    file: Arc<dyn VfsFile>,
    path: PathBuf,
}

impl PageFile {
    pub fn open(vfs: &dyn Vfs, dir: &Path) -> Result<PageFile> {
        let path = dir.join(PAGE_FILE_NAME);
        let file = vfs.open(&path, true).map_err(|e| Error::io("open", &path, e))?;
        Ok(PageFile { file, path })
    }

    pub fn len_bytes(&self) -> Result<u64> {
        self.file.len().map_err(|e| Error::io("stat", &self.path, e))
    }

    /// Reads and verifies one slot. A slot past the end of the file reads as zeros,
    /// which fails its checksum: a truncated file is corruption, not an I/O error.
    pub fn read(&self, page_no: u64) -> Result<Page> {
        let mut slot = vec![0u8; PAGE_BYTES];
        read_full_or_zero(&*self.file, &mut slot, page_no * PAGE_BYTES as u64)
            .map_err(|e| Error::io("read", &self.path, e))?;
        page::decode(page_no, &slot)
    }

    /// Writes one slot and returns its checksum.
    pub fn write(&self, page_no: u64, lsn: u64, page_type: PageType, payload: &[u8]) -> Result<u64> {
        let slot = page::encode(page_no, lsn, page_type, payload)?;
        self.file
            .write_at(&slot, page_no * PAGE_BYTES as u64)
            .map_err(|e| Error::io("write", &self.path, e))?;
        Ok(page::slot_checksum(&slot))
    }

    pub fn sync(&self) -> Result<()> {
        self.file.sync().map_err(|e| Error::io("fsync", &self.path, e))
    }
}
