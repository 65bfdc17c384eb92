//! What every slot of a page file is, found by walking the raw bytes from the newest
//! meta record as `docs/format.md` lays them out (meta record, B-tree nodes, overflow
//! chains, space map chain), without the storage core's own decoders, so the
//! corruption tests aim at pages whose role they know independently.

use std::collections::BTreeMap;

pub const PAGE: usize = 4096;
const HEADER: usize = 32;

/// Where a slot sits in the structure. A slot reached several ways keeps the first
/// role found (the head's trees are walked before the pins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    Meta,
    /// A node of a root set (its leaves hold trees as values), by level.
    RootSet(u8),
    /// A node of the pin table (its leaves hold root sets as values), by level.
    PinTable(u8),
    /// A node of a data tree, by level: 0 leaf, 1 and up branches.
    Data(u8),
    OverflowFirst,
    OverflowNext,
    SpaceMapFirst,
    SpaceMapNext,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum TreeKind {
    RootSet,
    PinTable,
    Data,
}

fn u16_at(b: &[u8], at: usize) -> usize {
    u16::from_le_bytes(b[at..at + 2].try_into().unwrap()) as usize
}

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize
}

pub fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// A slot's payload (page header: type at 24, payload length at 28).
pub fn payload(file: &[u8], page: u64) -> &[u8] {
    let slot = &file[page as usize * PAGE..(page as usize + 1) * PAGE];
    &slot[HEADER..HEADER + u32_at(slot, 28)]
}

pub fn page_type(file: &[u8], page: u64) -> u8 {
    file[page as usize * PAGE + 24]
}

/// The meta slot holding the highest generation (payload offset 16).
pub fn newest_meta_slot(file: &[u8]) -> u64 {
    (0..2).max_by_key(|&slot| u64_at(payload(file, slot), 16)).unwrap()
}

/// Every slot the newest meta record reaches, with its role.
pub fn roles(file: &[u8]) -> BTreeMap<u64, Role> {
    let mut out = BTreeMap::from([(0, Role::Meta), (1, Role::Meta)]);
    let meta = payload(file, newest_meta_slot(file));
    walk_tree(file, u64_at(meta, 40), TreeKind::RootSet, &mut out);
    walk_tree(file, u64_at(meta, 72), TreeKind::PinTable, &mut out);
    let mut page = u64_at(meta, 104);
    let mut role = Role::SpaceMapFirst;
    while page != 0 {
        assert_eq!(page_type(file, page), 6, "space map chain page {page}");
        out.entry(page).or_insert(role);
        page = u64_at(payload(file, page), 0);
        role = Role::SpaceMapNext;
    }
    out
}

fn walk_tree(file: &[u8], root: u64, kind: TreeKind, out: &mut BTreeMap<u64, Role>) {
    if root == 0 || out.contains_key(&root) {
        return;
    }
    let body = payload(file, root);
    let level = body[0];
    let count = u16_at(body, 1);
    out.insert(
        root,
        match kind {
            TreeKind::RootSet => Role::RootSet(level),
            TreeKind::PinTable => Role::PinTable(level),
            TreeKind::Data => Role::Data(level),
        },
    );
    match page_type(file, root) {
        4 => {
            for i in 0..count {
                walk_tree(file, u64_at(body, 3 + 16 * i), kind, out);
            }
        }
        3 => {
            let mut at = 3;
            for _ in 0..count {
                let key_len = u16_at(body, at);
                let value_kind = body[at + 2];
                at += 3 + key_len;
                match value_kind {
                    0 => at += 4 + u32_at(body, at),
                    1 => {
                        walk_overflow(file, u64_at(body, at), out);
                        at += 20;
                    }
                    2 => {
                        let inner = match kind {
                            TreeKind::PinTable => TreeKind::RootSet,
                            _ => TreeKind::Data,
                        };
                        walk_tree(file, u64_at(body, at), inner, out);
                        at += 32;
                    }
                    other => panic!("page {root}: value kind {other}"),
                }
            }
        }
        other => panic!("page {root}: a tree node of type {other}"),
    }
}

fn walk_overflow(file: &[u8], first: u64, out: &mut BTreeMap<u64, Role>) {
    let mut page = first;
    let mut role = Role::OverflowFirst;
    while page != 0 {
        assert_eq!(page_type(file, page), 5, "overflow page {page}");
        out.entry(page).or_insert(role);
        page = u64_at(payload(file, page), 0);
        role = Role::OverflowNext;
    }
}

/// The slots of each role, lowest first.
pub fn by_role(roles: &BTreeMap<u64, Role>) -> BTreeMap<Role, Vec<u64>> {
    let mut out: BTreeMap<Role, Vec<u64>> = BTreeMap::new();
    for (&page, &role) in roles {
        out.entry(role).or_default().push(page);
    }
    out
}

/// The first page of the overflow chain each overflow page belongs to.
pub fn chain_starts(file: &[u8], roles: &BTreeMap<u64, Role>) -> BTreeMap<u64, u64> {
    let mut out = BTreeMap::new();
    for (&first, _) in roles.iter().filter(|(_, &r)| r == Role::OverflowFirst) {
        let mut page = first;
        while page != 0 {
            out.insert(page, first);
            page = u64_at(payload(file, page), 0);
        }
    }
    out
}

/// Whether `image` is an intact slot written for `page` (its checksum holds and it
/// names that page): what a stale or misdirected image must be to test more than the
/// checksum.
pub fn intact_for(image: &[u8], page: u64) -> bool {
    u64_at(image, 0) == xxhash_rust::xxh3::xxh3_64(&image[8..]) && u64_at(image, 8) == page
}

pub fn slot(file: &[u8], page: u64) -> &[u8] {
    &file[page as usize * PAGE..(page as usize + 1) * PAGE]
}
