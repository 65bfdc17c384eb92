//! Crash tests (R2): power loss at every I/O operation of random schedules over
//! several trees (`common/random_script.rs`): commits alone and in group-commit
//! batches, pins and unpins, tree copies from the current trees and from pins, drops,
//! tree compaction, a few commits the engine must refuse, checkpoints, page-file
//! compaction, held readers and restarts.
//!
//! The schedule is deterministic (`common/schedule.rs`), so an I/O index names the
//! same operation on every run: the test checks that two runs of a script perform
//! the same operations, and that the power goes off at the very operation the clean
//! run had at that index (`common/power_loss.rs`). Each crash state (every unsynced
//! write dropped, and chaos modes: each write pending at the cut kept, lost or torn
//! at 512-byte sectors) must recover exactly the acknowledged commits, plus a prefix
//! of the batch whose outcome was unknown (each commit whole or not at all), with
//! every pin reading what it pinned, `verify` clean, no corruption reported, and it
//! must carry on: the next LSN, compaction, `verify`, close (`common/recovery.rs`).
//! Failures name the seed and the crash index.
//!
//! Sizes (`common/soak.rs`): `npm test` checks 4 scripts with one chaos state per I/O
//! index (at least 2 500 I/O operations, 5 000 crash states); `TENANTDB_SOAK=1` checks
//! 8 scripts with three (at least 20 000 crash states).
//! - `TENANTDB_CRASH_SCRIPTS`: how many scripts (seeds 1, 2, …);
//! - `TENANTDB_CRASH_SCRIPT_SEED`: only the script of this seed (to replay a failure);
//! - `TENANTDB_CRASH_SEEDS`: chaos crash states per I/O index, besides the one that
//!   drops every unsynced write.

mod common;

use std::time::Instant;

use common::power_loss::crash_at_every_operation;
use common::random_script::random_script;
use common::schedule::{Outcome, Step, Work};
use common::soak::budget;

/// Steps per script (besides its compaction episode).
const STEPS: usize = 40;
/// The fewest scripts whose coverage claims below hold (refusals, batches, restarts…).
const SCRIPTS_MIN: u64 = 4;

fn env(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| v.parse().unwrap_or_else(|_| panic!("{name} must be a number, got {v:?}")))
}

/// What the scripts did and what crashing everywhere in them saw.
#[derive(Debug, Default)]
struct Seen {
    states: u64,
    ops: usize,
    unknown_kept: u64,
    unknown_lost: u64,
    refused: usize,
    batches: usize,
    restarts: usize,
    readers: usize,
    work: Work,
}

#[test]
fn crash_at_every_io_operation_of_random_schedules_recovers_exactly_the_acknowledged_commits() {
    let started = Instant::now();
    let chaos = budget("TENANTDB_CRASH_SEEDS", 1, 3);
    let seeds: Vec<u64> = match env("TENANTDB_CRASH_SCRIPT_SEED") {
        Some(seed) => vec![seed],
        None => (1..=budget("TENANTDB_CRASH_SCRIPTS", SCRIPTS_MIN, 2 * SCRIPTS_MIN)).collect(),
    };
    let mut seen = Seen::default();
    for &seed in &seeds {
        let steps = random_script(seed, STEPS);
        let crashes = crash_at_every_operation(&format!("seed {seed}"), &steps, chaos);
        seen.states += crashes.states;
        seen.ops += crashes.ops;
        seen.unknown_kept += crashes.unknown_kept;
        seen.unknown_lost += crashes.unknown_lost;
        seen.refused += crashes.clean.count(Outcome::Refused);
        seen.batches += steps.iter().filter(|s| matches!(s, Step::Commits(c) if c.len() > 1)).count();
        seen.restarts += steps.iter().filter(|s| matches!(s, Step::Reopen)).count();
        seen.readers += steps.iter().filter(|s| matches!(s, Step::Hold)).count();
        let work = &crashes.clean.work;
        seen.work.pages_released += work.pages_released;
        seen.work.pages_moved += work.pages_moved;
        seen.work.in_place += work.in_place;
    }
    eprintln!("crash states checked: {} ({} I/O operations, scripts {seeds:?}, {:.0} s): {seen:?}", seen.states, seen.ops, started.elapsed().as_secs_f64());
    // Every I/O operation was a crash point, each with every state asked for.
    assert_eq!(seen.states, seen.ops as u64 * (1 + chaos), "{seen:?}");
    if seeds.len() as u64 >= SCRIPTS_MIN {
        assert!(seen.ops >= 2_500, "only {} I/O operations", seen.ops);
    }
    // The scripts reached what they claim to: refusals, batches, restarts, readers;
    // slots released, written over in place and moved by compaction; and crashes
    // that kept a commit whose outcome was unknown as well as crashes that lost one.
    if seeds.len() as u64 >= SCRIPTS_MIN {
        assert!(seen.refused > 0 && seen.batches > 0 && seen.restarts > 0 && seen.readers > 0, "{seen:?}");
        assert!(seen.work.pages_released > 0 && seen.work.in_place > 0 && seen.work.pages_moved > 0, "{seen:?}");
        assert!(seen.unknown_kept > 0 && seen.unknown_lost > 0, "{seen:?}");
    }
}
