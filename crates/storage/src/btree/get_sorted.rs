//! Many point reads of one tree at once, for keys in ascending order: each node on
//! their paths is loaded and searched once for all the keys under it, where a read per
//! key would descend from the root every time (a lookup's batch of matches:
//! docs/performance.md, P15).

use super::loaded::load;
use super::node::{Branch, Node, NodeRef, TreeRoot, Value};
use super::ops::child_index;
use crate::error::Result;
use crate::pager::Pager;

/// Hands `found` the value of each of `keys` (ascending, repeats allowed) with its
/// index in `keys`, or `None` when the tree does not hold it; in ascending order.
pub fn get_sorted(pager: &Pager, tree: &TreeRoot, keys: &[&[u8]], found: &mut dyn FnMut(usize, Option<&Value>)) -> Result<()> {
    assert!(keys.is_sorted(), "get_sorted takes keys in ascending order");
    match &tree.root {
        Some(root) => descend(pager, root, keys, 0, found),
        None => {
            (0..keys.len()).for_each(|i| found(i, None));
            Ok(())
        }
    }
}

/// `keys` all fall under `node`; `first` is the index of `keys[0]` in the caller's keys.
fn descend(pager: &Pager, node: &NodeRef, keys: &[&[u8]], first: usize, found: &mut dyn FnMut(usize, Option<&Value>)) -> Result<()> {
    let loaded = load(pager, node)?;
    match &*loaded {
        Node::Leaf(leaf) => {
            for (j, key) in keys.iter().enumerate() {
                found(first + j, leaf.keys.search(key).ok().map(|i| &leaf.values[i]));
            }
        }
        Node::Branch(Branch { keys: separators, children, .. }) => {
            let mut start = 0;
            while start < keys.len() {
                // Child c holds the keys below separator c (and at or above c - 1).
                let child = child_index(separators, keys[start]);
                let end = match (child < separators.len()).then(|| separators.get(child)) {
                    Some(bound) => start + keys[start..].partition_point(|key| *key < bound),
                    None => keys.len(),
                };
                assert!(end > start, "the key that chose a child falls under it");
                descend(pager, &children[child], &keys[start..end], first + start, found)?;
                start = end;
            }
        }
    }
    Ok(())
}
