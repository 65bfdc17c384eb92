//! Large values on pages: a value longer than `INLINE_VALUE_BYTES_MAX` is written to a
//! chain of overflow pages (page type 5). Its referrer (a B-tree leaf) records the
//! chain's first page, the value's length and the xxh3 of the whole value
//! ([`OverflowChain`]); the pager allocates the slots and reports what fails
//! (`pager/`). The layout is in `docs/format.md`, "Overflow pages".
//!
//! Payload of a chain page (little-endian):
//!
//! | offset | bytes | field     | meaning                                        |
//! |-------:|------:|-----------|------------------------------------------------|
//! |      0 |     8 | next_page | the next page of the chain, 0 on the last      |
//! |      8 |   ... | bytes     | the next 1 to `CHUNK_BYTES` bytes of the value |


use crate::encoding::checksum;
use crate::error::{CorruptionKind, Error, Result};
use crate::limits::VALUE_BYTES_MAX;
use crate::page::{self, PageType, PAGE_PAYLOAD_BYTES_MAX};
use crate::page::{PageFile, PageSink};

const HEADER_BYTES: usize = 8;
const CHUNK_BYTES: usize = PAGE_PAYLOAD_BYTES_MAX - HEADER_BYTES;

/// A large value as its referrer records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OverflowChain {
    pub first_page: u64,
    pub len: u32,
    /// xxh3 of the whole value: the only thing that vouches for the chain's pages together.
    pub hash: u64,
}

/// Slots the overflow chain of a value of `len` bytes takes.
pub fn overflow_pages(len: usize) -> u64 {
    len.div_ceil(CHUNK_BYTES).max(1) as u64
}

/// Writes `bytes` through `sink` to `pages` (exactly `overflow_pages(bytes.len())` slots,
/// in chain order) and returns the chain as its referrer records it.
pub fn write(sink: &mut dyn PageSink, pages: &[u64], bytes: &[u8], lsn: u64) -> Result<OverflowChain> {
    assert!(bytes.len() <= VALUE_BYTES_MAX, "value size checked before commit");
    assert_eq!(pages.len() as u64, overflow_pages(bytes.len()), "one slot per chunk");
    assert!(!bytes.is_empty(), "an empty value is never written to a chain (it is inline)");
    for (i, chunk) in bytes.chunks(CHUNK_BYTES).enumerate() {
        let next = pages.get(i + 1).copied().unwrap_or(0);
        assert!(next != pages[i], "a chain page never links to itself");
        let mut payload = Vec::with_capacity(HEADER_BYTES + chunk.len());
        payload.extend_from_slice(&next.to_le_bytes());
        payload.extend_from_slice(chunk);
        let slot = page::encode(pages[i], lsn, PageType::Overflow, &payload)?;
        sink.put(pages[i], &slot)?;
    }
    Ok(OverflowChain { first_page: pages[0], len: bytes.len() as u32, hash: checksum(bytes) })
}

/// Reads a chain from a file of `tip` slots, verifying the value whole against the
/// hash its referrer recorded; with `pages`, also lists the chain's slots, in order.
///
/// A chain's pages verify one by one (checksum, own number), but only the referrer's
/// hash of the whole value vouches for them together: no page records the checksum of
/// the next. So anything wrong beyond a page's own slot (a type, a length, a link that
/// does not fit) means some intact page of the chain is not the one the referrer meant,
/// a stale image, and which one cannot be told: the chain is reported stale, by its
/// first page (the one the referrer names), never a page the stale link led to.
pub fn read(file: &PageFile, tip: u64, chain: OverflowChain, mut pages: Option<&mut Vec<u64>>) -> Result<Vec<u8>> {
    let OverflowChain { first_page, len, hash } = chain;
    let len = len as usize;
    let stale = || Error::Corrupted { page: first_page, kind: CorruptionKind::Stale };
    let mut out = Vec::with_capacity(len);
    let mut page_no = first_page;
    while out.len() < len {
        if let Some(pages) = pages.as_deref_mut() {
            pages.push(page_no);
        }
        if page_no == 0 || page_no >= tip {
            return Err(stale());
        }
        let page = file.read(page_no)?;
        if page.page_type != PageType::Overflow || page.payload.len() < HEADER_BYTES {
            return Err(stale());
        }
        let next = u64::from_le_bytes(page.payload[..HEADER_BYTES].try_into().expect("8 bytes"));
        let chunk = &page.payload[HEADER_BYTES..];
        // The writer never writes an empty chunk; one would let a cycle loop forever.
        if chunk.is_empty() || chunk.len() > len - out.len() || (next == 0) != (out.len() + chunk.len() == len) {
            return Err(stale());
        }
        out.extend_from_slice(chunk);
        page_no = next;
    }
    if checksum(&out) != hash {
        // Every page verified and fits, but the whole is not what the referrer recorded.
        return Err(stale());
    }
    assert_eq!(out.len(), len, "no chunk is taken past the value's length");
    Ok(out)
}
