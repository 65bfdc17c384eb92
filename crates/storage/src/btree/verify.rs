//! Walks a tree and checks what must hold: every page verifies (checksum, own number,
//! the checksum its parent recorded), keys ascend strictly within each node and stay
//! within the separators above them, levels descend by one to leaves at level 0,
//! non-root nodes are not empty, large values match their recorded hash, and the
//! entry count kept at the root is the number of entries. Trees stored as values
//! (root sets, pins) are walked too. Pages shared between versions are checked once.

use std::collections::HashMap;

use super::loaded::load;
use super::node::{Branch, Node, NodeRef, TreeRoot, Value};
use crate::pager::Pager;
use crate::progress::ProgressStep;

#[derive(Debug, Default)]
pub struct TreeCheck<'a> {
    pub pages: u64,
    pub entries: u64,
    pub problems: Vec<String>,
    /// Entry counts of pages already walked, so shared subtrees are walked once.
    seen: HashMap<u64, u64>,
    /// Counts each page walked, for a progress line (`progress.rs`).
    step: Option<&'a ProgressStep<'a>>,
}

impl<'a> TreeCheck<'a> {
    /// A check that counts the pages it walks in `step`.
    pub fn reporting(step: &'a ProgressStep<'a>) -> TreeCheck<'a> {
        TreeCheck { step: Some(step), ..TreeCheck::default() }
    }
}

pub fn verify_tree(pager: &Pager, tree: &TreeRoot, name: &str, check: &mut TreeCheck<'_>) {
    let Some(root) = &tree.root else {
        if tree.count != 0 {
            check.problems.push(format!("tree {name}: empty but its count is {}", tree.count));
        }
        return;
    };
    let entries = walk(pager, root, None, None, None, true, name, check);
    if let Some(entries) = entries {
        if entries != tree.count {
            check.problems.push(format!("tree {name}: count says {} but it holds {entries} entries", tree.count));
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn walk(
    pager: &Pager,
    node: &NodeRef,
    lo: Option<&[u8]>,
    hi: Option<&[u8]>,
    level: Option<u8>,
    is_root: bool,
    name: &str,
    check: &mut TreeCheck<'_>,
) -> Option<u64> {
    let page = node.disk_loc().map(|l| l.page);
    if let Some(page) = page {
        if let Some(&entries) = check.seen.get(&page) {
            return Some(entries);
        }
    }
    let where_ = page.map_or_else(|| format!("tree {name}, a node in memory"), |p| format!("tree {name}, page {p}"));
    let loaded = match load(pager, node) {
        Ok(loaded) => loaded,
        Err(err) => {
            check.problems.push(format!("{where_}: {err}"));
            return None;
        }
    };
    if page.is_some() {
        check.pages += 1;
        if let Some(step) = check.step {
            step.add(1);
        }
    }
    if let Some(expected) = level {
        if loaded.level() != expected {
            check.problems.push(format!("{where_}: level {} where {expected} was expected", loaded.level()));
        }
    }
    if !is_root && loaded.is_empty() {
        check.problems.push(format!("{where_}: an empty node below the root"));
    }
    let in_bounds = |key: &[u8]| lo.is_none_or(|lo| key >= lo) && hi.is_none_or(|hi| key < hi);
    let entries = match &*loaded {
        Node::Leaf(leaf) => {
            for i in 1..leaf.len() {
                if leaf.keys.get(i - 1) >= leaf.keys.get(i) {
                    check.problems.push(format!("{where_}: keys out of order"));
                }
            }
            for (key, value) in leaf.entries() {
                if !in_bounds(key) {
                    check.problems.push(format!("{where_}: a key outside its parent's separators"));
                }
                match value {
                    Value::Tree(sub) => {
                        let sub_name = format!("{name}/{}", String::from_utf8_lossy(key));
                        verify_tree(pager, sub, &sub_name, check);
                    }
                    Value::Overflow { .. } => {
                        if let Err(err) = super::value_io::read_value(pager, value) {
                            check.problems.push(format!("{where_}: large value: {err}"));
                        }
                    }
                    Value::Bytes(_) => {}
                }
            }
            check.entries += leaf.len() as u64;
            leaf.len() as u64
        }
        Node::Branch(Branch { level: node_level, keys, children }) => {
            if keys.len() + 1 != children.len() {
                check.problems.push(format!("{where_}: {} children but {} separators", children.len(), keys.len()));
                return None;
            }
            for i in 1..keys.len() {
                if keys.get(i - 1) >= keys.get(i) {
                    check.problems.push(format!("{where_}: separators out of order"));
                }
            }
            let mut total = 0u64;
            for (i, child) in children.iter().enumerate() {
                let child_lo = if i == 0 { lo } else { Some(keys.get(i - 1)) };
                let child_hi = if i == keys.len() { hi } else { Some(keys.get(i)) };
                if let Some(key) = child_lo.filter(|_| i > 0) {
                    if !in_bounds(key) {
                        check.problems.push(format!("{where_}: a separator outside its parent's separators"));
                    }
                }
                let expected = node_level.checked_sub(1);
                total += walk(pager, child, child_lo, child_hi, expected, false, name, check)?;
            }
            total
        }
    };
    if let Some(page) = page {
        check.seen.insert(page, entries);
    }
    Some(entries)
}
