//! The pager: allocates page slots at the tip, writes nodes and overflow chains,
//! and loads verified nodes through the bounded cache. Every verification failure
//! becomes an `Error::Corrupted` naming the page and a persisted corruption report;
//! the failing bytes are never returned.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::btree::{node_codec, DiskLoc, Node, Value};
use crate::checksum::checksum;
use crate::corruption_log::CorruptionLog;
use crate::error::{CorruptionKind, Error, Result};
use crate::limits::{PAGE_NO_MAX, VALUE_BYTES_MAX};
use crate::page::{PageType, PAGE_PAYLOAD_BYTES_MAX};
use crate::page_cache::PageCache;
use crate::page_file::{PageFile, PAGE_FILE_NAME};

/// Overflow page payload: `next_page: u64` (0 on the last page), then value bytes.
const OVERFLOW_HEADER_BYTES: usize = 8;
const OVERFLOW_CHUNK_BYTES: usize = PAGE_PAYLOAD_BYTES_MAX - OVERFLOW_HEADER_BYTES;

/// Slots the overflow chain of a value of `len` bytes takes.
pub fn overflow_pages(len: usize) -> u64 {
    len.div_ceil(OVERFLOW_CHUNK_BYTES).max(1) as u64
}

pub struct Pager {
    file: PageFile,
    next_page: AtomicU64,
    cache: Mutex<PageCache>,
    hits: AtomicU64,
    misses: AtomicU64,
    corruption: Arc<CorruptionLog>,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    pub bytes: u64,
}

impl Pager {
    pub fn new(file: PageFile, page_count: u64, cache_bytes: usize, corruption: Arc<CorruptionLog>) -> Pager {
        Pager {
            file,
            next_page: AtomicU64::new(page_count),
            cache: Mutex::new(PageCache::new(cache_bytes)),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            corruption,
        }
    }

    pub fn page_count(&self) -> u64 {
        self.next_page.load(Ordering::SeqCst)
    }

    pub fn file(&self) -> &PageFile {
        &self.file
    }

    pub fn cache_stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            bytes: self.cache.lock().expect("cache lock").bytes() as u64,
        }
    }

    fn allocate(&self, pages: u64) -> Result<u64> {
        let first = self.next_page.fetch_add(pages, Ordering::SeqCst);
        if first + pages > PAGE_NO_MAX {
            return Err(Error::InvalidArgument(format!("page file is full ({PAGE_NO_MAX} pages)")));
        }
        Ok(first)
    }

    /// Hands back the slots `first..first + pages` after their write failed, if no
    /// later allocation followed (only the checkpoint allocates, one at a time). They
    /// are past every slot the durable meta names, so nothing refers to them.
    fn unallocate(&self, first: u64, pages: u64) {
        let _ = self.next_page.compare_exchange(first + pages, first, Ordering::SeqCst, Ordering::SeqCst);
    }

    /// Records a corruption error (once per detection) and passes it on.
    pub fn report(&self, err: Error) -> Error {
        if let Error::Corrupted { page, kind } = &err {
            // A failure to persist the report must not hide the corruption itself.
            let _ = self.corruption.record(format!("page:{page}"), PAGE_FILE_NAME.to_string(), Some(*page), kind.as_str());
        }
        err
    }

    /// Loads the node at `loc`, verifying the slot and that it is the version the
    /// parent points to.
    pub fn load(&self, loc: DiskLoc) -> Result<Arc<Node>> {
        if let Some(node) = self.cache.lock().expect("cache lock").get(loc.page) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(node);
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let node = Arc::new(self.read_node(loc).map_err(|e| self.report(e))?);
        self.cache.lock().expect("cache lock").insert(loc.page, node.clone());
        Ok(node)
    }

    fn read_node(&self, loc: DiskLoc) -> Result<Node> {
        if loc.page >= self.page_count() {
            return Err(Error::Corrupted { page: loc.page, kind: CorruptionKind::Tree });
        }
        let page = self.file.read(loc.page)?;
        if page.checksum != loc.checksum {
            return Err(Error::Corrupted { page: loc.page, kind: CorruptionKind::Stale });
        }
        node_codec::decode(loc.page, page.page_type, &page.payload)
    }

    /// Writes a node whose children and large values are already on disk.
    pub fn write_node(&self, node: Node, lsn: u64) -> Result<DiskLoc> {
        let (page_type, payload) = node_codec::encode(&node);
        let page = self.allocate(1)?;
        let checksum = self.file.write(page, lsn, page_type, &payload).inspect_err(|_| self.unallocate(page, 1))?;
        self.cache.lock().expect("cache lock").insert(page, Arc::new(node));
        Ok(DiskLoc { page, checksum })
    }

    /// Writes a large value to a chain of consecutive overflow pages.
    pub fn write_overflow(&self, bytes: &[u8], lsn: u64) -> Result<Value> {
        assert!(bytes.len() <= VALUE_BYTES_MAX, "value size checked before commit");
        let pages = overflow_pages(bytes.len());
        let first = self.allocate(pages)?;
        for (i, chunk) in bytes.chunks(OVERFLOW_CHUNK_BYTES).enumerate() {
            let page = first + i as u64;
            let next = if page + 1 < first + pages { page + 1 } else { 0 };
            let mut payload = Vec::with_capacity(OVERFLOW_HEADER_BYTES + chunk.len());
            payload.extend_from_slice(&next.to_le_bytes());
            payload.extend_from_slice(chunk);
            self.file.write(page, lsn, PageType::Overflow, &payload).inspect_err(|_| self.unallocate(first, pages))?;
        }
        Ok(Value::Overflow { first_page: first, len: bytes.len() as u32, hash: checksum(bytes) })
    }

    /// The bytes of a value, following and verifying an overflow chain if needed.
    pub fn read_value(&self, value: &Value) -> Result<Arc<[u8]>> {
        match value {
            Value::Bytes(bytes) => Ok(bytes.clone()),
            Value::Overflow { first_page, len, hash } => {
                self.read_overflow(*first_page, *len as usize, *hash).map_err(|e| self.report(e))
            }
            Value::Tree(_) => Err(Error::InvalidArgument("the entry holds a tree, not bytes".into())),
        }
    }

    fn read_overflow(&self, first_page: u64, len: usize, hash: u64) -> Result<Arc<[u8]>> {
        let mut out = Vec::with_capacity(len);
        let mut page_no = first_page;
        while out.len() < len {
            let corrupted = |kind| Error::Corrupted { page: page_no, kind };
            if page_no == 0 || page_no >= self.page_count() {
                return Err(corrupted(CorruptionKind::Tree));
            }
            let page = self.file.read(page_no)?;
            if page.page_type != PageType::Overflow || page.payload.len() < OVERFLOW_HEADER_BYTES {
                return Err(corrupted(CorruptionKind::PageType));
            }
            let next = u64::from_le_bytes(page.payload[..8].try_into().expect("8 bytes"));
            let chunk = &page.payload[OVERFLOW_HEADER_BYTES..];
            if chunk.len() > len - out.len() || (next == 0) != (out.len() + chunk.len() == len) {
                return Err(corrupted(CorruptionKind::Tree));
            }
            out.extend_from_slice(chunk);
            page_no = next;
        }
        if checksum(&out) != hash {
            // Every page verified but the whole is not what the leaf recorded: a stale page.
            return Err(Error::Corrupted { page: first_page, kind: CorruptionKind::Stale });
        }
        Ok(Arc::from(out))
    }

    pub fn sync(&self) -> Result<()> {
        self.file.sync()
    }
}
