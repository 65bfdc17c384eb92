//! Checkpoint, part one: writing a version's in-memory nodes to fresh page slots.
//!
//! Nodes are written children first, so a parent can record each child's page number
//! and checksum. A node written once keeps its page (`MemNode::written`), so nodes
//! shared by several versions or pins are written once. Pages reachable from the
//! previous meta are never overwritten: new nodes always go to the allocator tip.
//!
//! Part two, after the pages and the new meta are durable, is `swizzle`: replacing
//! written in-memory nodes by disk references, so their memory is released and later
//! reads go through the bounded page cache.
//!
//! # A full disk abandons a checkpoint, and that is safe
//!
//! When a slot write fails with ENOSPC/EDQUOT (`Error::StorageFull`), `write_version`
//! stops and the checkpoint is abandoned without fail-stop (`database.rs`): no meta
//! was written, so the durable state is the previous checkpoint plus the WAL, which
//! still holds every frame after it. The checkpoint is retried later (after a later
//! batch, or at close). Why that retry is sound:
//! - The node whose write failed was not marked written (`MemNode::written` is set
//!   only after its write returned), and its slot numbers are handed back to the
//!   allocator (`Pager::unallocate`), so the retry writes it again.
//! - Nodes written before the failure stay marked written and the retry reuses their
//!   slots without writing them again. Their bytes were accepted by `write_at` (in the
//!   page cache, dirty, not yet synced). The retry's `sync` (fdatasync of the whole
//!   page file) runs before its meta is written and makes every completed write of
//!   the file durable, those included, so the new meta never names a slot that is
//!   not on disk. This needs only that no `sync` failed in between (a failed fsync
//!   may drop dirty pages: that is fail-stop, never retried) and that a failed
//!   `write_at` never undoes an earlier, completed one (it does not: ENOSPC refuses the
//!   new blocks only). Until that meta exists nothing refers to those slots: they are
//!   past the allocator tip of every durable meta, so a crash in between loses
//!   nothing (recovery replays the WAL from the previous checkpoint).

use std::sync::Arc;

use crate::btree::{Node, NodeRef, TreeRoot, Value};
use crate::error::Result;
use crate::limits::INLINE_VALUE_BYTES_MAX;
use crate::pager::Pager;
use crate::version::Version;

/// Writes every unwritten node reachable from `version` (its trees and its pins).
/// Returns the number of pages written.
pub fn write_version(pager: &Pager, version: &Version, lsn: u64) -> Result<u64> {
    let mut pages = 0;
    write_tree(pager, &version.trees, lsn, &mut pages)?;
    write_tree(pager, &version.pins, lsn, &mut pages)?;
    Ok(pages)
}

fn write_tree(pager: &Pager, tree: &TreeRoot, lsn: u64, pages: &mut u64) -> Result<()> {
    match &tree.root {
        Some(root) => write_node(pager, root, lsn, pages),
        None => Ok(()),
    }
}

fn write_node(pager: &Pager, node: &NodeRef, lsn: u64, pages: &mut u64) -> Result<()> {
    let NodeRef::Mem(mem) = node else { return Ok(()) };
    if mem.written.get().is_some() {
        return Ok(());
    }
    let on_disk = match &mem.node {
        Node::Leaf(entries) => {
            let mut out = Vec::with_capacity(entries.len());
            for (key, value) in entries {
                let value = match value {
                    Value::Bytes(bytes) if bytes.len() > INLINE_VALUE_BYTES_MAX => {
                        let value = pager.write_overflow(bytes, lsn)?;
                        *pages += (bytes.len() as u64).div_ceil(4056);
                        value
                    }
                    Value::Tree(sub) => {
                        write_tree(pager, sub, lsn, pages)?;
                        value.clone()
                    }
                    other => other.clone(),
                };
                out.push((key.clone(), value));
            }
            Node::Leaf(out)
        }
        Node::Branch { level, keys, children } => {
            for child in children {
                write_node(pager, child, lsn, pages)?;
            }
            Node::Branch { level: *level, keys: keys.clone(), children: children.clone() }
        }
    };
    let loc = pager.write_node(on_disk, lsn)?;
    *pages += 1;
    // Only the checkpoint (serialised by its lock) writes nodes, so this is the first set.
    let _ = mem.written.set(loc);
    Ok(())
}

/// The same version with every written in-memory node replaced by its disk reference.
pub fn swizzle(version: &Version) -> Version {
    Version { lsn: version.lsn, trees: swizzle_tree(&version.trees), pins: swizzle_tree(&version.pins) }
}

fn swizzle_tree(tree: &TreeRoot) -> TreeRoot {
    TreeRoot { root: tree.root.as_ref().map(swizzle_node), count: tree.count, lsn: tree.lsn }
}

fn swizzle_node(node: &NodeRef) -> NodeRef {
    let NodeRef::Mem(mem) = node else { return node.clone() };
    if let Some(loc) = mem.written.get() {
        return NodeRef::Disk(*loc);
    }
    let rebuilt = match &mem.node {
        Node::Leaf(entries) => Node::Leaf(
            entries
                .iter()
                .map(|(key, value)| {
                    let value = match value {
                        Value::Tree(sub) => Value::Tree(swizzle_tree(sub)),
                        other => other.clone(),
                    };
                    (key.clone(), value)
                })
                .collect(),
        ),
        Node::Branch { level, keys, children } => {
            Node::Branch { level: *level, keys: keys.clone(), children: children.iter().map(swizzle_node).collect() }
        }
    };
    NodeRef::Mem(Arc::new(crate::btree::MemNode { node: rebuilt, written: Default::default() }))
}
