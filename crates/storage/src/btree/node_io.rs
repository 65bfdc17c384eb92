//! Nodes on pages: a node is read through the pager's cache, decoded by the node codec,
//! and written to a new slot and kept in the cache as written. The pager deals in pages;
//! this is where they become nodes (docs/architecture.md, "Storage layers").

use std::sync::Arc;

use super::node::{Bytes, Node, NODE_BYTES_MAX};
use super::node_codec;
use crate::page::DiskLoc;
use crate::error::Result;
use crate::page::Page;
use crate::page::PageSink;
use crate::pager::{DecodedPage, Pager};
use crate::space::SpaceMap;

impl DecodedPage for Node {
    fn decode(page: Page) -> Result<Node> {
        // The payload's buffer becomes the one the leaf's values are slices of.
        node_codec::decode_shared(page.page_no, page.page_type, page.payload.into())
    }

    fn memory_bytes(&self) -> usize {
        Node::memory_bytes(self)
    }
}

/// The node at `loc`, verified (the slot and the version its parent recorded) and decoded.
pub fn load_node(pager: &Pager, loc: DiskLoc) -> Result<Arc<Node>> {
    pager.load::<Node>(loc)
}

/// Writes a node whose children and large values are already on disk into a slot of
/// `books`, through `sink`, and keeps it in the cache as read back from its page.
/// Counting the references it holds is the caller's.
pub fn write_node(pager: &Pager, books: &mut SpaceMap, sink: &mut dyn PageSink, node: Node, lsn: u64) -> Result<DiskLoc> {
    let (page_type, payload) = node_codec::encode(&node);
    // Paired with the split (`ops.rs`): a node that fits its page is what gets written.
    assert!(payload.len() <= NODE_BYTES_MAX, "a node of {} bytes fits its page", payload.len());
    let loc = pager.write_page(books, sink, page_type, &payload, lsn)?;
    // Cached as a read would decode it: its values slices of this page's own buffer.
    // The node written may hold values shared with nodes it was copied from (slices of
    // their pages' buffers), which the cache would keep alive beyond its budget.
    let cached = node_codec::decode_shared(loc.page, page_type, Bytes::from(payload)).expect("a node just encoded decodes");
    debug_assert_eq!(cached.encoded_bytes(), node.encoded_bytes(), "a node decodes to what was written");
    drop(node);
    pager.cache(loc, Arc::new(cached));
    Ok(loc)
}
