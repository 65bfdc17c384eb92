//! Free space: which page slots a checkpoint may overwrite, so the page file stays the
//! size of what is live instead of growing with every write.
//!
//! # Design: reference counts, released lazily, reused two generations later
//!
//! Every page slot in use has a reference count: the number of references to it held
//! by other pages in use (a branch's children, a leaf's tree values and overflow
//! chains) and by the current meta record (its root set, its pin table and its space
//! map chain). Forks, snapshots (pins) and tree copies share nodes, so a count can be
//! above one; within one tree a node has one parent. Counts of one are implicit; the
//! map stores the others (`map.rs`).
//!
//! A checkpoint of generation `c` (the meta record's generation):
//!
//! 1. *Promotes* the slots released at generation `g` to free when `g + 2 <= c` and no
//!    reader holds a version from before `g` (below).
//! 2. Writes the version's unwritten nodes to slots from `allocate` (the lowest free
//!    slot, else the tip), and counts one reference for every reference each page it
//!    writes holds, whatever it points at (an older page or one written just now).
//! 3. Counts the new meta record's references, and drops the previous record's ones.
//!    A count reaching zero queues the reference for *release*.
//! 4. Releases queued references, oldest first, up to a budget: it reads the page
//!    (verified against the checksum its referrer recorded, so a stale or damaged
//!    page never drives the books), drops each reference that page holds (which may
//!    queue more), and records the page's slots as released at generation `c`.
//! 5. Writes the space map itself to a chain of slots from `allocate`, then the pages
//!    are synced, the meta record naming the chain is written and synced, and only
//!    then is the free tail of the file cut off.
//!
//! Steps 3 to 5 work on a copy that becomes the map only once the meta record is
//! durable: a checkpoint that fails leaves the previous record and its books intact
//! (slots it allocated for nodes it wrote stay allocated: those nodes remember their
//! slot and a later checkpoint references them).
//!
//! # Invariants
//!
//! - **A slot reachable from either meta record on disk is never overwritten.** A slot
//!   released at generation `g` was unreachable from record `g`; record `g - 1` may
//!   still reach it and is on disk (the fallback if record `g` is damaged) until
//!   record `g + 1` replaces it at the very end of checkpoint `g + 1`. So checkpoint
//!   `g + 2` is the first that may write it. WAL replay reads only pages of the record
//!   it starts from, so it needs nothing more.
//! - **A slot a reader can reach is never overwritten.** Every `Snapshot` records the
//!   generation of the newest meta record when it was taken (its epoch, read before
//!   its version is, so it is never too new). A version of epoch `e` derives from
//!   record `e`'s version by commits, which only add nodes in memory and drop
//!   references: every slot it reaches was reachable from record `e`, so it can reach
//!   a slot released at `g` only if `g > e`. A slot released at `g` therefore waits
//!   until no reader of an epoch below `g` remains.
//! - **Counts are exact**: for every slot in use, its count is the number of
//!   references to it from slots in use, from queued releases not yet done and from
//!   the current meta record. Free, pending and queued slots are disjoint, and with the
//!   slots in use they cover `META_SLOTS..tip` (`verify` recomputes all of it).
//! - **A slot is freed exactly once**: release moves a slot from in use to pending only
//!   when its count reaches zero, asserted on every move (`map.rs`).
//!
//! # Cost
//!
//! Nothing here runs on a read. A checkpoint does work in proportion to the pages it
//! writes (counting) and releases at most a budget of pages (reads), so dropping a
//! large tenant or snapshot spreads its release over several checkpoints instead of
//! pausing commits; `compact` releases everything at once. The map is rewritten whole
//! by each checkpoint: its size grows with the fragmentation of the free space and
//! the number of shared pages, not with the data.

mod codec;
mod map;
mod range_set;
mod references;

pub use codec::{decode, encode};
pub use map::{Ref, SpaceMap, SpaceStats};
pub use range_set::RangeSet;
pub use references::node_references;
