//! Target `page_slot`: a page slot image through `page::decode` (checksum, own number,
//! type, fields), then its payload through the decoder of its page type.
//!
//! Input: `flags: u8`, then the slot image, zero-padded (or cut) to `PAGE_BYTES`.
//! Flags bit 0 "seal": the checksum field is recomputed over the image before
//! decoding, so the fuzzer gets past the checksum to the field checks behind it. Bit 1
//! "misdirect": the slot is read as page `page_no ^ 1` instead of its own number.

use super::input::{mix, Input};
use super::{assert_alloc_bounded, btree_node, measure, meta_record};
use crate::encoding::checksum;
use crate::error::Error;
use crate::limits::PAGE_BYTES;
use crate::page::{self, PageType, PAGE_HEADER_BYTES, PAGE_PAYLOAD_BYTES_MAX};

const FLAG_SEAL: u8 = 1;
const FLAG_MISDIRECT: u8 = 2;
/// Payload positions altered per accepted slot, besides every header byte.
const PAYLOAD_ALTERATIONS: u64 = 16;

pub fn check_page_slot(input: &[u8]) {
    let mut input = Input::new(input);
    let flags = input.u8();
    let image = input.rest();
    let mut slot = vec![0u8; PAGE_BYTES];
    let used = image.len().min(PAGE_BYTES);
    slot[..used].copy_from_slice(&image[..used]);
    if flags & FLAG_SEAL != 0 {
        seal(&mut slot);
    }
    let own = u64::from_le_bytes(slot[8..16].try_into().expect("8 bytes"));
    let expected = if flags & FLAG_MISDIRECT != 0 { own ^ 1 } else { own };

    let (result, allocated) = measure(|| page::decode(expected, &slot));
    assert_alloc_bounded("page::decode", allocated, PAGE_BYTES);
    let page = match result {
        Ok(page) => page,
        Err(Error::Corrupted { page, .. }) => {
            assert_eq!(page, expected, "page::decode names page {page}, not the page read ({expected})");
            return;
        }
        Err(other) => panic!("page::decode failed with {other:?}, not a corruption error"),
    };
    assert_eq!(own, expected, "page::decode accepted slot {own} read as page {expected}");
    assert_eq!(page.page_no, expected);
    assert!(page.payload.len() <= PAGE_PAYLOAD_BYTES_MAX, "payload of {} bytes accepted", page.payload.len());
    assert_eq!(page.checksum, page::slot_checksum(&slot), "the checksum returned is not the slot's");

    let again = page::encode(page.page_no, page.lsn, page.page_type, &page.payload).expect("an accepted payload fits");
    if let Some(at) = (0..PAGE_BYTES).find(|&i| again[i] != slot[i]) {
        panic!(
            "page::decode accepted a slot that encode would not write: byte {at} is {:#04x}, encode writes {:#04x}",
            slot[at], again[at]
        );
    }

    for (at, delta) in alterations(page.checksum) {
        let mut altered = slot.clone();
        altered[at] ^= delta;
        match page::decode(expected, &altered) {
            Err(Error::Corrupted { page, .. }) if page == expected => {}
            other => panic!("slot altered at byte {at} (xor {delta:#04x}) was not refused: {other:?}"),
        }
    }

    match page.page_type {
        PageType::Meta => meta_record::check_meta(&page.payload),
        PageType::Leaf | PageType::Branch => btree_node::check_node(expected, page.page_type, &page.payload),
        // Raw is opaque; an overflow page's and a space map page's payloads are checked
        // along their chains (page/overflow.rs, space/chain.rs; the space_map target).
        PageType::Raw | PageType::Overflow | PageType::SpaceMap => {}
    }
}

/// Writes the checksum the slot's other bytes call for.
fn seal(slot: &mut [u8]) {
    let sum = checksum(&slot[8..]);
    slot[..8].copy_from_slice(&sum.to_le_bytes());
}

/// Every header byte, and payload positions picked from `seed`, each with a nonzero
/// xor mask.
fn alterations(seed: u64) -> Vec<(usize, u8)> {
    let header = (0..PAGE_HEADER_BYTES).map(|at| (at, 1u8 << (at % 8)));
    let payload = (0..PAYLOAD_ALTERATIONS).map(|i| {
        let r = mix(seed ^ i);
        let at = PAGE_HEADER_BYTES + (r % PAGE_PAYLOAD_BYTES_MAX as u64) as usize;
        (at, ((r >> 32) as u8).max(1))
    });
    header.chain(payload).collect()
}
