//! The directory lock: a second opener gets a clear error; the lock dies with its holder.

use storage::{Database, Error, Options};

#[test]
fn lock_second_opener_is_refused_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path(), Options::default()).unwrap();
    match Database::open(dir.path(), Options::default()) {
        Err(err @ Error::Locked { .. }) => {
            assert_eq!(err.code(), "locked");
            assert!(err.to_string().contains("is locked by another process"), "{err}");
        }
        Err(other) => panic!("expected Locked, got {other:?}"),
        Ok(_) => panic!("a second opener got the lock"),
    }
    db.close().unwrap();
    Database::open(dir.path(), Options::default()).expect("lock released on close").close().unwrap();
}

#[test]
fn reopen_keeps_pages_and_tip() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(dir.path(), Options::default()).unwrap();
    let page = db.write_new_page(storage::PageType::Raw, b"kept").unwrap();
    db.close().unwrap();
    let db = Database::open(dir.path(), Options::default()).unwrap();
    let stats = db.stats().unwrap();
    assert_eq!(stats.page_count, 3);
    assert_eq!(stats.db_dir, std::fs::canonicalize(dir.path()).unwrap());
    assert_eq!(db.read_page(page).unwrap().payload, b"kept");
}
