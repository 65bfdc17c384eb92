//! A prefix pin (`Op::PinPrefix`, commit payload tag 9): it saves only the trees whose
//! names start with its prefix, so the pages of every other tree are released once
//! those trees change: a tenant's snapshot does not hold everyone's churn
//! (docs/operations.md, "Disk space"). It reads back exactly its trees, as they were, across a restart, and a
//! copy from it works as from any pin.

mod common;

use std::collections::BTreeSet;

use common::{commit, db_path, open, put, read_all, sim_options, Model, Rng};
use storage::vfs::SimVfs;
use storage::{Database, Op, Options};

const HV: &str = "t/hv/r/kv";
const HV_ROWS: u64 = 4000;
const ROUNDS: u64 = 6;

fn options(vfs: &SimVfs) -> Options {
    Options { checkpoint_wal_bytes: u64::MAX, ..sim_options(vfs, 4 << 20) }
}

/// Every row of the large tree, rewritten.
fn rewrite_hv(db: &Database, rng: &mut Rng) {
    for from in (0..HV_ROWS).step_by(1000) {
        let ops = (from..from + 1000).map(|k| put(HV, format!("key{k:06}").as_bytes(), &rng.bytes(400))).collect();
        db.commit_sync(commit(ops)).unwrap();
    }
}

/// What the server's tenant compaction does: the tree rebuilt, a checkpoint, the file compacted.
fn compact_hv(db: &Database) {
    db.commit_sync(commit(vec![Op::CompactTree { tree: HV.as_bytes().to_vec() }])).unwrap();
    db.checkpoint().unwrap();
    db.compact_space().unwrap();
}

/// The live pages after `ROUNDS` rounds of: pin w1 with `pin`, rewrite hv, compact it;
/// and those of one copy of hv before the first round.
fn rounds(pin: impl Fn(String) -> Op) -> (u64, u64) {
    let vfs = SimVfs::new();
    let db = open(&db_path(), &options(&vfs));
    let mut rng = Rng::new(31);
    rewrite_hv(&db, &mut rng);
    db.commit_sync(commit(vec![put("t/w1/r/kv", b"only", b"round 0")])).unwrap();
    compact_hv(&db);
    let one = db.stats().unwrap().space.live;
    for round in 1..=ROUNDS {
        db.commit_sync(commit(vec![pin(format!("w1@s{round}")), put("t/w1/r/kv", b"only", format!("round {round}").as_bytes())])).unwrap();
        rewrite_hv(&db, &mut rng);
        compact_hv(&db);
    }
    let space = db.stats().unwrap().space;
    assert!(space.tip <= space.live + space.live / 10 + 16, "the compacted file is about what is live: {space:?}");
    assert!(db.verify().unwrap().problems.is_empty());
    db.close().unwrap();
    (one, space.live)
}

#[test]
fn a_prefix_pin_does_not_hold_the_pages_of_trees_outside_its_prefix() {
    let (one, after) = rounds(|name| Op::PinPrefix { name: name.into_bytes(), prefix: b"t/w1/".to_vec() });
    eprintln!("prefix pins: one copy of hv {one} live pages, after {ROUNDS} rounds {after}");
    assert!(after * 10 <= one * 13, "live pages stay near one copy of hv: {one} → {after}");
    // The same rounds with pins of the whole root set: each holds a copy of hv, so the
    // bound above is one a whole pin cannot meet.
    let (one, whole) = rounds(|name| Op::Pin { name: name.into_bytes() });
    eprintln!("whole pins: one copy of hv {one} live pages, after {ROUNDS} rounds {whole}");
    assert!(whole >= one * ROUNDS, "each whole pin holds its own copy of hv: {one} → {whole}");
}

/// The trees of `model` under `prefix`.
fn under(model: &Model, prefix: &str) -> Model {
    model.iter().filter(|(t, _)| t.starts_with(prefix.as_bytes())).map(|(t, e)| (t.clone(), e.clone())).collect()
}

#[test]
fn a_prefix_pin_reads_back_exactly_the_trees_under_its_prefix_as_they_were() {
    let vfs = SimVfs::new();
    let opts = options(&vfs);
    let db = open(&db_path(), &opts);
    let mut rng = Rng::new(7);
    // Neighbours of the prefix in name order, and one tree left empty under it.
    for tree in ["t/w", "t/w1", "t/w1/meta", "t/w1/r/a", "t/w1/x/a/i", "t/w10/r/a", "t/w2/r/a", "u"] {
        let ops = (0..300u32).map(|k| put(tree, format!("{k:05}").as_bytes(), &rng.bytes(50))).collect();
        db.commit_sync(commit(ops)).unwrap();
    }
    db.commit_sync(commit(vec![put("t/w1/r/empty", b"k", b"v")])).unwrap();
    db.commit_sync(commit(vec![Op::Delete { tree: b"t/w1/r/empty".to_vec(), key: b"k".to_vec() }])).unwrap();
    db.checkpoint().unwrap();
    // The pin sees the puts before it in its commit, not the ones after.
    db.commit_sync(commit(vec![
        put("t/w1/r/a", b"in-commit", b"before"),
        Op::PinPrefix { name: b"w1@s".to_vec(), prefix: b"t/w1/".to_vec() },
        put("t/w1/r/a", b"in-commit", b"after"),
    ]))
    .unwrap();
    let expected = {
        let mut model = under(&read_all(&db.snapshot()), "t/w1/");
        model.get_mut(&b"t/w1/r/a".to_vec()).unwrap().insert(b"in-commit".to_vec(), b"before".to_vec());
        model
    };
    let names: BTreeSet<Vec<u8>> = expected.keys().cloned().collect();
    let want: BTreeSet<Vec<u8>> = ["t/w1/meta", "t/w1/r/a", "t/w1/r/empty", "t/w1/x/a/i"].iter().map(|t| t.as_bytes().to_vec()).collect();
    assert_eq!(names, want, "the prefix's trees, the emptied one too, and none of its neighbours");

    let check = |db: &Database, when: &str| {
        let pinned = db.snapshot().pin(b"w1@s").unwrap().expect("the pin exists");
        assert_eq!(read_all(&pinned), expected, "{when}: the pin holds exactly the prefix's trees as they were");
        assert!(db.verify().unwrap().problems.is_empty(), "{when}");
    };
    // Change everything, inside the prefix and out.
    for tree in ["t/w1/r/a", "t/w10/r/a", "u"] {
        db.commit_sync(commit(vec![put(tree, b"00000", b"changed"), Op::DropTree { tree: b"t/w1/meta".to_vec() }])).unwrap();
    }
    check(&db, "before a checkpoint");
    db.checkpoint().unwrap();
    check(&db, "after a checkpoint");
    db.close().unwrap();
    // Replayed from the WAL: the pin's commit after the checkpoint.
    let db = open(&db_path(), &opts);
    check(&db, "reopened");

    // A copy from it, as a fork or restore from a snapshot makes one; a tree outside the
    // prefix is absent from it, so its copy is empty.
    db.commit_sync(commit(vec![
        Op::CopyTreeFromPin { pin: b"w1@s".to_vec(), from: b"t/w1/r/a".to_vec(), to: b"t/w3/r/a".to_vec() },
        Op::CopyTreeFromPin { pin: b"w1@s".to_vec(), from: b"u".to_vec(), to: b"t/w3/r/u".to_vec() },
    ]))
    .unwrap();
    let head = read_all(&db.snapshot());
    assert_eq!(head[&b"t/w3/r/a".to_vec()], expected[&b"t/w1/r/a".to_vec()]);
    assert!(head[&b"t/w3/r/u".to_vec()].is_empty(), "a tree outside the prefix is not in the pin");

    // A name in use is refused, whole, as for a pin of everything.
    let refused = db.commit_sync(commit(vec![put("u", b"x", b"y"), Op::PinPrefix { name: b"w1@s".to_vec(), prefix: b"u".to_vec() }]));
    assert!(matches!(refused, Err(storage::Error::InvalidArgument(ref m)) if m.contains("pin w1@s exists")), "{refused:?}");
    assert_eq!(db.snapshot().get(b"u", b"x").unwrap(), None);
    db.checkpoint().unwrap();
    check(&db, "after the copies");
    db.close().unwrap();
}

#[test]
fn a_prefix_pin_with_no_tree_under_it_is_an_empty_root_set() {
    let vfs = SimVfs::new();
    let db = open(&db_path(), &options(&vfs));
    db.commit_sync(commit(vec![put("t/a/r/x", b"k", b"v")])).unwrap();
    let lsn = db.commit_sync(commit(vec![Op::PinPrefix { name: b"none".to_vec(), prefix: b"t/b/".to_vec() }])).unwrap();
    let pinned = db.snapshot().pin(b"none").unwrap().expect("the pin exists");
    assert!(pinned.trees().unwrap().is_empty());
    assert_eq!(pinned.lsn(), lsn, "its LSN is its commit's");
    db.checkpoint().unwrap();
    assert!(db.verify().unwrap().problems.is_empty());
    db.close().unwrap();
}

#[test]
fn a_prefix_with_more_trees_than_one_range_batch_keeps_them_all() {
    let vfs = SimVfs::new();
    let db = open(&db_path(), &options(&vfs));
    // Past `RANGE_BATCH_ENTRIES_MAX` (10 000), with trees on both sides of the prefix.
    let trees = 10_050;
    let mut ops: Vec<Op> = (0..trees).map(|i| put(&format!("p/{i:05}"), b"k", b"v")).collect();
    ops.extend(["o", "p", "p0", "q"].map(|t| put(t, b"k", b"v")));
    db.commit_sync(commit(ops)).unwrap();
    db.commit_sync(commit(vec![Op::PinPrefix { name: b"many".to_vec(), prefix: b"p/".to_vec() }])).unwrap();
    let pinned = db.snapshot().pin(b"many").unwrap().expect("the pin exists");
    let names: Vec<Vec<u8>> = pinned.trees().unwrap().into_iter().map(|t| t.name).collect();
    let want: Vec<Vec<u8>> = (0..trees).map(|i| format!("p/{i:05}").into_bytes()).collect();
    assert_eq!(names, want);
    db.checkpoint().unwrap();
    assert!(db.verify().unwrap().problems.is_empty());
    db.close().unwrap();
}
