//! Target `btree_node`: a page payload through `btree::node_codec::decode`.
//!
//! Input: `selector: u8` (the page type the payload was found in: leaf, branch, meta,
//! raw, overflow, by `selector % 5`), then the payload, cut to `NODE_BYTES_MAX` as the
//! page decoder bounds it.

use super::input::Input;
use super::{assert_alloc_bounded, measure};
use crate::btree::{node_codec, Branch, Node, Value};
use crate::error::{CorruptionKind, Error};
use crate::limits::{INLINE_VALUE_BYTES_MAX, KEY_BYTES_MAX, PAGE_BYTES, VALUE_BYTES_MAX};
use crate::page::{PageType, PAGE_HEADER_BYTES};

const NODE_BYTES_MAX: usize = PAGE_BYTES - PAGE_HEADER_BYTES;
/// The page number the payload is said to come from (any will do; errors must name it).
const PAGE: u64 = 7;
const PAGE_TYPES: [PageType; 5] = [PageType::Leaf, PageType::Branch, PageType::Meta, PageType::Raw, PageType::Overflow];

pub fn check_btree_node(input: &[u8]) {
    let mut input = Input::new(input);
    let page_type = PAGE_TYPES[input.u8() as usize % PAGE_TYPES.len()];
    let payload = input.rest();
    check_node(PAGE, page_type, &payload[..payload.len().min(NODE_BYTES_MAX)]);
}

/// The node properties, for a payload read from `page` as `page_type`.
pub(super) fn check_node(page: u64, page_type: PageType, payload: &[u8]) {
    let (result, allocated) = measure(|| node_codec::decode(page, page_type, payload));
    assert_alloc_bounded("node_codec::decode", allocated, payload.len());
    let node = match result {
        Ok(node) => node,
        Err(Error::Corrupted { page: named, kind }) => {
            assert_eq!(named, page, "node_codec::decode names page {named}, not the page read ({page})");
            let expected = match page_type {
                PageType::Leaf | PageType::Branch => [CorruptionKind::Tree, CorruptionKind::PageType],
                _ => [CorruptionKind::PageType; 2],
            };
            assert!(expected.contains(&kind), "a {page_type:?} payload refused as {kind:?}");
            return;
        }
        Err(other) => panic!("node_codec::decode failed with {other:?}, not a corruption error"),
    };
    check_bounds(&node, page_type);
    let (encoded_type, encoded) = node_codec::encode(&node);
    assert_eq!(encoded_type, page_type, "a node decoded from a {page_type:?} page encodes as {encoded_type:?}");
    if encoded != payload {
        let at = (0..payload.len().min(encoded.len())).find(|&i| encoded[i] != payload[i]);
        panic!(
            "node_codec::decode accepted {} bytes that re-encode to {} other bytes (first difference at {at:?})",
            payload.len(),
            encoded.len()
        );
    }
}

/// What a node read from disk must satisfy before anything uses it: the limits of
/// `limits.rs` and the order of keys within the node.
fn check_bounds(node: &Node, page_type: PageType) {
    let key_ok = |key: &[u8]| assert!(key.len() <= KEY_BYTES_MAX, "a key of {} bytes accepted", key.len());
    let ascending = |keys: &mut dyn Iterator<Item = &[u8]>| {
        let keys: Vec<&[u8]> = keys.collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "keys accepted out of order");
    };
    match node {
        Node::Leaf(leaf) => {
            assert_eq!(page_type, PageType::Leaf, "a leaf decoded from a {page_type:?} page");
            assert_eq!(leaf.keys.len(), leaf.values.len(), "a leaf has a value per key");
            for (key, value) in leaf.entries() {
                key_ok(key);
                match value {
                    Value::Bytes(bytes) => assert!(
                        bytes.len() <= INLINE_VALUE_BYTES_MAX,
                        "an inline value of {} bytes accepted (limit {INLINE_VALUE_BYTES_MAX})",
                        bytes.len()
                    ),
                    Value::Overflow { len, .. } => assert!(
                        (INLINE_VALUE_BYTES_MAX + 1..=VALUE_BYTES_MAX).contains(&(*len as usize)),
                        "an overflow value of {len} bytes accepted (must be {}..={VALUE_BYTES_MAX})",
                        INLINE_VALUE_BYTES_MAX + 1
                    ),
                    Value::Tree(_) => {}
                }
            }
            ascending(&mut leaf.keys.iter());
        }
        Node::Branch(Branch { level, keys, children }) => {
            assert_eq!(page_type, PageType::Branch, "a branch decoded from a {page_type:?} page");
            assert!(*level >= 1, "a branch at level 0 accepted");
            assert_eq!(keys.len() + 1, children.len(), "a branch's separators do not match its children");
            keys.iter().for_each(key_ok);
            ascending(&mut keys.iter());
        }
    }
}
