//! tenantdb's storage core. Pure Rust; it knows nothing of Node.
//!
//! The public surface is listed here; everything else is private to the crate.

mod checksum;
mod database;
mod dir_lock;
mod error;
pub mod limits;
mod meta;
mod page;
mod page_file;

pub use database::{Database, Options, Stats};
pub use error::{CorruptionKind, Error, Result};
pub use page::{PageType, PAGE_HEADER_BYTES};
