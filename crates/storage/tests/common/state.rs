//! The model the crash and I/O-error tests hold a database to: every tree and every
//! pin (the trees it saved), applied as `docs/architecture.md` describes commits (in
//! order, all or nothing), and read back from a snapshot the same way.

use std::collections::{BTreeMap, BTreeSet};

use super::{try_read_all, Model};
use storage::{Commit, Op, Snapshot};

/// Trees (an emptied tree exists until dropped, as in the engine) and pins.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    pub trees: Model,
    pub pins: BTreeMap<Vec<u8>, Model>,
}

/// The engine refuses a commit (`InvalidArgument`, nothing changes) that pins a name
/// in use or copies from a pin that does not exist, given the pins before it and the
/// commit's own operations before each.
pub fn refused(pins: &BTreeSet<Vec<u8>>, commit: &Commit) -> bool {
    let mut pins = pins.clone();
    for op in &commit.ops {
        match op {
            Op::Pin { name } | Op::PinPrefix { name, .. } if !pins.insert(name.clone()) => return true,
            Op::Unpin { name } => {
                pins.remove(name);
            }
            Op::CopyTreeFromPin { pin, .. } if !pins.contains(pin) => return true,
            _ => {}
        }
    }
    false
}

/// The pin names after `commit`, which was not refused.
pub fn pins_after(pins: &mut BTreeSet<Vec<u8>>, commit: &Commit) {
    for op in &commit.ops {
        match op {
            Op::Pin { name } | Op::PinPrefix { name, .. } => {
                pins.insert(name.clone());
            }
            Op::Unpin { name } => {
                pins.remove(name);
            }
            _ => {}
        }
    }
}

impl State {
    /// Applies a commit the engine accepted (see `refused`).
    pub fn apply(&mut self, commit: &Commit) {
        for op in &commit.ops {
            match op {
                Op::Put { tree, key, value } => {
                    self.trees.entry(tree.to_vec()).or_default().insert(key.to_vec(), value.to_vec());
                }
                // A delete in an absent tree does not create it.
                Op::Delete { tree, key } => {
                    if let Some(entries) = self.trees.get_mut(tree) {
                        entries.remove(key);
                    }
                }
                Op::DropTree { tree } => {
                    self.trees.remove(tree);
                }
                // A copy of an absent tree is an empty tree.
                Op::CopyTree { from, to } => {
                    let copied = self.trees.get(from).cloned().unwrap_or_default();
                    self.trees.insert(to.clone(), copied);
                }
                Op::CopyTreeFromPin { pin, from, to } => {
                    let copied = self.pins[pin].get(from).cloned().unwrap_or_default();
                    self.trees.insert(to.clone(), copied);
                }
                Op::Pin { name } => {
                    assert!(self.pins.insert(name.clone(), self.trees.clone()).is_none(), "a refused commit applied");
                }
                Op::PinPrefix { name, prefix } => {
                    let trees = self.trees.iter().filter(|(tree, _)| tree.starts_with(prefix)).map(|(t, e)| (t.clone(), e.clone())).collect();
                    assert!(self.pins.insert(name.clone(), trees).is_none(), "a refused commit applied");
                }
                Op::Unpin { name } => {
                    self.pins.remove(name);
                }
                Op::CompactTree { .. } => {}
            }
        }
    }

    /// The state after `commits`, none of them refused.
    pub fn of<'a>(commits: impl IntoIterator<Item = &'a Commit>) -> State {
        let mut state = State::default();
        for commit in commits {
            state.apply(commit);
        }
        state
    }

    /// Every tree and every pin a snapshot reads.
    pub fn read(snapshot: &Snapshot) -> State {
        State::try_read(snapshot).expect("read a snapshot")
    }

    /// The same, returning the first error.
    pub fn try_read(snapshot: &Snapshot) -> storage::Result<State> {
        let mut pins = BTreeMap::new();
        for pin in snapshot.pins()? {
            let pinned = snapshot.pin(&pin.name)?.expect("a listed pin exists");
            pins.insert(pin.name, try_read_all(&pinned)?);
        }
        Ok(State { trees: try_read_all(snapshot)?, pins })
    }
}
