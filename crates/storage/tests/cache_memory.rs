//! The page cache keeps to its budget in memory actually held, not only in the bytes
//! of the pages it caches (docs/architecture.md, "Invariants", 7): a scan of a tree many
//! times the budget's size leaves the process holding no more than the budget. The
//! allocator of this test binary counts the bytes live, so the growth is measured, not
//! estimated. A decoded leaf holds more than its page (its keys copied into one buffer,
//! a slot per value, heads of the keys), most of all when entries are small.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::ops::Bound;
use std::sync::atomic::{AtomicIsize, Ordering};

use common::{commit, db_path, open, put, sim_options};
use storage::vfs::SimVfs;

/// The system allocator, counting the bytes live in the whole process.
struct LiveBytes;

static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for LiveBytes {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: LiveBytes = LiveBytes;

const BUDGET: usize = 2 << 20;

/// Bytes live after scanning all of a tree of `entries` entries (keys of `key_len`,
/// values of `value_len` bytes) with a cold cache, less those live before.
fn scan_growth(key_len: usize, value_len: usize, entries: usize) -> (isize, u64) {
    let vfs = SimVfs::new();
    let options = sim_options(&vfs, BUDGET);
    let db = open(&db_path(), &options);
    for chunk in (0..entries).collect::<Vec<_>>().chunks(5000) {
        let ops = chunk.iter().map(|&i| put("t", format!("{i:0key_len$}").as_bytes(), &vec![b'v'; value_len])).collect();
        db.commit_sync(commit(ops)).unwrap();
    }
    db.checkpoint().unwrap();
    drop(db);
    // Reopened: the cache starts empty and every leaf is read from its page.
    let db = open(&db_path(), &options);
    let snapshot = db.snapshot();
    let before = LIVE.load(Ordering::SeqCst);
    let mut seen = 0;
    let mut lower = Vec::new();
    loop {
        let bound = if seen == 0 { Bound::Unbounded } else { Bound::Excluded(lower.as_slice()) };
        let mut last = Vec::new();
        let got = snapshot.range_each(b"t", bound, Bound::Unbounded, false, 1000, &mut |key, _| last = key.to_vec()).unwrap();
        seen += got;
        lower = last;
        if got < 1000 {
            break;
        }
    }
    assert_eq!(seen, entries, "the scan read every entry");
    let growth = LIVE.load(Ordering::SeqCst) - before;
    let cached = db.stats().unwrap().cache.bytes;
    drop(snapshot);
    drop(db);
    (growth, cached)
}

#[test]
fn a_scan_holds_no_more_than_the_cache_budget() {
    // P12's rows (docs/performance.md), and small entries, where a value's slot and a
    // key's head weigh most against the bytes on the page.
    for (key_len, value_len, entries) in [(24, 180, 60_000), (8, 8, 400_000)] {
        let (growth, cached) = scan_growth(key_len, value_len, entries);
        let shape = format!("keys of {key_len} bytes, values of {value_len}");
        // The scan read many times the budget: the cache is full, not merely bounded.
        assert!(cached as usize > BUDGET * 9 / 10, "{shape}: the cache holds {cached} bytes of a {BUDGET}-byte budget");
        assert!(growth <= (BUDGET + BUDGET / 10) as isize, "{shape}: a scan left {growth} bytes live against a {BUDGET}-byte cache");
    }
}
