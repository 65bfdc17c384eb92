//! What the kill -9 loop's child process (`tests/children/kill9_child.rs`) commits, shared
//! with the loop (`tests/crash_kill9.rs`) that checks it after each kill: the child
//! includes this file by path, as it cannot use the tests' `common` module.

use std::sync::Arc;

use storage::{Commit, Op, Options};

/// Threads committing in the child.
pub const THREADS: u64 = 4;

/// Ids of cycle `n` start here, so every commit of every cycle has its own id.
pub const IDS_PER_CYCLE: u64 = 1_000_000;

pub fn options() -> Options {
    // Small checkpoint threshold, so kills also land in and around checkpoints.
    Options { checkpoint_wal_bytes: 256 * 1024, ..Options::default() }
}

/// The three keys of commit `id`.
pub const PARTS: [&str; 3] = ["x", "y", "z"];

pub fn key(id: u64, part: &str) -> String {
    format!("{id:016}.{part}")
}

/// The value commit `id` writes under each of its keys (sizes vary with the id).
pub fn value(id: u64) -> Vec<u8> {
    format!("{id:016}").repeat(1 + (id % 7) as usize * 40).into_bytes()
}

/// Commit `id` writes its value under its three keys: all three exist or none.
pub fn commit_for(id: u64) -> Commit {
    let value: Arc<[u8]> = value(id).into();
    let ops = PARTS.iter().map(|part| Op::Put { tree: Arc::from(&b"t"[..]), key: key(id, part).into_bytes().into(), value: value.clone() }).collect();
    Commit { meta: Vec::new(), ops }
}
