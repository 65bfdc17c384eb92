//! Stored bytes, read safely and checked: the bounds-checked reader every decoder of
//! stored bytes uses (`byte_reader.rs`: malformed input yields `None`, never a panic)
//! and the one checksum of the storage core (`checksum.rs`).

mod byte_reader;
mod checksum;

pub use byte_reader::ByteReader;
pub use checksum::checksum;
