//! How far the long work of a database has come: the step running now (a verify's walk
//! of the pages, its recount of the space map, its read of the WAL, the entries a tree compaction rewrites, the pages a
//! checkpoint writes or moves) and how much of it is done, in atomics that the work
//! bumps as it goes and anyone may read at any time without waiting. `tenantdb verify`
//! and `compact` poll it for their progress line (docs/architecture.md, "Progress").
//!
//! One slot per database, holding the step begun last: when two steps overlap (an
//! automatic checkpoint while a compaction commits), the reader sees the newer one.
//! The three values are not read as one: a reader may see a count of the step before,
//! which a display clamps; nothing but a display reads them.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// A kind of long work, with the unit it counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum WorkStep {
    /// Verify walks every page reachable from the newest version and its pins.
    VerifyPages = 1,
    /// Verify reads every WAL segment.
    VerifyWal = 2,
    /// A commit rebuilds trees from their live entries (`compact_tree`).
    CompactTrees = 3,
    /// A checkpoint writes the pages of a version.
    WritePages = 4,
    /// A checkpoint writes pages moved down the file (`compact_space`).
    MovePages = 5,
    /// Verify recounts the references of every page against the space map.
    VerifySpace = 6,
}

impl WorkStep {
    fn from_u8(value: u8) -> Option<WorkStep> {
        [WorkStep::VerifyPages, WorkStep::VerifyWal, WorkStep::CompactTrees, WorkStep::WritePages, WorkStep::MovePages, WorkStep::VerifySpace]
            .into_iter()
            .find(|step| *step as u8 == value)
    }

    /// Its name, as the binding gives it.
    pub fn name(self) -> &'static str {
        match self {
            WorkStep::VerifyPages => "verify_pages",
            WorkStep::VerifyWal => "verify_wal",
            WorkStep::CompactTrees => "compact_trees",
            WorkStep::WritePages => "write_pages",
            WorkStep::MovePages => "move_pages",
            WorkStep::VerifySpace => "verify_space",
        }
    }

    /// What `done` and `total` count.
    pub fn unit(self) -> &'static str {
        match self {
            WorkStep::VerifyPages | WorkStep::WritePages | WorkStep::MovePages | WorkStep::VerifySpace => "pages",
            WorkStep::VerifyWal => "bytes",
            WorkStep::CompactTrees => "entries",
        }
    }
}

/// A step as read: `done` of about `total` (a total is an estimate where the work
/// cannot know it exactly up front, so `done` may pass it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProgressReport {
    pub step: WorkStep,
    pub done: u64,
    pub total: u64,
}

#[derive(Debug, Default)]
pub struct Progress {
    /// The running step (`WorkStep as u8`), 0 for none.
    step: AtomicU8,
    done: AtomicU64,
    total: AtomicU64,
    /// Bumped by every `begin`, so a step that ends clears only itself.
    epoch: AtomicU64,
}

impl Progress {
    /// Begins `step` of about `total`; it runs until the returned guard is dropped.
    pub fn begin(&self, step: WorkStep, total: u64) -> ProgressStep<'_> {
        let epoch = self.epoch.fetch_add(1, Ordering::AcqRel) + 1;
        self.done.store(0, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
        self.step.store(step as u8, Ordering::Release);
        ProgressStep { progress: self, epoch }
    }

    /// The step running now, or None.
    pub fn read(&self) -> Option<ProgressReport> {
        let step = WorkStep::from_u8(self.step.load(Ordering::Acquire))?;
        Some(ProgressReport { step, done: self.done.load(Ordering::Relaxed), total: self.total.load(Ordering::Relaxed) })
    }
}

/// A running step; dropping it ends the step unless a newer one began since.
#[derive(Debug)]
pub struct ProgressStep<'a> {
    progress: &'a Progress,
    epoch: u64,
}

impl ProgressStep<'_> {
    fn current(&self) -> bool {
        self.progress.epoch.load(Ordering::Acquire) == self.epoch
    }

    /// Counts `n` more done.
    pub fn add(&self, n: u64) {
        if self.current() {
            self.progress.done.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// The step turned out to be `n` larger.
    pub fn add_total(&self, n: u64) {
        if self.current() {
            self.progress.total.fetch_add(n, Ordering::Relaxed);
        }
    }
}

impl Drop for ProgressStep<'_> {
    fn drop(&mut self) {
        if self.current() {
            self.progress.step.store(0, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_counts_until_it_ends() {
        let progress = Progress::default();
        assert_eq!(progress.read(), None);
        let step = progress.begin(WorkStep::VerifyPages, 10);
        step.add(3);
        step.add_total(5);
        assert_eq!(progress.read(), Some(ProgressReport { step: WorkStep::VerifyPages, done: 3, total: 15 }));
        drop(step);
        assert_eq!(progress.read(), None);
    }

    #[test]
    fn a_newer_step_wins_and_an_older_one_ending_leaves_it() {
        let progress = Progress::default();
        let older = progress.begin(WorkStep::CompactTrees, 100);
        let newer = progress.begin(WorkStep::WritePages, 7);
        older.add(50);
        newer.add(2);
        drop(older);
        assert_eq!(progress.read(), Some(ProgressReport { step: WorkStep::WritePages, done: 2, total: 7 }));
        drop(newer);
        assert_eq!(progress.read(), None);
    }

    #[test]
    fn every_step_has_a_name_and_a_unit() {
        for value in 1..=6u8 {
            let step = WorkStep::from_u8(value).expect("a step");
            assert_eq!(step as u8, value);
            assert!(!step.name().is_empty() && !step.unit().is_empty());
        }
        assert_eq!(WorkStep::from_u8(0), None);
        assert_eq!(WorkStep::from_u8(7), None);
    }
}
