//! A transaction as the storage core logs it: opaque caller metadata plus a list of
//! operations, applied in order, all or nothing. One commit is one WAL frame, and its
//! payload is the one encoding of a commit: the bytes the TypeScript engine facade
//! builds (`src/engine/commit-writer.ts`) are checked by `CommitPayload::parse`
//! (`payload.rs`) and written to the WAL as they are. `Commit::encode` is the
//! Rust encoder of the same bytes, for commits built in Rust (tests, tools);
//! `tests/commit_vector.rs` and `test/engine-commit-codec.test.ts` hold both encoders
//! to one hand-written vector.
//!
//! Frame payload (little-endian; `bytes` = `len: u32` then `len` bytes):
//!
//! | field    | encoding                     | meaning                                |
//! |----------|------------------------------|----------------------------------------|
//! | version  | u8 = 2 (1 is still read)     | payload format                         |
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
//! |   9 | pin prefix         | name, prefix         |
//!
//! Version 2 added tag 9 and is what both encoders write. A version 1 payload (a WAL
//! frame written before it, a frame of the replication stream) is read as it is: it
//! holds tags 1 to 8 only, and means what it meant (docs/format.md, "Commit payload").

use std::fmt;
use std::sync::Arc;

use crate::encoding::ByteReader;

/// Bytes shared without copying: the puts of one decoded commit into one tree share
/// one name.
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
    /// Saves only the trees whose names start with `prefix` (a tenant's snapshot) under
    /// `name`, as `Pin` would save them: other trees' pages are not held by it.
    PinPrefix { name: Vec<u8>, prefix: Vec<u8> },
    /// Forgets a pin; absent pins are a no-op.
    Unpin { name: Vec<u8> },
    /// Rebuilds `tree` from its live entries into fresh, dense nodes.
    CompactTree { tree: Vec<u8> },
}

/// An operation read in place from a payload (`CommitPayload::ops`): what the
/// storage core applies, without copying the payload's bytes into owned ops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpRef<'a> {
    Put { tree: &'a [u8], key: &'a [u8], value: &'a [u8] },
    Delete { tree: &'a [u8], key: &'a [u8] },
    DropTree { tree: &'a [u8] },
    CopyTree { from: &'a [u8], to: &'a [u8] },
    CopyTreeFromPin { pin: &'a [u8], from: &'a [u8], to: &'a [u8] },
    Pin { name: &'a [u8] },
    PinPrefix { name: &'a [u8], prefix: &'a [u8] },
    Unpin { name: &'a [u8] },
    CompactTree { tree: &'a [u8] },
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Commit {
    pub meta: Vec<u8>,
    pub ops: Vec<Op>,
}

/// The version both encoders write.
pub(crate) const FORMAT_VERSION: u8 = 2;
/// The version before `PIN_PREFIX`: read, never written.
const FORMAT_VERSION_1: u8 = 1;

const PUT: u8 = 1;
const DELETE: u8 = 2;
const DROP_TREE: u8 = 3;
const COPY_TREE: u8 = 4;
const COPY_TREE_FROM_PIN: u8 = 5;
const PIN: u8 = 6;
const UNPIN: u8 = 7;
const COMPACT_TREE: u8 = 8;
/// Since format version 2.
const PIN_PREFIX: u8 = 9;

/// The smallest operation: a tag and one empty field.
const OP_BYTES_MIN: usize = 5;

/// Why bytes are not a commit payload of this format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Malformed {
    /// The first byte is neither `FORMAT_VERSION_1` nor `FORMAT_VERSION`.
    Version(u8),
    /// The payload ends inside a field.
    Truncated,
    /// An operation's tag is none of the table's for the payload's version.
    UnknownTag(u8),
    /// `op_count` is more than the payload's bytes can hold.
    CountTooLarge(u32),
    /// Bytes follow the last operation.
    TrailingBytes(usize),
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Malformed::Version(v) => write!(f, "format version {v}, expected {FORMAT_VERSION_1} to {FORMAT_VERSION}"),
            Malformed::Truncated => f.write_str("it ends inside a field"),
            Malformed::UnknownTag(tag) => write!(f, "unknown operation tag {tag}"),
            Malformed::CountTooLarge(n) => write!(f, "{n} operations cannot fit in it"),
            Malformed::TrailingBytes(n) => write!(f, "{n} bytes follow the last operation"),
        }
    }
}

/// Reads the header (version, meta, op count); `r` is then at the first operation.
pub(crate) fn read_header<'a>(r: &mut ByteReader<'a>, payload_bytes: usize) -> Result<(u8, &'a [u8], u32), Malformed> {
    let version = r.u8().ok_or(Malformed::Truncated)?;
    if !(FORMAT_VERSION_1..=FORMAT_VERSION).contains(&version) {
        return Err(Malformed::Version(version));
    }
    let meta = r.bytes_u32().ok_or(Malformed::Truncated)?;
    let count = r.u32().ok_or(Malformed::Truncated)?;
    // Refused before anything is sized by it.
    if count as usize > payload_bytes / OP_BYTES_MIN {
        return Err(Malformed::CountTooLarge(count));
    }
    Ok((version, meta, count))
}

/// Reads one operation of a payload of format `version`: its tag and every field's length.
pub(crate) fn read_op<'a>(r: &mut ByteReader<'a>, version: u8) -> Result<OpRef<'a>, Malformed> {
    let tag = r.u8().ok_or(Malformed::Truncated)?;
    if tag == PIN_PREFIX && version == FORMAT_VERSION_1 {
        return Err(Malformed::UnknownTag(tag));
    }
    let mut field = || r.bytes_u32().ok_or(Malformed::Truncated);
    Ok(match tag {
        PUT => OpRef::Put { tree: field()?, key: field()?, value: field()? },
        DELETE => OpRef::Delete { tree: field()?, key: field()? },
        DROP_TREE => OpRef::DropTree { tree: field()? },
        COPY_TREE => OpRef::CopyTree { from: field()?, to: field()? },
        COPY_TREE_FROM_PIN => OpRef::CopyTreeFromPin { pin: field()?, from: field()?, to: field()? },
        PIN => OpRef::Pin { name: field()? },
        PIN_PREFIX => OpRef::PinPrefix { name: field()?, prefix: field()? },
        UNPIN => OpRef::Unpin { name: field()? },
        COMPACT_TREE => OpRef::CompactTree { tree: field()? },
        other => return Err(Malformed::UnknownTag(other)),
    })
}

impl Commit {
    /// The length of `encode()`'s output, without encoding.
    pub fn encoded_bytes(&self) -> usize {
        1 + 4 + self.meta.len() + 4 + self.ops.iter().map(|op| op.op_ref().encoded_bytes()).sum::<usize>()
    }

    /// The payload: the same bytes `src/engine/commit-writer.ts` writes for this commit.
    pub fn encode(&self) -> Vec<u8> {
        // One allocation of the exact size: a bulk commit is hundreds of megabytes.
        let mut out = Vec::with_capacity(self.encoded_bytes());
        out.push(FORMAT_VERSION);
        put_bytes(&mut out, &self.meta);
        out.extend_from_slice(&(self.ops.len() as u32).to_le_bytes());
        for op in &self.ops {
            let op = op.op_ref();
            out.push(op.tag());
            op.for_each_field(|field| put_bytes(&mut out, field));
        }
        debug_assert_eq!(out.len(), out.capacity());
        out
    }

    /// `None` when the payload is not well formed (`Malformed`). Only the format is
    /// checked: the limits a commit must meet are `CommitPayload::parse`'s. A version 1
    /// payload decodes to the commit it holds, which `encode` writes as version 2: the
    /// same bytes but the first.
    pub fn decode(payload: &[u8]) -> Option<Commit> {
        let mut r = ByteReader::new(payload);
        let (version, meta, count) = read_header(&mut r, payload.len()).ok()?;
        let mut ops = Vec::with_capacity(count as usize);
        // The puts of a commit usually go to a few trees: consecutive puts to the same
        // tree share its name instead of allocating it again.
        let mut last_tree: Option<SharedBytes> = None;
        for _ in 0..count {
            ops.push(match read_op(&mut r, version).ok()? {
                OpRef::Put { tree, key, value } => {
                    let tree = match &last_tree {
                        Some(last) if **last == *tree => last.clone(),
                        _ => last_tree.insert(SharedBytes::from(tree)).clone(),
                    };
                    Op::Put { tree, key: key.into(), value: value.into() }
                }
                other => other.to_owned(),
            });
        }
        r.is_done().then(|| Commit { meta: meta.to_vec(), ops })
    }
}

impl Op {
    /// The op's fields, borrowed.
    pub fn op_ref(&self) -> OpRef<'_> {
        match self {
            Op::Put { tree, key, value } => OpRef::Put { tree, key, value },
            Op::Delete { tree, key } => OpRef::Delete { tree, key },
            Op::DropTree { tree } => OpRef::DropTree { tree },
            Op::CopyTree { from, to } => OpRef::CopyTree { from, to },
            Op::CopyTreeFromPin { pin, from, to } => OpRef::CopyTreeFromPin { pin, from, to },
            Op::Pin { name } => OpRef::Pin { name },
            Op::PinPrefix { name, prefix } => OpRef::PinPrefix { name, prefix },
            Op::Unpin { name } => OpRef::Unpin { name },
            Op::CompactTree { tree } => OpRef::CompactTree { tree },
        }
    }
}

impl OpRef<'_> {
    pub fn to_owned(self) -> Op {
        match self {
            OpRef::Put { tree, key, value } => Op::Put { tree: tree.into(), key: key.into(), value: value.into() },
            OpRef::Delete { tree, key } => Op::Delete { tree: tree.to_vec(), key: key.to_vec() },
            OpRef::DropTree { tree } => Op::DropTree { tree: tree.to_vec() },
            OpRef::CopyTree { from, to } => Op::CopyTree { from: from.to_vec(), to: to.to_vec() },
            OpRef::CopyTreeFromPin { pin, from, to } => Op::CopyTreeFromPin { pin: pin.to_vec(), from: from.to_vec(), to: to.to_vec() },
            OpRef::Pin { name } => Op::Pin { name: name.to_vec() },
            OpRef::PinPrefix { name, prefix } => Op::PinPrefix { name: name.to_vec(), prefix: prefix.to_vec() },
            OpRef::Unpin { name } => Op::Unpin { name: name.to_vec() },
            OpRef::CompactTree { tree } => Op::CompactTree { tree: tree.to_vec() },
        }
    }

    fn tag(&self) -> u8 {
        match self {
            OpRef::Put { .. } => PUT,
            OpRef::Delete { .. } => DELETE,
            OpRef::DropTree { .. } => DROP_TREE,
            OpRef::CopyTree { .. } => COPY_TREE,
            OpRef::CopyTreeFromPin { .. } => COPY_TREE_FROM_PIN,
            OpRef::Pin { .. } => PIN,
            OpRef::PinPrefix { .. } => PIN_PREFIX,
            OpRef::Unpin { .. } => UNPIN,
            OpRef::CompactTree { .. } => COMPACT_TREE,
        }
    }

    /// The op's fields in payload order.
    fn for_each_field(&self, f: impl FnMut(&[u8])) {
        match *self {
            OpRef::Put { tree, key, value } => [tree, key, value].into_iter().for_each(f),
            OpRef::Delete { tree, key } => [tree, key].into_iter().for_each(f),
            OpRef::DropTree { tree } | OpRef::CompactTree { tree } => [tree].into_iter().for_each(f),
            OpRef::CopyTree { from, to } => [from, to].into_iter().for_each(f),
            OpRef::CopyTreeFromPin { pin, from, to } => [pin, from, to].into_iter().for_each(f),
            OpRef::Pin { name } | OpRef::Unpin { name } => [name].into_iter().for_each(f),
            OpRef::PinPrefix { name, prefix } => [name, prefix].into_iter().for_each(f),
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
                Op::PinPrefix { name: b"q".to_vec(), prefix: b"t/a/".to_vec() },
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

    #[test]
    fn a_version_1_payload_decodes_to_its_commit_and_may_not_hold_a_pin_prefix() {
        let old = Commit { meta: b"m".to_vec(), ops: vec![Op::Pin { name: b"p".to_vec() }] };
        let mut bytes = old.encode();
        assert_eq!(bytes[0], FORMAT_VERSION);
        bytes[0] = FORMAT_VERSION_1;
        assert_eq!(Commit::decode(&bytes), Some(old));
        let mut prefix = Commit { meta: Vec::new(), ops: vec![Op::PinPrefix { name: b"p".to_vec(), prefix: b"t/".to_vec() }] }.encode();
        assert!(Commit::decode(&prefix).is_some());
        prefix[0] = FORMAT_VERSION_1;
        assert_eq!(Commit::decode(&prefix), None, "tag 9 is not an operation of version 1");
    }
}
