//! Tests of the simulated file system's ledger (where a fault fired, the operation
//! trace) and of its sync gate.
use std::time::Duration;

use super::ops::{EIO, ENOSPC};
use super::*;

fn dir() -> PathBuf {
    PathBuf::from("/db")
}

fn fresh() -> SimVfs {
    let vfs = SimVfs::new();
    vfs.create_dir_all(&dir()).unwrap();
    vfs
}

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
