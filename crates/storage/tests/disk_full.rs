//! Disk-full tests (R14; docs/operations.md, "Disk full"), on the simulated file system
//! with a capacity: a full disk makes a commit fail with `StorageFull` before anything
//! of it is written, so it never appears after a restart; the database is not stopped
//! and takes commits again once space is freed. A write or fsync that fails after the
//! batch's bytes went out is `OutcomeUnknown` for that batch and `FailStopped` after. A
//! checkpoint on a full disk is abandoned without fail-stop, and close on a full disk
//! still stops cleanly.

mod common;

use common::{commit, db_path, open, put, read_all, sim_options, Model};
use storage::vfs::{CrashMode, FaultKind, SimVfs};
use storage::{Database, Error, Options};

fn row(n: usize) -> (Vec<u8>, Vec<u8>) {
    (format!("k{n:04}").into_bytes(), vec![n as u8; 700])
}

fn commit_row(db: &Database, n: usize) -> storage::Result<u64> {
    let (key, value) = row(n);
    db.commit_sync(commit(vec![put("t", &key, &value)]))
}

fn model(rows: &[usize]) -> Model {
    let mut model = Model::new();
    for &n in rows {
        let (key, value) = row(n);
        model.entry(b"t".to_vec()).or_default().insert(key, value);
    }
    model
}

/// Commits rows until one fails; returns the acknowledged rows and that error.
fn fill(db: &Database, first: usize, acked: &mut Vec<usize>) -> (usize, Error) {
    for n in first..first + 1000 {
        match commit_row(db, n) {
            Ok(_) => acked.push(n),
            Err(err) => return (n, err),
        }
    }
    panic!("the disk never filled");
}

fn full_disk(options: &Options, vfs: &SimVfs) -> (Database, Vec<usize>, usize) {
    let db = open(&db_path(), options);
    let mut acked = Vec::new();
    for n in 0..3 {
        commit_row(&db, n).unwrap();
        acked.push(n);
    }
    // Room for a few more frames, not for the next preallocation step.
    vfs.set_capacity(Some(vfs.used_bytes() + 3000));
    let (failed, err) = fill(&db, 3, &mut acked);
    match &err {
        Error::StorageFull { .. } => assert_eq!(err.code(), "storage_full"),
        other => panic!("expected StorageFull, got {other:?}"),
    }
    assert!(err.to_string().contains("nothing of this change was written"), "{err}");
    (db, acked, failed)
}

#[test]
fn a_commit_refused_on_a_full_disk_never_appears_and_later_ones_succeed_once_space_is_freed() {
    let vfs = SimVfs::new();
    let options = sim_options(&vfs, 1 << 20);
    let (db, mut acked, failed) = full_disk(&options, &vfs);
    assert!(acked.len() > 3, "frames inside the allocated space still fit: {acked:?}");
    // Not fail-stopped: it keeps refusing while full, reads work, then space frees.
    assert!(matches!(commit_row(&db, failed + 1), Err(Error::StorageFull { .. })));
    assert_eq!(read_all(&db.snapshot()), model(&acked));
    // A restart right away, on the still full disk, with the OS's view of the files
    // (what the kernel would write back later): none of the refused rows.
    drop(db);
    let db = open(&db_path(), &options);
    assert_eq!(read_all(&db.snapshot()), model(&acked), "restart on the full disk");
    assert!(matches!(commit_row(&db, failed + 1), Err(Error::StorageFull { .. })), "still full after the restart");
    vfs.set_capacity(None);
    let lsn = commit_row(&db, failed + 2).unwrap();
    assert_eq!(lsn, acked.len() as u64 + 1, "refused commits took no LSN");
    acked.push(failed + 2);
    drop(db);
    // A restart (the OS's view of the files) and a power loss: exactly the acknowledged rows.
    for (view, vfs) in [("restart", vfs.clone()), ("power loss", vfs.crash(CrashMode::DropUnsynced))] {
        let db = open(&db_path(), &sim_options(&vfs, 1 << 20));
        assert_eq!(read_all(&db.snapshot()), model(&acked), "{view}");
        assert!(db.verify().unwrap().problems.is_empty(), "{view}");
        db.close().unwrap();
    }
}

#[test]
fn a_checkpoint_on_a_full_disk_is_abandoned_without_fail_stop_and_the_next_one_succeeds() {
    let vfs = SimVfs::new();
    let options = sim_options(&vfs, 1 << 20);
    let db = open(&db_path(), &options);
    let mut acked = Vec::new();
    for n in 0..40 {
        commit_row(&db, n).unwrap();
        acked.push(n);
    }
    let pages_before = db.stats().unwrap().page_count;
    // Room for some page slots, not all.
    vfs.set_capacity(Some(vfs.used_bytes() + 3 * 4096));
    match db.checkpoint() {
        Err(err @ Error::StorageFull { .. }) => assert_eq!(err.code(), "storage_full"),
        other => panic!("expected StorageFull, got {other:?}"),
    }
    assert_eq!(db.stats().unwrap().checkpoint_lsn, 0);
    // Not fail-stopped: commits inside the allocated WAL space go on.
    commit_row(&db, 40).unwrap();
    acked.push(40);
    vfs.set_capacity(None);
    let stats = db.checkpoint().unwrap();
    assert_eq!(stats.checkpoint_lsn, 41);
    assert!(db.stats().unwrap().page_count > pages_before);
    assert!(db.verify().unwrap().problems.is_empty());
    db.close().unwrap();
    for vfs in [vfs.clone(), vfs.crash(CrashMode::DropUnsynced)] {
        let db = open(&db_path(), &sim_options(&vfs, 1 << 20));
        assert_eq!(db.stats().unwrap().replayed_frames, 0, "the checkpoint at close covered everything");
        assert_eq!(read_all(&db.snapshot()), model(&acked));
        assert!(db.verify().unwrap().problems.is_empty());
    }
}

#[test]
fn close_on_a_full_disk_skips_the_checkpoint_releases_the_lock_and_loses_nothing() {
    let vfs = SimVfs::new();
    let options = sim_options(&vfs, 1 << 20);
    let (db, acked, _) = full_disk(&options, &vfs);
    let report = db.close().expect("close on a full disk is no failure");
    let skipped = report.checkpoint_skipped.expect("the checkpoint was skipped");
    assert!(skipped.contains("disk is full"), "{skipped}");
    // The lock is released (the directory reopens) and every acknowledged row is there.
    let db = open(&db_path(), &options);
    assert!(db.stats().unwrap().replayed_frames >= acked.len() as u64);
    assert_eq!(read_all(&db.snapshot()), model(&acked));
    drop(db);
    vfs.set_capacity(None);
    let db = open(&db_path(), &options);
    assert_eq!(db.close().unwrap().checkpoint_skipped, None);
}

#[test]
fn a_failed_wal_write_or_fsync_is_outcome_unknown_for_its_batch_and_fail_stopped_after() {
    for skip in [0, 1] {
        let vfs = SimVfs::new();
        let options = sim_options(&vfs, 1 << 20);
        let db = open(&db_path(), &options);
        commit_row(&db, 0).unwrap();
        // skip 0: the batch's write fails; skip 1: its fsync.
        vfs.fail_at(vfs.op_count() + skip, FaultKind::Eio, false);
        match commit_row(&db, 1) {
            Err(err @ Error::OutcomeUnknown(_)) => {
                assert_eq!(err.code(), "outcome_unknown");
                assert!(err.to_string().contains("may or may not be durable"), "{err}");
            }
            other => panic!("skip {skip}: expected OutcomeUnknown, got {other:?}"),
        }
        match commit_row(&db, 2) {
            Err(err @ Error::FailStopped(_)) => {
                assert_eq!(err.code(), "fail_stopped");
                assert!(err.to_string().contains("was not written"), "{err}");
            }
            other => panic!("skip {skip}: expected FailStopped, got {other:?}"),
        }
        assert!(matches!(db.close(), Err(Error::FailStopped(_))));
        let db = open(&db_path(), &options);
        let got = read_all(&db.snapshot());
        assert!(got == model(&[0]) || got == model(&[0, 1]), "skip {skip}: {got:?}");
        assert!(db.snapshot().get(b"t", &row(2).0).unwrap().is_none(), "a fail-stopped commit is never written");
    }
}
