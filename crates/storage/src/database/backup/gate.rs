//! The backup gate: what keeps the files a backup copies still while it copies them.
//!
//! A directory's files change in two ways (`database/`, "Directory contents"): WAL
//! appends, which only ever write past the newest segment's last durable frame, and
//! maintenance (a checkpoint, and compaction, which is a run of checkpoints), which
//! writes the page file and the journal, cuts the page file, and deletes WAL segments.
//! A copy of each file up to the length it had when the backup began is therefore a
//! consistent directory at one LSN exactly when no maintenance runs while it is read.
//!
//! Backups and maintenance exclude each other; each kind may run several at once (two
//! backups share the gate, counted; nested checkpoints of one compaction share it too):
//!
//! - `enter_backup` waits for running maintenance to finish (a checkpoint, or a whole
//!   compaction), then holds the gate until `leave_backup`.
//! - `try_maintenance` never waits: while a backup holds the gate it answers `None`,
//!   and the caller refuses (`Error::BackupInProgress`: an explicit checkpoint or a
//!   compaction) or skips (the closing checkpoint; recovery replays the WAL instead).
//!   It never waits because its callers run on a bounded thread pool (the binding's
//!   libuv pool) that the backup's own reads need: waiting there could starve them.
//! - `try_automatic` is the sync thread's checkpoint: also skipped while a backup
//!   waits to begin, so a backup is never kept waiting by checkpoints that follow each
//!   other. It runs after a later batch, once the backup has ended.
//!
//! Paired assertions: a maintenance hold is only made while no backup holds the gate,
//! and a backup only begins while no maintenance holds it (asserted where each is
//! taken); `assert_no_backup` asserts it again where maintenance writes.

use std::sync::{Condvar, Mutex, MutexGuard};

#[derive(Default)]
pub(crate) struct BackupGate {
    state: Mutex<GateState>,
    changed: Condvar,
}

#[derive(Default)]
struct GateState {
    /// Backups holding the gate.
    backups: u64,
    /// Backups waiting in `enter_backup` for maintenance to finish.
    waiting: u64,
    /// Maintenance holds (a compaction holds one across its checkpoints, which take
    /// none of their own: see `MaintenanceHold`).
    maintenance: u64,
}

/// Proof that the gate is held for maintenance: a checkpoint takes one as an argument,
/// so none can run without it. Dropping it lets waiting backups begin.
pub(crate) struct MaintenanceHold<'a> {
    gate: &'a BackupGate,
}

impl BackupGate {
    fn lock(&self) -> MutexGuard<'_, GateState> {
        // Nothing panics while holding it but the assertions below, which leave the
        // counts as they were.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until no maintenance runs, then holds the gate for one backup.
    pub(crate) fn enter_backup(&self) {
        let mut state = self.lock();
        state.waiting += 1;
        while state.maintenance > 0 {
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.waiting -= 1;
        assert_eq!(state.maintenance, 0, "a backup begins only while no checkpoint or compaction runs");
        state.backups += 1;
    }

    /// Ends one backup's hold.
    pub(crate) fn leave_backup(&self) {
        let mut state = self.lock();
        assert!(state.backups > 0, "a backup leaves the gate it entered");
        state.backups -= 1;
        drop(state);
        self.changed.notify_all();
    }

    /// A maintenance hold, or `None` while a backup holds the gate.
    pub(crate) fn try_maintenance(&self) -> Option<MaintenanceHold<'_>> {
        let mut state = self.lock();
        if state.backups > 0 {
            return None;
        }
        state.maintenance += 1;
        Some(MaintenanceHold { gate: self })
    }

    /// The automatic checkpoint's hold: `None` while a backup holds the gate or waits
    /// for it.
    pub(crate) fn try_automatic(&self) -> Option<MaintenanceHold<'_>> {
        if self.lock().waiting > 0 {
            return None;
        }
        self.try_maintenance()
    }

    /// Backups holding the gate now.
    pub(crate) fn backups(&self) -> u64 {
        self.lock().backups
    }

    /// Where maintenance writes: no backup may be copying.
    pub(crate) fn assert_no_backup(&self, hold: &MaintenanceHold<'_>) {
        assert!(std::ptr::eq(hold.gate, self), "a maintenance hold of this database's gate");
        assert_eq!(self.lock().backups, 0, "no backup copies the files while a checkpoint or compaction writes them");
    }
}

impl Drop for MaintenanceHold<'_> {
    fn drop(&mut self) {
        let mut state = self.gate.lock();
        assert!(state.maintenance > 0, "a maintenance hold leaves the gate it entered");
        assert_eq!(state.backups, 0, "no backup began while a checkpoint or compaction held the gate");
        state.maintenance -= 1;
        drop(state);
        self.gate.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn backups_and_maintenance_exclude_each_other() {
        let gate = BackupGate::default();
        let first = gate.try_maintenance().expect("free");
        let nested = gate.try_maintenance().expect("maintenance holds nest");
        drop(nested);
        drop(first);
        gate.enter_backup();
        gate.enter_backup();
        assert_eq!(gate.backups(), 2, "two backups share the gate");
        assert!(gate.try_maintenance().is_none());
        assert!(gate.try_automatic().is_none());
        gate.leave_backup();
        assert!(gate.try_maintenance().is_none(), "until the last backup leaves");
        gate.leave_backup();
        assert!(gate.try_maintenance().is_some());
    }

    #[test]
    fn a_backup_waits_for_maintenance_and_automatic_checkpoints_yield_to_it() {
        let gate = Arc::new(BackupGate::default());
        let hold = gate.try_maintenance().expect("free");
        let entering = {
            let gate = gate.clone();
            std::thread::spawn(move || gate.enter_backup())
        };
        // Until the backup is seen waiting (bounded: it cannot enter while held).
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while gate.lock().waiting == 0 {
            assert!(std::time::Instant::now() < deadline, "the backup never waited");
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(gate.try_automatic().is_none(), "an automatic checkpoint yields to a waiting backup");
        assert_eq!(gate.backups(), 0, "the backup waits while maintenance runs");
        drop(hold);
        entering.join().unwrap();
        assert_eq!(gate.backups(), 1);
        gate.leave_backup();
    }
}
