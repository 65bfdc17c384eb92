//! Fuzz target `checkpoint_journal`: the checks are `storage::decoders::check_checkpoint_journal` (input layout and
//! properties in `crates/storage/src/decoders/checkpoint_journal.rs`), shared with the stable replay
//! test `crates/storage/tests/fuzz_decoders.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use storage::decoders::{check_checkpoint_journal, AllocMeter};

// Counts allocations, so the checks can bound what a length field makes a decoder allocate.
#[global_allocator]
static METER: AllocMeter = AllocMeter;

fuzz_target!(|input: &[u8]| check_checkpoint_journal(input));
