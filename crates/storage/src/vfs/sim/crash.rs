//! Power loss on the simulated disk: the world a crash leaves behind, built from the
//! durable state plus, under [`CrashMode::Chaos`], a random subset of the pending
//! operations, each write whole, lost, or torn at 512-byte sector boundaries.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use super::{set_len_of, write_into, Inode, InodeId, Pending, SimVfs, State};

/// Torn writes are torn on disk-sector boundaries, counted from the start of the file.
const SECTOR: u64 = 512;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashMode {
    /// Every unsynced write and unsynced directory change is lost.
    DropUnsynced,
    /// Each unsynced write independently survives whole, is lost, or is torn (only
    /// some of its 512-byte sectors survive). Each unsynced directory operation
    /// independently survives or not, as long as the result is consistent: an
    /// operation on a file whose creation (or earlier rename) was lost is lost too,
    /// and a file whose creation is lost loses its data with it.
    Chaos { seed: u64 },
}

/// splitmix64: tiny, fast, and good enough to pick which writes a crash keeps.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Applies one unsynced write as a crash leaves it: whole, lost, or torn into the
/// sectors it touches, each kept or lost on its own.
fn apply_chaotic_write(data: &mut Vec<u8>, offset: u64, bytes: &[u8], rng: &mut Rng) {
    match rng.below(3) {
        0 => {}
        1 => write_into(data, offset, bytes),
        _ => {
            let end = offset + bytes.len() as u64;
            let mut pos = offset;
            while pos < end {
                let sector_end = ((pos / SECTOR) + 1) * SECTOR;
                let piece_end = sector_end.min(end);
                if rng.coin() {
                    let lo = (pos - offset) as usize;
                    let hi = (piece_end - offset) as usize;
                    write_into(data, pos, &bytes[lo..hi]);
                }
                pos = piece_end;
            }
        }
    }
}

impl SimVfs {
    /// The file system as it would be found after power loss at this instant: a new,
    /// independent `SimVfs` holding only what survives under `mode`. Open handles of
    /// this one are not carried over, and the new one starts with `op_count` 0, no
    /// faults and no locks. This one keeps working.
    pub fn crash(&self, mode: CrashMode) -> SimVfs {
        let state = self.lock();
        let mut names = state.durable_names.clone();
        let mut rng = match mode {
            CrashMode::DropUnsynced => None,
            CrashMode::Chaos { seed } => Some(Rng(seed)),
        };
        if let Some(rng) = rng.as_mut() {
            for op in &state.dir_ops {
                if rng.coin() {
                    op.change.apply(&mut names, true);
                }
            }
        }
        // Only inodes with a surviving name survive; their data is decided in inode
        // order so a seed always draws the same numbers for the same workload.
        let survivors: BTreeSet<InodeId> = names.values().copied().collect();
        let mut inodes = BTreeMap::new();
        for &id in &survivors {
            let old = &state.inodes[&id];
            let mut data = old.durable.clone();
            if let Some(rng) = rng.as_mut() {
                for op in &old.pending {
                    match op {
                        Pending::Write { offset, bytes } => {
                            apply_chaotic_write(&mut data, *offset, bytes, rng)
                        }
                        Pending::SetLen(len) => {
                            if rng.coin() {
                                set_len_of(&mut data, *len);
                            }
                        }
                    }
                }
            }
            inodes.insert(
                id,
                Inode {
                    current: data.clone(),
                    durable: data,
                    ..Inode::default()
                },
            );
        }
        let after = State {
            inodes,
            next_id: state.next_id,
            names: names.clone(),
            durable_names: names,
            dir_ops: Vec::new(),
            dirs: state.dirs.clone(),
            locked: Default::default(),
            ledger: Default::default(),
            capacity: None,
        };
        SimVfs {
            state: Arc::new(Mutex::new(after)),
            gate: Default::default(),
        }
    }
}
