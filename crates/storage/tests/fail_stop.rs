//! Fail-stop from outside the core (`fail_stop.rs`): the binding stops the database
//! when it catches a panic (docs/architecture.md, "The binding"). From then on every
//! write is refused with `FailStopped` naming the cause, as after a failed fsync,
//! `close` skips its checkpoint, reads go on, and reopening recovers.

mod common;

use common::{commit, db_path, open, put, read_all, sim_options};
use storage::vfs::SimVfs;
use storage::Error;

fn is_stopped<T: std::fmt::Debug>(result: storage::Result<T>, what: &str) {
    match result {
        Err(Error::FailStopped(cause)) => assert_eq!(cause, "a panic in checkpoint: x", "{what}"),
        other => panic!("{what}: expected FailStopped, got {other:?}"),
    }
}

#[test]
fn a_stopped_database_refuses_writes_reads_on_and_reopens() {
    let vfs = SimVfs::new();
    let options = sim_options(&vfs, 1 << 20);
    let db = open(&db_path(), &options);
    db.commit_sync(commit(vec![put("t", b"a", b"1")])).unwrap();
    assert_eq!(db.fail_stopped(), None);

    db.fail_stop("a panic in checkpoint: x".into());
    db.fail_stop("a later cause".into());
    assert_eq!(db.fail_stopped().as_deref(), Some("a panic in checkpoint: x"), "the first cause is kept");
    is_stopped(db.commit_sync(commit(vec![put("t", b"b", b"2")])), "a commit");
    is_stopped(db.checkpoint(), "a checkpoint");
    is_stopped(db.compact_space(), "compaction");
    is_stopped(db.begin_backup().map(|_| ()), "a backup");
    let read = read_all(&db.snapshot());
    assert_eq!(read[&b"t"[..]].len(), 1, "reads go on: {read:?}");
    is_stopped(db.close(), "close");
    assert_eq!(db.stats().map(|_| ()).unwrap_err().to_string(), Error::Closed.to_string(), "close still released it");

    let db = open(&db_path(), &options);
    assert_eq!(db.fail_stopped(), None);
    assert_eq!(db.stats().unwrap().checkpoint_lsn, 0, "close wrote no checkpoint: the WAL is replayed");
    db.commit_sync(commit(vec![put("t", b"b", b"2")])).unwrap();
    assert_eq!(read_all(&db.snapshot())[&b"t"[..]].len(), 2);
    db.close().unwrap();
}
