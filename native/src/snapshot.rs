//! A consistent view of the database at one LSN. Reads are synchronous: pages come
//! from memory or the page cache, and a range returns one bounded batch.
//!
//! A range batch is one Buffer of entries, each `key_len: u32 LE`, key,
//! `value_len: u32 LE`, value; `src/engine/` slices it without copying. A batched
//! point read takes its keys as one Buffer of `key_len: u32 LE`, key, and answers one
//! Buffer of `value_len: u32 LE` (0xFFFFFFFF: absent), value, in the keys' order. A diff batch is
//! one Buffer of entries, each `key_len: u32`, key, `before_len: u32`, before,
//! `after_len: u32`, after, where a length of 0xFFFFFFFF means absent. A range with
//! lookups is a range batch, then one `match_len: u32` (0xFFFFFFFF: absent), match per
//! entry in the same order, after a header of `entry_count: u32 LE`,
//! `matches_at: u32 LE` (the byte offset of the first match), written into a buffer
//! the caller passes and reuses. A range written into the caller's buffer is a range
//! batch after a header of `entry_count: u32 LE`.

use std::ops::Bound;
use std::sync::{Arc, Weak};

use napi::bindgen_prelude::{Buffer, BufferSlice};
use napi::Env;
use napi_derive::napi;

use crate::convert::TreeInfo;
use crate::error::to_js;
use crate::unwind::{self, Access, Stop};

#[napi]
pub struct Snapshot {
    /// `None` once released: the slots the version reaches may then be reused, so a
    /// read after that is refused rather than allowed to meet another page.
    inner: Option<storage::Snapshot>,
    /// The database a panic here stops (`unwind.rs`); a snapshot does not keep it open.
    db: Weak<storage::Database>,
}

impl Snapshot {
    pub(crate) fn new(db: &Arc<storage::Database>, inner: storage::Snapshot) -> Snapshot {
        Snapshot { inner: Some(inner), db: Arc::downgrade(db) }
    }

    fn inner(&self) -> storage::Result<&storage::Snapshot> {
        self.inner.as_ref().ok_or_else(|| storage::Error::InvalidArgument("the snapshot was released".into()))
    }

    /// Runs a read contained (`unwind.rs`) and maps its failure.
    fn call<T>(&self, env: &Env, entry: &'static str, read: impl FnOnce() -> storage::Result<T>) -> napi::Result<T> {
        unwind::run(Stop::Weak(&self.db), entry, Access::Read, read).map_err(|failure| to_js(env, failure))
    }
}

impl Drop for Snapshot {
    /// Collected: lets go of the version (`storage::Snapshot`'s own drop), contained, as
    /// the garbage collector's finalizer is an entry point too.
    fn drop(&mut self) {
        if let Some(inner) = self.inner.take() {
            let _ = unwind::contain(Stop::Weak(&self.db), "snapshot.drop", || drop(inner));
        }
    }
}

#[napi(object)]
pub struct RangeOptions {
    pub lower: Option<Buffer>,
    pub lower_inclusive: Option<bool>,
    pub upper: Option<Buffer>,
    pub upper_inclusive: Option<bool>,
    pub reverse: Option<bool>,
    pub limit: u32,
}

fn bound(key: &Option<Buffer>, inclusive: Option<bool>) -> Bound<&[u8]> {
    match key {
        None => Bound::Unbounded,
        Some(key) if inclusive.unwrap_or(true) => Bound::Included(key.as_ref()),
        Some(key) => Bound::Excluded(key.as_ref()),
    }
}

#[napi(object)]
pub struct DiffBatch {
    pub entries: Buffer,
    pub truncated: bool,
}

const ABSENT: u32 = u32::MAX;

/// The keys of a batched read, each `key_len: u32 LE`, key; `None` if the bytes end
/// inside a length or a key.
fn packed_keys(bytes: &[u8]) -> Option<Vec<&[u8]>> {
    let mut keys = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let (len, tail) = rest.split_first_chunk::<4>()?;
        let len = u32::from_le_bytes(*len) as usize;
        keys.push(tail.get(..len)?);
        rest = &tail[len..];
    }
    Some(keys)
}

/// Writes into the caller's buffer as far as it holds, and counts every byte: once a
/// write does not fit, none after it does (`at` only grows), so the buffer is either
/// complete or known to be too small.
struct SliceWriter<'a> {
    buf: &'a mut [u8],
    at: usize,
    /// Entries written so far.
    entries: usize,
}

impl SliceWriter<'_> {
    fn put(&mut self, bytes: &[u8]) {
        if let Some(slot) = self.buf.get_mut(self.at..self.at + bytes.len()) {
            slot.copy_from_slice(bytes);
        }
        self.at += bytes.len();
    }

    /// One entry, as push_entry lays it out.
    fn entry(&mut self, key: &[u8], value: &[u8]) {
        self.entries += 1;
        self.put(&(key.len() as u32).to_le_bytes());
        self.put(key);
        self.put(&(value.len() as u32).to_le_bytes());
        self.put(value);
    }

    /// One match, as push_match lays it out.
    fn matched(&mut self, value: Option<&[u8]>) {
        match value {
            Some(value) => {
                self.put(&(value.len() as u32).to_le_bytes());
                self.put(value);
            }
            None => self.put(&ABSENT.to_le_bytes()),
        }
    }
}

/// One entry of a range batch.
fn push_entry(out: &mut Vec<u8>, key: &[u8], value: &[u8]) {
    out.reserve(8 + key.len() + value.len());
    out.extend_from_slice(&(key.len() as u32).to_le_bytes());
    out.extend_from_slice(key);
    out.extend_from_slice(&(value.len() as u32).to_le_bytes());
    out.extend_from_slice(value);
}

/// One value of a batched read (or a lookup's match), or its absence.
fn push_match(out: &mut Vec<u8>, value: Option<&[u8]>) {
    match value {
        Some(value) => {
            out.reserve(4 + value.len());
            out.extend_from_slice(&(value.len() as u32).to_le_bytes());
            out.extend_from_slice(value);
        }
        None => out.extend_from_slice(&ABSENT.to_le_bytes()),
    }
}

/// `get_into`'s result: the length copied, or `-2 - length` when `out` is too small.
fn copy_into(value: &[u8], out: &mut [u8]) -> i64 {
    match out.get_mut(..value.len()) {
        Some(slot) => {
            slot.copy_from_slice(value);
            value.len() as i64
        }
        None => -2 - value.len() as i64,
    }
}

#[napi]
impl Snapshot {
    /// Up to `limit` differences of `tree` from this snapshot to `newer`, in key order.
    #[napi]
    pub fn diff(&self, env: &Env, newer: &Snapshot, tree: Buffer, limit: u32, newer_tree: Option<Buffer>) -> napi::Result<DiffBatch> {
        self.call(env, "snapshot.diff", || {
            let newer_tree = newer_tree.as_deref().unwrap_or(&tree);
            let (diffs, truncated) = self.inner()?.diff_trees(&tree, newer.inner()?, newer_tree, limit as usize)?;
            let mut out = Vec::new();
            for d in diffs {
                out.extend_from_slice(&(d.key.len() as u32).to_le_bytes());
                out.extend_from_slice(&d.key);
                for side in [&d.before, &d.after] {
                    match side {
                        Some(value) => {
                            out.extend_from_slice(&(value.len() as u32).to_le_bytes());
                            out.extend_from_slice(value);
                        }
                        None => out.extend_from_slice(&ABSENT.to_le_bytes()),
                    }
                }
            }
            Ok(DiffBatch { entries: Buffer::from(out), truncated })
        })
    }

    /// LSN of the last commit this snapshot contains.
    #[napi(getter)]
    pub fn lsn(&self, env: &Env) -> napi::Result<i64> {
        self.call(env, "snapshot.lsn", || Ok(self.inner()?.lsn() as i64))
    }

    /// The generation of the newest meta record when it was taken: while it lives, the
    /// slots freed since cannot be reused.
    #[napi(getter)]
    pub fn epoch(&self, env: &Env) -> napi::Result<f64> {
        self.call(env, "snapshot.epoch", || Ok(self.inner()?.epoch() as f64))
    }

    /// Lets go of the version now rather than when the object is collected: the
    /// slots only it reaches become reusable (`storage::Snapshot`). Later reads fail.
    #[napi]
    pub fn release(&mut self, env: &Env) -> napi::Result<()> {
        let inner = self.inner.take();
        self.call(env, "snapshot.release", || {
            drop(inner);
            Ok(())
        })
    }

    /// Copies the value of `key` into `out` and returns its length; -1 when absent;
    /// `-2 - length` when `out` is too small (the caller retries with a larger one).
    /// Writing into the caller's buffer spares a JS object and its finalizer per read;
    /// BufferSlice arguments take no references.
    #[napi]
    pub fn get_into(&self, env: &Env, tree: BufferSlice, key: BufferSlice, mut out: BufferSlice) -> napi::Result<i64> {
        self.call(env, "snapshot.getInto", || {
            let value = self.inner()?.get(&tree, &key)?;
            Ok(value.map_or(-1, |value| copy_into(&value, &mut out)))
        })
    }

    /// The values of many keys of `tree` in one call (see the module comment for both
    /// layouts): a lookup reads a whole batch of rows' matches without a call per row.
    #[napi]
    pub fn get_many(&self, env: &Env, tree: BufferSlice, keys: BufferSlice) -> napi::Result<Buffer> {
        self.call(env, "snapshot.getMany", || {
            let keys = packed_keys(&keys).ok_or_else(|| storage::Error::InvalidArgument("malformed batch of keys".into()))?;
            let mut out = Vec::new();
            self.inner()?.get_each(&tree, &keys, &mut |value| push_match(&mut out, value))?;
            Ok(Buffer::from(out))
        })
    }

    /// A range of `tree` with, for each entry, the value of `other` under the key that
    /// field `field` of the entry's row names (`rowkey::field_key`; none: absent), in
    /// one call: a lookup by primary key straight after a range read
    /// (src/query/exec/lookup.ts) costs no key encoding and no second crossing per batch.
    /// Written into `out` (reused by the caller: a fresh buffer per batch cost page
    /// faults and a finalizer each, profiled); returns the bytes the batch takes, and
    /// when that is more than `out` holds, `out` is left incomplete and the caller asks
    /// again with room enough (the snapshot answers the same).
    #[napi]
    pub fn range_lookup_into(&self, env: &Env, tree: BufferSlice, options: RangeOptions, field: BufferSlice, other: BufferSlice, mut out: BufferSlice) -> napi::Result<i64> {
        self.call(env, "snapshot.rangeLookupInto", || {
            let lower = bound(&options.lower, options.lower_inclusive);
            let upper = bound(&options.upper, options.upper_inclusive);
            let limit = (options.limit as usize).min(storage::limits::RANGE_BATCH_ENTRIES_MAX);
            let snapshot = self.inner()?;
            let mut writer = SliceWriter { buf: &mut out, at: 8, entries: 0 };
            let mut key_bytes = Vec::new();
            let mut key_ends = Vec::with_capacity(limit);
            // The entry each key is of: a row without a key (no such field, null) is not looked up.
            let mut keyed = Vec::with_capacity(limit);
            let count = snapshot
                .range_each(&tree, lower, upper, options.reverse.unwrap_or(false), limit, &mut |key, value| {
                    if rowkey::field_key(value, &field, &mut key_bytes) {
                        key_ends.push(key_bytes.len());
                        keyed.push(writer.entries);
                    }
                    writer.entry(key, value);
                })?;
            let matches_at = writer.at;
            let mut start = 0;
            let keys: Vec<&[u8]> = key_ends
                .iter()
                .map(|&end| {
                    let key = &key_bytes[start..end];
                    start = end;
                    key
                })
                .collect();
            // Matches in entry order: the entries without a key before each keyed one are absent.
            let (mut next, mut asked) = (0, 0);
            snapshot
                .get_each(&other, &keys, &mut |value| {
                    for _ in next..keyed[asked] {
                        writer.matched(None);
                    }
                    writer.matched(value);
                    next = keyed[asked] + 1;
                    asked += 1;
                })?;
            for _ in next..count {
                writer.matched(None);
            }
            let header = |n: usize| u32::try_from(n).map_err(|_| storage::Error::InvalidArgument("a range with lookups over 4 GiB; ask for fewer entries".into()));
            let (count, matches_at) = (header(count)?, header(matches_at)?);
            let total = writer.at;
            if let Some(head) = writer.buf.get_mut(..8) {
                head[..4].copy_from_slice(&count.to_le_bytes());
                head[4..].copy_from_slice(&matches_at.to_le_bytes());
            }
            Ok(total as i64)
        })
    }

    /// `range` written into `out` (reused by the caller, as `range_lookup_into`'s: a
    /// fresh Buffer per batch cost an allocation of the batch's size, and its release
    /// waited for the garbage collector, docs/performance.md, P12); returns the bytes the
    /// batch takes, and when that is more than `out` holds, `out` is left incomplete
    /// and the caller asks again with room enough (the snapshot answers the same).
    #[napi]
    pub fn range_into(&self, env: &Env, tree: BufferSlice, options: RangeOptions, mut out: BufferSlice) -> napi::Result<i64> {
        self.call(env, "snapshot.rangeInto", || {
            let lower = bound(&options.lower, options.lower_inclusive);
            let upper = bound(&options.upper, options.upper_inclusive);
            let limit = (options.limit as usize).min(storage::limits::RANGE_BATCH_ENTRIES_MAX);
            let mut writer = SliceWriter { buf: &mut out, at: 4, entries: 0 };
            let count = self.inner()?.range_each(&tree, lower, upper, options.reverse.unwrap_or(false), limit, &mut |key, value| writer.entry(key, value))?;
            let total = writer.at;
            u32::try_from(total).map_err(|_| storage::Error::InvalidArgument("a range batch over 4 GiB; ask for fewer entries".into()))?;
            if let Some(head) = writer.buf.get_mut(..4) {
                head.copy_from_slice(&(count as u32).to_le_bytes());
            }
            Ok(total as i64)
        })
    }

    /// One batch of entries within the bounds (see the module comment for its layout).
    #[napi]
    pub fn range(&self, env: &Env, tree: Buffer, options: RangeOptions) -> napi::Result<Buffer> {
        self.call(env, "snapshot.range", || {
            let lower = bound(&options.lower, options.lower_inclusive);
            let upper = bound(&options.upper, options.upper_inclusive);
            let limit = (options.limit as usize).min(storage::limits::RANGE_BATCH_ENTRIES_MAX);
            let mut out = Vec::new();
            // Each entry is copied from its node straight into the batch: no allocation per entry.
            self.inner()?.range_each(&tree, lower, upper, options.reverse.unwrap_or(false), limit, &mut |key, value| push_entry(&mut out, key, value))?;
            Ok(Buffer::from(out))
        })
    }

    /// Every tree with its entry count and the LSN of its last change.
    #[napi]
    pub fn trees(&self, env: &Env) -> napi::Result<Vec<TreeInfo>> {
        self.call(env, "snapshot.trees", || Ok(self.inner()?.trees()?.into_iter().map(TreeInfo::from).collect()))
    }

    #[napi]
    pub fn tree_info(&self, env: &Env, name: Buffer) -> napi::Result<Option<TreeInfo>> {
        self.call(env, "snapshot.treeInfo", || Ok(self.inner()?.tree_info(&name)?.map(TreeInfo::from)))
    }

    /// Every pin; `count` is its number of trees, `lsn` the LSN it was taken at.
    #[napi]
    pub fn pins(&self, env: &Env) -> napi::Result<Vec<TreeInfo>> {
        self.call(env, "snapshot.pins", || Ok(self.inner()?.pins()?.into_iter().map(TreeInfo::from).collect()))
    }

    /// The version saved under pin `name`, or null.
    #[napi]
    pub fn pin(&self, env: &Env, name: Buffer) -> napi::Result<Option<Snapshot>> {
        self.call(env, "snapshot.pin", || Ok(self.inner()?.pin(&name)?.map(|inner| Snapshot { inner: Some(inner), db: self.db.clone() })))
    }
}
