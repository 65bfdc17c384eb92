//! The difference between two versions of a tree, at a cost that grows with the
//! changes, not the tree: subtrees the two versions share (the same page, or the same
//! in-memory node) are skipped without being read.
//!
//! Two versions of a branch with the same separators (the common case: a change copies
//! the path above it but keeps its shape) are compared child by child, which costs a
//! comparison of page numbers per child and reads only the children that differ.
//! Where the shapes differ (a split, a removed leaf, a new root), a frontier walk takes
//! over for that subtree: nodes present on both sides are dropped, then every
//! remaining node of the highest level is replaced by its children, so both sides are
//! compared level by level; when only leaves remain, their entries are merged by key.

use std::collections::HashMap;
use std::sync::Arc;

use super::loaded::load;
use super::node::{Branch, Bytes, Key, Node, NodeRef, TreeRoot, Value};
use crate::encoding::checksum;
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
    let mut out = Vec::new();
    match (&a.root, &b.root) {
        (Some(x), Some(y)) => pair(pager, x, y, limit, &mut out)?,
        _ => out = frontier(pager, a.root.iter().cloned().collect(), b.root.iter().cloned().collect(), limit + 1)?.0,
    }
    let truncated = out.len() > limit;
    out.truncate(limit);
    Ok((out, truncated))
}

/// Appends the differences between two nodes covering the same key range, stopping
/// once more than `limit` are known.
fn pair(pager: &Pager, a: &NodeRef, b: &NodeRef, limit: usize, out: &mut Vec<DiffEntry>) -> Result<()> {
    if out.len() > limit || id(a) == id(b) {
        return Ok(());
    }
    let (x, y) = (load(pager, a)?, load(pager, b)?);
    if let (Node::Branch(Branch { level: la, keys: ka, children: ca }), Node::Branch(Branch { level: lb, keys: kb, children: cb })) = (&*x, &*y) {
        if la == lb && ka == kb {
            for (child_a, child_b) in ca.iter().zip(cb) {
                pair(pager, child_a, child_b, limit, out)?;
            }
            return Ok(());
        }
    }
    let (found, _) = frontier(pager, vec![a.clone()], vec![b.clone()], limit + 1 - out.len())?;
    out.extend(found);
    Ok(())
}

/// The general walk, for subtrees whose shapes differ.
fn frontier(pager: &Pager, mut left: Vec<NodeRef>, mut right: Vec<NodeRef>, limit: usize) -> Result<(Vec<DiffEntry>, bool)> {
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
            Node::Branch(Branch { level: l, children, .. }) if *l == level => out.extend(children.iter().cloned()),
            _ => out.push(node),
        }
    }
    Ok(out)
}

fn leaf_entries(pager: &Pager, leaves: &[NodeRef]) -> Result<Vec<(Key, Value)>> {
    let mut entries = Vec::new();
    for leaf in leaves {
        if let Node::Leaf(items) = &*load(pager, leaf)? {
            entries.extend(items.entries().map(|(key, value)| (Bytes::copy_from_slice(key), value.clone())));
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
