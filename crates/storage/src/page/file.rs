//! The page file: slot N lives at byte offset N * PAGE_BYTES. Positional reads and
//! writes only (through the Vfs), so readers never race on a shared file cursor.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::limits::{META_SLOTS, PAGE_BYTES};
use crate::page::{self, Page, PageType};
use crate::vfs::{read_full_or_zero, Vfs, VfsFile};

pub const PAGE_FILE_NAME: &str = "pages";

pub struct PageFile {
    file: Arc<dyn VfsFile>,
    path: PathBuf,
    /// Slot images read instead of the file's: a read-only open of a directory whose
    /// last checkpoint is in its journal and not yet in its slots (`checkpoint/journal.rs`).
    overlay: Option<HashMap<u64, Vec<u8>>>,
}

impl PageFile {
    /// Opens the page file of `dir`, or `None` when the directory has none yet.
    pub fn open(vfs: &dyn Vfs, dir: &Path) -> Result<Option<PageFile>> {
        let path = dir.join(PAGE_FILE_NAME);
        match vfs.open(&path, false) {
            Ok(file) => Ok(Some(PageFile { file, path, overlay: None })),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io("open", &path, e)),
        }
    }

    /// Creates the page file atomically: `init` fills a temporary file, which is
    /// synced and then renamed into place, so a crash during creation leaves either
    /// no page file or a complete one.
    pub fn create(vfs: &dyn Vfs, dir: &Path, init: impl FnOnce(&PageFile) -> Result<()>) -> Result<PageFile> {
        let tmp = dir.join(format!("{PAGE_FILE_NAME}.tmp"));
        let path = dir.join(PAGE_FILE_NAME);
        let file = vfs.open(&tmp, true).map_err(|e| Error::io("create", &tmp, e))?;
        file.set_len(0).map_err(|e| Error::io("truncate", &tmp, e))?;
        let staged = PageFile { file, path: tmp.clone(), overlay: None };
        init(&staged)?;
        staged.sync()?;
        vfs.rename(&tmp, &path).map_err(|e| Error::io("rename", &path, e))?;
        vfs.sync_dir(dir).map_err(|e| Error::io("fsync directory", dir, e))?;
        Ok(PageFile { file: staged.file, path, overlay: None })
    }

    /// Cuts the file to `bytes` (its free tail, once no record on disk reaches it).
    pub fn truncate(&self, bytes: u64) -> Result<()> {
        self.file.set_len(bytes).map_err(|e| Error::io("truncate", &self.path, e))
    }

    pub fn len_bytes(&self) -> Result<u64> {
        self.file.len().map_err(|e| Error::io("stat", &self.path, e))
    }

    /// Reads and verifies one slot. A slot past the end of the file reads as zeros,
    /// which fails its checksum: a truncated file is corruption, not an I/O error.
    pub fn read(&self, page_no: u64) -> Result<Page> {
        if let Some(slot) = self.overlay.as_ref().and_then(|o| o.get(&page_no)) {
            return page::decode(page_no, slot);
        }
        let mut slot = vec![0u8; PAGE_BYTES];
        read_full_or_zero(&*self.file, &mut slot, page_no * PAGE_BYTES as u64)
            .map_err(|e| Error::io("read", &self.path, e))?;
        page::decode(page_no, &slot)
    }

    /// The same file, read through `overlay` (page number → slot image) first.
    pub fn with_overlay(self, overlay: HashMap<u64, Vec<u8>>) -> PageFile {
        PageFile { overlay: Some(overlay), ..self }
    }

    /// Opens the page file of `dir` for reading only, or `None` when there is none.
    pub fn open_read(vfs: &dyn Vfs, dir: &Path) -> Result<Option<PageFile>> {
        let path = dir.join(PAGE_FILE_NAME);
        match vfs.open_read(&path) {
            Ok(file) => Ok(Some(PageFile { file, path, overlay: None })),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io("open", &path, e)),
        }
    }

    /// Writes one slot and returns its checksum. A full file system is
    /// `Error::StorageFull` (the slot may be partly written, as after any failure).
    pub fn write(&self, page_no: u64, lsn: u64, page_type: PageType, payload: &[u8]) -> Result<u64> {
        assert_eq!(page_no < META_SLOTS, page_type == PageType::Meta, "meta records go to the meta slots, and nothing else does");
        let slot = page::encode(page_no, lsn, page_type, payload)?;
        self.write_slot(page_no, &slot)?;
        Ok(page::slot_checksum(&slot))
    }

    /// Writes a slot image made by `page::encode` (a journal's, on redo).
    pub fn write_slot(&self, page_no: u64, slot: &[u8]) -> Result<()> {
        assert_eq!(slot.len(), PAGE_BYTES, "a slot image is exactly one page");
        self.file.write_at(slot, page_no * PAGE_BYTES as u64).map_err(|e| Error::io_or_full("write", &self.path, e))
    }

    pub fn sync(&self) -> Result<()> {
        self.file.sync().map_err(|e| Error::io("fsync", &self.path, e))
    }
}

/// Where a checkpoint's page images go (`checkpoint/`): straight into their slots, or
/// first into the checkpoint journal when it writes over slots the current meta record
/// still reaches.
pub trait PageSink {
    fn put(&mut self, page_no: u64, slot: &[u8]) -> Result<()>;
}

/// Straight into the page file.
pub struct Direct<'a>(pub &'a PageFile);

impl PageSink for Direct<'_> {
    fn put(&mut self, page_no: u64, slot: &[u8]) -> Result<()> {
        self.0.write_slot(page_no, slot)
    }
}
