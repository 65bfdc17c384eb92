//! Checkpoint: writing a version's in-memory nodes to page slots, accounting for the
//! space they take and free (`space/mod.rs` gives the steps and the invariants), and
//! publishing a meta record naming them in both meta slots.
//!
//! Nodes are written children first, so a parent can record each child's page number
//! and checksum. A node written once keeps its page (`MemNode::written`), so nodes
//! shared by several versions or pins are written once. Slots come from the space map:
//! the lowest free slot, else a new one at the tip. Free slots are ones no record on
//! disk and no reader can reach, plus, when the checkpoint writes in place, the slots
//! it released itself: the record on disk still reaches those, so every page image and
//! the new record then go to the journal, synced, before any slot is written
//! (`journal.rs`; `space/mod.rs`, "Writing in place").
//!
//! After the pages and the new meta are durable, `follow.rs` replaces written in-memory
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
//! checkpoint without stopping the database (`database/`); it is retried after a
//! later batch or at close, and until then the WAL holds every commit since the last
//! checkpoint.
//!
//! That holds until the journal of an in-place checkpoint is complete. A failure after
//! it, while its images are copied to their slots, may leave slots the record on disk
//! reaches overwritten: the complete journal is then the only whole copy of the
//! checkpoint, and open redoes it.

use std::sync::Arc;

use std::collections::HashSet;

use crate::btree::{self, node_references, Branch, MemNode, Node, NodeRef, TreeRoot, Value};
use crate::error::{Error, Result};
use super::sink::{Sink, Target, Unreached};
use super::journal::Journal;
use crate::limits::INLINE_VALUE_BYTES_MAX;
use crate::meta::Meta;
use crate::page::Direct;
use crate::pager::Pager;
use crate::progress::{ProgressStep, WorkStep};
use super::relocate::{relocate, Copies, Moves};
use super::release::release;
use crate::space::{RangeSet, SpaceMap};
use crate::space::chain;
use crate::meta::trace::meta_references;
use crate::versions::Version;

/// A checkpoint made durable: the record now on disk and the books that go with it.
pub struct Published {
    pub meta: Meta,
    pub books: SpaceMap,
    pub pages_written: u64,
    pub pages_released: u64,
    /// Whether it wrote over slots it released itself, through the journal.
    pub in_place: bool,
    /// The copies written of moved pages, for the versions in memory to follow.
    pub moved: Option<Copies>,
}

/// How much releasing one checkpoint does (`space/mod.rs`, "Cost").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReleaseBudget {
    /// At least `pages_min` (`SPACE_RELEASE_PAGES_MIN` but in tests), and twice the
    /// pages to write, so releasing keeps ahead of what churn allocates.
    Bounded { pages_min: u64 },
    /// Everything queued (compaction).
    All,
}

/// What a checkpoint is asked to do.
pub struct Plan<'a> {
    pub previous: &'a Meta,
    pub version: &'a Version,
    /// The oldest epoch a reader holds (slots released since stay put for it).
    pub oldest_reader: Option<u64>,
    /// No reader holds a version older than `version`: slots the checkpoint releases
    /// may be written over at once, through the journal.
    pub in_place: bool,
    pub budget: ReleaseBudget,
    /// Pages to move down the file (`relocate.rs`).
    pub moves: Option<&'a Moves>,
}

/// Writes `plan.version` and a meta record of the next generation after
/// `plan.previous`, with the books taken from `pager`. On success the caller installs
/// `books` and `meta`; on failure nothing of the attempt remains in memory.
pub fn checkpoint(pager: &Pager, journal: &Journal, plan: Plan<'_>) -> Result<Published> {
    let generation = plan.previous.generation + 1;
    let (relocated, moved) = match plan.moves {
        Some(moves) => {
            let (relocated, copies) = relocate(pager, plan.version, moves)?;
            (Some(relocated), Some(copies))
        }
        None => (None, None),
    };
    let version = relocated.as_ref().unwrap_or(plan.version);
    let step_kind = if plan.moves.is_some() { WorkStep::MovePages } else { WorkStep::WritePages };
    let mut attempt = Attempt { pager, books: pager.space(), lsn: version.lsn, written: Vec::new(), new_pages: HashSet::new(), step_kind, step: None };
    attempt.books.promote(generation, plan.oldest_reader);
    let result = attempt.run(journal, plan.previous, version, generation, plan.budget, plan.in_place);
    if result.is_err() {
        for mem in &attempt.written {
            mem.written.clear();
        }
    }
    let (meta, pages_released, in_place) = result?;
    let pages_written = attempt.new_pages.len() as u64;
    Ok(Published { meta, books: attempt.books, pages_written, pages_released, in_place, moved })
}

struct Attempt<'a> {
    pager: &'a Pager,
    books: SpaceMap,
    lsn: u64,
    /// Nodes this attempt marked written, to unmark if it fails.
    written: Vec<Arc<MemNode>>,
    /// Slots this attempt wrote: references to them are counted as they are made.
    new_pages: HashSet<u64>,
    /// The nodes written of those to write, for a progress line (`progress.rs`).
    step_kind: WorkStep,
    step: Option<ProgressStep<'a>>,
}

impl Attempt<'_> {
    fn run(
        &mut self,
        journal: &Journal,
        previous: &Meta,
        version: &Version,
        generation: u64,
        budget: ReleaseBudget,
        in_place: bool,
    ) -> Result<(Meta, u64, bool)> {
        assert_eq!(generation, previous.generation + 1, "a checkpoint writes the generation after the record on disk");
        assert!(version.lsn >= previous.checkpoint_lsn, "a checkpoint never goes back in LSN");
        let (free, tip) = (self.books.free().clone(), self.books.tip());
        // 1. What the new version keeps of what is on disk counts first, so a slot both
        //    records reach never drops to zero on the way.
        let mut meta = Meta { generation, page_count: 0, checkpoint_lsn: version.lsn, trees: version.trees.clone(), pins: version.pins.clone(), space: None };
        let unwritten = self.count_kept(version);
        self.step = Some(self.pager.progress().begin(self.step_kind, unwritten));
        let roots: Vec<NodeRef> = [&version.trees.root, &version.pins.root].into_iter().flatten().cloned().collect();
        for root in roots.iter().filter_map(|r| r.disk_loc()) {
            self.books.reference(root.page);
        }
        // 2. The previous record's references go; what only it reached is released.
        for target in meta_references(previous) {
            self.books.dereference(target);
        }
        let limit = match budget {
            ReleaseBudget::Bounded { pages_min } => pages_min.max(1).max(unwritten.saturating_mul(2)),
            ReleaseBudget::All => u64::MAX,
        };
        let released = release(self.pager, &mut self.books, generation, limit)?;
        // 3. With no reader of an older version, those slots take this checkpoint's
        //    pages at once; the current record still reaches them, so everything goes
        //    through the journal first.
        let reused = if in_place { self.books.reuse_released(generation) } else { RangeSet::new() };
        let in_place = !reused.is_empty();
        let target =
            if in_place { Target::Journal { writer: journal.begin(generation), entries: Vec::new() } } else { Target::Direct(Direct(self.pager.file())) };
        let mut sink = Sink { target, unreached: Unreached { free, tip, reused } };
        // 4. The new pages, each counting its references to pages written before it.
        self.write_tree(&mut sink, &version.trees)?;
        self.write_tree(&mut sink, &version.pins)?;
        for root in roots.iter().filter_map(|r| r.disk_loc()).filter(|l| self.new_pages.contains(&l.page)) {
            self.books.reference(root.page);
        }
        meta.space = Some(chain::write(&mut sink, &mut self.books, self.lsn)?);
        meta.page_count = self.books.tip();
        // Paired with `Meta::encode`: the record names written roots only.
        assert!(meta.trees.root.as_ref().is_none_or(|r| r.disk_loc().is_some()), "the root set is written before its record");
        assert!(meta.pins.root.as_ref().is_none_or(|r| r.disk_loc().is_some()), "the pin table is written before its record");
        // 5. Durable: the pages, then the record in both slots.
        let file = self.pager.file();
        match sink.target {
            Target::Direct(_) => {
                self.pager.sync()?;
                // A record half published (one slot new, one old) names pages the books
                // would hand out again if the attempt were abandoned: never a retry.
                meta.publish(file).map_err(|err| Error::FailStopped(format!("publishing the meta record failed ({err})")))?;
            }
            Target::Journal { writer, entries } => {
                writer.finish(&meta)?;
                // From here the checkpoint can be redone, and slots the record on disk
                // reaches may be written over: a failure, a full disk included, must stop
                // the database so that only the next open (redoing the journal) goes on.
                let copied = (|| {
                    for (page, offset) in entries {
                        file.write_slot(page, &journal.read_slot(offset)?)?;
                    }
                    self.pager.sync()?;
                    meta.publish(file)
                })();
                if let Err(err) = copied {
                    return Err(Error::FailStopped(format!("an in-place checkpoint failed after its journal was complete ({err}); reopen the directory to redo it")));
                }
            }
        }
        if in_place {
            journal.clear()?;
        }
        Ok((meta, released, in_place))
    }

    /// Counts every reference that the nodes this checkpoint will write hold to pages
    /// already on disk; returns how many such nodes there are.
    fn count_kept(&mut self, version: &Version) -> u64 {
        let mut seen = HashSet::new();
        let mut stack: Vec<NodeRef> = [&version.trees.root, &version.pins.root].into_iter().flatten().cloned().collect();
        let mut unwritten = 0;
        while let Some(node) = stack.pop() {
            let NodeRef::Mem(mem) = &node else { continue };
            if mem.written.get().is_some() || !seen.insert(Arc::as_ptr(mem) as usize) {
                continue;
            }
            unwritten += 1;
            let keep = |child: &NodeRef, stack: &mut Vec<NodeRef>, books: &mut SpaceMap| match child.disk_loc() {
                Some(loc) => books.reference(loc.page),
                None => stack.push(child.clone()),
            };
            match &mem.node {
                Node::Branch(Branch { children, .. }) => {
                    for child in children {
                        keep(child, &mut stack, &mut self.books);
                    }
                }
                Node::Leaf(leaf) => {
                    for value in &leaf.values {
                        match value {
                            Value::Overflow { first_page, .. } => self.books.reference(*first_page),
                            Value::Tree(TreeRoot { root: Some(root), .. }) => keep(root, &mut stack, &mut self.books),
                            _ => {}
                        }
                    }
                }
            }
        }
        unwritten
    }

    fn write_tree(&mut self, sink: &mut Sink<'_>, tree: &TreeRoot) -> Result<()> {
        match &tree.root {
            Some(root) => self.write_node(sink, root),
            None => Ok(()),
        }
    }

    fn write_node(&mut self, sink: &mut Sink<'_>, node: &NodeRef) -> Result<()> {
        let NodeRef::Mem(mem) = node else { return Ok(()) };
        if mem.written.get().is_some() {
            return Ok(());
        }
        let on_disk = match &mem.node {
            Node::Leaf(leaf) => Node::Leaf(leaf.map_values(|value| -> Result<Value> {
                    Ok(match value {
                        Value::Bytes(bytes) if bytes.len() > INLINE_VALUE_BYTES_MAX => {
                            let (value, chain) = btree::write_overflow(self.pager, &mut self.books, sink, bytes, self.lsn)?;
                            // Each page of the chain but the first is referenced by the one before it.
                            for &page in &chain[1..] {
                                self.books.reference(page);
                            }
                            for page in chain {
                                assert!(self.new_pages.insert(page), "a checkpoint writes slot {page} once");
                            }
                            value
                        }
                        Value::Tree(sub) => {
                            self.write_tree(sink, sub)?;
                            Value::Tree(swizzle_tree(sub))
                        }
                        other => other.clone(),
                    })
                })?),
            Node::Branch(Branch { level, keys, children }) => {
                for child in children {
                    self.write_node(sink, child)?;
                }
                Node::Branch(Branch { level: *level, keys: keys.clone(), children: children.iter().map(swizzle_node).collect() })
            }
        };
        // The node as written refers to its children by page, like one read back: the
        // page cache keeps it (`btree::write_node`), and a cached node holding the
        // children in memory would keep them alive past the cache's budget and hand
        // their large values, still as bytes, to the next change, which would write
        // them to new overflow chains again.
        // References to pages on disk before this checkpoint were counted up front.
        let new: Vec<u64> = node_references(&on_disk).iter().map(|r| r.page()).filter(|p| self.new_pages.contains(p)).collect();
        let loc = btree::write_node(self.pager, &mut self.books, sink, on_disk, self.lsn)?;
        for page in new {
            self.books.reference(page);
        }
        assert!(self.new_pages.insert(loc.page), "a checkpoint writes slot {} once", loc.page);
        mem.written.set(loc);
        self.written.push(mem.clone());
        if let Some(step) = &self.step {
            step.add(1);
        }
        Ok(())
    }
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
        Node::Leaf(leaf) => Node::Leaf(
            leaf.map_values(|value| -> std::result::Result<Value, std::convert::Infallible> {
                Ok(match value {
                    Value::Tree(sub) => Value::Tree(swizzle_tree(sub)),
                    other => other.clone(),
                })
            })
            .unwrap_or_else(|never| match never {}),
        ),
        Node::Branch(Branch { level, keys, children }) => {
            Node::Branch(Branch { level: *level, keys: keys.clone(), children: children.iter().map(swizzle_node).collect() })
        }
    };
    NodeRef::Mem(Arc::new(crate::btree::MemNode { node: rebuilt, written: Default::default() }))
}
