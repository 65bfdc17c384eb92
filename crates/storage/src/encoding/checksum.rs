//! The one checksum of the storage core: xxHash3, 64 bits.

pub fn checksum(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}
