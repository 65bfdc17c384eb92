//! Corruption of the newest meta record while a checkpoint writes over the slots it
//! frees (space/mod.rs, "Writing in place"): crashes at every I/O operation of such a
//! checkpoint, then a flipped byte in the newest record on disk. Open takes the other
//! meta slot (mirrors, src/meta/record.rs) or finishes the checkpoint from its journal
//! (src/checkpoint/journal.rs), so the database opens, holds every acknowledged commit (replayed from
//! the WAL), and verifies clean apart from the damaged slot.

mod common;

use common::meta_slots::{newest_meta, pages_path, HEADER, PAGE};
use common::{commit, db_path, put, read_all, sim_options, Model, Rng};
use storage::vfs::{CrashMode, FaultKind, SimVfs};
use storage::{Database, Options};

fn options(vfs: &SimVfs) -> Options {
    Options { checkpoint_wal_bytes: u64::MAX, ..sim_options(vfs, 1 << 20) }
}

/// Overwrites and checkpoints until slots are being reused, then one more round of
/// writes; returns the database open before its last checkpoint.
fn churned(vfs: &SimVfs) -> Database {
    let db = Database::open(&db_path(), options(vfs)).unwrap();
    let mut rng = Rng::new(11);
    for round in 0..10u32 {
        let ops = (0..300u32).map(|k| put("t", format!("k{:05}", (k * 7 + round * 31) % 2000).as_bytes(), &rng.bytes(100))).collect();
        db.commit_sync(commit(ops)).unwrap();
        db.checkpoint().unwrap();
    }
    let ops = (0..300u32).map(|k| put("t", format!("k{:05}", k * 5 % 2000).as_bytes(), &rng.bytes(100))).collect();
    db.commit_sync(commit(ops)).unwrap();
    db
}

#[test]
fn corruption_of_the_newest_meta_mid_checkpoint_falls_back_to_an_intact_record() {
    let clean = SimVfs::new();
    let db = churned(&clean);
    let before = clean.op_count();
    let stats = db.checkpoint().unwrap();
    let after = clean.op_count();
    let content: Model = read_all(&db.snapshot());
    assert!(stats.pages_released > 0 && stats.in_place, "the checkpoint writes over the slots it frees: {stats:?}");
    db.close().unwrap();

    let (mut checked, mut redone) = (0, 0);
    for index in before..after {
        let vfs = SimVfs::new();
        let db = churned(&vfs);
        vfs.fail_at(index, FaultKind::Eio, true);
        let _ = db.checkpoint();
        drop(db);
        let crashed = vfs.crash(CrashMode::DropUnsynced);
        // Bit rot in the newest record on disk, whichever it is now.
        let file = crashed.read_raw(&pages_path()).unwrap();
        let (slot, _) = newest_meta(&file);
        let at = slot * PAGE + HEADER + 20;
        crashed.write_raw(&pages_path(), at as u64, &[file[at] ^ 0x01]);

        let context = format!("crash at op {index} ({before}..{after}), newest record damaged");
        let journaled = !crashed.read_raw(&db_path().join("checkpoint.journal")).unwrap_or_default().is_empty();
        let db = Database::open(&db_path(), options(&crashed)).unwrap_or_else(|e| panic!("{context}: open failed: {e}"));
        redone += u64::from(journaled && db.stats().unwrap().checkpoint_lsn > 0);
        assert_eq!(read_all(&db.snapshot()), content, "{context}: every acknowledged commit is there");
        let problems = db.verify().unwrap().problems;
        // The damaged slot is reported, unless finishing the checkpoint from its journal
        // wrote the record into both slots again.
        assert!(problems.iter().all(|p| p.starts_with(&format!("meta slot {slot}"))), "{context}: {problems:?}");
        db.close().unwrap();
        checked += 1;
    }
    assert!(checked > 20, "the checkpoint performs I/O: {checked} operations");
    assert!(redone > 0, "some crashes left a journal behind (the checkpoint wrote through it)");
}
