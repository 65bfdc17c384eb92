//! Regression of "slot was free yet had a count", and a directory no open could load
//! after it (docs/architecture.md, "Testing"). A checkpoint that writes the version a reader holds, older than the
//! head, left the head's newer nodes in memory; followed apart from the durable
//! version, head and durable each got their own copy of them. Compaction then moved a
//! large value one of those nodes held and rebased only the durable copy: the head's
//! kept naming the old chain, which compaction freed and cut off. The next commit made
//! that head durable, and its checkpoint counted a reference to a free slot.

mod common;

use common::{commit, db_path, open, put, read_all, sim_options};
use storage::vfs::SimVfs;
use storage::{Op, Options};

fn key(i: u32) -> Vec<u8> {
    format!("{i:06}").into_bytes()
}

#[test]
fn versions_in_memory_follow_a_moved_large_value_together() {
    let vfs = SimVfs::new();
    let options = Options { checkpoint_wal_bytes: u64::MAX, ..sim_options(&vfs, 8 << 20) };
    let db = open(&db_path(), &options);
    // A bulk of rows low in the file, then a large value whose chain lies at its end.
    for chunk in (0..6000u32).collect::<Vec<_>>().chunks(1000) {
        db.commit_sync(commit(chunk.iter().map(|&i| put("bulk", &key(i), &[7u8; 80])).collect())).unwrap();
    }
    db.checkpoint().unwrap();
    let large = vec![42u8; 5000];
    db.commit_sync(commit(vec![put("t", b"large", &large), put("t", b"small", b"1")])).unwrap();
    db.checkpoint().unwrap();
    // Free the low part of the file, so compaction moves the large value down.
    db.commit_sync(commit(vec![Op::DropTree { tree: b"bulk".to_vec() }])).unwrap();
    db.checkpoint().unwrap();

    // A reader leased one commit past the checkpoint (as a tenant operation leases
    // across its commit), and a commit after it that rewrites the large value's leaf.
    db.commit_sync(commit(vec![put("other", b"x", b"y")])).unwrap();
    let lease = db.snapshot();
    db.commit_sync(commit(vec![put("t", b"small", b"2")])).unwrap();
    // Writes the leased version (newer than the last checkpoint), not the head.
    db.checkpoint().unwrap();
    drop(lease);
    let report = db.compact_space().unwrap();
    assert!(report.pages_moved > 0, "the large value's chain moved: {report:?}");

    // The head becomes durable and is checkpointed: it must name the moved chain.
    db.commit_sync(commit(vec![put("t", b"after", b"3")])).unwrap();
    db.checkpoint().unwrap();
    let problems = db.verify().unwrap().problems;
    assert!(problems.is_empty(), "{problems:?}");
    let rows = read_all(&db.snapshot());
    assert_eq!(rows[&b"t".to_vec()][&b"large".to_vec()], large);
    db.close().unwrap();
    let db = open(&db_path(), &options);
    assert_eq!(read_all(&db.snapshot())[&b"t".to_vec()][&b"large".to_vec()], large);
    assert!(db.verify().unwrap().problems.is_empty());
}
