//! Moving live pages down the file, so compaction can cut its tail off
//! (`Database::compact_space`).
//!
//! A page is moved by writing a copy of its node into a lower free slot, which changes
//! its location, so its parent must be rewritten too, up to the meta record. So:
//!
//! 1. `moves` walks a version off the commit path (holding a reader, so nothing it
//!    reads is reused) and finds every page at or past the target slot, every page
//!    above one of them (its ancestors, in every tree, pin and fork that shares it),
//!    and every large value whose overflow chain has a slot past the target.
//! 2. `relocate` turns a version into the same content with those nodes as fresh
//!    in-memory copies (memoised, so what was shared stays shared, and large values
//!    past the target read back as bytes); the checkpoint then writes them into the
//!    lowest free slots, as it writes any new node, and the counts of the old pages
//!    drop to zero and release them.
//! 3. `follow.rs` points the versions in memory (head, durable) at the moved pages,
//!    once the checkpoint that wrote them is durable. Readers that hold older versions keep
//!    the old pages until they finish (`versions/readers.rs`).
//!
//! A version checkpointed after `moves` walked an older one reaches no other page past
//! the target: its disk pages are those of the older version or written since, and
//! the checkpoints in between allocate the lowest free slots first.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::btree::{Branch, Node, NodeRef, TreeRoot, Value};
use crate::error::Result;
use crate::pager::Pager;
use crate::versions::Version;

/// What to move: node pages, and the first pages of large values to write anew.
#[derive(Debug, Default, Clone)]
pub struct Moves {
    pub nodes: HashSet<u64>,
    pub values: HashSet<u64>,
}

impl Moves {
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty() && self.values.is_empty()
    }
}

/// Everything in `version` that must move for the file to end at `target` slots.
pub fn moves(pager: &Pager, version: &Version, target: u64) -> Result<Moves> {
    let mut walk = MovesWalk { pager, target, moves: Moves::default(), seen: HashMap::new() };
    walk.tree(&version.trees)?;
    walk.tree(&version.pins)?;
    Ok(walk.moves)
}

struct MovesWalk<'a> {
    pager: &'a Pager,
    target: u64,
    moves: Moves,
    /// Pages walked, and whether each must move.
    seen: HashMap<u64, bool>,
}

impl MovesWalk<'_> {
    fn tree(&mut self, tree: &TreeRoot) -> Result<bool> {
        match &tree.root {
            Some(root) => self.node(root),
            None => Ok(false),
        }
    }

    /// Whether `node` (or anything under it) moves.
    fn node(&mut self, node: &NodeRef) -> Result<bool> {
        let page = node.disk_loc().map(|loc| loc.page);
        if let Some(page) = page {
            if let Some(&moved) = self.seen.get(&page) {
                return Ok(moved);
            }
        }
        let loaded = crate::btree::load(self.pager, node)?;
        let mut moved = page.is_some_and(|p| p >= self.target);
        match &*loaded {
            Node::Branch(Branch { children, .. }) => {
                for child in children {
                    moved |= self.node(child)?;
                }
            }
            Node::Leaf(leaf) => {
                for value in &leaf.values {
                    match value {
                        Value::Tree(sub) => moved |= self.tree(sub)?,
                        Value::Overflow { first_page, len, hash } => {
                            let chain = self.pager.overflow_chain(*first_page, *len, *hash)?;
                            if chain.iter().any(|&p| p >= self.target) {
                                self.moves.values.insert(*first_page);
                                moved = true;
                            }
                        }
                        Value::Bytes(_) => {}
                    }
                }
            }
        }
        if let Some(page) = page {
            self.seen.insert(page, moved);
            if moved {
                self.moves.nodes.insert(page);
            }
        }
        Ok(moved)
    }
}

/// `version` with every node `moves` names replaced by an in-memory copy, and the
/// copies made (for `rebase`, once a checkpoint wrote them).
pub fn relocate(pager: &Pager, version: &Version, moves: &Moves) -> Result<(Version, Copies)> {
    let mut copier = Copier { pager, moves, copies: Copies { values: moves.values.clone(), ..Copies::default() } };
    let relocated = Version { lsn: version.lsn, trees: copier.tree(&version.trees)?, pins: copier.tree(&version.pins)? };
    Ok((relocated, copier.copies))
}

/// The copies `relocate` made: of pages, by page number, and of in-memory nodes that
/// held a moved page, by address (so sharing is kept, and `follow.rs` reuses them);
/// and which large values moved.
#[derive(Default)]
pub struct Copies {
    pages: HashMap<u64, NodeRef>,
    mem: HashMap<usize, NodeRef>,
    values: HashSet<u64>,
}

/// Moved pages → their copies, the first pages of moved large values, and node
/// addresses → their copies, each copy as the page the checkpoint wrote it to.
pub type WrittenCopies = (HashMap<u64, NodeRef>, HashSet<u64>, HashMap<usize, NodeRef>);

impl Copies {
    /// The copies once a checkpoint wrote them (`follow.rs`).
    pub fn written_parts(&self) -> WrittenCopies {
        let on_disk = |node: &NodeRef| match node.disk_loc() {
            Some(loc) => NodeRef::Disk(loc),
            None => node.clone(),
        };
        (
            self.pages.iter().map(|(&p, n)| (p, on_disk(n))).collect(),
            self.values.clone(),
            self.mem.iter().map(|(&k, n)| (k, on_disk(n))).collect(),
        )
    }
}

struct Copier<'a> {
    pager: &'a Pager,
    moves: &'a Moves,
    copies: Copies,
}

impl Copier<'_> {
    fn tree(&mut self, tree: &TreeRoot) -> Result<TreeRoot> {
        Ok(TreeRoot { root: tree.root.as_ref().map(|r| self.node(r)).transpose()?, count: tree.count, lsn: tree.lsn })
    }

    fn node(&mut self, node: &NodeRef) -> Result<NodeRef> {
        if let Some(loc) = node.disk_loc() {
            if !self.moves.nodes.contains(&loc.page) {
                return Ok(node.clone());
            }
            if let Some(copy) = self.copies.pages.get(&loc.page) {
                return Ok(copy.clone());
            }
            let loaded = crate::btree::load(self.pager, node)?;
            let copy = NodeRef::mem(self.contents(&loaded)?);
            self.copies.pages.insert(loc.page, copy.clone());
            return Ok(copy);
        }
        let NodeRef::Mem(mem) = node else { unreachable!("a node without a disk location lives in memory") };
        let key = Arc::as_ptr(mem) as usize;
        if let Some(copy) = self.copies.mem.get(&key) {
            return Ok(copy.clone());
        }
        let contents = self.contents(&mem.node)?;
        // Unchanged below: keep the node itself (and so its sharing).
        let copy = if same_children(&mem.node, &contents) { node.clone() } else { NodeRef::mem(contents) };
        self.copies.mem.insert(key, copy.clone());
        Ok(copy)
    }

    fn contents(&mut self, node: &Node) -> Result<Node> {
        Ok(match node {
            Node::Branch(Branch { level, keys, children }) => Node::Branch(Branch {
                level: *level,
                keys: keys.clone(),
                children: children.iter().map(|c| self.node(c)).collect::<Result<_>>()?,
            }),
            Node::Leaf(leaf) => Node::Leaf(leaf.map_values(|value| -> Result<Value> {
                Ok(match value {
                    Value::Tree(sub) => Value::Tree(self.tree(sub)?),
                    Value::Overflow { first_page, .. } if self.moves.values.contains(first_page) => {
                        Value::Bytes(crate::btree::read_value(self.pager, value)?)
                    }
                    other => other.clone(),
                })
            })?),
        })
    }
}

/// True when a rebuilt node refers to exactly what the original did.
pub(crate) fn same_children(original: &Node, rebuilt: &Node) -> bool {
    let same_ref = |a: &NodeRef, b: &NodeRef| match (a, b) {
        (NodeRef::Mem(x), NodeRef::Mem(y)) => Arc::ptr_eq(x, y),
        (NodeRef::Disk(x), NodeRef::Disk(y)) => x == y,
        _ => false,
    };
    let same_tree = |a: &TreeRoot, b: &TreeRoot| match (&a.root, &b.root) {
        (Some(x), Some(y)) => same_ref(x, y),
        (None, None) => true,
        _ => false,
    };
    match (original, rebuilt) {
        (Node::Branch(Branch { children: a, .. }), Node::Branch(Branch { children: b, .. })) => a.iter().zip(b).all(|(x, y)| same_ref(x, y)),
        (Node::Leaf(a), Node::Leaf(b)) => a.values.iter().zip(&b.values).all(|(x, y)| match (x, y) {
            (Value::Tree(x), Value::Tree(y)) => same_tree(x, y),
            (Value::Overflow { .. }, Value::Bytes(_)) => false,
            _ => true,
        }),
        _ => false,
    }
}
