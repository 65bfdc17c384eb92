//! The scripted workload of the crash and I/O-error tests: rounds of concurrent
//! commits (so group commit batches them), a checkpoint every few rounds, and close.
//!
//! Every commit's outcome is kept: acknowledged, not written (`StorageFull`,
//! `FailStopped`: it must never appear after recovery, and later commits may still
//! be acknowledged after a `StorageFull`), or unknown (`OutcomeUnknown`: the batch
//! whose write or fsync failed; recovery may keep any prefix of it).

use std::sync::mpsc;

use super::{commit, db_path, put, read_all, sim_options, Model, Rng};
use storage::vfs::SimVfs;
use storage::{Commit, Database, Error, Op};

const ROUNDS: usize = 30;
const CONCURRENT: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Acked,
    NotWritten,
    Unknown,
}

/// What a run did: the outcome of each attempted commit (in LSN order of the attempt)
/// and the first error that stopped it (or of close).
pub struct Run {
    pub outcomes: Vec<Outcome>,
    pub error: Option<Error>,
}

impl Run {
    pub fn acked(&self) -> usize {
        self.outcomes.iter().filter(|o| **o == Outcome::Acked).count()
    }
}

/// The commits of the script, in order.
pub fn script(seed: u64) -> Vec<Commit> {
    let mut rng = Rng::new(seed);
    let mut commits = Vec::new();
    for n in 0..ROUNDS * CONCURRENT {
        let mut ops = Vec::new();
        for _ in 0..3 {
            let key = format!("k{:02}", rng.below(30)).into_bytes();
            if rng.chance(20) {
                ops.push(Op::Delete { tree: b"t".to_vec(), key });
            } else {
                let len = if rng.chance(10) { 3000 } else { 50 };
                let mut value = rng.bytes(len);
                value[0] = n as u8;
                ops.push(put("t", &key, &value));
            }
        }
        commits.push(commit(ops));
    }
    commits
}

/// The state after applying `commits` in order. An emptied tree still exists until
/// dropped, as in the engine, so a delete creates the tree too.
pub fn model_of<'a>(commits: impl Iterator<Item = &'a Commit>) -> Model {
    let mut model = Model::new();
    for commit in commits {
        for op in &commit.ops {
            match op {
                Op::Put { tree, key, value } => {
                    model.entry(tree.to_vec()).or_default().insert(key.to_vec(), value.to_vec());
                }
                Op::Delete { tree, key } => {
                    model.entry(tree.clone()).or_default().remove(key);
                }
                other => panic!("the script uses only puts and deletes, not {other:?}"),
            }
        }
    }
    model
}

fn outcome_of(result: &Result<u64, Error>) -> Outcome {
    match result {
        Ok(_) => Outcome::Acked,
        Err(Error::StorageFull { .. } | Error::FailStopped(_)) => Outcome::NotWritten,
        Err(Error::OutcomeUnknown(_)) => Outcome::Unknown,
        Err(other) => panic!("a commit failed with an unexpected error: {other:?}"),
    }
}

/// Runs the script until a fail-stop (or to the end). A full disk (`StorageFull`,
/// from a commit or a checkpoint) does not stop it: later commits are attempted.
pub fn run(vfs: &SimVfs, commits: &[Commit]) -> Run {
    let options = sim_options(vfs, 1 << 20);
    let db = match Database::open(&db_path(), options) {
        Ok(db) => db,
        Err(err) => return Run { outcomes: Vec::new(), error: Some(err) },
    };
    let mut outcomes = Vec::new();
    let mut last_error = None;
    for (round, group) in commits.chunks(CONCURRENT).enumerate() {
        let (send, receive) = mpsc::channel();
        for (i, c) in group.iter().enumerate() {
            let send = send.clone();
            db.commit(c.clone(), Box::new(move |result| send.send((i, result)).unwrap()));
        }
        let mut results: Vec<(usize, Result<u64, Error>)> = (0..group.len()).map(|_| receive.recv().unwrap()).collect();
        results.sort_by_key(|(i, _)| *i);
        let mut stopped_by = None;
        for (_, result) in results {
            outcomes.push(outcome_of(&result));
            match result {
                Err(err @ (Error::FailStopped(_) | Error::OutcomeUnknown(_))) => {
                    stopped_by.get_or_insert(err);
                }
                Err(err) => last_error = Some(err),
                Ok(_) => {}
            }
        }
        if let Some(err) = stopped_by {
            return Run { outcomes, error: Some(stopped(&db, err)) };
        }
        if round % 8 == 4 {
            match db.checkpoint() {
                Ok(_) => {}
                // Abandoned, not fail-stop: retried later.
                Err(err @ Error::StorageFull { .. }) => last_error = Some(err),
                Err(err @ Error::FailStopped(_)) => return Run { outcomes, error: Some(stopped(&db, err)) },
                Err(other) => panic!("a checkpoint failed with an unexpected error: {other:?}"),
            }
        }
    }
    let error = match db.close() {
        Ok(_) => last_error,
        Err(err) => Some(err),
    };
    Run { outcomes, error }
}

/// Once a durable write failed, nothing more may be acknowledged (fail-stop).
fn stopped(db: &Database, err: Error) -> Error {
    let again = db.commit_sync(commit(vec![put("t", b"late", b"x")]));
    assert!(matches!(again, Err(Error::FailStopped(_))), "after {err}: a later commit gave {again:?}");
    assert!(matches!(db.checkpoint(), Err(Error::FailStopped(_))), "after {err}: checkpoint ran");
    err
}

/// Opens the directory left behind and checks it holds exactly the acknowledged
/// commits plus some prefix of the ones whose outcome is unknown (never a commit
/// that was not written), verifies clean, and carries on from there.
pub fn check_recovery(vfs: SimVfs, commits: &[Commit], run: &Run, context: &str) {
    let options = sim_options(&vfs, 1 << 20);
    let db = Database::open(&db_path(), options.clone()).unwrap_or_else(|e| panic!("{context}: recovery failed: {e}"));
    let got = read_all(&db.snapshot());
    let unknown = run.outcomes.iter().filter(|o| **o == Outcome::Unknown).count();
    let kept = (0..=unknown)
        .find(|&k| {
            let mut unknown_seen = 0;
            let included = commits.iter().zip(&run.outcomes).filter(|(_, outcome)| match outcome {
                Outcome::Acked => true,
                Outcome::NotWritten => false,
                Outcome::Unknown => {
                    unknown_seen += 1;
                    unknown_seen <= k
                }
            });
            model_of(included.map(|(c, _)| c)) == got
        })
        .unwrap_or_else(|| {
            panic!("{context}: recovered state is not the {} acknowledged commits plus a prefix of {unknown} unknown ones (outcomes {:?}): {got:?}", run.acked(), run.outcomes)
        });
    let lsn = (run.acked() + kept) as u64;
    assert_eq!(db.snapshot().lsn(), lsn, "{context}: LSN of the recovered state");
    let report = db.verify().unwrap();
    assert!(report.problems.is_empty(), "{context}: verify after recovery: {:?}", report.problems);
    // It carries on: a new commit gets the next LSN and survives a clean reopen.
    let next = db.commit_sync(commit(vec![put("t", b"after", b"crash")])).unwrap();
    assert_eq!(next, lsn + 1, "{context}: LSNs continue");
    db.close().unwrap();
    let db = Database::open(&db_path(), options).unwrap();
    assert_eq!(db.snapshot().get(b"t", b"after").unwrap().as_deref(), Some(&b"crash"[..]), "{context}");
}
