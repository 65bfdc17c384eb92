//! A database directory: its lock, its page file and its meta record.
//!
//! Directory contents:
//!
//! | file    | owner          | purpose                                   |
//! |---------|----------------|-------------------------------------------|
//! | `LOCK`  | `dir_lock.rs`  | flock held while the directory is open    |
//! | `pages` | `page_file.rs` | page slots; slots 0 and 1 are meta slots  |

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use crate::dir_lock::DirLock;
use crate::error::{Error, Result};
use crate::limits::PAGE_NO_MAX;
use crate::meta::Meta;
use crate::page::{Page, PageType};
use crate::page_file::PageFile;

#[derive(Debug, Clone, Default)]
pub struct Options {}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stats {
    pub page_count: u64,
    pub checkpoint_lsn: u64,
    pub page_file_bytes: u64,
    pub db_dir: PathBuf,
}

pub struct Database {
    dir: PathBuf,
    pages: PageFile,
    meta: Meta,
    /// Page count including pages written since the last publish.
    page_count: u64,
    // Declared last so it is dropped last: the lock outlives every file handle.
    _lock: DirLock,
}

impl Database {
    /// Opens (creating if needed) the database directory `dir`, taking its lock.
    pub fn open(dir: &Path, _options: Options) -> Result<Database> {
        fs::create_dir_all(dir).map_err(|e| Error::io("create directory", dir, e))?;
        let dir = fs::canonicalize(dir).map_err(|e| Error::io("resolve", dir, e))?;
        let lock = DirLock::acquire(&dir)?;
        let pages = PageFile::open(&dir)?;
        let meta = if pages.len_bytes()? == 0 {
            let meta = Meta::initial();
            meta.write(&pages)?;
            pages.sync()?;
            sync_dir(&dir)?;
            meta
        } else {
            Meta::read_newest(&pages)?
        };
        Ok(Database { dir, pages, page_count: meta.page_count, meta, _lock: lock })
    }

    /// Writes `payload` into a fresh slot at the allocator tip and returns its number.
    /// The page is durable only after [`Database::sync`].
    pub fn write_new_page(&mut self, page_type: PageType, payload: &[u8]) -> Result<u64> {
        if self.page_count >= PAGE_NO_MAX {
            return Err(Error::InvalidArgument(format!("page file is full ({PAGE_NO_MAX} pages)")));
        }
        let page_no = self.page_count;
        self.pages.write(page_no, self.meta.checkpoint_lsn, page_type, payload)?;
        self.page_count += 1;
        Ok(page_no)
    }

    /// Reads and verifies one page. A page that fails verification is an
    /// `Error::Corrupted` naming it; its bytes are never returned.
    pub fn read_page(&self, page_no: u64) -> Result<Page> {
        if page_no >= self.page_count {
            return Err(Error::InvalidArgument(format!(
                "page {page_no} is beyond the allocator tip {}",
                self.page_count
            )));
        }
        self.pages.read(page_no)
    }

    /// Makes every page written so far durable, then publishes the new tip in the
    /// other meta slot. Pages are synced before meta so meta never names a page that
    /// could be lost.
    pub fn sync(&mut self) -> Result<()> {
        self.pages.sync()?;
        let next = Meta { generation: self.meta.generation + 1, page_count: self.page_count, ..self.meta };
        next.write(&self.pages)?;
        self.pages.sync()?;
        self.meta = next;
        Ok(())
    }

    pub fn stats(&self) -> Result<Stats> {
        Ok(Stats {
            page_count: self.page_count,
            checkpoint_lsn: self.meta.checkpoint_lsn,
            page_file_bytes: self.pages.len_bytes()?,
            db_dir: self.dir.clone(),
        })
    }

    pub fn page_file_path(&self) -> &Path {
        self.pages.path()
    }

    /// Publishes what was written and releases the lock.
    pub fn close(mut self) -> Result<()> {
        if self.page_count != self.meta.page_count {
            self.sync()?;
        }
        Ok(())
    }
}

/// Makes a newly created file's directory entry durable.
fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir).and_then(|d| d.sync_all()).map_err(|e| Error::io("fsync directory", dir, e))
}
