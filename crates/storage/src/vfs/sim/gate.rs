//! Holding one file `sync` of the simulated disk in place until the test lets it go,
//! so a test can act while another thread is inside an fsync (queue commits behind a
//! group commit's fsync, start a close) by waiting for an event instead of sleeping.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

#[derive(Default)]
pub(super) struct SyncGate {
    state: Mutex<GateState>,
    changed: Condvar,
}

#[derive(Default)]
struct GateState {
    /// The next sync stops at the gate.
    armed: bool,
    /// A sync is stopped at the gate now.
    held: bool,
    /// The held sync may go on.
    released: bool,
}

impl SyncGate {
    fn lock(&self) -> MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Called by every file sync before it does anything: the first one after the gate
    /// was armed waits there until released.
    pub(super) fn pass(&self) {
        let mut state = self.lock();
        if !state.armed {
            return;
        }
        state.armed = false;
        state.held = true;
        self.changed.notify_all();
        while !state.released {
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.held = false;
        state.released = false;
        self.changed.notify_all();
    }

    /// Arms the gate for the next sync, once the sync held before (if any) has left.
    pub(super) fn arm(self: &Arc<Self>) -> HeldSync {
        let mut state = self.lock();
        while state.held {
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        assert!(!state.armed, "one held sync at a time");
        state.armed = true;
        HeldSync { gate: Arc::clone(self) }
    }
}

/// The next file sync of a `SimVfs` (`SimVfs::hold_next_sync`), held at the gate once
/// it arrives. Dropping this lets it go (or disarms the gate if none arrived).
pub struct HeldSync {
    gate: Arc<SyncGate>,
}

impl HeldSync {
    /// Whether a sync is stopped at the gate now.
    pub fn is_held(&self) -> bool {
        self.gate.lock().held
    }

    /// Waits up to `timeout` for a sync to arrive at the gate; true once one is held.
    pub fn wait_held(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut state = self.gate.lock();
        while !state.held {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            state = self.gate.changed.wait_timeout(state, deadline - now).unwrap_or_else(|e| e.into_inner()).0;
        }
        true
    }

    /// Lets the held sync go on.
    pub fn release(self) {}
}

impl Drop for HeldSync {
    fn drop(&mut self) {
        let mut state = self.gate.lock();
        if state.held {
            state.released = true;
        }
        state.armed = false;
        self.gate.changed.notify_all();
    }
}
