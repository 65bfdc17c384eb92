//! The one way a checkpoint's page images leave it (`write.rs`): straight into
//! their slots, or into the checkpoint journal when it writes in place (`journal.rs`;
//! `space/mod.rs`, "Writing in place"). It asserts the invariant that makes a crash
//! during a checkpoint harmless: no slot a record on disk reaches is written, except
//! through a journal.

use crate::error::Result;
use super::journal::JournalWriter;
use crate::page::{Direct, PageSink};
use crate::space::RangeSet;

/// Where this checkpoint's page images go, and (through the journal) where each is.
pub enum Target<'a> {
    Direct(Direct<'a>),
    Journal { writer: JournalWriter<'a>, entries: Vec<(u64, u64)> },
}

/// The slots no record on disk reaches, as the attempt began: free once promoted, or
/// at or past the tip (`space/mod.rs`, "Invariants"). With `reused`, the slots an
/// in-place checkpoint released itself, which the record on disk still reaches.
pub struct Unreached {
    pub free: RangeSet,
    pub tip: u64,
    pub reused: RangeSet,
}

/// Every page a checkpoint writes goes through here, which asserts it never writes a
/// slot the durable record reaches, except through the journal (paired with the space
/// map's own assertions on every move of a slot: `space/map.rs`).
pub struct Sink<'a> {
    pub target: Target<'a>,
    pub unreached: Unreached,
}

impl PageSink for Sink<'_> {
    fn put(&mut self, page_no: u64, slot: &[u8]) -> Result<()> {
        let Unreached { free, tip, reused } = &self.unreached;
        let unreached = page_no >= *tip || free.contains(page_no);
        match &mut self.target {
            Target::Direct(direct) => {
                assert!(unreached, "a checkpoint writes slot {page_no} directly though the record on disk may reach it");
                direct.put(page_no, slot)
            }
            Target::Journal { writer, entries } => {
                assert!(unreached || reused.contains(page_no), "an in-place checkpoint writes slot {page_no}, which it did not release");
                let offset = writer.page(page_no, slot)?;
                entries.push((page_no, offset));
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::commit::{Commit, Op};
    use crate::database::{Database, Options};
    use crate::page::{self, PageType};
    use crate::vfs::SimVfs;

    /// A checkpointed database and the slot of its root set, which its record reaches.
    fn checkpointed() -> (Database, u64) {
        let db = Database::open(std::path::Path::new("/db"), Options { vfs: Arc::new(SimVfs::new()), ..Options::default() }).unwrap();
        let put = Op::Put { tree: Arc::from(&b"t"[..]), key: Arc::from(&b"k"[..]), value: Arc::from(&b"v"[..]) };
        db.commit_sync(Commit { meta: Vec::new(), ops: vec![put] }).unwrap();
        db.checkpoint().unwrap();
        let root = db.inner().current_meta().trees.root.and_then(|r| r.disk_loc()).expect("the root set was written");
        (db, root.page)
    }

    /// Writes `page` through a direct sink as the next checkpoint would start it.
    fn put(db: &Database, page: u64) -> Result<()> {
        let pager = &db.inner().pager;
        let unreached = Unreached { free: pager.space().free().clone(), tip: pager.page_count(), reused: RangeSet::new() };
        let mut sink = Sink { target: Target::Direct(Direct(pager.file())), unreached };
        sink.put(page, &page::encode(page, 1, PageType::Raw, b"x").unwrap())
    }

    #[test]
    fn a_checkpoint_writes_directly_past_the_tip() {
        let (db, _) = checkpointed();
        put(&db, db.inner().pager.page_count()).unwrap();
    }

    #[test]
    #[should_panic(expected = "though the record on disk may reach it")]
    fn a_direct_write_to_a_slot_the_record_on_disk_reaches_is_a_bug() {
        let (db, root_set) = checkpointed();
        let _ = put(&db, root_set);
    }
}
