//! Corruption tests: damage stored bytes on disk and see a typed error naming the page.

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;

use storage::limits::PAGE_BYTES;
use storage::{CorruptionKind, Database, Error, Options, PageType, PAGE_HEADER_BYTES};

#[test]
fn corruption_bit_flip_in_stored_page_is_a_typed_error_naming_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let (good, victim) = {
        let mut db = Database::open(dir.path(), Options::default()).unwrap();
        let good = db.write_new_page(PageType::Raw, b"intact").unwrap();
        let victim = db.write_new_page(PageType::Raw, b"will be damaged").unwrap();
        db.sync().unwrap();
        db.close().unwrap();
        (good, victim)
    };

    let file = OpenOptions::new().read(true).write(true).open(dir.path().join("pages")).unwrap();
    let offset = victim * PAGE_BYTES as u64 + PAGE_HEADER_BYTES as u64 + 3;
    let mut byte = [0u8; 1];
    file.read_exact_at(&mut byte, offset).unwrap();
    byte[0] ^= 0b0001_0000;
    file.write_all_at(&byte, offset).unwrap();
    drop(file);

    let db = Database::open(dir.path(), Options::default()).unwrap();
    assert_eq!(db.read_page(good).unwrap().payload, b"intact");
    match db.read_page(victim) {
        Err(Error::Corrupted { page, kind: CorruptionKind::Checksum }) => assert_eq!(page, victim),
        other => panic!("expected a checksum corruption of page {victim}, got {other:?}"),
    }
}

#[test]
fn corruption_both_meta_slots_damaged_refuses_to_open() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(dir.path(), Options::default()).unwrap();
    db.write_new_page(PageType::Raw, b"x").unwrap();
    db.sync().unwrap();
    db.close().unwrap();

    let file = OpenOptions::new().write(true).open(dir.path().join("pages")).unwrap();
    file.write_all_at(&[0xFF; 16], 40).unwrap();
    file.write_all_at(&[0xFF; 16], PAGE_BYTES as u64 + 40).unwrap();
    drop(file);

    match Database::open(dir.path(), Options::default()) {
        Err(Error::Corrupted { page: 0, kind: CorruptionKind::Meta }) => {}
        Err(other) => panic!("expected meta corruption, got {other:?}"),
        Ok(_) => panic!("expected meta corruption, the directory opened"),
    }
}

#[test]
fn corruption_one_torn_meta_slot_falls_back_to_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(dir.path(), Options::default()).unwrap();
    let first = db.write_new_page(PageType::Raw, b"first").unwrap();
    db.sync().unwrap(); // generation 2 → slot 0
    db.write_new_page(PageType::Raw, b"second").unwrap();
    db.sync().unwrap(); // generation 3 → slot 1
    db.close().unwrap();

    // Tear the newest meta slot (slot 1): open must fall back to generation 2.
    let file = OpenOptions::new().write(true).open(dir.path().join("pages")).unwrap();
    file.write_all_at(&[0u8; 512], PAGE_BYTES as u64).unwrap();
    drop(file);

    let db = Database::open(dir.path(), Options::default()).unwrap();
    assert_eq!(db.stats().unwrap().page_count, 3);
    assert_eq!(db.read_page(first).unwrap().payload, b"first");
}
