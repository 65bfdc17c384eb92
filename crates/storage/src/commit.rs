//! A transaction as the storage core logs it: opaque caller metadata plus a list of
//! operations, applied in order, all or nothing. One commit is one WAL frame.
//!
//! Frame payload (little-endian; `bytes` = `len: u32` then `len` bytes):
//!
//! | field    | encoding                     | meaning                                |
//! |----------|------------------------------|----------------------------------------|
//! | version  | u8 = 1                       | payload format                         |
//! | meta     | bytes                        | caller's metadata (the service's event header) |
//! | op_count | u32                          | number of operations                   |
//! | ops      | `tag: u8` then fields        | see the table below                    |
//!
//! | tag | operation          | fields (all `bytes`) |
//! |----:|--------------------|----------------------|
//! |   1 | put                | tree, key, value     |
//! |   2 | delete             | tree, key            |
//! |   3 | drop tree          | tree                 |
//! |   4 | copy tree          | from, to             |
//! |   5 | copy tree from pin | pin, from, to        |
//! |   6 | pin                | name                 |
//! |   7 | unpin              | name                 |
//! |   8 | compact tree       | tree                 |

use std::sync::Arc;

/// Bytes shared without copying: a put's key and value become the B-tree entry as
/// they are, and the puts of one commit into one tree share one name.
pub type SharedBytes = Arc<[u8]>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Inserts or replaces `key` in `tree`, creating the tree if needed.
    Put { tree: SharedBytes, key: SharedBytes, value: SharedBytes },
    /// Removes `key` from `tree`; absent keys are a no-op.
    Delete { tree: Vec<u8>, key: Vec<u8> },
    /// Removes a whole tree; an absent tree is a no-op.
    DropTree { tree: Vec<u8> },
    /// Makes `to` share `from`'s current root: an O(1) copy (a fork). Replaces `to`.
    CopyTree { from: Vec<u8>, to: Vec<u8> },
    /// Makes `to` share the root `from` had in pin `pin` (a fork from a snapshot).
    CopyTreeFromPin { pin: Vec<u8>, from: Vec<u8>, to: Vec<u8> },
    /// Saves the current root set (after the operations before it) under `name`.
    Pin { name: Vec<u8> },
    /// Forgets a pin; absent pins are a no-op.
    Unpin { name: Vec<u8> },
    /// Rebuilds `tree` from its live entries into fresh, dense nodes.
    CompactTree { tree: Vec<u8> },
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Commit {
    pub meta: Vec<u8>,
    pub ops: Vec<Op>,
}

use crate::byte_reader::ByteReader;

const FORMAT_VERSION: u8 = 1;

impl Commit {
    /// The length of `encode()`'s output, without encoding.
    pub fn encoded_bytes(&self) -> usize {
        1 + 4 + self.meta.len() + 4 + self.ops.iter().map(Op::encoded_bytes).sum::<usize>()
    }

    pub fn encode(&self) -> Vec<u8> {
        // One allocation of the exact size: a bulk commit is hundreds of megabytes.
        let mut out = Vec::with_capacity(self.encoded_bytes());
        out.push(FORMAT_VERSION);
        put_bytes(&mut out, &self.meta);
        out.extend_from_slice(&(self.ops.len() as u32).to_le_bytes());
        for op in &self.ops {
            out.push(op.tag());
            op.for_each_field(|field| put_bytes(&mut out, field));
        }
        debug_assert_eq!(out.len(), out.capacity());
        out
    }

    /// `None` when the payload is not a commit this version wrote.
    pub fn decode(payload: &[u8]) -> Option<Commit> {
        let mut r = ByteReader::new(payload);
        if r.take(1)?[0] != FORMAT_VERSION {
            return None;
        }
        let meta = r.bytes_u32()?.to_vec();
        let count = r.u32()? as usize;
        // Each op takes at least 5 bytes: refuse counts the payload cannot hold.
        if count > payload.len() / 5 {
            return None;
        }
        let mut ops = Vec::with_capacity(count);
        // The puts of a commit usually go to a few trees: consecutive puts to the same
        // tree share its name instead of allocating it again.
        let mut last_tree: Option<SharedBytes> = None;
        for _ in 0..count {
            let tag = r.take(1)?[0];
            ops.push(match tag {
                1 => {
                    let name = r.bytes_u32()?;
                    let tree = match &last_tree {
                        Some(last) if **last == *name => last.clone(),
                        _ => last_tree.insert(SharedBytes::from(name)).clone(),
                    };
                    Op::Put { tree, key: r.bytes_u32()?.into(), value: r.bytes_u32()?.into() }
                }
                2 => Op::Delete { tree: r.bytes_u32()?.to_vec(), key: r.bytes_u32()?.to_vec() },
                3 => Op::DropTree { tree: r.bytes_u32()?.to_vec() },
                4 => Op::CopyTree { from: r.bytes_u32()?.to_vec(), to: r.bytes_u32()?.to_vec() },
                5 => Op::CopyTreeFromPin { pin: r.bytes_u32()?.to_vec(), from: r.bytes_u32()?.to_vec(), to: r.bytes_u32()?.to_vec() },
                6 => Op::Pin { name: r.bytes_u32()?.to_vec() },
                7 => Op::Unpin { name: r.bytes_u32()?.to_vec() },
                8 => Op::CompactTree { tree: r.bytes_u32()?.to_vec() },
                _ => return None,
            });
        }
        r.is_done().then_some(Commit { meta, ops })
    }
}

impl Op {
    fn tag(&self) -> u8 {
        match self {
            Op::Put { .. } => 1,
            Op::Delete { .. } => 2,
            Op::DropTree { .. } => 3,
            Op::CopyTree { .. } => 4,
            Op::CopyTreeFromPin { .. } => 5,
            Op::Pin { .. } => 6,
            Op::Unpin { .. } => 7,
            Op::CompactTree { .. } => 8,
        }
    }

    /// The op's fields in payload order (without allocating: a commit may hold
    /// millions of ops).
    fn for_each_field(&self, mut f: impl FnMut(&[u8])) {
        match self {
            Op::Put { tree, key, value } => [&**tree, key, value].into_iter().for_each(f),
            Op::Delete { tree, key } => [tree, key].into_iter().for_each(|x| f(x)),
            Op::DropTree { tree } | Op::CompactTree { tree } => f(tree),
            Op::CopyTree { from, to } => [from, to].into_iter().for_each(|x| f(x)),
            Op::CopyTreeFromPin { pin, from, to } => [pin, from, to].into_iter().for_each(|x| f(x)),
            Op::Pin { name } | Op::Unpin { name } => f(name),
        }
    }

    /// Bytes of the op in the payload.
    fn encoded_bytes(&self) -> usize {
        let mut bytes = 1;
        self.for_each_field(|field| bytes += 4 + field.len());
        bytes
    }
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A commit holding every kind of operation.
    fn every_op() -> Commit {
        Commit {
            meta: b"{\"tenant\":\"a\"}".to_vec(),
            ops: vec![
                Op::Put { tree: b"t"[..].into(), key: b"k"[..].into(), value: vec![7; 2000].into() },
                Op::Delete { tree: b"t".to_vec(), key: b"k".to_vec() },
                Op::DropTree { tree: b"t".to_vec() },
                Op::CopyTree { from: b"a".to_vec(), to: b"b".to_vec() },
                Op::CopyTreeFromPin { pin: b"p".to_vec(), from: b"a".to_vec(), to: b"c".to_vec() },
                Op::Pin { name: b"p".to_vec() },
                Op::Unpin { name: b"p".to_vec() },
                Op::CompactTree { tree: b"t".to_vec() },
            ],
        }
    }

    // Random commits, their truncations and bit flips: tests/fuzz_commit_codec.rs.
    #[test]
    fn every_op_round_trips() {
        let commit = every_op();
        assert_eq!(commit.encoded_bytes(), commit.encode().len());
        assert_eq!(Commit::decode(&commit.encode()), Some(commit));
    }
}
