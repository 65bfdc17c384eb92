//! Copy-on-write B-trees over memcmp-ordered byte keys.
//!
//! A tree is a [`TreeRoot`]. Every change returns a new root and leaves the old one
//! untouched; nodes built since the last checkpoint live in memory
//! ([`NodeRef::Mem`]), older ones on disk ([`NodeRef::Disk`]), loaded through the
//! pager. Values may themselves be trees ([`Value::Tree`]): that is how a root set
//! (tree name → tree) and the pin table (pin name → root set) are stored.

mod bulk;
mod cursor;
mod diff;
mod loaded;
mod node;
pub mod node_codec;
mod ops;
mod repack;
mod verify;

pub use bulk::build;
pub use cursor::range;
pub use diff::{diff, DiffEntry};

pub use loaded::load;
pub use node::{DiskLoc, Key, MemNode, Node, NodeRef, TreeRoot, Value};
pub use ops::{delete_owned, get, put_owned};
pub use repack::repack_owned;
pub use verify::{verify_tree, TreeCheck};
