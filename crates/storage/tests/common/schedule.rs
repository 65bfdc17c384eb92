//! A deterministic schedule of steps (commits, checkpoints, compaction, readers,
//! restarts) run against a database on the simulated disk, for the crash and
//! I/O-error tests.
//!
//! Deterministic: every run of the same steps performs the same I/O operations in the
//! same order, so an operation's index names the same point on every run (the tests
//! check it with `SimVfs::op_trace`). Steps run on the test's thread one at a time;
//! checkpoints run only when a step asks (`checkpoint_wal_bytes` is unbounded, so the
//! sync thread never starts one of its own); and commits submitted together form the
//! same group commit batches every time: the first goes alone and its fsync is held
//! (`SimVfs::hold_next_sync`) until the others are queued, so they make up the next
//! batch, one write and one fsync.
//!
//! Every commit's outcome is kept: acknowledged, refused (the model says the engine
//! must refuse it, and the run checks it does), not written (`StorageFull`,
//! `FailStopped`, or an I/O error while applying it), or unknown (`OutcomeUnknown`:
//! its batch's write or fsync failed). Every error is kept with the step it came
//! from. A full disk does not stop the run: the step is retried once, as a client
//! would. A fail-stop does, after checking that nothing more is acknowledged.

use std::collections::BTreeSet;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::state::{pins_after, refused, State};
use super::{commit, db_path, put, sim_options};
use storage::vfs::SimVfs;
use storage::{Commit, Database, Error, Options, Snapshot};

/// How long a step may take before the run is declared hung (a hang guard only).
const HANG: Duration = Duration::from_secs(120);

#[derive(Clone, Debug)]
pub enum Step {
    /// Commits submitted together: one batch for the first, one for the rest.
    Commits(Vec<Commit>),
    Checkpoint,
    CompactSpace,
    /// Takes a snapshot and keeps it (a reader holding its version) until `Release`.
    Hold,
    Release,
    /// Closes the database (its checkpoint included) and opens it again.
    Reopen,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Acked,
    Refused,
    NotWritten,
    Unknown,
}

/// What an error was: one the engine returned, or a close that skipped its
/// checkpoint for a full disk (reported, not an error).
#[derive(Debug)]
pub enum Seen {
    Error(Error),
    CheckpointSkipped(String),
}

#[derive(Debug)]
pub struct Failure {
    pub step: usize,
    pub during: &'static str,
    pub seen: Seen,
}

/// What the file went through, summed over the run's checkpoints and compactions.
#[derive(Debug, Default, Clone)]
pub struct Work {
    pub checkpoints: u64,
    pub in_place: u64,
    pub pages_written: u64,
    pub pages_released: u64,
    pub pages_moved: u64,
    /// The allocator tip at the end.
    pub tip: u64,
}

#[derive(Default)]
pub struct Run {
    /// Every commit attempted, in the order of its attempt (so of its LSN).
    pub attempts: Vec<(Commit, Outcome)>,
    pub failures: Vec<Failure>,
    /// The run ended on a fail-stop (or a failed open or close).
    pub stopped: bool,
    pub work: Work,
}

impl Run {
    pub fn count(&self, outcome: Outcome) -> usize {
        self.attempts.iter().filter(|(_, o)| *o == outcome).count()
    }
}

/// The options of every scheduled run: checkpoints only when a step asks.
pub fn schedule_options(vfs: &SimVfs) -> Options {
    Options { checkpoint_wal_bytes: u64::MAX, ..sim_options(vfs, 1 << 20) }
}

/// Runs `steps` on `vfs` until the end or a fail-stop, then closes. Each held reader
/// must read, at its release, exactly what the model held when it was taken.
pub fn run(vfs: &SimVfs, steps: &[Step]) -> Run {
    let mut run = Run::default();
    let mut db = match Database::open(&db_path(), schedule_options(vfs)) {
        Ok(db) => db,
        Err(err) => {
            run.failures.push(Failure { step: 0, during: "open", seen: Seen::Error(err) });
            run.stopped = true;
            return run;
        }
    };
    let mut pins = BTreeSet::new();
    let mut reader: Option<(Snapshot, usize)> = None;
    for (index, step) in steps.iter().enumerate() {
        let stop = match step {
            Step::Commits(commits) => commit_all(vfs, &db, commits, &mut pins, &mut run, index),
            Step::Checkpoint => checkpoint(&db, &mut run, index),
            Step::CompactSpace => compact_space(&db, &mut run, index),
            Step::Hold => {
                assert!(reader.is_none(), "one reader at a time");
                reader = Some((db.snapshot(), run.attempts.len()));
                false
            }
            Step::Release => {
                let (snapshot, attempts) = reader.take().expect("a reader to release");
                // Read on every run, faults or not, so every run does the same I/O.
                match State::try_read(&snapshot) {
                    Ok(read) => {
                        let acked = run.attempts[..attempts].iter().filter(|(_, o)| *o == Outcome::Acked).map(|(c, _)| c);
                        assert!(read == State::of(acked), "step {index}: a reader no longer reads its version");
                    }
                    Err(err @ Error::Io { .. }) => {
                        run_failed(&mut run, index, "reader", err);
                    }
                    Err(other) => panic!("step {index}: a reader failed: {other}"),
                }
                false
            }
            Step::Reopen => {
                assert!(reader.is_none(), "no reader across a restart");
                if close(&mut run, index, db) {
                    return run;
                }
                match Database::open(&db_path(), schedule_options(vfs)) {
                    Ok(opened) => db = opened,
                    Err(err) => {
                        run_failed(&mut run, index, "reopen", err);
                        run.stopped = true;
                        return run;
                    }
                }
                false
            }
        };
        if stop {
            check_fail_stop(&db, &run);
            run.stopped = true;
            return run;
        }
    }
    drop(reader);
    run.work.tip = db.stats().map_or(0, |s| s.page_count);
    close(&mut run, steps.len(), db);
    run
}

fn checkpoint(db: &Database, run: &mut Run, step: usize) -> bool {
    let (first, result) = retried(|| db.checkpoint());
    if let Some(full) = first {
        run_failed(run, step, "checkpoint", full);
    }
    match result {
        Ok(stats) => {
            run.work.checkpoints += 1;
            run.work.in_place += stats.in_place as u64;
            run.work.pages_written += stats.pages_written;
            run.work.pages_released += stats.pages_released;
            false
        }
        Err(err) => run_failed(run, step, "checkpoint", err),
    }
}

fn compact_space(db: &Database, run: &mut Run, step: usize) -> bool {
    let (first, result) = retried(|| db.compact_space());
    if let Some(full) = first {
        run_failed(run, step, "compact_space", full);
    }
    match result {
        Ok(report) => {
            run.work.pages_moved += report.pages_moved;
            false
        }
        Err(err) => run_failed(run, step, "compact_space", err),
    }
}

/// Records an error; true if it stops the run (a fail-stop).
fn run_failed(run: &mut Run, step: usize, during: &'static str, err: Error) -> bool {
    let stops = matches!(err, Error::FailStopped(_) | Error::OutcomeUnknown(_));
    run.failures.push(Failure { step, during, seen: Seen::Error(err) });
    stops
}

/// Runs `attempt`, and once more if the disk was full: (the first error, the result).
fn retried<T>(mut attempt: impl FnMut() -> storage::Result<T>) -> (Option<Error>, storage::Result<T>) {
    match attempt() {
        Err(full @ Error::StorageFull { .. }) => (Some(full), attempt()),
        result => (None, result),
    }
}

/// Closes; true if that failed (a close that skipped its checkpoint did not fail).
fn close(run: &mut Run, step: usize, db: Database) -> bool {
    match db.close() {
        Ok(report) => {
            if let Some(reason) = report.checkpoint_skipped {
                run.failures.push(Failure { step, during: "close", seen: Seen::CheckpointSkipped(reason) });
            }
            false
        }
        Err(err) => {
            run_failed(run, step, "close", err);
            run.stopped = true;
            true
        }
    }
}

/// Once a durable write failed, nothing more may be acknowledged (fail-stop).
fn check_fail_stop(db: &Database, run: &Run) {
    let last = &run.failures.last().expect("stopped by a failure").seen;
    let again = db.commit_sync(commit(vec![put("t", b"late", b"x")]));
    assert!(matches!(again, Err(Error::FailStopped(_))), "after {last:?}: a later commit gave {again:?}");
    assert!(matches!(db.checkpoint(), Err(Error::FailStopped(_))), "after {last:?}: checkpoint ran");
}

/// Submits `commits` (retrying, once, those refused for a full disk) and records their
/// outcomes; true if the database stopped.
fn commit_all(vfs: &SimVfs, db: &Database, commits: &[Commit], pins: &mut BTreeSet<Vec<u8>>, run: &mut Run, step: usize) -> bool {
    let mut full = Vec::new();
    let mut stopped = record(commits, submit(vfs, db, commits), pins, run, step, &mut full);
    if !full.is_empty() && !stopped {
        stopped = record(&full, submit(vfs, db, &full), pins, run, step, &mut Vec::new());
    }
    stopped
}

fn record(commits: &[Commit], results: Vec<storage::Result<u64>>, pins: &mut BTreeSet<Vec<u8>>, run: &mut Run, step: usize, full: &mut Vec<Commit>) -> bool {
    // Whether the engine decided each commit on the pins the model expects: not when
    // an earlier commit of the group failed for another reason than the model's.
    let mut as_modelled = true;
    let mut stopped = false;
    let mut expected_pins = pins.clone();
    for (commit, result) in commits.iter().zip(results) {
        let must_refuse = refused(&expected_pins, commit);
        if !must_refuse {
            pins_after(&mut expected_pins, commit);
        }
        let outcome = match result {
            Ok(_) => {
                assert!(!(as_modelled && must_refuse), "step {step}: the engine accepted a commit it must refuse: {commit:?}");
                pins_after(pins, commit);
                Outcome::Acked
            }
            Err(Error::InvalidArgument(message)) => {
                assert!(!as_modelled || must_refuse, "step {step}: the engine refused a valid commit ({message}): {commit:?}");
                Outcome::Refused
            }
            Err(err) => {
                as_modelled = false;
                let outcome = match err {
                    Error::OutcomeUnknown(_) => Outcome::Unknown,
                    Error::StorageFull { .. } => {
                        full.push(commit.clone());
                        Outcome::NotWritten
                    }
                    Error::FailStopped(_) | Error::Io { .. } => Outcome::NotWritten,
                    ref other => panic!("step {step}: a commit failed with an unexpected error: {other:?}"),
                };
                stopped |= run_failed(run, step, "commit", err);
                outcome
            }
        };
        run.attempts.push((commit.clone(), outcome));
    }
    stopped
}

/// Submits the commits so that they form the same batches on every run, and waits
/// for their results (in submission order).
fn submit(vfs: &SimVfs, db: &Database, commits: &[Commit]) -> Vec<storage::Result<u64>> {
    let (send, receive) = mpsc::channel();
    let queue = |i: usize| {
        let send = send.clone();
        db.commit(commits[i].clone(), Box::new(move |result| send.send((i, result)).expect("the test waits")));
    };
    let mut results: Vec<Option<storage::Result<u64>>> = commits.iter().map(|_| None).collect();
    let mut next = 0;
    while next < commits.len() {
        if next + 1 == commits.len() {
            queue(next);
            break;
        }
        // The first goes alone; once its fsync is held, the rest queue behind it and
        // make up the next batch. If it completes without reaching its fsync
        // (refused, or failed before), the next one goes alone in its turn.
        let held = vfs.hold_next_sync();
        queue(next);
        let deadline = Instant::now() + HANG;
        let reached_fsync = loop {
            if held.wait_held(Duration::from_millis(1)) {
                break true;
            }
            if let Ok((i, result)) = receive.try_recv() {
                results[i] = Some(result);
                break false;
            }
            assert!(Instant::now() < deadline, "a commit neither reached its fsync nor completed");
        };
        if !reached_fsync {
            next += 1;
            continue;
        }
        (next + 1..commits.len()).for_each(queue);
        held.release();
        break;
    }
    while results.iter().any(Option::is_none) {
        let (i, result) = receive.recv_timeout(HANG).expect("every commit completes");
        results[i] = Some(result);
    }
    results.into_iter().map(|r| r.expect("collected")).collect()
}
