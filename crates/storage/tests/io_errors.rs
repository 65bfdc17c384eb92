//! I/O error tests (R5): EIO and ENOSPC at every I/O operation of the scripted
//! workload, once and persistently. The error reaches the caller as a typed error,
//! a failed durable write stops the database (fail-stop: nothing more is
//! acknowledged), and reopening recovers every acknowledged commit, with nothing
//! corrupt.

mod common;

use common::workload::{check_recovery, run, script};
use storage::vfs::{CrashMode, FaultKind, SimVfs};
use storage::Error;

#[test]
fn io_errors_at_every_operation_reach_the_caller_and_recovery_is_clean() {
    let (commits, states) = script(5);
    let clean = SimVfs::new();
    run(&clean, &commits);
    let total_ops = clean.op_count();
    let mut cases = 0;
    for index in 0..total_ops {
        for kind in [FaultKind::Eio, FaultKind::Enospc] {
            for persistent in [false, true] {
                let vfs = SimVfs::new();
                vfs.fail_at(index, kind, persistent);
                let (acked, attempted, error) = run(&vfs, &commits);
                let context = format!("{kind:?} at op {index} of {total_ops}, persistent={persistent}");
                match &error {
                    // Group commit batches vary from run to run, so a run may end
                    // before the fault's index; and ENOSPC spares operations that
                    // cannot grow data. Otherwise the error must surface.
                    None => assert!(
                        acked == commits.len() && (vfs.op_count() <= index || kind == FaultKind::Enospc),
                        "{context}: the fault fired but no error surfaced"
                    ),
                    Some(Error::Io { .. } | Error::FailStopped(_)) => {}
                    Some(other) => panic!("{context}: unexpected error {other:?}"),
                }
                vfs.clear_faults();
                // A restart with the OS's view of the files, and one after power loss.
                check_recovery(vfs.crash(CrashMode::DropUnsynced), &states, acked, attempted, &format!("{context}, power loss"));
                cases += 1;
            }
        }
    }
    eprintln!("I/O error cases: {cases} ({total_ops} operations)");
}
