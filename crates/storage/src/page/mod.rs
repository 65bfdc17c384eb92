//! Pages on disk, as bytes: the checksummed page slot (`slot.rs`), the file of slots
//! (`file.rs`), where a page is (`disk_loc.rs`: its slot and the checksum it must have)
//! and a large value's chain of overflow pages (`overflow.rs`). Nothing here allocates
//! slots or knows what a payload means: that is the space map's (`space/`), the pager's
//! (`pager/`) and the B-tree's (`btree/`) business, in the layers above
//! (docs/architecture.md, "Storage layers").

mod disk_loc;
mod file;
pub mod overflow;
mod slot;

pub use disk_loc::DiskLoc;
pub use file::{Direct, PageFile, PageSink, PAGE_FILE_NAME};
pub use slot::{decode, encode, slot_checksum, Page, PageType, PAGE_HEADER_BYTES, PAGE_PAYLOAD_BYTES_MAX};
