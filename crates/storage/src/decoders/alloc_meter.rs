//! Counts the bytes each thread asks the allocator for, so a property can bound what
//! a decoder allocates because of a length field. A binary opts in by installing
//! [`AllocMeter`] as its global allocator (the fuzz targets and the replay test do);
//! without it [`measure`] reports 0, and [`is_installed`] says so.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting the bytes requested on each thread.
pub struct AllocMeter;

thread_local! {
    // Const-initialised and without a destructor: safe to touch from the allocator.
    static REQUESTED: Cell<u64> = const { Cell::new(0) };
}

fn count(bytes: usize) {
    // During thread teardown the slot may be gone; those bytes are nobody's measure.
    let _ = REQUESTED.try_with(|c| c.set(c.get().wrapping_add(bytes as u64)));
}

fn requested() -> u64 {
    REQUESTED.try_with(Cell::get).unwrap_or(0)
}

unsafe impl GlobalAlloc for AllocMeter {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size.saturating_sub(layout.size()));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Runs `f` and returns its result with the bytes it requested from the allocator on
/// this thread (freed or not).
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let before = requested();
    let result = f();
    (result, requested().wrapping_sub(before))
}

/// Whether the running binary counts allocations (installed [`AllocMeter`]).
pub fn is_installed() -> bool {
    let (_, bytes) = measure(|| std::hint::black_box(Box::new([0u8; 64])));
    bytes >= 64
}
