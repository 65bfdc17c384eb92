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
fn lock_is_released_when_dropped_without_close() {
    let dir = tempfile::tempdir().unwrap();
    drop(Database::open(dir.path(), Options::default()).unwrap());
    Database::open(dir.path(), Options::default()).expect("lock released on drop").close().unwrap();
}
