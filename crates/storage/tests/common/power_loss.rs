//! Power loss at every I/O operation of a schedule (`schedule.rs`), for the crash
//! tests: each crash state, with every unsynced write dropped and under chaos modes,
//! is checked by `recovery.rs`.

use super::parallel::share_out;
use super::recovery::check_recovery;
use super::schedule::{run, Outcome, Run, Step};
use storage::vfs::{CrashMode, FaultKind, SimVfs};

/// What crashing at every operation saw.
pub struct Crashes {
    /// The run without faults.
    pub clean: Run,
    pub ops: usize,
    pub states: u64,
    /// Crash states after which a commit whose outcome was unknown was recovered, and
    /// ones after which such a commit was lost.
    pub unknown_kept: u64,
    pub unknown_lost: u64,
}

/// The I/O operations of a clean run of `steps`, checked to be the same on a second
/// run, and the clean run. `label` names the schedule in failures (its seed).
pub fn clean_trace(label: &str, steps: &[Step]) -> (Vec<String>, Run) {
    let clean = SimVfs::new();
    clean.trace_ops();
    let result = run(&clean, steps);
    assert!(result.failures.is_empty(), "{label}: the schedule runs clean without faults: {:?}", result.failures);
    let trace = clean.op_trace();
    let again = SimVfs::new();
    again.trace_ops();
    run(&again, steps);
    let second = again.op_trace();
    if let Some(at) = (0..trace.len().max(second.len())).find(|&i| trace.get(i) != second.get(i)) {
        panic!("{label}: two runs of the schedule differ at I/O operation {at}: {:?} then {:?}", trace.get(at), second.get(at));
    }
    (trace, result)
}

/// Cuts the power at each I/O operation of `steps` in turn: the state that drops
/// every unsynced write and `chaos` chaos states are checked for each. Each crash point
/// runs on a file system of its own, so the points are shared out over the cores.
pub fn crash_at_every_operation(label: &str, steps: &[Step], chaos: u64) -> Crashes {
    let (trace, clean) = clean_trace(label, steps);
    let counts = share_out(trace.len(), |index| crash_at(label, steps, chaos, &trace, index));
    let sum = |i: usize| counts.iter().map(|c| c[i]).sum();
    Crashes { clean, ops: trace.len(), states: sum(0), unknown_kept: sum(1), unknown_lost: sum(2) }
}

/// The crash states at operation `index`: [states, unknown kept, unknown lost].
fn crash_at(label: &str, steps: &[Step], chaos: u64, trace: &[String], index: usize) -> [u64; 3] {
    let op = &trace[index];
    let mut crashes = [0u64; 3];
    let vfs = SimVfs::new();
    // From operation `index` on nothing reaches the disk: the power is off.
    vfs.fail_at(index as u64, FaultKind::PowerLoss, true);
    let result = run(&vfs, steps);
    let fired = vfs.fault_fired().unwrap_or_else(|| panic!("{label}: the power never went off at op {index}"));
    assert_eq!((fired.index, &fired.op), (index as u64, op), "{label}: op {index} is another operation than in the clean run");
    let unknown = result.count(Outcome::Unknown);
    for mode in std::iter::once(CrashMode::DropUnsynced).chain((0..chaos).map(|s| CrashMode::Chaos { seed: s * 7919 + index as u64 })) {
        let context = format!(
            "{label}, crash at op {index} of {} ({op}), {mode:?}: {} commits acked, {unknown} unknown",
            trace.len(),
            result.count(Outcome::Acked),
        );
        let kept = check_recovery(vfs.crash(mode), &result, &context);
        crashes[0] += 1;
        match (unknown, kept) {
            (0, _) => {}
            (_, 0) => crashes[2] += 1,
            _ => crashes[1] += 1,
        }
    }
    crashes
}
