//! Property test of the commit codec (`Commit::encode` / `Commit::decode`, the WAL
//! frame payload of `docs/format.md`), from random valid commits rather than garbage:
//!
//! - every commit (every operation kind, empty and long fields, empty commits) round
//!   trips exactly: decoding its encoding gives it back, and `encoded_bytes` is the
//!   encoding's length; written as format version 1 (the version before pin prefix),
//!   it decodes to the same commit if it holds no pin prefix, and is refused if it does;
//! - every truncation of an encoding and the encoding with a byte appended are
//!   refused (`None`: the decoder reads every byte and nothing past the end);
//! - every single-bit flip, and random overwrites of a few bytes, either are refused
//!   or decode to a commit that re-encodes to exactly the damaged bytes (the
//!   property `storage::decoders::check_commit_payload` checks for the fuzz targets,
//!   allocation bound included). Nothing panics.
//!
//! - `CommitPayload::parse` (the check every commit passes before it is applied and
//!   its bytes logged as they are: the binding's Buffer, a frame at recovery) accepts
//!   a commit's encoding exactly when its operations are within the limits, keeps the
//!   bytes, and reads back the same operations in place; every damaged encoding above
//!   it refuses with `InvalidArgument` or reads as `Commit::decode` does.
//!
//! `Commit::decode` refuses with `None`; `CommitPayload::parse` with `InvalidArgument`
//! naming what is wrong, and its callers name the damage (`WalCorrupted` for the WAL
//! frame at recovery; the binding passes the `InvalidArgument` on to JavaScript).
//!
//! Seeded and reproducible: `TENANTDB_FUZZ_SEED` picks the seed (default fixed), and a
//! failure names the seed and the case.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use common::Rng;
use storage::decoders::{check_commit_payload, AllocMeter};
use storage::{Commit, CommitPayload, Error, Op, OpRef};

#[global_allocator]
static METER: AllocMeter = AllocMeter;

const SEED_DEFAULT: u64 = 0xC0DE_C0DE_2026;
const CASES: u64 = 400;

/// Field bytes: mostly short, sometimes empty, sometimes long.
fn field(rng: &mut Rng) -> Vec<u8> {
    let len = match rng.below(50) {
        0..=4 => 0,
        5 => 100 + rng.below(400) as usize,
        _ => 1 + rng.below(12) as usize,
    };
    rng.bytes(len)
}

fn random_op(rng: &mut Rng) -> Op {
    match rng.below(9) {
        0 => Op::Put { tree: field(rng).into(), key: field(rng).into(), value: field(rng).into() },
        1 => Op::Delete { tree: field(rng), key: field(rng) },
        2 => Op::DropTree { tree: field(rng) },
        3 => Op::CopyTree { from: field(rng), to: field(rng) },
        4 => Op::CopyTreeFromPin { pin: field(rng), from: field(rng), to: field(rng) },
        5 => Op::Pin { name: field(rng) },
        6 => Op::Unpin { name: field(rng) },
        7 => Op::PinPrefix { name: field(rng), prefix: field(rng) },
        _ => Op::CompactTree { tree: field(rng) },
    }
}

fn random_commit(rng: &mut Rng) -> Commit {
    let meta = if rng.chance(30) { Vec::new() } else { field(rng) };
    let ops = (0..rng.below(10)).map(|_| random_op(rng)).collect();
    Commit { meta, ops }
}

/// Runs `check`, turning a panic into one that names the seed and the case.
fn named(seed: u64, case: &str, check: impl FnOnce()) {
    if let Err(panic) = catch_unwind(AssertUnwindSafe(check)) {
        let message = panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
        panic!("TENANTDB_FUZZ_SEED={seed}, {case}: {message}");
    }
}

#[test]
fn fuzz_random_commits_round_trip_and_damaged_encodings_are_refused_or_round_trip_exactly() {
    let seed = std::env::var("TENANTDB_FUZZ_SEED").ok().map_or(SEED_DEFAULT, |s| s.parse().expect("TENANTDB_FUZZ_SEED is a number"));
    let mut rng = Rng::new(seed);
    let (mut accepted, mut refused, mut tags) = (0u64, 0u64, [false; 9]);
    let (mut parsed, mut over_limits) = (0u64, 0u64);
    for n in 0..CASES {
        let commit = random_commit(&mut rng);
        for op in &commit.ops {
            tags[match op {
                Op::Put { .. } => 0,
                Op::Delete { .. } => 1,
                Op::DropTree { .. } => 2,
                Op::CopyTree { .. } => 3,
                Op::CopyTreeFromPin { .. } => 4,
                Op::Pin { .. } => 5,
                Op::Unpin { .. } => 6,
                Op::CompactTree { .. } => 7,
                Op::PinPrefix { .. } => 8,
            }] = true;
        }
        let bytes = commit.encode();
        named(seed, &format!("commit {n}: {commit:?}"), || {
            assert_eq!(commit.encoded_bytes(), bytes.len(), "encoded_bytes");
            assert_eq!(Commit::decode(&bytes).as_ref(), Some(&commit), "the round trip");
            for len in 0..bytes.len() {
                assert_eq!(Commit::decode(&bytes[..len]), None, "a prefix of {len} bytes decoded");
            }
            assert_eq!(Commit::decode(&[&bytes[..], &[rng.next() as u8]].concat()), None, "a byte appended decoded");
            let version_1 = [&[1u8][..], &bytes[1..]].concat();
            let has_prefix_pin = commit.ops.iter().any(|op| matches!(op, Op::PinPrefix { .. }));
            assert_eq!(Commit::decode(&version_1), (!has_prefix_pin).then(|| commit.clone()), "as format version 1");
            match CommitPayload::parse(bytes.clone()) {
                Ok(payload) => {
                    assert!(within_limits(&commit), "parse accepted an operation over a limit");
                    assert_eq!(payload.bytes(), &bytes[..], "parse kept other bytes");
                    assert_eq!(payload.ops().map(OpRef::to_owned).collect::<Vec<_>>(), commit.ops, "the ops read in place");
                    parsed += 1;
                }
                Err(Error::InvalidArgument(_)) => {
                    assert!(!within_limits(&commit), "parse refused a commit within the limits");
                    over_limits += 1;
                }
                Err(other) => panic!("parse refused with {other:?}"),
            }
            for len in [0, bytes.len() / 2, bytes.len() - 1] {
                assert!(matches!(CommitPayload::parse(bytes[..len].to_vec()), Err(Error::InvalidArgument(_))), "a prefix of {len} bytes parsed");
            }
        });
        let mut damaged: Vec<Vec<u8>> = (0..bytes.len() * 8)
            .map(|bit| {
                let mut flipped = bytes.clone();
                flipped[bit / 8] ^= 1 << (bit % 8);
                flipped
            })
            .collect();
        for _ in 0..20 {
            let mut overwritten = bytes.clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(bytes.len() as u64) as usize;
                overwritten[at] = rng.next() as u8;
            }
            if overwritten != bytes {
                damaged.push(overwritten);
            }
        }
        for (k, input) in damaged.iter().enumerate() {
            named(seed, &format!("commit {n}, damaged input {k} (bit {k} flipped, or an overwrite past the flips)"), || {
                check_commit_payload(input);
                if Commit::decode(input).is_some() {
                    accepted += 1;
                } else {
                    refused += 1;
                }
            });
        }
    }
    eprintln!("commit codec: {CASES} commits (seed {seed}); damaged encodings: {refused} refused, {accepted} decoded to another commit that re-encodes exactly");
    // Every kind of operation was generated, and damage took both paths: refusals and
    // other valid commits (a flip inside a key or value), each one checked above.
    assert!(tags.iter().all(|&seen| seen), "seed {seed}: not every operation kind was generated: {tags:?}");
    assert!(accepted > 0 && refused > 0, "seed {seed}: {accepted} accepted, {refused} refused");
    // Both answers of parse were seen: commits within the limits and ones with an empty name.
    eprintln!("parse: {parsed} commits accepted, {over_limits} refused for a limit");
    assert!(parsed > 0 && over_limits > 0, "seed {seed}: parse accepted {parsed}, refused {over_limits}");
}

/// Names of 1 to 255 bytes, keys up to 1 KiB, values up to 1 MiB (`limits.rs`),
/// restated rather than taken from the check under test.
fn within_limits(commit: &Commit) -> bool {
    let name = |n: &[u8]| (1..=255).contains(&n.len());
    commit.ops.iter().all(|op| match op {
        Op::Put { tree, key, value } => name(tree) && key.len() <= 1024 && value.len() <= 1 << 20,
        Op::Delete { tree, key } => name(tree) && key.len() <= 1024,
        Op::DropTree { tree } | Op::CompactTree { tree } => name(tree),
        Op::CopyTree { from, to } => name(from) && name(to),
        Op::CopyTreeFromPin { pin, from, to } => name(pin) && name(from) && name(to),
        Op::Pin { name: n } | Op::Unpin { name: n } => name(n),
        Op::PinPrefix { name: n, prefix } => name(n) && name(prefix),
    })
}
