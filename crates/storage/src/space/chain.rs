//! The space map on disk: its bytes (`space/codec.rs`) across a chain of `SpaceMap`
//! pages, the first named by the meta record (`meta/record.rs`, `space_page`).
//!
//! Payload of a chain page (little-endian):
//!
//! | offset | bytes | field         | meaning                                         |
//! |-------:|------:|---------------|-------------------------------------------------|
//! |      0 |     8 | next_page     | the next page of the chain, 0 on the last       |
//! |      8 |     8 | next_checksum | the next page's slot checksum, 0 on the last    |
//! |     16 |   ... | bytes         | the next part of the space map's encoding       |
//!
//! The chain is written last page first, so each page records the checksum of the one
//! after it, as a parent does its children: a stale or misdirected page anywhere in the
//! chain is detected. A chain may end in pages holding no bytes (written when the
//! encoding came out shorter than the slots first taken for it).

use crate::page::DiskLoc;
use crate::error::{CorruptionKind, Error, Result};
use crate::page::{self, PageType, PAGE_PAYLOAD_BYTES_MAX};
use crate::page::{PageFile, PageSink};
use crate::space::{self, SpaceMap};

const HEADER_BYTES: usize = 16;
const _: () = assert!(HEADER_BYTES == 8 + 8, "next_page, next_checksum");
const CHUNK_BYTES: usize = PAGE_PAYLOAD_BYTES_MAX - HEADER_BYTES;

/// Writes `books` (including the slots of the chain itself, counted as referenced:
/// the first by the meta record, each other by its predecessor) and returns where the
/// chain starts. Gives the free tail of the file back first (`trim_free_tail`), so the
/// map written is the one the file will have.
pub fn write(sink: &mut dyn PageSink, books: &mut SpaceMap, lsn: u64) -> Result<DiskLoc> {
    let mut pages: Vec<u64> = Vec::new();
    // Taking slots only ever shortens the encoding (a free range shrinks or goes; the
    // tip is fixed-width), so this ends once the slots taken hold the bytes.
    let bytes = loop {
        books.trim_free_tail();
        let bytes = space::encode(books);
        let needed = bytes.len().div_ceil(CHUNK_BYTES).max(1);
        if pages.len() >= needed {
            break bytes;
        }
        for _ in pages.len()..needed {
            let page = books.allocate().ok_or_else(|| Error::InvalidArgument("page file is full".into()))?;
            books.reference(page);
            pages.push(page);
        }
    };
    let mut next = DiskLoc { page: 0, checksum: 0 };
    for (i, &page) in pages.iter().enumerate().rev() {
        let chunk = bytes.get(i * CHUNK_BYTES..).map_or(&[][..], |rest| &rest[..rest.len().min(CHUNK_BYTES)]);
        let mut payload = Vec::with_capacity(HEADER_BYTES + chunk.len());
        payload.extend_from_slice(&next.page.to_le_bytes());
        payload.extend_from_slice(&next.checksum.to_le_bytes());
        payload.extend_from_slice(chunk);
        let slot = page::encode(page, lsn, PageType::SpaceMap, &payload)?;
        sink.put(page, &slot)?;
        next = DiskLoc { page, checksum: page::slot_checksum(&slot) };
    }
    assert_eq!(pages.first(), Some(&next.page), "the record names the chain's first page");
    Ok(next)
}

/// Reads the chain starting at `first` in a file of `tip` slots: the encoded bytes
/// and the chain's slots. Any page that fails its checks is `Corrupted` naming it.
pub fn read(file: &PageFile, first: DiskLoc, tip: u64) -> Result<(Vec<u8>, Vec<u64>)> {
    let mut bytes = Vec::new();
    let mut pages = Vec::new();
    let mut at = first;
    loop {
        let corrupted = |kind| Error::Corrupted { page: at.page, kind };
        // A chain longer than the file holds slots would have to visit one twice.
        if at.page < crate::limits::META_SLOTS || at.page >= tip || pages.len() as u64 >= tip {
            return Err(corrupted(CorruptionKind::Tree));
        }
        let page = file.read(at.page)?;
        if page.checksum != at.checksum {
            return Err(corrupted(CorruptionKind::Stale));
        }
        if page.page_type != PageType::SpaceMap || page.payload.len() < HEADER_BYTES {
            return Err(corrupted(CorruptionKind::PageType));
        }
        let next_page = u64::from_le_bytes(page.payload[0..8].try_into().expect("8 bytes"));
        let next_checksum = u64::from_le_bytes(page.payload[8..16].try_into().expect("8 bytes"));
        bytes.extend_from_slice(&page.payload[HEADER_BYTES..]);
        pages.push(at.page);
        if next_page == 0 {
            return Ok((bytes, pages));
        }
        at = DiskLoc { page: next_page, checksum: next_checksum };
    }
}

/// Reads and decodes the space map the meta record names; a map that does not decode
/// or disagrees with the record's tip is corruption of its first page.
pub fn load(file: &PageFile, first: DiskLoc, tip: u64) -> Result<SpaceMap> {
    let (bytes, _) = read(file, first, tip)?;
    match space::decode(&bytes) {
        Some(map) if map.tip() == tip => Ok(map),
        _ => Err(Error::Corrupted { page: first.page, kind: CorruptionKind::Tree }),
    }
}
