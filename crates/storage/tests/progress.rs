//! Progress of long work (`Database::progress`, docs/architecture.md "Progress"): a
//! checkpoint held at its page sync shows every page it wrote of exactly the pages it
//! reports; a verify (pages, space map, WAL), a tree compaction and a compaction's page moves show done of
//! their total as they run, as another thread polls; and nothing shows once the work
//! ended. Breaks when a step is not begun, counts past its total, or outlives its work.

mod common;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{commit, db_path, open, put, sim_options, Rng};
use storage::vfs::SimVfs;
use storage::{Database, Op, ProgressReport, WorkStep};

const HANG_GUARD: Duration = Duration::from_secs(60);

/// A database of `rows` rows of 100 bytes in two trees, checkpointed.
fn loaded(vfs: &SimVfs, rows: u32) -> Database {
    let db = open(&db_path(), &sim_options(vfs, 1 << 20));
    let mut rng = Rng::new(7);
    for chunk in (0..rows).collect::<Vec<_>>().chunks(1000) {
        let ops = chunk.iter().map(|i| put(if i % 2 == 0 { "a" } else { "b" }, format!("key{i:08}").as_bytes(), &rng.bytes(100))).collect();
        db.commit_sync(commit(ops)).unwrap();
    }
    db.checkpoint().unwrap();
    db
}

/// Runs `work` until a poller on this thread has seen `step` part way (0 < done <
/// total) while it ran, and returns every reading seen of any step.
fn watch(db: &Database, step: WorkStep, work: impl Fn() + Sync) -> Vec<ProgressReport> {
    let deadline = Instant::now() + HANG_GUARD;
    let mut readings = Vec::new();
    loop {
        let running = AtomicBool::new(true);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                work();
                running.store(false, Ordering::SeqCst);
            });
            while running.load(Ordering::SeqCst) {
                if let Some(reading) = db.progress() {
                    readings.push(reading);
                }
                std::hint::spin_loop();
            }
        });
        assert_eq!(db.progress(), None, "nothing shows once the work ended");
        if readings.iter().any(|r| r.step == step && r.done > 0 && r.done < r.total) {
            return readings;
        }
        assert!(Instant::now() < deadline, "hang guard: {step:?} never seen part way in {} readings", readings.len());
    }
}

#[test]
fn a_checkpoint_shows_the_pages_it_writes_of_those_it_will_write() {
    let vfs = SimVfs::new();
    let db = loaded(&vfs, 3000);
    assert_eq!(db.progress(), None, "nothing runs");
    let mut rng = Rng::new(8);
    let ops = (0..3000u32).step_by(3).map(|i| put("a", format!("key{i:08}").as_bytes(), &rng.bytes(100))).collect();
    db.commit_sync(commit(ops)).unwrap();
    let written = std::thread::scope(|scope| {
        // Inside the scope: a failing assertion drops it, letting the checkpoint end.
        let held = vfs.hold_next_sync();
        let checkpoint = scope.spawn(|| db.checkpoint().unwrap().pages_written);
        assert!(held.wait_held(HANG_GUARD), "the checkpoint reaches its page sync");
        let reading = db.progress().expect("a step shows while the checkpoint syncs");
        assert_eq!(reading.step, WorkStep::WritePages);
        assert_eq!(reading.done, reading.total, "every page written by the sync");
        held.release();
        let written = checkpoint.join().unwrap();
        assert_eq!(reading.total, written, "the total was the pages it wrote");
        written
    });
    assert!(written > 10, "{written} pages");
    assert_eq!(db.progress(), None, "the step ended with the checkpoint");
}

#[test]
fn a_verify_shows_its_pages_then_its_wal_bytes() {
    let vfs = SimVfs::new();
    let db = loaded(&vfs, 20_000);
    let live = db.stats().unwrap().space.live;
    let readings = watch(&db, WorkStep::VerifyPages, || assert!(db.verify().unwrap().problems.is_empty()));
    for reading in readings.iter().filter(|r| r.step == WorkStep::VerifyPages) {
        assert_eq!(reading.total, live, "of the live slots");
        assert!(reading.done <= reading.total, "{reading:?}");
    }
    for reading in readings.iter().filter(|r| r.step == WorkStep::VerifySpace) {
        assert!(reading.total == live && reading.done <= reading.total, "{reading:?}: the slots reached of the live ones");
    }
    let wal_bytes = db.stats().unwrap().wal_bytes;
    for reading in readings.iter().filter(|r| r.step == WorkStep::VerifyWal) {
        assert!(reading.total > 0 && reading.total <= wal_bytes && reading.done <= reading.total, "{reading:?} of {wal_bytes} WAL bytes");
    }
    let steps: HashSet<_> = readings.iter().map(|r| r.step).collect();
    assert!(steps.iter().all(|s| [WorkStep::VerifyPages, WorkStep::VerifySpace, WorkStep::VerifyWal].contains(s)), "only verify's steps: {steps:?}");
}

#[test]
fn a_tree_compaction_shows_the_entries_of_every_tree_it_rebuilds() {
    let vfs = SimVfs::new();
    let db = loaded(&vfs, 30_000);
    let readings = watch(&db, WorkStep::CompactTrees, || {
        let ops = vec![Op::CompactTree { tree: b"a".to_vec() }, Op::CompactTree { tree: b"b".to_vec() }];
        db.commit_sync(commit(ops)).unwrap();
    });
    let compacting: Vec<_> = readings.iter().filter(|r| r.step == WorkStep::CompactTrees).collect();
    assert!(compacting.iter().all(|r| r.done <= r.total && r.total <= 30_000), "{compacting:?}");
    assert!(compacting.iter().all(|r| r.total == 15_000 || r.total == 30_000), "the first tree's entries, then both trees': {compacting:?}");
}

#[test]
fn a_compaction_shows_the_pages_it_moves() {
    let vfs = SimVfs::new();
    let db = loaded(&vfs, 2);
    let fill = |tree: &str| {
        let mut rng = Rng::new(9);
        for chunk in (0..20_000u32).collect::<Vec<_>>().chunks(1000) {
            db.commit_sync(commit(chunk.iter().map(|i| put(tree, format!("key{i:08}").as_bytes(), &rng.bytes(100))).collect())).unwrap();
        }
        db.checkpoint().unwrap();
    };
    // Each round leaves tree `a` at the end of the file and frees the slots below it.
    let readings = watch(&db, WorkStep::MovePages, || {
        fill("b");
        fill("a");
        db.commit_sync(commit(vec![Op::DropTree { tree: b"b".to_vec() }])).unwrap();
        assert!(db.compact_space().unwrap().pages_moved > 0, "pages moved");
    });
    let moving: Vec<_> = readings.iter().filter(|r| r.step == WorkStep::MovePages).collect();
    assert!(moving.iter().all(|r| r.done <= r.total), "{moving:?}");
}
