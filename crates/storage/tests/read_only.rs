//! Read-only open (docs/operations.md, "Verifying a directory"): `tenantdb verify` must
//! work on a full disk and a read-only mount, so opening read-only changes no byte of
//! the directory, even with a torn tail or damage to report, and refuses every change.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::wal_files::{frame_at, segment_name};
use common::{commit, db_path, open, put, read_all, sim_options};
use storage::vfs::{CrashMode, SimVfs, Vfs};
use storage::{Database, Error, Options};

fn read_only(options: &Options) -> Options {
    Options { read_only: true, ..options.clone() }
}

/// Every file of the directory (and `wal/`) with its bytes.
fn files(vfs: &SimVfs, dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for sub in [dir.to_path_buf(), dir.join("wal")] {
        for name in vfs.list(&sub).unwrap() {
            if let Some(bytes) = vfs.read_raw(&sub.join(&name)) {
                out.insert(format!("{}/{name}", sub.display()), bytes);
            }
        }
    }
    out
}

/// Three commits checkpointed at close, two more in the WAL, then a torn batch.
fn torn_directory() -> (SimVfs, Options) {
    let vfs = SimVfs::new();
    let options = sim_options(&vfs, 1 << 20);
    let db = open(&db_path(), &options);
    for n in 0..3u8 {
        db.commit_sync(commit(vec![put("t", &[n], &[n; 50])])).unwrap();
    }
    db.close().unwrap();
    let db = open(&db_path(), &options);
    for n in 3..5u8 {
        db.commit_sync(commit(vec![put("t", &[n], &[n; 50])])).unwrap();
    }
    drop(db);
    // A torn frame after the last one: bytes of a batch that never finished.
    let path = db_path().join("wal").join(segment_name(1));
    let bytes = vfs.read_raw(&path).unwrap();
    let (offset, len) = frame_at(&bytes, 5).unwrap();
    vfs.write_raw(&path, (offset + len) as u64, &[0x77; 100]);
    let vfs = vfs.crash(CrashMode::DropUnsynced);
    let options = sim_options(&vfs, 1 << 20);
    (vfs, options)
}

#[test]
fn read_only_open_with_a_torn_tail_changes_no_byte_and_refuses_changes() {
    let (vfs, options) = torn_directory();
    let before = files(&vfs, &db_path());
    let db = Database::open(&db_path(), read_only(&options)).unwrap();
    let stats = db.stats().unwrap();
    assert_eq!((stats.current_lsn, stats.checkpoint_lsn, stats.replayed_frames), (5, 3, 2));
    assert!(stats.torn_bytes > 0);
    assert_eq!(read_all(&db.snapshot())[&b"t".to_vec()].len(), 5);
    let report = db.verify().unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(db.read_frames(0, 10, usize::MAX).unwrap().len(), 5);
    match db.commit_sync(commit(vec![put("t", b"x", b"y")])) {
        Err(err @ Error::ReadOnly(_)) => assert_eq!(err.code(), "read_only"),
        other => panic!("expected ReadOnly, got {other:?}"),
    }
    assert!(matches!(db.checkpoint(), Err(Error::ReadOnly(_))));
    assert_eq!(db.close().unwrap().checkpoint_skipped, None);
    assert_eq!(files(&vfs, &db_path()), before, "not a byte changed");
    // The writable open afterwards finds the same state.
    let db = open(&db_path(), &options);
    assert_eq!(db.stats().unwrap().current_lsn, 5);
}

#[test]
fn read_only_open_reports_damage_in_memory_and_writes_no_report() {
    let (vfs, options) = torn_directory();
    // Damage checkpointed frame 2.
    let path = db_path().join("wal").join(segment_name(1));
    let bytes = vfs.read_raw(&path).unwrap();
    let (offset, _) = frame_at(&bytes, 2).unwrap();
    vfs.write_raw(&path, offset as u64 + 40, &[bytes[offset + 40] ^ 1]);
    let before = files(&vfs, &db_path());
    let db = Database::open(&db_path(), read_only(&options)).unwrap();
    let stats = db.stats().unwrap();
    assert_eq!(stats.corruption_total, 1);
    assert_eq!(stats.corruption[0].id, format!("wal:{}@{offset}", segment_name(1)));
    let report = db.verify().unwrap();
    assert_eq!(report.wal_problems, 1, "{:?}", report.problems);
    assert!(matches!(db.read_frames(0, 10, usize::MAX), Err(Error::WalCorrupted { .. })));
    db.close().unwrap();
    assert_eq!(files(&vfs, &db_path()), before, "no corruption.log written");
}

#[test]
fn read_only_open_takes_a_shared_lock() {
    let (vfs, options) = torn_directory();
    let reader = Database::open(&db_path(), read_only(&options)).unwrap();
    let second = Database::open(&db_path(), read_only(&options)).expect("readers share the lock");
    assert!(matches!(Database::open(&db_path(), options.clone()), Err(Error::Locked { .. })));
    drop(reader);
    drop(second);
    let writer = open(&db_path(), &options);
    assert!(matches!(Database::open(&db_path(), read_only(&options)), Err(Error::Locked { .. })));
    drop(writer);
    drop(vfs);
}

#[test]
fn read_only_open_of_a_directory_without_a_database_creates_nothing() {
    let vfs = SimVfs::new();
    let options = sim_options(&vfs, 1 << 20);
    assert!(Database::open(&db_path(), read_only(&options)).is_err());
    assert!(!vfs.exists(&db_path()).unwrap());
    vfs.create_dir_all(&db_path()).unwrap();
    match Database::open(&db_path(), read_only(&options)) {
        Err(Error::InvalidArgument(message)) => assert!(message.contains("no page file"), "{message}"),
        other => panic!("expected InvalidArgument, got {:?}", other.map(|_| ())),
    }
    assert!(vfs.list(&db_path()).unwrap().is_empty(), "nothing created");
}

#[test]
fn read_only_open_on_real_files_changes_nothing_and_respects_a_writer_lock() {
    let dir = tempfile::tempdir().unwrap();
    let options = Options { cache_bytes: 1 << 20, ..Options::default() };
    let db = Database::open(dir.path(), options.clone()).unwrap();
    db.commit_sync(commit(vec![put("t", b"a", b"b")])).unwrap();
    assert!(matches!(Database::open(dir.path(), read_only(&options)), Err(Error::Locked { .. })));
    drop(db);
    let snapshot = |dir: &Path| -> BTreeMap<String, (Vec<u8>, std::time::SystemTime)> {
        let mut out = BTreeMap::new();
        for sub in [dir.to_path_buf(), dir.join("wal")] {
            for entry in std::fs::read_dir(&sub).unwrap() {
                let path = entry.unwrap().path();
                if path.is_file() {
                    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
                    out.insert(path.display().to_string(), (std::fs::read(&path).unwrap(), modified));
                }
            }
        }
        out
    };
    let before = snapshot(dir.path());
    let db = Database::open(dir.path(), read_only(&options)).unwrap();
    assert_eq!(db.snapshot().get(b"t", b"a").unwrap().as_deref(), Some(&b"b"[..]));
    assert!(db.verify().unwrap().problems.is_empty());
    db.close().unwrap();
    assert_eq!(snapshot(dir.path()), before);
    // Without a LOCK file (a copy on a read-only mount) it opens unlocked.
    std::fs::remove_file(dir.path().join("LOCK")).unwrap();
    let db = Database::open(dir.path(), read_only(&options)).unwrap();
    assert!(!dir.path().join("LOCK").exists());
    db.close().unwrap();
}
