//! The meta record and what it reaches. The record (`record.rs`), mirrored in both meta
//! slots, names the root set, the pin table and the space map chain of one checkpoint:
//! everything on disk is reached from it. `trace.rs` recounts every reference it and
//! the pages it reaches hold, to rebuild a space map at open and to check one in
//! `verify`; it lives here rather than in `space/` because it reads B-tree nodes, a
//! layer above the space map (docs/architecture.md, "Storage layers").

mod record;
pub mod trace;

pub use record::{check_slots, Meta, META_BYTES};
