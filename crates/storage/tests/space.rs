//! Free space (space/mod.rs): slots no version reaches are reused, so the page file
//! stays the size of what is live; a dropped pin's and a dropped tree's slots come
//! back; a reader keeps what it reaches; compaction shrinks the file.

mod common;

use common::{commit, db_path, open, put, read_all, sim_options, Rng};
use storage::vfs::SimVfs;
use storage::{Database, Op, Options};

const TREE: &str = "t";

fn load(db: &Database, keys: u64, rng: &mut Rng) {
    for chunk in (0..keys).collect::<Vec<_>>().chunks(500) {
        let ops = chunk.iter().map(|k| put(TREE, format!("key{k:08}").as_bytes(), &rng.bytes(150))).collect();
        db.commit_sync(commit(ops)).unwrap();
    }
}

/// `rounds` commits each overwriting `per_round` random keys of `keys`, checkpointing
/// every `every` rounds; returns the slots the checkpoints released.
fn churn(db: &Database, keys: u64, rounds: u64, per_round: u64, every: u64, rng: &mut Rng) -> u64 {
    let mut released = 0;
    for round in 0..rounds {
        let ops = (0..per_round).map(|_| put(TREE, format!("key{:08}", rng.below(keys)).as_bytes(), &rng.bytes(150))).collect();
        db.commit_sync(commit(ops)).unwrap();
        if round % every == every - 1 {
            released += db.checkpoint().unwrap().pages_released;
        }
    }
    released
}

fn tip(db: &Database) -> u64 {
    db.stats().unwrap().page_count
}

fn assert_verified(db: &Database, context: &str) {
    let report = db.verify().unwrap();
    assert!(report.problems.is_empty(), "{context}: {:?}", report.problems);
}

fn options(vfs: &SimVfs) -> Options {
    Options { checkpoint_wal_bytes: u64::MAX, ..sim_options(vfs, 4 << 20) }
}

#[test]
fn steady_churn_does_not_grow_the_file() {
    let vfs = SimVfs::new();
    let db = open(&db_path(), &options(&vfs));
    let mut rng = Rng::new(1);
    load(&db, 20_000, &mut rng);
    db.checkpoint().unwrap();
    let loaded = tip(&db);
    churn(&db, 20_000, 100, 200, 5, &mut rng);
    let warmed = tip(&db);
    let released = churn(&db, 20_000, 300, 200, 5, &mut rng);
    let after = tip(&db);
    // Without reuse every checkpoint adds the pages it rewrites: 60 checkpoints of a few
    // hundred pages each would multiply the file.
    assert!(after * 10 <= warmed * 11, "the tip grew from {warmed} to {after} pages over the second phase (loaded: {loaded})");
    assert!(released > after, "the checkpoints released more slots than the file holds ({released}): they were reused");
    // With no reader of an older version, a checkpoint writes over the slots it frees:
    // the file stays the size of what is live.
    let space = db.stats().unwrap().space;
    assert!(space.tip <= space.live + space.live / 10 + 16, "the file is about what is live: {space:?}");
    // The totals stats report add up what the checkpoints said, and most wrote in place.
    let totals = db.stats().unwrap().checkpoints;
    assert_eq!(totals.count, 1 + 20 + 60, "{totals:?}");
    assert!(totals.pages_released >= released && totals.in_place * 2 > totals.count, "{totals:?}");
    assert_verified(&db, "after churn");
    db.close().unwrap();
}

#[test]
fn a_dropped_pin_and_a_dropped_tree_give_their_slots_back() {
    let vfs = SimVfs::new();
    let db = open(&db_path(), &options(&vfs));
    let mut rng = Rng::new(2);
    load(&db, 10_000, &mut rng);
    db.commit_sync(commit(vec![Op::Pin { name: b"before".to_vec() }])).unwrap();
    // Rewrite every key: the pin now holds the whole old tree on its own.
    load(&db, 10_000, &mut rng);
    db.checkpoint().unwrap();
    let pinned = tip(&db);
    db.commit_sync(commit(vec![Op::Unpin { name: b"before".to_vec() }])).unwrap();
    for _ in 0..3 {
        db.checkpoint().unwrap();
    }
    let live = db.stats().unwrap().space.live;
    assert!(live * 3 <= pinned * 2, "dropping the pin freed its slots: {live} of {pinned} live");
    // Rewriting everything again fits in what the pin gave back.
    load(&db, 10_000, &mut rng);
    db.checkpoint().unwrap();
    assert!(tip(&db) * 20 <= pinned * 21, "the rewrite reused the pin's slots: {} against {pinned}", tip(&db));

    db.commit_sync(commit(vec![Op::CopyTree { from: TREE.as_bytes().to_vec(), to: b"other".to_vec() }])).unwrap();
    for _ in 0..3 {
        db.checkpoint().unwrap();
    }
    let live_shared = db.stats().unwrap().space.live;
    db.commit_sync(commit(vec![Op::DropTree { tree: TREE.as_bytes().to_vec() }])).unwrap();
    for _ in 0..3 {
        db.checkpoint().unwrap();
    }
    let live_copy = db.stats().unwrap().space.live;
    assert!(live_copy + 5 >= live_shared, "the copy keeps every slot it shares: {live_shared} → {live_copy}");
    db.commit_sync(commit(vec![Op::DropTree { tree: b"other".to_vec() }])).unwrap();
    for _ in 0..3 {
        db.checkpoint().unwrap();
    }
    let stats = db.stats().unwrap().space;
    assert!(stats.live < 10, "with no tree left almost nothing is live: {stats:?}");
    assert_verified(&db, "after drops");
    db.close().unwrap();
}

#[test]
fn a_reader_keeps_the_slots_it_reaches_until_it_is_done() {
    let vfs = SimVfs::new();
    let db = open(&db_path(), &options(&vfs));
    let mut rng = Rng::new(3);
    load(&db, 5_000, &mut rng);
    db.checkpoint().unwrap();
    let reader = db.snapshot();
    let then = read_all(&reader);
    for _ in 0..6 {
        load(&db, 5_000, &mut rng);
        db.checkpoint().unwrap();
    }
    assert_eq!(read_all(&reader), then, "an old reader reads its version unchanged");
    let held = db.stats().unwrap().space;
    assert!(held.pending > 0, "what only the reader reaches waits for it: {held:?}");
    drop(reader);
    for _ in 0..3 {
        db.checkpoint().unwrap();
    }
    let released = db.stats().unwrap().space;
    assert!(released.pending < held.pending, "the reader's slots were freed once it was done: {held:?} → {released:?}");
    assert_verified(&db, "after the reader");
    db.close().unwrap();
}

#[test]
fn compaction_shrinks_the_file_and_keeps_every_pin_readable() {
    let vfs = SimVfs::new();
    let db = open(&db_path(), &options(&vfs));
    let mut rng = Rng::new(4);
    load(&db, 30_000, &mut rng);
    db.checkpoint().unwrap();
    // Delete most keys: the live data is a tenth of the file.
    for chunk in (0..30_000u64).filter(|k| k % 10 != 0).collect::<Vec<_>>().chunks(1000) {
        let ops = chunk.iter().map(|k| Op::Delete { tree: TREE.as_bytes().to_vec(), key: format!("key{k:08}").into_bytes() }).collect();
        db.commit_sync(commit(ops)).unwrap();
    }
    db.commit_sync(commit(vec![Op::CompactTree { tree: TREE.as_bytes().to_vec() }])).unwrap();
    db.commit_sync(commit(vec![Op::Pin { name: b"small".to_vec() }])).unwrap();
    let pinned = read_all(&db.snapshot().pin(b"small").unwrap().unwrap());
    let before = db.stats().unwrap().page_file_bytes;
    let report = db.compact_space().unwrap();
    assert_eq!(report.bytes_before, before);
    let stats = db.stats().unwrap();
    assert_eq!(report.bytes_after, stats.page_file_bytes);
    assert!(report.bytes_after * 4 < report.bytes_before, "compaction shrank the file: {report:?}");
    let live_bytes = (stats.space.live + 2) * 4096;
    assert!(stats.page_file_bytes <= live_bytes + 64 * 4096, "the file ends close to what is live: {stats:?}");
    assert_eq!(read_all(&db.snapshot().pin(b"small").unwrap().unwrap()), pinned, "the pin reads the same");
    assert_verified(&db, "after compaction");
    db.close().unwrap();
    let db = open(&db_path(), &options(&vfs));
    assert_eq!(read_all(&db.snapshot().pin(b"small").unwrap().unwrap()), pinned, "and after a reopen");
    assert_verified(&db, "reopened");
    db.close().unwrap();
}

#[test]
fn a_reader_of_the_version_compaction_moves_reads_it_unchanged() {
    // A cold cache, so the reader's reads go to the slots its version names.
    let vfs = SimVfs::new();
    let cold = Options { cache_bytes: 16 * 1024, ..options(&vfs) };
    let db = open(&db_path(), &cold);
    let mut rng = Rng::new(5);
    load(&db, 30_000, &mut rng);
    db.checkpoint().unwrap();
    // The keys written first go: what stays lives at the end of the file.
    for chunk in (0..27_000u64).collect::<Vec<_>>().chunks(1000) {
        let ops = chunk.iter().map(|k| Op::Delete { tree: TREE.as_bytes().to_vec(), key: format!("key{k:08}").into_bytes() }).collect();
        db.commit_sync(commit(ops)).unwrap();
    }
    db.checkpoint().unwrap();
    db.close().unwrap();
    let db = open(&db_path(), &cold);
    // The reader holds the version the compaction writes (nothing committed since the
    // last checkpoint): its pages move under it, and their old slots must wait for it.
    let reader = db.snapshot();
    let then = read_all(&reader);
    let report = db.compact_space().unwrap();
    assert!(report.pages_moved > 0, "pages moved: {report:?}");
    assert_eq!(read_all(&reader), then, "the reader reads its version unchanged after the move");
    load(&db, 2_000, &mut rng);
    db.checkpoint().unwrap();
    assert_eq!(read_all(&reader), then, "and after later checkpoints");
    drop(reader);
    assert_verified(&db, "after the reader");
    db.close().unwrap();
}
