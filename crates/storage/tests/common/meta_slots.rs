//! Reading and rewriting the meta slots of a simulated directory, for tests that damage
//! or downgrade them (layouts: src/page/slot.rs, src/meta/record.rs).

use super::db_path;

pub const PAGE: usize = 4096;
pub const HEADER: usize = 32;

pub fn pages_path() -> std::path::PathBuf {
    db_path().join("pages")
}

pub fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

/// The meta slot holding the newest record, and its payload.
pub fn newest_meta(file: &[u8]) -> (usize, Vec<u8>) {
    (0..2)
        .map(|slot| {
            let at = slot * PAGE;
            let len = u32::from_le_bytes(file[at + 28..at + 32].try_into().unwrap()) as usize;
            (slot, file[at + HEADER..at + HEADER + len].to_vec())
        })
        .max_by_key(|(_, payload)| u64_at(payload, 16))
        .unwrap()
}

/// A full slot image, checksummed as src/page/slot.rs does.
pub fn slot_image(page_no: u64, lsn: u64, page_type: u8, payload: &[u8]) -> Vec<u8> {
    let mut slot = vec![0u8; PAGE];
    slot[8..16].copy_from_slice(&page_no.to_le_bytes());
    slot[16..24].copy_from_slice(&lsn.to_le_bytes());
    slot[24] = page_type;
    slot[25] = 1;
    slot[28..32].copy_from_slice(&(payload.len() as u32).to_le_bytes());
    slot[HEADER..HEADER + payload.len()].copy_from_slice(payload);
    let sum = xxhash_rust::xxh3::xxh3_64(&slot[8..]);
    slot[0..8].copy_from_slice(&sum.to_le_bytes());
    slot
}

