//! R2 for free space: power loss at every I/O operation of a workload in which slots are
//! freed and reused: overwrites between checkpoints (slots released, then written
//! again), pins taken and dropped, trees copied and dropped, tree compaction, and the
//! file's compaction (live pages moved down, the free tail cut off).
//!
//! The schedule is deterministic (`common/schedule.rs`): two runs perform the same I/O
//! operations, and every crash point is the same on every run
//! (`TENANTDB_CRASH_SPACE_SEED` picks another script; `TENANTDB_CRASH_SEEDS` sets the
//! chaos crash states per operation, `TENANTDB_CRASH_SPACE_STEPS` the random steps
//! before the compaction episode: 1 and 60 in `npm test`, 4 and 110 under
//! `TENANTDB_SOAK=1`, `common/soak.rs`). After each crash, recovery must give
//! exactly the acknowledged commits (plus the one in flight if its outcome was
//! unknown), every pin must read what it pinned, and `verify` must recount the books
//! exactly (`common/recovery.rs`). A slot overwritten while a record on disk still
//! reached it would fail its checksum, or the one its parent recorded, and show here.

mod common;

use common::power_loss::crash_at_every_operation;
use common::schedule::Step;
use common::soak::budget;
use common::{commit, Rng};
use storage::{Commit, Op};

fn one(commit: Commit) -> Step {
    Step::Commits(vec![commit])
}

const TREES: [&str; 3] = ["a", "b", "c"];

fn script(seed: u64, random_steps: u64) -> Vec<Step> {
    let mut rng = Rng::new(seed);
    let mut steps = Vec::new();
    let tree = |rng: &mut Rng| TREES[rng.below(3) as usize].as_bytes().to_vec();
    for n in 0..random_steps {
        let step = match rng.below(20) {
            0..=10 => {
                let t = tree(&mut rng);
                let ops = (0..40)
                    .map(|_| {
                        let key = format!("k{:04}", rng.below(300)).into_bytes();
                        let len = if rng.chance(5) { 2000 } else { 60 };
                        Op::Put { tree: t.clone().into(), key: key.into(), value: rng.bytes(len).into() }
                    })
                    .collect();
                one(commit(ops))
            }
            11 => one(commit(vec![Op::Pin { name: format!("p{n}").into_bytes() }])),
            12 => one(commit(vec![Op::Unpin { name: format!("p{}", rng.below(n.max(1))).into_bytes() }])),
            13 => one(commit(vec![Op::CopyTree { from: tree(&mut rng), to: tree(&mut rng) }])),
            14 => one(commit(vec![Op::DropTree { tree: tree(&mut rng) }])),
            15 => one(commit(vec![Op::CompactTree { tree: tree(&mut rng) }])),
            16 => Step::CompactSpace,
            _ => Step::Checkpoint,
        };
        steps.push(step);
    }
    // A tree loaded after another, then the first dropped: its slots, low in the file,
    // come free while the second's lie above them, so compaction has pages to move.
    for (tree, count) in [("low", 3000u64), ("high", 3000)] {
        for chunk in (0..count).collect::<Vec<_>>().chunks(1000) {
            let ops = chunk.iter().map(|k| Op::Put { tree: tree.as_bytes().into(), key: format!("{k:05}").into_bytes().into(), value: rng.bytes(80).into() }).collect();
            steps.push(one(commit(ops)));
        }
        steps.push(Step::Checkpoint);
    }
    steps.push(one(commit(vec![Op::DropTree { tree: b"low".to_vec() }])));
    steps.push(Step::Checkpoint);
    steps.push(Step::CompactSpace);
    steps
}

#[test]
fn crash_at_every_io_operation_while_slots_are_freed_and_reused() {
    let seed = std::env::var("TENANTDB_CRASH_SPACE_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    let chaos = budget("TENANTDB_CRASH_SEEDS", 1, 4);
    let steps = script(seed, budget("TENANTDB_CRASH_SPACE_STEPS", 60, 110));
    let crashes = crash_at_every_operation(&format!("seed {seed}"), &steps, chaos);
    // The schedule exercises what it claims: slots released and written again (more
    // pages written than the file holds), and live pages moved by compaction.
    let work = &crashes.clean.work;
    assert!(work.pages_released > 0 && work.pages_moved > 0 && work.pages_written > work.tip, "seed {seed}: {work:?}");
    eprintln!("free-space crash states checked: {} ({} I/O operations, seed {seed})", crashes.states, crashes.ops);
    assert_eq!(crashes.states, crashes.ops as u64 * (1 + chaos));
    assert!(crashes.ops >= 400, "only {} I/O operations", crashes.ops);
}
