//! R4 (docs/architecture.md, "Testing", "Claims and the tests that back them"):
//! intact page images in the wrong place, on the simulated file system.
//!
//! Stale images are older versions of the same database: the page file is copied
//! after each of its checkpoints, and a slot the last record reaches gets back the
//! bytes it held some checkpoints earlier (a lost write, or a write of the wrong
//! buffer). Checkpoints write over freed slots in place, so such a slot held another
//! valid page of this database, with its own checksum and its own page number:
//! only what the referrer recorded tells it apart (docs/format.md: a parent records
//! each child's slot checksum, the meta record the roots' and the space map's, each
//! space map page the next one's, and a leaf the hash of a large value whole).
//!
//! What each case must end in:
//! - a B-tree node: the read fails with `Corrupted { page, kind: Stale }` naming it,
//!   the corruption log holds `page:<n>`, and `verify` names the page;
//! - an overflow page: the read fails with `Corrupted` naming the page or, when the
//!   stale image is itself a plausible piece of a chain (only the value's hash tells),
//!   the chain's first page, with kind `stale`; reported and named by `verify` alike;
//! - a space map page: `stale`, reported; the open rebuilds the books and every read
//!   returns what was committed;
//! - a meta slot: one stale slot is a publish cut short, repaired at open with no data
//!   lost; both slots stale roll the record back, and the open then either replays
//!   the WAL from the older checkpoint to exactly what was committed, or fails with a
//!   typed corruption error (a stale page, or the WAL frames it needs are gone).
//!
//! Misdirected writes (an intact image of another slot) are `page_number` corruption
//! of the slot they landed in, for every role, meta slots included.
//!
//! Sizes: ages 1, 2, 3, 5 and 8 checkpoints; every live slot of every role whose
//! older image differs (a few hundred cases; the test prints them per role and fails
//! if a role has fewer than four); misdirected images: up to four slots of each role,
//! each from two sources.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::every_page_role::{self as rich, Expected};
use common::page_roles::{by_role, chain_starts, intact_for, roles, slot, Role, PAGE};
use common::db_path;
use storage::vfs::{CrashMode, SimVfs, Vfs};
use storage::{CorruptionKind, Database, Error};

/// Files after the last this many checkpoints are damaged...
const STATES: usize = 8;
/// ...each with the images its slots held up to this many checkpoints before.
const AGES_MAX: usize = 24;
/// Cases per role at most, spread over the candidates (states, slots, ages).
const CASES_PER_ROLE: usize = 40;
/// Ages of the older meta records put back.
const META_AGES: [usize; 7] = [1, 2, 3, 5, 8, 13, 21];

fn reported(db: &Database, page: u64) -> bool {
    db.stats().unwrap().corruption.iter().any(|r| r.page == Some(page) && r.id == format!("page:{page}"))
}

fn put_image(vfs: &SimVfs, page: u64, image: &[u8]) {
    vfs.write_raw(&rich::pages_path(), page * PAGE as u64, image);
}

/// Opens the damaged file and checks what `role` must end in; `named` are the pages
/// the error may name, `kind` its kind.
fn check(vfs: &SimVfs, expected: &Expected, role: Role, page: u64, named: &[u64], kind: CorruptionKind, context: &str) {
    let db = Database::open(&db_path(), rich::open_options(vfs)).unwrap_or_else(|e| panic!("{context}: open failed: {e:?}"));
    let read = rich::read_everything(&db);
    let problems = db.verify().unwrap_or_else(|e| panic!("{context}: verify failed: {e:?}")).problems;
    match role {
        Role::Meta => unreachable!("meta slots are checked on their own"),
        Role::SpaceMapFirst | Role::SpaceMapNext => {
            let got = read.unwrap_or_else(|e| panic!("{context}: the rebuilt books read: {e:?}"));
            assert!(got == *expected, "{context}: wrong data returned");
            let sentence = format!("space map: page {page} is corrupted ({} check failed)", kind.as_str());
            assert!(problems.iter().any(|p| p.starts_with(&sentence)), "{context}: verify: {problems:?}");
            assert!(reported(&db, page), "{context}: no report");
        }
        _ => {
            let at = match read {
                Err(Error::Corrupted { page: p, kind: k }) if named.contains(&p) && k == kind => p,
                Err(other) => panic!("{context}: expected {kind:?} naming one of {named:?}, got {other:?}"),
                Ok(got) => panic!("{context}: undetected ({})", if got == *expected { "same data" } else { "WRONG DATA" }),
            };
            let sentence = format!("page {at} is corrupted ({} check failed)", kind.as_str());
            assert!(problems.iter().any(|p| p.contains(&sentence)), "{context}: verify: {problems:?}");
            assert!(reported(&db, at), "{context}: no report");
        }
    }
}

struct Built {
    /// The durable directory after the last close.
    vfs: SimVfs,
    /// The page file after each checkpoint, oldest first, with what reads return then.
    history: Vec<(Vec<u8>, Expected)>,
    file: Vec<u8>,
    expected: Expected,
}

fn built() -> Built {
    let vfs = SimVfs::new();
    let mut history = Vec::new();
    let expected = rich::build(&vfs, |db, vfs| {
        history.push((vfs.read_raw(&rich::pages_path()).unwrap(), rich::read_everything(db).unwrap()));
    });
    let file = vfs.read_raw(&rich::pages_path()).unwrap();
    Built { vfs, history, file, expected }
}

/// A slot of the file after checkpoint `state`, and the image it held `age`
/// checkpoints earlier.
#[derive(Clone, Copy)]
struct Case {
    state: usize,
    age: usize,
    page: u64,
}

#[test]
fn corruption_stale_images_from_older_checkpoints_are_detected_in_every_role() {
    let Built { history, .. } = built();
    // Every slot a record reaches whose older image is another intact page, from the
    // last STATES records, each against the images of up to AGES_MAX records before.
    let mut candidates: BTreeMap<Role, Vec<Case>> = BTreeMap::new();
    let mut rewritten = 0;
    for state in history.len() - STATES..history.len() {
        let file = &history[state].0;
        for (&page, &role) in roles(file).iter().filter(|(&p, _)| p >= 2) {
            for age in 1..=AGES_MAX.min(state) {
                let old = &history[state - age].0;
                if (page as usize + 1) * PAGE > old.len() {
                    continue;
                }
                let (image, now) = (slot(old, page), slot(file, page));
                if image == now || !intact_for(image, page) {
                    continue;
                }
                // An overflow page written again with the same bytes (only its LSN, and
                // so its checksum, differ) reads the same, and nothing records its
                // checksum: not damage. Any other page's referrer records the checksum,
                // so such an image is stale all the same.
                if image[24..] == now[24..] && matches!(role, Role::OverflowFirst | Role::OverflowNext) {
                    rewritten += 1;
                    continue;
                }
                candidates.entry(role).or_default().push(Case { state, age, page });
            }
        }
    }
    let mut cases: BTreeMap<Role, (usize, BTreeSet<usize>)> = BTreeMap::new();
    let mut vfs_of: BTreeMap<usize, SimVfs> = BTreeMap::new();
    for (&role, all) in &candidates {
        for &Case { state, age, page } in all.iter().step_by(all.len().div_ceil(CASES_PER_ROLE)) {
            let (file, expected) = &history[state];
            let vfs = vfs_of.entry(state).or_insert_with(|| rich::pages_only(file));
            let image = slot(&history[state - age].0, page);
            let context = format!("{role:?} page {page} after checkpoint {state}, image {age} checkpoints old (page type {})", image[24]);
            // A leaf records only where an overflow chain starts and the value's hash:
            // a stale piece of a chain shows as the chain being stale.
            let named = match role {
                Role::OverflowFirst | Role::OverflowNext => vec![page, chain_starts(file, &roles(file))[&page]],
                _ => vec![page],
            };
            put_image(vfs, page, image);
            check(vfs, expected, role, page, &named, CorruptionKind::Stale, &context);
            put_image(vfs, page, slot(file, page));
            let entry = cases.entry(role).or_default();
            entry.0 += 1;
            entry.1.insert(age);
        }
    }
    let total: usize = cases.values().map(|c| c.0).sum();
    let summary: BTreeMap<Role, (usize, usize)> = cases.iter().map(|(&r, (n, ages))| (r, (*n, ages.len()))).collect();
    eprintln!("R4 stale images: {total} cases; per role (cases, distinct ages): {summary:?}; {rewritten} older overflow images with the same bytes skipped");
    let last = &history.last().unwrap().0;
    for role in by_role(&roles(last)).into_keys().filter(|&r| r != Role::Meta) {
        let (count, ages) = summary.get(&role).copied().unwrap_or((0, 0));
        assert!(count >= 4 && ages >= 2, "{role:?}: too few stale cases ({count} over {ages} ages): {summary:?}");
    }
}

#[test]
fn corruption_stale_meta_slots_are_repaired_or_refused_never_wrong() {
    let Built { vfs: built, history, file, expected } = built();
    let history: Vec<Vec<u8>> = history.into_iter().map(|(file, _)| file).collect();
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    for age in META_AGES {
        let old = &history[history.len() - age];
        assert_ne!(slot(old, 0), slot(&file, 0), "age {age}: an older record");
        // One slot stale: a publish cut short between its two writes. Open takes the
        // newer mirror and writes it over the stale one; nothing is lost.
        for stale in 0..2u64 {
            let vfs = rich::pages_only(&file);
            put_image(&vfs, stale, slot(old, stale));
            let db = Database::open(&db_path(), rich::open_options(&vfs)).unwrap();
            assert!(rich::read_everything(&db).unwrap() == expected, "age {age}, slot {stale}: wrong data");
            assert_eq!(db.verify().unwrap().problems, Vec::<String>::new(), "age {age}, slot {stale}");
            drop(db);
            let repaired = vfs.read_raw(&rich::pages_path()).unwrap();
            assert_eq!(slot(&repaired, stale), slot(&file, stale), "age {age}: slot {stale} holds the newest record again");
            *outcomes.entry("one slot: repaired".into()).or_default() += 1;
        }
        // Both slots stale: the record rolls back. The journal of the last in-place
        // checkpoint, if its cut did not reach the disk, still holds the newest record
        // and open redoes it; without it, open replays the WAL from the older
        // checkpoint, reading the older record's pages, which later checkpoints may have
        // written over. Either every acknowledged commit, or a typed corruption error,
        // never an older state.
        for journal in ["journal as left", "journal empty"] {
            let vfs = built.crash(CrashMode::DropUnsynced);
            put_image(&vfs, 0, slot(old, 0));
            put_image(&vfs, 1, slot(old, 1));
            if journal == "journal empty" {
                let file = vfs.open(&db_path().join("checkpoint.journal"), false).unwrap();
                file.set_len(0).unwrap();
                file.sync().unwrap();
            }
            let context = format!("both meta slots {age} checkpoints old, {journal}");
            let outcome = match Database::open(&db_path(), rich::open_options(&vfs)) {
                Err(err) if err.is_corruption() => "open refused (corruption)",
                Err(err) => panic!("{context}: open failed with {err:?}, not a corruption error"),
                Ok(db) => match rich::read_everything(&db) {
                    Ok(got) => {
                        assert!(got == expected, "{context}: WRONG DATA (an older state)");
                        "same content"
                    }
                    Err(err) if err.is_corruption() => "read refused (corruption)",
                    Err(err) => panic!("{context}: read failed with {err:?}"),
                },
            };
            *outcomes.entry(format!("both slots, {journal}: {outcome}")).or_default() += 1;
        }
    }
    eprintln!("R4 stale meta slots: {outcomes:?}");
    assert_eq!(outcomes.values().sum::<usize>(), META_AGES.len() * 4);
}

#[test]
fn corruption_images_written_to_the_wrong_slot_are_detected_in_every_role() {
    let Built { file, expected, .. } = built();
    let roles = roles(&file);
    let grouped = by_role(&roles);
    let live: Vec<u64> = roles.keys().copied().filter(|&p| p >= 2).collect();
    let vfs = rich::pages_only(&file);
    let mut cases: BTreeMap<Role, usize> = BTreeMap::new();
    for (&role, pages) in &grouped {
        let targets: Vec<u64> = pages.iter().copied().step_by((pages.len() / 4).max(1)).take(4).collect();
        for &page in &targets {
            // Another slot of the same role, and one of another role (for a meta slot,
            // its mirror and a data page).
            let same = pages.iter().copied().find(|&p| p != page).unwrap_or(if page == 0 { 1 } else { 0 });
            let other = live.iter().copied().find(|&p| roles[&p] != role).unwrap();
            for source in [same, other] {
                let context = format!("{role:?} page {page} holding the image of page {source}");
                put_image(&vfs, page, slot(&file, source));
                if role == Role::Meta {
                    let db = Database::open(&db_path(), rich::open_options(&vfs)).unwrap();
                    assert!(rich::read_everything(&db).unwrap() == expected, "{context}: wrong data");
                    let problems = db.verify().unwrap().problems;
                    let sentence = format!("meta slot {page}: page {page} is corrupted (page_number check failed)");
                    assert!(problems.contains(&sentence), "{context}: {problems:?}");
                } else {
                    check(&vfs, &expected, role, page, &[page], CorruptionKind::PageNumber, &context);
                }
                put_image(&vfs, page, slot(&file, page));
                *cases.entry(role).or_default() += 1;
            }
        }
    }
    eprintln!("R4 misdirected images: {} cases, by role {cases:?}", cases.values().sum::<usize>());
    for (role, pages) in &grouped {
        assert!(cases[role] >= 2 * pages.len().min(4), "{role:?}: {cases:?}");
    }
}
