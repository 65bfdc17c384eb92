//! A panic on the sync thread (`group_commit.rs`, docs/architecture.md, "The binding")
//! is contained there: the database fail-stops, every commit of the batch is answered
//! (`FailStopped` when its write had not begun, `OutcomeUnknown` once it had), every
//! later commit is answered `FailStopped`, reads go on, closing and dropping the
//! database do not panic, and reopening the directory recovers exactly what was
//! written.
//!
//! The panics come from the test-only trigger (`src/panics/test_panic.rs`): each step it names
//! panics the first time it is reached in this process, so this is one test that meets
//! them in order: `sync.apply` (applying a batch), `sync.write` (after the batch's WAL
//! write and fsync, before it is published) and `sync.checkpoint` (the automatic
//! checkpoint after a batch).

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use common::{commit, put, read_all};
use storage::vfs::{RealVfs, Vfs};
use storage::wal::Wal;
use storage::{Database, Error, Options};

/// Long enough for any batch on a busy machine; a commit left waiting fails here.
const ANSWER_WAIT: Duration = Duration::from_secs(60);

const CAUSE: &str = "the storage core's sync thread panicked: a test panic (TENANTDB_TEST_PANIC) in";

fn cause(step: &str) -> String {
    format!("{CAUSE} {step}")
}

/// Queues one commit per key at once (so they may share a batch) and waits for each
/// answer. A completion dropped unanswered, or never called, fails here.
fn commit_keys(db: &Database, keys: &[&str]) -> Vec<(String, storage::Result<u64>)> {
    let receivers: Vec<_> = keys
        .iter()
        .map(|key| {
            let (send, receive) = mpsc::channel();
            db.commit(commit(vec![put("t", key.as_bytes(), b"v")]), Box::new(move |result| send.send(result).expect("the test waits")));
            (key.to_string(), receive)
        })
        .collect();
    receivers
        .into_iter()
        .map(|(key, receive)| {
            let result = receive.recv_timeout(ANSWER_WAIT).unwrap_or_else(|err| panic!("commit {key} was not answered: {err}"));
            assert!(receive.try_recv().is_err(), "commit {key} is answered once");
            (key, result)
        })
        .collect()
}

fn keys(db: &Database) -> Vec<String> {
    read_all(&db.snapshot()).get(&b"t"[..]).map_or_else(Vec::new, |tree| tree.keys().map(|k| String::from_utf8(k.clone()).unwrap()).collect())
}

fn fail_stopped(result: &storage::Result<u64>, step: &str, what: &str) {
    match result {
        Err(Error::FailStopped(got)) => assert_eq!(got, &cause(step), "{what}"),
        other => panic!("{what}: expected FailStopped, got {other:?}"),
    }
}

fn open(dir: &Path, options: &Options) -> Database {
    let db = Database::open(dir, options.clone()).expect("open");
    assert_eq!(db.fail_stopped(), None, "a reopened database writes");
    db
}

#[test]
fn a_panic_on_the_sync_thread_fail_stops_answers_every_commit_and_reopens() {
    // Before anything reads it: the trigger reads the variable once, lazily.
    std::env::set_var(storage::test_panic::VARIABLE, "sync.apply,sync.write,sync.checkpoint");
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("db");
    let options = Options::default();

    // A commit written before the first panic. Every commit the sync thread applies
    // meets `sync.apply` first, so this one is written to the WAL directly and the
    // open replays it (recovery does not go through the sync thread).
    std::fs::create_dir(&dir).unwrap();
    {
        let (wal, _) = Wal::open(Arc::new(RealVfs) as Arc<dyn Vfs>, &dir, 0, 0).unwrap();
        let earlier = commit(vec![put("t", b"a", b"v")]).to_payload().unwrap();
        wal.append_batch(&[(1, earlier.bytes())]).unwrap();
    }

    // (a) A panic while the batch is applied: nothing of it was written.
    let db = open(&dir, &options);
    assert_eq!(keys(&db), ["a"], "the earlier commit was replayed");
    for (key, result) in commit_keys(&db, &["b", "c", "d"]) {
        fail_stopped(&result, "sync.apply", &format!("commit {key}, queued as the sync thread panicked"));
    }
    assert_eq!(db.fail_stopped(), Some(cause("sync.apply")));
    fail_stopped(&commit_keys(&db, &["e"])[0].1, "sync.apply", "a later commit");
    assert_eq!(keys(&db), ["a"], "reads go on");
    assert_eq!(db.durable_lsn().unwrap(), 1);
    match db.close() {
        Err(Error::FailStopped(got)) => assert_eq!(got, cause("sync.apply"), "close skips its checkpoint and says why"),
        other => panic!("close: expected FailStopped, got {other:?}"),
    }
    drop(db);

    // (b) A panic after the batch's write and fsync, before it is published: its first
    // commit's outcome is unknown, and it was in fact durable.
    let db = open(&dir, &options);
    assert_eq!(keys(&db), ["a"], "nothing of the failed batch was written");
    let results = commit_keys(&db, &["f", "g", "h"]);
    let mut written = Vec::new();
    for (i, (key, result)) in results.iter().enumerate() {
        match result {
            Err(Error::OutcomeUnknown(got)) => {
                assert_eq!(got, &cause("sync.write"), "commit {key}");
                written.push(key.clone());
            }
            // Those queued after the batch that panicked (whether all three share it
            // depends on when the sync thread woke).
            Err(Error::FailStopped(got)) if i > 0 => assert_eq!(got, &cause("sync.write"), "commit {key}"),
            other => panic!("commit {key}: expected OutcomeUnknown (or FailStopped after the first), got {other:?}"),
        }
    }
    eprintln!("sync_thread_panic: {} of 3 commits shared the batch that panicked after its write", written.len());
    assert_eq!(db.fail_stopped(), Some(cause("sync.write")));
    fail_stopped(&commit_keys(&db, &["i"])[0].1, "sync.write", "a later commit");
    assert_eq!(keys(&db), ["a"], "reads go on (the batch was never published)");
    // Dropped without close: the sync thread is joined, nothing panics.
    drop(db);

    // (c) A panic in the automatic checkpoint after a batch: the batch's commits were
    // durable and answered; the next commit finds the database stopped.
    let checkpointing = Options { checkpoint_wal_bytes: 1, ..options.clone() };
    let db = open(&dir, &checkpointing);
    let mut expected: Vec<String> = ["a"].iter().map(|k| k.to_string()).chain(written.iter().cloned()).collect();
    assert_eq!(keys(&db), expected, "the commits answered OutcomeUnknown were durable; the others were not written");
    let lsn = db.durable_lsn().unwrap();
    let result = &commit_keys(&db, &["j"])[0].1;
    assert_eq!(result.as_ref().ok(), Some(&(lsn + 1)), "the commit is answered before the checkpoint runs: {result:?}");
    expected.push("j".into());
    fail_stopped(&commit_keys(&db, &["k"])[0].1, "sync.checkpoint", "the next commit");
    assert_eq!(db.fail_stopped(), Some(cause("sync.checkpoint")));
    assert_eq!(keys(&db), expected, "reads go on");
    assert_eq!(db.stats().unwrap().checkpoints.count, 0, "no checkpoint ran");
    assert!(db.close().is_err(), "close skips its checkpoint");

    // Reopened, every answered commit is there and the database writes again.
    let db = open(&dir, &options);
    assert_eq!(keys(&db), expected);
    let by_key: BTreeMap<_, _> = commit_keys(&db, &["l", "m"]).into_iter().collect();
    assert!(by_key.values().all(Result::is_ok), "{by_key:?}");
    assert_eq!(db.verify().unwrap().problems, Vec::<String>::new());
    db.close().unwrap();
}
