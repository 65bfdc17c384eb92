//! After a checkpoint is durable, the versions in memory (head and durable) follow it:
//! a node it wrote is referred to by its page from then on (its memory goes to the
//! bounded page cache), and a page or large value it moved (`relocate.rs`) by the copy
//! it wrote.
//!
//! Both versions are followed in one pass with one memo keyed by node address, so a
//! node they share stays one node. Followed apart, a node the checkpoint did not write
//! (a commit after the version it wrote: the reader-held version a checkpoint writes
//! instead of the newest, `database/checkpoint_run.rs`) became two copies, and only
//! the one the next checkpoint wrote was ever followed again: the other kept the old
//! locations, and once compaction moved a large value it named, freed, slots: the
//! next checkpoint counted a reference to a free slot and stopped ("slot was free yet
//! had a count"), and open found a record naming pages past the end of the file.
//!
//! A node in memory that holds a moved large value and that the checkpoint did not
//! copy (a commit in flight changed its leaf) gets the value's bytes back, read while
//! the old chain is still intact: it was released by this checkpoint, so no slot of it
//! is reused before the next (`space/mod.rs`, "Invariants"); the next checkpoint writes
//! it to a chain of its own.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::btree::{self, Branch, Node, NodeRef, TreeRoot, Value};
use crate::error::Result;
use crate::pager::Pager;
use super::relocate::{same_children, Copies};
use crate::versions::Version;

pub struct Follow<'a> {
    pager: &'a Pager,
    /// Moved pages → the copy written.
    pages: HashMap<u64, NodeRef>,
    /// First pages of the moved large values.
    values: HashSet<u64>,
    /// Node address → what it became.
    memo: HashMap<usize, NodeRef>,
}

impl<'a> Follow<'a> {
    /// What a checkpoint wrote, and moved when it had `moved` copies.
    pub fn new(pager: &'a Pager, moved: Option<&Copies>) -> Follow<'a> {
        let (pages, values, memo) = match moved {
            Some(copies) => copies.written_parts(),
            None => Default::default(),
        };
        Follow { pager, pages, values, memo }
    }

    pub fn version(&mut self, version: &Version) -> Result<Version> {
        Ok(Version { lsn: version.lsn, trees: self.tree(&version.trees)?, pins: self.tree(&version.pins)? })
    }

    fn tree(&mut self, tree: &TreeRoot) -> Result<TreeRoot> {
        Ok(TreeRoot { root: tree.root.as_ref().map(|r| self.node(r)).transpose()?, count: tree.count, lsn: tree.lsn })
    }

    fn node(&mut self, node: &NodeRef) -> Result<NodeRef> {
        if let Some(loc) = node.disk_loc() {
            return Ok(self.pages.get(&loc.page).cloned().unwrap_or(NodeRef::Disk(loc)));
        }
        let NodeRef::Mem(mem) = node else { unreachable!("a node without a disk location lives in memory") };
        let key = Arc::as_ptr(mem) as usize;
        if let Some(done) = self.memo.get(&key) {
            return Ok(done.clone());
        }
        let rebuilt = match &mem.node {
            Node::Branch(Branch { level, keys, children }) => Node::Branch(Branch {
                level: *level,
                keys: keys.clone(),
                children: children.iter().map(|c| self.node(c)).collect::<Result<_>>()?,
            }),
            Node::Leaf(leaf) => Node::Leaf(leaf.map_values(|value| -> Result<Value> {
                Ok(match value {
                    Value::Tree(sub) => Value::Tree(self.tree(sub)?),
                    Value::Overflow { first_page, .. } if self.values.contains(first_page) => Value::Bytes(btree::read_value(self.pager, value)?),
                    other => other.clone(),
                })
            })?),
        };
        let done = if same_children(&mem.node, &rebuilt) { node.clone() } else { NodeRef::mem(rebuilt) };
        self.memo.insert(key, done.clone());
        Ok(done)
    }
}
