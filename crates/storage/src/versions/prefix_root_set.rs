//! What a prefix pin (`commit/codec.rs`, tag 9) saves: the trees of a root set whose names
//! start with a prefix, in a root set of their own that shares their nodes. A tenant's
//! snapshot is one, so it holds that tenant's pages and no one else's
//! (docs/operations.md, "Disk space").

use std::ops::Bound;

use crate::btree::{self, Key, TreeRoot, Value};
use crate::error::Result;
use crate::limits::RANGE_BATCH_ENTRIES_MAX;
use crate::pager::Pager;

/// The entries of `trees` (a root set) whose names start with `prefix`, as a new root
/// set at `lsn`. The trees themselves are shared, not copied: O(trees under the prefix).
pub fn prefix_root_set(pager: &Pager, trees: &TreeRoot, prefix: &[u8], lsn: u64) -> Result<TreeRoot> {
    let mut kept: Vec<(Key, Value)> = Vec::new();
    loop {
        let last = kept.last().map(|(name, _)| name.clone());
        let lower = last.as_deref().map_or(Bound::Included(prefix), Bound::Excluded);
        let batch = btree::range(pager, trees, lower, Bound::Unbounded, false, RANGE_BATCH_ENTRIES_MAX)?;
        let read = batch.len();
        let before = kept.len();
        // Names are in order: the prefix's run ends at the first name outside it.
        kept.extend(batch.into_iter().take_while(|(name, _)| name.starts_with(prefix)));
        if read < RANGE_BATCH_ENTRIES_MAX || kept.len() - before < read {
            break;
        }
    }
    assert!(kept.iter().all(|(name, value)| name.starts_with(prefix) && matches!(value, Value::Tree(_))), "a prefix root set holds trees under the prefix only");
    Ok(btree::build(kept, lsn))
}
