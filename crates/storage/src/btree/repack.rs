//! Repacking the leaves a commit built: after a commit's operations, consecutive leaves
//! that only this commit's working tree reaches (owned: see `ops.rs`) are refilled when
//! their entries fit in fewer of them. A batch of keys in no particular order splits
//! leaves in halves as it lands; this brings them back to about `REPACK_FILL_PERCENT`
//! full, as an ascending load leaves them, so a batched load does not leave a third of
//! every page empty. Leaves others can see are never touched, and two half-full leaves
//! that would only fill one to the brim are left as they are (the next insert would
//! split it again).
//!
//! The work is bounded by the nodes the commit owns: a branch the commit did not change
//! is not visited.

use std::sync::Arc;

use super::node::{leaf_entry_bytes, Branch, Keys, Leaf, Node, NodeRef, TreeRoot, LEAF_HEADER_BYTES, NODE_BYTES_MAX};
use crate::limits::REPACK_FILL_PERCENT;

/// Repacks the owned leaves of a tree the caller owns.
pub fn repack_owned(tree: &mut TreeRoot) {
    if let Some(root) = tree.root.as_mut() {
        repack_node(root);
    }
}

/// Returns whether anything under `slot` changed.
fn repack_node(slot: &mut NodeRef) -> bool {
    let NodeRef::Mem(mem) = slot else { return false };
    let Some(mem) = Arc::get_mut(mem) else { return false };
    let Node::Branch(Branch { level, keys, children }) = &mut mem.node else { return false };
    if *level > 1 {
        let mut changed = false;
        for child in children.iter_mut() {
            changed |= repack_node(child);
        }
        if changed {
            // A node whose child changed in place no longer encodes what a checkpoint wrote.
            mem.written.clear();
        }
        return changed;
    }
    let (mut i, before) = (0, children.len());
    while i < children.len() {
        let run = children[i..].iter().take_while(|c| owned_leaf(c)).count();
        if run >= 2 {
            i += repack_run(keys, children, i, run);
        } else {
            i += run.max(1);
        }
    }
    let changed = children.len() != before;
    if changed {
        // A node changed in place is no longer the one a checkpoint wrote.
        mem.written.clear();
    }
    changed
}

fn owned_leaf(node: &NodeRef) -> bool {
    matches!(node, NodeRef::Mem(mem) if Arc::strong_count(mem) == 1 && Arc::weak_count(mem) == 0 && matches!(mem.node, Node::Leaf(_)))
}

/// Refills `children[at..at + run]` (owned leaves) with their entries if fewer leaves
/// hold them; returns how many children now stand where the run stood.
fn repack_run(keys: &mut Keys, children: &mut Vec<NodeRef>, at: usize, run: usize) -> usize {
    let bytes: usize = children[at..at + run].iter().map(leaf_bytes).sum();
    let target = NODE_BYTES_MAX * REPACK_FILL_PERCENT / 100;
    let leaves = bytes.div_ceil(target - LEAF_HEADER_BYTES).max(1);
    if leaves >= run {
        return run;
    }
    let mut entries = Leaf::default();
    for child in &mut children[at..at + run] {
        let NodeRef::Mem(mem) = child else { unreachable!("a run holds owned leaves") };
        let Node::Leaf(own) = &mut Arc::get_mut(mem).expect("an owned leaf").node else { unreachable!("a run holds leaves") };
        entries.append(own);
    }
    debug_assert!(Node::Leaf(entries.clone()).is_ordered(), "the leaves of a run hold ascending keys end to end");
    // As many leaves as `leaves`, each about the same size.
    let per_leaf = bytes.div_ceil(leaves);
    let mut packed: Vec<Leaf> = Vec::with_capacity(leaves);
    let mut current = Leaf::default();
    let mut size = 0;
    for (key, value) in entries.keys.iter().zip(entries.values) {
        let entry_bytes = leaf_entry_bytes(key, &value);
        let over_page = LEAF_HEADER_BYTES + size + entry_bytes > NODE_BYTES_MAX;
        if !current.is_empty() && (over_page || (size >= per_leaf && packed.len() + 1 < leaves)) {
            packed.push(std::mem::take(&mut current));
            size = 0;
        }
        size += entry_bytes;
        current.push(key, value);
    }
    packed.push(current);
    let count = packed.len();
    assert!(count <= run, "repacking never adds leaves");
    assert!(packed.iter().all(|leaf| !leaf.is_empty()), "a repacked leaf holds entries");
    let separators = Keys::from_iter(packed[1..].iter().map(|leaf| leaf.keys.get(0)));
    let new_children: Vec<NodeRef> = packed.into_iter().map(|leaf| NodeRef::mem(Node::Leaf(leaf))).collect();
    children.splice(at..at + run, new_children);
    // The separators between the run's children are `keys[at..at + run - 1]`.
    keys.splice(at..at + run - 1, &separators);
    assert_eq!(keys.len() + 1, children.len(), "a branch has one separator fewer than children after a repack");
    debug_assert!((1..keys.len()).all(|i| keys.get(i - 1) < keys.get(i)), "separators ascend after a repack");
    debug_assert!(children.iter().all(|c| !matches!(c, NodeRef::Mem(m) if m.node.encoded_bytes() > NODE_BYTES_MAX)));
    count
}

fn leaf_bytes(node: &NodeRef) -> usize {
    match node {
        NodeRef::Mem(mem) => mem.node.encoded_bytes() - LEAF_HEADER_BYTES,
        NodeRef::Disk(_) => unreachable!("a run holds leaves in memory"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::btree::node::{Bytes, Value};

    type Key = Vec<u8>;

    fn leaf(from: u32, count: u32) -> NodeRef {
        let mut leaf = Leaf::default();
        for i in from..from + count {
            leaf.push(format!("k{i:06}").as_bytes(), Value::Bytes(Bytes::from(vec![7u8; 100])));
        }
        NodeRef::mem(Node::Leaf(leaf))
    }

    fn branch(children: Vec<NodeRef>) -> TreeRoot {
        let keys = Keys::from_iter(children[1..].iter().map(|c| match c {
            NodeRef::Mem(m) => match &m.node {
                Node::Leaf(e) => e.keys.get(0),
                _ => unreachable!(),
            },
            _ => unreachable!(),
        }));
        TreeRoot { root: Some(NodeRef::mem(Node::Branch(Branch { level: 1, keys, children }))), count: 0, lsn: 0 }
    }

    fn leaves(tree: &TreeRoot) -> Vec<Vec<Key>> {
        let NodeRef::Mem(root) = tree.root.as_ref().unwrap() else { unreachable!() };
        let Node::Branch(Branch { keys, children, .. }) = &root.node else { unreachable!() };
        let out: Vec<Vec<Key>> = children
            .iter()
            .map(|c| match c {
                NodeRef::Mem(m) => match &m.node {
                    Node::Leaf(e) => e.keys.iter().map(|k| k.to_vec()).collect(),
                    _ => unreachable!(),
                },
                _ => unreachable!(),
            })
            .collect();
        for (i, key) in keys.iter().enumerate() {
            assert!(out[i].iter().all(|k| &k[..] < key) && out[i + 1].iter().all(|k| &k[..] >= key), "separator {i} separates");
        }
        out
    }

    #[test]
    fn half_full_owned_leaves_are_refilled_in_order() {
        // Six leaves of 12 entries (~1.4 KiB each, a third of a page): two leaves hold them.
        let mut tree = branch((0..6).map(|i| leaf(i * 12, 12)).collect());
        repack_owned(&mut tree);
        let after = leaves(&tree);
        assert!(after.len() < 6, "{} leaves", after.len());
        let all: Vec<Key> = after.into_iter().flatten().collect();
        let want: Vec<Key> = (0..72).map(|i| format!("k{i:06}").into_bytes()).collect();
        assert_eq!(all, want, "every entry, in order");
    }

    #[test]
    fn two_leaves_that_would_fill_one_to_the_brim_stay() {
        let mut tree = branch(vec![leaf(0, 17), leaf(17, 17)]);
        repack_owned(&mut tree);
        assert_eq!(leaves(&tree).len(), 2);
    }

    #[test]
    fn a_leaf_someone_else_holds_is_never_touched() {
        let shared = leaf(12, 12);
        let keep = shared.clone();
        let mut tree = branch(vec![leaf(0, 12), shared, leaf(24, 12), leaf(36, 12)]);
        repack_owned(&mut tree);
        let after = leaves(&tree);
        assert!(after.iter().any(|l| l.len() == 12 && l[0] == b"k000012"), "the shared leaf stands: {after:?}");
        drop(keep);
    }
}
