//! B-tree nodes in memory. Nodes are immutable once anyone else can reach them: a
//! change copies the path from the root to the changed leaf (copy-on-write), so any
//! number of versions share their unchanged subtrees and a reader holding an old root
//! sees it unchanged. Only a node owned by nothing but the change being made (its
//! `Arc` has one owner) is changed in place: see `ops.rs`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::disk_loc::DiskLoc;
use crate::limits::PAGE_BYTES;
use crate::page::PAGE_HEADER_BYTES;

/// A key or value handed out of a tree: a shared slice, cheap to clone.
pub use bytes::Bytes;
pub type Key = Bytes;

/// Where a node lives: on disk (by page number and the checksum its slot must have,
/// so a stale or misdirected page is detected), or in memory (built since the last
/// checkpoint).
#[derive(Clone, Debug)]
pub enum NodeRef {
    Disk(DiskLoc),
    Mem(Arc<MemNode>),
}

#[derive(Debug)]
pub struct MemNode {
    pub node: Node,
    /// Set once a checkpoint has written this node; later checkpoints reuse the page.
    pub written: Written,
}

/// Where a checkpoint wrote a node in memory, if one did. Only checkpoints (one at a
/// time, under the checkpoint lock) set or clear it; anyone may read it. A checkpoint
/// that fails clears what it set, so its slots can be given back (`space/`).
#[derive(Debug, Default)]
pub struct Written {
    /// 0: not written (page 0 is a meta slot, never a node).
    page: AtomicU64,
    checksum: AtomicU64,
}

impl Written {
    pub fn get(&self) -> Option<DiskLoc> {
        let page = self.page.load(Ordering::Acquire);
        (page != 0).then(|| DiskLoc { page, checksum: self.checksum.load(Ordering::Relaxed) })
    }

    pub fn set(&self, loc: DiskLoc) {
        assert!(loc.page != 0, "a node is never written to a meta slot");
        assert_eq!(self.page.load(Ordering::Relaxed), 0, "a node is written once per checkpoint");
        self.checksum.store(loc.checksum, Ordering::Relaxed);
        self.page.store(loc.page, Ordering::Release);
    }

    pub fn clear(&self) {
        self.page.store(0, Ordering::Release);
    }
}

impl NodeRef {
    pub fn mem(node: Node) -> NodeRef {
        NodeRef::Mem(Arc::new(MemNode { node, written: Written::default() }))
    }

    /// The disk location if the node is on disk or was written by a checkpoint.
    pub fn disk_loc(&self) -> Option<DiskLoc> {
        match self {
            NodeRef::Disk(loc) => Some(*loc),
            NodeRef::Mem(mem) => mem.written.get(),
        }
    }
}

/// The root of one tree: its root node (none when empty), its entry count (kept on
/// every change, so row estimates need no scan), and the LSN of its last change.
#[derive(Clone, Debug, Default)]
pub struct TreeRoot {
    pub root: Option<NodeRef>,
    pub count: u64,
    pub lsn: u64,
}

#[derive(Clone, Debug)]
pub enum Value {
    /// Bytes held in the node (inline on disk, or not yet written). A node read from
    /// its page holds slices of that page's one buffer, not a copy per value.
    Bytes(Bytes),
    /// A large value already written to a chain of overflow pages.
    Overflow { first_page: u64, len: u32, hash: u64 },
    /// A whole tree as a value: the root set maps tree names to trees this way, and
    /// the pin table maps pin names to root sets.
    Tree(TreeRoot),
}

/// A node's keys end to end in one buffer, in ascending order, with where each ends.
/// A search is a binary search over offsets into that one allocation (as the page image
/// keeps them), not a pointer chase per key: every key its own heap allocation cost a
/// lookup dependent cache misses at each of its comparisons (docs/performance.md, P3).
/// Inserting or removing a key moves the bytes after it, at most a page's worth.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Keys {
    bytes: Vec<u8>,
    /// `ends[i]`: where key `i` ends in `bytes` (it starts where key `i - 1` ends).
    ends: Vec<u32>,
}

impl Keys {
    pub fn with_capacity(keys: usize, bytes: usize) -> Keys {
        Keys { bytes: Vec::with_capacity(bytes), ends: Vec::with_capacity(keys) }
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Bytes of all the keys together.
    pub fn total_bytes(&self) -> usize {
        self.bytes.len()
    }

    fn start(&self, i: usize) -> usize {
        if i == 0 { 0 } else { self.ends[i - 1] as usize }
    }

    pub fn get(&self, i: usize) -> &[u8] {
        &self.bytes[self.start(i)..self.ends[i] as usize]
    }

    pub fn first(&self) -> Option<&[u8]> {
        (!self.is_empty()).then(|| self.get(0))
    }

    pub fn last(&self) -> Option<&[u8]> {
        self.len().checked_sub(1).map(|i| self.get(i))
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &[u8]> + ExactSizeIterator + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// The index of `key`, or where it would be inserted (as `slice::binary_search`).
    pub fn search(&self, key: &[u8]) -> std::result::Result<usize, usize> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match compare(self.get(mid), key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(mid),
            }
        }
        Err(lo)
    }

    /// The number of keys `<= key`: in a branch, the index of the child that may hold it.
    pub fn upper_bound(&self, key: &[u8]) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if compare(self.get(mid), key).is_le() { lo = mid + 1 } else { hi = mid }
        }
        lo
    }

    /// The first index whose key `pred` refuses, all before it accepted (`pred` must
    /// hold of a prefix of the keys, as `slice::partition_point`).
    pub fn partition_point(&self, mut pred: impl FnMut(&[u8]) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(self.get(mid)) { lo = mid + 1 } else { hi = mid }
        }
        lo
    }

    pub fn push(&mut self, key: &[u8]) {
        self.bytes.extend_from_slice(key);
        self.ends.push(u32::try_from(self.bytes.len()).expect("a node's keys fit in u32 offsets"));
    }

    pub fn insert(&mut self, i: usize, key: &[u8]) {
        let at = self.start(i);
        self.bytes.splice(at..at, key.iter().copied());
        let len = key.len() as u32;
        for end in &mut self.ends[i..] {
            *end += len;
        }
        self.ends.insert(i, (at + key.len()) as u32);
    }

    pub fn remove(&mut self, i: usize) {
        let (start, end) = (self.start(i), self.ends[i] as usize);
        self.bytes.drain(start..end);
        self.ends.remove(i);
        let len = (end - start) as u32;
        for end in &mut self.ends[i..] {
            *end -= len;
        }
    }

    /// Removes and returns the last key.
    pub fn pop(&mut self) -> Option<Vec<u8>> {
        let i = self.len().checked_sub(1)?;
        let key = self.bytes.split_off(self.start(i));
        self.ends.pop();
        Some(key)
    }

    /// Keys `at..` move to the returned value.
    pub fn split_off(&mut self, at: usize) -> Keys {
        let cut = self.start(at);
        let bytes = self.bytes.split_off(cut);
        let ends = self.ends.split_off(at).into_iter().map(|end| end - cut as u32).collect();
        Keys { bytes, ends }
    }

    /// Appends `other`'s keys after these.
    pub fn append(&mut self, other: &Keys) {
        let base = self.bytes.len() as u32;
        self.bytes.extend_from_slice(&other.bytes);
        self.ends.extend(other.ends.iter().map(|end| end + base));
    }

    /// Replaces keys `range` by `with`.
    pub fn splice(&mut self, range: std::ops::Range<usize>, with: &Keys) {
        let mut tail = self.split_off(range.end);
        self.truncate(range.start);
        self.append(with);
        self.append(&std::mem::take(&mut tail));
    }

    fn truncate(&mut self, len: usize) {
        self.bytes.truncate(self.start(len));
        self.ends.truncate(len);
    }

    pub fn from_iter<'a>(keys: impl IntoIterator<Item = &'a [u8]>) -> Keys {
        let mut out = Keys::default();
        for key in keys {
            out.push(key);
        }
        out
    }
}

/// The byte order of two keys (`<[u8]>::cmp`), eight bytes at a time: keys are short,
/// and a call into `memcmp` per comparison cost more than the comparison.
#[inline]
pub fn compare(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let (mut x, mut y) = (a, b);
    while x.len() >= 8 && y.len() >= 8 {
        let (wx, wy) = (u64::from_be_bytes(x[..8].try_into().expect("8 bytes")), u64::from_be_bytes(y[..8].try_into().expect("8 bytes")));
        if wx != wy {
            return wx.cmp(&wy);
        }
        (x, y) = (&x[8..], &y[8..]);
    }
    x.cmp(y)
}

/// A leaf: keys in one buffer and their values beside them (`values[i]` is key `i`'s).
#[derive(Clone, Debug, Default)]
pub struct Leaf {
    pub keys: Keys,
    pub values: Vec<Value>,
}

impl Leaf {
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn one(key: &[u8], value: Value) -> Leaf {
        let mut leaf = Leaf::default();
        leaf.push(key, value);
        leaf
    }

    pub fn push(&mut self, key: &[u8], value: Value) {
        self.keys.push(key);
        self.values.push(value);
    }

    pub fn insert(&mut self, i: usize, key: &[u8], value: Value) {
        self.keys.insert(i, key);
        self.values.insert(i, value);
    }

    pub fn remove(&mut self, i: usize) -> Value {
        self.keys.remove(i);
        self.values.remove(i)
    }

    /// Entries `at..` move to the returned leaf.
    pub fn split_off(&mut self, at: usize) -> Leaf {
        Leaf { keys: self.keys.split_off(at), values: self.values.split_off(at) }
    }

    /// Moves `other`'s entries after these.
    pub fn append(&mut self, other: &mut Leaf) {
        self.keys.append(&other.keys);
        self.values.append(&mut other.values);
        other.keys = Keys::default();
    }

    /// The entries in key order.
    pub fn entries(&self) -> impl DoubleEndedIterator<Item = (&[u8], &Value)> + ExactSizeIterator + '_ {
        self.keys.iter().zip(self.values.iter())
    }

    /// The same keys with each value mapped.
    pub fn map_values<E>(&self, mut f: impl FnMut(&Value) -> std::result::Result<Value, E>) -> std::result::Result<Leaf, E> {
        Ok(Leaf { keys: self.keys.clone(), values: self.values.iter().map(&mut f).collect::<std::result::Result<_, E>>()? })
    }

    /// Bytes of the entries' encoding (`node_codec.rs`).
    pub fn entry_bytes(&self) -> usize {
        3 * self.len() + self.keys.total_bytes() + self.values.iter().map(value_bytes).sum::<usize>()
    }
}

/// A branch: `keys[i]` separates `children[i]` (keys < it) from `children[i + 1]`
/// (keys >= it).
#[derive(Clone, Debug)]
pub struct Branch {
    pub level: u8,
    pub keys: Keys,
    pub children: Vec<NodeRef>,
}

#[derive(Clone, Debug)]
pub enum Node {
    Leaf(Leaf),
    Branch(Branch),
}

/// Bytes available for a node in one page slot.
pub const NODE_BYTES_MAX: usize = PAGE_BYTES - PAGE_HEADER_BYTES;

impl Node {
    pub fn level(&self) -> u8 {
        match self {
            Node::Leaf(_) => 0,
            Node::Branch(branch) => branch.level,
        }
    }

    pub fn is_empty(&self) -> bool {
        match self {
            Node::Leaf(leaf) => leaf.is_empty(),
            Node::Branch(branch) => branch.children.is_empty(),
        }
    }

    /// Bytes of the node's on-disk encoding (see `node_codec.rs`).
    pub fn encoded_bytes(&self) -> usize {
        match self {
            Node::Leaf(leaf) => LEAF_HEADER_BYTES + leaf.entry_bytes(),
            Node::Branch(Branch { keys, children, .. }) => {
                BRANCH_HEADER_BYTES + children.len() * CHILD_REF_BYTES + 2 * keys.len() + keys.total_bytes()
            }
        }
    }

    /// Approximate bytes of memory held, for the page cache's budget.
    pub fn memory_bytes(&self) -> usize {
        64 + self.encoded_bytes()
    }

    /// Whether the node keeps its own order: keys strictly ascending and, in a branch,
    /// one separator fewer than children. O(n): for `debug_assert!` after a change (the
    /// decoder refuses a page that breaks it, as corruption: `node_codec.rs`).
    pub fn is_ordered(&self) -> bool {
        let ascending = |keys: &Keys| (1..keys.len()).all(|i| keys.get(i - 1) < keys.get(i));
        match self {
            Node::Leaf(leaf) => leaf.keys.len() == leaf.values.len() && ascending(&leaf.keys),
            Node::Branch(Branch { keys, children, .. }) => keys.len() + 1 == children.len() && ascending(keys),
        }
    }
}

pub const LEAF_HEADER_BYTES: usize = 3;
pub const BRANCH_HEADER_BYTES: usize = 3;
pub const CHILD_REF_BYTES: usize = 16;

pub fn leaf_entry_bytes(key: &[u8], value: &Value) -> usize {
    2 + 1 + key.len() + value_bytes(value)
}

pub fn value_bytes(value: &Value) -> usize {
    match value {
        Value::Bytes(bytes) if bytes.len() <= crate::limits::INLINE_VALUE_BYTES_MAX => 4 + bytes.len(),
        Value::Bytes(_) | Value::Overflow { .. } => OVERFLOW_REF_BYTES,
        Value::Tree(_) => TREE_REF_BYTES,
    }
}

pub const OVERFLOW_REF_BYTES: usize = 8 + 4 + 8;
pub const TREE_REF_BYTES: usize = 8 + 8 + 8 + 8;
