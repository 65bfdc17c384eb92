//! Corruption tests of checkpointed WAL history (R14; docs/architecture.md,
//! "Corruption"), on a whole database: a damaged or missing frame at or below the
//! checkpoint LSN was synced, so it is corruption, never a torn tail. The database
//! opens and serves (recovery does not need that history), the damage is reported and
//! persisted, reading it through the change feed fails with `WalCorrupted`, verify
//! reports it, and nothing is deleted. Damage after the checkpoint still refuses the
//! open.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::wal_files::{frame_at, segment_name};
use common::{commit, db_path, open, put, sim_options};
use storage::vfs::{RealVfs, SimVfs, Vfs};
use storage::{Database, Error, Options};

const COMMITS: u64 = 6;

fn key(n: u64) -> Vec<u8> {
    format!("k{n}").into_bytes()
}

/// `COMMITS` commits, each its own batch (LSNs 1..=6); `checkpoint`: closed (so
/// checkpointed at LSN 6), else dropped with the initial checkpoint (LSN 0).
fn build(options: &Options, dir: &Path, checkpoint: bool) {
    let db = open(dir, options);
    for n in 1..=COMMITS {
        assert_eq!(db.commit_sync(commit(vec![put("t", &key(n), &[n as u8; 100])])).unwrap(), n);
    }
    if checkpoint {
        db.close().unwrap();
        assert_eq!(open(dir, options).stats().unwrap().checkpoint_lsn, COMMITS);
    }
}

/// Flips one payload byte of frame `lsn` of the first segment; returns its offset.
fn flip_payload(vfs: &dyn Vfs, dir: &Path, lsn: u64) -> u64 {
    let path = dir.join("wal").join(segment_name(1));
    let file = vfs.open(&path, false).unwrap();
    let mut bytes = vec![0u8; file.len().unwrap() as usize];
    file.read_at(&mut bytes, 0).unwrap();
    let (offset, _) = frame_at(&bytes, lsn).expect("the frame is there");
    let at = offset + 32 + 7;
    file.write_at(&[bytes[at] ^ 0x20], at as u64).unwrap();
    file.sync().unwrap();
    offset as u64
}

fn expect_wal_corrupted<T: std::fmt::Debug>(result: storage::Result<T>, offset: u64) {
    match result {
        Err(Error::WalCorrupted { segment, offset: o }) => assert_eq!((segment, o), (segment_name(1), offset)),
        other => panic!("expected WalCorrupted at {offset}, got {other:?}"),
    }
}

fn frame_lsns(db: &Database, after: u64) -> storage::Result<Vec<u64>> {
    Ok(db.read_frames(after, 100, usize::MAX)?.iter().map(|f| f.lsn).collect())
}

/// Everything damage to checkpointed frame `damaged` (of 1..=6) must leave true
/// (docs/architecture.md, "Corruption"): reported and persisted, the data served from
/// the checkpoint, the change feed failing over the damage only, verify listing it,
/// nothing deleted, and new commits in a new segment that survive a reopen.
fn damaged_history_is_reported_and_the_database_serves(vfs: Arc<dyn Vfs>, dir: &Path, options: &Options, damaged: u64) {
    build(options, dir, true);
    let offset = flip_payload(&*vfs, dir, damaged);
    let id = format!("wal:{}@{offset}", segment_name(1));

    let db = open(dir, options);
    let stats = db.stats().unwrap();
    let report = stats.corruption.iter().find(|r| r.id == id).unwrap_or_else(|| panic!("no report {id}: {:?}", stats.corruption));
    assert_eq!((report.kind.as_str(), report.file.as_str(), report.count), ("wal_frame", format!("wal/{}", segment_name(1)).as_str(), 1));
    assert_eq!(stats.corruption_total, 1);
    let log = read_file(&*vfs, &dir.join("corruption.log"));
    assert!(log.contains(&id), "the report is persisted: {log}");
    // The data is intact: the checkpoint holds it.
    for n in 1..=COMMITS {
        assert_eq!(db.snapshot().get(b"t", &key(n)).unwrap().as_deref(), Some(&[n as u8; 100][..]));
    }
    // The change feed fails over the damage and reads after it; nothing was deleted.
    expect_wal_corrupted(frame_lsns(&db, 0), offset);
    expect_wal_corrupted(frame_lsns(&db, damaged - 1), offset);
    assert_eq!(frame_lsns(&db, damaged).unwrap(), (damaged + 1..=COMMITS).collect::<Vec<_>>());
    assert_eq!(db.stats().unwrap().oldest_lsn, 1);
    let verify = db.verify().unwrap();
    assert_eq!(verify.wal_problems, 1, "{:?}", verify.problems);
    assert!(verify.problems.iter().any(|p| p.contains(&segment_name(1)) && p.contains(&format!("LSN {damaged}"))), "{:?}", verify.problems);

    // New commits go to a new segment (the damaged one is sealed) and survive reopen.
    assert_eq!(db.commit_sync(commit(vec![put("t", b"new", b"row")])).unwrap(), COMMITS + 1);
    assert_eq!(vfs.list(&dir.join("wal")).unwrap(), [segment_name(1), segment_name(COMMITS + 1)]);
    assert_eq!(frame_lsns(&db, COMMITS).unwrap(), [COMMITS + 1]);
    // Every detection counts: the open and the two failed reads.
    let count = |db: &Database| db.stats().unwrap().corruption.iter().find(|r| r.id == id).map(|r| r.count);
    assert_eq!(count(&db), Some(3));
    db.close().unwrap();
    let db = open(dir, options);
    assert_eq!(count(&db), Some(4), "detected again at the second open");
    assert_eq!(db.snapshot().get(b"t", b"new").unwrap().as_deref(), Some(&b"row"[..]));
    assert_eq!(frame_lsns(&db, damaged).unwrap(), (damaged + 1..=COMMITS + 1).collect::<Vec<_>>());
    expect_wal_corrupted(frame_lsns(&db, 0), offset);
    db.close().unwrap();
}

fn read_file(vfs: &dyn Vfs, path: &Path) -> String {
    let file = vfs.open_read(path).unwrap();
    let mut bytes = vec![0u8; file.len().unwrap() as usize];
    file.read_at(&mut bytes, 0).unwrap();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn corruption_of_a_checkpointed_frame_in_the_middle_is_reported_and_the_database_serves() {
    let vfs = SimVfs::new();
    damaged_history_is_reported_and_the_database_serves(Arc::new(vfs.clone()), &db_path(), &sim_options(&vfs, 1 << 20), 4);
}

#[test]
fn corruption_of_the_last_checkpointed_frame_is_reported_not_discarded_as_a_torn_tail() {
    let vfs = SimVfs::new();
    damaged_history_is_reported_and_the_database_serves(Arc::new(vfs.clone()), &db_path(), &sim_options(&vfs, 1 << 20), COMMITS);
}

#[test]
fn corruption_of_checkpointed_frames_on_real_files_is_reported_and_the_database_serves() {
    for damaged in [4, COMMITS] {
        let dir = tempfile::tempdir().unwrap();
        let options = Options { cache_bytes: 1 << 20, ..Options::default() };
        damaged_history_is_reported_and_the_database_serves(Arc::new(RealVfs), dir.path(), &options, damaged);
    }
}

#[test]
fn corruption_after_the_checkpoint_still_refuses_the_open_and_is_recorded() {
    let vfs = SimVfs::new();
    let options = sim_options(&vfs, 1 << 20);
    build(&options, &db_path(), false);
    let offset = flip_payload(&vfs, &db_path(), 4);
    expect_wal_corrupted(Database::open(&db_path(), options.clone()).map(|_| ()), offset);
    let log = read_file(&vfs, &db_path().join("corruption.log"));
    assert!(log.contains(&format!("wal:{}@{offset}", segment_name(1))), "{log}");
}

#[test]
fn missing_checkpointed_frames_at_the_end_of_the_wal_are_reported() {
    let vfs = SimVfs::new();
    let options = sim_options(&vfs, 1 << 20);
    build(&options, &db_path(), true);
    // The segment ends cleanly before the checkpoint: frames 5 and 6 are gone.
    let path = db_path().join("wal").join(segment_name(1));
    let bytes = vfs.read_raw(&path).unwrap();
    let (offset, _) = frame_at(&bytes, 5).unwrap();
    vfs.write_raw(&path, offset as u64, &vec![0u8; bytes.len() - offset]);

    let db = open(&db_path(), &options);
    let id = format!("wal:{}@{offset}", segment_name(1));
    assert!(db.stats().unwrap().corruption.iter().any(|r| r.id == id && r.kind == "wal_frame"), "{:?}", db.stats().unwrap().corruption);
    expect_wal_corrupted(frame_lsns(&db, 3), offset as u64);
    assert_eq!(db.read_frames(3, 1, usize::MAX).unwrap().iter().map(|f| f.lsn).collect::<Vec<_>>(), [4], "frames before the damage read");
    expect_wal_corrupted(frame_lsns(&db, 4), offset as u64);
    assert_eq!(frame_lsns(&db, 6).unwrap(), Vec::<u64>::new());
    let verify = db.verify().unwrap();
    assert!(verify.problems.iter().any(|p| p.contains("LSN 5 to 6")), "{:?}", verify.problems);
    assert_eq!(db.commit_sync(commit(vec![put("t", b"new", b"row")])).unwrap(), COMMITS + 1);
    db.close().unwrap();
    let db = open(&db_path(), &options);
    assert_eq!(frame_lsns(&db, COMMITS).unwrap(), [COMMITS + 1]);
    assert_eq!(vfs.list(&db_path().join("wal")).unwrap(), [segment_name(1), segment_name(COMMITS + 1)]);
}

/// A frame whose checksum holds but whose commit breaks a limit it was checked against
/// when it was made (here a key over 1 KiB) cannot come from this writer: replaying it
/// is corruption of that frame, reported and persisted, not an invalid argument.
#[test]
fn corruption_a_logged_commit_that_fails_its_checks_at_replay_is_reported() {
    let vfs = SimVfs::new();
    let options = sim_options(&vfs, 1 << 20);
    let dir = db_path();
    open(&dir, &options).close().unwrap();
    {
        let (wal, _) = storage::wal::Wal::open(Arc::new(vfs.clone()) as Arc<dyn Vfs>, &dir, 0, 0).unwrap();
        let bad = commit(vec![put("t", &[b'k'; 2000], b"v")]).encode();
        wal.append_batch(&[(1, &bad)]).unwrap();
    }
    let err = Database::open(&dir, options.clone()).err().expect("the open refuses a frame it cannot replay");
    assert!(matches!(err, Error::WalCorrupted { .. }), "{err:?}");
    // Reported and persisted: a read-only open sees the report the failed open wrote.
    let log = vfs.read_raw(&dir.join("corruption.log")).expect("a corruption log");
    assert!(String::from_utf8_lossy(&log).contains("frame lsn 1"), "{}", String::from_utf8_lossy(&log));
}
