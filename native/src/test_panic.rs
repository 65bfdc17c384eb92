//! The test-only panic trigger (docs/architecture.md, "Testing"): how a test makes the
//! real engine panic, to check that no panic crosses the binding (`unwind.rs`).
//!
//! `TENANTDB_TEST_PANIC`, read once as the addon loads, names entry points as
//! JavaScript calls them, comma-separated (`checkpoint`, `commit`, `snapshot.range`,
//! `settle`, …). Each panics the first time it is called in the process, inside its
//! containment, as a bug in the core would. Unset, as in production, nothing is armed
//! and each call pays one atomic load; nothing a running process does arms it later,
//! and a process that has it set says so on stderr as it loads.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

struct Armed {
    entry: String,
    fired: AtomicBool,
}

static ARMED: OnceLock<Vec<Armed>> = OnceLock::new();

/// Runs as the addon loads (a library constructor, before any call): it must not panic.
#[napi_derive::module_init]
fn arm() {
    let Ok(value) = std::env::var("TENANTDB_TEST_PANIC") else { return };
    let armed: Vec<Armed> = value
        .split(',')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .map(|entry| Armed { entry: entry.to_string(), fired: AtomicBool::new(false) })
        .collect();
    if armed.is_empty() {
        return;
    }
    let _ = writeln!(std::io::stderr(), "tenantdb: TENANTDB_TEST_PANIC={value}: the engine will panic in these calls (a test-only trigger)");
    let _ = ARMED.set(armed);
}

/// Panics if `entry` is armed and has not panicked yet.
#[inline]
pub fn trap(entry: &str) {
    if let Some(armed) = ARMED.get() {
        fire(armed, entry);
    }
}

#[cold]
#[inline(never)]
fn fire(armed: &[Armed], entry: &str) {
    if armed.iter().any(|a| a.entry == entry && !a.fired.swap(true, Ordering::SeqCst)) {
        panic!("a test panic (TENANTDB_TEST_PANIC) in {entry}");
    }
}
