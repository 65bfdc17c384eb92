//! Tests of the simulated file system's faults and ledger (which operations fail,
//! where a fault fired, the operation trace) and of its sync gate.
use std::time::Duration;

use super::ops::{EIO, ENOSPC};
use super::tests::{durable_file, errno, fresh, read_all, root as dir};
use super::*;

#[test]
fn a_fault_that_fires_is_recorded_with_its_operation_and_one_that_never_fires_is_not() {
    let vfs = fresh();
    let file = vfs.open(&dir().join("a"), true).unwrap(); // op 0
    file.write_at(b"abc", 0).unwrap(); // op 1
    // ENOSPC armed at a read: it skips the read and the overwrite, and fires at the
    // first operation that grows the file.
    vfs.fail_at(vfs.op_count(), FaultKind::Enospc, false);
    file.read_at(&mut [0; 3], 0).unwrap(); // op 2
    file.write_at(b"x", 0).unwrap(); // op 3
    assert_eq!(vfs.fault_fired(), None, "nothing grew yet");
    assert!(file.write_at(b"defg", 2).is_err()); // op 4
    let fired = vfs.fault_fired().expect("fired");
    assert_eq!((fired.index, fired.errno, fired.times), (4, ENOSPC, 1));
    assert_eq!(fired.op, "write+grow /db/a @2+4");
    // Cleared, it is still known where it fired; a new fault forgets it.
    vfs.clear_faults();
    assert_eq!(vfs.fault_fired().map(|f| f.index), Some(4));
    vfs.fail_at(1_000, FaultKind::Eio, true);
    file.sync().unwrap();
    assert_eq!(vfs.fault_fired(), None, "armed past the end of the workload: never fired");
}

#[test]
fn a_persistent_fault_counts_every_operation_it_failed_from_the_first() {
    let vfs = fresh();
    let file = vfs.open(&dir().join("a"), true).unwrap();
    vfs.fail_at(vfs.op_count(), FaultKind::Eio, true);
    assert!(file.sync().is_err());
    assert!(file.read_at(&mut [0; 1], 0).is_err());
    assert!(vfs.sync_dir(&dir()).is_err());
    let fired = vfs.fault_fired().unwrap();
    assert_eq!((fired.index, fired.errno, fired.times), (1, EIO, 3));
    assert_eq!(fired.op, "sync /db/a");
}

#[test]
fn the_trace_lists_each_counted_operation_and_repeats_for_the_same_workload() {
    fn workload(vfs: &SimVfs) -> Vec<String> {
        vfs.trace_ops();
        // Results unchecked: the failing run below goes on past its failure.
        let file = vfs.open(&dir().join("a"), true).unwrap();
        let _ = file.write_at(&[1; 100], 0);
        let _ = file.allocate(4096);
        let _ = file.sync();
        let _ = vfs.sync_dir(&dir());
        let _ = vfs.rename(&dir().join("a"), &dir().join("b"));
        let _ = file.read_at(&mut [0; 10], 5);
        vfs.op_trace()
    }
    let first = workload(&fresh());
    assert_eq!(
        first,
        [
            "create /db/a",
            "write+grow /db/a @0+100",
            "write+grow /db/a @100+3996",
            "sync /db/a",
            "sync_dir /db",
            "rename /db/a -> /db/b",
            "read /db/b @5+10",
        ]
    );
    assert_eq!(workload(&fresh()), first);
    let failing = fresh();
    failing.fail_at(3, FaultKind::Eio, false);
    assert_eq!(workload(&failing)[3], "sync /db/a failed 5");
}

#[test]
fn a_held_sync_waits_at_the_gate_until_released() {
    let vfs = fresh();
    let file = vfs.open(&dir().join("a"), true).unwrap();
    file.write_at(b"abc", 0).unwrap();
    let held = vfs.hold_next_sync();
    assert!(!held.is_held());
    let syncing = std::thread::spawn(move || file.sync());
    assert!(held.wait_held(Duration::from_secs(30)), "the sync reached the gate");
    // Held: its writes are not durable yet, and other operations go on meanwhile.
    assert_eq!(vfs.crash(CrashMode::DropUnsynced).read_raw(&dir().join("a")), None);
    vfs.sync_dir(&dir()).unwrap();
    assert!(!syncing.is_finished());
    held.release();
    syncing.join().unwrap().unwrap();
    assert_eq!(vfs.read_raw(&dir().join("a")).unwrap(), b"abc");
    // The gate holds one sync only: the next one goes through.
    let file = vfs.open(&dir().join("a"), false).unwrap();
    file.sync().unwrap();
}

#[test]
fn a_hold_dropped_before_any_sync_arrives_holds_nothing() {
    let vfs = fresh();
    let file = vfs.open(&dir().join("a"), true).unwrap();
    let held = vfs.hold_next_sync();
    assert!(!held.wait_held(Duration::from_millis(1)), "no sync yet");
    drop(held);
    file.sync().unwrap();
}

#[test]
fn after_a_power_loss_every_operation_fails_and_a_crash_may_still_keep_what_was_pending() {
    let vfs = fresh();
    let file = vfs.open(&dir().join("a"), true).unwrap();
    file.sync().unwrap();
    vfs.sync_dir(&dir()).unwrap();
    file.write_at(b"abc", 0).unwrap();
    let cut = vfs.op_count();
    vfs.fail_at(cut, FaultKind::PowerLoss, false);
    assert!(file.sync().is_err(), "the sync at the cut");
    assert!(file.read_at(&mut [0; 3], 0).is_err() && file.write_at(b"x", 0).is_err(), "and everything after it");
    assert_eq!(vfs.fault_fired().map(|f| (f.index, f.times)), Some((cut, 3)), "persistent even when asked for once");
    // Dropping unsynced writes loses it; some chaos crash keeps it (an Eio on that
    // sync would have dropped it for good: fsyncgate).
    assert_eq!(vfs.crash(CrashMode::DropUnsynced).read_raw(&dir().join("a")).unwrap(), b"");
    let kept = (0..64).any(|seed| vfs.crash(CrashMode::Chaos { seed }).read_raw(&dir().join("a")).unwrap() == b"abc");
    assert!(kept, "a write pending at the power cut may survive it");
}

#[test]
fn eio_once_fails_exactly_one_op() {
    let vfs = fresh();
    let file = durable_file(&vfs, "a", b"abc");
    let at = vfs.op_count();
    vfs.fail_at(at, FaultKind::Eio, false);
    let mut buf = [0; 3];
    assert_eq!(errno(&file.read_at(&mut buf, 0).unwrap_err()), Some(EIO));
    assert_eq!(file.read_at(&mut buf, 0).unwrap(), 3);
    file.write_at(b"x", 0).unwrap();
    file.sync().unwrap();
}

#[test]
fn eio_persistent_fails_every_op_until_cleared() {
    let vfs = fresh();
    let file = durable_file(&vfs, "a", b"abc");
    vfs.fail_at(vfs.op_count() + 1, FaultKind::Eio, true);
    file.write_at(b"x", 0).unwrap(); // index before the fault
    let mut buf = [0; 3];
    assert_eq!(errno(&file.read_at(&mut buf, 0).unwrap_err()), Some(EIO));
    assert_eq!(errno(&file.write_at(b"y", 0).unwrap_err()), Some(EIO));
    assert_eq!(errno(&file.sync().unwrap_err()), Some(EIO));
    assert_eq!(errno(&vfs.sync_dir(&dir()).unwrap_err()), Some(EIO));
    assert_eq!(
        errno(&vfs.open(&dir().join("b"), true).err().unwrap()),
        Some(EIO)
    );
    assert_eq!(
        errno(&vfs.remove(&dir().join("a")).unwrap_err()),
        Some(EIO)
    );
    // A failed op changes nothing.
    assert!(!vfs.exists(&dir().join("b")).unwrap());
    assert!(vfs.exists(&dir().join("a")).unwrap());
    vfs.clear_faults();
    assert_eq!(file.read_at(&mut buf, 0).unwrap(), 3);
    assert_eq!(&buf, b"xbc");
}

#[test]
fn enospc_once_fails_only_the_first_growing_op() {
    let vfs = fresh();
    let file = durable_file(&vfs, "a", b"abc");
    vfs.fail_at(vfs.op_count(), FaultKind::Enospc, false);
    let mut buf = [0; 3];
    // Reads, syncs, shrinking set_len: not affected, and do not use up the fault.
    file.read_at(&mut buf, 0).unwrap();
    file.sync().unwrap();
    file.set_len(2).unwrap();
    assert_eq!(errno(&file.write_at(b"zz", 2).unwrap_err()), Some(ENOSPC));
    assert_eq!(read_all(&vfs, &dir().join("a")), b"ab");
    file.write_at(b"zz", 2).unwrap();
    assert_eq!(read_all(&vfs, &dir().join("a")), b"abzz");
}

#[test]
fn enospc_persistent_fails_every_growing_op() {
    let vfs = fresh();
    let file = durable_file(&vfs, "a", b"abc");
    vfs.fail_at(0, FaultKind::Enospc, true);
    assert_eq!(errno(&file.write_at(b"wxyz", 0).unwrap_err()), Some(ENOSPC));
    assert_eq!(errno(&file.set_len(100).unwrap_err()), Some(ENOSPC));
    assert_eq!(errno(&file.allocate(100).unwrap_err()), Some(ENOSPC));
    assert_eq!(
        errno(&vfs.open(&dir().join("b"), true).err().unwrap()),
        Some(ENOSPC)
    );
    assert_eq!(errno(&file.write_at(b"x", 3).unwrap_err()), Some(ENOSPC));
    // Everything else proceeds, overwriting bytes the file has included.
    file.write_at(b"x", 0).unwrap();
    file.set_len(1).unwrap();
    file.sync().unwrap();
    vfs.rename(&dir().join("a"), &dir().join("c")).unwrap();
    vfs.sync_dir(&dir()).unwrap();
    vfs.remove(&dir().join("c")).unwrap();
    vfs.clear_faults();
    vfs.open(&dir().join("b"), true)
        .unwrap()
        .write_at(b"ok", 0)
        .unwrap();
}

#[test]
fn eio_on_sync_loses_pending_writes_even_after_a_later_successful_sync() {
    let vfs = fresh();
    let path = dir().join("a");
    let file = durable_file(&vfs, "a", b"old");
    file.write_at(b"new", 0).unwrap();
    vfs.fail_at(vfs.op_count(), FaultKind::Eio, false);
    assert_eq!(errno(&file.sync().unwrap_err()), Some(EIO));
    // Still visible to this process...
    assert_eq!(read_all(&vfs, &path), b"new");
    // ...and the retried fsync "succeeds"...
    file.sync().unwrap();
    // ...but the pages were dropped: no crash brings them back.
    assert_eq!(read_all(&vfs.crash(CrashMode::DropUnsynced), &path), b"old");
    for seed in 0..32 {
        assert_eq!(
            read_all(&vfs.crash(CrashMode::Chaos { seed }), &path),
            b"old"
        );
    }
    // Writes after the failure are durable again once synced.
    file.write_at(b"!", 3).unwrap();
    file.sync().unwrap();
    assert_eq!(
        read_all(&vfs.crash(CrashMode::DropUnsynced), &path),
        b"old!"
    );
}

#[test]
fn op_count_counts_each_io_op() {
    let vfs = fresh();
    assert_eq!(vfs.op_count(), 0);
    let a = dir().join("a");
    let file = vfs.open(&a, true).unwrap(); // 1: create
    let _again = vfs.open(&a, true).unwrap(); // existing: not counted
    file.write_at(b"x", 0).unwrap(); // 2
    file.read_at(&mut [0; 1], 0).unwrap(); // 3
    file.set_len(4).unwrap(); // 4
    file.sync().unwrap(); // 5
    vfs.sync_dir(&dir()).unwrap(); // 6
    vfs.rename(&a, &dir().join("b")).unwrap(); // 7
    vfs.remove(&dir().join("b")).unwrap(); // 8
    let _ = file.len().unwrap();
    let _ = vfs.exists(&a).unwrap();
    let _ = vfs.list(&dir()).unwrap();
    assert_eq!(vfs.op_count(), 8);
    assert_eq!(vfs.clone().op_count(), 8, "clones share state");
    assert_eq!(vfs.crash(CrashMode::DropUnsynced).op_count(), 0);
}

#[test]
fn failing_at_every_index_hits_every_op() {
    // The intended use: learn the op count, then fail at each index in turn.
    fn workload(vfs: &SimVfs) -> io::Result<()> {
        let file = vfs.open(&dir().join("a"), true)?;
        file.write_at(b"hello", 0)?;
        file.sync()?;
        vfs.sync_dir(&dir())
    }
    let n = {
        let vfs = fresh();
        workload(&vfs).unwrap();
        vfs.op_count()
    };
    assert_eq!(n, 4);
    for i in 0..n {
        let vfs = fresh();
        vfs.fail_at(i, FaultKind::Eio, false);
        assert_eq!(errno(&workload(&vfs).unwrap_err()), Some(EIO), "index {i}");
    }
}

#[test]
fn allocate_fails_like_a_write() {
    let vfs = fresh();
    let file = durable_file(&vfs, "a", b"abc");
    vfs.fail_at(vfs.op_count(), FaultKind::Enospc, false);
    assert_eq!(errno(&file.allocate(4096).unwrap_err()), Some(ENOSPC));
    assert_eq!(file.len().unwrap(), 3, "a failed allocate changes nothing");
    file.allocate(4096).unwrap();
    assert_eq!(file.len().unwrap(), 4096);
}
