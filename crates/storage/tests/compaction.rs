//! Compaction: a tree bloated by deletes is rebuilt from its live entries into fresh,
//! dense pages; pins taken before stay readable, and nothing is lost.

mod common;

use common::{commit, db_path, open, put, read_all, sim_options, Rng};
use storage::vfs::SimVfs;
use storage::Op;

#[test]
fn compaction_repacks_live_entries_and_keeps_pins_readable() {
    let vfs = SimVfs::new();
    let options = sim_options(&vfs, 1 << 20);
    let db = open(&db_path(), &options);
    let mut rng = Rng::new(1);
    let keys: Vec<Vec<u8>> = (0..4000).map(|i| format!("key{i:06}").into_bytes()).collect();
    for chunk in keys.chunks(500) {
        db.commit_sync(commit(chunk.iter().map(|k| put("t", k, &rng.bytes(100))).collect())).unwrap();
    }
    // Churn: delete 90 % of the rows, scattered, one per commit (a commit refills the
    // leaves it emptied side by side, btree/repack.rs; single deletes leave them be),
    // leaving most leaves nearly empty.
    for key in keys.iter().filter(|_| rng.chance(90)) {
        db.commit_sync(commit(vec![Op::Delete { tree: b"t".to_vec(), key: key.clone() }])).unwrap();
    }
    db.commit_sync(commit(vec![Op::Pin { name: b"before".to_vec() }])).unwrap();
    db.checkpoint().unwrap();
    let live = read_all(&db.snapshot());
    let bloated_pages = db.verify().unwrap().pages;

    db.commit_sync(commit(vec![Op::CompactTree { tree: b"t".to_vec() }])).unwrap();
    db.commit_sync(commit(vec![Op::Unpin { name: b"before".to_vec() }, Op::Pin { name: b"kept".to_vec() }])).unwrap();
    let written = db.checkpoint().unwrap().pages_written;
    assert_eq!(read_all(&db.snapshot()), live, "compaction keeps every live row");

    // Only the compacted tree is reachable now (the old pin is gone): count its pages.
    let compacted_pages = db.verify().unwrap().pages;
    let entries = live[&b"t".to_vec()].len() as u64;
    let minimum = (entries * (2 + 1 + 9 + 4 + 100)).div_ceil(4064 - 3);
    assert!(compacted_pages * 3 < bloated_pages, "{compacted_pages} pages after, {bloated_pages} before");
    // Leaves of the compacted tree, plus a branch and the root set / pin table pages.
    assert!(compacted_pages <= minimum + minimum / 3 + 4, "{compacted_pages} pages for {entries} rows (minimum {minimum})");
    assert!(written > 0);

    db.close().unwrap();
    let db = open(&db_path(), &options);
    assert_eq!(read_all(&db.snapshot()), live);
    assert!(db.verify().unwrap().problems.is_empty());
}

#[test]
fn compaction_never_rewrites_pages_a_pin_needs() {
    let vfs = SimVfs::new();
    let options = sim_options(&vfs, 1 << 20);
    let db = open(&db_path(), &options);
    for i in 0..3000u32 {
        if i % 500 == 0 {
            db.checkpoint().unwrap();
        }
        db.commit_sync(commit(vec![put("t", format!("{i:08}").as_bytes(), &[i as u8; 64])])).unwrap();
    }
    db.commit_sync(commit(vec![Op::Pin { name: b"snap".to_vec() }])).unwrap();
    db.checkpoint().unwrap();
    let pinned_before = read_all(&db.snapshot().pin(b"snap").unwrap().unwrap());
    db.commit_sync(commit((0..3000u32).step_by(2).map(|i| Op::Delete { tree: b"t".to_vec(), key: format!("{i:08}").into_bytes() }).collect())).unwrap();
    db.commit_sync(commit(vec![Op::CompactTree { tree: b"t".to_vec() }])).unwrap();
    db.checkpoint().unwrap();
    db.close().unwrap();
    let db = open(&db_path(), &options);
    let pinned = read_all(&db.snapshot().pin(b"snap").unwrap().unwrap());
    assert_eq!(pinned, pinned_before, "the pin reads the version it saved");
    assert_eq!(pinned[&b"t".to_vec()].len(), 3000);
    assert_eq!(read_all(&db.snapshot())[&b"t".to_vec()].len(), 1500);
    assert!(db.verify().unwrap().problems.is_empty());
}
