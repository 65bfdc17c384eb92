//! Building a tree from sorted entries, packing each node as full as a page allows.
//! Compaction uses it to copy a tree's live entries into fresh, dense nodes.

use super::node::{leaf_entry_bytes, Branch, Key, Keys, Leaf, Node, NodeRef, TreeRoot, Value, LEAF_HEADER_BYTES, NODE_BYTES_MAX};

/// Builds a tree from entries in strictly ascending key order.
pub fn build(entries: impl IntoIterator<Item = (Key, Value)>, lsn: u64) -> TreeRoot {
    let mut level: Vec<(Vec<u8>, NodeRef)> = Vec::new();
    let mut leaf = Leaf::default();
    let mut bytes = LEAF_HEADER_BYTES;
    let mut count = 0u64;
    for (key, value) in entries {
        debug_assert!(leaf.keys.last().is_none_or(|last| last < &key[..]), "bulk build needs ascending keys");
        let size = leaf_entry_bytes(&key, &value);
        if bytes + size > NODE_BYTES_MAX {
            assert!(!leaf.is_empty(), "one entry always fits a page (limits.rs)");
            let first = leaf.keys.get(0).to_vec();
            level.push((first, NodeRef::mem(Node::Leaf(std::mem::take(&mut leaf)))));
            bytes = LEAF_HEADER_BYTES;
        }
        bytes += size;
        assert!(bytes <= NODE_BYTES_MAX, "a bulk-built leaf fits its page");
        count += 1;
        leaf.push(&key, value);
    }
    if !leaf.is_empty() {
        let first = leaf.keys.get(0).to_vec();
        level.push((first, NodeRef::mem(Node::Leaf(leaf))));
    }
    let mut height = 0u8;
    while level.len() > 1 {
        height += 1;
        let below = level.len();
        level = pack_branches(level, height);
        assert!(level.len() < below, "each level of a bulk build has fewer nodes than the one below");
    }
    TreeRoot { root: level.pop().map(|(_, node)| node), count, lsn }
}

fn pack_branches(children: Vec<(Vec<u8>, NodeRef)>, level: u8) -> Vec<(Vec<u8>, NodeRef)> {
    let mut out = Vec::new();
    let mut first: Option<Vec<u8>> = None;
    let mut keys = Keys::default();
    let mut refs: Vec<NodeRef> = Vec::new();
    let mut bytes = 3;
    for (key, child) in children {
        let size = 16 + if refs.is_empty() { 0 } else { 2 + key.len() };
        if !refs.is_empty() && bytes + size > NODE_BYTES_MAX {
            let node = Node::Branch(Branch { level, keys: std::mem::take(&mut keys), children: std::mem::take(&mut refs) });
            out.push((first.take().expect("a branch has a first key"), NodeRef::mem(node)));
            bytes = 3;
        }
        if refs.is_empty() {
            first = Some(key);
            bytes += 16;
        } else {
            bytes += 2 + key.len();
            bytes += 16;
            keys.push(&key);
        }
        assert!(bytes <= NODE_BYTES_MAX, "a bulk-built branch fits its page");
        refs.push(child);
    }
    if !refs.is_empty() {
        out.push((first.expect("a branch has a first key"), NodeRef::mem(Node::Branch(Branch { level, keys, children: refs }))));
    }
    out
}
