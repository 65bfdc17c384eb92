//! Random schedules (`schedule.rs`) from a seed, for the crash and I/O-error tests:
//! commits of puts and deletes over several trees (alone or in batches), pins (of
//! every tree, or of those under a prefix) and unpins, tree copies from the current trees and from pins, tree drops, tree
//! compaction, commits mixing all of these, a few commits the engine must refuse,
//! checkpoints, page-file compaction, readers held across steps, and restarts.

use super::schedule::Step;
use super::{commit, Rng};
use storage::{Commit, Op};

const TREES: [&str; 4] = ["a", "b", "c", "d"];

struct Script {
    rng: Rng,
    /// Pins made so far (some since unpinned), so unpins and copies can name them.
    pins: Vec<Vec<u8>>,
    made: u64,
}

impl Script {
    fn tree(&mut self) -> Vec<u8> {
        TREES[self.rng.below(TREES.len() as u64) as usize].as_bytes().to_vec()
    }

    fn pin(&mut self) -> Vec<u8> {
        match self.pins.len() {
            0 => b"never".to_vec(),
            n => self.pins[self.rng.below(n as u64) as usize].clone(),
        }
    }

    fn new_pin(&mut self) -> Vec<u8> {
        self.made += 1;
        let name = format!("p{}", self.made).into_bytes();
        self.pins.push(name.clone());
        name
    }

    /// Puts (values mostly small, some spilling into overflow pages) and deletes.
    fn writes(&mut self, count: u64) -> Vec<Op> {
        let tree = self.tree();
        (0..count)
            .map(|_| {
                let key = format!("k{:03}", self.rng.below(150)).into_bytes();
                if self.rng.chance(15) {
                    return Op::Delete { tree: tree.clone(), key };
                }
                let len = match self.rng.below(20) {
                    0 => 6000,
                    1..=2 => 900,
                    _ => 40,
                };
                Op::Put { tree: tree.as_slice().into(), key: key.into(), value: self.rng.bytes(len).into() }
            })
            .collect()
    }

    /// A tree loaded with a few hundred entries, so drops, overwrites and copies free
    /// many slots at once.
    fn load(&mut self) -> Commit {
        let tree = self.tree();
        let count = 100 + self.rng.below(200);
        self.load_into(&tree, count)
    }

    fn load_into(&mut self, tree: &[u8], count: u64) -> Commit {
        commit(
            (0..count)
                .map(|i| Op::Put { tree: tree.into(), key: format!("load{i:04}").into_bytes().into(), value: self.rng.bytes(200).into() })
                .collect(),
        )
    }

    /// A tree loaded after another, then the first dropped and the file compacted:
    /// the first one's slots, low in the file, come free below the second's, so
    /// compaction has live pages to move down.
    fn compaction(&mut self) -> Vec<Step> {
        let low = self.load_into(b"low", 500);
        let high = self.load_into(b"high", 500);
        let drop = commit(vec![Op::DropTree { tree: b"low".to_vec() }]);
        vec![Step::Commits(vec![low]), Step::Checkpoint, Step::Commits(vec![high]), Step::Checkpoint, Step::Commits(vec![drop]), Step::Checkpoint, Step::CompactSpace]
    }

    /// One structural operation; a pin of a name in use or a copy from a pin that
    /// never existed makes the engine refuse the whole commit.
    fn structural(&mut self) -> Op {
        match self.rng.below(8) {
            0 => Op::Pin { name: if self.rng.chance(30) { self.pin() } else { self.new_pin() } },
            6 => Op::PinPrefix { name: if self.rng.chance(30) { self.pin() } else { self.new_pin() }, prefix: self.tree() },
            1 => Op::Unpin { name: self.pin() },
            2 => Op::CopyTree { from: self.tree(), to: self.tree() },
            3 => Op::CopyTreeFromPin { pin: self.pin(), from: self.tree(), to: self.tree() },
            4 => Op::DropTree { tree: self.tree() },
            5 => Op::CompactTree { tree: self.tree() },
            _ => Op::Pin { name: self.new_pin() },
        }
    }

    fn commit(&mut self) -> Commit {
        if self.rng.chance(6) {
            return self.load();
        }
        if self.rng.chance(75) {
            let count = 1 + self.rng.below(12);
            return commit(self.writes(count));
        }
        let mut ops = Vec::new();
        for _ in 0..1 + self.rng.below(3) {
            if self.rng.chance(50) {
                let count = 1 + self.rng.below(4);
                ops.extend(self.writes(count));
            }
            ops.push(self.structural());
        }
        commit(ops)
    }
}

/// `steps` random steps from `seed`, with the compaction episode (`compaction`)
/// among them, then a release of any reader still held.
pub fn random_script(seed: u64, steps: usize) -> Vec<Step> {
    let mut script = Script { rng: Rng::new(seed), pins: Vec::new(), made: 0 };
    let mut out = Vec::with_capacity(steps + 8);
    let mut holding = false;
    let mut episode_at = Some(steps / 3 + script.rng.below(steps as u64 / 3 + 1) as usize);
    while out.len() < steps {
        if episode_at.is_some_and(|at| out.len() >= at) && !holding {
            out.extend(script.compaction());
            episode_at = None;
        }
        let step = match script.rng.below(100) {
            0..=54 => Step::Commits(vec![script.commit()]),
            55..=69 => {
                let count = 2 + script.rng.below(4);
                Step::Commits((0..count).map(|_| script.commit()).collect())
            }
            70..=81 => Step::Checkpoint,
            // Compaction waits for readers of older versions: none is held then.
            82..=86 if !holding => Step::CompactSpace,
            87..=93 => {
                holding = !holding;
                if holding { Step::Hold } else { Step::Release }
            }
            94..=99 if !holding => Step::Reopen,
            _ => continue,
        };
        out.push(step);
    }
    if holding {
        out.push(Step::Release);
    }
    out
}
