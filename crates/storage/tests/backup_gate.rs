//! The backup gate (`src/database/backup/`): while a backup holds it, no
//! checkpoint or compaction writes the page file or the journal, cuts the page file or
//! deletes a WAL segment (automatic checkpoints skip, explicit ones and compaction are
//! refused); a backup waits for a running checkpoint; they all resume once it ends; and
//! the bytes a backup lists, copied while commits go on, open at exactly its LSN with
//! every acknowledged commit and pin. Breaks when the gate is not taken or not honoured.

mod common;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{commit, db_path, open, put, read_all, sim_options, Rng};
use storage::vfs::{SimVfs, Vfs};
use storage::{Backup, Database, Error, Op, Options};

fn options(vfs: &SimVfs) -> Options {
    // A checkpoint every 8 KiB of WAL, and no tail retention: every checkpoint would
    // write pages and let retention delete segments if the gate let it.
    Options { checkpoint_wal_bytes: 8 << 10, tail_retention_bytes: 0, ..sim_options(vfs, 4 << 20) }
}

fn pin(name: &str) -> Op {
    Op::Pin { name: name.as_bytes().into() }
}

/// The operations of `trace` that change the page file or the journal, or delete a file.
fn maintenance_writes(trace: &[String]) -> Vec<String> {
    trace
        .iter()
        .filter(|op| !op.starts_with("read "))
        .filter(|op| op.contains("/pages") || op.contains("checkpoint.journal") || op.starts_with("remove "))
        .cloned()
        .collect()
}

fn checkpoints(db: &Database) -> u64 {
    db.stats().unwrap().checkpoints.count
}

/// Copies what `backup` lists into `to`, in chunks of an odd size, calling `between`
/// after each chunk.
fn copy(backup: &Backup, vfs: &SimVfs, to: &Path, mut between: impl FnMut()) {
    vfs.create_private_dir(&to.join("wal")).unwrap();
    let mut buf = vec![0u8; 7001];
    for (index, file) in backup.files().iter().enumerate() {
        let out = vfs.open(&to.join(&file.path), true).unwrap();
        let mut offset = 0u64;
        loop {
            let n = backup.read(index, offset, &mut buf).unwrap();
            if n == 0 {
                break;
            }
            out.write_at(&buf[..n], offset).unwrap();
            offset += n as u64;
            between();
        }
        assert_eq!(offset, file.bytes, "{} is copied to the length listed", file.path);
        out.sync().unwrap();
    }
    vfs.sync_dir(&to.join("wal")).unwrap();
    vfs.sync_dir(to).unwrap();
}

#[test]
fn maintenance_leaves_the_files_alone_while_a_backup_holds_the_gate_and_resumes_after() {
    let vfs = SimVfs::new();
    let mut rng = Rng::new(7);
    // 18 commits of about 1 MiB fill the first WAL segment (16 MiB) and start a second,
    // so retention has a segment to delete once checkpoints cover it. Loaded without
    // automatic checkpoints (the closing one deletes nothing), so that none is running
    // or has deleted it when the backup begins.
    let loading = open(&db_path(), &Options { checkpoint_wal_bytes: u64::MAX, ..options(&vfs) });
    for i in 0..18u32 {
        loading.commit_sync(commit(vec![put("big", &i.to_be_bytes(), &rng.bytes(1000 << 10))])).unwrap();
    }
    loading.close().unwrap();
    let db = open(&db_path(), &options(&vfs));
    let wal_dir = db_path().join("wal");
    let segments = vfs.list(&wal_dir).unwrap();
    assert!(segments.len() >= 2, "the WAL spans two segments: {segments:?}");

    let backup = db.begin_backup().unwrap();
    let held_at = checkpoints(&db);
    vfs.trace_ops();
    for i in 0..200u32 {
        db.commit_sync(commit(vec![put("small", &i.to_be_bytes(), &rng.bytes(400))])).unwrap();
    }
    assert!(matches!(db.checkpoint(), Err(Error::BackupInProgress(_))), "an explicit checkpoint is refused");
    assert!(matches!(db.compact_space(), Err(Error::BackupInProgress(_))), "compaction is refused");
    let during = vfs.op_trace();
    assert!(during.iter().any(|op| op.contains("/wal/")), "commits went on (WAL writes traced)");
    assert_eq!(maintenance_writes(&during), Vec::<String>::new(), "nothing wrote the page file or journal, or removed a file");
    assert_eq!(checkpoints(&db), held_at, "the automatic checkpoints (80 KiB of WAL past an 8 KiB threshold) were skipped");
    assert_eq!(vfs.list(&wal_dir).unwrap()[..segments.len()], segments[..], "no WAL segment was deleted");

    backup.end();
    assert!(backup.read(0, 0, &mut [0u8; 16]).is_err(), "a backup that ended reads nothing");
    db.commit_sync(commit(vec![put("small", b"after", b"x")])).unwrap();
    // The sync thread checkpoints after it has completed the batch: wait for it.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while checkpoints(&db) == held_at {
        assert!(std::time::Instant::now() < deadline, "the next batch's automatic checkpoint runs");
        std::thread::sleep(Duration::from_millis(1));
    }
    db.checkpoint().unwrap();
    db.checkpoint().unwrap();
    let after = vfs.op_trace();
    assert!(!maintenance_writes(&after[during.len()..]).is_empty(), "checkpoints write the page file again");
    assert!(!vfs.list(&wal_dir).unwrap().contains(&segments[0]), "retention deletes the covered segment again");
    db.compact_space().unwrap();
    assert!(db.verify().unwrap().problems.is_empty());
}

#[test]
fn a_backup_waits_for_a_running_checkpoint() {
    let vfs = SimVfs::new();
    let db = Arc::new(open(&db_path(), &Options { checkpoint_wal_bytes: u64::MAX, ..options(&vfs) }));
    let mut rng = Rng::new(8);
    for i in 0..50u32 {
        db.commit_sync(commit(vec![put("t", &i.to_be_bytes(), &rng.bytes(300))])).unwrap();
    }
    // The checkpoint stops at its first fsync, inside the gate.
    let held = vfs.hold_next_sync();
    let checkpointing = {
        let db = db.clone();
        std::thread::spawn(move || db.checkpoint().map(|stats| stats.generation))
    };
    assert!(held.wait_held(Duration::from_secs(30)), "the checkpoint reached its fsync");
    let began = Arc::new(AtomicBool::new(false));
    let beginning = {
        let (db, began) = (db.clone(), began.clone());
        std::thread::spawn(move || {
            let backup = db.begin_backup();
            began.store(true, Ordering::SeqCst);
            backup.map(|b| b.lsn())
        })
    };
    // Not a poll: the backup must still be waiting however long we look.
    std::thread::sleep(Duration::from_millis(200));
    assert!(!began.load(Ordering::SeqCst), "the backup waits while the checkpoint runs");
    held.release();
    let generation = checkpointing.join().unwrap().unwrap();
    assert_eq!(beginning.join().unwrap().unwrap(), 50, "then the backup begins, at the newest LSN");
    assert!(generation > 0);
}

#[test]
fn a_copy_taken_while_commits_go_on_opens_at_its_lsn_with_every_acknowledged_commit_and_pin() {
    let vfs = SimVfs::new();
    let db = Arc::new(open(&db_path(), &options(&vfs)));
    let mut rng = Rng::new(9);
    for i in 0..100u64 {
        db.commit_sync(commit(vec![put("t", &i.to_be_bytes(), &rng.bytes(600))])).unwrap();
    }
    db.commit_sync(commit(vec![pin("before")])).unwrap();
    let pinned = read_all(&db.snapshot());

    // A writer commits without pause; it records each key with its LSN once acknowledged.
    let acknowledged: Arc<Mutex<Vec<(u64, u64)>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (db, acknowledged, stop) = (db.clone(), acknowledged.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut rng = Rng::new(10);
            let mut key = 1000u64;
            while !stop.load(Ordering::SeqCst) {
                let lsn = db.commit_sync(commit(vec![put("t", &key.to_be_bytes(), &rng.bytes(600))])).unwrap();
                acknowledged.lock().unwrap().push((key, lsn));
                key += 1;
            }
        })
    };
    let wait_for = |n: usize| {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while acknowledged.lock().unwrap().len() < n {
            assert!(std::time::Instant::now() < deadline, "the writer acknowledged {n} commits");
            std::thread::yield_now();
        }
    };
    wait_for(50);
    let before: Vec<(u64, u64)> = acknowledged.lock().unwrap().clone();
    let backup = db.begin_backup().unwrap();
    let copy_dir = Path::new("/sim/copy");
    // Slowly: more commits are acknowledged between chunks, so without the gate
    // checkpoints would write the page file and cut the WAL in the middle of the copy.
    let first = acknowledged.lock().unwrap().len();
    copy(&backup, &vfs, copy_dir, || {
        let now = acknowledged.lock().unwrap().len();
        wait_for(now + 5);
    });
    assert!(acknowledged.lock().unwrap().len() >= first + 50, "commits were acknowledged during the copy");
    backup.end();
    stop.store(true, Ordering::SeqCst);
    writer.join().unwrap();

    let lsn = backup.lsn();
    let all = acknowledged.lock().unwrap().clone();
    assert!(all.iter().any(|&(_, l)| l > lsn), "commits went on past the backup's LSN");
    let copied = open(copy_dir, &options(&vfs));
    assert_eq!(copied.durable_lsn().unwrap(), lsn, "the copy opens at exactly the backup's LSN");
    let snapshot = copied.snapshot();
    for &(key, _) in &before {
        assert!(snapshot.get(b"t", &key.to_be_bytes()).unwrap().is_some(), "key {key}, acknowledged before the backup began, is there");
    }
    for &(key, at) in &all {
        let found = snapshot.get(b"t", &key.to_be_bytes()).unwrap().is_some();
        assert_eq!(found, at <= lsn, "key {key} (lsn {at}) is there exactly when at or below {lsn}");
    }
    let pin = snapshot.pin(b"before").unwrap().expect("the pin is in the copy");
    assert_eq!(read_all(&pin), pinned, "the pin reads what it pinned");
    assert!(copied.verify().unwrap().problems.is_empty(), "the copy verifies clean");
    let next = copied.commit_sync(commit(vec![put("t", b"new", b"x")])).unwrap();
    assert_eq!(next, lsn + 1, "the copy takes new commits after its LSN");
    copied.close().unwrap();
    db.close().unwrap();
}

#[test]
fn closing_during_a_backup_skips_the_checkpoint_and_ends_its_reads() {
    let vfs = SimVfs::new();
    let db = open(&db_path(), &options(&vfs));
    db.commit_sync(commit(vec![put("t", b"k", b"v")])).unwrap();
    let backup = db.begin_backup().unwrap();
    let second = db.begin_backup().unwrap();
    assert_eq!(second.lsn(), backup.lsn(), "two backups share the gate");
    drop(second);
    assert!(matches!(db.checkpoint(), Err(Error::BackupInProgress(_))), "until the last one ends");
    let report = db.close().unwrap();
    assert!(report.checkpoint_skipped.as_deref().unwrap_or("").contains("backup"), "close says why it skipped its checkpoint: {report:?}");
    assert!(matches!(backup.read(0, 0, &mut [0u8; 16]), Err(Error::Closed)), "reads end with the database");
    drop(backup);
    let reopened = open(&db_path(), &options(&vfs));
    assert_eq!(reopened.snapshot().get(b"t", b"k").unwrap().as_deref(), Some(&b"v"[..]), "the WAL kept the commit");
}
