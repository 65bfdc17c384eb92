//! Where a page lives on disk: its slot, and the checksum that slot must have. Whoever
//! refers to a page records both (a branch its children, the meta record its roots, a
//! space map page the next one), so a slot that is intact but holds another page (a
//! lost write, a slot reused since) is detected as stale before it is used.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DiskLoc {
    pub page: u64,
    pub checksum: u64,
}
