//! I/O error tests (R5): EIO and ENOSPC injected at every I/O operation of a
//! deterministic schedule (`common/random_script.rs`, `common/schedule.rs`: commits
//! alone and in batches, pins, copies, drops, checkpoints, compaction, readers,
//! restarts), once and persistently.
//!
//! The simulated disk records whether and where the fault fired (`SimVfs::fault_fired`).
//! A case whose fault never fired (an ENOSPC armed after the last operation that grows
//! a file) is not a checked case: the run must be the clean run, and the test counts
//! it apart. A fault that fired must surface, carrying its errno, as the first error
//! of the run:
//! - EIO: an `Io` error whose `io::Error` has raw os error 5, or `FailStopped` /
//!   `OutcomeUnknown` whose cause names it; every later error names it too.
//! - ENOSPC: `StorageFull` naming it, from the commit, checkpoint or compaction whose
//!   allocation failed (nothing of it was written), or a close that reports its
//!   checkpoint skipped for it. That is the one fault the engine handles: the
//!   database carries on, never fail-stops, and the step retried (once) succeeds when
//!   the fault was one-shot, so that run has that single error. Two exceptions, both
//!   ending the run: an open (at the start or a restart) that cannot create or write
//!   its files fails, with `StorageFull` or an `Io` error whose raw os error is
//!   ENOSPC (there is no database yet to carry on); and an in-place checkpoint whose
//!   journal was complete when the disk filled stops the database, `FailStopped`
//!   naming ENOSPC (`docs/operations.md`, "Disk full": slots the record on disk
//!   reaches may already be written over, so only the next open, redoing the
//!   journal, may go on).
//!
//! Then a restart on the files as the OS left them, and one after power loss, each
//! recover exactly the acknowledged commits (plus a prefix of a batch whose outcome
//! was unknown), pins intact, `verify` clean (`common/recovery.rs`).

mod common;

use common::parallel::share_out;
use common::power_loss::clean_trace;
use common::random_script::random_script;
use common::recovery::check_recovery;
use common::schedule::{run, Failure, Outcome, Run, Seen, Step};
use storage::vfs::{CrashMode, FaultKind, FiredFault, SimVfs};
use storage::Error;

const SEED: u64 = 7;
const STEPS: usize = 16;
const EIO: i32 = 5;
const ENOSPC: i32 = 28;

/// Whether a failure names errno `errno`: the io::Error's raw os error for an `Io`
/// error, the cause's text (which keeps the io::Error's "(os error N)") otherwise.
fn carries(failure: &Failure, errno: i32) -> bool {
    let named = |text: &str| text.contains(&format!("(os error {errno})"));
    match &failure.seen {
        Seen::Error(Error::Io { source, .. }) => source.raw_os_error() == Some(errno),
        Seen::Error(Error::FailStopped(cause) | Error::OutcomeUnknown(cause)) => named(cause),
        Seen::Error(Error::StorageFull { detail, .. }) => errno == ENOSPC && named(detail),
        Seen::CheckpointSkipped(reason) => errno == ENOSPC && named(reason),
        Seen::Error(_) => false,
    }
}

/// A full disk handled: the database carries on.
fn is_full_disk(failure: &Failure) -> bool {
    matches!(failure.seen, Seen::Error(Error::StorageFull { .. }) | Seen::CheckpointSkipped(_)) && carries(failure, ENOSPC)
}

/// An open that could not create its files on a full disk.
fn is_full_disk_at_open(failure: &Failure) -> bool {
    matches!(failure.during, "open" | "reopen") && matches!(failure.seen, Seen::Error(Error::Io { .. } | Error::StorageFull { .. })) && carries(failure, ENOSPC)
}

/// A checkpoint (of a step, or of a close) that met the full disk after its journal
/// was complete.
fn is_journal_fail_stop(failure: &Failure) -> bool {
    matches!(&failure.seen, Seen::Error(Error::FailStopped(cause)) if cause.contains("after its journal was complete")) && carries(failure, ENOSPC)
}

/// How a case whose fault fired ended.
#[derive(Debug, PartialEq)]
enum Ending {
    Eio,
    /// ENOSPC handled: the database carried on.
    Full,
    FullAtOpen,
    FullAfterJournal,
}

/// The checks of a case whose fault fired (see the module comment).
fn check_surfaced(kind: FaultKind, persistent: bool, fired: &FiredFault, result: &Run, context: &str) -> Ending {
    let first = result.failures.first().unwrap_or_else(|| panic!("{context}: the fault fired on {} but no error surfaced", fired.op));
    match kind {
        FaultKind::Eio => {
            assert!(carries(first, EIO), "{context}: the first error does not carry EIO: {first:?}");
            for failure in &result.failures {
                assert!(carries(failure, EIO), "{context}: an error that does not name EIO: {failure:?}");
            }
            Ending::Eio
        }
        FaultKind::Enospc => {
            let (last, handled) = result.failures.split_last().expect("one at least");
            for failure in handled {
                assert!(is_full_disk(failure), "{context}: ENOSPC surfaced as another error than a full disk: {failure:?}");
            }
            for (ending, ended) in [(Ending::FullAtOpen, is_full_disk_at_open(last)), (Ending::FullAfterJournal, is_journal_fail_stop(last))] {
                if ended {
                    assert!(result.stopped, "{context}: the run went on after {last:?}");
                    return ending;
                }
            }
            assert!(is_full_disk(last), "{context}: ENOSPC surfaced as another error than a full disk: {last:?}");
            assert!(!result.stopped, "{context}: a full disk stopped the database: {:?}", result.failures);
            if !persistent {
                // One step failed (each commit of a batch reports it), and its retry
                // went through: a checkpoint or compaction has no second failure...
                let one_step = result.failures.iter().all(|f| (f.step, f.during) == (first.step, first.during));
                assert!(one_step, "{context}: a one-shot ENOSPC failed more than one step: {:?}", result.failures);
                if first.during != "commit" {
                    assert_eq!(result.failures.len(), 1, "{context}: the retry after a one-shot ENOSPC failed: {:?}", result.failures);
                }
                // ...and every commit refused for the full disk went through when retried.
                for (at, (commit, outcome)) in result.attempts.iter().enumerate() {
                    if *outcome == Outcome::NotWritten {
                        let retried = result.attempts[at + 1..].iter().any(|(c, o)| c == commit && matches!(o, Outcome::Acked | Outcome::Refused));
                        assert!(retried, "{context}: commit {at}, refused for the full disk, did not go through when retried");
                    }
                }
            }
            Ending::Full
        }
        FaultKind::PowerLoss => unreachable!("not injected here"),
    }
}

/// What the four cases armed at one operation saw.
#[derive(Default)]
struct Cases {
    checked: u64,
    never_fired: u64,
    storage_full: usize,
    retried: u64,
    endings: std::collections::BTreeMap<String, u64>,
}

/// EIO and ENOSPC, once and persistently, armed at operation `index` of the schedule.
fn cases_at(steps: &[Step], trace: &[String], clean: &Run, index: u64) -> Cases {
    let grows = |op: &String| op.starts_with("create ") || op.contains("+grow ");
    let mut seen = Cases::default();
    for kind in [FaultKind::Eio, FaultKind::Enospc] {
        for persistent in [false, true] {
            let vfs = SimVfs::new();
            vfs.fail_at(index, kind, persistent);
            let result = run(&vfs, steps);
            let context = format!("seed {SEED}: {kind:?} at op {index} of {} ({}), persistent={persistent}", trace.len(), trace[index as usize]);
            // The schedule is deterministic: the fault fires at the first operation at
            // or after its index that it applies to, the one the clean run had there.
            let expected = (index as usize..trace.len()).find(|&at| kind == FaultKind::Eio || grows(&trace[at]));
            let fired = vfs.fault_fired();
            assert_eq!(fired.as_ref().map(|f| (f.index as usize, &f.op)), expected.map(|at| (at, &trace[at])), "{context}: where the fault fired");
            let Some(fired) = fired else {
                assert!(result.failures.is_empty(), "{context}: no fault fired, yet {:?}", result.failures);
                assert_eq!(result.attempts, clean.attempts, "{context}: no fault fired, yet the run differs from the clean one");
                seen.never_fired += 1;
                continue;
            };
            assert_eq!(fired.errno, if kind == FaultKind::Eio { EIO } else { ENOSPC });
            *seen.endings.entry(format!("{:?}", check_surfaced(kind, persistent, &fired, &result, &context))).or_insert(0) += 1;
            seen.storage_full += result.failures.iter().filter(|f| matches!(f.seen, Seen::Error(Error::StorageFull { .. }))).count();
            seen.retried += (kind == FaultKind::Enospc && !persistent && !matches!(result.failures[0].seen, Seen::CheckpointSkipped(_))) as u64;
            vfs.clear_faults();
            // After power loss, and a restart with the OS's view of the files.
            let power_loss = vfs.crash(CrashMode::DropUnsynced);
            check_recovery(power_loss, &result, &format!("{context}, power loss"));
            check_recovery(vfs, &result, &format!("{context}, restart"));
            seen.checked += 1;
        }
    }
    seen
}

#[test]
fn io_errors_at_every_operation_surface_with_their_errno_and_recovery_is_clean() {
    let steps = random_script(SEED, STEPS);
    let (trace, clean) = clean_trace(&format!("seed {SEED}"), &steps);
    let mut all = Cases::default();
    for seen in share_out(trace.len(), |index| cases_at(&steps, &trace, &clean, index as u64)) {
        all.checked += seen.checked;
        all.never_fired += seen.never_fired;
        all.storage_full += seen.storage_full;
        all.retried += seen.retried;
        for (ending, n) in seen.endings {
            *all.endings.entry(ending).or_insert(0) += n;
        }
    }
    let Cases { checked, never_fired, storage_full, retried, endings } = all;
    eprintln!("I/O error cases: {checked} checked {endings:?}, {never_fired} whose fault never fired ({} operations; {storage_full} storage_full, {retried} one-shot ENOSPC retried)", trace.len());
    // Every EIO case fires, and every ENOSPC case armed at or before the last
    // operation that grows a file (checked case by case above): nearly all of them.
    let cases = 4 * trace.len() as u64;
    assert_eq!(checked + never_fired, cases);
    assert!(checked * 10 >= cases * 9, "only {checked} of {cases} cases fired");
    assert!(storage_full > 0 && retried > 0, "ENOSPC must land on allocations and be retried");
}
