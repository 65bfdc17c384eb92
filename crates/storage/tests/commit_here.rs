//! Commits on the caller's thread (`Database::commit_payload_here`, the embedder's
//! synchronous durable write): durable when it returns, completed on the caller's
//! thread with the same result; commits queued before it go first, in LSN order, and
//! are completed too; concurrent callers and asynchronous committers each get every
//! LSN once and all survive a crash; a failed write fail-stops as on the sync thread;
//! refused (and `done` told) when closed, a follower, read-only or stopped; the
//! automatic checkpoint its batches make due runs on the sync thread.

mod common;

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{commit, db_path, put, read_all, sim_options};
use storage::vfs::{CrashMode, FaultKind, SimVfs};
use storage::{CommitPayload, Database, Error, Op};

const HANG: Duration = Duration::from_secs(60);

fn row(n: u64) -> Op {
    put("t", format!("k{n:06}").as_bytes(), format!("v{n}").as_bytes())
}

fn payload(n: u64) -> CommitPayload {
    commit(vec![row(n)]).to_payload().unwrap()
}

type Told = Arc<Mutex<Vec<(Option<String>, Result<u64, String>)>>>;

/// A completion that records (the thread it ran on, its result).
fn recorder(told: &Told) -> Box<dyn FnOnce(storage::Result<u64>) + Send> {
    let told = told.clone();
    Box::new(move |result| {
        let thread = std::thread::current().name().map(str::to_string);
        told.lock().unwrap().push((thread, result.map_err(|e| e.to_string())));
    })
}

#[test]
fn a_commit_here_is_durable_when_it_returns_and_completed_on_the_caller_s_thread() {
    let sim = SimVfs::new();
    let db = Database::open(&db_path(), sim_options(&sim, 1 << 20)).unwrap();
    let told: Told = Arc::default();
    let fsyncs = db.stats().unwrap().fsync.count;
    for n in 0..5 {
        assert_eq!(db.commit_payload_here(payload(n), recorder(&told)).unwrap(), n + 1);
    }
    assert_eq!(db.stats().unwrap().fsync.count - fsyncs, 5, "one fsync each");
    let told = told.lock().unwrap().clone();
    let caller = std::thread::current().name().map(str::to_string);
    assert_eq!(told, (1..=5).map(|lsn| (caller.clone(), Ok(lsn))).collect::<Vec<_>>(), "done told the same, on this thread");
    assert_eq!(db.snapshot().lsn(), 5, "readers see it at once");
    // Nothing closed: what it returned must be on disk already.
    let db = Database::open(&db_path(), sim_options(&sim.crash(CrashMode::DropUnsynced), 1 << 20)).unwrap();
    assert_eq!(read_all(&db.snapshot())[&b"t"[..]].len(), 5);
}

#[test]
fn commits_queued_before_it_go_first_and_all_survive() {
    let sim = SimVfs::new();
    let db = Arc::new(Database::open(&db_path(), sim_options(&sim, 1 << 20)).unwrap());
    let told: Told = Arc::default();
    // The sync thread is held in the first commit's fsync; two more queue behind it.
    let held = sim.hold_next_sync();
    db.commit_payload(payload(0), recorder(&told));
    assert!(held.wait_held(HANG), "the first commit reached its fsync");
    db.commit_payload(payload(1), recorder(&told));
    db.commit_payload(payload(2), recorder(&told));
    let (send, receive) = mpsc::channel();
    let caller = {
        let (db, told) = (db.clone(), told.clone());
        std::thread::Builder::new()
            .name("caller".into())
            .spawn(move || send.send(db.commit_payload_here(payload(3), recorder(&told)).map_err(|e| e.to_string())).unwrap())
            .unwrap()
    };
    // It waits for the batch being worked on (it cannot finish before the release).
    assert!(receive.recv_timeout(Duration::from_millis(100)).is_err(), "the caller waited for the sync thread's batch");
    held.release();
    assert_eq!(receive.recv_timeout(HANG).unwrap(), Ok(4), "after the commits queued before it");
    caller.join().unwrap();
    let mut lsns: Vec<u64> = told.lock().unwrap().iter().map(|(_, r)| *r.as_ref().unwrap()).collect();
    lsns.sort();
    assert_eq!(lsns, [1, 2, 3, 4], "each answered once, in queue order");
    // The two queued ones were written by whichever took them first, the sync thread
    // or the caller; either way before the caller's own.
    let by_caller = told.lock().unwrap().iter().filter(|(thread, _)| thread.as_deref() == Some("caller")).count();
    assert!((1..=3).contains(&by_caller), "the caller completed its own commit, and maybe the queued ones: {by_caller}");
    let db = Database::open(&db_path(), sim_options(&sim.crash(CrashMode::DropUnsynced), 1 << 20)).unwrap();
    assert_eq!(read_all(&db.snapshot())[&b"t"[..]].len(), 4);
}

#[test]
fn concurrent_callers_and_queued_commits_get_each_lsn_once_and_all_survive() {
    let sim = SimVfs::new();
    let db = Arc::new(Database::open(&db_path(), sim_options(&sim, 4 << 20)).unwrap());
    let told: Told = Arc::default();
    let threads: Vec<_> = (0..4u64)
        .map(|t| {
            let (db, told) = (db.clone(), told.clone());
            std::thread::spawn(move || {
                let mut returned = Vec::new();
                for i in 0..150u64 {
                    let n = t * 1000 + i;
                    // Half the threads also queue commits for the sync thread in between.
                    if t % 2 == 1 && i % 3 == 0 {
                        db.commit_payload(payload(n + 500), recorder(&told));
                    }
                    returned.push(db.commit_payload_here(payload(n), recorder(&told)).unwrap());
                }
                returned
            })
        })
        .collect();
    let returned: Vec<Vec<u64>> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    for lsns in &returned {
        assert!(lsns.windows(2).all(|w| w[0] < w[1]), "each caller's commits take rising LSNs");
    }
    let queued = 2 * 50;
    let total = 4 * 150 + queued;
    let deadline = std::time::Instant::now() + HANG;
    while told.lock().unwrap().len() < total && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut lsns: Vec<u64> = told.lock().unwrap().iter().map(|(_, r)| *r.as_ref().unwrap()).collect();
    lsns.sort();
    assert_eq!(lsns, (1..=total as u64).collect::<Vec<_>>(), "every LSN once");
    let db = Database::open(&db_path(), sim_options(&sim.crash(CrashMode::DropUnsynced), 4 << 20)).unwrap();
    assert_eq!(read_all(&db.snapshot())[&b"t"[..]].len(), total);
}

#[test]
fn a_failed_fsync_on_the_caller_s_thread_fail_stops() {
    let sim = SimVfs::new();
    let db = Database::open(&db_path(), sim_options(&sim, 1 << 20)).unwrap();
    let told: Told = Arc::default();
    db.commit_payload_here(payload(0), recorder(&told)).unwrap();
    sim.fail_at(0, FaultKind::Eio, true);
    let failed = db.commit_payload_here(payload(1), recorder(&told)).unwrap_err();
    // Its bytes may be on disk (the write failed) or not (the device failed first).
    assert!(matches!(failed, Error::OutcomeUnknown(_) | Error::FailStopped(_)), "{failed:?}");
    sim.clear_faults();
    let later = db.commit_payload_here(payload(2), recorder(&told)).unwrap_err();
    assert!(matches!(later, Error::FailStopped(_)), "nothing more is acknowledged: {later:?}");
    let codes: Vec<bool> = told.lock().unwrap().iter().map(|(_, r)| r.is_ok()).collect();
    assert_eq!(codes, [true, false, false], "done told each the same");
}

#[test]
fn refused_when_closed_a_follower_or_read_only_and_done_is_told() {
    let sim = SimVfs::new();
    let db = Database::open(&db_path(), sim_options(&sim, 1 << 20)).unwrap();
    let told: Told = Arc::default();
    db.set_follower(true);
    assert!(matches!(db.commit_payload_here(payload(0), recorder(&told)), Err(Error::NotPrimary)));
    db.set_follower(false);
    db.commit_payload_here(payload(1), recorder(&told)).unwrap();
    db.close().unwrap();
    assert!(matches!(db.commit_payload_here(payload(2), recorder(&told)), Err(Error::Closed)));
    let read_only = Database::open(&db_path(), storage::Options { read_only: true, ..sim_options(&sim, 1 << 20) }).unwrap();
    assert!(matches!(read_only.commit_payload_here(payload(3), recorder(&told)), Err(Error::ReadOnly(_))));
    let told = told.lock().unwrap().clone();
    assert_eq!(told.len(), 4, "done was told every time: {told:?}");
    assert_eq!(told.iter().filter(|(_, r)| r.is_ok()).count(), 1);
}

#[test]
fn the_checkpoint_a_caller_s_batches_make_due_runs_on_the_sync_thread() {
    let sim = SimVfs::new();
    let options = storage::Options { checkpoint_wal_bytes: 16 << 10, ..sim_options(&sim, 1 << 20) };
    let db = Database::open(&db_path(), options).unwrap();
    let told: Told = Arc::default();
    for n in 0..400 {
        db.commit_payload_here(payload(n), recorder(&told)).unwrap();
    }
    let deadline = std::time::Instant::now() + HANG;
    while db.stats().unwrap().checkpoints.count == 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let stats = db.stats().unwrap();
    assert!(stats.checkpoints.count >= 1, "the sync thread checkpointed");
    assert!(stats.checkpoint_lsn > 0);
    db.close().unwrap();
}
