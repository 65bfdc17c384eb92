//! Decoder properties, for fuzzing. Not part of the storage API (hidden from the docs,
//! nothing in the engine calls it, and it is built only with the crate's `testing`
//! feature, which the binding never turns on): the one place the fuzz targets
//! (`crates/storage/fuzz/fuzz_targets/`) and the stable replay test
//! (`tests/fuzz_decoders.rs`) reach the decoders of stored bytes, so both run exactly
//! the same checks.
//!
//! Each `check_*` function takes arbitrary bytes, feeds them to the real decoder and
//! panics, naming the property, if one fails. Beyond "never panics" (which in safe Rust
//! also means "never reads past its input": an out-of-bounds index panics):
//!
//! - anything accepted re-encodes, by the real encoder, to exactly the bytes it was
//!   decoded from (a round trip, and proof that the decoder ignores no byte);
//! - lengths claimed by headers are bounded by the limits in `limits.rs`, and a
//!   decoder allocates at most [`ALLOC_BYTES_PER_INPUT_BYTE`] bytes per input byte (plus
//!   [`ALLOC_BYTES_BASE`]), whatever a length or count field says (measured with
//!   [`AllocMeter`] when the binary installs it as its global allocator);
//! - a checksummed image (page slot, WAL frame) that was accepted and then altered in
//!   any one byte is refused;
//! - errors are the typed corruption errors, naming the page or segment.
//!
//! Targets and their input layouts are described in their files: `page_slot`
//! (`decoders/page_slot.rs`), `btree_node`, `wal_segments`, `commit_payload`,
//! `meta_record`, `space_map`, `checkpoint_journal`. [`seeds`] makes each target's seed corpus with the real encoders
//! (`cargo run -p tenantdb-storage --example fuzz_seeds` writes it to
//! `crates/storage/fuzz/corpus/`).

mod alloc_meter;
mod btree_node;
mod checkpoint_journal;
mod commit_payload;
mod input;
mod meta_record;
mod page_slot;
mod seeds;
mod space_map;
mod wal_layout;
mod wal_segments;

pub use alloc_meter::{is_installed as alloc_meter_is_installed, measure, AllocMeter};
pub use btree_node::check_btree_node;
pub use checkpoint_journal::check_checkpoint_journal;
pub use commit_payload::check_commit_payload;
pub use meta_record::check_meta_record;
pub use page_slot::check_page_slot;
pub use seeds::seeds;
pub use space_map::check_space_map;
pub use wal_segments::check_wal_segments;

/// Every fuzz target, by the name of its cargo-fuzz binary and corpus directory.
pub const TARGETS: [&str; 7] = ["page_slot", "btree_node", "wal_segments", "commit_payload", "meta_record", "space_map", "checkpoint_journal"];

/// Bytes a decoder may allocate per byte of its input (decoded structures are wider
/// than their encoding: a 7-byte leaf entry becomes about 100 bytes of `Arc`s and enum).
pub const ALLOC_BYTES_PER_INPUT_BYTE: u64 = 32;
/// Bytes a decoder may allocate whatever its input.
pub const ALLOC_BYTES_BASE: u64 = 16 << 10;

/// Runs the check of `target` on `input`. Panics on an unknown target.
pub fn check(target: &str, input: &[u8]) {
    match target {
        "page_slot" => check_page_slot(input),
        "btree_node" => check_btree_node(input),
        "wal_segments" => check_wal_segments(input),
        "commit_payload" => check_commit_payload(input),
        "meta_record" => check_meta_record(input),
        "space_map" => check_space_map(input),
        "checkpoint_journal" => check_checkpoint_journal(input),
        _ => panic!("unknown fuzz target {target}"),
    }
}

/// Panics if `allocated` bytes exceed the bound for `input_bytes` bytes of input.
fn assert_alloc_bounded(what: &str, allocated: u64, input_bytes: usize) {
    let bound = ALLOC_BYTES_BASE + ALLOC_BYTES_PER_INPUT_BYTE * input_bytes as u64;
    assert!(
        allocated <= bound,
        "{what} allocated {allocated} bytes for {input_bytes} bytes of input (bound {bound}): \
         a length or count field drives an allocation"
    );
}
