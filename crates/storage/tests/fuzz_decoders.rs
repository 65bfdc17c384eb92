//! Fuzz, on stable Rust: every stored fuzz input (`fuzz/corpus/<target>/`,
//! `fuzz/regressions/<target>/`) and every generated seed goes through the same
//! property checks the cargo-fuzz targets run (`storage::decoders`), then a bounded,
//! deterministic mutation loop per decoder, so machines without a nightly toolchain
//! still exercise the decoders on every `cargo test`.
//!
//! `TENANTDB_FUZZ_ITERATIONS` raises the mutations per target (default 50 000);
//! `TENANTDB_FUZZ_SEED` picks another mutation seed. A failure names the seed and the
//! mutation, and saves the input to a file to keep as a regression.

mod common;

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use common::Rng;
use storage::decoders::{self, AllocMeter};

#[global_allocator]
static METER: AllocMeter = AllocMeter;

const ITERATIONS_DEFAULT: u64 = 50_000;
const SEED_DEFAULT: u64 = 0x7E4A_47DB_F022_2026;
/// Mutated inputs are cut to this, so stacked insertions stay cheap.
const INPUT_BYTES_MAX: usize = 64 << 10;

#[test]
fn fuzz_page_slot() {
    fuzz("page_slot");
}

#[test]
fn fuzz_btree_node() {
    fuzz("btree_node");
}

#[test]
fn fuzz_wal_segments() {
    fuzz("wal_segments");
}

#[test]
fn fuzz_commit_payload() {
    fuzz("commit_payload");
}

#[test]
fn fuzz_meta_record() {
    fuzz("meta_record");
}

#[test]
fn fuzz_space_map() {
    fuzz("space_map");
}

#[test]
fn fuzz_checkpoint_journal() {
    fuzz("checkpoint_journal");
}

#[test]
fn fuzz_every_target_is_replayed_here() {
    let tested = ["page_slot", "btree_node", "wal_segments", "commit_payload", "meta_record", "space_map", "checkpoint_journal"];
    assert_eq!(decoders::TARGETS, tested, "a target without its test above is never replayed");
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).map_or(default, |v| v.parse().unwrap_or_else(|_| panic!("{name}={v} is not a number")))
}

fn fuzz_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// `(name, bytes)` of every file in `dir`, sorted by name; none if `dir` is absent.
fn files_in(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let Ok(entries) = fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<(String, Vec<u8>)> = entries
        .map(|e| e.expect("read a corpus entry").path())
        .filter(|p| p.is_file())
        .map(|p| (p.display().to_string(), fs::read(&p).expect("read a corpus file")))
        .collect();
    files.sort();
    files
}

/// Runs one input; a panic becomes its message.
fn run(target: &str, input: &[u8]) -> Result<(), String> {
    catch_unwind(AssertUnwindSafe(|| decoders::check(target, input))).map_err(|panic| {
        panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic without a message".into())
    })
}

fn fuzz(target: &str) {
    assert!(decoders::alloc_meter_is_installed(), "allocation bounds would not be measured");
    let corpus = files_in(&fuzz_dir().join("corpus").join(target));
    assert!(!corpus.is_empty(), "no corpus for {target} in fuzz/corpus/{target}");
    let mut inputs = corpus;
    inputs.extend(files_in(&fuzz_dir().join("regressions").join(target)));
    inputs.extend(decoders::seeds(target).into_iter().map(|(name, bytes)| (format!("generated seed {name}"), bytes)));
    for (name, input) in &inputs {
        if let Err(message) = run(target, input) {
            panic!("{target}: {name} fails: {message}");
        }
    }

    let seed = env_u64("TENANTDB_FUZZ_SEED", SEED_DEFAULT);
    let iterations = env_u64("TENANTDB_FUZZ_ITERATIONS", ITERATIONS_DEFAULT);
    let mut rng = Rng::new(seed ^ target.bytes().fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(b.into())));
    let corpus: Vec<&[u8]> = inputs.iter().map(|(_, bytes)| &bytes[..]).collect();
    for iteration in 0..iterations {
        let input = if rng.chance(10) {
            let len = rng.below(600) as usize;
            rng.bytes(len)
        } else {
            mutate(&mut rng, &corpus)
        };
        if let Err(message) = run(target, &input) {
            let saved = std::env::temp_dir().join(format!("tenantdb-fuzz-{target}-seed{seed}-mutation{iteration}"));
            fs::write(&saved, &input).expect("save the failing input");
            panic!(
                "{target}: mutation {iteration} of seed {seed} fails: {message}\n\
                 input ({} bytes) saved to {}; rerun with TENANTDB_FUZZ_SEED={seed}, and keep it as \
                 crates/storage/fuzz/regressions/{target}/<what it breaks>",
                input.len(),
                saved.display()
            );
        }
    }
}

/// Values that sit on the edges of the formats' length fields and limits.
const INTERESTING: [u64; 14] = [0, 1, 2, 7, 8, 32, 255, 960, 961, 1024, 1025, 4064, 0xFFFF, 0xFFFF_FFFF];

/// One to four stacked mutations of a corpus input.
fn mutate(rng: &mut Rng, corpus: &[&[u8]]) -> Vec<u8> {
    let mut bytes = corpus[rng.below(corpus.len() as u64) as usize].to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = bytes.len() as u64;
        let at = |rng: &mut Rng| if len == 0 { 0 } else { rng.below(len) as usize };
        match rng.below(9) {
            0 if len > 0 => {
                let i = at(rng);
                bytes[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = at(rng);
                bytes[i] = rng.next() as u8;
            }
            2 if len >= 4 => {
                let i = at(rng).min(bytes.len() - 4);
                let value = INTERESTING[rng.below(INTERESTING.len() as u64) as usize] as u32;
                let width = if rng.chance(50) { 2 } else { 4 };
                bytes[i..i + width].copy_from_slice(&value.to_le_bytes()[..width]);
            }
            3 => {
                let i = at(rng);
                let n = 1 + rng.below(16) as usize;
                let insert = rng.bytes(n);
                bytes.splice(i..i, insert);
            }
            4 if len > 0 => {
                let i = at(rng);
                let n = (1 + rng.below(32) as usize).min(bytes.len() - i);
                bytes.drain(i..i + n);
            }
            5 => bytes.truncate(at(rng)),
            6 if len > 0 => {
                // Copy a chunk elsewhere: repeated entries, frames, fields.
                let from = at(rng);
                let n = (1 + rng.below(64) as usize).min(bytes.len() - from);
                let chunk = bytes[from..from + n].to_vec();
                let to = at(rng);
                bytes.splice(to..to, chunk);
            }
            7 => {
                // Splice in the tail of another input.
                let other = corpus[rng.below(corpus.len() as u64) as usize];
                let from = if other.is_empty() { 0 } else { rng.below(other.len() as u64) as usize };
                bytes.truncate(at(rng));
                bytes.extend_from_slice(&other[from..]);
            }
            // Bit 0 of the first byte turns on sealing (recomputed checksums) in the
            // page and WAL targets, which gets mutations past the checksum.
            _ if len > 0 => bytes[0] |= 1,
            _ => {}
        }
    }
    bytes.truncate(INPUT_BYTES_MAX);
    bytes
}
