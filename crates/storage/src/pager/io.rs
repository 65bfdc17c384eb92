//! The pager: pages, not what they hold. It allocates page slots from the space map
//! (`space/`: a free slot, else one at the tip), writes pages and overflow chains
//! (`page/overflow.rs`), and reads pages verified against the checksum their referrer
//! recorded, decoded by the reader's type through the bounded cache (`cache.rs`).
//! What a page means (a B-tree node, `btree/node_io.rs`) is the layer above's business:
//! the pager names no B-tree type (docs/architecture.md, "Storage layers"). Every verification
//! failure becomes an `Error::Corrupted` naming the page and a persisted corruption
//! report; the failing bytes are never returned.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::corruption_log::CorruptionLog;
use crate::page::DiskLoc;
use crate::error::{CorruptionKind, Error, Result};
use crate::limits::{META_SLOTS, PAGE_NO_MAX};
use crate::page::overflow::{self, overflow_pages, OverflowChain};
use crate::page::{self, Page, PageType};
use super::cache::{self, PageCache};
use crate::page::{PageFile, PageSink, PAGE_FILE_NAME};
use crate::progress::Progress;
use crate::space::{SpaceMap, SpaceStats};

/// What a page decodes to, as the layer above defines it: the pager caches it.
pub trait DecodedPage: Sized + Send + Sync + 'static {
    /// Decodes a verified page; anything it refuses is corruption of that page.
    fn decode(page: Page) -> Result<Self>;
    /// Bytes of memory held (its allocations as allocated, not as encoded), for the
    /// cache's budget: the cache holds the process to it.
    fn memory_bytes(&self) -> usize;
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
    /// Node reads answered by nodes still in memory (written since the last checkpoint):
    /// they never reach the page cache, so without this count a session that has not
    /// checkpointed yet shows 0 hits and 0 misses however much it reads.
    memory_reads: AtomicU64,
    corruption: Arc<CorruptionLog>,
    /// How far the running long work has come: every long walk of the core holds the
    /// pager, so the counter lives here (`progress.rs`).
    progress: Progress,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    pub bytes: u64,
    /// Reads of in-memory nodes, not yet checkpointed (see `Pager::memory_reads`).
    pub memory_reads: u64,
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
            memory_reads: AtomicU64::new(0),
            corruption,
            progress: Progress::default(),
        }
    }

    pub fn progress(&self) -> &Progress {
        &self.progress
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
            memory_reads: self.memory_reads.load(Ordering::Relaxed),
        }
    }

    /// Counts a read of a node still in memory (`btree::load`), which no cache serves.
    pub fn note_memory_read(&self) {
        self.memory_reads.fetch_add(1, Ordering::Relaxed);
    }

    /// `pages` slots for pages about to be written (not necessarily consecutive).
    fn allocate(books: &mut SpaceMap, pages: u64) -> Result<Vec<u64>> {
        let mut out = Vec::with_capacity(pages as usize);
        for _ in 0..pages {
            match books.allocate() {
                Some(page) => {
                    assert!(page >= META_SLOTS && page < books.tip(), "an allocated slot exists and is no meta slot");
                    assert_eq!(books.count(page), 0, "a new slot is unreferenced until its referrer is written");
                    out.push(page);
                }
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

    /// Loads the page at `loc` decoded as a `T`, through the cache, verifying that the
    /// slot is within the file, intact, and the version its referrer recorded.
    pub fn load<T: DecodedPage>(&self, loc: DiskLoc) -> Result<Arc<T>> {
        if let Some(page) = self.cache.lock().expect("cache lock").get(loc) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(page.downcast::<T>().expect("a slot is cached as the type it is read as"));
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let decoded = Arc::new(self.read_page(loc).and_then(T::decode).map_err(|e| self.report(e))?);
        self.cache(loc, decoded.clone());
        Ok(decoded)
    }

    /// Keeps a page just written, as its writer decoded it, so reading it back costs nothing.
    pub fn cache<T: DecodedPage>(&self, loc: DiskLoc, decoded: Arc<T>) {
        let bytes = decoded.memory_bytes() + cache::ENTRY_BYTES;
        self.cache.lock().expect("cache lock").insert(loc, decoded, bytes);
    }

    fn read_page(&self, loc: DiskLoc) -> Result<Page> {
        if loc.page >= self.page_count() {
            return Err(Error::Corrupted { page: loc.page, kind: CorruptionKind::Tree });
        }
        let page = self.file.read(loc.page)?;
        if page.checksum != loc.checksum {
            return Err(Error::Corrupted { page: loc.page, kind: CorruptionKind::Stale });
        }
        assert_eq!(page.page_no, loc.page, "a slot that verifies is the page asked for");
        Ok(page)
    }

    /// Writes one page into a new slot of `books`, through `sink`; returns where it is.
    /// Counting the references it holds, and to it, is the caller's.
    pub fn write_page(&self, books: &mut SpaceMap, sink: &mut dyn PageSink, page_type: PageType, payload: &[u8], lsn: u64) -> Result<DiskLoc> {
        assert!(page_type != PageType::Meta, "a meta record is published, never allocated a slot");
        let [page] = Pager::allocate(books, 1)?[..] else { unreachable!("one slot was asked for") };
        let slot = page::encode(page, lsn, page_type, payload)?;
        sink.put(page, &slot).inspect_err(|_| books.unallocate(page))?;
        Ok(DiskLoc { page, checksum: page::slot_checksum(&slot) })
    }

    /// Writes a large value to a chain of overflow pages, through `sink`; returns the
    /// chain as its referrer records it and the chain's slots (the first is referenced
    /// by that referrer, each other by the one before it: the caller counts them).
    pub fn write_overflow(&self, books: &mut SpaceMap, sink: &mut dyn PageSink, bytes: &[u8], lsn: u64) -> Result<(OverflowChain, Vec<u64>)> {
        let pages = Pager::allocate(books, overflow_pages(bytes.len()))?;
        let chain = overflow::write(sink, &pages, bytes, lsn).inspect_err(|_| Pager::unallocate(books, &pages))?;
        assert_eq!(chain.first_page, pages[0], "a chain starts at its first slot");
        Ok((chain, pages))
    }

    /// The bytes of a large value, verified whole against the hash its referrer recorded.
    pub fn read_overflow(&self, chain: OverflowChain) -> Result<Vec<u8>> {
        overflow::read(&self.file, self.page_count(), chain, None).map_err(|e| self.report(e))
    }

    /// The slots of a large value's chain, in order, after verifying the value whole
    /// against the hash its referrer recorded (so a stale page never names the wrong slots).
    pub fn overflow_chain(&self, first_page: u64, len: u32, hash: u64) -> Result<Vec<u64>> {
        let mut pages = Vec::new();
        let chain = OverflowChain { first_page, len, hash };
        overflow::read(&self.file, self.page_count(), chain, Some(&mut pages)).map_err(|e| self.report(e))?;
        Ok(pages)
    }

    pub fn sync(&self) -> Result<()> {
        self.file.sync()
    }
}
