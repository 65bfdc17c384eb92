//! Copy-on-write B-trees over memcmp-ordered byte keys.
//!
//! A tree is a [`TreeRoot`]. Every change returns a new root and leaves the old one
//! untouched; nodes built since the last checkpoint live in memory
//! ([`NodeRef::Mem`]), older ones on disk ([`NodeRef::Disk`]), loaded through the
//! pager. The tree sits on the pager's pages (`node_io.rs`, `value_io.rs`); the pager
//! knows nothing of nodes (docs/architecture.md, "Storage layers"). Values may themselves be trees ([`Value::Tree`]): that is how a root set
//! (tree name → tree) and the pin table (pin name → root set) are stored.

mod bulk;
mod cursor;
mod diff;
mod get_sorted;
mod keys;
mod loaded;
mod node;
pub mod node_codec;
mod node_io;
mod ops;
mod references;
mod repack;
mod value_io;
mod verify;

pub use bulk::build;
pub use cursor::{range, range_each};
pub use diff::{diff, DiffEntry};
pub use get_sorted::get_sorted;

pub use loaded::load;
pub use node::{Branch, Bytes, Key, MemNode, Node, NodeRef, TreeRoot, Value};
/// The fuzz seeds build a leaf by hand (`decoders/seeds.rs`).
#[cfg(feature = "testing")]
pub use node::Leaf;
pub use node_io::{load_node, write_node};
pub use ops::{delete_owned, get, put_owned};
pub use references::node_references;
pub use repack::repack_owned;
pub use value_io::{read_value, write_overflow};
pub use verify::{verify_tree, TreeCheck};
