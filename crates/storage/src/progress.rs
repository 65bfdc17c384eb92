//! How far the long work of a database has come: the step running now (a verify's walk
//! of the pages, its recount of the space map, its read of the WAL, the entries a tree compaction rewrites, the pages a
//! checkpoint writes or moves) and how much of it is done, in atomics that the work
//! bumps as it goes and anyone may read at any time without waiting. `tenantdb verify`
//! and `compact` poll it for their progress line (docs/architecture.md, "Progress").
//!
//! One slot per database, holding the step begun last: when two steps overlap (an
//! automatic checkpoint while a compaction commits), the reader sees the newer one.
//! A step begins and ends under a sequence count (a seqlock: odd while it changes), so a
//! reader never pairs one step's name with another's total; within a step `done` and
//! `total` move on their own (done may pass an estimated total, which a display clamps).

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Mutex;

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
    /// The seqlock's count: odd while a step begins or ends, so readers retry. A step
    /// is known by the (even) count its begin left, so one that ends clears only itself.
    epoch: AtomicU64,
    /// Serialises the writers of `epoch` (beginning and ending steps; counting does not take it).
    changing: Mutex<()>,
}

impl Progress {
    /// Begins `step` of about `total`; it runs until the returned guard is dropped.
    pub fn begin(&self, step: WorkStep, total: u64) -> ProgressStep<'_> {
        let epoch = self.change(|| {
            self.done.store(0, Ordering::SeqCst);
            self.total.store(total, Ordering::SeqCst);
            self.step.store(step as u8, Ordering::SeqCst);
        });
        ProgressStep { progress: self, epoch }
    }

    /// Runs `write` with the count odd, and returns the even count it leaves.
    fn change(&self, write: impl FnOnce()) -> u64 {
        let _writer = self.changing.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        self.change_held(write)
    }

    /// `change`, the writers' lock already held.
    fn change_held(&self, write: impl FnOnce()) -> u64 {
        let before = self.epoch.fetch_add(1, Ordering::SeqCst);
        assert!(before % 2 == 0, "a progress change began inside another");
        write();
        let after = self.epoch.fetch_add(1, Ordering::SeqCst) + 1;
        assert!(after % 2 == 0 && after == before + 2, "a progress change ended inside another");
        after
    }

    /// The step running now, or None: its name and total as one step set them.
    pub fn read(&self) -> Option<ProgressReport> {
        loop {
            let before = self.epoch.load(Ordering::SeqCst);
            if before % 2 == 1 {
                std::hint::spin_loop();
                continue;
            }
            let step = self.step.load(Ordering::SeqCst);
            let total = self.total.load(Ordering::SeqCst);
            let done = self.done.load(Ordering::SeqCst);
            if self.epoch.load(Ordering::SeqCst) == before {
                return WorkStep::from_u8(step).map(|step| ProgressReport { step, done, total });
            }
        }
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
        let progress = self.progress;
        let _writer = progress.changing.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // Under the writers' lock, so no newer step can begin between the check and the clear.
        if progress.epoch.load(Ordering::SeqCst) == self.epoch {
            progress.change_held(|| progress.step.store(0, Ordering::SeqCst));
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
    fn a_reader_never_pairs_one_steps_name_with_anothers_total() {
        let progress = Progress::default();
        let stop = std::sync::atomic::AtomicBool::new(false);
        let seen = AtomicU64::new(0);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                while !stop.load(Ordering::SeqCst) {
                    if let Some(report) = progress.read() {
                        // Each step's total names it: 1000 × its number.
                        assert_eq!(report.total, 1000 * report.step as u64, "{report:?}");
                        seen.fetch_add(1, Ordering::SeqCst);
                    }
                }
            });
            // Steps begin and end back to back until the reader has read 2 000 of them
            // (a hang guard bounds the rounds).
            let mut round = 0u64;
            while seen.load(Ordering::SeqCst) < 2_000 {
                round += 1;
                assert!(round < 50_000_000, "the reader read only {} steps", seen.load(Ordering::SeqCst));
                let step = if round % 2 == 0 { WorkStep::VerifySpace } else { WorkStep::VerifyWal };
                let running = progress.begin(step, 1000 * step as u64);
                running.add(1);
                drop(running);
            }
            stop.store(true, Ordering::SeqCst);
        });
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
