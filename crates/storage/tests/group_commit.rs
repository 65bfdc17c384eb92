//! Group commit tests: commits that arrive while the sync thread is in an fsync share
//! the next fsync, in queue order, with consecutive LSNs; a commit failing its checks
//! among them changes nothing; nothing is lost at close. The fsync is slowed down so
//! the timing is certain.

mod common;

use std::io;
use std::path::Path;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use common::{commit, db_path, put, read_all, SIM_WAL_PREALLOCATE_BYTES};
use storage::vfs::{CrashMode, SimVfs, Vfs, VfsFile};
use storage::{Database, Error, Op, Options};

/// `SimVfs` whose file syncs take `delay` (page-file and WAL alike).
struct SlowSync {
    inner: SimVfs,
    delay: Duration,
}

struct SlowFile {
    inner: Arc<dyn VfsFile>,
    delay: Duration,
}

impl VfsFile for SlowFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        self.inner.read_at(buf, offset)
    }
    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.inner.write_at(buf, offset)
    }
    fn sync(&self) -> io::Result<()> {
        std::thread::sleep(self.delay);
        self.inner.sync()
    }
    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }
    fn set_len(&self, len: u64) -> io::Result<()> {
        self.inner.set_len(len)
    }
    fn allocate(&self, len: u64) -> io::Result<()> {
        self.inner.allocate(len)
    }
}

impl Vfs for SlowSync {
    fn open(&self, path: &Path, create: bool) -> io::Result<Arc<dyn VfsFile>> {
        Ok(Arc::new(SlowFile { inner: self.inner.open(path, create)?, delay: self.delay }))
    }
    fn open_read(&self, path: &Path) -> io::Result<Arc<dyn VfsFile>> {
        self.inner.open_read(path)
    }
    fn exists(&self, path: &Path) -> io::Result<bool> {
        self.inner.exists(path)
    }
    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        self.inner.list(dir)
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        self.inner.remove(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.inner.rename(from, to)
    }
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        self.inner.create_dir_all(path)
    }
    fn create_private_dir(&self, path: &Path) -> io::Result<()> {
        self.inner.create_private_dir(path)
    }
    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        self.inner.sync_dir(dir)
    }
    fn lock_dir(&self, dir: &Path, shared: bool) -> storage::Result<Box<dyn Send + Sync>> {
        self.inner.lock_dir(dir, shared)
    }
}

fn slow_options(sim: &SimVfs, delay: Duration) -> Options {
    Options {
        cache_bytes: 1 << 20,
        wal_preallocate_bytes: SIM_WAL_PREALLOCATE_BYTES,
        vfs: Arc::new(SlowSync { inner: sim.clone(), delay }) as Arc<dyn Vfs>,
        ..Options::default()
    }
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
    let db = Database::open(&db_path(), slow_options(&sim, Duration::from_millis(60))).unwrap();
    let fsyncs_before = db.stats().unwrap().fsync.count;
    let (send, receive) = mpsc::channel();
    submit(&db, "first", commit(vec![row(0)]), &send);
    // The sync thread is now in the first commit's (slow) fsync.
    std::thread::sleep(Duration::from_millis(20));
    submit(&db, "second", commit(vec![row(1)]), &send);
    // A commit failing its checks, between two good ones: it changes nothing and
    // takes no LSN.
    submit(&db, "invalid", commit(vec![put("t", &[b'x'; 5000], b"too long a key")]), &send);
    submit(&db, "third", commit(vec![row(2)]), &send);
    let mut outcomes: Vec<Outcome> = (0..4).map(|_| receive.recv().unwrap()).collect();
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
    let crashed = sim.crash(CrashMode::DropUnsynced);
    let db = Database::open(&db_path(), slow_options(&crashed, Duration::ZERO)).unwrap();
    let rows = read_all(&db.snapshot());
    assert_eq!(rows[&b"t".to_vec()].len(), 3);
}

#[test]
fn concurrent_committers_get_each_lsn_once_in_their_own_order_and_all_survive() {
    // A slow fsync (large batches) and none (batches as small as the race allows).
    for delay_us in [300, 0] {
        concurrent_committers(Duration::from_micros(delay_us));
    }
}

fn concurrent_committers(delay: Duration) {
    const THREADS: u64 = 6;
    const EACH: u64 = 400;
    let sim = SimVfs::new();
    let db = Arc::new(Database::open(&db_path(), slow_options(&sim, delay)).unwrap());
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let db = db.clone();
            std::thread::spawn(move || {
                // Several in flight per thread, awaited in order.
                let (send, receive) = mpsc::channel();
                for n in 0..EACH {
                    let send = send.clone();
                    db.commit(commit(vec![row(t * EACH + n)]), Box::new(move |r| send.send((n, r)).unwrap()));
                }
                let mut lsns = vec![0; EACH as usize];
                for _ in 0..EACH {
                    let (n, result) = receive.recv().unwrap();
                    lsns[n as usize] = result.expect("commit");
                }
                lsns
            })
        })
        .collect();
    let mut all = Vec::new();
    for worker in workers {
        let lsns = worker.join().unwrap();
        assert!(lsns.windows(2).all(|w| w[0] < w[1]), "one thread's commits keep their order: {lsns:?}");
        all.extend(lsns);
    }
    all.sort_unstable();
    assert_eq!(all, (1..=THREADS * EACH).collect::<Vec<_>>(), "every LSN exactly once");
    let fsyncs = db.stats().unwrap().fsync.count;
    assert!(delay.is_zero() || fsyncs < THREADS * EACH / 2, "commits share fsyncs: {fsyncs}");
    drop(db);
    let crashed = sim.crash(CrashMode::DropUnsynced);
    let db = Database::open(&db_path(), slow_options(&crashed, Duration::ZERO)).unwrap();
    assert_eq!(db.snapshot().lsn(), THREADS * EACH);
    assert_eq!(read_all(&db.snapshot())[&b"t".to_vec()].len() as u64, THREADS * EACH);
}

#[test]
fn close_completes_every_commit_queued_behind_a_slow_fsync() {
    let sim = SimVfs::new();
    let db = Database::open(&db_path(), slow_options(&sim, Duration::from_millis(5))).unwrap();
    let (send, receive) = mpsc::channel();
    for n in 0..200 {
        let send = send.clone();
        db.commit(commit(vec![row(n)]), Box::new(move |r| send.send(r).unwrap()));
    }
    db.close().unwrap();
    let results: Vec<_> = receive.try_iter().collect();
    assert_eq!(results.len(), 200, "every completion ran before close returned");
    assert!(results.iter().all(|r| r.is_ok()));
    // A commit after close is refused at once.
    let (send, receive) = mpsc::channel();
    db.commit(commit(vec![row(999)]), Box::new(move |r| send.send(r).unwrap()));
    assert!(matches!(receive.recv().unwrap(), Err(Error::Closed) | Err(Error::FailStopped(_))));
    let db = Database::open(&db_path(), slow_options(&sim.crash(CrashMode::DropUnsynced), Duration::ZERO)).unwrap();
    assert_eq!(db.snapshot().lsn(), 200);
}
