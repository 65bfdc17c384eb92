//! A page slot: the fixed-size unit of the page file.
//!
//! Layout of every slot (little-endian):
//!
//! | offset | bytes | field       | meaning                                                  |
//! |-------:|------:|-------------|----------------------------------------------------------|
//! |      0 |     8 | checksum    | xxh3_64 of bytes 8..PAGE_BYTES (header rest + payload)   |
//! |      8 |     8 | page_no     | the slot's own number; catches misdirected writes        |
//! |     16 |     8 | lsn         | LSN of the commit or checkpoint that wrote the slot      |
//! |     24 |     1 | page_type   | 1 meta, 2 raw, 3 leaf, 4 branch, 5 overflow, 6 space map |
//! |     25 |     1 | format      | slot format version, currently 1                         |
//! |     26 |     2 | reserved    | zero                                                     |
//! |     28 |     4 | payload_len | bytes of payload in use                                  |
//! |     32 |   ... | payload     | PAGE_BYTES - 32 bytes; unused tail is zero               |
//!
//! The checksum covers the whole slot except itself, so a flipped bit anywhere, a
//! zeroed slot, or a slot written to the wrong offset is detected before any byte of
//! it is used as data.

use crate::encoding::checksum;
use crate::error::{CorruptionKind, Error, Result};
use crate::limits::PAGE_BYTES;

pub const PAGE_HEADER_BYTES: usize = 32;
pub const PAGE_PAYLOAD_BYTES_MAX: usize = PAGE_BYTES - PAGE_HEADER_BYTES;
const FORMAT_VERSION: u8 = 1;

const OFFSET_CHECKSUM: usize = 0;
const OFFSET_PAGE_NO: usize = 8;
const OFFSET_LSN: usize = 16;
const OFFSET_PAGE_TYPE: usize = 24;
const OFFSET_FORMAT: usize = 25;
const OFFSET_RESERVED: usize = 26;
const OFFSET_PAYLOAD_LEN: usize = 28;

const _: () = assert!(OFFSET_PAYLOAD_LEN + 4 == PAGE_HEADER_BYTES);
const _: () = assert!(OFFSET_FORMAT + 1 == OFFSET_RESERVED && OFFSET_RESERVED + 2 == OFFSET_PAYLOAD_LEN);
const _: () = assert!(PAGE_HEADER_BYTES == 32);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum PageType {
    Meta = 1,
    /// Opaque bytes; used by tests and by pages whose owner keeps its own layout.
    Raw = 2,
    /// A B-tree leaf (`btree/node_codec.rs`).
    Leaf = 3,
    /// A B-tree branch (`btree/node_codec.rs`).
    Branch = 4,
    /// One page of a large value's chain (`overflow.rs`).
    Overflow = 5,
    /// One page of the space map's chain (`space/chain.rs`).
    SpaceMap = 6,
}

impl PageType {
    fn from_u8(value: u8) -> Option<PageType> {
        match value {
            1 => Some(PageType::Meta),
            2 => Some(PageType::Raw),
            3 => Some(PageType::Leaf),
            4 => Some(PageType::Branch),
            5 => Some(PageType::Overflow),
            6 => Some(PageType::SpaceMap),
            _ => None,
        }
    }
}

/// A verified page: header fields and the payload, never constructed from bad bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub page_no: u64,
    /// The slot's checksum; a parent records it to detect a stale child.
    pub checksum: u64,
    pub lsn: u64,
    pub page_type: PageType,
    pub payload: Vec<u8>,
}

/// Encodes a page into a full slot image.
pub fn encode(page_no: u64, lsn: u64, page_type: PageType, payload: &[u8]) -> Result<Vec<u8>> {
    if payload.len() > PAGE_PAYLOAD_BYTES_MAX {
        return Err(Error::InvalidArgument(format!(
            "page payload of {} bytes exceeds {PAGE_PAYLOAD_BYTES_MAX}",
            payload.len()
        )));
    }
    let mut slot = vec![0u8; PAGE_BYTES];
    slot[OFFSET_PAGE_NO..OFFSET_PAGE_NO + 8].copy_from_slice(&page_no.to_le_bytes());
    slot[OFFSET_LSN..OFFSET_LSN + 8].copy_from_slice(&lsn.to_le_bytes());
    slot[OFFSET_PAGE_TYPE] = page_type as u8;
    slot[OFFSET_FORMAT] = FORMAT_VERSION;
    slot[OFFSET_PAYLOAD_LEN..OFFSET_PAYLOAD_LEN + 4]
        .copy_from_slice(&(payload.len() as u32).to_le_bytes());
    slot[PAGE_HEADER_BYTES..PAGE_HEADER_BYTES + payload.len()].copy_from_slice(payload);
    let sum = checksum(&slot[OFFSET_PAGE_NO..]);
    slot[OFFSET_CHECKSUM..OFFSET_CHECKSUM + 8].copy_from_slice(&sum.to_le_bytes());
    Ok(slot)
}

/// Verifies a slot image read from `expected_page_no` and decodes it.
pub fn decode(expected_page_no: u64, slot: &[u8]) -> Result<Page> {
    assert_eq!(slot.len(), PAGE_BYTES, "a slot image is exactly one page");
    let corrupted = |kind| Error::Corrupted { page: expected_page_no, kind };
    let stored = read_u64(slot, OFFSET_CHECKSUM);
    if stored != checksum(&slot[OFFSET_PAGE_NO..]) {
        return Err(corrupted(CorruptionKind::Checksum));
    }
    if read_u64(slot, OFFSET_PAGE_NO) != expected_page_no {
        return Err(corrupted(CorruptionKind::PageNumber));
    }
    let page_type =
        PageType::from_u8(slot[OFFSET_PAGE_TYPE]).ok_or(corrupted(CorruptionKind::PageType))?;
    let payload_len = u32::from_le_bytes(
        slot[OFFSET_PAYLOAD_LEN..OFFSET_PAYLOAD_LEN + 4].try_into().expect("4 bytes"),
    ) as usize;
    // A checksummed slot with impossible fields was written by a buggy or foreign
    // writer; it is still corruption from the reader's point of view, never a panic.
    if slot[OFFSET_FORMAT] != FORMAT_VERSION || payload_len > PAGE_PAYLOAD_BYTES_MAX {
        return Err(corrupted(CorruptionKind::Checksum));
    }
    // Bytes `encode` writes as zero (reserved field, unused payload tail) must be
    // zero, so an accepted slot is exactly what `encode` writes for its fields.
    let reserved = &slot[OFFSET_RESERVED..OFFSET_PAYLOAD_LEN];
    let tail = &slot[PAGE_HEADER_BYTES + payload_len..];
    if reserved.iter().chain(tail).any(|&b| b != 0) {
        return Err(corrupted(CorruptionKind::Checksum));
    }
    Ok(Page {
        page_no: expected_page_no,
        checksum: stored,
        lsn: read_u64(slot, OFFSET_LSN),
        page_type,
        payload: slot[PAGE_HEADER_BYTES..PAGE_HEADER_BYTES + payload_len].to_vec(),
    })
}

/// The checksum stored in an encoded slot image.
pub fn slot_checksum(slot: &[u8]) -> u64 {
    read_u64(slot, OFFSET_CHECKSUM)
}

fn read_u64(bytes: &[u8], offset: usize) -> u64 {
    u64::from_le_bytes(bytes[offset..offset + 8].try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let slot = encode(7, 42, PageType::Raw, b"hello").unwrap();
        let page = decode(7, &slot).unwrap();
        assert_eq!(page.payload, b"hello");
        assert_eq!((page.page_no, page.lsn, page.page_type), (7, 42, PageType::Raw));
        assert_eq!(page.checksum, slot_checksum(&slot));
    }

    #[test]
    fn corruption_every_bit_flip_is_detected() {
        let slot = encode(3, 9, PageType::Raw, &[0xAB; 100]).unwrap();
        for bit in 0..PAGE_BYTES * 8 {
            let mut bad = slot.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            match decode(3, &bad) {
                Err(Error::Corrupted { page: 3, .. }) => {}
                other => panic!("bit {bit}: expected corruption, got {other:?}"),
            }
        }
    }

    #[test]
    fn corruption_misdirected_write_is_detected() {
        let slot = encode(5, 1, PageType::Raw, b"x").unwrap();
        match decode(6, &slot) {
            Err(Error::Corrupted { page: 6, kind: CorruptionKind::PageNumber }) => {}
            other => panic!("expected page-number corruption, got {other:?}"),
        }
    }

    #[test]
    fn corruption_zeroed_slot_is_detected() {
        assert!(matches!(
            decode(4, &vec![0u8; PAGE_BYTES]),
            Err(Error::Corrupted { page: 4, kind: CorruptionKind::Checksum })
        ));
    }

    #[test]
    fn oversize_payload_is_refused() {
        assert!(matches!(
            encode(2, 0, PageType::Raw, &vec![0u8; PAGE_PAYLOAD_BYTES_MAX + 1]),
            Err(Error::InvalidArgument(_))
        ));
    }
}
