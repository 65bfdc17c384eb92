//! A database whose checkpointed record reaches a slot of every role of
//! `page_roles.rs`: a data tree three levels deep (branches at levels 1 and 2), values
//! in overflow chains of several pages, a root set and a pin table each with a branch
//! (so leaves holding trees as values, and branches above them), pinned versions the
//! head no longer shares, and the space map (one page: a longer chain needs a map of
//! over 4 KiB, thousands of slots). The corruption tests damage its
//! pages and compare every read with the model kept here.

use std::collections::BTreeMap;

use super::{commit, db_path, put, Model, Rng};
use storage::vfs::{SimVfs, Vfs};
use storage::{Database, Op, Options};

pub const BIG: &str = "big";
const DOOMED: &str = "doomed";
const DOOMED_ROWS: u64 = 400;
/// Keys this long keep a branch's fan-out small (about 30), so 1 500 rows make a
/// third level.
const KEY_BYTES: usize = 100;
const ROWS: u64 = 1500;
/// Names this long fill a root set or pin table leaf with a few dozen entries, so a
/// few dozen trees or pins make a branch above the leaves.
const NAME_BYTES: usize = 200;
const SMALL_TREES: u64 = 40;
const PINS_PER_ROUND: u64 = 12;
const CHURN_ROUNDS: u64 = 10;
const PIN_ROUNDS: u64 = 4;
const UNPIN_ROUNDS: u64 = 6;
/// Values over 960 bytes live in overflow chains; this one takes three pages.
const LARGE_VALUE_BYTES: usize = 10_000;

/// The head's content, each pin's LSN, and the content of the version pinned at each
/// of those LSNs, as committed.
#[derive(PartialEq, Eq)]
pub struct Expected {
    pub head: Model,
    pub pins: BTreeMap<Vec<u8>, u64>,
    pub pinned: BTreeMap<u64, Model>,
}

pub fn big_key(i: u64) -> Vec<u8> {
    format!("{i:0width$}", width = KEY_BYTES).into_bytes()
}

fn long_name(prefix: &str, i: u64) -> String {
    format!("{prefix}{i:0width$}", width = NAME_BYTES - prefix.len())
}

fn options(vfs: &SimVfs) -> Options {
    // No automatic checkpoint: the tests decide where the records fall.
    Options { checkpoint_wal_bytes: u64::MAX, ..super::sim_options(vfs, 16 << 20) }
}

/// Commits the workload into a new database on `vfs`, checkpointing after each of its
/// 27 steps and calling `after_checkpoint` then; returns what every read must return.
/// The database is closed (its last checkpoint holds everything).
pub fn build(vfs: &SimVfs, mut after_checkpoint: impl FnMut(&Database, &SimVfs)) -> Expected {
    let db = Database::open(&db_path(), options(vfs)).expect("open");
    let mut rng = Rng::new(29);
    let mut step = |db: &Database, ops: Vec<Op>| {
        db.commit_sync(commit(ops)).expect("commit");
        db.checkpoint().expect("checkpoint");
        after_checkpoint(db, vfs);
    };
    for chunk in (0..ROWS).collect::<Vec<_>>().chunks(300) {
        let ops = chunk
            .iter()
            .map(|&i| {
                let len = if i % 97 == 0 { LARGE_VALUE_BYTES } else { 40 };
                put(BIG, &big_key(i), &rng.bytes(len))
            })
            .collect();
        step(&db, ops);
    }
    step(&db, (0..SMALL_TREES).map(|t| put(&long_name("small", t), b"k", &rng.bytes(30))).collect());
    // Rewrites checkpointed one by one: each frees the slots of the pages it replaces
    // (a path from a leaf to the root, root set pages, a large value's chain, the
    // space map), and the next writes over them in place, so many slots end up having
    // held several different pages of this database.
    for round in 0..CHURN_ROUNDS {
        step(&db, rewrite(&mut rng, round));
    }
    step(&db, vec![Op::Pin { name: b"first".to_vec() }]);
    // More pins of later versions, which keep pages of their own.
    for round in CHURN_ROUNDS..CHURN_ROUNDS + PIN_ROUNDS {
        let pins = (0..PINS_PER_ROUND).map(|p| Op::Pin { name: long_name(&format!("pin{round}-"), p).into_bytes() }).collect();
        step(&db, [rewrite(&mut rng, round), pins].concat());
    }
    // Rewrites that drop a pin each: the pin table and the pinned versions' pages are
    // written over in place too.
    for (i, round) in (CHURN_ROUNDS + PIN_ROUNDS..CHURN_ROUNDS + PIN_ROUNDS + UNPIN_ROUNDS).enumerate() {
        let mut ops = rewrite(&mut rng, round);
        ops.push(Op::Unpin { name: long_name(&format!("pin{CHURN_ROUNDS}-"), i as u64).into_bytes() });
        // A tree no pin holds, dropped two rounds later: its slots come free below the
        // tip, and the pin table and space map pages written after go there.
        match i {
            0 => ops.extend((0..DOOMED_ROWS).map(|k| put(DOOMED, &big_key(k), &rng.bytes(40)))),
            2 => ops.push(Op::DropTree { tree: DOOMED.into() }),
            _ => {}
        }
        step(&db, ops);
    }
    let expected = read_everything(&db).expect("an undamaged database reads");
    db.close().expect("close");
    expected
}

/// One round of rewrites: 40 rows across the big tree, a large value, one small tree
/// dropped and another made.
fn rewrite(rng: &mut Rng, round: u64) -> Vec<Op> {
    let mut ops: Vec<Op> = (0..40).map(|i| put(BIG, &big_key((i * 37 + round * 11) % ROWS), &rng.bytes(40))).collect();
    ops.push(put(BIG, &big_key(round % 15 * 97), &rng.bytes(LARGE_VALUE_BYTES)));
    ops.push(Op::DropTree { tree: long_name("small", round).into_bytes() });
    ops.push(put(&long_name("later", round), b"k", &rng.bytes(30)));
    ops
}

/// A new simulated file system holding only `pages` as the page file of
/// `db_path()`: no WAL to replay (the record holds every commit), so each open in a
/// damage loop reads the pages alone, quickly.
pub fn pages_only(pages: &[u8]) -> SimVfs {
    let vfs = SimVfs::new();
    let dir = db_path();
    vfs.create_private_dir(&dir).unwrap();
    let file = vfs.open(&dir.join("pages"), true).unwrap();
    file.write_at(pages, 0).unwrap();
    file.sync().unwrap();
    vfs.sync_dir(&dir).unwrap();
    vfs
}

pub fn open_options(vfs: &SimVfs) -> Options {
    options(vfs)
}

/// Every tree of the head and of every pin, read whole; the first error met, or the
/// content, which the caller compares with `Expected`. Pins taken at the same LSN
/// share their root set's page (one commit pinned them), so the entries below it are
/// read once per LSN; each pin's root set is read on its own.
pub fn read_everything(db: &Database) -> storage::Result<Expected> {
    let snapshot = db.snapshot();
    let head = try_read_all(&snapshot)?;
    let (mut pins, mut pinned) = (BTreeMap::new(), BTreeMap::new());
    for pin in snapshot.pins()? {
        let version = snapshot.pin(&pin.name)?.expect("a listed pin opens");
        pins.insert(pin.name, pin.lsn);
        match pinned.get(&pin.lsn) {
            Some(read) => {
                let read: &Model = read;
                let names: Vec<Vec<u8>> = version.trees()?.into_iter().map(|t| t.name).collect();
                assert!(names.iter().eq(read.keys()), "pins of LSN {} hold the same trees", pin.lsn);
            }
            None => {
                pinned.insert(pin.lsn, try_read_all(&version)?);
            }
        }
    }
    Ok(Expected { head, pins, pinned })
}

fn try_read_all(snapshot: &storage::Snapshot) -> storage::Result<Model> {
    let mut out = Model::new();
    for tree in snapshot.trees()? {
        let mut entries = BTreeMap::new();
        let mut last: Option<Vec<u8>> = None;
        loop {
            let lower = last.as_deref().map_or(std::ops::Bound::Unbounded, std::ops::Bound::Excluded);
            let batch = snapshot.range(&tree.name, lower, std::ops::Bound::Unbounded, false, 256)?;
            if batch.is_empty() {
                break;
            }
            for (k, v) in batch {
                last = Some(k.to_vec());
                entries.insert(k.to_vec(), v.to_vec());
            }
        }
        out.insert(tree.name, entries);
    }
    Ok(out)
}

pub fn pages_path() -> std::path::PathBuf {
    db_path().join("pages")
}
