//! Target `meta_record`: a meta slot's payload through `Meta::decode`.
//!
//! Input: the payload as it is (the record is 104 bytes; any other length is refused).

use super::{assert_alloc_bounded, measure};
use crate::limits::{META_SLOTS, PAGE_NO_MAX};
use crate::meta::Meta;

pub fn check_meta_record(input: &[u8]) {
    check_meta(input);
}

pub(super) fn check_meta(payload: &[u8]) {
    let (result, allocated) = measure(|| Meta::decode(payload));
    assert_alloc_bounded("Meta::decode", allocated, payload.len());
    let Some(meta) = result else { return };
    assert!(
        (META_SLOTS..=PAGE_NO_MAX).contains(&meta.page_count),
        "a meta record with page_count {} accepted (must be {META_SLOTS}..={PAGE_NO_MAX})",
        meta.page_count
    );
    let encoded = meta.encode();
    if encoded != payload {
        let at = (0..payload.len().min(encoded.len())).find(|&i| encoded[i] != payload[i]);
        panic!("Meta::decode accepted a record that re-encodes to other bytes (first difference at {at:?})");
    }
}
