//! Group commit tests: commits that arrive while the sync thread is in an fsync share
//! the next fsync, in queue order, with consecutive LSNs; a commit failing its checks
//! among them changes nothing; commits queued at once are one batch; nothing is lost
//! at close. The fsync is held in place (`SimVfs::hold_next_sync`) until the test has
//! queued what it needs, so nothing depends on timing.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{commit, db_path, put, read_all, sim_options};
use storage::vfs::{CrashMode, SimVfs};
use storage::{Database, Error, Op};

/// How long a held fsync may take to be reached (a hang guard only).
const HANG: Duration = Duration::from_secs(60);

fn open(sim: &SimVfs) -> Database {
    Database::open(&db_path(), sim_options(sim, 1 << 20)).unwrap()
}

fn row(n: u64) -> Op {
    put("t", format!("k{n:06}").as_bytes(), format!("v{n}").as_bytes())
}

type Outcome = (&'static str, Option<String>, Result<u64, String>);

/// Submits `c` and reports (tag, the completing thread's name, the result).
fn submit(db: &Database, tag: &'static str, c: storage::Commit, out: &mpsc::Sender<Outcome>) {
    let out = out.clone();
    db.commit(
        c,
        Box::new(move |result| {
            let thread = std::thread::current().name().map(str::to_string);
            let _ = out.send((tag, thread, result.map_err(|e| e.to_string())));
        }),
    );
}

#[test]
fn commits_arriving_during_an_fsync_share_the_next_fsync_in_queue_order() {
    let sim = SimVfs::new();
    let db = open(&sim);
    let fsyncs_before = db.stats().unwrap().fsync.count;
    let (send, receive) = mpsc::channel();
    let held = sim.hold_next_sync();
    submit(&db, "first", commit(vec![row(0)]), &send);
    assert!(held.wait_held(HANG), "the first commit reached its fsync");
    // The sync thread is in the first commit's fsync: these queue behind it. A commit
    // failing its checks, between two good ones, changes nothing and takes no LSN.
    submit(&db, "second", commit(vec![row(1)]), &send);
    submit(&db, "invalid", commit(vec![put("t", &[b'x'; 5000], b"too long a key")]), &send);
    submit(&db, "third", commit(vec![row(2)]), &send);
    held.release();
    let mut outcomes: Vec<Outcome> = (0..4).map(|_| receive.recv_timeout(HANG).expect("every commit completes")).collect();
    outcomes.sort_by_key(|(tag, _, _)| *tag);
    let [first, invalid, second, third] = &outcomes[..] else { unreachable!() };
    assert_eq!(first.2, Ok(1));
    assert_eq!(second.2, Ok(2));
    assert_eq!(third.2, Ok(3), "consecutive LSNs in queue order");
    assert!(invalid.2.as_ref().is_err_and(|e| e.contains("key")), "{invalid:?}");
    assert_eq!(first.1.as_deref(), Some("tenantdb-sync"), "completions run on the sync thread");
    assert_eq!(db.stats().unwrap().fsync.count - fsyncs_before, 2, "second and third shared one fsync");
    let snapshot = db.snapshot();
    assert_eq!(snapshot.lsn(), 3);
    drop(db);
    let db = open(&sim.crash(CrashMode::DropUnsynced));
    let rows = read_all(&db.snapshot());
    assert_eq!(rows[&b"t".to_vec()].len(), 3);
}

#[test]
fn concurrent_committers_get_each_lsn_once_in_their_own_order_and_all_survive() {
    // All queued behind one held fsync (then they share the next one), and racing
    // the sync thread freely (batches as small as the race makes them).
    for hold in [true, false] {
        concurrent_committers(hold);
    }
}

fn concurrent_committers(hold: bool) {
    const THREADS: u64 = 6;
    const EACH: u64 = 400;
    let sim = SimVfs::new();
    let db = Arc::new(open(&sim));
    let fsyncs_before = db.stats().unwrap().fsync.count;
    let held = hold.then(|| sim.hold_next_sync());
    let (queued, all_queued) = mpsc::channel();
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let (db, queued) = (db.clone(), queued.clone());
            std::thread::spawn(move || {
                // Several in flight per thread, awaited in order.
                let (send, receive) = mpsc::channel();
                for n in 0..EACH {
                    let send = send.clone();
                    db.commit(commit(vec![row(t * EACH + n)]), Box::new(move |r| send.send((n, r)).unwrap()));
                }
                queued.send(()).unwrap();
                let mut lsns = vec![0; EACH as usize];
                for _ in 0..EACH {
                    let (n, result) = receive.recv_timeout(HANG).expect("every commit completes");
                    lsns[n as usize] = result.expect("commit");
                }
                lsns
            })
        })
        .collect();
    if let Some(held) = held {
        assert!(held.wait_held(HANG), "the first batch reached its fsync");
        for _ in 0..THREADS {
            all_queued.recv_timeout(HANG).expect("every thread queues its commits");
        }
        held.release();
    }
    let mut all = Vec::new();
    for worker in workers {
        let lsns = worker.join().unwrap();
        assert!(lsns.windows(2).all(|w| w[0] < w[1]), "one thread's commits keep their order: {lsns:?}");
        all.extend(lsns);
    }
    all.sort_unstable();
    assert_eq!(all, (1..=THREADS * EACH).collect::<Vec<_>>(), "every LSN exactly once");
    if hold {
        // The first batch (what was queued when the sync thread woke: one commit, or
        // all of them), then everything queued behind its held fsync as one batch.
        let fsyncs = db.stats().unwrap().fsync.count - fsyncs_before;
        assert!(fsyncs <= 2, "the commits queued behind the held fsync shared one: {fsyncs} fsyncs");
    }
    drop(db);
    let db = open(&sim.crash(CrashMode::DropUnsynced));
    assert_eq!(db.snapshot().lsn(), THREADS * EACH);
    assert_eq!(read_all(&db.snapshot())[&b"t".to_vec()].len() as u64, THREADS * EACH);
}

/// What `Database::commit_payloads` queues at once the sync thread takes at once: one
/// batch and one fsync even when it was asleep (pushed one by one, the first push woke
/// it and it could take that one alone), in the order given; a follower refuses each.
#[test]
fn commits_queued_at_once_are_one_batch_in_their_order() {
    const COMMITS: u64 = 500;
    let sim = SimVfs::new();
    let db = open(&sim);
    let fsyncs_before = db.stats().unwrap().fsync.count;
    let queue = |db: &Database| {
        let (send, receive) = mpsc::channel();
        let commits = (0..COMMITS)
            .map(|n| {
                let send = send.clone();
                let done: Box<dyn FnOnce(storage::Result<u64>) + Send> = Box::new(move |r| send.send((n, r.map_err(|e| e.code()))).unwrap());
                (commit(vec![row(n)]).to_payload().unwrap(), done)
            })
            .collect();
        db.commit_payloads(commits);
        let mut results: Vec<_> = (0..COMMITS).map(|_| receive.recv_timeout(HANG).expect("every commit completes")).collect();
        results.sort_by_key(|(n, _)| *n);
        results.into_iter().map(|(_, r)| r).collect::<Vec<_>>()
    };
    assert_eq!(queue(&db), (1..=COMMITS).map(Ok).collect::<Vec<_>>(), "LSNs in the order given");
    assert_eq!(db.stats().unwrap().fsync.count - fsyncs_before, 1, "one batch, one fsync");
    db.set_follower(true);
    assert!(queue(&db).iter().all(|r| *r == Err("not_primary")), "a follower refuses each");
    drop(db);
    let db = open(&sim.crash(CrashMode::DropUnsynced));
    assert_eq!(db.snapshot().lsn(), COMMITS);
}

#[test]
fn close_completes_every_commit_queued_behind_an_fsync() {
    let sim = SimVfs::new();
    let db = Arc::new(open(&sim));
    let (send, receive) = mpsc::channel();
    let held = sim.hold_next_sync();
    for n in 0..200 {
        let send = send.clone();
        db.commit(commit(vec![row(n)]), Box::new(move |r| send.send(r).unwrap()));
    }
    assert!(held.wait_held(HANG), "the first batch reached its fsync");
    let closing = {
        let db = db.clone();
        std::thread::spawn(move || db.close())
    };
    // Close has begun once a new commit is refused; the probes queued before that
    // must complete too.
    let deadline = Instant::now() + HANG;
    let closed = Arc::new(AtomicBool::new(false));
    let mut probes = 0;
    loop {
        let (send, closed_seen) = (send.clone(), closed.clone());
        db.commit(
            commit(vec![row(1000 + probes)]),
            Box::new(move |result| match result {
                Err(Error::Closed) => closed_seen.store(true, Ordering::SeqCst),
                other => send.send(other).unwrap(),
            }),
        );
        if closed.load(Ordering::SeqCst) {
            break;
        }
        probes += 1;
        assert!(Instant::now() < deadline, "close never began");
        std::thread::sleep(Duration::from_millis(1));
    }
    held.release();
    closing.join().unwrap().unwrap();
    let results: Vec<_> = receive.try_iter().collect();
    assert_eq!(results.len() as u64, 200 + probes, "every completion ran before close returned");
    assert!(results.iter().all(|r| r.is_ok()), "{results:?}");
    // A commit after close is refused at once.
    let (send, receive) = mpsc::channel();
    db.commit(commit(vec![row(999)]), Box::new(move |r| send.send(r).unwrap()));
    assert!(matches!(receive.try_recv(), Ok(Err(Error::Closed) | Err(Error::FailStopped(_)))));
    drop(db);
    let db = open(&sim.crash(CrashMode::DropUnsynced));
    assert_eq!(db.snapshot().lsn(), 200 + probes);
}
