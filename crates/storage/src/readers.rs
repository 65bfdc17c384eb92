//! The readers in flight, by epoch: the generation of the newest meta record when each
//! took its version. A slot released at generation `g` is overwritten only once no
//! reader of an epoch below `g` remains (`space/mod.rs`, "A slot a reader can reach").

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

#[derive(Debug, Default)]
pub struct Readers {
    /// Epoch → live holds of it.
    epochs: Mutex<BTreeMap<u64, usize>>,
}

/// Keeps one epoch held while it lives; clones of a `Snapshot` share one.
#[derive(Debug)]
pub struct ReaderHold {
    readers: Arc<Readers>,
    epoch: u64,
}

impl Readers {
    pub fn hold(self: &Arc<Readers>, epoch: u64) -> Arc<ReaderHold> {
        *self.lock().entry(epoch).or_insert(0) += 1;
        Arc::new(ReaderHold { readers: self.clone(), epoch })
    }

    /// The oldest epoch held, if any.
    pub fn oldest(&self) -> Option<u64> {
        self.lock().keys().next().copied()
    }

    /// Waits until no reader holds an epoch below `epoch`, or until `deadline`; true
    /// when none does. Readers end on their own (a query finishing, a snapshot let go).
    pub fn wait_for(&self, epoch: u64, deadline: std::time::Instant) -> bool {
        loop {
            if self.oldest().is_none_or(|oldest| oldest >= epoch) {
                return true;
            }
            if std::time::Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(crate::limits::READER_POLL);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, usize>> {
        // Nothing panics while holding it; a poisoned lock still holds sound counts.
        self.epochs.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl ReaderHold {
    pub fn epoch(&self) -> u64 {
        self.epoch
    }
}

impl Drop for ReaderHold {
    fn drop(&mut self) {
        let mut epochs = self.readers.lock();
        let count = epochs.get_mut(&self.epoch).expect("a held epoch is listed");
        assert!(*count > 0, "holds and releases pair up");
        *count -= 1;
        if *count == 0 {
            epochs.remove(&self.epoch);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_epoch_is_held_until_its_last_hold_goes() {
        let readers = Arc::new(Readers::default());
        assert_eq!(readers.oldest(), None);
        let a = readers.hold(3);
        let b = readers.hold(3);
        let c = readers.hold(5);
        assert_eq!(readers.oldest(), Some(3));
        drop(a);
        assert_eq!(readers.oldest(), Some(3));
        drop(b);
        assert_eq!(readers.oldest(), Some(5));
        assert_eq!(c.epoch(), 5);
        assert!(!readers.wait_for(6, std::time::Instant::now()), "epoch 5 is still held");
        drop(c);
        assert_eq!(readers.oldest(), None);
        assert!(readers.wait_for(6, std::time::Instant::now()));
    }
}
