//! Fuzz target `btree_node`: the checks are `storage::decoders::check_btree_node` (input layout and
//! properties in `crates/storage/src/decoders/btree_node.rs`), shared with the stable replay
//! test `crates/storage/tests/fuzz_decoders.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use storage::decoders::{check_btree_node, AllocMeter};

// Counts allocations, so the checks can bound what a length field makes a decoder allocate.
#[global_allocator]
static METER: AllocMeter = AllocMeter;

fuzz_target!(|input: &[u8]| check_btree_node(input));
