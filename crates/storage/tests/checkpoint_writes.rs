//! What a checkpoint writes: the pages a change reached, not the large values beside
//! it. A node written by a checkpoint is kept by the page cache as it is on disk, its
//! children and large values by reference (src/checkpoint/write.rs, `write_node`).

mod common;

use common::{commit, db_path, put, read_all, sim_options, Rng};
use storage::vfs::SimVfs;
use storage::{Database, Options};

#[test]
fn a_small_change_beside_large_values_does_not_write_them_again() {
    let vfs = SimVfs::new();
    let options = Options { checkpoint_wal_bytes: u64::MAX, ..sim_options(&vfs, 16 << 20) };
    let db = Database::open(&db_path(), options.clone()).unwrap();
    let mut rng = Rng::new(1);
    // Sixteen values of three overflow pages each, in one leaf.
    db.commit_sync(commit((0..16u8).map(|i| put("t", &[i], &rng.bytes(10_000))).collect())).unwrap();
    assert!(db.checkpoint().unwrap().pages_written >= 48);
    for round in 0..4u8 {
        db.commit_sync(commit(vec![put("t", &[100 + round], b"small")])).unwrap();
        let stats = db.checkpoint().unwrap();
        // The leaf, the root set's leaf and the space map: not 48 overflow pages more.
        assert!(stats.pages_written <= 4, "round {round}: {stats:?}");
    }
    let content = read_all(&db.snapshot());
    assert!(db.verify().unwrap().problems.is_empty());
    db.close().unwrap();
    let db = Database::open(&db_path(), options).unwrap();
    assert_eq!(read_all(&db.snapshot()), content);
}
