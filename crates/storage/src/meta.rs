//! The meta record, kept in two alternating slots (pages 0 and 1). A publish writes
//! the slot that does not hold the newest record, so a torn meta write leaves the
//! previous one intact; open picks the valid slot with the highest generation.
//!
//! Payload layout of a meta slot (little-endian, inside the page slot's payload):
//!
//! | offset | bytes | field          | meaning                                     |
//! |-------:|------:|----------------|---------------------------------------------|
//! |      0 |     8 | magic          | ASCII `TENANTDB`                            |
//! |      8 |     4 | format         | directory format version, currently 1       |
//! |     12 |     4 | page_bytes     | slot size the directory was created with    |
//! |     16 |     8 | generation     | +1 per publish; the newest valid one wins   |
//! |     24 |     8 | page_count     | allocator tip: pages 0..page_count exist    |
//! |     32 |     8 | checkpoint_lsn | LSN up to which pages hold every commit     |

use crate::error::{CorruptionKind, Error, Result};
use crate::limits::{META_SLOTS, PAGE_BYTES};
use crate::page::PageType;
use crate::page_file::PageFile;

const MAGIC: &[u8; 8] = b"TENANTDB";
const FORMAT_VERSION: u32 = 1;
pub const META_BYTES: usize = 40;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    pub generation: u64,
    pub page_count: u64,
    pub checkpoint_lsn: u64,
}

impl Meta {
    pub fn initial() -> Meta {
        Meta { generation: 1, page_count: META_SLOTS, checkpoint_lsn: 0 }
    }

    fn slot(self) -> u64 {
        self.generation % META_SLOTS
    }

    fn encode(self) -> [u8; META_BYTES] {
        let mut bytes = [0u8; META_BYTES];
        bytes[0..8].copy_from_slice(MAGIC);
        bytes[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        bytes[12..16].copy_from_slice(&(PAGE_BYTES as u32).to_le_bytes());
        bytes[16..24].copy_from_slice(&self.generation.to_le_bytes());
        bytes[24..32].copy_from_slice(&self.page_count.to_le_bytes());
        bytes[32..40].copy_from_slice(&self.checkpoint_lsn.to_le_bytes());
        bytes
    }

    fn decode(bytes: &[u8]) -> Option<Meta> {
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().expect("8 bytes"));
        if bytes.len() != META_BYTES
            || &bytes[0..8] != MAGIC
            || u32_at(8) != FORMAT_VERSION
            || u32_at(12) as usize != PAGE_BYTES
        {
            return None;
        }
        let meta = Meta { generation: u64_at(16), page_count: u64_at(24), checkpoint_lsn: u64_at(32) };
        (meta.page_count >= META_SLOTS).then_some(meta)
    }

    /// Writes this record into its slot. The caller syncs.
    pub fn write(self, pages: &PageFile) -> Result<()> {
        pages.write(self.slot(), self.checkpoint_lsn, PageType::Meta, &self.encode())
    }

    /// Reads both slots and returns the newest valid record.
    pub fn read_newest(pages: &PageFile) -> Result<Meta> {
        (0..META_SLOTS)
            .filter_map(|slot| {
                let page = pages.read(slot).ok()?;
                let meta = (page.page_type == PageType::Meta).then(|| Meta::decode(&page.payload))??;
                (meta.slot() == slot).then_some(meta)
            })
            .max_by_key(|meta| meta.generation)
            .ok_or(Error::Corrupted { page: 0, kind: CorruptionKind::Meta })
    }
}

const _: () = assert!(META_BYTES == 40);
