//! Tests of the simulated file system: durability, crash modes, faults, locks.
use super::*;

pub(super) fn root() -> PathBuf {
    PathBuf::from("/db")
}

/// A fresh file system with `/db` created.
pub(super) fn fresh() -> SimVfs {
    let vfs = SimVfs::new();
    vfs.create_dir_all(&root()).unwrap();
    vfs
}

/// Creates `/db/<name>` holding `bytes`, with data and directory entry durable.
pub(super) fn durable_file(vfs: &SimVfs, name: &str, bytes: &[u8]) -> Arc<dyn VfsFile> {
    let file = vfs.open(&root().join(name), true).unwrap();
    file.write_at(bytes, 0).unwrap();
    file.sync().unwrap();
    vfs.sync_dir(&root()).unwrap();
    file
}

pub(super) fn read_all(vfs: &SimVfs, path: &Path) -> Vec<u8> {
    let file = vfs.open(path, false).unwrap();
    let mut buf = vec![0; file.len().unwrap() as usize];
    assert_eq!(file.read_at(&mut buf, 0).unwrap(), buf.len());
    buf
}

pub(super) fn errno(e: &io::Error) -> Option<i32> {
    e.raw_os_error()
}

#[test]
fn unsynced_writes_are_lost_under_drop_unsynced() {
    let vfs = fresh();
    let file = durable_file(&vfs, "a", b"old!");
    file.write_at(b"NEW", 0).unwrap();
    file.write_at(b"tail", 4).unwrap();
    assert_eq!(read_all(&vfs, &root().join("a")), b"NEW!tail");
    let after = vfs.crash(CrashMode::DropUnsynced);
    assert_eq!(read_all(&after, &root().join("a")), b"old!");
    // The old file system keeps working.
    assert_eq!(read_all(&vfs, &root().join("a")), b"NEW!tail");
}

#[test]
fn synced_writes_survive() {
    let vfs = fresh();
    let file = durable_file(&vfs, "a", b"one");
    file.write_at(b"two", 3).unwrap();
    file.set_len(8).unwrap();
    file.sync().unwrap();
    let after = vfs.crash(CrashMode::DropUnsynced);
    assert_eq!(read_all(&after, &root().join("a")), b"onetwo\0\0");
    for seed in 0..20 {
        let after = vfs.crash(CrashMode::Chaos { seed });
        assert_eq!(read_all(&after, &root().join("a")), b"onetwo\0\0");
    }
}

#[test]
fn unsynced_set_len_is_lost() {
    let vfs = fresh();
    let file = durable_file(&vfs, "a", b"0123456789");
    file.set_len(4).unwrap();
    assert_eq!(file.len().unwrap(), 4);
    let after = vfs.crash(CrashMode::DropUnsynced);
    assert_eq!(read_all(&after, &root().join("a")), b"0123456789");
}

#[test]
fn creation_is_lost_without_sync_dir_even_with_synced_data() {
    let vfs = fresh();
    let path = root().join("new");
    let file = vfs.open(&path, true).unwrap();
    file.write_at(b"data", 0).unwrap();
    file.sync().unwrap();
    assert!(vfs.exists(&path).unwrap());
    let after = vfs.crash(CrashMode::DropUnsynced);
    assert!(!after.exists(&path).unwrap());
    assert_eq!(
        after.open(&path, false).err().unwrap().kind(),
        io::ErrorKind::NotFound
    );
    assert!(after.list(&root()).unwrap().is_empty());

    vfs.sync_dir(&root()).unwrap();
    let after = vfs.crash(CrashMode::DropUnsynced);
    assert_eq!(read_all(&after, &path), b"data");
}

#[test]
fn chaos_never_keeps_data_of_a_lost_creation() {
    let vfs = fresh();
    let path = root().join("new");
    let file = vfs.open(&path, true).unwrap();
    file.write_at(&[7; 1024], 0).unwrap();
    let (mut kept, mut lost) = (0, 0);
    for seed in 0..64 {
        let after = vfs.crash(CrashMode::Chaos { seed });
        if after.exists(&path).unwrap() {
            kept += 1;
        } else {
            lost += 1;
            assert!(after.read_raw(&path).is_none());
        }
    }
    assert!(kept > 0 && lost > 0, "kept {kept}, lost {lost}");
}

#[test]
fn removal_is_durable_only_after_sync_dir() {
    let vfs = fresh();
    let path = root().join("a");
    drop(durable_file(&vfs, "a", b"x"));
    vfs.remove(&path).unwrap();
    assert!(!vfs.exists(&path).unwrap());
    assert_eq!(
        vfs.remove(&path).unwrap_err().kind(),
        io::ErrorKind::NotFound
    );
    assert_eq!(read_all(&vfs.crash(CrashMode::DropUnsynced), &path), b"x");
    vfs.sync_dir(&root()).unwrap();
    assert!(!vfs.crash(CrashMode::DropUnsynced).exists(&path).unwrap());
}

#[test]
fn rename_is_atomic_now_and_durable_after_sync_dir() {
    let vfs = fresh();
    let (tmp, dst) = (root().join("meta.tmp"), root().join("meta"));
    drop(durable_file(&vfs, "meta", b"old"));
    let file = vfs.open(&tmp, true).unwrap();
    file.write_at(b"new", 0).unwrap();
    file.sync().unwrap();
    vfs.rename(&tmp, &dst).unwrap();
    assert_eq!(vfs.list(&root()).unwrap(), vec!["meta".to_string()]);
    assert_eq!(read_all(&vfs, &dst), b"new");
    // The handle follows the file across the rename.
    file.write_at(b"!", 3).unwrap();
    assert_eq!(read_all(&vfs, &dst), b"new!");

    // Before sync_dir the rename (and the creation) may be lost.
    let after = vfs.crash(CrashMode::DropUnsynced);
    assert_eq!(read_all(&after, &dst), b"old");
    assert!(!after.exists(&tmp).unwrap());

    // Under Chaos the target is always whole: old or new, never missing.
    for seed in 0..64 {
        let after = vfs.crash(CrashMode::Chaos { seed });
        let got = read_all(&after, &dst);
        assert!(
            got == b"old" || got == b"new" || got == b"new!",
            "seed {seed}: {got:?}"
        );
    }

    vfs.sync_dir(&root()).unwrap();
    let after = vfs.crash(CrashMode::DropUnsynced);
    assert_eq!(read_all(&after, &dst), b"new");
    assert_eq!(after.list(&root()).unwrap(), vec!["meta".to_string()]);
}

#[test]
fn rename_of_missing_file_is_not_found() {
    let vfs = fresh();
    let err = vfs
        .rename(&root().join("nope"), &root().join("x"))
        .unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::NotFound);
}

/// Writes 8 old sectors (durable), then 8 new ones (unsynced), and returns what a
/// Chaos crash with `seed` leaves.
fn chaos_sector_run(seed: u64) -> Vec<u8> {
    let vfs = fresh();
    let file = durable_file(&vfs, "a", &[0x11; 4096]);
    file.write_at(&[0xAA; 4096], 0).unwrap();
    read_all(&vfs.crash(CrashMode::Chaos { seed }), &root().join("a"))
}

#[test]
fn chaos_tears_at_sector_boundaries_never_mid_sector() {
    let (mut mixed, mut all_old, mut all_new) = (0, 0, 0);
    for seed in 0..128 {
        let got = chaos_sector_run(seed);
        assert_eq!(got.len(), 4096);
        let mut new_sectors = 0;
        for sector in got.chunks(512) {
            let first = sector[0];
            assert!(
                sector.iter().all(|&b| b == first),
                "seed {seed}: torn mid-sector"
            );
            assert!(first == 0x11 || first == 0xAA);
            new_sectors += usize::from(first == 0xAA);
        }
        match new_sectors {
            0 => all_old += 1,
            8 => all_new += 1,
            _ => mixed += 1,
        }
    }
    assert!(
        mixed > 0 && all_old > 0 && all_new > 0,
        "{mixed} {all_old} {all_new}"
    );
}

#[test]
fn chaos_tears_unaligned_writes_on_absolute_sector_boundaries() {
    for seed in 0..64 {
        let vfs = fresh();
        let file = durable_file(&vfs, "a", &[0x11; 2048]);
        // Spans sectors 0..=2 in part: [300, 512), [512, 1024), [1024, 1300).
        file.write_at(&[0xAA; 1000], 300).unwrap();
        let got = read_all(&vfs.crash(CrashMode::Chaos { seed }), &root().join("a"));
        assert!(got[..300].iter().all(|&b| b == 0x11));
        assert!(got[1300..].iter().all(|&b| b == 0x11));
        for piece in [&got[300..512], &got[512..1024], &got[1024..1300]] {
            assert!(piece.iter().all(|&b| b == piece[0]), "seed {seed}");
        }
    }
}

#[test]
fn chaos_is_deterministic_for_a_seed() {
    for seed in 0..16 {
        assert_eq!(chaos_sector_run(seed), chaos_sector_run(seed));
    }
    let runs: HashSet<Vec<u8>> = (0..16).map(chaos_sector_run).collect();
    assert!(
        runs.len() > 1,
        "different seeds should give different results"
    );
}

#[test]
fn chaos_applies_surviving_writes_in_order() {
    // Two whole-sector writes to the same sector: the later one, if it survives,
    // wins; the result is never a byte mix.
    for seed in 0..64 {
        let vfs = fresh();
        let file = durable_file(&vfs, "a", &[0; 512]);
        file.write_at(&[1; 512], 0).unwrap();
        file.write_at(&[2; 512], 0).unwrap();
        let got = read_all(&vfs.crash(CrashMode::Chaos { seed }), &root().join("a"));
        assert!(got.iter().all(|&b| b == got[0]));
    }
}

#[test]
fn lock_dir_refuses_a_second_holder_and_frees_on_drop() {
    let vfs = fresh();
    let guard = vfs.lock_dir(&root(), false).unwrap();
    for shared in [false, true] {
        match vfs.clone().lock_dir(&root(), shared) {
            Err(crate::Error::Locked { dir }) => assert_eq!(dir, root()),
            Err(e) => panic!("wrong error: {e}"),
            Ok(_) => panic!("second lock granted (shared: {shared})"),
        }
    }
    // Other directories are independent.
    let other = vfs.lock_dir(Path::new("/other"), false).unwrap();
    drop(guard);
    let _again = vfs.lock_dir(&root(), false).unwrap();
    drop(other);
}

#[test]
fn shared_locks_coexist_and_keep_the_exclusive_one_out_until_the_last_drops() {
    let vfs = fresh();
    let first = vfs.lock_dir(&root(), true).unwrap();
    let second = vfs.lock_dir(&root(), true).unwrap();
    assert!(matches!(vfs.lock_dir(&root(), false), Err(crate::Error::Locked { .. })));
    drop(first);
    assert!(matches!(vfs.lock_dir(&root(), false), Err(crate::Error::Locked { .. })));
    drop(second);
    let _exclusive = vfs.lock_dir(&root(), false).unwrap();
}

#[test]
fn a_read_only_handle_reads_and_refuses_every_change() {
    let vfs = fresh();
    let path = root().join("f");
    let file = vfs.open(&path, true).unwrap();
    file.write_at(b"abc", 0).unwrap();
    file.sync().unwrap();
    let reader = vfs.open_read(&path).unwrap();
    let mut buf = [0u8; 3];
    assert_eq!(reader.read_at(&mut buf, 0).unwrap(), 3);
    assert_eq!(&buf, b"abc");
    assert!(reader.write_at(b"x", 0).is_err());
    assert!(reader.allocate(100).is_err());
    assert!(reader.set_len(0).is_err());
    assert!(reader.sync().is_err());
    assert_eq!(vfs.read_raw(&path).unwrap(), b"abc");
    assert!(vfs.open_read(&root().join("missing")).is_err());
}

#[test]
fn open_without_create_and_list_of_missing_dir_are_not_found() {
    let vfs = fresh();
    assert_eq!(
        vfs.open(&root().join("x"), false).err().unwrap().kind(),
        io::ErrorKind::NotFound
    );
    assert_eq!(
        vfs.list(Path::new("/nope")).unwrap_err().kind(),
        io::ErrorKind::NotFound
    );
    assert_eq!(
        vfs.open(Path::new("/nope/x"), true).err().unwrap().kind(),
        io::ErrorKind::NotFound
    );
}

#[test]
fn list_is_sorted_and_only_direct_children() {
    let vfs = fresh();
    vfs.create_dir_all(&root().join("sub")).unwrap();
    for name in ["b", "a", "c"] {
        vfs.open(&root().join(name), true).unwrap();
    }
    vfs.open(&root().join("sub").join("deep"), true).unwrap();
    assert_eq!(vfs.list(&root()).unwrap(), ["a", "b", "c", "sub"]);
    assert_eq!(vfs.list(&root().join("sub")).unwrap(), ["deep"]);
}

#[test]
fn raw_access_reads_durable_bytes_and_corrupts_both_views() {
    let vfs = fresh();
    let path = root().join("a");
    let file = durable_file(&vfs, "a", b"abcdef");
    file.write_at(b"X", 0).unwrap();
    assert_eq!(vfs.read_raw(&path).unwrap(), b"abcdef");
    vfs.write_raw(&path, 2, b"??");
    assert_eq!(read_all(&vfs, &path), b"Xb??ef");
    assert_eq!(
        read_all(&vfs.crash(CrashMode::DropUnsynced), &path),
        b"ab??ef"
    );
    assert!(vfs.read_raw(&root().join("missing")).is_none());
}

#[test]
fn handle_of_removed_file_keeps_working() {
    let vfs = fresh();
    let path = root().join("a");
    let file = durable_file(&vfs, "a", b"abc");
    vfs.remove(&path).unwrap();
    vfs.sync_dir(&root()).unwrap();
    let mut buf = [0; 3];
    assert_eq!(file.read_at(&mut buf, 0).unwrap(), 3);
    assert_eq!(&buf, b"abc");
    file.write_at(b"z", 0).unwrap();
    file.sync().unwrap();
    assert!(!vfs.crash(CrashMode::DropUnsynced).exists(&path).unwrap());
}

#[test]
fn cross_directory_rename_is_atomic() {
    let vfs = fresh();
    vfs.create_dir_all(&root().join("x")).unwrap();
    let (from, to) = (root().join("a"), root().join("x").join("a"));
    drop(durable_file(&vfs, "a", b"data"));
    vfs.rename(&from, &to).unwrap();
    for seed in 0..64 {
        let after = vfs.crash(CrashMode::Chaos { seed });
        assert!(
            after.exists(&from).unwrap() != after.exists(&to).unwrap(),
            "seed {seed}"
        );
    }
    // Syncing either directory commits it.
    vfs.sync_dir(&root().join("x")).unwrap();
    let after = vfs.crash(CrashMode::DropUnsynced);
    assert!(!after.exists(&from).unwrap());
    assert_eq!(read_all(&after, &to), b"data");
}

#[test]
fn clones_share_state_and_threads_can_use_it() {
    let vfs = fresh();
    let file = vfs.open(&root().join("a"), true).unwrap();
    let threads: Vec<_> = (0..4u64)
        .map(|i| {
            let file = Arc::clone(&file);
            std::thread::spawn(move || file.write_at(&[i as u8; 512], i * 512).unwrap())
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
    assert_eq!(file.len().unwrap(), 2048);
    assert_eq!(vfs.op_count(), 5);
}


#[test]
fn allocate_writes_zeros_that_are_durable_only_after_sync() {
    let vfs = fresh();
    let file = durable_file(&vfs, "a", b"abc");
    let ops = vfs.op_count();
    file.allocate(2).unwrap(); // already longer: bookkeeping, not counted
    file.allocate(3).unwrap();
    assert_eq!(vfs.op_count(), ops);
    file.allocate(8).unwrap();
    assert_eq!(vfs.op_count(), ops + 1, "an extending allocate counts as a write");
    assert_eq!(read_all(&vfs, &root().join("a")), b"abc\0\0\0\0\0");
    assert_eq!(read_all(&vfs.crash(CrashMode::DropUnsynced), &root().join("a")), b"abc");
    // Writes inside the allocated bytes do not change the length.
    file.write_at(b"de", 3).unwrap();
    assert_eq!(file.len().unwrap(), 8);
    file.sync().unwrap();
    assert_eq!(read_all(&vfs.crash(CrashMode::DropUnsynced), &root().join("a")), b"abcde\0\0\0");
}

#[test]
fn a_full_disk_refuses_growth_past_its_capacity_and_nothing_else() {
    let vfs = fresh();
    let file = durable_file(&vfs, "a", b"abc");
    vfs.set_capacity(Some(vfs.used_bytes() + 2));
    file.write_at(b"de", 3).unwrap();
    assert_eq!(errno(&file.write_at(b"f", 5).unwrap_err()), Some(ENOSPC));
    assert_eq!(errno(&file.allocate(100).unwrap_err()), Some(ENOSPC));
    assert_eq!(errno(&file.set_len(6).unwrap_err()), Some(ENOSPC));
    assert_eq!(file.len().unwrap(), 5, "a refused growth changes nothing");
    file.write_at(b"XY", 0).unwrap();
    file.sync().unwrap();
    file.set_len(1).unwrap();
    file.write_at(b"ok", 1).unwrap();
    vfs.set_capacity(None);
    file.allocate(100).unwrap();
    assert_eq!(file.len().unwrap(), 100);
}
