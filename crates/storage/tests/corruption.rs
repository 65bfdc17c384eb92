//! Corruption reports and WAL damage: a report persists across a restart, and a bit
//! flipped in an earlier WAL batch refuses the open and is reported. Bit flips in
//! every page role (R3) are `corruption_bit_flips.rs`; stale and misdirected images
//! (R4) are `corruption_stale_images.rs`.

mod common;

use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::{Path, PathBuf};

use common::{commit, db_path, open, put, sim_options, Rng};
use storage::vfs::SimVfs;
use storage::{Database, Error, Op, Options, PageType};

const PAGE: usize = 4096;
const TREE: &str = "t";

fn pages_path() -> PathBuf {
    db_path().join("pages")
}

type Rows = BTreeMap<Vec<u8>, Vec<u8>>;

/// A database with leaves, branches and overflow pages, written by exactly one
/// checkpoint, so every page after the meta slots is reachable.
fn build(variant: u8) -> (SimVfs, Options, Rows) {
    let vfs = SimVfs::new();
    let options = sim_options(&vfs, 1 << 20);
    let db = open(&db_path(), &options);
    let mut rows = Rows::new();
    let mut rng = Rng::new(7);
    for batch in 0..12 {
        let mut ops = Vec::new();
        for i in 0..50 {
            let key = format!("key{:05}", batch * 50 + i).into_bytes();
            let len = if i == 0 { 6000 } else { 60 + rng.below(60) as usize };
            let mut value = rng.bytes(len);
            value[0] = variant;
            rows.insert(key.clone(), value.clone());
            ops.push(put(TREE, &key, &value));
        }
        db.commit_sync(commit(ops)).unwrap();
    }
    db.commit_sync(commit(vec![Op::Pin { name: b"before".to_vec() }])).unwrap();
    db.close().unwrap();
    (vfs, options, rows)
}

fn page_type(file: &[u8], page: usize) -> u8 {
    file[page * PAGE + 24]
}

/// One page of each B-tree page type.
fn samples(vfs: &SimVfs) -> Vec<(PageType, usize)> {
    let file = vfs.read_raw(&pages_path()).unwrap();
    let count = file.len() / PAGE;
    [PageType::Leaf, PageType::Branch, PageType::Overflow]
        .into_iter()
        .map(|t| (t, (2..count).find(|&p| page_type(&file, p) == t as u8).unwrap_or_else(|| panic!("no {t:?} page"))))
        .collect()
}

/// Every row through range batches and point gets; Err if any read fails.
fn read_rows(db: &Database) -> Result<Rows, Error> {
    let snapshot = db.snapshot();
    let mut out = Rows::new();
    let mut last: Option<Vec<u8>> = None;
    loop {
        let lower = last.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
        let batch = snapshot.range(TREE.as_bytes(), lower, Bound::Unbounded, false, 64)?;
        if batch.is_empty() {
            return Ok(out);
        }
        for (k, v) in batch {
            last = Some(k.to_vec());
            out.insert(k.to_vec(), v.to_vec());
        }
    }
}

fn flip(vfs: &SimVfs, path: &Path, bit: usize) {
    let offset = (bit / 8) as u64;
    let byte = vfs.read_raw(path).unwrap()[bit / 8];
    vfs.write_raw(path, offset, &[byte ^ (1 << (bit % 8))]);
}

#[test]
fn corruption_reports_persist_across_restart() {
    let (vfs, options, _) = build(1);
    let (_, page) = samples(&vfs)[0];
    flip(&vfs, &pages_path(), page * PAGE * 8 + 4000 * 8);
    let db = open(&db_path(), &options);
    assert!(read_rows(&db).is_err());
    drop(db);
    flip(&vfs, &pages_path(), page * PAGE * 8 + 4000 * 8);
    let db = open(&db_path(), &options);
    let stats = db.stats().unwrap();
    assert_eq!(stats.corruption_total, 1);
    let report = &stats.corruption[0];
    assert_eq!((report.id.as_str(), report.file.as_str(), report.page, report.kind.as_str()), (&*format!("page:{page}"), "pages", Some(page as u64), "checksum"));
    assert!(report.first_seen_ms > 0 && report.last_seen_ms >= report.first_seen_ms);
}

#[test]
fn corruption_log_counts_up_to_the_largest_u64_are_summed_without_wrapping() {
    // The log is a text file a person can edit; a count of u64::MAX beside another
    // report once made the total overflow (a panic with overflow checks, a wrong total
    // without).
    let dir = tempfile::tempdir().unwrap();
    Database::open(dir.path(), Options::default()).unwrap().close().unwrap();
    let log = "# tenantdb corruption reports v1\na\tpages\t1\tchecksum\t18446744073709551615\t2\t3\nb\tpages\t2\tchecksum\t1\t2\t3\n";
    std::fs::write(dir.path().join("corruption.log"), log).unwrap();
    let db = Database::open(dir.path(), Options::default()).unwrap();
    let stats = db.stats().unwrap();
    assert_eq!(stats.corruption.len(), 2);
    assert_eq!(stats.corruption_total, u64::MAX);
    db.close().unwrap();
}

#[test]
fn corruption_bit_flip_in_an_earlier_wal_batch_refuses_to_open_and_is_reported() {
    let vfs = SimVfs::new();
    let options = sim_options(&vfs, 1 << 20);
    let db = open(&db_path(), &options);
    for i in 0..5u8 {
        db.commit_sync(commit(vec![put(TREE, &[i], &[i; 100])])).unwrap();
    }
    drop(db); // no checkpoint: the frames are the only copy
    let wal_dir = db_path().join("wal");
    let segment = wal_dir.join(&storage::vfs::Vfs::list(&vfs, &wal_dir).unwrap()[0]);
    let mut rng = Rng::new(3);
    for _ in 0..200 {
        // A bit inside the first frame (header or payload); later batches follow it.
        let bit = rng.below(100 * 8) as usize;
        flip(&vfs, &segment, bit);
        match Database::open(&db_path(), options.clone()) {
            Err(Error::WalCorrupted { .. }) => {}
            Err(other) => panic!("bit {bit}: expected WAL corruption, got {other:?}"),
            Ok(_) => panic!("bit {bit}: a damaged synced frame was accepted"),
        }
        flip(&vfs, &segment, bit);
    }
    let log = String::from_utf8(vfs.read_raw(&db_path().join("corruption.log")).unwrap()).unwrap();
    assert!(log.lines().any(|l| l.starts_with("wal:") && l.contains("wal_frame")), "{log}");
    let db = open(&db_path(), &options);
    assert_eq!(db.snapshot().get(TREE.as_bytes(), &[4]).unwrap().as_deref(), Some(&[4u8; 100][..]));
}
