//! The N-API binding: one-line delegates over `storage`, one error mapping
//! (`error.rs`), and async tasks for anything that touches the disk.

mod engine;
mod error;
mod open_task;

pub use engine::Engine;
pub use open_task::open;
