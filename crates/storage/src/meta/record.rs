//! The meta record, kept twice (pages 0 and 1, mirrors). A publish writes slot 0, syncs,
//! then slot 1, syncs: a torn write leaves the other slot whole, and at rest both slots
//! hold the same record, so one damaged slot loses nothing. Open picks the valid slot
//! with the highest generation and, if the other holds a valid older record (a crash
//! between the writes), publishes the newest again so both hold it; a slot that fails
//! its checks is left for `verify` to report and the next publish to rewrite. A
//! read-only open writes nothing. (Format-1 directories alternated the slots; they
//! read the same way.)
//!
//! Payload layout of a meta slot (little-endian, inside the page slot's payload):
//!
//! | offset | bytes | field          | meaning                                       |
//! |-------:|------:|----------------|-----------------------------------------------|
//! |      0 |     8 | magic          | ASCII `TENANTDB`                              |
//! |      8 |     4 | format         | directory format version, currently 2         |
//! |     12 |     4 | page_bytes     | slot size the directory was created with      |
//! |     16 |     8 | generation     | +1 per publish; the newest valid one wins     |
//! |     24 |     8 | page_count     | allocator tip: pages 0..page_count exist      |
//! |     32 |     8 | checkpoint_lsn | the pages hold every commit up to this LSN    |
//! |     40 |    32 | trees          | root set: tree reference (below)              |
//! |     72 |    32 | pins           | pin table: tree reference (below)             |
//! |    104 |     8 | space_page     | first page of the space map chain (0: none)   |
//! |    112 |     8 | space_checksum | that page's checksum                          |
//!
//! A tree reference is `root_page: u64` (0 = empty), `root_checksum: u64`,
//! `count: u64`, `lsn: u64`, as in a leaf's tree value (`btree/node_codec.rs`).
//!
//! Format 1 (before free space was reused) is the same without the last two fields
//! (104 bytes): it is read as a record with no space map, which open rebuilds by
//! tracing the live pages (`trace.rs`). Its slots hold different generations, so
//! open publishes the newest again, as format 2 naming no space map; the next
//! checkpoint writes one. A record of another format or length is not a valid record.

use crate::btree::{NodeRef, TreeRoot};
use crate::page::DiskLoc;
use crate::error::{CorruptionKind, Error, Result};
use crate::limits::{META_SLOTS, PAGE_BYTES, PAGE_NO_MAX};
use crate::page::PageType;
use crate::page::PageFile;

const MAGIC: &[u8; 8] = b"TENANTDB";
const FORMAT_VERSION: u32 = 2;
/// The format before the space map; read, never written.
const FORMAT_VERSION_1: u32 = 1;
pub const META_BYTES: usize = 120;
const META_BYTES_V1: usize = 104;
const TREE_REF_BYTES: usize = 32;

#[derive(Debug, Clone)]
pub struct Meta {
    pub generation: u64,
    pub page_count: u64,
    pub checkpoint_lsn: u64,
    pub trees: TreeRoot,
    pub pins: TreeRoot,
    /// The space map chain's first page (`space/chain.rs`); none in a format-1 record
    /// or a new directory, whose space map open rebuilds by tracing.
    pub space: Option<DiskLoc>,
}

impl Meta {
    /// The record a new directory starts with, in both slots.
    pub fn initial() -> Meta {
        Meta::empty(0)
    }

    fn empty(generation: u64) -> Meta {
        Meta {
            generation,
            page_count: META_SLOTS,
            checkpoint_lsn: 0,
            trees: TreeRoot::default(),
            pins: TreeRoot::default(),
            space: None,
        }
    }

    pub(crate) fn encode(&self) -> Vec<u8> {
        // Paired with `decode`, which refuses (as corruption) a record breaking these.
        assert!((META_SLOTS..=PAGE_NO_MAX).contains(&self.page_count), "a record's page count is within the file's limits");
        let inside = |loc: Option<DiskLoc>| loc.is_none_or(|l| l.page >= META_SLOTS && l.page < self.page_count);
        assert!(inside(self.trees.root.as_ref().and_then(|r| r.disk_loc())), "a record's root set is inside its file");
        assert!(inside(self.pins.root.as_ref().and_then(|r| r.disk_loc())), "a record's pin table is inside its file");
        assert!(inside(self.space), "a record's space map is inside its file");
        let mut bytes = Vec::with_capacity(META_BYTES);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&(PAGE_BYTES as u32).to_le_bytes());
        bytes.extend_from_slice(&self.generation.to_le_bytes());
        bytes.extend_from_slice(&self.page_count.to_le_bytes());
        bytes.extend_from_slice(&self.checkpoint_lsn.to_le_bytes());
        encode_tree(&mut bytes, &self.trees);
        encode_tree(&mut bytes, &self.pins);
        bytes.extend_from_slice(&self.space.map_or(0, |l| l.page).to_le_bytes());
        bytes.extend_from_slice(&self.space.map_or(0, |l| l.checksum).to_le_bytes());
        assert_eq!(bytes.len(), META_BYTES, "a meta record has one size");
        bytes
    }

    pub(crate) fn decode(bytes: &[u8]) -> Option<Meta> {
        if bytes.len() < META_BYTES_V1 || &bytes[0..8] != MAGIC {
            return None;
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().expect("8 bytes"));
        let space = match (u32_at(8), bytes.len()) {
            (FORMAT_VERSION, META_BYTES) => {
                let (page, checksum) = (u64_at(104), u64_at(112));
                // `encode` writes 0 and 0 for no space map.
                if page == 0 && checksum != 0 {
                    return None;
                }
                (page != 0).then_some(DiskLoc { page, checksum })
            }
            (FORMAT_VERSION_1, META_BYTES_V1) => None,
            _ => return None,
        };
        if u32_at(12) as usize != PAGE_BYTES {
            return None;
        }
        let meta = Meta {
            generation: u64_at(16),
            page_count: u64_at(24),
            checkpoint_lsn: u64_at(32),
            trees: decode_tree(&bytes[40..72])?,
            pins: decode_tree(&bytes[72..104])?,
            space,
        };
        let inside = |loc: Option<DiskLoc>| loc.is_none_or(|l| l.page >= META_SLOTS && l.page < meta.page_count);
        let roots_inside = inside(meta.trees.root.as_ref().and_then(|r| r.disk_loc()))
            && inside(meta.pins.root.as_ref().and_then(|r| r.disk_loc()))
            && inside(meta.space);
        ((META_SLOTS..=PAGE_NO_MAX).contains(&meta.page_count) && roots_inside).then_some(meta)
    }

    /// Writes this record into slot 0, syncs, then slot 1, syncs: durable in both
    /// when it returns, and never torn in both.
    pub fn publish(&self, pages: &PageFile) -> Result<()> {
        for slot in 0..META_SLOTS {
            self.write_slot(pages, slot)?;
            pages.sync()?;
        }
        Ok(())
    }

    /// Writes this record into one slot. The caller syncs.
    pub fn write_slot(&self, pages: &PageFile, slot: u64) -> Result<()> {
        pages.write(slot, self.checkpoint_lsn, PageType::Meta, &self.encode()).map(|_| ())
    }

    /// Reads both slots and returns the newest valid record, and whether the other slot
    /// holds a valid but older record (a crash between the two writes of a publish,
    /// which open repairs). A slot that fails verification is skipped (a torn write
    /// looks the same) and left for `verify` to report; the next publish rewrites it.
    /// An I/O error is returned, never taken for a bad slot.
    pub fn read_newest(pages: &PageFile) -> Result<(Meta, bool)> {
        let mut records: Vec<Meta> = Vec::new();
        for slot in 0..META_SLOTS {
            let record = match pages.read(slot) {
                Ok(page) => (page.page_type == PageType::Meta).then(|| Meta::decode(&page.payload)).flatten(),
                Err(Error::Corrupted { .. }) => None,
                Err(err) => return Err(err),
            };
            records.extend(record);
        }
        let newest = records.iter().max_by_key(|m| m.generation).cloned();
        let newest = newest.ok_or(Error::Corrupted { page: 0, kind: CorruptionKind::Meta })?;
        let stale = records.iter().any(|m| m.generation < newest.generation);
        Ok((newest, stale))
    }
}

/// Problems with the meta slots, for verify: a slot that fails its checks. Open
/// treats such a slot like a torn meta write and uses the other one, so this is the
/// only place the damage shows.
pub fn check_slots(pages: &PageFile) -> Vec<String> {
    (0..META_SLOTS)
        .filter_map(|slot| {
            let problem = match pages.read(slot) {
                Err(err) => Some(err.to_string()),
                Ok(page) if page.page_type != PageType::Meta => Some("not a meta slot".to_string()),
                Ok(page) => match Meta::decode(&page.payload) {
                    None => Some("unreadable meta record".to_string()),
                    Some(_) => None,
                },
            };
            problem.map(|p| format!("meta slot {slot}: {p}"))
        })
        .collect()
}

fn encode_tree(out: &mut Vec<u8>, tree: &TreeRoot) {
    let loc = tree.root.as_ref().map(|r| r.disk_loc().expect("meta names only written trees"));
    out.extend_from_slice(&loc.map_or(0, |l| l.page).to_le_bytes());
    out.extend_from_slice(&loc.map_or(0, |l| l.checksum).to_le_bytes());
    out.extend_from_slice(&tree.count.to_le_bytes());
    out.extend_from_slice(&tree.lsn.to_le_bytes());
}

/// `None` for an empty tree (root page 0) with a nonzero checksum: `encode_tree`
/// writes 0 there, so those bytes were not written by it.
fn decode_tree(bytes: &[u8]) -> Option<TreeRoot> {
    let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().expect("8 bytes"));
    let (page, checksum) = (u64_at(0), u64_at(8));
    if page == 0 && checksum != 0 {
        return None;
    }
    Some(TreeRoot {
        root: (page != 0).then_some(NodeRef::Disk(DiskLoc { page, checksum })),
        count: u64_at(16),
        lsn: u64_at(24),
    })
}

const _: () = assert!(META_BYTES_V1 == 40 + 2 * TREE_REF_BYTES);
const _: () = assert!(META_BYTES == META_BYTES_V1 + 16);
