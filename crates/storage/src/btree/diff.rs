//! The difference between two versions of a tree, at a cost that grows with the
//! changes, not the tree: subtrees the two versions share (the same page, or the same
//! in-memory node) are skipped without being read.
//!
//! The walk keeps a frontier of nodes on each side. Nodes present on both sides are
//! dropped; then every remaining node of the highest level is replaced by its
//! children, so both sides are always compared level by level (a node of B's level
//! L−1 can only match a node of A's level L−1). When only leaves remain, their entries
//! are merged by key. A split or a new root costs only the nodes it changed.

use std::collections::HashMap;
use std::sync::Arc;

use super::loaded::load;
use super::node::{Key, Node, NodeRef, TreeRoot, Value};
use crate::checksum::checksum;
use crate::error::Result;
use crate::pager::Pager;

#[derive(Debug, Clone)]
pub enum DiffEntry {
    Added { key: Key, value: Value },
    Removed { key: Key, value: Value },
    Changed { key: Key, before: Value, after: Value },
}

/// Identity of a node: its page once written, or its address while in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum NodeId {
    Page(u64),
    Mem(usize),
}

fn id(node: &NodeRef) -> NodeId {
    match (node.disk_loc(), node) {
        (Some(loc), _) => NodeId::Page(loc.page),
        (None, NodeRef::Mem(mem)) => NodeId::Mem(Arc::as_ptr(mem) as usize),
        (None, NodeRef::Disk(loc)) => NodeId::Page(loc.page),
    }
}

/// Up to `limit` differences from `a` to `b`, in key order; `true` when more exist.
pub fn diff(pager: &Pager, a: &TreeRoot, b: &TreeRoot, limit: usize) -> Result<(Vec<DiffEntry>, bool)> {
    let mut left: Vec<NodeRef> = a.root.iter().cloned().collect();
    let mut right: Vec<NodeRef> = b.root.iter().cloned().collect();
    loop {
        drop_shared(&mut left, &mut right);
        let top = max_level(pager, &left)?.max(max_level(pager, &right)?);
        if top == 0 {
            break;
        }
        left = expand(pager, left, top)?;
        right = expand(pager, right, top)?;
    }
    merge(leaf_entries(pager, &left)?, leaf_entries(pager, &right)?, limit)
}

fn drop_shared(left: &mut Vec<NodeRef>, right: &mut Vec<NodeRef>) {
    let mut counts: HashMap<NodeId, usize> = HashMap::new();
    for node in left.iter() {
        *counts.entry(id(node)).or_default() += 1;
    }
    let mut shared: HashMap<NodeId, usize> = HashMap::new();
    right.retain(|node| match counts.get_mut(&id(node)) {
        Some(n) if *n > 0 => {
            *n -= 1;
            *shared.entry(id(node)).or_default() += 1;
            false
        }
        _ => true,
    });
    left.retain(|node| match shared.get_mut(&id(node)) {
        Some(n) if *n > 0 => {
            *n -= 1;
            false
        }
        _ => true,
    });
}

fn max_level(pager: &Pager, nodes: &[NodeRef]) -> Result<u8> {
    let mut top = 0;
    for node in nodes {
        top = top.max(load(pager, node)?.level());
    }
    Ok(top)
}

fn expand(pager: &Pager, nodes: Vec<NodeRef>, level: u8) -> Result<Vec<NodeRef>> {
    let mut out = Vec::with_capacity(nodes.len());
    for node in nodes {
        match &*load(pager, &node)? {
            Node::Branch { level: l, children, .. } if *l == level => out.extend(children.iter().cloned()),
            _ => out.push(node),
        }
    }
    Ok(out)
}

fn leaf_entries(pager: &Pager, leaves: &[NodeRef]) -> Result<Vec<(Key, Value)>> {
    let mut entries = Vec::new();
    for leaf in leaves {
        if let Node::Leaf(items) = &*load(pager, leaf)? {
            entries.extend(items.iter().cloned());
        }
    }
    entries.sort_by(|x, y| x.0.cmp(&y.0));
    Ok(entries)
}

fn merge(a: Vec<(Key, Value)>, b: Vec<(Key, Value)>, limit: usize) -> Result<(Vec<DiffEntry>, bool)> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let entry = match (a.get(i), b.get(j)) {
            (Some((ka, va)), Some((kb, vb))) if ka == kb => {
                i += 1;
                j += 1;
                if same_value(va, vb) {
                    continue;
                }
                DiffEntry::Changed { key: ka.clone(), before: va.clone(), after: vb.clone() }
            }
            (Some((ka, va)), Some((kb, _))) if ka < kb => {
                i += 1;
                DiffEntry::Removed { key: ka.clone(), value: va.clone() }
            }
            (Some((ka, va)), None) => {
                i += 1;
                DiffEntry::Removed { key: ka.clone(), value: va.clone() }
            }
            (_, Some((kb, vb))) => {
                j += 1;
                DiffEntry::Added { key: kb.clone(), value: vb.clone() }
            }
            (None, None) => unreachable!("the loop condition keeps one side"),
        };
        if out.len() == limit {
            return Ok((out, true));
        }
        out.push(entry);
    }
    Ok((out, false))
}

/// Values are equal by content, whether in memory or already in overflow pages.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Bytes(x), Value::Bytes(y)) => x == y,
        (Value::Overflow { len: lx, hash: hx, .. }, Value::Overflow { len: ly, hash: hy, .. }) => lx == ly && hx == hy,
        (Value::Bytes(x), Value::Overflow { len, hash, .. }) | (Value::Overflow { len, hash, .. }, Value::Bytes(x)) => {
            x.len() == *len as usize && checksum(x) == *hash
        }
        // Subtrees as values (root sets): equal only when they are the same tree.
        (Value::Tree(x), Value::Tree(y)) => match (&x.root, &y.root) {
            (Some(p), Some(q)) => id(p) == id(q),
            (None, None) => true,
            _ => false,
        },
        _ => false,
    }
}
