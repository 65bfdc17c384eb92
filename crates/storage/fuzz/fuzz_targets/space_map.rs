//! Fuzz target `space_map`: the checks are `storage::decoders::check_space_map` (input layout and
//! properties in `crates/storage/src/decoders/space_map.rs`), shared with the stable replay
//! test `crates/storage/tests/fuzz_decoders.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use storage::decoders::{check_space_map, AllocMeter};

// Counts allocations, so the checks can bound what a length field makes a decoder allocate.
#[global_allocator]
static METER: AllocMeter = AllocMeter;

fuzz_target!(|input: &[u8]| check_space_map(input));
