//! The databases shared with other threads of the process, by number (`share.rs`,
//! docs/architecture.md "Every core"): the engine registers and forgets its own, and an
//! attaching thread looks one up.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// Shared databases by number. Entries are removed by `unshare` (the opener's close).
static SHARED: Mutex<Option<HashMap<u32, Arc<storage::Database>>>> = Mutex::new(None);
static NEXT: Mutex<u32> = Mutex::new(1);

fn with_map<T>(work: impl FnOnce(&mut HashMap<u32, Arc<storage::Database>>) -> T) -> T {
    // A panic elsewhere cannot leave the map half-changed: every change is one call.
    let mut guard = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
    work(guard.get_or_insert_with(HashMap::new))
}

/// Registers `db` for other threads to attach; returns its number.
pub fn share(db: &Arc<storage::Database>) -> u32 {
    let mut next = NEXT.lock().unwrap_or_else(PoisonError::into_inner);
    let id = *next;
    *next = next.wrapping_add(1).max(1);
    with_map(|map| map.insert(id, db.clone()));
    id
}

/// Forgets number `id`: engines attached already keep reading until they detach.
pub fn unshare(id: u32) {
    with_map(|map| map.remove(&id));
}

/// The database shared as `id`, if it still is.
pub fn shared(id: u32) -> Option<Arc<storage::Database>> {
    with_map(|map| map.get(&id).cloned())
}
