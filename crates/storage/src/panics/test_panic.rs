//! The test-only panic trigger (docs/architecture.md, "The test-only panic trigger"):
//! how a test makes the real engine panic, to check that each panic is contained: the
//! binding's entry points (`native/src/unwind.rs`) and the sync thread
//! (`commit/group_commit.rs`).
//!
//! `TENANTDB_TEST_PANIC` names places, comma-separated: the binding's entry points as
//! JavaScript calls them (`checkpoint`, `commit`, `snapshot.range`, `settle`, …) and the
//! sync thread's steps (`sync.apply`, `sync.write`, `sync.checkpoint`). Each panics the
//! first time it is reached in the process, inside its containment, as a bug in the core
//! would. The variable is read once, by the first `trap` (or `arm`, which the binding
//! calls as the addon loads); a process that has it set says so on stderr then. Unset,
//! as in production, nothing is armed, each `trap` pays one atomic load, and nothing a
//! running process does arms it later.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// The variable that arms the trigger.
pub const VARIABLE: &str = "TENANTDB_TEST_PANIC";

struct Armed {
    entry: String,
    fired: AtomicBool,
}

static ARMED: OnceLock<Vec<Armed>> = OnceLock::new();

/// Reads `TENANTDB_TEST_PANIC` now if nothing has read it yet. Must not panic: the
/// binding calls it as the addon loads (a library constructor).
pub fn arm() {
    armed();
}

fn armed() -> &'static [Armed] {
    ARMED.get_or_init(read)
}

#[cold]
fn read() -> Vec<Armed> {
    let Ok(value) = std::env::var(VARIABLE) else { return Vec::new() };
    let armed: Vec<Armed> = value
        .split(',')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .map(|entry| Armed { entry: entry.to_string(), fired: AtomicBool::new(false) })
        .collect();
    if !armed.is_empty() {
        let _ = writeln!(std::io::stderr(), "tenantdb: {VARIABLE}={value}: the engine will panic in these calls (a test-only trigger)");
    }
    armed
}

/// Panics if `entry` is armed and has not panicked yet.
#[inline]
pub fn trap(entry: &str) {
    let armed = armed();
    if !armed.is_empty() {
        fire(armed, entry);
    }
}

#[cold]
#[inline(never)]
fn fire(armed: &[Armed], entry: &str) {
    if armed.iter().any(|a| a.entry == entry && !a.fired.swap(true, Ordering::SeqCst)) {
        panic!("a test panic ({VARIABLE}) in {entry}");
    }
}
