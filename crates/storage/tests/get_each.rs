//! Batched point reads (`Snapshot::get_each`, the binding's `getMany` and a lookup's
//! matches): the keys are searched in key order, but each value is handed back in the
//! order of the keys asked, absent keys and repeats included, whether the nodes are in
//! memory or on disk, whether the values are inline or on overflow pages, and however
//! many levels the tree has (`btree::get_sorted` visits each node once per batch).

mod common;

use std::collections::BTreeMap;

use common::{commit, db_path, open, put, sim_options, Rng};
use storage::vfs::SimVfs;

#[test]
fn values_come_back_in_the_order_of_the_keys_asked() {
    for seed in 0..8u64 {
        let vfs = SimVfs::new();
        let db = open(&db_path(), &sim_options(&vfs, 64 * 1024));
        let mut rng = Rng::new(seed);
        let mut rows = BTreeMap::new();
        // Small trees and one of three levels or more.
        let entries: u32 = if seed < 6 { 4000 } else { 60_000 };
        let ops = (0..entries)
            .map(|i| {
                // Every 50th value is long enough for overflow pages.
                let len = if i % 50 == 0 { 9000 } else { 1 + rng.below(80) as usize };
                let (k, v) = (format!("k{:06}", i * 2).into_bytes(), rng.bytes(len));
                rows.insert(k.clone(), v.clone());
                put("t", &k, &v)
            })
            .collect();
        db.commit_sync(commit(ops)).unwrap();
        if seed % 2 == 0 {
            db.checkpoint().unwrap(); // half the seeds read pages from disk
        }
        // Unsorted, with repeats, absent keys (odd numbers), an empty key, and sorted runs.
        let mut keys: Vec<Vec<u8>> = (0..1500).map(|_| format!("k{:06}", rng.below(u64::from(entries) * 2 + 100)).into_bytes()).collect();
        keys.push(Vec::new());
        keys.extend((0..50u32).map(|i| format!("k{:06}", i * 2).into_bytes()));
        let snapshot = db.snapshot();
        for asked in [keys.clone(), { let mut sorted = keys.clone(); sorted.sort(); sorted }] {
            let slices: Vec<&[u8]> = asked.iter().map(Vec::as_slice).collect();
            let mut got: Vec<Option<Vec<u8>>> = Vec::new();
            snapshot.get_each(b"t", &slices, &mut |value| got.push(value.map(<[u8]>::to_vec))).unwrap();
            let want: Vec<Option<Vec<u8>>> = asked.iter().map(|k| rows.get(k).cloned()).collect();
            assert_eq!(got.len(), want.len(), "seed {seed}");
            assert!(got == want, "seed {seed}: values out of the order asked");
            assert!(want.iter().any(Option::is_none) && want.iter().any(Option::is_some), "seed {seed}: both kinds asked");
        }
    }
}

#[test]
fn a_batch_of_an_empty_or_missing_tree() {
    let vfs = SimVfs::new();
    let db = open(&db_path(), &sim_options(&vfs, 64 * 1024));
    db.commit_sync(commit(vec![put("t", b"a", b"1")])).unwrap();
    let snapshot = db.snapshot();
    let mut got = Vec::new();
    snapshot.get_each(b"t", &[], &mut |value| got.push(value.map(<[u8]>::to_vec))).unwrap();
    assert!(got.is_empty());
    snapshot.get_each(b"absent", &[b"a".as_slice(), b"b"], &mut |value| got.push(value.map(<[u8]>::to_vec))).unwrap();
    assert_eq!(got, vec![None, None], "a tree that does not exist holds no key");
}
