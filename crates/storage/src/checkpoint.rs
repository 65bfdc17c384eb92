//! Checkpoint: writing a version's in-memory nodes to page slots, accounting for the
//! space they take and free (`space/mod.rs` gives the steps and the invariants), and
//! publishing a meta record naming them.
//!
//! Nodes are written children first, so a parent can record each child's page number
//! and checksum. A node written once keeps its page (`MemNode::written`), so nodes
//! shared by several versions or pins are written once. Slots come from the space map:
//! the lowest free slot (one neither meta record on disk nor any reader can reach),
//! else a new one at the tip.
//!
//! After the pages and the new meta are durable, `swizzle` replaces written in-memory
//! nodes by disk references, so their memory is released and later reads go through
//! the bounded page cache.
//!
//! # A failed checkpoint leaves no trace
//!
//! Every change to the books is made on a copy (`Attempt::books`) that the database
//! installs only once the new meta record is durable. If anything fails before that
//! (a full disk refusing a slot, an I/O error), the attempt clears the `written` mark
//! of every node it wrote and drops its copy: the slots it wrote were free or past the
//! tip of every record on disk, nothing refers to them, and a later checkpoint writes
//! those nodes again. A full disk (`Error::StorageFull`) therefore abandons the
//! checkpoint without stopping the database (`database.rs`); it is retried after a
//! later batch or at close, and until then the WAL holds every commit since the last
//! checkpoint.

use std::sync::Arc;

use crate::btree::{MemNode, Node, NodeRef, TreeRoot, Value};
use crate::error::Result;
use crate::limits::{INLINE_VALUE_BYTES_MAX, SPACE_RELEASE_PAGES_MIN};
use crate::meta::Meta;
use crate::pager::{overflow_pages, Pager};
use crate::relocate::{relocate, Copies, Moves};
use crate::release::release;
use crate::space::SpaceMap;
use crate::space_chain;
use crate::space_trace::meta_references;
use crate::version::Version;

/// A checkpoint made durable: the record now on disk and the books that go with it.
pub struct Published {
    pub meta: Meta,
    pub books: SpaceMap,
    pub pages_written: u64,
    pub pages_released: u64,
    /// The copies written of moved pages, for the versions in memory to follow.
    pub moved: Option<Copies>,
}

/// How much releasing one checkpoint does (`space/mod.rs`, "Cost").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReleaseBudget {
    /// At least `SPACE_RELEASE_PAGES_MIN`, and twice the pages written, so releasing
    /// keeps ahead of what churn allocates.
    Bounded,
    /// Everything queued (compaction).
    All,
}

/// Writes `version` and a meta record of the next generation after `previous`, with
/// the books taken from `pager` and the readers' oldest epoch, moving the pages `moves`
/// names into the lowest free slots (`relocate.rs`). On success the caller installs
/// `books` and `meta`; on failure nothing of the attempt remains in memory.
pub fn checkpoint(
    pager: &Pager,
    previous: &Meta,
    version: &Version,
    oldest_reader: Option<u64>,
    budget: ReleaseBudget,
    moves: Option<&Moves>,
) -> Result<Published> {
    let generation = previous.generation + 1;
    let (relocated, moved) = match moves {
        Some(moves) => {
            let (relocated, copies) = relocate(pager, version, moves)?;
            (Some(relocated), Some(copies))
        }
        None => (None, None),
    };
    let version = relocated.as_ref().unwrap_or(version);
    let mut attempt = Attempt { pager, books: pager.space(), lsn: version.lsn, written: Vec::new(), pages: 0 };
    attempt.books.promote(generation, oldest_reader);
    let result = attempt.run(previous, version, generation, budget);
    if result.is_err() {
        for mem in &attempt.written {
            mem.written.clear();
        }
    }
    let (meta, pages_released) = result?;
    Ok(Published { meta, books: attempt.books, pages_written: attempt.pages, pages_released, moved })
}

struct Attempt<'a> {
    pager: &'a Pager,
    books: SpaceMap,
    lsn: u64,
    /// Nodes this attempt marked written, to unmark if it fails.
    written: Vec<Arc<MemNode>>,
    pages: u64,
}

impl Attempt<'_> {
    fn run(&mut self, previous: &Meta, version: &Version, generation: u64, budget: ReleaseBudget) -> Result<(Meta, u64)> {
        self.write_tree(&version.trees)?;
        self.write_tree(&version.pins)?;
        // The new record's references count before the old record's go, so whatever
        // both reach never drops to zero on the way.
        let mut meta = Meta { generation, page_count: 0, checkpoint_lsn: version.lsn, trees: version.trees.clone(), pins: version.pins.clone(), space: None };
        for target in meta_references(&meta) {
            self.books.reference(target.page());
        }
        for target in meta_references(previous) {
            self.books.dereference(target);
        }
        let limit = match budget {
            ReleaseBudget::Bounded => SPACE_RELEASE_PAGES_MIN.max(self.pages.saturating_mul(2)),
            ReleaseBudget::All => u64::MAX,
        };
        let released = release(self.pager, &mut self.books, generation, limit)?;
        meta.space = Some(space_chain::write(self.pager.file(), &mut self.books, self.lsn)?);
        meta.page_count = self.books.tip();
        self.pager.sync()?;
        meta.write(self.pager.file())?;
        self.pager.sync()?;
        Ok((meta, released))
    }

    fn write_tree(&mut self, tree: &TreeRoot) -> Result<()> {
        match &tree.root {
            Some(root) => self.write_node(root),
            None => Ok(()),
        }
    }

    fn write_node(&mut self, node: &NodeRef) -> Result<()> {
        let NodeRef::Mem(mem) = node else { return Ok(()) };
        if mem.written.get().is_some() {
            return Ok(());
        }
        let on_disk = match &mem.node {
            Node::Leaf(entries) => {
                let mut out = Vec::with_capacity(entries.len());
                for (key, value) in entries {
                    let value = match value {
                        Value::Bytes(bytes) if bytes.len() > INLINE_VALUE_BYTES_MAX => {
                            let value = self.pager.write_overflow(&mut self.books, bytes, self.lsn)?;
                            self.pages += overflow_pages(bytes.len());
                            value
                        }
                        Value::Tree(sub) => {
                            self.write_tree(sub)?;
                            value.clone()
                        }
                        other => other.clone(),
                    };
                    out.push((key.clone(), value));
                }
                Node::Leaf(out)
            }
            Node::Branch { level, keys, children } => {
                for child in children {
                    self.write_node(child)?;
                }
                Node::Branch { level: *level, keys: keys.clone(), children: children.clone() }
            }
        };
        let loc = self.pager.write_node(&mut self.books, on_disk, self.lsn)?;
        self.pages += 1;
        mem.written.set(loc);
        self.written.push(mem.clone());
        Ok(())
    }
}

/// The same version with every written in-memory node replaced by its disk reference.
pub fn swizzle(version: &Version) -> Version {
    Version { lsn: version.lsn, trees: swizzle_tree(&version.trees), pins: swizzle_tree(&version.pins) }
}

fn swizzle_tree(tree: &TreeRoot) -> TreeRoot {
    TreeRoot { root: tree.root.as_ref().map(swizzle_node), count: tree.count, lsn: tree.lsn }
}

fn swizzle_node(node: &NodeRef) -> NodeRef {
    let NodeRef::Mem(mem) = node else { return node.clone() };
    if let Some(loc) = mem.written.get() {
        return NodeRef::Disk(loc);
    }
    let rebuilt = match &mem.node {
        Node::Leaf(entries) => Node::Leaf(
            entries
                .iter()
                .map(|(key, value)| {
                    let value = match value {
                        Value::Tree(sub) => Value::Tree(swizzle_tree(sub)),
                        other => other.clone(),
                    };
                    (key.clone(), value)
                })
                .collect(),
        ),
        Node::Branch { level, keys, children } => {
            Node::Branch { level: *level, keys: keys.clone(), children: children.iter().map(swizzle_node).collect() }
        }
    };
    NodeRef::Mem(Arc::new(crate::btree::MemNode { node: rebuilt, written: Default::default() }))
}
