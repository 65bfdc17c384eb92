//! R3 (docs/architecture.md, "Testing", "Claims and the tests that back them"):
//! single-bit flips in the page file, on the simulated file system, each followed by
//! an open, a read of everything (every tree of the head and of every pin, large
//! values included) and `verify`.
//!
//! What each flip must end in (docs/format.md, "Page slot", "Meta record", "Space map"):
//! - a B-tree node (data tree, root set, pin table; leaves and branches) or an overflow
//!   page: the read fails with `Error::Corrupted` naming that page (no wrong data is
//!   ever returned), the corruption log holds `page:<n>`, and `verify` names the page;
//! - a space map chain page: the open rebuilds the books from the pages, every read
//!   returns exactly what was committed, the log holds `page:<n>`, and `verify` names
//!   the space map and the page;
//! - a meta slot: the open takes the mirror record, every read returns exactly what was
//!   committed, and `verify` names the damaged slot.
//! Never a panic, never an operating error.
//!
//! Sizes (`common/soak.rs`): both meta slots of a small database, and one page of every
//! role `common/page_roles.rs` finds in a database with a three-level data tree
//! (`common/every_page_role.rs`: data leaf, branches at levels 1 and 2, root set leaf
//! and branch, pin table leaf and branch, first and later overflow pages, the space
//! map's page), each page with its 256 header bits and payload bits drawn from a fixed
//! seed.
//! - `npm test`: each meta slot's first 4 096 bits (its record and more) and every
//!   eighth bit after them (2 x 7 680 flips); 64 payload bits per page (3 200 flips).
//! - `TENANTDB_SOAK=1`: every bit of both meta slots (2 x 32 768 flips, about 18 s);
//!   256 payload bits per page (5 120 flips, about 35 s).
//! - `TENANTDB_CORRUPTION_EVERY_BIT=1`: every bit of each of those ten pages (327 680
//!   flips, about 40 minutes on one core: each costs an open, a read of about 500
//!   pages and a verify).
//! Every bit of every slot is also checked against the slot decoder alone by the
//! `src/page/slot.rs` unit test.

mod common;

use std::collections::BTreeMap;

use common::every_page_role::{self as rich, Expected};
use common::page_roles::{by_role, roles, Role, PAGE};
use common::soak::soak;
use common::{commit, db_path, put, Rng};
use storage::vfs::SimVfs;
use storage::{Database, Error, Op};

const HEADER_BITS: usize = 256;
/// The meta slot bits `npm test` flips all of; after them, every eighth.
const META_BITS_ALL: usize = 4096;

fn every_bit() -> bool {
    std::env::var("TENANTDB_CORRUPTION_EVERY_BIT").is_ok_and(|v| v == "1")
}

/// Writes the byte holding `bit` of `page` as it is in `file` with that bit flipped
/// (`flipped`), or as it is in `file`.
fn set_bit(vfs: &SimVfs, file: &[u8], page: u64, bit: usize, flipped: bool) {
    let at = page as usize * PAGE + bit / 8;
    let mask = if flipped { 1 << (bit % 8) } else { 0 };
    vfs.write_raw(&rich::pages_path(), at as u64, &[file[at] ^ mask]);
}

/// The bits of one page to flip: all of them, or the header and a seeded sample.
fn bits_of(page: u64) -> Vec<usize> {
    if every_bit() {
        return (0..PAGE * 8).collect();
    }
    let sampled_bits = HEADER_BITS + if soak() { 256 } else { 64 };
    let mut rng = Rng::new(page * 7 + 1);
    let mut bits: Vec<usize> = (0..HEADER_BITS).collect();
    let mut rest: Vec<usize> = (HEADER_BITS..PAGE * 8).collect();
    for i in 0..sampled_bits - HEADER_BITS {
        let j = i + rng.below((rest.len() - i) as u64) as usize;
        rest.swap(i, j);
    }
    bits.extend_from_slice(&rest[..sampled_bits - HEADER_BITS]);
    bits
}

fn reported(db: &Database, page: u64) -> bool {
    db.stats().unwrap().corruption.iter().any(|r| r.page == Some(page) && r.id == format!("page:{page}"))
}

/// Opens the damaged file and checks the outcome the module docs above give `role`.
fn check(vfs: &SimVfs, expected: &Expected, role: Role, page: u64, bit: usize) {
    let context = format!("{role:?} page {page} bit {bit}");
    let db = Database::open(&db_path(), rich::open_options(vfs)).unwrap_or_else(|e| panic!("{context}: open failed: {e:?}"));
    let read = rich::read_everything(&db);
    let problems = db.verify().unwrap_or_else(|e| panic!("{context}: verify failed: {e:?}")).problems;
    match role {
        Role::Meta => {
            let got = read.unwrap_or_else(|e| panic!("{context}: the mirror record reads: {e:?}"));
            assert!(got == *expected, "{context}: wrong data returned");
            assert!(problems.iter().any(|p| p.starts_with(&format!("meta slot {page}"))), "{context}: verify: {problems:?}");
        }
        Role::SpaceMapFirst | Role::SpaceMapNext => {
            let got = read.unwrap_or_else(|e| panic!("{context}: the rebuilt books read: {e:?}"));
            assert!(got == *expected, "{context}: wrong data returned");
            let named = format!("space map: page {page} is corrupted");
            assert!(problems.iter().any(|p| p.starts_with(&named)), "{context}: verify: {problems:?}");
            assert!(reported(&db, page), "{context}: no report");
        }
        _ => {
            match read {
                Err(Error::Corrupted { page: p, .. }) => assert_eq!(p, page, "{context}: another page named"),
                Err(other) => panic!("{context}: expected a corruption error, got {other:?}"),
                Ok(got) => panic!("{context}: undetected ({})", if got == *expected { "same data" } else { "WRONG DATA" }),
            }
            assert!(problems.iter().any(|p| p.contains(&format!("page {page} is corrupted"))), "{context}: verify: {problems:?}");
            assert!(reported(&db, page), "{context}: no report");
        }
    }
}

#[test]
fn corruption_bit_flips_in_a_page_of_every_role_are_detected() {
    let built = SimVfs::new();
    let expected = rich::build(&built, |_, _| {});
    let file = built.read_raw(&rich::pages_path()).unwrap();
    let roles = by_role(&roles(&file));
    let wanted = [
        Role::Data(0),
        Role::Data(1),
        Role::Data(2),
        Role::RootSet(0),
        Role::RootSet(1),
        Role::PinTable(0),
        Role::PinTable(1),
        Role::OverflowFirst,
        Role::OverflowNext,
        Role::SpaceMapFirst,
    ];
    for role in wanted {
        assert!(roles.contains_key(&role), "the database has a {role:?} page: {:?}", roles.keys().collect::<Vec<_>>());
    }
    let vfs = rich::pages_only(&file);
    let started = std::time::Instant::now();
    let mut flips: BTreeMap<Role, usize> = BTreeMap::new();
    for role in wanted {
        // A page in the middle of its role's slots (not always the lowest one).
        let pages = &roles[&role];
        let page = pages[pages.len() / 2];
        for bit in bits_of(page) {
            set_bit(&vfs, &file, page, bit, true);
            check(&vfs, &expected, role, page, bit);
            set_bit(&vfs, &file, page, bit, false);
            *flips.entry(role).or_default() += 1;
        }
    }
    eprintln!("R3 pages: {flips:?} flips in {:?}", started.elapsed());
    let per_page = if every_bit() { PAGE * 8 } else { HEADER_BITS + if soak() { 256 } else { 64 } };
    assert!(flips.len() == wanted.len() && flips.values().all(|&n| n == per_page), "{flips:?}");
    // Undamaged again: everything reads and verifies clean; the reports stay.
    let db = Database::open(&db_path(), rich::open_options(&vfs)).unwrap();
    assert!(rich::read_everything(&db).unwrap() == expected);
    assert!(db.verify().unwrap().problems.is_empty());
    assert!(db.stats().unwrap().corruption.len() >= wanted.len());
}

/// A small database whose record names a root set, a pin table and a space map.
fn small() -> (SimVfs, Vec<u8>, Expected) {
    let vfs = SimVfs::new();
    let db = Database::open(&db_path(), rich::open_options(&vfs)).unwrap();
    let mut rng = Rng::new(5);
    db.commit_sync(commit((0..20u8).map(|i| put("t", &[i], &rng.bytes(50))).collect())).unwrap();
    db.commit_sync(commit(vec![Op::Pin { name: b"p".to_vec() }, put("t", b"late", b"v")])).unwrap();
    db.close().unwrap();
    let file = vfs.read_raw(&rich::pages_path()).unwrap();
    let vfs = rich::pages_only(&file);
    let db = Database::open(&db_path(), rich::open_options(&vfs)).unwrap();
    let expected = rich::read_everything(&db).unwrap();
    assert_eq!((expected.head[&b"t"[..]].len(), expected.pins.len()), (21, 1));
    drop(db);
    (vfs, file, expected)
}

#[test]
fn corruption_every_bit_flip_in_either_meta_slot_falls_back_to_the_mirror() {
    let (vfs, file, expected) = small();
    let started = std::time::Instant::now();
    let mut flips = 0;
    let bits: Vec<usize> = (0..PAGE * 8).filter(|&bit| soak() || bit < META_BITS_ALL || bit % 8 == 0).collect();
    for slot in 0..2u64 {
        for &bit in &bits {
            set_bit(&vfs, &file, slot, bit, true);
            check(&vfs, &expected, Role::Meta, slot, bit);
            set_bit(&vfs, &file, slot, bit, false);
            flips += 1;
        }
    }
    eprintln!("R3 meta: {flips} flips in {:?}", started.elapsed());
    assert_eq!(flips, 2 * if soak() { PAGE * 8 } else { META_BITS_ALL + (PAGE * 8 - META_BITS_ALL) / 8 });
}
