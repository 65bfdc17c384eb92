//! The test-only panic trigger (docs/architecture.md, "The test-only panic trigger"):
//! how a test makes the real engine panic, to check that no panic crosses the binding
//! (`unwind.rs`). The trigger itself is the storage core's
//! (`crates/storage/src/panics/test_panic.rs`), shared with the core's sync thread; the
//! binding's entry points trap under the names JavaScript calls them (`checkpoint`,
//! `commit`, `snapshot.range`, `settle`, …).
//!
//! `TENANTDB_TEST_PANIC` is read as the addon loads, so a process that has it set says
//! so on stderr then, and nothing a running process does arms it later.

pub use storage::test_panic::trap;

/// Runs as the addon loads (a library constructor, before any call): it must not panic.
#[napi_derive::module_init]
fn arm() {
    storage::test_panic::arm();
}
