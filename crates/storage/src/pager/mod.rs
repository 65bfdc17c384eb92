//! The pager: pages, not what they hold. It allocates slots from the space map, writes
//! pages and overflow chains, and reads pages verified against the checksum their
//! referrer recorded (`io.rs`), decoded by the reader's type and kept in a bounded LRU
//! cache of decoded pages (`cache.rs`). What a page means is the layer above's business
//! (docs/architecture.md, "Storage layers").

mod cache;
mod io;

pub use io::{CacheStats, DecodedPage, Pager};
