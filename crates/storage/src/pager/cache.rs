//! A bounded LRU cache of decoded pages, keyed by page number and checksum: a slot
//! reused for another page (free space, `space/`) never answers for the old one. What a
//! page decodes to is its reader's business (a B-tree node: `btree/node_io.rs`); the
//! cache holds it type-erased, with the bytes of memory the reader says it takes. Its
//! budget is in those bytes (docs/architecture.md, "Invariants", 7: memory is bounded by
//! configuration, not by data).

use std::any::Any;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use crate::page::DiskLoc;

/// A decoded page, of whatever type its reader decoded it to.
pub type Decoded = Arc<dyn Any + Send + Sync>;

const NIL: usize = usize::MAX;

struct Entry {
    loc: DiskLoc,
    /// None once evicted, so the page is dropped now rather than when the slot is reused.
    page: Option<Decoded>,
    bytes: usize,
    prev: usize,
    next: usize,
}

/// Hashes a `DiskLoc` by multiplying its words: every read of a page crosses this map,
/// and SipHash (the standard map's, built against keys an attacker chooses) was a fifth
/// of a cached point read's instructions (docs/performance.md, P3). A location is not
/// chosen by a client: its checksum is already a hash of the page.
#[derive(Default)]
struct LocHasher(u64);

impl Hasher for LocHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(29) ^ word).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 32)
    }
}

/// Bytes of the cache's own bookkeeping per page it holds, counted with the page
/// (`Pager::cache`): its slab entry and its slot in the map (a control byte each), up to
/// twice over, as both grow by doubling.
pub const ENTRY_BYTES: usize = 2 * (std::mem::size_of::<Entry>() + std::mem::size_of::<(DiskLoc, usize)>() + 1);

/// O(1) get and insert: a hash map into a slab of entries threaded on a doubly linked
/// list, most recently used at the head.
pub struct PageCache {
    map: HashMap<DiskLoc, usize, BuildHasherDefault<LocHasher>>,
    slab: Vec<Entry>,
    free: Vec<usize>,
    head: usize,
    tail: usize,
    bytes: usize,
    bytes_max: usize,
}

impl PageCache {
    pub fn new(bytes_max: usize) -> PageCache {
        PageCache { map: HashMap::default(), slab: Vec::new(), free: Vec::new(), head: NIL, tail: NIL, bytes: 0, bytes_max }
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn get(&mut self, loc: DiskLoc) -> Option<Decoded> {
        let index = *self.map.get(&loc)?;
        self.unlink(index);
        self.push_front(index);
        let page = self.slab[index].page.clone();
        assert!(page.is_some(), "a listed entry holds its page");
        page
    }

    /// Caches `page`, which holds about `bytes` of memory.
    pub fn insert(&mut self, loc: DiskLoc, page: Decoded, bytes: usize) {
        if let Some(&index) = self.map.get(&loc) {
            self.unlink(index);
            self.bytes -= self.slab[index].bytes;
            self.slab[index].page = Some(page);
            self.slab[index].bytes = bytes;
            self.bytes += bytes;
            self.push_front(index);
        } else {
            let entry = Entry { loc, page: Some(page), bytes, prev: NIL, next: NIL };
            let index = match self.free.pop() {
                Some(index) => {
                    self.slab[index] = entry;
                    index
                }
                None => {
                    self.slab.push(entry);
                    self.slab.len() - 1
                }
            };
            self.map.insert(loc, index);
            self.bytes += bytes;
            self.push_front(index);
        }
        while self.bytes > self.bytes_max && self.tail != NIL && self.tail != self.head {
            self.evict(self.tail);
        }
        // Only the entry just inserted may stand over the budget, alone.
        assert!(self.bytes <= self.bytes_max || self.head == self.tail, "the cache keeps to its budget");
        assert_eq!(self.map.len() + self.free.len(), self.slab.len(), "every slab entry is listed or free");
    }

    fn evict(&mut self, index: usize) {
        self.unlink(index);
        self.map.remove(&self.slab[index].loc);
        self.bytes -= self.slab[index].bytes;
        self.slab[index].page = None;
        self.free.push(index);
    }

    fn unlink(&mut self, index: usize) {
        let (prev, next) = (self.slab[index].prev, self.slab[index].next);
        if prev == NIL { self.head = next } else { self.slab[prev].next = next }
        if next == NIL { self.tail = prev } else { self.slab[next].prev = prev }
    }

    fn push_front(&mut self, index: usize) {
        self.slab[index].prev = NIL;
        self.slab[index].next = self.head;
        if self.head != NIL {
            self.slab[self.head].prev = index;
        }
        self.head = index;
        if self.tail == NIL {
            self.tail = index;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(page: u64) -> DiskLoc {
        DiskLoc { page, checksum: page ^ 0x5555 }
    }

    /// A decoded page of `n` bytes (a byte buffer stands for a node).
    fn page(n: usize) -> (Decoded, usize) {
        (Arc::new(vec![0u8; n]), n)
    }

    fn put(cache: &mut PageCache, loc: DiskLoc, n: usize) {
        let (page, bytes) = page(n);
        cache.insert(loc, page, bytes);
    }

    #[test]
    fn cache_stays_within_its_budget_and_evicts_least_recently_used() {
        let one = 100;
        let mut cache = PageCache::new(one * 3);
        for page in 0..3 {
            put(&mut cache, at(page), one);
        }
        assert!(cache.get(at(0)).is_some()); // 0 is now most recent; 1 is least
        put(&mut cache, at(3), one);
        assert!(cache.get(at(1)).is_none());
        assert!(cache.get(at(0)).is_some() && cache.get(at(2)).is_some() && cache.get(at(3)).is_some());
        assert!(cache.bytes() <= one * 3);
        for page in 10..1000 {
            put(&mut cache, at(page), one);
            assert!(cache.bytes() <= one * 3);
        }
    }

    #[test]
    fn a_reused_slot_never_answers_for_its_old_node() {
        let mut cache = PageCache::new(1 << 20);
        put(&mut cache, DiskLoc { page: 7, checksum: 1 }, 10);
        assert!(cache.get(DiskLoc { page: 7, checksum: 2 }).is_none());
        assert!(cache.get(DiskLoc { page: 7, checksum: 1 }).is_some());
    }
}
