//! B-tree nodes in memory. Nodes are immutable once anyone else can reach them: a
//! change copies the path from the root to the changed leaf (copy-on-write), so any
//! number of versions share their unchanged subtrees and a reader holding an old root
//! sees it unchanged. Only a node owned by nothing but the change being made (its
//! `Arc` has one owner) is changed in place: see `ops.rs`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::page::DiskLoc;
use crate::limits::PAGE_BYTES;
use crate::page::PAGE_HEADER_BYTES;

/// A key or value handed out of a tree: a shared slice, cheap to clone.
pub use bytes::Bytes;

pub use super::keys::Keys;
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

/// What the allocator adds to each allocation (glibc: a size word, and rounding to 16).
pub const ALLOCATION_BYTES: usize = 16;

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

    /// Bytes of memory the node holds, as decoded from its page, for the page cache's
    /// budget (docs/architecture.md, "Invariants", 7): the node in its `Arc`, its
    /// buffers as allocated, and for a leaf the page its inline values are slices of.
    /// Counting the page alone held a leaf of short entries at a third of its memory
    /// (a value's slot and a key's head and end weigh more than such an entry's bytes),
    /// and a cache of P12's rows at 2.3 times its budget (docs/performance.md, P12);
    /// `crates/storage/tests/cache_memory.rs` holds a scan to the budget.
    pub fn memory_bytes(&self) -> usize {
        let node = ALLOCATION_BYTES + 2 * std::mem::size_of::<usize>() + std::mem::size_of::<Node>();
        match self {
            Node::Leaf(leaf) => {
                let page = ALLOCATION_BYTES + self.encoded_bytes();
                let values = ALLOCATION_BYTES + leaf.values.capacity() * std::mem::size_of::<Value>();
                node + page + values + 3 * ALLOCATION_BYTES + leaf.keys.heap_bytes()
            }
            Node::Branch(branch) => {
                let children = ALLOCATION_BYTES + branch.children.capacity() * std::mem::size_of::<NodeRef>();
                node + children + 3 * ALLOCATION_BYTES + branch.keys.heap_bytes()
            }
        }
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
