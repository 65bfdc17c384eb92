//! Model test: random operation sequences, including reopen, crash, checkpoint, pins
//! and their drops, tree copies and drops, compaction and the file's compaction,
//! checked against a BTreeMap after every step. Readers holding old versions are kept
//! across steps and re-read against the model of their time, so a slot reused while a
//! reader can reach it shows. After every step `verify` recounts the space map: live
//! and free slots disjoint and covering the file, every count exact.

mod common;

use std::collections::BTreeMap;
use std::ops::Bound;

use common::{commit, db_path, open, put, read_all, sim_options, Model, Rng};
use storage::vfs::{CrashMode, SimVfs};
use storage::{Database, Op, Snapshot};

const TREES: [&str; 3] = ["a", "b", "c"];

fn key(rng: &mut Rng) -> Vec<u8> {
    // A small key space gives overwrites and deletes of present keys; a few long keys
    // exercise separators near the size limit.
    let n = rng.below(400);
    let mut key = format!("k{n:05}").into_bytes();
    if n % 37 == 0 {
        key.extend(std::iter::repeat_n(b'x', 200 + (n as usize % 800)));
    }
    key
}

fn value(rng: &mut Rng) -> Vec<u8> {
    let len = match rng.below(20) {
        0 => 960 + rng.below(3000) as usize, // overflow pages
        1 => 0,
        _ => rng.below(200) as usize,
    };
    rng.bytes(len)
}

fn check_ranges(rng: &mut Rng, db: &Database, model: &Model) {
    let snapshot = db.snapshot();
    for _ in 0..3 {
        let tree = TREES[rng.below(3) as usize];
        let (a, b) = (key(rng), key(rng));
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let lower = match rng.below(3) { 0 => Bound::Included(lo.as_slice()), 1 => Bound::Excluded(lo.as_slice()), _ => Bound::Unbounded };
        let upper = match rng.below(3) { 0 => Bound::Included(hi.as_slice()), 1 => Bound::Excluded(hi.as_slice()), _ => Bound::Unbounded };
        let reverse = rng.chance(50);
        let limit = 1 + rng.below(60) as usize;
        let got: Vec<(Vec<u8>, Vec<u8>)> = snapshot
            .range(tree.as_bytes(), lower, upper, reverse, limit)
            .expect("range")
            .into_iter()
            .map(|(k, v)| (k.to_vec(), v.to_vec()))
            .collect();
        let empty = BTreeMap::new();
        let entries = model.get(tree.as_bytes()).unwrap_or(&empty);
        let valid = !matches!((lower, upper), (Bound::Excluded(l), Bound::Excluded(u)) if l == u)
            && !matches!((lower, upper), (Bound::Included(l) | Bound::Excluded(l), Bound::Included(u) | Bound::Excluded(u)) if l > u);
        let mut want: Vec<(Vec<u8>, Vec<u8>)> = if valid {
            entries.range::<[u8], _>((lower, upper)).map(|(k, v)| (k.clone(), v.clone())).collect()
        } else {
            Vec::new()
        };
        if reverse {
            want.reverse();
        }
        want.truncate(limit);
        assert_eq!(got, want, "range over {tree} reverse={reverse} limit={limit}");
    }
}

fn run(seed: u64, steps: usize) {
    let mut rng = Rng::new(seed);
    let mut vfs = SimVfs::new();
    let cache = if rng.chance(50) { 16 * 1024 } else { 4 * 1024 * 1024 };
    let mut options = sim_options(&vfs, cache);
    let mut db = open(&db_path(), &options);
    let mut model = Model::new();
    let mut pins: BTreeMap<Vec<u8>, Model> = BTreeMap::new();
    // Readers holding old versions, with the state they must still read.
    let mut held: Vec<(Snapshot, Model)> = Vec::new();

    for step in 0..steps {
        let roll = rng.below(100);
        let context = format!("seed {seed} step {step} roll {roll}");
        match roll {
            0..=54 => {
                let mut ops = Vec::new();
                for _ in 0..1 + rng.below(8) {
                    let tree = TREES[rng.below(3) as usize];
                    let k = key(&mut rng);
                    if rng.chance(70) {
                        let v = value(&mut rng);
                        model.entry(tree.as_bytes().to_vec()).or_default().insert(k.clone(), v.clone());
                        ops.push(put(tree, &k, &v));
                    } else {
                        if let Some(entries) = model.get_mut(tree.as_bytes()) {
                            entries.remove(&k);
                        }
                        ops.push(Op::Delete { tree: tree.as_bytes().to_vec(), key: k });
                    }
                }
                db.commit_sync(commit(ops)).unwrap_or_else(|e| panic!("{context}: {e}"));
            }
            55..=59 => {
                let tree = TREES[rng.below(3) as usize];
                model.remove(tree.as_bytes());
                db.commit_sync(commit(vec![Op::DropTree { tree: tree.as_bytes().to_vec() }])).unwrap();
            }
            60..=63 => {
                let (from, to) = (TREES[rng.below(3) as usize], TREES[rng.below(3) as usize]);
                let copied = model.get(from.as_bytes()).cloned().unwrap_or_default();
                model.insert(to.as_bytes().to_vec(), copied);
                db.commit_sync(commit(vec![Op::CopyTree { from: from.as_bytes().to_vec(), to: to.as_bytes().to_vec() }])).unwrap();
            }
            64..=67 => {
                let name = format!("p{}", rng.below(4)).into_bytes();
                let result = db.commit_sync(commit(vec![Op::Pin { name: name.clone() }]));
                if pins.contains_key(&name) {
                    assert!(result.is_err(), "{context}: a second pin with one name must fail");
                } else {
                    result.unwrap();
                    pins.insert(name, model.clone());
                }
            }
            68..=69 => {
                let name = format!("p{}", rng.below(4)).into_bytes();
                pins.remove(&name);
                db.commit_sync(commit(vec![Op::Unpin { name }])).unwrap();
            }
            70..=72 => {
                if let Some((name, pinned)) = pins.iter().nth(rng.below(pins.len().max(1) as u64) as usize) {
                    let (from, to) = (TREES[rng.below(3) as usize], TREES[rng.below(3) as usize]);
                    let copied = pinned.get(from.as_bytes()).cloned().unwrap_or_default();
                    model.insert(to.as_bytes().to_vec(), copied);
                    let op = Op::CopyTreeFromPin { pin: name.clone(), from: from.as_bytes().to_vec(), to: to.as_bytes().to_vec() };
                    db.commit_sync(commit(vec![op])).unwrap();
                }
            }
            73 | 74 if rng.chance(60) => {
                // Delete a run of consecutive present keys: empties whole leaves, so
                // branch children and separators get removed.
                let tree = TREES[rng.below(3) as usize];
                if let Some(entries) = model.get_mut(tree.as_bytes()) {
                    let skip = rng.below(entries.len().max(1) as u64) as usize;
                    let run: Vec<Vec<u8>> = entries.keys().skip(skip).take(20 + rng.below(80) as usize).cloned().collect();
                    for k in &run {
                        entries.remove(k);
                    }
                    let ops = run.into_iter().map(|key| Op::Delete { tree: tree.as_bytes().to_vec(), key }).collect();
                    db.commit_sync(commit(ops)).unwrap_or_else(|e| panic!("{context}: {e}"));
                }
            }
            73..=75 => {
                let tree = TREES[rng.below(3) as usize];
                db.commit_sync(commit(vec![Op::CompactTree { tree: tree.as_bytes().to_vec() }])).unwrap();
            }
            76 => {
                db.compact_space().unwrap_or_else(|e| panic!("{context}: compact_space: {e}"));
            }
            77..=82 => {
                db.checkpoint().unwrap_or_else(|e| panic!("{context}: {e}"));
            }
            83..=85 => {
                held.clear();
                db.close().unwrap_or_else(|e| panic!("{context}: close: {e}"));
                db = open(&db_path(), &options);
            }
            86 => {
                if held.len() < 3 {
                    held.push((db.snapshot(), model.clone()));
                } else {
                    held.remove(rng.below(3) as usize);
                }
            }
            87..=89 => {
                // Power loss: every commit was acknowledged, so nothing may be lost.
                held.clear();
                drop(db);
                vfs = vfs.crash(CrashMode::Chaos { seed: rng.next() });
                options = sim_options(&vfs, cache);
                db = open(&db_path(), &options);
            }
            _ => check_ranges(&mut rng, &db, &model),
        }
        let got = read_all(&db.snapshot());
        assert_eq!(got, model, "{context}: state differs from the model");
        if let Some((snapshot, then)) = held.get(rng.below(held.len().max(1) as u64) as usize) {
            assert_eq!(&read_all(snapshot), then, "{context}: a reader's old version changed under it");
        }
        let report = db.verify().unwrap();
        assert!(report.problems.is_empty(), "{context}: verify: {:?}", report.problems);
        if step % 50 == 49 {
            for (name, pinned) in &pins {
                let snapshot = db.snapshot().pin(name).unwrap().expect("pin exists");
                assert_eq!(&read_all(&snapshot), pinned, "{context}: pin {}", String::from_utf8_lossy(name));
            }
        }
    }
    held.clear();
    db.close().unwrap();
}

#[test]
fn model_random_operations_match_a_btreemap() {
    // 12 seeds in `npm test`, 200 under `TENANTDB_SOAK=1` (`common/soak.rs`).
    let seeds = common::soak::budget("TENANTDB_MODEL_SEEDS", 12, 200);
    common::parallel::share_out(seeds as usize, |seed| run(seed as u64, 250));
}
