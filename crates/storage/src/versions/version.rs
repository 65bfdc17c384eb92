//! A version of the whole database: the root set (tree name → tree) and the pin table
//! (pin name → root set) as of one LSN. Versions are immutable; applying a commit
//! yields a new one that shares every unchanged node with the old.

use std::collections::BTreeMap;
use std::ops::Bound;

use crate::btree::{self, TreeRoot, Value};
use crate::commit::OpRef;
use crate::commit::CommitPayload;
use crate::error::{Error, Result};
use crate::limits::RANGE_BATCH_ENTRIES_MAX;
use crate::pager::Pager;
use super::prefix_root_set::prefix_root_set;
use crate::progress::{ProgressStep, WorkStep};

#[derive(Debug, Clone, Default)]
pub struct Version {
    /// LSN of the last commit this version contains.
    pub lsn: u64,
    pub trees: TreeRoot,
    pub pins: TreeRoot,
}

impl Version {
    /// The tree named `name`, empty if there is none.
    pub fn tree(&self, pager: &Pager, name: &[u8]) -> Result<TreeRoot> {
        lookup_tree(pager, &self.trees, name)
    }

    /// The root set saved under pin `name`.
    pub fn pin(&self, pager: &Pager, name: &[u8]) -> Result<Option<Version>> {
        Ok(match btree::get(pager, &self.pins, name)? {
            Some(Value::Tree(trees)) => Some(Version { lsn: trees.lsn, trees, pins: TreeRoot::default() }),
            Some(_) => return Err(Error::InvalidArgument("pin table entry is not a root set".into())),
            None => None,
        })
    }

    /// Applies `commit` (its limits were checked by `CommitPayload::parse`) as LSN
    /// `lsn`. On any error nothing changes: the new version is only returned whole.
    pub fn apply(&self, pager: &Pager, commit: &CommitPayload, lsn: u64) -> Result<Version> {
        // Paired with the callers (the sync thread, replay at open), which assert the
        // same from their side: a commit's LSN follows the version it applies to.
        assert!(lsn > self.lsn, "LSNs only grow: commit {lsn} applied to a version at {}", self.lsn);
        let mut next = Working { pager, version: self.clone(), touched: BTreeMap::new(), lsn, compacting: None };
        for op in commit.ops() {
            next.apply(op)?;
        }
        next.flush()?;
        assert!(next.touched.is_empty(), "every tree a commit changed is back in the root set");
        next.version.lsn = lsn;
        assert!(next.version.lsn > self.lsn, "the new version is newer than the one it came from");
        Ok(next.version)
    }
}

fn lookup_tree(pager: &Pager, trees: &TreeRoot, name: &[u8]) -> Result<TreeRoot> {
    match btree::get(pager, trees, name)? {
        Some(Value::Tree(tree)) => Ok(tree),
        Some(_) => Err(Error::InvalidArgument("root set entry is not a tree".into())),
        None => Ok(TreeRoot::default()),
    }
}

/// A version being built. Trees touched by several operations are kept aside and
/// written back to the root set once, before anything reads the root set.
///
/// The working trees are owned by this value alone: nodes it builds are changed in
/// place by later operations of the same commit (`btree::put_owned`), while nodes it
/// shares with `version` (and so with readers) are copied first. Nothing of it is
/// visible to anyone until `apply` returns the finished version, and on an error it is
/// dropped whole.
struct Working<'a> {
    pager: &'a Pager,
    version: Version,
    touched: BTreeMap<Vec<u8>, Option<TreeRoot>>,
    lsn: u64,
    /// The entries this commit's tree compactions read, of those of their trees (`progress.rs`).
    compacting: Option<ProgressStep<'a>>,
}

impl Working<'_> {
    /// A copy of tree `name` as it stands (changes to it copy what it shares).
    fn tree(&self, name: &[u8]) -> Result<TreeRoot> {
        match self.touched.get(name) {
            Some(Some(tree)) => Ok(tree.clone()),
            Some(None) => Ok(TreeRoot::default()),
            None => lookup_tree(self.pager, &self.version.trees, name),
        }
    }

    /// Tree `name` itself, to change in place; created empty if absent.
    fn tree_mut(&mut self, name: &[u8]) -> Result<&mut TreeRoot> {
        if !self.touched.contains_key(name) {
            let tree = lookup_tree(self.pager, &self.version.trees, name)?;
            self.touched.insert(name.to_vec(), Some(tree));
        }
        Ok(self.touched.get_mut(name).expect("inserted above").get_or_insert_with(TreeRoot::default))
    }

    fn apply(&mut self, op: OpRef<'_>) -> Result<()> {
        let (pager, lsn) = (self.pager, self.lsn);
        match op {
            OpRef::Put { tree, key, value } => {
                let root = self.tree_mut(tree)?;
                btree::put_owned(pager, root, key, Value::Bytes(btree::Bytes::copy_from_slice(value)), lsn)?;
            }
            OpRef::Delete { tree, key } => match self.touched.get_mut(tree) {
                // An emptied tree still exists until dropped.
                Some(Some(root)) => {
                    btree::delete_owned(pager, root, key, lsn)?;
                }
                Some(None) => {}
                None => {
                    let mut root = lookup_tree(pager, &self.version.trees, tree)?;
                    if btree::delete_owned(pager, &mut root, key, lsn)?.is_some() {
                        self.touched.insert(tree.to_vec(), Some(root));
                    }
                }
            },
            OpRef::DropTree { tree } => {
                self.touched.insert(tree.to_vec(), None);
            }
            OpRef::CopyTree { from, to } => {
                let root = self.tree(from)?;
                self.touched.insert(to.to_vec(), Some(TreeRoot { lsn, ..root }));
            }
            OpRef::CopyTreeFromPin { pin, from, to } => {
                let pinned = self.pinned(pin)?;
                let root = lookup_tree(pager, &pinned, from)?;
                self.touched.insert(to.to_vec(), Some(TreeRoot { lsn, ..root }));
            }
            OpRef::Pin { name } => self.pin(name, None)?,
            OpRef::PinPrefix { name, prefix } => self.pin(name, Some(prefix))?,
            OpRef::Unpin { name } => {
                btree::delete_owned(pager, &mut self.version.pins, name, lsn)?;
            }
            OpRef::CompactTree { tree } => {
                let root = self.tree(tree)?;
                if root.root.is_some() {
                    // Begun with the first tree's entries (never a reading of total 0), grown by each later tree's.
                    match &self.compacting {
                        Some(step) => step.add_total(root.count),
                        None => self.compacting = Some(pager.progress().begin(WorkStep::CompactTrees, root.count)),
                    }
                    let step = self.compacting.as_ref().expect("begun above");
                    let entries = all_entries(pager, &root, step)?;
                    let count = entries.len() as u64;
                    let built = btree::build(entries, lsn);
                    assert_eq!(built.count, count, "a compacted tree holds every entry it was built from");
                    self.touched.insert(tree.to_vec(), Some(built));
                }
            }
        }
        Ok(())
    }

    /// Saves the root set under `name`: all of it, or only the trees under `prefix`.
    fn pin(&mut self, name: &[u8], prefix: Option<&[u8]>) -> Result<()> {
        let (pager, lsn) = (self.pager, self.lsn);
        if btree::get(pager, &self.version.pins, name)?.is_some() {
            return Err(Error::InvalidArgument(format!("pin {} exists", String::from_utf8_lossy(name))));
        }
        self.flush()?;
        assert!(self.touched.is_empty(), "a pin sees every change made before it in its commit");
        let trees = match prefix {
            None => TreeRoot { lsn, ..self.version.trees.clone() },
            Some(prefix) => prefix_root_set(pager, &self.version.trees, prefix, lsn)?,
        };
        btree::put_owned(pager, &mut self.version.pins, name, Value::Tree(trees), lsn)?;
        Ok(())
    }

    fn pinned(&self, pin: &[u8]) -> Result<TreeRoot> {
        match btree::get(self.pager, &self.version.pins, pin)? {
            Some(Value::Tree(trees)) => Ok(trees),
            _ => Err(Error::InvalidArgument(format!("no pin named {}", String::from_utf8_lossy(pin)))),
        }
    }

    fn flush(&mut self) -> Result<()> {
        for (name, tree) in std::mem::take(&mut self.touched) {
            match tree {
                Some(mut tree) => {
                    // Leaves this commit split while filling them are refilled.
                    btree::repack_owned(&mut tree);
                    btree::put_owned(self.pager, &mut self.version.trees, &name, Value::Tree(tree), self.lsn)?;
                }
                None => {
                    btree::delete_owned(self.pager, &mut self.version.trees, &name, self.lsn)?;
                }
            }
        }
        Ok(())
    }
}

/// Every entry of a tree, in order, read in bounded batches.
fn all_entries(pager: &Pager, tree: &TreeRoot, step: &ProgressStep<'_>) -> Result<Vec<(btree::Key, Value)>> {
    let mut out: Vec<(btree::Key, Value)> = Vec::with_capacity(tree.count as usize);
    loop {
        let lower = match out.last() {
            Some((key, _)) => Bound::Excluded(key.to_vec()),
            None => Bound::Unbounded,
        };
        let lower_ref = match &lower {
            Bound::Excluded(k) => Bound::Excluded(k.as_slice()),
            _ => Bound::Unbounded,
        };
        let batch = btree::range(pager, tree, lower_ref, Bound::Unbounded, false, RANGE_BATCH_ENTRIES_MAX)?;
        if batch.is_empty() {
            return Ok(out);
        }
        // O(1) per batch: each continues strictly after the last (so the loop ends).
        assert!(out.last().is_none_or(|(last, _)| *last < batch[0].0), "a batch starts after the key it continues from");
        assert!(batch.len() <= RANGE_BATCH_ENTRIES_MAX, "a range read keeps to its limit");
        step.add(batch.len() as u64);
        out.extend(batch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use crate::commit::{Commit, Op};
    use crate::database::{Database, Options};
    use crate::vfs::SimVfs;

    #[test]
    #[should_panic(expected = "LSNs only grow")]
    fn applying_a_commit_at_an_lsn_not_past_its_version_is_a_bug() {
        let db = Database::open(std::path::Path::new("/db"), Options { vfs: Arc::new(SimVfs::new()), ..Options::default() }).unwrap();
        let put = Op::Put { tree: Arc::from(&b"t"[..]), key: Arc::from(&b"k"[..]), value: Arc::from(&b"v"[..]) };
        let version = Version { lsn: 5, ..Version::default() };
        let payload = CommitPayload::parse(Commit { meta: Vec::new(), ops: vec![put] }.encode()).unwrap();
        let _ = version.apply(&db.inner().pager, &payload, 5);
    }
}
