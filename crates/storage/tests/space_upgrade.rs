//! The space map on disk: a directory from before it (meta format 1) is upgraded by
//! tracing its pages, and a damaged space map is reported as corruption and rebuilt
//! (docs/format.md, "Space map").

mod common;

use common::meta_slots::{newest_meta, pages_path, slot_image, u64_at, HEADER, PAGE};
use common::{commit, db_path, open, put, read_all, sim_options, Rng};
use storage::vfs::SimVfs;
use storage::Options;

fn options(vfs: &SimVfs) -> Options {
    Options { checkpoint_wal_bytes: u64::MAX, ..sim_options(vfs, 1 << 20) }
}

fn populated(vfs: &SimVfs) -> storage::Database {
    let db = open(&db_path(), &options(vfs));
    let mut rng = Rng::new(7);
    for round in 0..20u32 {
        let ops = (0..200u32).map(|k| put("t", format!("k{:05}", (k * 7 + round * 13) % 3000).as_bytes(), &rng.bytes(120))).collect();
        db.commit_sync(commit(ops)).unwrap();
        if round % 4 == 3 {
            db.checkpoint().unwrap();
        }
    }
    db
}

#[test]
fn a_format_1_directory_is_upgraded_by_tracing_its_pages() {
    let vfs = SimVfs::new();
    let db = populated(&vfs);
    let content = read_all(&db.snapshot());
    db.close().unwrap();
    // Rewrite the newest record as format 1: no space map fields.
    let file = vfs.read_raw(&pages_path()).unwrap();
    let (slot, payload) = newest_meta(&file);
    let mut v1 = payload[..104].to_vec();
    v1[8..12].copy_from_slice(&1u32.to_le_bytes());
    vfs.write_raw(&pages_path(), (slot * PAGE) as u64, &slot_image(slot as u64, u64_at(&payload, 32), 1, &v1));

    let db = open(&db_path(), &options(&vfs));
    assert_eq!(read_all(&db.snapshot()), content);
    let stats = db.stats().unwrap();
    assert_eq!(stats.corruption_total, 0, "a format-1 record is no damage");
    let report = db.verify().unwrap();
    assert!(report.problems.is_empty(), "the rebuilt books recount exactly: {:?}", report.problems);
    // Everything unreached waits for a later checkpoint (the older record may reach
    // it), then is free to reuse.
    let unreached = stats.space.pending;
    assert!(unreached > 0 && stats.space.free == 0, "{:?}", stats.space);
    for _ in 0..3 {
        db.checkpoint().unwrap();
    }
    let after = db.stats().unwrap().space;
    assert!(after.pending == 0 && after.free + after.live + 2 >= after.tip, "{after:?}");
    db.close().unwrap();
    let file = vfs.read_raw(&pages_path()).unwrap();
    let (_, payload) = newest_meta(&file);
    assert_eq!(u32::from_le_bytes(payload[8..12].try_into().unwrap()), 2, "the next checkpoint wrote format 2");
    let db = open(&db_path(), &options(&vfs));
    assert_eq!(read_all(&db.snapshot()), content);
    assert!(db.verify().unwrap().problems.is_empty());
    db.close().unwrap();
}

#[test]
fn corruption_of_the_space_map_is_reported_and_the_books_rebuilt() {
    let vfs = SimVfs::new();
    let db = populated(&vfs);
    let content = read_all(&db.snapshot());
    db.close().unwrap();
    let file = vfs.read_raw(&pages_path()).unwrap();
    let (_, payload) = newest_meta(&file);
    let chain = u64_at(&payload, 104) as usize;
    assert!(chain >= 2, "the record names a space map");
    assert_eq!(file[chain * PAGE + 24], 6, "a space map page");
    // One flipped byte inside the chain's payload.
    let at = chain * PAGE + HEADER + 20;
    vfs.write_raw(&pages_path(), at as u64, &[file[at] ^ 0x40]);

    let db = open(&db_path(), &options(&vfs));
    assert_eq!(read_all(&db.snapshot()), content, "the data is intact");
    let stats = db.stats().unwrap();
    assert!(stats.corruption.iter().any(|r| r.page == Some(chain as u64)), "the damaged page is reported: {:?}", stats.corruption);
    let problems = db.verify().unwrap().problems;
    assert!(problems.iter().any(|p| p.contains("space map")), "verify names it: {problems:?}");
    assert!(problems.iter().all(|p| p.contains("space map")), "and nothing else: the rebuilt books recount exactly: {problems:?}");
    // The next checkpoint writes the rebuilt books.
    db.checkpoint().unwrap();
    let problems = db.verify().unwrap().problems;
    assert!(problems.is_empty(), "{problems:?}");
    db.close().unwrap();
}
