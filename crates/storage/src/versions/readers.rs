//! The readers in flight: for each, the generation of the newest meta record when it
//! took its version (its epoch) and that version's LSN. A slot released at generation
//! `g` becomes free only once no reader of an epoch below `g` remains (`space/mod.rs`,
//! "A slot a reader can reach"); a checkpoint writes over the slots it releases itself
//! only when no reader holds a version at an LSN below the one it writes ("Writing in
//! place"), and to make that likely it writes the oldest version a reader holds when
//! that one is newer than the last checkpoint. `verify` holds a meta record's epoch and
//! checkpoint LSN without a version, while it reads that record's pages.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Instant;

use super::version::Version;

#[derive(Debug, Default)]
pub struct Readers {
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    /// Epoch → live holds of it.
    epochs: BTreeMap<u64, usize>,
    /// LSN of the version held → live holds, and one of those versions (weakly).
    versions: BTreeMap<u64, (usize, Weak<Version>)>,
    /// Holds of a meta record's pages without a version (verify).
    records: usize,
}

/// Keeps one epoch and one version held while it lives; clones of a `Snapshot`, and
/// the pinned versions read from it, share one.
#[derive(Debug)]
pub struct ReaderHold {
    readers: Arc<Readers>,
    epoch: u64,
    lsn: u64,
    /// A hold of a record's pages without a version.
    record: bool,
}

/// The oldest version a reader holds.
pub struct OldestRead {
    pub lsn: u64,
    /// The version itself, while some reader still has it.
    pub version: Option<Arc<Version>>,
}

impl Readers {
    /// A hold of `version`, taken at `epoch` (never newer than the version: the
    /// caller reads the epoch first). `version` is none for a hold of a meta record's
    /// pages only (verify): it holds its epoch and LSN, and names no version to reuse.
    pub fn hold(self: &Arc<Readers>, epoch: u64, lsn: u64, version: Option<&Arc<Version>>) -> Arc<ReaderHold> {
        assert!(version.is_none_or(|v| v.lsn == lsn), "a hold is listed under its version's LSN");
        let mut held = self.lock();
        *held.epochs.entry(epoch).or_insert(0) += 1;
        let entry = held.versions.entry(lsn).or_insert_with(|| (0, Weak::new()));
        entry.0 += 1;
        if let Some(version) = version.filter(|_| entry.1.strong_count() == 0) {
            entry.1 = Arc::downgrade(version);
        }
        let record = version.is_none();
        held.records += usize::from(record);
        Arc::new(ReaderHold { readers: self.clone(), epoch, lsn, record })
    }

    /// Whether some hold reads a meta record's pages without a version (verify).
    pub fn record_held(&self) -> bool {
        self.lock().records > 0
    }

    /// The oldest epoch held, if any.
    pub fn oldest(&self) -> Option<u64> {
        self.lock().epochs.keys().next().copied()
    }

    /// The oldest version held, if any.
    pub fn oldest_read(&self) -> Option<OldestRead> {
        let oldest = self.lock().versions.iter().next().map(|(&lsn, (_, weak))| OldestRead { lsn, version: weak.upgrade() });
        assert!(oldest.as_ref().is_none_or(|o| o.version.as_ref().is_none_or(|v| v.lsn == o.lsn)), "the oldest version held is the one at its LSN");
        oldest
    }

    /// Waits until no reader holds an epoch below `epoch`, or until `deadline`; true
    /// when none does. Readers end on their own (a query finishing, a snapshot let go).
    pub fn wait_for(&self, epoch: u64, deadline: Instant) -> bool {
        loop {
            if self.oldest().is_none_or(|oldest| oldest >= epoch) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(crate::limits::READER_POLL);
        }
    }

    fn lock(&self) -> MutexGuard<'_, Held> {
        // Nothing panics while holding it; a poisoned lock still holds sound counts.
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl ReaderHold {
    pub fn epoch(&self) -> u64 {
        self.epoch
    }
}

impl Drop for ReaderHold {
    fn drop(&mut self) {
        let mut held = self.readers.lock();
        let count = held.epochs.get_mut(&self.epoch).expect("a held epoch is listed");
        assert!(*count > 0, "holds and releases pair up");
        *count -= 1;
        if *count == 0 {
            held.epochs.remove(&self.epoch);
        }
        let (count, _) = held.versions.get_mut(&self.lsn).expect("a held version is listed");
        assert!(*count > 0, "holds and releases pair up");
        *count -= 1;
        if *count == 0 {
            held.versions.remove(&self.lsn);
        }
        if self.record {
            assert!(held.records > 0, "record holds and releases pair up");
            held.records -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_epoch_and_version_are_held_until_their_last_hold_goes() {
        let readers = Arc::new(Readers::default());
        assert_eq!(readers.oldest(), None);
        assert!(readers.oldest_read().is_none());
        let old = Arc::new(Version { lsn: 10, ..Version::default() });
        let a = readers.hold(3, 10, Some(&old));
        let b = readers.hold(3, 10, None);
        let c = readers.hold(5, 20, None);
        assert_eq!(readers.oldest(), Some(3));
        let oldest = readers.oldest_read().unwrap();
        assert_eq!((oldest.lsn, oldest.version.map(|v| v.lsn)), (10, Some(10)));
        drop(a);
        assert_eq!(readers.oldest(), Some(3));
        drop(old);
        assert!(readers.oldest_read().unwrap().version.is_none(), "a version gone is not kept alive");
        drop(b);
        assert_eq!(readers.oldest(), Some(5));
        assert_eq!(readers.oldest_read().unwrap().lsn, 20);
        assert_eq!(c.epoch(), 5);
        assert!(!readers.wait_for(6, Instant::now()), "epoch 5 is still held");
        drop(c);
        assert_eq!(readers.oldest(), None);
        assert!(readers.wait_for(6, Instant::now()));
    }
}
