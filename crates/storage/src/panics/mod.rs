//! Panics, as the core contains them: a panic's message, the cause of the fail-stop
//! that follows (`panic_message.rs`), and the test-only trigger that makes the real
//! engine panic where a test names (`test_panic.rs`). It ships in the library: the
//! binding's tests arm it in the release addon through `TENANTDB_TEST_PANIC`
//! (docs/architecture.md, "The test-only panic trigger"), and unset it costs one atomic
//! load per trap.

mod panic_message;
pub mod test_panic;

pub use panic_message::panic_message;
