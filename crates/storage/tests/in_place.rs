//! A commit changes the nodes it built itself in place (btree/ops.rs). These tests try
//! to make that change visible where it must not be: in a snapshot taken before the
//! commit, in a pin or a tree copy made earlier in the same commit, in what a
//! checkpoint wrote, or in what recovery replays.

mod common;

use common::{commit, db_path, open, put, read_all, sim_options, Model, Rng};
use storage::vfs::{CrashMode, SimVfs};
use storage::{Op, Options};

fn key(i: u32) -> Vec<u8> {
    format!("key-{i:020}").into_bytes()
}

fn value(i: u32, tag: &str) -> Vec<u8> {
    let mut v = format!("{tag}-{i}-").into_bytes();
    v.resize(150, b'v');
    v
}

/// Applies puts and deletes to the model as the database applies them.
fn model_ops(model: &mut Model, ops: &[Op]) {
    for op in ops {
        match op {
            Op::Put { tree, key, value } => {
                model.entry(tree.to_vec()).or_default().insert(key.to_vec(), value.to_vec());
            }
            Op::Delete { tree, key } => {
                if let Some(rows) = model.get_mut(tree) {
                    rows.remove(key);
                }
            }
            other => panic!("not modelled: {other:?}"),
        }
    }
}

/// A big commit of ascending puts, overwrites, random inserts and deletes into one tree.
fn churn(rng: &mut Rng, base: u32, count: u32) -> Vec<Op> {
    let mut ops = Vec::new();
    for i in 0..count {
        ops.push(put("t", &key(base + i), &value(base + i, "new")));
        match rng.below(4) {
            0 => ops.push(put("t", &key(rng.below(u64::from(base + i + 1)) as u32), &value(i, "over"))),
            1 => ops.push(Op::Delete { tree: b"t".to_vec(), key: key(rng.below(u64::from(base + i + 1)) as u32) }),
            _ => {}
        }
    }
    ops
}

#[test]
fn a_snapshot_taken_before_a_big_commit_reads_unchanged_after_it() {
    for checkpointed in [false, true] {
        let vfs = SimVfs::new();
        let db = open(&db_path(), &sim_options(&vfs, 256 * 1024));
        let mut rng = Rng::new(7);
        let mut model = Model::new();
        let first = churn(&mut rng, 0, 5000);
        model_ops(&mut model, &first);
        db.commit_sync(commit(first)).unwrap();
        if checkpointed {
            db.checkpoint().unwrap();
        }
        let before = db.snapshot();
        assert_eq!(read_all(&before), model);
        let frozen = model.clone();
        for round in 0..3 {
            let ops = churn(&mut rng, 2500 + round * 4000, 4000);
            model_ops(&mut model, &ops);
            db.commit_sync(commit(ops)).unwrap();
            assert_eq!(read_all(&before), frozen, "checkpointed={checkpointed} round {round}");
            assert_eq!(read_all(&db.snapshot()), model, "checkpointed={checkpointed} round {round}");
        }
    }
}

#[test]
fn a_pin_or_tree_copy_made_mid_commit_is_not_changed_by_the_ops_after_it() {
    let vfs = SimVfs::new();
    let db = open(&db_path(), &sim_options(&vfs, 256 * 1024));
    let mut rng = Rng::new(11);
    let mut model = Model::new();
    let mut ops = churn(&mut rng, 0, 3000);
    model_ops(&mut model, &ops);
    let at_pin = model.clone();
    ops.push(Op::Pin { name: b"mid".to_vec() });
    ops.push(Op::CopyTree { from: b"t".to_vec(), to: b"copy".to_vec() });
    let after = churn(&mut rng, 1000, 3000);
    model_ops(&mut model, &after);
    ops.extend(after);
    db.commit_sync(commit(ops)).unwrap();

    let mut with_copy = model.clone();
    with_copy.insert(b"copy".to_vec(), at_pin["t".as_bytes()].clone());
    assert_eq!(read_all(&db.snapshot()), with_copy);
    let pinned = db.snapshot().pin(b"mid").unwrap().expect("pin");
    assert_eq!(read_all(&pinned), at_pin);
}

#[test]
fn replay_after_a_crash_equals_the_state_acknowledged_before_it() {
    let vfs = SimVfs::new();
    let mut rng = Rng::new(3);
    let mut model = Model::new();
    {
        let db = open(&db_path(), &sim_options(&vfs, 256 * 1024));
        for round in 0..6u32 {
            let ops = churn(&mut rng, round * 1500, 1500);
            model_ops(&mut model, &ops);
            db.commit_sync(commit(ops)).unwrap();
            if round == 2 {
                db.checkpoint().unwrap();
            }
        }
        assert_eq!(read_all(&db.snapshot()), model);
    }
    // Power loss: the three commits after the checkpoint are only in the WAL.
    let vfs = vfs.crash(CrashMode::Chaos { seed: 5 });
    let db = open(&db_path(), &sim_options(&vfs, 256 * 1024));
    assert_eq!(read_all(&db.snapshot()), model);
    assert!(db.stats().unwrap().replayed_frames >= 3);
}

#[test]
fn a_commit_over_64_mib_is_durable_and_replays_whole_after_a_crash() {
    // 64 MiB was the old cap of one commit; a bulk load of 1e6 rows needs ~240 MB.
    let vfs = SimVfs::new();
    let rows = 100_000u32;
    let big = |i: u32| {
        let mut v = value(i, "big");
        v.resize(700, b'b');
        v
    };
    // No automatic checkpoint after it: the big commit must come back from the WAL.
    let options = |vfs: &SimVfs| Options { checkpoint_wal_bytes: 1 << 40, ..sim_options(vfs, 1 << 20) };
    {
        let db = open(&db_path(), &options(&vfs));
        db.commit_sync(commit(vec![put("t", b"before", b"x")])).unwrap();
        db.checkpoint().unwrap();
        let ops: Vec<Op> = (0..rows).map(|i| put("t", &key(i), &big(i))).collect();
        assert!(commit(ops.clone()).encode().len() > 64 << 20);
        db.commit_sync(commit(ops)).unwrap();
    }
    let vfs = vfs.crash(CrashMode::DropUnsynced);
    let db = open(&db_path(), &options(&vfs));
    let snapshot = db.snapshot();
    assert_eq!(db.stats().unwrap().replayed_frames, 1);
    assert_eq!(snapshot.tree_info(b"t").unwrap().expect("tree").count, u64::from(rows) + 1);
    for i in (0..rows).step_by(997) {
        assert_eq!(snapshot.get(b"t", &key(i)).unwrap().as_deref(), Some(&big(i)[..]));
    }
}

#[test]
fn ascending_inserts_leave_full_pages_not_half_full_ones() {
    // Without the append split every leaf of an ascending load is cut in half when it
    // fills, and the tree ends with about twice the pages a dense build needs.
    let vfs = SimVfs::new();
    let db = open(&db_path(), &sim_options(&vfs, 1 << 20));
    for chunk in 0..10u32 {
        db.commit_sync(commit((chunk * 2000..(chunk + 1) * 2000).map(|i| put("t", &key(i), &value(i, "a"))).collect())).unwrap();
    }
    let loaded = db.checkpoint().unwrap().pages_written;
    db.commit_sync(commit(vec![Op::CompactTree { tree: b"t".to_vec() }])).unwrap();
    let dense = db.checkpoint().unwrap().pages_written;
    assert!(loaded * 100 <= dense * 105, "ascending load wrote {loaded} pages, a dense build {dense}");
}
