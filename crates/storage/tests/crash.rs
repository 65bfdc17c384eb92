//! Crash tests (R2): simulated power loss at every I/O operation of a scripted
//! workload (concurrent commits sharing fsyncs, checkpoints, close), with unsynced
//! writes dropped, or torn at 512-byte sectors and reordered. After recovery the
//! state must be exactly the acknowledged commits plus a prefix of the batch whose
//! outcome was unknown, and the database must carry on from there.

mod common;

use common::workload::{check_recovery, run, script};
use storage::vfs::{CrashMode, FaultKind, SimVfs};

#[test]
fn crash_at_every_io_operation_recovers_a_prefix_with_every_acknowledged_commit() {
    let commits = script(11);
    let clean = SimVfs::new();
    let result = run(&clean, &commits);
    assert_eq!(result.acked(), commits.len(), "the script runs clean without faults");
    let total_ops = clean.op_count();
    let chaos_seeds: u64 = std::env::var("TENANTDB_CRASH_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(100);
    let mut states_checked = 0u64;
    for index in 0..total_ops {
        let vfs = SimVfs::new();
        // From operation `index` on nothing reaches the disk: the power is off.
        vfs.fail_at(index, FaultKind::Eio, true);
        let result = run(&vfs, &commits);
        for mode in std::iter::once(CrashMode::DropUnsynced).chain((0..chaos_seeds).map(|s| CrashMode::Chaos { seed: s * 7919 + index })) {
            let context = format!("crash at op {index} of {total_ops}, {mode:?}, {} acked of {}", result.acked(), result.outcomes.len());
            check_recovery(vfs.crash(mode), &commits, &result, &context);
            states_checked += 1;
        }
    }
    eprintln!("crash states checked: {states_checked} ({total_ops} I/O operations)");
    assert!(states_checked >= 10_000, "only {states_checked} crash states");
}
