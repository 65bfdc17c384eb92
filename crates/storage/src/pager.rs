//! The pager: allocates page slots from the space map (`space/`: a free slot, else one
//! at the tip), writes nodes and overflow chains, and loads verified nodes through the
//! bounded cache. Every verification failure
//! becomes an `Error::Corrupted` naming the page and a persisted corruption report;
//! the failing bytes are never returned.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::btree::{node_codec, DiskLoc, Node, Value};
use crate::checksum::checksum;
use crate::corruption_log::CorruptionLog;
use crate::error::{CorruptionKind, Error, Result};
use crate::limits::{PAGE_NO_MAX, VALUE_BYTES_MAX};
use crate::page::{self, PageType, PAGE_PAYLOAD_BYTES_MAX};
use crate::page_cache::PageCache;
use crate::page_file::{PageFile, PageSink, PAGE_FILE_NAME};
use crate::space::{SpaceMap, SpaceStats};

/// Overflow page payload: `next_page: u64` (0 on the last page), then value bytes.
const OVERFLOW_HEADER_BYTES: usize = 8;
const OVERFLOW_CHUNK_BYTES: usize = PAGE_PAYLOAD_BYTES_MAX - OVERFLOW_HEADER_BYTES;

/// Slots the overflow chain of a value of `len` bytes takes.
pub fn overflow_pages(len: usize) -> u64 {
    len.div_ceil(OVERFLOW_CHUNK_BYTES).max(1) as u64
}

pub struct Pager {
    file: PageFile,
    /// The books of every slot as of the last checkpoint. A checkpoint works on a copy
    /// and installs it once its meta record is durable; readers only read `tip`.
    space: Mutex<SpaceMap>,
    /// The space map's tip, read on every node load without taking its lock.
    tip: AtomicU64,
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
    pub fn new(file: PageFile, space: SpaceMap, cache_bytes: usize, corruption: Arc<CorruptionLog>) -> Pager {
        Pager {
            file,
            tip: AtomicU64::new(space.tip()),
            space: Mutex::new(space),
            cache: Mutex::new(PageCache::new(cache_bytes)),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            corruption,
        }
    }

    /// The allocator tip: slots `0..page_count` exist.
    pub fn page_count(&self) -> u64 {
        self.tip.load(Ordering::SeqCst)
    }

    /// A copy of the installed space map, for a checkpoint to work on.
    pub fn space(&self) -> SpaceMap {
        self.space.lock().expect("space lock").clone()
    }

    pub fn space_stats(&self) -> SpaceStats {
        self.space.lock().expect("space lock").stats()
    }

    /// Installs a checkpoint's space map once its meta record is durable.
    pub fn set_space(&self, map: SpaceMap) {
        let mut space = self.space.lock().expect("space lock");
        self.tip.store(map.tip(), Ordering::SeqCst);
        *space = map;
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

    /// `pages` slots for pages about to be written (not necessarily consecutive).
    fn allocate(books: &mut SpaceMap, pages: u64) -> Result<Vec<u64>> {
        let mut out = Vec::with_capacity(pages as usize);
        for _ in 0..pages {
            match books.allocate() {
                Some(page) => out.push(page),
                None => {
                    Pager::unallocate(books, &out);
                    return Err(Error::InvalidArgument(format!("page file is full ({PAGE_NO_MAX} pages)")));
                }
            }
        }
        Ok(out)
    }

    /// Hands back slots whose write failed: nothing references them.
    fn unallocate(books: &mut SpaceMap, pages: &[u64]) {
        for &page in pages {
            books.unallocate(page);
        }
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
        if let Some(node) = self.cache.lock().expect("cache lock").get(loc) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(node);
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let node = Arc::new(self.read_node(loc).map_err(|e| self.report(e))?);
        self.cache.lock().expect("cache lock").insert(loc, node.clone());
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

    /// Writes a node whose children and large values are already on disk into a slot
    /// of `books`, through `sink`. Counting the references it holds is the caller's.
    pub fn write_node(&self, books: &mut SpaceMap, sink: &mut dyn PageSink, node: Node, lsn: u64) -> Result<DiskLoc> {
        let (page_type, payload) = node_codec::encode(&node);
        let [page] = Pager::allocate(books, 1)?[..] else { unreachable!("one slot was asked for") };
        let slot = page::encode(page, lsn, page_type, &payload)?;
        sink.put(page, &slot).inspect_err(|_| books.unallocate(page))?;
        let loc = DiskLoc { page, checksum: page::slot_checksum(&slot) };
        self.cache.lock().expect("cache lock").insert(loc, Arc::new(node));
        Ok(loc)
    }

    /// Writes a large value to a chain of overflow pages, through `sink`; returns the
    /// value as its leaf records it and the chain's slots (the first is referenced by
    /// that leaf, each other by the one before it: the caller counts them).
    pub fn write_overflow(&self, books: &mut SpaceMap, sink: &mut dyn PageSink, bytes: &[u8], lsn: u64) -> Result<(Value, Vec<u64>)> {
        assert!(bytes.len() <= VALUE_BYTES_MAX, "value size checked before commit");
        let pages = Pager::allocate(books, overflow_pages(bytes.len()))?;
        for (i, chunk) in bytes.chunks(OVERFLOW_CHUNK_BYTES).enumerate() {
            let next = pages.get(i + 1).copied().unwrap_or(0);
            let mut payload = Vec::with_capacity(OVERFLOW_HEADER_BYTES + chunk.len());
            payload.extend_from_slice(&next.to_le_bytes());
            payload.extend_from_slice(chunk);
            let slot = page::encode(pages[i], lsn, PageType::Overflow, &payload)?;
            sink.put(pages[i], &slot).inspect_err(|_| Pager::unallocate(books, &pages))?;
        }
        let value = Value::Overflow { first_page: pages[0], len: bytes.len() as u32, hash: checksum(bytes) };
        Ok((value, pages))
    }

    /// The slots of a large value's chain, in order, after verifying the value whole
    /// against the hash its leaf recorded (so a stale page never names the wrong slots).
    pub fn overflow_chain(&self, first_page: u64, len: u32, hash: u64) -> Result<Vec<u64>> {
        let mut pages = Vec::new();
        self.read_overflow(first_page, len as usize, hash, Some(&mut pages)).map_err(|e| self.report(e))?;
        Ok(pages)
    }

    /// The bytes of a value, following and verifying an overflow chain if needed.
    pub fn read_value(&self, value: &Value) -> Result<Arc<[u8]>> {
        match value {
            Value::Bytes(bytes) => Ok(bytes.clone()),
            Value::Overflow { first_page, len, hash } => {
                self.read_overflow(*first_page, *len as usize, *hash, None).map_err(|e| self.report(e))
            }
            Value::Tree(_) => Err(Error::InvalidArgument("the entry holds a tree, not bytes".into())),
        }
    }

    /// A chain's pages verify one by one (checksum, own number), but only the leaf's
    /// hash of the whole value vouches for them together: no page records the checksum
    /// of the next. So anything wrong beyond a page's own slot (a type, a length, a link
    /// that does not fit) means some intact page of the chain is not the one the leaf
    /// meant, a stale image, and which one cannot be told: the chain is reported stale,
    /// by its first page (the one the leaf names), never a page the stale link led to.
    fn read_overflow(&self, first_page: u64, len: usize, hash: u64, mut pages: Option<&mut Vec<u64>>) -> Result<Arc<[u8]>> {
        let stale = || Error::Corrupted { page: first_page, kind: CorruptionKind::Stale };
        let mut out = Vec::with_capacity(len);
        let mut page_no = first_page;
        while out.len() < len {
            if let Some(pages) = pages.as_deref_mut() {
                pages.push(page_no);
            }
            if page_no == 0 || page_no >= self.page_count() {
                return Err(stale());
            }
            let page = self.file.read(page_no)?;
            if page.page_type != PageType::Overflow || page.payload.len() < OVERFLOW_HEADER_BYTES {
                return Err(stale());
            }
            let next = u64::from_le_bytes(page.payload[..8].try_into().expect("8 bytes"));
            let chunk = &page.payload[OVERFLOW_HEADER_BYTES..];
            // The writer never writes an empty chunk; one would let a cycle loop forever.
            if chunk.is_empty() || chunk.len() > len - out.len() || (next == 0) != (out.len() + chunk.len() == len) {
                return Err(stale());
            }
            out.extend_from_slice(chunk);
            page_no = next;
        }
        if checksum(&out) != hash {
            // Every page verified and fits, but the whole is not what the leaf recorded.
            return Err(stale());
        }
        Ok(Arc::from(out))
    }

    pub fn sync(&self) -> Result<()> {
        self.file.sync()
    }
}
