//! Point operations: get, put and delete, by path copying. Nodes split in two when
//! their encoding outgrows a page; emptied nodes are removed and a root branch with a
//! single child collapses. Underfull nodes are not merged: compaction repacks a tree.

use super::loaded::load;
use super::node::{Key, Node, NodeRef, TreeRoot, Value, NODE_BYTES_MAX};
use crate::error::Result;
use crate::pager::Pager;

/// Index of the child of a branch that may hold `key`.
pub(super) fn child_index(keys: &[Key], key: &[u8]) -> usize {
    keys.partition_point(|sep| sep.as_ref() <= key)
}

pub fn get(pager: &Pager, tree: &TreeRoot, key: &[u8]) -> Result<Option<Value>> {
    let Some(mut current) = tree.root.clone() else { return Ok(None) };
    loop {
        let node = load(pager, &current)?;
        match &*node {
            Node::Leaf(entries) => {
                return Ok(entries
                    .binary_search_by(|(k, _)| k.as_ref().cmp(key))
                    .ok()
                    .map(|i| entries[i].1.clone()));
            }
            Node::Branch { keys, children, .. } => current = children[child_index(keys, key)].clone(),
        }
    }
}

enum Grown {
    One(Node),
    Two(Node, Key, Node),
}

/// Inserts or replaces `key`. Returns the new root and the replaced value, if any.
pub fn put(pager: &Pager, tree: &TreeRoot, key: Key, value: Value, lsn: u64) -> Result<(TreeRoot, Option<Value>)> {
    let (grown, old) = match &tree.root {
        None => (Grown::One(Node::Leaf(vec![(key, value)])), None),
        Some(root) => insert(pager, root, key, value)?,
    };
    let root = match grown {
        Grown::One(node) => NodeRef::mem(node),
        Grown::Two(left, sep, right) => NodeRef::mem(Node::Branch {
            level: left.level() + 1,
            keys: vec![sep],
            children: vec![NodeRef::mem(left), NodeRef::mem(right)],
        }),
    };
    let count = tree.count + u64::from(old.is_none());
    Ok((TreeRoot { root: Some(root), count, lsn }, old))
}

fn insert(pager: &Pager, node: &NodeRef, key: Key, value: Value) -> Result<(Grown, Option<Value>)> {
    let loaded = load(pager, node)?;
    match &*loaded {
        Node::Leaf(entries) => {
            let mut entries = entries.clone();
            let old = match entries.binary_search_by(|(k, _)| k.as_ref().cmp(&key)) {
                Ok(i) => Some(std::mem::replace(&mut entries[i].1, value)),
                Err(i) => {
                    entries.insert(i, (key, value));
                    None
                }
            };
            Ok((split_if_needed(Node::Leaf(entries)), old))
        }
        Node::Branch { level, keys, children } => {
            let i = child_index(keys, &key);
            let (grown, old) = insert(pager, &children[i], key, value)?;
            let (mut keys, mut children) = (keys.clone(), children.clone());
            match grown {
                Grown::One(child) => children[i] = NodeRef::mem(child),
                Grown::Two(left, sep, right) => {
                    children[i] = NodeRef::mem(left);
                    children.insert(i + 1, NodeRef::mem(right));
                    keys.insert(i, sep);
                }
            }
            Ok((split_if_needed(Node::Branch { level: *level, keys, children }), old))
        }
    }
}

/// Splits a node that no longer fits a page at the point that best balances the two
/// halves' encoded sizes. Entry sizes are bounded (limits.rs) so both halves fit.
fn split_if_needed(node: Node) -> Grown {
    if node.encoded_bytes() <= NODE_BYTES_MAX {
        return Grown::One(node);
    }
    match node {
        Node::Leaf(mut entries) => {
            let sizes: Vec<usize> = entries.iter().map(|(k, v)| super::node::leaf_entry_bytes(k, v)).collect();
            let at = balanced_split(&sizes);
            let right = entries.split_off(at);
            let sep = right[0].0.clone();
            let (left, right) = (Node::Leaf(entries), Node::Leaf(right));
            assert!(left.encoded_bytes() <= NODE_BYTES_MAX && right.encoded_bytes() <= NODE_BYTES_MAX);
            Grown::Two(left, sep, right)
        }
        Node::Branch { level, mut keys, mut children } => {
            // Child i costs its 16-byte reference plus the separator before it.
            let sizes: Vec<usize> =
                (0..children.len()).map(|i| 16 + if i == 0 { 0 } else { 2 + keys[i - 1].len() }).collect();
            let at = balanced_split(&sizes).max(1);
            let right_children = children.split_off(at);
            let right_keys = keys.split_off(at);
            let sep = keys.pop().expect("a split branch has a separator at the cut");
            let left = Node::Branch { level, keys, children };
            let right = Node::Branch { level, keys: right_keys, children: right_children };
            assert!(left.encoded_bytes() <= NODE_BYTES_MAX && right.encoded_bytes() <= NODE_BYTES_MAX);
            Grown::Two(left, sep, right)
        }
    }
}

/// The cut 1..len that minimises the larger half.
fn balanced_split(sizes: &[usize]) -> usize {
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

enum Shrunk {
    Node(Node),
    Empty,
}

/// Removes `key`. Returns the new root and the removed value, or `None` when the key
/// was absent (the tree is unchanged).
pub fn delete(pager: &Pager, tree: &TreeRoot, key: &[u8], lsn: u64) -> Result<Option<(TreeRoot, Value)>> {
    let Some(root) = &tree.root else { return Ok(None) };
    let Some((shrunk, old)) = remove(pager, root, key)? else { return Ok(None) };
    let mut root = match shrunk {
        Shrunk::Empty => None,
        Shrunk::Node(node) => Some(NodeRef::mem(node)),
    };
    // A root branch with one child is replaced by that child, level by level.
    while let Some(current) = &root {
        let loaded = load(pager, current)?;
        match &*loaded {
            Node::Branch { children, .. } if children.len() == 1 => root = Some(children[0].clone()),
            _ => break,
        }
    }
    Ok(Some((TreeRoot { root, count: tree.count - 1, lsn }, old)))
}

fn remove(pager: &Pager, node: &NodeRef, key: &[u8]) -> Result<Option<(Shrunk, Value)>> {
    let loaded = load(pager, node)?;
    match &*loaded {
        Node::Leaf(entries) => {
            let Ok(i) = entries.binary_search_by(|(k, _)| k.as_ref().cmp(key)) else { return Ok(None) };
            let mut entries = entries.clone();
            let (_, old) = entries.remove(i);
            Ok(Some((if entries.is_empty() { Shrunk::Empty } else { Shrunk::Node(Node::Leaf(entries)) }, old)))
        }
        Node::Branch { level, keys, children } => {
            let i = child_index(keys, key);
            let Some((shrunk, old)) = remove(pager, &children[i], key)? else { return Ok(None) };
            let (mut keys, mut children) = (keys.clone(), children.clone());
            match shrunk {
                Shrunk::Node(child) => children[i] = NodeRef::mem(child),
                Shrunk::Empty => {
                    children.remove(i);
                    if !keys.is_empty() {
                        keys.remove(i.saturating_sub(1));
                    }
                }
            }
            if children.is_empty() {
                return Ok(Some((Shrunk::Empty, old)));
            }
            Ok(Some((Shrunk::Node(Node::Branch { level: *level, keys, children }), old)))
        }
    }
}
