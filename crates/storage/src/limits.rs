//! Every limit of the storage core, in one place, each named with its unit.

/// Size of one page slot on disk. Fixed for the life of a directory (recorded in meta).
pub const PAGE_BYTES: usize = 4096;

/// Number of meta slots at the head of the page file (alternated on every publish).
pub const META_SLOTS: u64 = 2;

/// Largest page number the allocator hands out: 2^40 pages of 4 KiB is 4 PiB.
pub const PAGE_NO_MAX: u64 = 1 << 40;

const _: () = assert!(PAGE_BYTES.is_power_of_two() && PAGE_BYTES >= 512);
