//! Range reads in either direction, in bounded batches: a caller continues a scan by
//! passing the last key it received as an excluded bound.

use std::ops::Bound;

use super::loaded::load;
use super::node::{Branch, Bytes, Key, Node, NodeRef, TreeRoot, Value};
use super::ops::child_index;
use crate::error::Result;
use crate::pager::Pager;

/// Up to `limit` entries with keys within the bounds, ascending, or descending when
/// `reverse`.
pub fn range(
    pager: &Pager,
    tree: &TreeRoot,
    lower: Bound<&[u8]>,
    upper: Bound<&[u8]>,
    reverse: bool,
    limit: usize,
) -> Result<Vec<(Key, Value)>> {
    let mut out = Vec::new();
    range_each(pager, tree, lower, upper, reverse, limit, &mut |key, value| {
        out.push((Bytes::copy_from_slice(key), value.clone()));
        Ok(())
    })?;
    Ok(out)
}

/// `range`, handing each entry to `visit` as it stands in its node (nothing is copied
/// unless `visit` copies it). Returns how many entries were visited.
pub fn range_each(
    pager: &Pager,
    tree: &TreeRoot,
    lower: Bound<&[u8]>,
    upper: Bound<&[u8]>,
    reverse: bool,
    limit: usize,
    visit: &mut dyn FnMut(&[u8], &Value) -> Result<()>,
) -> Result<usize> {
    let mut seen = 0;
    if let Some(root) = &tree.root {
        if limit > 0 && !empty_bounds(lower, upper) {
            collect(pager, root, &Range { lower, upper, reverse, limit }, &mut seen, visit)?;
        }
    }
    assert!(seen <= limit, "a range read keeps to its limit");
    Ok(seen)
}

struct Range<'a> {
    lower: Bound<&'a [u8]>,
    upper: Bound<&'a [u8]>,
    reverse: bool,
    limit: usize,
}

impl Range<'_> {
    fn above_lower(&self, key: &[u8]) -> bool {
        match self.lower {
            Bound::Included(b) => key >= b,
            Bound::Excluded(b) => key > b,
            Bound::Unbounded => true,
        }
    }
    fn below_upper(&self, key: &[u8]) -> bool {
        match self.upper {
            Bound::Included(b) => key <= b,
            Bound::Excluded(b) => key < b,
            Bound::Unbounded => true,
        }
    }
}

fn empty_bounds(lower: Bound<&[u8]>, upper: Bound<&[u8]>) -> bool {
    match (lower, upper) {
        (Bound::Included(l), Bound::Included(u)) => l > u,
        (Bound::Included(l) | Bound::Excluded(l), Bound::Excluded(u))
        | (Bound::Excluded(l), Bound::Included(u)) => l >= u,
        _ => false,
    }
}

/// Returns true once `limit` entries are visited.
fn collect(pager: &Pager, node: &NodeRef, range: &Range, seen: &mut usize, visit: &mut dyn FnMut(&[u8], &Value) -> Result<()>) -> Result<bool> {
    let loaded = load(pager, node)?;
    match &*loaded {
        Node::Leaf(leaf) => {
            let start = leaf.keys.partition_point(|k| !range.above_lower(k));
            let end = leaf.keys.partition_point(|k| range.below_upper(k));
            if start >= end {
                return Ok(false);
            }
            let wanted = (range.limit - *seen).min(end - start);
            for j in 0..wanted {
                let i = if range.reverse { end - 1 - j } else { start + j };
                visit(leaf.keys.get(i), &leaf.values[i])?;
            }
            *seen += wanted;
            Ok(*seen >= range.limit)
        }
        Node::Branch(Branch { keys, children, .. }) => {
            let first = match range.lower {
                Bound::Included(b) | Bound::Excluded(b) => child_index(keys, b),
                Bound::Unbounded => 0,
            };
            let last = match range.upper {
                Bound::Included(b) | Bound::Excluded(b) => child_index(keys, b),
                Bound::Unbounded => children.len() - 1,
            };
            let indexes: Box<dyn Iterator<Item = usize>> =
                if range.reverse { Box::new((first..=last).rev()) } else { Box::new(first..=last) };
            for i in indexes {
                if collect(pager, &children[i], range, seen, visit)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
    }
}
