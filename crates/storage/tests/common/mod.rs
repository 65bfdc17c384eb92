//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod durability_order;
pub mod every_page_role;
pub mod kill9;
pub mod meta_slots;
pub mod page_roles;
pub mod parallel;
pub mod power_loss;
pub mod random_script;
pub mod recovery;
pub mod schedule;
pub mod soak;
pub mod state;
pub mod strace_log;
pub mod wal_files;
pub mod wal_log;

use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use storage::vfs::{SimVfs, Vfs};
use storage::{Commit, Database, Op, Options, Snapshot};

/// A small deterministic PRNG (xorshift64*), so every failure names a replayable seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

/// A small WAL preallocation step, so the scripted workloads cross many steps: every
/// crash and fault lands before, in and after zero-fills too.
pub const SIM_WAL_PREALLOCATE_BYTES: u64 = 8 << 10;

pub fn sim_options(vfs: &SimVfs, cache_bytes: usize) -> Options {
    Options {
        cache_bytes,
        wal_preallocate_bytes: SIM_WAL_PREALLOCATE_BYTES,
        vfs: Arc::new(vfs.clone()) as Arc<dyn Vfs>,
        ..Options::default()
    }
}

pub fn db_path() -> PathBuf {
    PathBuf::from("/sim/db")
}

pub fn put(tree: &str, key: &[u8], value: &[u8]) -> Op {
    Op::Put { tree: tree.as_bytes().into(), key: key.into(), value: value.into() }
}

pub fn commit(ops: Vec<Op>) -> Commit {
    Commit { meta: Vec::new(), ops }
}

pub type Model = BTreeMap<Vec<u8>, BTreeMap<Vec<u8>, Vec<u8>>>;

/// Every entry of every tree of a snapshot, read through range batches.
pub fn read_all(snapshot: &Snapshot) -> Model {
    try_read_all(snapshot).expect("read a snapshot")
}

/// The same, returning the first error.
pub fn try_read_all(snapshot: &Snapshot) -> storage::Result<Model> {
    let mut out = Model::new();
    for tree in snapshot.trees()? {
        let mut entries = BTreeMap::new();
        let mut last: Option<Vec<u8>> = None;
        loop {
            let lower = last.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
            let batch = snapshot.range(&tree.name, lower, Bound::Unbounded, false, 97)?;
            if batch.is_empty() {
                break;
            }
            for (k, v) in batch {
                last = Some(k.to_vec());
                entries.insert(k.to_vec(), v.to_vec());
            }
        }
        assert_eq!(entries.len() as u64, tree.count, "count of tree {:?}", String::from_utf8_lossy(&tree.name));
        out.insert(tree.name, entries);
    }
    Ok(out)
}

pub fn open(path: &Path, options: &Options) -> Database {
    Database::open(path, options.clone()).expect("open")
}
