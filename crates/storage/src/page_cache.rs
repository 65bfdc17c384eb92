//! A bounded LRU cache of decoded B-tree nodes, keyed by page number and checksum: a
//! slot reused for another node (free space, `space/`) never answers for the old one.
//! Its budget is in bytes of decoded nodes (docs/architecture.md, "Invariants", 7:
//! memory is bounded by configuration, not by data).

use std::collections::HashMap;
use std::sync::Arc;

use crate::btree::{DiskLoc, Node};

const NIL: usize = usize::MAX;

struct Entry {
    loc: DiskLoc,
    node: Arc<Node>,
    bytes: usize,
    prev: usize,
    next: usize,
}

/// O(1) get and insert: a hash map into a slab of entries threaded on a doubly linked
/// list, most recently used at the head.
pub struct PageCache {
    map: HashMap<DiskLoc, usize>,
    slab: Vec<Entry>,
    free: Vec<usize>,
    head: usize,
    tail: usize,
    bytes: usize,
    bytes_max: usize,
}

impl PageCache {
    pub fn new(bytes_max: usize) -> PageCache {
        PageCache { map: HashMap::new(), slab: Vec::new(), free: Vec::new(), head: NIL, tail: NIL, bytes: 0, bytes_max }
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn get(&mut self, loc: DiskLoc) -> Option<Arc<Node>> {
        let index = *self.map.get(&loc)?;
        self.unlink(index);
        self.push_front(index);
        Some(self.slab[index].node.clone())
    }

    pub fn insert(&mut self, loc: DiskLoc, node: Arc<Node>) {
        let bytes = node.memory_bytes();
        if let Some(&index) = self.map.get(&loc) {
            self.unlink(index);
            self.bytes -= self.slab[index].bytes;
            self.slab[index].node = node;
            self.slab[index].bytes = bytes;
            self.bytes += bytes;
            self.push_front(index);
        } else {
            let entry = Entry { loc, node, bytes, prev: NIL, next: NIL };
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
    }

    fn evict(&mut self, index: usize) {
        self.unlink(index);
        self.map.remove(&self.slab[index].loc);
        self.bytes -= self.slab[index].bytes;
        // Drop the node now rather than when the slot is reused.
        self.slab[index].node = Arc::new(Node::Leaf(Vec::new()));
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

    fn leaf(n: usize) -> Arc<Node> {
        let value = crate::btree::Value::Bytes(Arc::from(vec![0u8; n]));
        Arc::new(Node::Leaf(vec![(Arc::from(&b"k"[..]), value)]))
    }

    #[test]
    fn cache_stays_within_its_budget_and_evicts_least_recently_used() {
        let one = leaf(100).memory_bytes();
        let mut cache = PageCache::new(one * 3);
        for page in 0..3 {
            cache.insert(at(page), leaf(100));
        }
        assert!(cache.get(at(0)).is_some()); // 0 is now most recent; 1 is least
        cache.insert(at(3), leaf(100));
        assert!(cache.get(at(1)).is_none());
        assert!(cache.get(at(0)).is_some() && cache.get(at(2)).is_some() && cache.get(at(3)).is_some());
        assert!(cache.bytes() <= one * 3);
        for page in 10..1000 {
            cache.insert(at(page), leaf(100));
            assert!(cache.bytes() <= one * 3);
        }
    }

    #[test]
    fn a_reused_slot_never_answers_for_its_old_node() {
        let mut cache = PageCache::new(1 << 20);
        cache.insert(DiskLoc { page: 7, checksum: 1 }, leaf(10));
        assert!(cache.get(DiskLoc { page: 7, checksum: 2 }).is_none());
        assert!(cache.get(DiskLoc { page: 7, checksum: 1 }).is_some());
    }
}
