//! R3 and R4 for the space map chain's later pages (docs/format.md, "Space map
//! chain"): each records nothing of itself, its predecessor records its checksum. A
//! chain of two pages needs a map of over 4 KiB: here 3 000 trees each copied once, so
//! 3 000 slots are counted twice (about 6 KiB of counts), then a few small commits,
//! each checkpointed, so the chain's pages move into slots older chains held.
//!
//! Each damage is followed by an open, a read of every tree and `verify`: the open
//! rebuilds the books from the pages, every read returns what was committed, the
//! corruption log holds the page, and `verify` names the space map and the page with
//! the kind of damage (`checksum` or another check for a flipped bit, `stale` for an
//! older image of the slot, `page_number` for another slot's image).
//!
//! Sizes: the 32 header bytes' lowest bits and 32 payload bits from a fixed seed of one
//! later chain page (64 flips; every bit with `TENANTDB_CORRUPTION_EVERY_BIT=1`), the
//! older images of every later chain page from each earlier checkpoint that left an
//! intact different one, and two misdirected images of each. A few seconds: each case
//! reads about 3 000 pages.

mod common;

use common::every_page_role::{self as rich, Expected};
use common::page_roles::{by_role, intact_for, roles, slot, Role, PAGE};
use common::{commit, db_path, put, Rng};
use storage::vfs::SimVfs;
use storage::{Database, Op};

const TREES: u64 = 3000;
const SMALL_COMMITS: u64 = 8;

fn name(prefix: &str, i: u64) -> Vec<u8> {
    format!("{prefix}{i:04}").into_bytes()
}

/// The database, its page file after each checkpoint, and what reads return at the end.
fn build() -> (Vec<Vec<u8>>, Expected) {
    let vfs = SimVfs::new();
    let db = Database::open(&db_path(), rich::open_options(&vfs)).unwrap();
    let mut history = Vec::new();
    let mut step = |ops: Vec<Op>| {
        db.commit_sync(commit(ops)).unwrap();
        db.checkpoint().unwrap();
        history.push(vfs.read_raw(&rich::pages_path()).unwrap());
    };
    let mut rng = Rng::new(3);
    step((0..TREES).map(|i| put(&String::from_utf8(name("s", i)).unwrap(), b"k", &rng.bytes(20))).collect());
    step((0..TREES).map(|i| Op::CopyTree { from: name("s", i), to: name("c", i) }).collect());
    for n in 0..SMALL_COMMITS {
        step(vec![put("x", &n.to_le_bytes(), &rng.bytes(20))]);
    }
    let expected = rich::read_everything(&db).unwrap();
    db.close().unwrap();
    (history, expected)
}

/// Opens the damaged file: rebuilt books, every read as committed, the page reported
/// and named by `verify` with `kind`, or with any kind when `kind` is `None`.
fn check(vfs: &SimVfs, expected: &Expected, page: u64, kind: Option<&str>, context: &str) {
    let db = Database::open(&db_path(), rich::open_options(vfs)).unwrap_or_else(|e| panic!("{context}: open failed: {e:?}"));
    let got = rich::read_everything(&db).unwrap_or_else(|e| panic!("{context}: the rebuilt books read: {e:?}"));
    assert!(got == *expected, "{context}: wrong data returned");
    let problems = db.verify().unwrap_or_else(|e| panic!("{context}: verify failed: {e:?}")).problems;
    let named = format!("space map: page {page} is corrupted ({}", kind.unwrap_or(""));
    assert!(problems.iter().any(|p| p.starts_with(&named)), "{context}: verify: {problems:?}");
    let reports = db.stats().unwrap().corruption;
    assert!(reports.iter().any(|r| r.page == Some(page)), "{context}: no report: {reports:?}");
}

#[test]
fn corruption_of_later_space_map_chain_pages_is_detected() {
    let (history, expected) = build();
    let file = history.last().unwrap().clone();
    let roles = roles(&file);
    let later = by_role(&roles).remove(&Role::SpaceMapNext).expect("a space map chain of more than one page");
    let vfs = rich::pages_only(&file);
    let set = |page: u64, image: &[u8]| vfs.write_raw(&rich::pages_path(), page * PAGE as u64, image);

    // Bit flips (R3) in the first later page.
    let page = later[0];
    let mut rng = Rng::new(page);
    let bits: Vec<usize> = if std::env::var("TENANTDB_CORRUPTION_EVERY_BIT").is_ok_and(|v| v == "1") {
        (0..PAGE * 8).collect()
    } else {
        (0..32).map(|byte| byte * 8).chain((0..32).map(|_| 256 + rng.below((PAGE * 8 - 256) as u64) as usize)).collect()
    };
    for &bit in &bits {
        let at = page as usize * PAGE + bit / 8;
        vfs.write_raw(&rich::pages_path(), at as u64, &[file[at] ^ (1 << (bit % 8))]);
        check(&vfs, &expected, page, None, &format!("SpaceMapNext page {page} bit {bit}"));
        vfs.write_raw(&rich::pages_path(), at as u64, &[file[at]]);
    }

    // Older images of each later page (R4: stale).
    let mut stale = 0;
    for &page in &later {
        for (age, old) in history.iter().rev().enumerate().skip(1) {
            let end = (page as usize + 1) * PAGE;
            // Older chain pages with the same bytes but another LSN count: the
            // predecessor records the checksum, which covers the LSN.
            if end > old.len() || slot(old, page) == slot(&file, page) || !intact_for(slot(old, page), page) {
                continue;
            }
            set(page, slot(old, page));
            check(&vfs, &expected, page, Some("stale"), &format!("SpaceMapNext page {page}, image {age} checkpoints old (page type {})", slot(old, page)[24]));
            set(page, slot(&file, page));
            stale += 1;
        }
    }

    // Images of other slots (R4: misdirected): the chain's first page and a tree page.
    let first = roles.iter().find(|(_, &r)| r == Role::SpaceMapFirst).map(|(&p, _)| p).unwrap();
    let tree_page = roles.iter().find(|(_, &r)| r == Role::Data(0)).map(|(&p, _)| p).unwrap();
    for &page in &later {
        for source in [first, tree_page] {
            set(page, slot(&file, source));
            check(&vfs, &expected, page, Some("page_number"), &format!("SpaceMapNext page {page} holding page {source}"));
            set(page, slot(&file, page));
        }
    }
    eprintln!("space map chain: {} later pages; {} flips, {stale} stale images, {} misdirected", later.len(), bits.len(), 2 * later.len());
    assert!(stale >= 4, "older chain pages were written over: {stale} stale cases");
}
