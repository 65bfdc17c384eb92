//! Target `meta_record`: a meta slot's payload through `Meta::decode`.
//!
//! Input: the payload as it is (a format-2 record is 120 bytes, a format-1 record 104;
//! any other length is refused).

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
    // A format-1 record (read, never written) re-encodes as format 2: the same fields,
    // the new format number, and no space map.
    let expected = if payload.len() == 104 {
        let mut v2 = payload.to_vec();
        v2[8..12].copy_from_slice(&2u32.to_le_bytes());
        v2.extend_from_slice(&[0; 16]);
        v2
    } else {
        payload.to_vec()
    };
    if encoded != expected {
        let at = (0..expected.len().min(encoded.len())).find(|&i| encoded[i] != expected[i]);
        panic!("Meta::decode accepted a record that re-encodes to other bytes (first difference at {at:?})");
    }
}
