//! The checkpoint journal: what lets a checkpoint write pages over slots the current
//! meta record still reaches (`space/mod.rs`, "Writing in place"). Every page of such
//! a checkpoint, and its meta record, is first written here and synced; only then are
//! the page slots written. If that is interrupted, the next open finds a complete
//! journal newer than the newest valid meta record and writes it again, slots and
//! record (redo, `database/`), so the page file is never left between two versions.
//!
//! File `checkpoint.journal` in the database directory (little-endian):
//!
//! | offset | bytes      | field      | meaning                                            |
//! |-------:|-----------:|------------|----------------------------------------------------|
//! |      0 |          8 | magic      | ASCII `TDBJRNL1`                                   |
//! |      8 |          4 | format     | journal format, currently 1                        |
//! |     12 |          4 | page_bytes | slot size, as in the meta record                   |
//! |     16 |          8 | generation | the generation of the meta record it carries       |
//! |     24 |          8 | pages      | number of page entries                             |
//! |     32 | 8 + PAGE_BYTES each | entries | `page_no: u64`, then the slot image as written |
//! |    ... |  META_BYTES | meta      | the meta record's payload                          |
//! |    ... |          8 | checksum   | xxh3 of the header followed by the xxh3 of the entries and the meta |
//!
//! A journal is *complete* when its magic, format and page size are right, its length
//! matches its page count, its checksum holds, no page appears twice, and its record
//! decodes and carries the header's generation. Anything else (a crash while writing
//! it) is ignored: no page slot had been written yet. The checksum covers every byte,
//! so a journal torn anywhere, or mixed with an earlier one it was written over, fails
//! it. A complete journal whose generation is not newer than the newest valid meta
//! record was already applied (or superseded) and is ignored too. The file is cut to
//! nothing, unsynced, once a checkpoint's meta record is durable in both slots; a crash
//! before that cut, or one that loses it, is harmless for the same reason.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use xxhash_rust::xxh3::Xxh3;

use crate::error::{Error, Result};
use crate::limits::PAGE_BYTES;
use crate::meta::{Meta, META_BYTES};
use crate::vfs::{read_full_or_zero, Vfs, VfsFile};

pub const JOURNAL_FILE_NAME: &str = "checkpoint.journal";
const MAGIC: &[u8; 8] = b"TDBJRNL1";
const FORMAT_VERSION: u32 = 1;
const HEADER_BYTES: usize = 32;
const ENTRY_BYTES: usize = 8 + PAGE_BYTES;
const TRAILER_BYTES: usize = 8;

const _: () = assert!(HEADER_BYTES == 8 + 4 + 4 + 8 + 8);

/// The journal file of a directory. It exists from the directory's first open on (its
/// name durable), so a journal synced before any page slot is written is always found.
pub struct Journal {
    file: Arc<dyn VfsFile>,
    path: PathBuf,
}

impl Journal {
    /// Opens the journal, creating it (durably) if the directory has none.
    pub fn open(vfs: &dyn Vfs, dir: &Path) -> Result<Journal> {
        let path = dir.join(JOURNAL_FILE_NAME);
        let existed = vfs.exists(&path).map_err(|e| Error::io("stat", &path, e))?;
        let file = vfs.open(&path, true).map_err(|e| Error::io("open", &path, e))?;
        if !existed {
            vfs.sync_dir(dir).map_err(|e| Error::io("sync directory", dir, e))?;
        }
        Ok(Journal { file, path })
    }

    /// Opens an existing journal for reading only; none when the directory has none.
    pub fn open_read(vfs: &dyn Vfs, dir: &Path) -> Result<Option<Journal>> {
        let path = dir.join(JOURNAL_FILE_NAME);
        match vfs.open_read(&path) {
            Ok(file) => Ok(Some(Journal { file, path })),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io("open", &path, e)),
        }
    }

    /// Starts writing a journal for a checkpoint of `generation` (from offset 0).
    pub fn begin(&self, generation: u64) -> JournalWriter<'_> {
        let mut writer = JournalWriter { journal: self, offset: HEADER_BYTES as u64, hasher: Xxh3::new(), pages: 0, generation, header: [0; HEADER_BYTES] };
        writer.header[..8].copy_from_slice(MAGIC);
        writer.header[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        writer.header[12..16].copy_from_slice(&(PAGE_BYTES as u32).to_le_bytes());
        writer.header[16..24].copy_from_slice(&generation.to_le_bytes());
        writer
    }

    /// Cuts the journal to nothing: its checkpoint is durable in both meta slots.
    pub fn clear(&self) -> Result<()> {
        self.file.set_len(0).map_err(|e| Error::io("truncate", &self.path, e))
    }

    /// The complete journal in the file, if there is one: its meta record, and where
    /// each of its page images lies (`read_slot`). A torn, short or foreign file is none.
    pub fn read(&self) -> Result<Option<Complete>> {
        let len = self.file.len().map_err(|e| Error::io("stat", &self.path, e))?;
        if len < (HEADER_BYTES + META_BYTES + TRAILER_BYTES) as u64 {
            return Ok(None);
        }
        let mut header = [0u8; HEADER_BYTES];
        self.read_at(&mut header, 0)?;
        let u32_at = |o: usize| u32::from_le_bytes(header[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(header[o..o + 8].try_into().expect("8 bytes"));
        let pages = u64_at(24);
        let expected_len = pages
            .checked_mul(ENTRY_BYTES as u64)
            .and_then(|b| b.checked_add((HEADER_BYTES + META_BYTES + TRAILER_BYTES) as u64));
        if &header[..8] != MAGIC || u32_at(8) != FORMAT_VERSION || u32_at(12) as usize != PAGE_BYTES || expected_len != Some(len) {
            return Ok(None);
        }
        // Entries and meta through the checksum, a page at a time.
        let mut hasher = Xxh3::new();
        let mut offsets = HashMap::with_capacity(pages.min(1 << 20) as usize);
        let mut entry = vec![0u8; ENTRY_BYTES];
        for i in 0..pages {
            let at = HEADER_BYTES as u64 + i * ENTRY_BYTES as u64;
            self.read_at(&mut entry, at)?;
            hasher.update(&entry);
            let page = u64::from_le_bytes(entry[..8].try_into().expect("8 bytes"));
            offsets.insert(page, at + 8);
        }
        let mut meta = vec![0u8; META_BYTES];
        let meta_at = HEADER_BYTES as u64 + pages * ENTRY_BYTES as u64;
        self.read_at(&mut meta, meta_at)?;
        hasher.update(&meta);
        let mut trailer = [0u8; TRAILER_BYTES];
        self.read_at(&mut trailer, meta_at + META_BYTES as u64)?;
        if seal(&header, hasher.digest()) != u64::from_le_bytes(trailer) || offsets.len() as u64 != pages {
            return Ok(None);
        }
        let Some(meta) = Meta::decode(&meta).filter(|m| m.generation == u64_at(16)) else { return Ok(None) };
        Ok(Some(Complete { meta, offsets }))
    }

    /// The slot image of `page` at `offset` (from `Complete::offsets`).
    pub fn read_slot(&self, offset: u64) -> Result<Vec<u8>> {
        let mut slot = vec![0u8; PAGE_BYTES];
        self.read_at(&mut slot, offset)?;
        Ok(slot)
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        read_full_or_zero(&*self.file, buf, offset).map_err(|e| Error::io("read", &self.path, e))
    }
}

/// A complete journal: the meta record it carries and where its page images are.
pub struct Complete {
    pub meta: Meta,
    /// Page number → offset of its slot image in the journal file.
    pub offsets: HashMap<u64, u64>,
}

/// A journal being written: page images as the checkpoint makes them, then `finish`.
pub struct JournalWriter<'a> {
    journal: &'a Journal,
    offset: u64,
    hasher: Xxh3,
    pages: u64,
    generation: u64,
    header: [u8; HEADER_BYTES],
}

impl JournalWriter<'_> {
    /// Appends the slot image of `page`; returns where the image lies.
    pub fn page(&mut self, page: u64, slot: &[u8]) -> Result<u64> {
        assert_eq!(slot.len(), PAGE_BYTES, "a journal entry holds one slot image");
        let mut entry = Vec::with_capacity(ENTRY_BYTES);
        entry.extend_from_slice(&page.to_le_bytes());
        entry.extend_from_slice(slot);
        self.write(&entry)?;
        self.pages += 1;
        Ok(self.offset - PAGE_BYTES as u64)
    }

    /// Appends the meta record and the checksum, writes the header, and syncs: from
    /// here on the checkpoint can be redone.
    pub fn finish(mut self, meta: &Meta) -> Result<()> {
        assert_eq!(meta.generation, self.generation, "a journal carries the record of its own checkpoint");
        self.write(&meta.encode())?;
        self.header[24..32].copy_from_slice(&self.pages.to_le_bytes());
        let trailer = seal(&self.header, self.hasher.digest());
        let (file, path) = (&self.journal.file, &self.journal.path);
        file.write_at(&self.header, 0).map_err(|e| Error::io_or_full("write", path, e))?;
        file.write_at(&trailer.to_le_bytes(), self.offset).map_err(|e| Error::io_or_full("write", path, e))?;
        // A longer journal of an earlier checkpoint may lie beyond: cut it off.
        file.set_len(self.offset + TRAILER_BYTES as u64).map_err(|e| Error::io("truncate", path, e))?;
        file.sync().map_err(|e| Error::io("fsync", path, e))
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.journal.file.write_at(bytes, self.offset).map_err(|e| Error::io_or_full("write", &self.journal.path, e))?;
        self.hasher.update(bytes);
        self.offset += bytes.len() as u64;
        Ok(())
    }
}

/// The trailer: the header is known last (it counts the pages), so it is hashed with the
/// digest of everything after it rather than before it.
fn seal(header: &[u8; HEADER_BYTES], body: u64) -> u64 {
    let mut bytes = [0u8; HEADER_BYTES + 8];
    bytes[..HEADER_BYTES].copy_from_slice(header);
    bytes[HEADER_BYTES..].copy_from_slice(&body.to_le_bytes());
    xxhash_rust::xxh3::xxh3_64(&bytes)
}
