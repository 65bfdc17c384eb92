//! Diff between two versions of a tree: exactly the model's differences, whether the
//! nodes are on disk or in memory, and at a cost that grows with the changes.

mod common;

use std::collections::BTreeMap;

use common::{commit, db_path, open, put, sim_options, Rng};
use storage::vfs::SimVfs;
use storage::{Op, TreeDiff};

type Rows = BTreeMap<Vec<u8>, Vec<u8>>;

fn expected(before: &Rows, after: &Rows) -> Vec<TreeDiff> {
    let keys: std::collections::BTreeSet<&Vec<u8>> = before.keys().chain(after.keys()).collect();
    keys.into_iter()
        .filter_map(|k| {
            let (b, a) = (before.get(k), after.get(k));
            (b != a).then(|| TreeDiff {
                key: storage::Bytes::copy_from_slice(k),
                before: b.map(|v| storage::Bytes::copy_from_slice(v)),
                after: a.map(|v| storage::Bytes::copy_from_slice(v)),
            })
        })
        .collect()
}

#[test]
fn diff_matches_the_model_for_random_changes() {
    for seed in 0..20u64 {
        let vfs = SimVfs::new();
        let db = open(&db_path(), &sim_options(&vfs, 64 * 1024));
        let mut rng = Rng::new(seed);
        let mut rows = Rows::new();
        let initial: Vec<Op> = (0..3000u32)
            .map(|i| {
                let len = 20 + rng.below(60) as usize;
                let (k, v) = (format!("k{i:06}").into_bytes(), rng.bytes(len));
                rows.insert(k.clone(), v.clone());
                put("t", &k, &v)
            })
            .collect();
        db.commit_sync(commit(initial)).unwrap();
        if seed % 2 == 0 {
            db.checkpoint().unwrap(); // half the seeds diff against pages on disk
        }
        db.commit_sync(commit(vec![Op::Pin { name: b"p".to_vec() }])).unwrap();
        let before = rows.clone();
        for _ in 0..rng.below(200) {
            let k = format!("k{:06}", rng.below(3500)).into_bytes();
            let op = match rng.below(3) {
                0 => {
                    rows.remove(&k);
                    Op::Delete { tree: b"t".to_vec(), key: k }
                }
                1 => {
                    // Same value again: not a difference.
                    let v = rows.get(&k).cloned().unwrap_or_else(|| rng.bytes(1500));
                    rows.insert(k.clone(), v.clone());
                    put("t", &k, &v)
                }
                _ => {
                    let len = 10 + rng.below(2000) as usize;
                    let v = rng.bytes(len);
                    rows.insert(k.clone(), v.clone());
                    put("t", &k, &v)
                }
            };
            db.commit_sync(commit(vec![op])).unwrap();
        }
        if seed % 3 == 0 {
            db.checkpoint().unwrap();
        }
        let head = db.snapshot();
        let pinned = head.pin(b"p").unwrap().unwrap();
        let want = expected(&before, &rows);
        let (got, truncated) = pinned.diff(&head, b"t", 100_000).unwrap();
        assert!(!truncated);
        assert_eq!(got, want, "seed {seed}");
        let (first, more) = pinned.diff(&head, b"t", 3).unwrap();
        assert_eq!(first, want.iter().take(3).cloned().collect::<Vec<_>>());
        assert_eq!(more, want.len() > 3);
        let (none, _) = head.diff(&head, b"t", 10).unwrap();
        assert!(none.is_empty(), "a version has no difference from itself");
    }
}

#[test]
fn diff_cost_grows_with_changes_not_with_the_tree() {
    let vfs = SimVfs::new();
    let options = sim_options(&vfs, 256 * 1024 * 1024);
    let db = open(&db_path(), &options);
    for chunk in 0..100u32 {
        let ops = (0..1000u32).map(|i| put("t", format!("k{:08}", chunk * 1000 + i).as_bytes(), &[7u8; 100])).collect();
        db.commit_sync(commit(ops)).unwrap();
    }
    db.commit_sync(commit(vec![Op::Pin { name: b"before".to_vec() }])).unwrap();
    let ops = (0..100u32).map(|i| put("t", format!("k{:08}", i * 997).as_bytes(), &[8u8; 100])).collect();
    db.commit_sync(commit(ops)).unwrap();
    db.close().unwrap();

    // A cold cache: count the pages the diff has to read.
    let db = open(&db_path(), &options);
    let head = db.snapshot();
    let before = head.pin(b"before").unwrap().unwrap();
    let misses = db.stats().unwrap().cache.misses;
    let (diffs, _) = before.diff(&head, b"t", 1000).unwrap();
    let read = db.stats().unwrap().cache.misses - misses;
    assert_eq!(diffs.len(), 100);
    let leaves = 100_000 * (2 + 1 + 9 + 4 + 100) / 4000;
    assert!(read < 2 * 100 * 4 + 20, "read {read} pages for 100 changes (the tree has ~{leaves} leaves)");
}

#[test]
fn diff_of_a_copied_tree_against_its_source_skips_what_they_share() {
    let vfs = SimVfs::new();
    let options = sim_options(&vfs, 256 * 1024 * 1024);
    let db = open(&db_path(), &options);
    for chunk in 0..50u32 {
        let ops = (0..1000u32).map(|i| put("src", format!("k{:08}", chunk * 1000 + i).as_bytes(), &[7u8; 100])).collect();
        db.commit_sync(commit(ops)).unwrap();
    }
    // A fork from a snapshot: the snapshot pins the source, the copy is a tree of another name.
    db.commit_sync(commit(vec![Op::Pin { name: b"point".to_vec() }])).unwrap();
    db.commit_sync(commit(vec![Op::CopyTreeFromPin { pin: b"point".to_vec(), from: b"src".to_vec(), to: b"fork".to_vec() }])).unwrap();
    db.commit_sync(commit(vec![
        put("fork", b"k00000007", &[9u8; 100]),
        Op::Delete { tree: b"fork".to_vec(), key: b"k00000008".to_vec() },
        put("fork", b"k99999999", b"new"),
        put("src", b"k00000009", b"the source moved on"),
    ]))
    .unwrap();
    db.close().unwrap();

    let db = open(&db_path(), &options);
    let head = db.snapshot();
    let point = head.pin(b"point").unwrap().unwrap();
    let misses = db.stats().unwrap().cache.misses;
    let (diffs, truncated) = point.diff_trees(b"src", &head, b"fork", 1000).unwrap();
    let read = db.stats().unwrap().cache.misses - misses;
    assert!(!truncated);
    let keys: Vec<(&[u8], bool, bool)> = diffs.iter().map(|d| (&*d.key, d.before.is_some(), d.after.is_some())).collect();
    assert_eq!(keys, vec![(&b"k00000007"[..], true, true), (&b"k00000008"[..], true, false), (&b"k99999999"[..], false, true)], "the fork's changes, not the source's later ones");
    assert!(read < 3 * 4 + 20, "read {read} pages for 3 changes of a 50 000-entry tree");
    let (same, _) = point.diff_trees(b"src", &point, b"src", 10).unwrap();
    assert!(same.is_empty());
}

#[test]
fn reads_of_nodes_not_yet_checkpointed_are_counted_apart_from_the_cache() {
    let vfs = SimVfs::new();
    let db = open(&db_path(), &sim_options(&vfs, 64 * 1024 * 1024));
    db.commit_sync(commit((0..100u32).map(|i| put("t", format!("k{i:04}").as_bytes(), b"v")).collect())).unwrap();
    let before = db.stats().unwrap().cache;
    let head = db.snapshot();
    assert!(head.get(b"t", b"k0042").unwrap().is_some());
    let after = db.stats().unwrap().cache;
    assert!(after.memory_reads > before.memory_reads, "a read of what is in memory is counted");
    assert_eq!((after.hits, after.misses), (before.hits, before.misses), "and is no page cache hit or miss");
    drop(head);
    db.checkpoint().unwrap();
    db.close().unwrap();
    let db = open(&db_path(), &sim_options(&vfs, 64 * 1024 * 1024));
    let before = db.stats().unwrap().cache;
    assert!(db.snapshot().get(b"t", b"k0042").unwrap().is_some());
    let after = db.stats().unwrap().cache;
    assert!(after.misses > before.misses, "after a reopen the nodes come from the page file");
}
