//! Reading one version of the database: `Snapshot`, a consistent, immutable view as
//! of one LSN, and what its reads return.

use std::ops::Bound;
use std::sync::Arc;

use crate::btree::{self, Bytes, TreeRoot, Value};
use crate::error::Result;
use crate::pager::Pager;
use super::readers::ReaderHold;
use super::version::Version;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeInfo {
    pub name: Vec<u8>,
    pub count: u64,
    pub lsn: u64,
}

/// One difference between two versions of a tree: added (no `before`), removed (no
/// `after`) or changed (both).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeDiff {
    pub key: Bytes,
    pub before: Option<Bytes>,
    pub after: Option<Bytes>,
}

/// What a snapshot reads through: the open database's pager, and whether it is still
/// open. The database implements it; the trait keeps this module below the database's
/// (no import cycle).
pub(crate) trait SnapshotSource: Send + Sync {
    fn pager(&self) -> &Pager;
    /// `Error::Closed` once the database was closed.
    fn check_open(&self) -> Result<()>;
}

/// A consistent, immutable view of the database as of one LSN.
#[derive(Clone)]
pub struct Snapshot {
    inner: Arc<dyn SnapshotSource>,
    version: Arc<Version>,
    /// Keeps the slots this version can reach from being reused while it lives
    /// (`readers.rs`); shared by its clones and by the pinned versions read from it.
    hold: Arc<ReaderHold>,
}

impl Snapshot {
    pub(crate) fn new(inner: Arc<dyn SnapshotSource>, version: Arc<Version>, hold: Arc<ReaderHold>) -> Snapshot {
        Snapshot { inner, version, hold }
    }

    pub fn lsn(&self) -> u64 {
        self.version.lsn
    }

    /// The generation of the newest meta record when this snapshot was taken.
    pub fn epoch(&self) -> u64 {
        self.hold.epoch()
    }

    pub(crate) fn version(&self) -> &Version {
        &self.version
    }

    fn check_open(&self) -> Result<()> {
        self.inner.check_open()
    }

    fn tree(&self, name: &[u8]) -> Result<TreeRoot> {
        self.check_open()?;
        self.version.tree(self.inner.pager(), name)
    }

    /// The value of `key`: a shared slice of the node (or page) holding it, not a copy.
    pub fn get(&self, tree: &[u8], key: &[u8]) -> Result<Option<Bytes>> {
        let root = self.tree(tree)?;
        match btree::get(self.inner.pager(), &root, key)? {
            Some(value) => btree::read_value(self.inner.pager(), &value).map(Some),
            None => Ok(None),
        }
    }

    /// The values of several keys of one tree, each handed to `visit` in the order of
    /// `keys` (`None`: absent) as it stands in its node: the tree's root is found once,
    /// and a caller that copies the values into one buffer (the binding's batched read,
    /// a lookup's keys) allocates nothing per key. The keys are searched in key order,
    /// whatever order they come in, each node on their paths once for all the keys
    /// under it (`btree::get_sorted`; docs/performance.md, P15).
    pub fn get_each(&self, tree: &[u8], keys: &[&[u8]], visit: &mut dyn FnMut(Option<&[u8]>)) -> Result<()> {
        let root = self.tree(tree)?;
        let pager = self.inner.pager();
        let mut found: Vec<Option<Value>> = vec![None; keys.len()];
        if keys.is_sorted() {
            btree::get_sorted(pager, &root, keys, &mut |i, value| found[i] = value.cloned())?;
        } else {
            let mut order: Vec<usize> = (0..keys.len()).collect();
            order.sort_unstable_by(|&a, &b| keys[a].cmp(keys[b]));
            let sorted: Vec<&[u8]> = order.iter().map(|&i| keys[i]).collect();
            btree::get_sorted(pager, &root, &sorted, &mut |j, value| found[order[j]] = value.cloned())?;
        }
        for value in &found {
            match value {
                Some(Value::Bytes(bytes)) => visit(Some(bytes)),
                Some(other) => visit(Some(&btree::read_value(pager, other)?)),
                None => visit(None),
            }
        }
        Ok(())
    }

    /// Up to `limit` entries within the bounds, ascending or descending.
    pub fn range(
        &self,
        tree: &[u8],
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Bytes, Bytes)>> {
        let mut out = Vec::new();
        self.range_each(tree, lower, upper, reverse, limit, &mut |key, value| out.push((Bytes::copy_from_slice(key), Bytes::copy_from_slice(value))))?;
        Ok(out)
    }

    /// `range`, handing each entry to `visit` as it stands in its node: a caller that
    /// copies the bytes somewhere (the binding, into one Buffer) allocates nothing per
    /// entry. Returns how many entries were visited.
    pub fn range_each(
        &self,
        tree: &[u8],
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        reverse: bool,
        limit: usize,
        visit: &mut dyn FnMut(&[u8], &[u8]),
    ) -> Result<usize> {
        let root = self.tree(tree)?;
        let pager = self.inner.pager();
        btree::range_each(pager, &root, lower, upper, reverse, limit, &mut |key, value| {
            match value {
                Value::Bytes(bytes) => visit(key, bytes),
                other => visit(key, &btree::read_value(pager, other)?),
            }
            Ok(())
        })
    }

    /// Up to `limit` differences of `tree` from this version to `newer`, in key order,
    /// and whether more exist. Subtrees the two share are skipped unread, so the cost
    /// grows with the differences, not with the tree.
    pub fn diff(&self, newer: &Snapshot, tree: &[u8], limit: usize) -> Result<(Vec<TreeDiff>, bool)> {
        self.diff_trees(tree, newer, tree, limit)
    }

    /// Like `diff`, between `tree` of this version and `newer_tree` of `newer` (a fork's
    /// tree against its source's: the subtrees they still share are skipped unread).
    pub fn diff_trees(&self, tree: &[u8], newer: &Snapshot, newer_tree: &[u8], limit: usize) -> Result<(Vec<TreeDiff>, bool)> {
        let pager = self.inner.pager();
        let (entries, truncated) = btree::diff(pager, &self.tree(tree)?, &newer.tree(newer_tree)?, limit)?;
        let read = |value: &Value| btree::read_value(pager, value);
        let diffs = entries
            .into_iter()
            .map(|entry| {
                Ok(match entry {
                    btree::DiffEntry::Added { key, value } => TreeDiff { key, before: None, after: Some(read(&value)?) },
                    btree::DiffEntry::Removed { key, value } => TreeDiff { key, before: Some(read(&value)?), after: None },
                    btree::DiffEntry::Changed { key, before, after } => {
                        TreeDiff { key, before: Some(read(&before)?), after: Some(read(&after)?) }
                    }
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((diffs, truncated))
    }

    /// Every tree of this version with its entry count and last-change LSN.
    pub fn trees(&self) -> Result<Vec<TreeInfo>> {
        self.check_open()?;
        list_trees(self.inner.pager(), &self.version.trees)
    }

    pub fn tree_info(&self, name: &[u8]) -> Result<Option<TreeInfo>> {
        self.check_open()?;
        Ok(match btree::get(self.inner.pager(), &self.version.trees, name)? {
            Some(Value::Tree(tree)) => Some(TreeInfo { name: name.to_vec(), count: tree.count, lsn: tree.lsn }),
            _ => None,
        })
    }

    /// Every pin with the LSN it was taken at (`count` is its number of trees).
    pub fn pins(&self) -> Result<Vec<TreeInfo>> {
        self.check_open()?;
        list_trees(self.inner.pager(), &self.version.pins)
    }

    /// The version saved under pin `name`.
    pub fn pin(&self, name: &[u8]) -> Result<Option<Snapshot>> {
        self.check_open()?;
        Ok(self.version.pin(self.inner.pager(), name)?.map(|version| Snapshot {
            inner: self.inner.clone(),
            version: Arc::new(Version { pins: self.version.pins.clone(), ..version }),
            hold: self.hold.clone(),
        }))
    }
}

fn list_trees(pager: &Pager, table: &TreeRoot) -> Result<Vec<TreeInfo>> {
    let mut out: Vec<TreeInfo> = Vec::new();
    loop {
        let last = out.last().map(|t| t.name.clone());
        let lower = last.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
        let batch = btree::range(pager, table, lower, Bound::Unbounded, false, 1024)?;
        if batch.is_empty() {
            return Ok(out);
        }
        for (name, value) in batch {
            if let Value::Tree(tree) = value {
                out.push(TreeInfo { name: name.to_vec(), count: tree.count, lsn: tree.lsn });
            }
        }
    }
}
