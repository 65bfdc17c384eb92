//! Shrinking the page file to about what is live (`Database::compact_space`), so a
//! directory ends close to a fresh load of its live data.
//!
//! 1. A checkpoint releases everything queued (no budget); once no reader holds an
//!    older version (waiting up to `Options::compact_reader_wait`, `COMPACT_READER_WAIT` by default), two more let what was freed
//!    age past the meta record that still reached it (`space/mod.rs`: reused one
//!    generation later; the second also frees what the first released).
//! 2. The target is the slots the live pages need, plus room for the space map.
//! 3. Every page at or past the target, and every page above one (`checkpoint/relocate.rs`), is
//!    copied by a checkpoint into the lowest free slots.
//! 4. Once the readers are past the move (waiting again), two more checkpoints let the
//!    old copies age out, and the free tail of the file is cut off (every checkpoint
//!    does that).
//!
//! Slots a reader still holds (an older version in use) stay where they are and can
//! keep the file longer; the next checkpoints after that reader finishes cut them off.
//! Checkpoints run on the calling thread under the checkpoint lock, so commits go on
//! meanwhile (they wait only while a checkpoint swaps the versions); the walk that
//! finds what to move reads every live page once.

use super::backup::MaintenanceHold;
use crate::checkpoint::ReleaseBudget;
use crate::database::Database;
use crate::error::{Error, Result};
use crate::limits::{COMPACT_SLACK_PAGES_MIN, META_SLOTS};
use crate::checkpoint::moves;

/// What `compact_space` did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompactReport {
    pub bytes_before: u64,
    pub bytes_after: u64,
    /// Live pages copied to lower slots.
    pub pages_moved: u64,
    /// The allocator tip after.
    pub page_count: u64,
}

impl crate::database::Inner {
    /// Lets the slots released at `generation` become free: waits (bounded) for the
    /// readers of older versions, then checkpoints twice.
    fn age_past(&self, hold: &MaintenanceHold<'_>, generation: u64) -> Result<()> {
        self.readers.wait_for(generation, std::time::Instant::now() + self.options.compact_reader_wait);
        for _ in 0..2 {
            self.checkpoint_with(hold, ReleaseBudget::All, None)?;
        }
        Ok(())
    }
}

impl Database {
    /// Releases what is no longer reachable and moves live pages down the file so its
    /// free tail can be cut off. Pins and readers keep every page they reach. Refused
    /// with `BackupInProgress` while a backup holds the gate; a backup that begins
    /// meanwhile waits for the whole compaction (its checkpoints share one hold).
    pub fn compact_space(&self) -> Result<CompactReport> {
        let inner = self.inner();
        inner.check_open()?;
        let hold = inner.gate.try_maintenance().ok_or(Error::BackupInProgress("compaction"))?;
        let bytes_before = inner.pager.file().len_bytes()?;
        let released = inner.checkpoint_with(&hold, ReleaseBudget::All, None)?;
        inner.age_past(&hold, released.generation)?;
        let stats = inner.pager.space_stats();
        let target = META_SLOTS + stats.live + COMPACT_SLACK_PAGES_MIN.max(stats.live / 256);
        let mut pages_moved = 0;
        if stats.tip > target {
            let found = {
                let snapshot = self.snapshot();
                moves(&inner.pager, snapshot.version(), target)?
            };
            pages_moved = found.nodes.len() as u64;
            if !found.is_empty() {
                let moved = inner.checkpoint_with(&hold, ReleaseBudget::All, Some(&found))?;
                inner.age_past(&hold, moved.generation)?;
            }
        }
        Ok(CompactReport { bytes_before, bytes_after: inner.pager.file().len_bytes()?, pages_moved, page_count: inner.pager.page_count() })
    }
}
