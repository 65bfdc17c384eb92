//! Free space: which page slots a checkpoint may overwrite, so the page file stays the
//! size of what is live instead of growing with every write.
//!
//! Here: the books (`map.rs`, over sets of slot ranges, `range_set.rs`), their bytes
//! (`codec.rs`) and the chain of pages that stores them (`chain.rs`). What acts on them
//! sits in the layers above, because it reads pages and nodes: allocation (`pager/`),
//! the steps of a checkpoint (`checkpoint/`) and the recount from the pages that
//! rebuilds and checks them (`meta/trace.rs`).
//!
//! # Design: reference counts, released lazily, reused by the next checkpoint
//!
//! Every slot in use has a reference count: the references to it from slots in use (a
//! branch's children; a leaf's overflow chains and the roots of the trees it stores as
//! values; each page of a chain but the first, from the page before it), from releases
//! not yet done, and from the current meta record (its root set, its pin table and its
//! space map chain). Forks, pins and tree copies share nodes, so a count can be above
//! one. Counts of one are implicit; the map stores the others (`map.rs`). What a node
//! references is defined once, by the B-tree (`btree/references.rs`): the space map
//! knows slots and references, not nodes.
//!
//! The meta record is mirrored: at rest both meta slots hold the current record. A
//! publish writes slot 0, syncs, then slot 1, syncs, and open writes the newest valid
//! record over a slot holding an older one (`meta/record.rs`). So while checkpoint `c` runs,
//! the only valid record on disk is `c - 1`, and while it publishes, `c - 1` and `c`.
//!
//! A checkpoint of generation `c` (`checkpoint/write.rs`), on a copy of the books:
//!
//! 1. *Promotes* the slots released at generation `g` to free when `g < c` and no reader
//!    holds an epoch below `g` (invariants below).
//! 2. Counts the references the version it writes holds to pages already on disk (from
//!    its roots and its unwritten nodes), then drops the previous record's references,
//!    so a slot both records reach never drops to zero on the way. A count reaching zero
//!    queues the reference for release.
//! 3. *Releases* queued references, oldest first, up to a budget ("Cost"): reads the page,
//!    verified against the checksum its referrer recorded (a stale or damaged page never
//!    drives the books), drops each reference it holds (which may queue more), and
//!    records its slots as released at `c` (`checkpoint/release.rs`).
//! 4. If no reader holds a version older than the one it writes and step 3 released
//!    slots, makes them free at once and writes through the journal ("Writing in place").
//! 5. Writes the version's unwritten nodes, children first, to slots from `allocate`
//!    (the lowest free slot, else the tip), counting each reference to a page written
//!    just now as it is made.
//! 6. Takes the free slots at the end of the file off the books (the tip comes down)
//!    and writes the space map to a chain of slots from `allocate` (`chain.rs`).
//! 7. Makes it durable: syncs the pages (or finishes the journal, copies its images to
//!    their slots and syncs), publishes the record naming the chain in both meta slots,
//!    and cuts the journal to nothing. Only then are the books installed and the file
//!    truncated to the new tip (`database/`).
//!
//! A checkpoint that fails before its record (or journal) is durable leaves the previous
//! record and books as they were (`checkpoint/write.rs`, "A failed checkpoint leaves no trace").
//!
//! # Writing in place
//!
//! If freed slots could only be written by the next checkpoint, every checkpoint would
//! need room for its pages beside the ones it frees, and a churning working set would
//! keep about twice its size in the file. So a checkpoint may write over the slots it
//! frees itself, though record `c - 1` still reaches them: every page image it makes,
//! then its record, goes first to `checkpoint.journal`, checksummed and synced
//! (`checkpoint/journal.rs`); only then are the slots written. Open redoes a complete journal whose
//! generation is newer than the newest valid record (every image written again, synced,
//! the record published); a read-only open reads through it instead. Redo writes the
//! same bytes, so a crash during redo is redone again.
//!
//! Readers allow it when none holds a version older than the one written: such a version
//! is that one plus commits, which only add nodes in memory and drop references, so it
//! reaches on disk only slots the new record keeps. To make that common, the checkpoint
//! writes the oldest version a reader holds instead of the newest when it is newer than
//! the last checkpoint and still in memory (the commits after it wait in the WAL).
//!
//! # Invariants
//!
//! - **A slot a valid record on disk reaches is overwritten only through a complete
//!   journal.** A promoted slot was released at `g <= c - 1`, so record `g` did not reach
//!   it, nor does any later record (records reach only slots in use); `c - 1` is the
//!   oldest record on disk. A slot past the tip is reached by no record. A slot released
//!   at `c` is written only once the journal holding all of checkpoint `c` is synced.
//!   Crash before that: no such slot was written, and an incomplete journal is ignored.
//!   Crash after: unless a valid record `c` is on disk (written after the pages were
//!   synced; open copies it to the other slot), the complete journal is newer than every
//!   valid record and open redoes it. The journal is cut once both slots hold `c`, when
//!   no record on disk reaches the old contents. A format-1 directory alternated its
//!   slots, so they differ and open writes the newest into both before any checkpoint.
//!   WAL replay reads only pages of the record it starts from.
//! - **A slot a reader can reach is never overwritten while the reader lives.** A
//!   `Snapshot` holds its epoch (the newest record's generation, read before its
//!   version, so never too new) and its version's LSN (`versions/readers.rs`). A version of epoch
//!   `e` reaches on disk only slots in use at checkpoint `e` or allocated since, so it can
//!   reach a slot released at `g` only if `g > e`: promotion waits until no reader of an
//!   epoch below `g` remains. Writing in place needs every reader at the LSN written or
//!   later (above). Readers are in memory only: after a crash there are none.
//! - **Counts are exact**: for every slot in use, its count is the number of references
//!   to it from slots in use, from queued releases and from the current record. Free,
//!   pending, releasing and in-use slots are disjoint and cover `META_SLOTS..tip`; `verify`
//!   recounts all of it from the pages (`meta/trace.rs`). Crash: the books are stored
//!   by the checkpoint whose record names them (under the same sync or journal), so open
//!   loads the books of the record it uses. A chain that fails its checks is reported
//!   and the books rebuilt by tracing (exact by construction; every slot not reached
//!   waits as released at the record's generation).
//! - **A slot is freed exactly once**: release moves a slot from in use to pending only
//!   when its count reaches zero, and promotion and reuse move pending slots to free
//!   only if they are not free already; both are asserted on every move (`map.rs`).
//!
//! # Cost
//!
//! Nothing here runs on a read; a snapshot takes and drops one hold (`versions/readers.rs`). A
//! checkpoint counts in proportion to the pages it writes, and releases (reading each
//! page once) until it has released `max(SPACE_RELEASE_PAGES_MIN, 2 × nodes it writes)`
//! slots or the queue is empty: releasing keeps ahead of churn, and dropping a large
//! tenant or snapshot spreads its release over several checkpoints instead of pausing
//! commits; compaction releases everything at once. The map is rewritten whole by each
//! checkpoint: its size follows the fragmentation of the free space and the number of
//! shared pages, not the data. Mirroring costs one more meta write and sync per
//! checkpoint; writing in place writes each page twice (journal, slot) and syncs once
//! more, and is used only when the checkpoint freed slots.

pub mod chain;
mod codec;
mod map;
mod range_set;

pub use codec::{decode, encode};
pub use map::{Ref, SpaceMap, SpaceStats};
pub use range_set::RangeSet;
