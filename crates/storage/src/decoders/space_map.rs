//! Target `space_map`: the bytes of a space map (`space/codec.rs`) through
//! `space::decode`, as read back from its chain of pages.
//!
//! Input: the encoded bytes as they are.

use super::{assert_alloc_bounded, measure};
use crate::limits::META_SLOTS;
use crate::space;

pub fn check_space_map(input: &[u8]) {
    let (result, allocated) = measure(|| space::decode(input));
    assert_alloc_bounded("space::decode", allocated, input.len());
    let Some(map) = result else { return };
    // What the books claim must add up: every slot below the tip is one thing.
    let stats = map.stats();
    assert!(stats.tip >= META_SLOTS, "a space map with tip {} accepted", stats.tip);
    assert_eq!(stats.live + stats.free + stats.pending + stats.releasing + META_SLOTS, stats.tip, "the slots do not add up: {stats:?}");
    let encoded = space::encode(&map);
    if encoded != input {
        let at = (0..input.len().min(encoded.len())).find(|&i| encoded[i] != input[i]);
        panic!("space::decode accepted a map that re-encodes to other bytes (first difference at {at:?})");
    }
}
