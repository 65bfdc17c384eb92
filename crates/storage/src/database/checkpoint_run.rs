//! A checkpoint of the open database, and the recount of its space map that verify
//! makes (`mod.rs`, "Life of a commit"; `checkpoint/write.rs` writes the pages).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use super::Inner;
use super::backup::MaintenanceHold;
use crate::checkpoint::{checkpoint, Plan, Published, ReleaseBudget};
use crate::checkpoint::Follow;
use crate::error::{Error, Result};
use crate::limits::PAGE_BYTES;
use crate::versions::OldestRead;
use crate::checkpoint::Moves;
use super::reports::CheckpointStats;
use crate::space::SpaceStats;
use crate::commit::BatchSink;
use crate::meta::trace;
use crate::space::chain;

impl Inner {
    pub(super) fn checkpoint(&self, hold: &MaintenanceHold<'_>) -> Result<CheckpointStats> {
        self.checkpoint_with(hold, ReleaseBudget::Bounded { pages_min: self.options.space_release_pages_min }, None)
    }


    /// A checkpoint, under a maintenance hold of the backup gate (`backup/gate.rs`).
    pub(crate) fn checkpoint_with(&self, hold: &MaintenanceHold<'_>, budget: ReleaseBudget, moves: Option<&Moves>) -> Result<CheckpointStats> {
        if self.read_only {
            return Err(Error::ReadOnly("a checkpoint"));
        }
        let _serial = self.checkpoint_lock.lock().expect("checkpoint lock");
        // Paired with the gate's own check where the hold was made.
        self.gate.assert_no_backup(hold);
        let started = Instant::now();
        if let Some(cause) = self.failed() {
            return Err(Error::FailStopped(cause));
        }
        let durable = self.durable.lock().expect("durable lock").clone();
        let previous = self.meta.lock().expect("meta lock").clone();
        // The version to write, and whether the slots it frees may take its pages at once
        // (no reader holds an older version: space/mod.rs, "Writing in place"). The
        // oldest version a reader holds is written instead of the newest when it is
        // still newer than the last checkpoint, so that a reader one commit behind (the
        // usual query in flight) does not keep every checkpoint from writing in place.
        let (version, in_place) = match self.readers.oldest_read() {
            None => (durable, true),
            Some(oldest) if oldest.lsn >= durable.lsn => (durable, true),
            Some(OldestRead { lsn, version: Some(version) }) if lsn > previous.checkpoint_lsn => (version, true),
            Some(_) => (durable, false),
        };
        // Never in place when pages move: a reader of the version written still reaches
        // the moved pages' old slots (only head and durable follow the copies), so those
        // slots must wait for it like any other. Nor while verify walks the current
        // record's pages (a hold without a version): the slots this checkpoint frees are
        // among them.
        let in_place = in_place && moves.is_none() && !self.readers.record_held();
        let plan = Plan { previous: &previous, version: &version, oldest_reader: self.readers.oldest(), in_place, budget, moves };
        let journal = self.journal.as_ref().expect("a writable database has its journal");
        let published = match checkpoint(&self.pager, journal, plan) {
            Ok(published) => published,
            // A full disk while writing slots: abandoned, retried later; nothing of the
            // attempt remains (checkpoint/write.rs, "A failed checkpoint leaves no trace").
            Err(err @ Error::StorageFull { .. }) => return Err(err),
            Err(err) => return Err(self.checkpoint_failed(err)),
        };
        let Published { meta, books, pages_written, pages_released, in_place, moved } = published;
        assert_eq!(meta.generation, previous.generation + 1, "each checkpoint publishes the next generation");
        assert!(meta.checkpoint_lsn >= previous.checkpoint_lsn, "a checkpoint never goes back in LSN");
        let page_count = meta.page_count;
        let generation = meta.generation;
        let trimmed = page_count < previous.page_count;
        let previous_checkpoint_lsn = previous.checkpoint_lsn;
        {
            // Installed together, so verify sees a record and the books that go with it.
            let mut current = self.meta.lock().expect("meta lock");
            self.pager.set_space(books);
            *current = meta;
            self.space_damage.lock().expect("space damage lock").take();
        }
        // The free tail is cut off only once the record naming the shorter file is
        // durable. Like any I/O error of a checkpoint but a full disk, a failure here
        // stops the database (nothing acknowledged is lost: the record is durable).
        if trimmed {
            self.pager.file().truncate(page_count * PAGE_BYTES as u64).map_err(|err| self.checkpoint_failed(err))?;
        }
        // The versions in memory follow what was written and moved, in one pass so that
        // what they share stays shared (checkpoint/follow.rs). Under both locks (order: head,
        // then durable, as publishing takes them): a batch applied or published meanwhile
        // would hold a version followed apart.
        {
            let mut head = self.head.lock().expect("head lock");
            let mut durable = self.durable.lock().expect("durable lock");
            let mut follow = Follow::new(&self.pager, moved.as_ref());
            let followed = follow.version(&durable).and_then(|d| Ok((d, follow.version(&head.version)?)));
            let (new_durable, new_head) = followed.map_err(|err| self.checkpoint_failed(err))?;
            *durable = Arc::new(new_durable);
            head.version = Arc::new(new_head);
        }
        // Only now: a snapshot reads the generation (its epoch) before its version, so
        // one of the new epoch always has a version that follows the moved pages. One of
        // the old epoch with a new version only holds more back than it needs.
        self.generation.store(generation, Ordering::SeqCst);
        // The WAL keeps every frame after the previous checkpoint too: a crash between
        // the two slot writes of a publish leaves the previous record in one of them.
        self.wal.retain(previous_checkpoint_lsn, self.options.tail_retention_bytes).map_err(|err| self.checkpoint_failed(err))?;
        let stats = CheckpointStats { generation, checkpoint_lsn: version.lsn, pages_written, pages_released, in_place, page_count };
        self.checkpoints.lock().expect("checkpoints lock").record(&stats, started.elapsed().as_micros() as u64);
        Ok(stats)
    }

    /// Any failure other than a full disk: pages or meta may be half written, so carry
    /// on only after recovery.
    fn checkpoint_failed(&self, err: Error) -> Error {
        let cause = format!("checkpoint failed: {err}");
        self.fail_stop(cause.clone());
        Error::FailStopped(cause)
    }

    /// Recounts the space map of the current record against its pages. A reader hold
    /// of the record's epoch keeps every slot it reaches from being reused meanwhile.
    pub(super) fn verify_space(self: &Inner) -> Result<(SpaceStats, Vec<String>)> {
        // No checkpoint meanwhile: one that began before the hold below decided to write
        // in place already, over slots of the record read here (a stale page seen by
        // the recount that no reader would ever see). Commits go on.
        let _serial = self.checkpoint_lock.lock().expect("checkpoint lock");
        let (meta, _hold) = {
            let meta = self.meta.lock().expect("meta lock");
            (meta.clone(), self.readers.hold(meta.generation, meta.checkpoint_lsn, None))
        };
        let books = match meta.space {
            Some(first) => match chain::load(self.pager.file(), first, meta.page_count) {
                Ok(books) => books,
                Err(err) if err.is_corruption() => return Ok((SpaceStats::default(), vec![format!("space map: {}", self.pager.report(err))])),
                Err(err) => return Err(err),
            },
            // A record without a space map (format 1, or a damaged one, not checkpointed
            // since): the books open rebuilt are the ones to check.
            None => self.pager.space(),
        };
        let mut problems = self.space_damage.lock().expect("space damage lock").iter().cloned().collect::<Vec<_>>();
        problems.extend(trace::check(&self.pager, &meta, &books)?.problems);
        Ok((books.stats(), problems))
    }
}
