//! File modes (docs/operations.md, "File modes"): the database directory and `wal/` are
//! 0700 and every file the core creates 0600, so no other local user can read a
//! tenant's data (or the token beside it); a directory created wider is tightened on
//! open.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use storage::{Commit, Database, Op, Options};

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn write_something(dir: &Path) {
    let db = Database::open(dir, Options::default()).unwrap();
    let op = Op::Put { tree: b"t"[..].into(), key: b"k"[..].into(), value: b"v"[..].into() };
    db.commit_sync(Commit { meta: Vec::new(), ops: vec![op] }).unwrap();
    db.close().unwrap();
}

#[test]
fn database_files_are_private_to_their_owner() {
    let root = tempfile::tempdir().unwrap();
    std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let dir = root.path().join("parent").join("db");
    write_something(&dir);
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join("wal")), 0o700);
    assert_ne!(mode(dir.parent().unwrap()) & 0o077, 0, "parents made on the way keep the default mode");
    let mut files = 0;
    for sub in [dir.clone(), dir.join("wal")] {
        for entry in std::fs::read_dir(&sub).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                assert_eq!(mode(&path), 0o600, "{}", path.display());
                files += 1;
            }
        }
    }
    assert!(files >= 3, "LOCK, pages and a WAL segment at least");
}

#[test]
fn an_existing_directory_with_wider_modes_is_tightened_on_open() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("db");
    write_something(&dir);
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(dir.join("wal"), std::fs::Permissions::from_mode(0o775)).unwrap();
    write_something(&dir);
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join("wal")), 0o700);
}
