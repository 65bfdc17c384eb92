//! On-disk layout of B-tree nodes, inside a page slot's payload (little-endian).
//!
//! Leaf (page type 3):
//!
//! | offset | bytes | field     | meaning                                  |
//! |-------:|------:|-----------|------------------------------------------|
//! |      0 |     1 | level     | 0                                        |
//! |      1 |     2 | count     | number of entries                        |
//! |      3 |   ... | entries   | `count` entries in strictly ascending key order |
//!
//! Leaf entry: `key_len: u16`, `kind: u8`, `key`, then by kind:
//!
//! | kind | bytes | fields                                                            |
//! |-----:|------:|-------------------------------------------------------------------|
//! |    0 | 4 + n | inline value: `len: u32`, `len` bytes (n <= `INLINE_VALUE_BYTES_MAX`) |
//! |    1 |    20 | overflow value: `first_page: u64`, `len: u32` (over `INLINE_VALUE_BYTES_MAX`, at most `VALUE_BYTES_MAX`), `hash: u64` (xxh3 of the value) |
//! |    2 |    32 | tree value: `root_page: u64` (0 = empty tree), `root_checksum: u64`, `count: u64`, `lsn: u64` |
//!
//! Branch (page type 4):
//!
//! | offset | bytes | field     | meaning                                        |
//! |-------:|------:|-----------|------------------------------------------------|
//! |      0 |     1 | level     | height above the leaves, >= 1                  |
//! |      1 |     2 | count     | number of children n >= 1                      |
//! |      3 | 16 n  | children  | `page: u64`, `checksum: u64` per child         |
//! |    ... |   ... | keys      | n - 1 separators: `key_len: u16`, `key`        |
//!
//! Separator i: keys of child i are < it, keys of child i + 1 are >= it. The parent
//! records each child's slot checksum, so a child slot that is intact but stale (a
//! lost write) or belongs elsewhere is detected as corruption.

use super::node::{
    Branch, Bytes, Keys, Leaf, Node, NodeRef, TreeRoot, Value, BRANCH_HEADER_BYTES, CHILD_REF_BYTES,
    LEAF_HEADER_BYTES, OVERFLOW_REF_BYTES, TREE_REF_BYTES,
};
use crate::encoding::ByteReader;
use crate::page::DiskLoc;
use crate::error::{CorruptionKind, Error, Result};
use crate::limits::{INLINE_VALUE_BYTES_MAX, KEY_BYTES_MAX, VALUE_BYTES_MAX};
use crate::page::PageType;

const KIND_INLINE: u8 = 0;
const KIND_OVERFLOW: u8 = 1;
const KIND_TREE: u8 = 2;
/// The smallest leaf entry: an empty key and an empty inline value.
const LEAF_ENTRY_BYTES_MIN: usize = 2 + 1 + 4;

const _: () = assert!(LEAF_HEADER_BYTES == 3 && BRANCH_HEADER_BYTES == 3 && CHILD_REF_BYTES == 16);
const _: () = assert!(OVERFLOW_REF_BYTES == 20 && TREE_REF_BYTES == 32);

/// Encodes a node whose children and large values are all on disk already.
/// Returns the page type to write it as.
pub fn encode(node: &Node) -> (PageType, Vec<u8>) {
    let mut out = Vec::with_capacity(node.encoded_bytes());
    match node {
        Node::Leaf(leaf) => {
            out.push(0);
            out.extend_from_slice(&(leaf.len() as u16).to_le_bytes());
            for (key, value) in leaf.entries() {
                out.extend_from_slice(&(key.len() as u16).to_le_bytes());
                match value {
                    Value::Bytes(bytes) => {
                        assert!(bytes.len() <= INLINE_VALUE_BYTES_MAX, "large value not written to overflow");
                        out.push(KIND_INLINE);
                        out.extend_from_slice(key);
                        out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
                        out.extend_from_slice(bytes);
                    }
                    Value::Overflow { first_page, len, hash } => {
                        out.push(KIND_OVERFLOW);
                        out.extend_from_slice(key);
                        out.extend_from_slice(&first_page.to_le_bytes());
                        out.extend_from_slice(&len.to_le_bytes());
                        out.extend_from_slice(&hash.to_le_bytes());
                    }
                    Value::Tree(tree) => {
                        out.push(KIND_TREE);
                        out.extend_from_slice(key);
                        let loc = tree.root.as_ref().map(|r| r.disk_loc().expect("subtree written before its parent"));
                        out.extend_from_slice(&loc.map_or(0, |l| l.page).to_le_bytes());
                        out.extend_from_slice(&loc.map_or(0, |l| l.checksum).to_le_bytes());
                        out.extend_from_slice(&tree.count.to_le_bytes());
                        out.extend_from_slice(&tree.lsn.to_le_bytes());
                    }
                }
            }
            assert_eq!(out.len(), node.encoded_bytes(), "a node encodes to the size it predicts (splits rely on it)");
            (PageType::Leaf, out)
        }
        Node::Branch(Branch { level, keys, children }) => {
            out.push(*level);
            out.extend_from_slice(&(children.len() as u16).to_le_bytes());
            for child in children {
                let loc = child.disk_loc().expect("child written before its parent");
                out.extend_from_slice(&loc.page.to_le_bytes());
                out.extend_from_slice(&loc.checksum.to_le_bytes());
            }
            for key in keys.iter() {
                out.extend_from_slice(&(key.len() as u16).to_le_bytes());
                out.extend_from_slice(key);
            }
            assert_eq!(out.len(), node.encoded_bytes(), "a node encodes to the size it predicts (splits rely on it)");
            (PageType::Branch, out)
        }
    }
}

/// Decodes a verified page's payload. Any inconsistency is corruption of `page`: a
/// checksummed slot can still hold nonsense if a buggy or foreign writer made it. So
/// besides the layout, what `encode` never writes is refused here, before anything
/// uses it: counts the payload cannot hold, keys over `KEY_BYTES_MAX` or not in
/// strictly ascending order, inline values over `INLINE_VALUE_BYTES_MAX`, overflow
/// values outside `INLINE_VALUE_BYTES_MAX + 1..=VALUE_BYTES_MAX` (the pager sizes its
/// read by that length), and an empty tree reference with a checksum.
///
/// The engine decodes through `decode_shared`; this copying form is the fuzz target's
/// (`decoders/btree_node.rs`).
#[cfg(feature = "testing")]
pub fn decode(page: u64, page_type: PageType, payload: &[u8]) -> Result<Node> {
    decode_shared(page, page_type, Bytes::copy_from_slice(payload))
}

/// `decode` of a payload already in a shared buffer: the leaf's inline values are
/// slices of it (one allocation for them all, however many there are), and its keys
/// are copied end to end into one more.
pub fn decode_shared(page: u64, page_type: PageType, payload: Bytes) -> Result<Node> {
    let bad = || Error::Corrupted { page, kind: CorruptionKind::Tree };
    if !matches!(page_type, PageType::Leaf | PageType::Branch) {
        return Err(Error::Corrupted { page, kind: CorruptionKind::PageType });
    }
    let mut r = ByteReader::new(&payload);
    let level = r.u8().ok_or_else(bad)?;
    let count = r.u16().ok_or_else(bad)? as usize;
    let node = match page_type {
        PageType::Leaf if level == 0 => {
            // The count is checked against the bytes left before it sizes anything.
            if count > payload.len() / LEAF_ENTRY_BYTES_MIN {
                return Err(bad());
            }
            let mut leaf = Leaf { keys: Keys::with_capacity(count, payload.len()), values: Vec::with_capacity(count) };
            for _ in 0..count {
                let key_len = r.u16().ok_or_else(bad)? as usize;
                let kind = r.u8().ok_or_else(bad)?;
                key_after(&mut r, key_len, &mut leaf.keys).ok_or_else(bad)?;
                let value = match kind {
                    KIND_INLINE => {
                        let len = r.u32().ok_or_else(bad)? as usize;
                        if len > INLINE_VALUE_BYTES_MAX {
                            return Err(bad());
                        }
                        let at = payload.len() - r.remaining();
                        r.take(len).ok_or_else(bad)?;
                        Value::Bytes(payload.slice(at..at + len))
                    }
                    KIND_OVERFLOW => {
                        let first_page = r.u64().ok_or_else(bad)?;
                        let len = r.u32().ok_or_else(bad)?;
                        if !(INLINE_VALUE_BYTES_MAX + 1..=VALUE_BYTES_MAX).contains(&(len as usize)) {
                            return Err(bad());
                        }
                        Value::Overflow { first_page, len, hash: r.u64().ok_or_else(bad)? }
                    }
                    KIND_TREE => {
                        let root_page = r.u64().ok_or_else(bad)?;
                        let checksum = r.u64().ok_or_else(bad)?;
                        let count = r.u64().ok_or_else(bad)?;
                        let lsn = r.u64().ok_or_else(bad)?;
                        if root_page == 0 && checksum != 0 {
                            return Err(bad());
                        }
                        let root = (root_page != 0).then_some(NodeRef::Disk(DiskLoc { page: root_page, checksum }));
                        Value::Tree(TreeRoot { root, count, lsn })
                    }
                    _ => return Err(bad()),
                };
                leaf.values.push(value);
            }
            // The keys' buffer was given a page's room: a cached leaf keeps only its keys'.
            leaf.keys = leaf.keys.fitted();
            Node::Leaf(leaf)
        }
        PageType::Branch if level >= 1 && count >= 1 => {
            if count > payload.len() / CHILD_REF_BYTES {
                return Err(bad());
            }
            let mut children = Vec::with_capacity(count);
            for _ in 0..count {
                let child_page = r.u64().ok_or_else(bad)?;
                let checksum = r.u64().ok_or_else(bad)?;
                children.push(NodeRef::Disk(DiskLoc { page: child_page, checksum }));
            }
            let mut keys = Keys::with_capacity(count - 1, r.remaining());
            for _ in 0..count - 1 {
                let key_len = r.u16().ok_or_else(bad)? as usize;
                key_after(&mut r, key_len, &mut keys).ok_or_else(bad)?;
            }
            Node::Branch(Branch { level, keys, children })
        }
        _ => return Err(Error::Corrupted { page, kind: CorruptionKind::PageType }),
    };
    if !r.is_done() {
        return Err(bad());
    }
    Ok(node)
}

/// Appends the next `key_len` bytes to `keys` if within the key limit and above the
/// last key.
fn key_after(r: &mut ByteReader, key_len: usize, keys: &mut Keys) -> Option<()> {
    if key_len > KEY_BYTES_MAX {
        return None;
    }
    let key = r.take(key_len)?;
    if keys.last().is_some_and(|previous| previous >= key) {
        return None;
    }
    keys.push(key);
    Some(())
}
