//! R2 for free space: power loss at every I/O operation of a workload in which slots are
//! freed and reused: overwrites between checkpoints (slots released, then written
//! again), pins taken and dropped, trees copied and dropped, tree compaction, and the
//! file's compaction (live pages moved down, the free tail cut off).
//!
//! Commits are made one at a time and checkpoints on the test's thread, so the
//! sequence of I/O operations, and with it every crash point, is the same on every run
//! (`TENANTDB_CRASH_SPACE_SEED` picks another script). After each crash, recovery must
//! give exactly the acknowledged commits (plus the one in flight if its outcome was
//! unknown), every pin must read what it pinned, and `verify` must recount the books
//! exactly. A slot overwritten while a record on disk still reached it would fail its
//! checksum, or the one its parent recorded, and show here.

mod common;

use std::collections::BTreeMap;

use common::{commit, db_path, put, read_all, sim_options, Model, Rng};
use storage::vfs::{CrashMode, FaultKind, SimVfs};
use storage::{Commit, Database, Error, Op, Options};

#[derive(Clone, Debug)]
enum Step {
    Commit(Commit),
    Checkpoint,
    CompactSpace,
}

const TREES: [&str; 3] = ["a", "b", "c"];

fn script(seed: u64) -> Vec<Step> {
    let mut rng = Rng::new(seed);
    let mut steps = Vec::new();
    let tree = |rng: &mut Rng| TREES[rng.below(3) as usize].as_bytes().to_vec();
    for n in 0..110u64 {
        let step = match rng.below(20) {
            0..=10 => {
                let t = tree(&mut rng);
                let ops = (0..40)
                    .map(|_| {
                        let key = format!("k{:04}", rng.below(300)).into_bytes();
                        let len = if rng.chance(5) { 2000 } else { 60 };
                        Op::Put { tree: t.clone().into(), key: key.into(), value: rng.bytes(len).into() }
                    })
                    .collect();
                Step::Commit(commit(ops))
            }
            11 => Step::Commit(commit(vec![Op::Pin { name: format!("p{n}").into_bytes() }])),
            12 => Step::Commit(commit(vec![Op::Unpin { name: format!("p{}", rng.below(n.max(1))).into_bytes() }])),
            13 => Step::Commit(commit(vec![Op::CopyTree { from: tree(&mut rng), to: tree(&mut rng) }])),
            14 => Step::Commit(commit(vec![Op::DropTree { tree: tree(&mut rng) }])),
            15 => Step::Commit(commit(vec![Op::CompactTree { tree: tree(&mut rng) }])),
            16 => Step::CompactSpace,
            _ => Step::Checkpoint,
        };
        steps.push(step);
    }
    // A tree loaded after another, then the first dropped: its slots, low in the file,
    // come free while the second's lie above them, so compaction has pages to move.
    for (tree, count) in [("low", 3000u64), ("high", 3000)] {
        for chunk in (0..count).collect::<Vec<_>>().chunks(1000) {
            let ops = chunk.iter().map(|k| Op::Put { tree: tree.as_bytes().into(), key: format!("{k:05}").into_bytes().into(), value: rng.bytes(80).into() }).collect();
            steps.push(Step::Commit(commit(ops)));
        }
        steps.push(Step::Checkpoint);
    }
    steps.push(Step::Commit(commit(vec![Op::DropTree { tree: b"low".to_vec() }])));
    steps.push(Step::Checkpoint);
    steps.push(Step::CompactSpace);
    steps
}

/// Trees and pins (pin name → the trees it saved).
#[derive(Clone, Debug, Default, PartialEq)]
struct State {
    trees: Model,
    pins: BTreeMap<Vec<u8>, Model>,
}

impl State {
    fn apply(&mut self, commit: &Commit) {
        for op in &commit.ops {
            match op {
                Op::Put { tree, key, value } => {
                    self.trees.entry(tree.to_vec()).or_default().insert(key.to_vec(), value.to_vec());
                }
                Op::Pin { name } => {
                    self.pins.entry(name.clone()).or_insert_with(|| self.trees.clone());
                }
                Op::Unpin { name } => {
                    self.pins.remove(name);
                }
                Op::CopyTree { from, to } => {
                    let copied = self.trees.get(from).cloned().unwrap_or_default();
                    self.trees.insert(to.clone(), copied);
                }
                Op::DropTree { tree } => {
                    self.trees.remove(tree);
                }
                Op::CompactTree { .. } => {}
                other => panic!("the script does not use {other:?}"),
            }
        }
    }

    fn read(db: &Database) -> State {
        let snapshot = db.snapshot();
        let pins: Vec<(Vec<u8>, Model)> = snapshot
            .pins()
            .unwrap()
            .into_iter()
            .map(|pin| (pin.name.clone(), read_all(&snapshot.pin(&pin.name).unwrap().unwrap())))
            .collect();
        State { trees: without_empty(read_all(&snapshot)), pins: pins.into_iter().map(|(n, m)| (n, without_empty(m))).collect() }
    }
}

/// A copy of an absent tree is an empty tree: both read as nothing.
fn without_empty(model: Model) -> Model {
    model.into_iter().filter(|(_, entries)| !entries.is_empty()).collect()
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Outcome {
    Acked,
    NotWritten,
    Unknown,
}

fn options(vfs: &SimVfs) -> Options {
    // Checkpoints only when the script asks, so every one of them is in the schedule.
    Options { checkpoint_wal_bytes: u64::MAX, ..sim_options(vfs, 1 << 20) }
}

/// What a clean run did to the file, to show the schedule frees, reuses and moves.
#[derive(Debug, Default)]
struct Work {
    pages_written: u64,
    pages_released: u64,
    pages_moved: u64,
    tip: u64,
}

/// Runs the script until the power goes (an error), recording each commit's outcome.
fn run(vfs: &SimVfs, steps: &[Step]) -> Vec<(Commit, Outcome)> {
    run_counting(vfs, steps, &mut Work::default())
}

fn run_counting(vfs: &SimVfs, steps: &[Step], work: &mut Work) -> Vec<(Commit, Outcome)> {
    let mut done = Vec::new();
    let Ok(db) = Database::open(&db_path(), options(vfs)) else { return done };
    for step in steps {
        let failed = match step {
            Step::Commit(c) => {
                let result = db.commit_sync(c.clone());
                let outcome = match &result {
                    Ok(_) => Outcome::Acked,
                    // A pin that exists already, an unpin of nothing: refused, nothing written.
                    Err(Error::InvalidArgument(_)) => Outcome::NotWritten,
                    Err(Error::OutcomeUnknown(_)) => Outcome::Unknown,
                    Err(_) => Outcome::NotWritten,
                };
                done.push((c.clone(), outcome));
                matches!(result, Err(ref e) if !matches!(e, Error::InvalidArgument(_)))
            }
            Step::Checkpoint => match db.checkpoint() {
                Ok(stats) => {
                    work.pages_written += stats.pages_written;
                    work.pages_released += stats.pages_released;
                    false
                }
                Err(_) => true,
            },
            Step::CompactSpace => match db.compact_space() {
                Ok(report) => {
                    work.pages_moved += report.pages_moved;
                    false
                }
                Err(_) => true,
            },
        };
        if failed {
            return done;
        }
    }
    work.tip = db.stats().map_or(0, |s| s.page_count);
    let _ = db.close();
    done
}

fn check(vfs: SimVfs, done: &[(Commit, Outcome)], context: &str) {
    let db = Database::open(&db_path(), options(&vfs)).unwrap_or_else(|e| panic!("{context}: recovery failed: {e}"));
    let got = State::read(&db);
    let mut want = State::default();
    for (c, outcome) in done {
        if *outcome == Outcome::Acked {
            want.apply(c);
        }
    }
    let want = State { trees: without_empty(want.trees), pins: want.pins.into_iter().map(|(n, m)| (n, without_empty(m))).collect() };
    let matches = got == want || {
        // The commit in flight when the power went may have made it.
        let mut with = State::default();
        for (c, outcome) in done {
            if *outcome != Outcome::NotWritten {
                with.apply(c);
            }
        }
        got == State { trees: without_empty(with.trees), pins: with.pins.into_iter().map(|(n, m)| (n, without_empty(m))).collect() }
    };
    assert!(matches, "{context}: recovered state differs from the acknowledged commits");
    let report = db.verify().unwrap();
    assert!(report.problems.is_empty(), "{context}: verify: {:?}", report.problems);
    // It carries on: the books are good enough to checkpoint and compact again.
    db.commit_sync(commit(vec![put("a", b"after", b"crash")])).unwrap();
    db.compact_space().unwrap_or_else(|e| panic!("{context}: compact after recovery: {e}"));
    let report = db.verify().unwrap();
    assert!(report.problems.is_empty(), "{context}: verify after carrying on: {:?}", report.problems);
    db.close().unwrap();
}

#[test]
fn crash_at_every_io_operation_while_slots_are_freed_and_reused() {
    let seed = std::env::var("TENANTDB_CRASH_SPACE_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    let chaos: u64 = std::env::var("TENANTDB_CRASH_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(4);
    let steps = script(seed);
    let clean = SimVfs::new();
    let mut work = Work::default();
    let done = run_counting(&clean, &steps, &mut work);
    assert!(done.iter().all(|(_, o)| *o != Outcome::Unknown), "the script runs clean without faults");
    // The schedule exercises what it claims: slots released and written again (more
    // pages written than the file holds), and live pages moved by compaction.
    assert!(work.pages_released > 0 && work.pages_moved > 0 && work.pages_written > work.tip, "seed {seed}: {work:?}");
    let total_ops = clean.op_count();
    // The schedule is deterministic: a second run performs the same operations.
    let again = SimVfs::new();
    run(&again, &steps);
    assert_eq!(again.op_count(), total_ops, "seed {seed}: the I/O schedule is reproducible");
    let mut states = 0u64;
    for index in 0..total_ops {
        let vfs = SimVfs::new();
        vfs.fail_at(index, FaultKind::Eio, true);
        let done = run(&vfs, &steps);
        for mode in std::iter::once(CrashMode::DropUnsynced).chain((0..chaos).map(|s| CrashMode::Chaos { seed: s * 7919 + index })) {
            let context = format!("seed {seed}: crash at op {index} of {total_ops}, {mode:?}");
            check(vfs.crash(mode), &done, &context);
            states += 1;
        }
    }
    eprintln!("free-space crash states checked: {states} ({total_ops} I/O operations, seed {seed})");
    assert!(states >= 2_000, "only {states} crash states");
}
