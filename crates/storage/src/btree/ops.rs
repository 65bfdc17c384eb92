//! Point operations: get, put and delete. Nodes split in two when their encoding
//! outgrows a page; emptied nodes are removed and a root branch with a single child
//! collapses. Underfull nodes are not merged: compaction repacks a tree.
//!
//! # Copy-on-write, and changing in place what nobody else can see
//!
//! A node reachable from a version that anyone else holds (a published version, a
//! snapshot, a pin, another tree after a copy) is never changed: a change copies it,
//! and its parent is changed to point at the copy, up to the root. But a node built by
//! the change being made (the caller's own working copy of a tree, see `versions/version.rs`)
//! is reachable only through that working copy: then its `Arc` has exactly one owner,
//! and it is changed in place (`node_mut`, the `Arc::make_mut` rule). So a commit of
//! many puts copies each node at most once, however many of its puts land there.
//!
//! Why it is safe: a node is referenced by one parent slot per node or root that
//! holds it. `Arc::get_mut` succeeds only when the count is one, and the caller holds
//! `&mut` to that one slot, whose node was itself reached by `&mut` from the caller's
//! `&mut TreeRoot`. So no reader, version or other thread can reach the node. A node a
//! checkpoint wrote is forgotten as written when changed (`MemNode::written`).
//!
//! `put_owned` and `delete_owned` change a root the caller owns. To change a tree
//! that others may hold, change a clone of its `TreeRoot`: the clone shares the root
//! node, so nothing of the old tree is owned alone, every node on the changed path is
//! copied and the old tree is left exactly as it was.
//!
//! # Appends
//!
//! A node of the right edge of a tree that overflows because a key larger than all
//! its keys was added is split with its left part as full as a page allows and the
//! new entry alone on the right (SQLite's "quick balance"), so ascending inserts
//! leave full pages instead of half-full ones. Other splits balance the two halves.

use std::sync::Arc;

use super::loaded::load;
use super::node::{leaf_entry_bytes, Branch, Keys, Leaf, Node, NodeRef, TreeRoot, Value, BRANCH_HEADER_BYTES, CHILD_REF_BYTES, LEAF_HEADER_BYTES, NODE_BYTES_MAX};
use crate::error::Result;
use crate::pager::Pager;

/// Index of the child of a branch that may hold `key`.
pub(super) fn child_index(keys: &Keys, key: &[u8]) -> usize {
    keys.upper_bound(key)
}

pub fn get(pager: &Pager, tree: &TreeRoot, key: &[u8]) -> Result<Option<Value>> {
    let Some(mut current) = tree.root.clone() else { return Ok(None) };
    loop {
        let node = load(pager, &current)?;
        match &*node {
            Node::Leaf(leaf) => return Ok(leaf.keys.search(key).ok().map(|i| leaf.values[i].clone())),
            Node::Branch(Branch { keys, children, .. }) => current = children[child_index(keys, key)].clone(),
        }
    }
}

/// The node behind `slot`, ready to change: in place when `slot` is its only owner
/// (see the module docs), else a fresh in-memory copy that replaces it in `slot`.
fn node_mut<'a>(pager: &Pager, slot: &'a mut NodeRef) -> Result<&'a mut Node> {
    let owned = match slot {
        NodeRef::Mem(mem) => Arc::get_mut(mem).is_some(),
        NodeRef::Disk(_) => false,
    };
    if !owned {
        let copy = Node::clone(&*load(pager, slot)?);
        *slot = NodeRef::mem(copy);
    }
    let NodeRef::Mem(mem) = slot else { unreachable!("a changed node lives in memory") };
    let mem = Arc::get_mut(mem).expect("the node was just made unique");
    if mem.written.get().is_some() {
        // Its page holds the node as it was: a later checkpoint must write it again.
        mem.written.clear();
    }
    assert!(mem.written.get().is_none(), "a node about to change is not marked written");
    Ok(&mut mem.node)
}

/// Inserts or replaces `key` in a tree the caller owns, changing in place the nodes
/// that only `tree` reaches and copying the others. Returns the replaced value.
pub fn put_owned(pager: &Pager, tree: &mut TreeRoot, key: &[u8], value: Value, lsn: u64) -> Result<Option<Value>> {
    let old = match &mut tree.root {
        None => {
            tree.root = Some(NodeRef::mem(Node::Leaf(Leaf::one(key, value))));
            None
        }
        Some(root) => {
            let (split, old) = insert(pager, root, key, value, true)?;
            if let Some((sep, right)) = split {
                let left = tree.root.take().expect("the root just split");
                let level = load(pager, &left)?.level() + 1;
                assert_eq!(load(pager, &right)?.level() + 1, level, "the halves of a split share their level");
                tree.root = Some(NodeRef::mem(Node::Branch(Branch { level, keys: Keys::from_iter([&sep[..]]), children: vec![left, right] })));
            }
            old
        }
    };
    tree.count += u64::from(old.is_none());
    tree.lsn = lsn;
    Ok(old)
}

/// A new right sibling (its separator and node) when a node split.
type Split = Option<(Vec<u8>, NodeRef)>;

/// `right_edge`: `slot` is the last node of its level (every ancestor took its last child).
fn insert(pager: &Pager, slot: &mut NodeRef, key: &[u8], value: Value, right_edge: bool) -> Result<(Split, Option<Value>)> {
    let node = node_mut(pager, slot)?;
    let (old, append) = match node {
        Node::Leaf(leaf) => match leaf.keys.search(key) {
            Ok(i) => (Some(std::mem::replace(&mut leaf.values[i], value)), false),
            Err(i) => {
                let append = i == leaf.len();
                leaf.insert(i, key, value);
                // O(1) here; the whole node is checked in debug builds below.
                assert!(i == 0 || leaf.keys.get(i - 1) < leaf.keys.get(i), "an inserted key is above its left neighbour");
                assert!(append || leaf.keys.get(i) < leaf.keys.get(i + 1), "an inserted key is below its right neighbour");
                (None, append)
            }
        },
        Node::Branch(Branch { keys, children, .. }) => {
            let i = child_index(keys, key);
            let last = i + 1 == children.len();
            let (split, old) = insert(pager, &mut children[i], key, value, right_edge && last)?;
            let Some((sep, right)) = split else { return Ok((None, old)) };
            children.insert(i + 1, right);
            keys.insert(i, &sep);
            assert_eq!(keys.len() + 1, children.len(), "a branch has one separator fewer than children");
            (old, last)
        }
    };
    debug_assert!(node.is_ordered(), "keys ascend within a node after an insert");
    let split = split_if_needed(node, right_edge && append);
    debug_assert!(node.is_ordered(), "keys ascend within a node after a split");
    Ok((split, old))
}

/// Splits a node that no longer fits a page, leaving the left part in place and
/// returning the right one. Entry sizes are bounded (limits.rs) so both halves fit.
/// `append`: the node grew at its end on the right edge of the tree; the left part
/// is then left as full as it fits (see the module docs), else the cut balances the
/// two halves' encoded sizes.
fn split_if_needed(node: &mut Node, append: bool) -> Split {
    if node.encoded_bytes() <= NODE_BYTES_MAX {
        return None;
    }
    let (sep, right) = match node {
        Node::Leaf(leaf) => {
            let sizes: Vec<usize> = leaf.entries().map(|(k, v)| leaf_entry_bytes(k, v)).collect();
            let at = cut(&sizes, LEAF_HEADER_BYTES, append);
            let right = leaf.split_off(at);
            let left_last = leaf.keys.last().expect("a cut leaves entries on the left");
            let right_first = right.keys.get(0);
            assert!(left_last < right_first, "a leaf splits between two ascending keys");
            (right_first.to_vec(), Node::Leaf(right))
        }
        Node::Branch(Branch { level, keys, children }) => {
            // Child i costs its 16-byte reference plus the separator before it.
            let sizes: Vec<usize> = (0..children.len())
                .map(|i| CHILD_REF_BYTES + if i == 0 { 0 } else { 2 + keys.get(i - 1).len() })
                .collect();
            let at = cut(&sizes, BRANCH_HEADER_BYTES, append);
            let right_children = children.split_off(at);
            let right_keys = keys.split_off(at);
            let sep = keys.pop().expect("a split branch has a separator at the cut");
            assert!(keys.last().is_none_or(|k| k < &sep[..]) && right_keys.first().is_none_or(|k| &sep[..] < k), "a branch splits at a separator between its halves' keys");
            assert!(keys.len() + 1 == children.len() && right_keys.len() + 1 == right_children.len(), "each half of a branch has one separator fewer than children");
            (sep, Node::Branch(Branch { level: *level, keys: right_keys, children: right_children }))
        }
    };
    // Paired with `write_node` (`node_io.rs`), which asserts again that what it writes fits.
    assert!(node.encoded_bytes() <= NODE_BYTES_MAX, "the left half of a split fits its page");
    assert!(right.encoded_bytes() <= NODE_BYTES_MAX, "the right half of a split fits its page");
    assert!(!node.is_empty() && !right.is_empty(), "neither half of a split is empty");
    Some((sep, NodeRef::mem(right)))
}

/// Where to cut a node whose parts cost `sizes` (plus `header` bytes each): a cut in
/// 1..len. `fill_left`: the last cut whose left part fits; else the cut that
/// minimises the larger half.
fn cut(sizes: &[usize], header: usize, fill_left: bool) -> usize {
    let at = cut_at(sizes, header, fill_left);
    assert!((1..sizes.len()).contains(&at), "a cut leaves parts on both sides");
    at
}

fn cut_at(sizes: &[usize], header: usize, fill_left: bool) -> usize {
    assert!(sizes.len() >= 2, "only a node of two parts or more is cut");
    if fill_left {
        let mut left = header;
        for (i, size) in sizes.iter().enumerate().take(sizes.len() - 1) {
            left += size;
            if left > NODE_BYTES_MAX {
                return i.max(1);
            }
        }
        return sizes.len() - 1;
    }
    let total: usize = sizes.iter().sum();
    let mut left = 0;
    let mut best = (usize::MAX, 1);
    for (i, size) in sizes.iter().enumerate().take(sizes.len() - 1) {
        left += size;
        let worst = left.max(total - left);
        if worst < best.0 {
            best = (worst, i + 1);
        }
    }
    best.1
}

/// Removes `key` from a tree the caller owns (see `put_owned`). Returns the removed
/// value; when the key was absent nothing is copied or changed.
pub fn delete_owned(pager: &Pager, tree: &mut TreeRoot, key: &[u8], lsn: u64) -> Result<Option<Value>> {
    // Look first, so a delete of an absent key copies nothing.
    if get(pager, tree, key)?.is_none() {
        return Ok(None);
    }
    let root = tree.root.as_mut().expect("a tree holding the key has a root");
    let (old, emptied) = remove(pager, root, key)?;
    if emptied {
        tree.root = None;
    }
    // A root branch with one child is replaced by that child, level by level.
    while let Some(current) = &tree.root {
        let only = match &*load(pager, current)? {
            Node::Branch(Branch { children, .. }) if children.len() == 1 => children[0].clone(),
            _ => break,
        };
        tree.root = Some(only);
    }
    tree.count -= 1;
    tree.lsn = lsn;
    Ok(Some(old))
}

/// Removes `key`, known to be present. Returns the value and whether the node is now
/// empty (its parent then drops it).
fn remove(pager: &Pager, slot: &mut NodeRef, key: &[u8]) -> Result<(Value, bool)> {
    let node = node_mut(pager, slot)?;
    match node {
        Node::Leaf(leaf) => {
            let i = leaf.keys.search(key).expect("the key was found before removing");
            let old = leaf.remove(i);
            debug_assert!(node.is_ordered(), "keys ascend within a node after a delete");
            Ok((old, node.is_empty()))
        }
        Node::Branch(Branch { keys, children, .. }) => {
            let i = child_index(keys, key);
            let (old, emptied) = remove(pager, &mut children[i], key)?;
            if emptied {
                children.remove(i);
                if !keys.is_empty() {
                    keys.remove(i.saturating_sub(1));
                }
            }
            assert!(children.is_empty() || keys.len() + 1 == children.len(), "a branch has one separator fewer than children");
            debug_assert!(node.is_ordered() || node.is_empty(), "keys ascend within a node after a delete");
            Ok((old, node.is_empty()))
        }
    }
}
