//! Range reads in either direction, in bounded batches: a caller continues a scan by
//! passing the last key it received as an excluded bound.

use std::ops::Bound;

use super::loaded::load;
use super::node::{Key, Node, NodeRef, TreeRoot, Value};
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
    if let Some(root) = &tree.root {
        if limit > 0 && !empty_bounds(lower, upper) {
            collect(pager, root, &Range { lower, upper, reverse, limit }, &mut out)?;
        }
    }
    assert!(out.len() <= limit, "a range read keeps to its limit");
    Ok(out)
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

/// Returns true once `limit` entries are collected.
fn collect(pager: &Pager, node: &NodeRef, range: &Range, out: &mut Vec<(Key, Value)>) -> Result<bool> {
    let loaded = load(pager, node)?;
    match &*loaded {
        Node::Leaf(entries) => {
            let start = entries.partition_point(|(k, _)| !range.above_lower(k));
            let end = entries.partition_point(|(k, _)| range.below_upper(k));
            if start >= end {
                return Ok(false);
            }
            let slice = &entries[start..end];
            let wanted = range.limit - out.len();
            if range.reverse {
                out.extend(slice.iter().rev().take(wanted).cloned());
            } else {
                out.extend(slice.iter().take(wanted).cloned());
            }
            Ok(out.len() >= range.limit)
        }
        Node::Branch { keys, children, .. } => {
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
                if collect(pager, &children[i], range, out)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
    }
}
