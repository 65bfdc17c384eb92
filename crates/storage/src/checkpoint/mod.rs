//! Checkpoints: putting a version's in-memory nodes on disk. `write.rs` writes them to
//! free slots, accounts for the space they take and free, and publishes a meta record
//! naming them; every page image leaves through the sink (`sink.rs`), into its slot or,
//! when the checkpoint writes in place, into the checkpoint journal first
//! (`journal.rs`, redone at open). On the way it releases the references of pages
//! whose count reached zero (`release.rs`) and writes the copies of pages compaction
//! moves down the file (`relocate.rs`); once it is durable, the versions in memory
//! follow it to what it wrote (`follow.rs`). Running one on the open database is
//! `database/checkpoint_run.rs`.

mod follow;
mod journal;
mod release;
mod relocate;
mod sink;
mod write;

pub use follow::Follow;
pub use journal::{Journal, JOURNAL_FILE_NAME};
pub use relocate::{moves, Moves};
pub use write::{checkpoint, Plan, Published, ReleaseBudget};
