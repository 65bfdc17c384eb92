//! The scripted workload of the crash and I/O-error tests: rounds of concurrent
//! commits (so group commit batches them), a checkpoint every few rounds, and close.

use std::sync::mpsc;

use super::{commit, db_path, put, read_all, sim_options, Model, Rng};
use storage::vfs::SimVfs;
use storage::{Commit, Database, Error, Op};

const ROUNDS: usize = 30;
const CONCURRENT: usize = 3;

/// The commits of the script, in LSN order, and the model state after each prefix.
pub fn script(seed: u64) -> (Vec<Commit>, Vec<Model>) {
    let mut rng = Rng::new(seed);
    let mut commits = Vec::new();
    let mut states = vec![Model::new()];
    let mut model = Model::new();
    for n in 0..ROUNDS * CONCURRENT {
        let mut ops = Vec::new();
        for _ in 0..3 {
            let key = format!("k{:02}", rng.below(30)).into_bytes();
            if rng.chance(20) {
                model.entry(b"t".to_vec()).or_default().remove(&key);
                ops.push(Op::Delete { tree: b"t".to_vec(), key });
            } else {
                let len = if rng.chance(10) { 3000 } else { 50 };
                let mut value = rng.bytes(len);
                value[0] = n as u8;
                model.entry(b"t".to_vec()).or_default().insert(key.clone(), value.clone());
                ops.push(put("t", &key, &value));
            }
        }
        // An emptied tree still exists until dropped, as in the engine.
        commits.push(commit(ops));
        states.push(model.clone());
    }
    (commits, states)
}

/// Runs the script until the first failure. Returns how many commits were
/// acknowledged (always a prefix), how many were attempted, and the first error.
/// After an error in a durable write, checks that the database is fail-stopped.
pub fn run(vfs: &SimVfs, commits: &[Commit]) -> (usize, usize, Option<Error>) {
    let options = sim_options(vfs, 1 << 20);
    let db = match Database::open(&db_path(), options) {
        Ok(db) => db,
        Err(err) => return (0, 0, Some(err)),
    };
    let mut acked = 0;
    let mut attempted = 0;
    for (round, group) in commits.chunks(CONCURRENT).enumerate() {
        let (send, receive) = mpsc::channel();
        for (i, c) in group.iter().enumerate() {
            let send = send.clone();
            attempted += 1;
            db.commit(c.clone(), Box::new(move |result| send.send((i, result.err())).unwrap()));
        }
        let mut results: Vec<(usize, Option<Error>)> = (0..group.len()).map(|_| receive.recv().unwrap()).collect();
        results.sort_by_key(|(i, _)| *i);
        for (_, err) in results {
            if let Some(err) = err {
                return (acked, attempted, Some(stopped(&db, err)));
            }
            acked += 1;
        }
        if round % 8 == 4 {
            if let Err(err) = db.checkpoint() {
                // A failed checkpoint may have half-written pages: always fail-stop.
                return (acked, attempted, Some(stopped(&db, Error::FailStopped(err.to_string()))));
            }
        }
    }
    let result = db.close().err();
    (acked, attempted, result)
}

/// Once a durable write failed, nothing more may be acknowledged (fail-stop).
fn stopped(db: &Database, err: Error) -> Error {
    if matches!(err, Error::FailStopped(_)) {
        let again = db.commit_sync(commit(vec![put("t", b"late", b"x")]));
        assert!(matches!(again, Err(Error::FailStopped(_))), "after {err}: a later commit gave {again:?}");
        assert!(matches!(db.checkpoint(), Err(Error::FailStopped(_))), "after {err}: checkpoint ran");
    }
    err
}


/// Opens the directory left behind and checks it holds the state after some prefix
/// of `acked..=attempted` commits, verifies clean, and carries on from there.
pub fn check_recovery(vfs: SimVfs, states: &[Model], acked: usize, attempted: usize, context: &str) {
    let options = sim_options(&vfs, 1 << 20);
    let db = Database::open(&db_path(), options.clone()).unwrap_or_else(|e| panic!("{context}: recovery failed: {e}"));
    let got = read_all(&db.snapshot());
    let prefix = (acked..=attempted)
        .find(|&k| states[k] == got)
        .unwrap_or_else(|| panic!("{context}: recovered state is no prefix of {acked}..={attempted} commits: {got:?}"));
    assert_eq!(db.snapshot().lsn(), prefix as u64, "{context}: LSN of the recovered state");
    let report = db.verify().unwrap();
    assert!(report.problems.is_empty(), "{context}: verify after recovery: {:?}", report.problems);
    // It carries on: a new commit gets the next LSN and survives a clean reopen.
    let lsn = db.commit_sync(commit(vec![put("t", b"after", b"crash")])).unwrap();
    assert_eq!(lsn, prefix as u64 + 1, "{context}: LSNs continue");
    db.close().unwrap();
    let db = Database::open(&db_path(), options).unwrap();
    assert_eq!(db.snapshot().get(b"t", b"after").unwrap().as_deref(), Some(&b"crash"[..]), "{context}");
}

