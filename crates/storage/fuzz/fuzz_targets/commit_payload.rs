//! Fuzz target `commit_payload`: the checks are `storage::decoders::check_commit_payload` (input layout and
//! properties in `crates/storage/src/decoders/commit_payload.rs`), shared with the stable replay
//! test `crates/storage/tests/fuzz_decoders.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use storage::decoders::{check_commit_payload, AllocMeter};

// Counts allocations, so the checks can bound what a length field makes a decoder allocate.
#[global_allocator]
static METER: AllocMeter = AllocMeter;

fuzz_target!(|input: &[u8]| check_commit_payload(input));
