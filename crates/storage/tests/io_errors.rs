//! I/O error tests (R5): EIO and ENOSPC at every I/O operation of the scripted
//! workload, once and persistently. The error reaches the caller as a typed error
//! that says what happened to the commit: `StorageFull` (a full disk before anything
//! was written: not written, the database carries on), `OutcomeUnknown` (its write
//! or fsync failed: fail-stop) or `FailStopped` (not written: fail-stop). Reopening
//! recovers every acknowledged commit and none that was not written, with nothing
//! corrupt.

mod common;

use common::workload::{check_recovery, run, script, Outcome};
use storage::vfs::{CrashMode, FaultKind, SimVfs};
use storage::Error;

#[test]
fn io_errors_at_every_operation_reach_the_caller_and_recovery_is_clean() {
    let commits = script(5);
    let clean = SimVfs::new();
    run(&clean, &commits);
    let total_ops = clean.op_count();
    let (mut cases, mut storage_full) = (0, 0);
    for index in 0..total_ops {
        for kind in [FaultKind::Eio, FaultKind::Enospc] {
            for persistent in [false, true] {
                let vfs = SimVfs::new();
                vfs.fail_at(index, kind, persistent);
                let result = run(&vfs, &commits);
                let context = format!("{kind:?} at op {index} of {total_ops}, persistent={persistent}");
                match &result.error {
                    // Group commit batches vary from run to run, so a run may end
                    // before the fault's index; and ENOSPC spares operations that
                    // do not grow data. Otherwise the error must surface.
                    None => assert!(
                        result.acked() == commits.len() && (vfs.op_count() <= index || kind == FaultKind::Enospc),
                        "{context}: the fault fired but no error surfaced"
                    ),
                    Some(Error::StorageFull { .. }) => {
                        assert_eq!(kind, FaultKind::Enospc, "{context}");
                        storage_full += 1;
                    }
                    Some(Error::Io { .. } | Error::FailStopped(_) | Error::OutcomeUnknown(_)) => {}
                    Some(other) => panic!("{context}: unexpected error {other:?}"),
                }
                if kind == FaultKind::Enospc && !persistent {
                    // One refused allocation is not fail-stop: the script goes on.
                    let refused = result.outcomes.iter().filter(|o| **o == Outcome::NotWritten).count();
                    if matches!(result.error, Some(Error::StorageFull { .. })) && refused > 0 {
                        assert!(result.outcomes.len() == commits.len(), "{context}: a full disk stopped the run");
                    }
                }
                vfs.clear_faults();
                // A restart with the OS's view of the files, and one after power loss.
                let power_loss = vfs.crash(CrashMode::DropUnsynced);
                check_recovery(vfs, &commits, &result, &format!("{context}, restart"));
                check_recovery(power_loss, &commits, &result, &format!("{context}, power loss"));
                cases += 1;
            }
        }
    }
    eprintln!("I/O error cases: {cases} ({total_ops} operations, {storage_full} ended in storage_full)");
    assert!(storage_full > 0, "some ENOSPC must land on an allocation");
}
