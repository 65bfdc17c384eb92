//! The space map: which page slots are live (and how many references each has), which
//! are free, and which are on their way to being free. The rules it keeps are in the
//! module docs of `space`; this file keeps the books and asserts them.

use std::collections::{BTreeMap, HashMap, VecDeque};

use super::range_set::RangeSet;
use crate::page::DiskLoc;
use crate::limits::{META_SLOTS, PAGE_NO_MAX, VALUE_BYTES_MAX};

/// One reference held by a page or by the meta record, by what it points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ref {
    /// A B-tree node (branch or leaf) with the checksum its referrer recorded.
    Node(DiskLoc),
    /// A large value's chain of overflow pages, as its leaf records it. The chain is
    /// counted on its first page; the other pages belong to the chain alone.
    Overflow { first_page: u64, len: u32, hash: u64 },
    /// The first page of a space map chain (the meta record's only such reference).
    SpaceMap(DiskLoc),
}

impl Ref {
    /// The page the reference is counted on.
    pub fn page(&self) -> u64 {
        match self {
            Ref::Node(loc) | Ref::SpaceMap(loc) => loc.page,
            Ref::Overflow { first_page, .. } => *first_page,
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SpaceStats {
    /// Allocator tip: slots `0..tip` exist in the file.
    pub tip: u64,
    /// Slots a checkpoint may write now.
    pub free: u64,
    /// Slots no version reaches any more, held back for the older meta record or a
    /// reader (see the module docs).
    pub pending: u64,
    /// Slots whose last reference went away and whose own references are not yet
    /// released (read a bounded number per checkpoint).
    pub releasing: u64,
    /// Slots in use: the rest of `META_SLOTS..tip`.
    pub live: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpaceMap {
    tip: u64,
    /// Reference counts other than 1 (every allocated slot not listed has one): 0 for a
    /// slot allocated by the running checkpoint and not yet referenced, 2+ for a shared
    /// one. Never 1.
    counts: HashMap<u64, u32>,
    free: RangeSet,
    /// Checkpoint generation at which the slots became unreachable → the slots.
    pending: BTreeMap<u64, RangeSet>,
    /// References whose count reached zero, oldest first; their slots are intact.
    releasing: VecDeque<Ref>,
}

impl Default for SpaceMap {
    fn default() -> SpaceMap {
        SpaceMap::empty(META_SLOTS)
    }
}

impl SpaceMap {
    /// A file of `tip` slots, every one of them in use with one reference.
    pub fn empty(tip: u64) -> SpaceMap {
        assert!(tip >= META_SLOTS, "the meta slots always exist");
        SpaceMap { tip, counts: HashMap::new(), free: RangeSet::new(), pending: BTreeMap::new(), releasing: VecDeque::new() }
    }

    pub fn tip(&self) -> u64 {
        self.tip
    }

    /// A slot for a page a checkpoint is about to write: the lowest free one, else a new
    /// one at the tip. Its count is 0 until something references it.
    pub fn allocate(&mut self) -> Option<u64> {
        let page = match self.free.pop_first() {
            Some(page) => page,
            None => {
                if self.tip >= PAGE_NO_MAX {
                    return None;
                }
                self.tip += 1;
                self.tip - 1
            }
        };
        let previous = self.counts.insert(page, 0);
        assert!(previous.is_none(), "slot {page} was free yet had a count");
        Some(page)
    }

    /// Gives back a slot `allocate` returned whose page could not be written: nothing
    /// references it, and it was free before.
    pub fn unallocate(&mut self, page: u64) {
        assert_eq!(self.counts.remove(&page), Some(0), "only an unreferenced new slot is given back");
        let inserted = self.free.insert(page);
        assert!(inserted, "slot {page} is given back once");
    }

    /// One more reference to `page`, which must be in use.
    pub fn reference(&mut self, page: u64) {
        debug_assert!(self.in_use(page), "slot {page} is referenced while not in use");
        match self.counts.get_mut(&page) {
            Some(0) => {
                self.counts.remove(&page);
            }
            Some(count) => *count += 1,
            None => {
                self.counts.insert(page, 2);
            }
        }
    }

    /// One reference fewer; when it was the last, the reference is queued for release.
    pub fn dereference(&mut self, target: Ref) {
        let page = target.page();
        debug_assert!(self.in_use(page), "slot {page} is dereferenced while not in use");
        match self.counts.get_mut(&page) {
            Some(0) => panic!("slot {page} is dereferenced more often than referenced"),
            Some(2) => {
                self.counts.remove(&page);
            }
            Some(count) => *count -= 1,
            None => self.releasing.push_back(target),
        }
    }

    /// The oldest reference waiting to be released.
    pub fn next_release(&mut self) -> Option<Ref> {
        self.releasing.pop_front()
    }

    /// Records that the slots of a released reference are unreachable since checkpoint
    /// `generation` (their own references were released by the caller).
    pub fn released(&mut self, pages: &[u64], generation: u64) {
        let set = self.pending.entry(generation).or_default();
        for &page in pages {
            assert!(page >= META_SLOTS && page < self.tip, "released slot {page} exists");
            assert!(!self.counts.contains_key(&page), "released slot {page} has no count left");
            let inserted = set.insert(page);
            assert!(inserted, "slot {page} is released once");
        }
    }

    /// Makes the slots released at generation `g` free once a checkpoint of generation
    /// `checkpoint` may overwrite them: `g < checkpoint` (the meta records on disk,
    /// mirrors of the newest, do not reach them) and no reader holds a version from
    /// before `g`.
    pub fn promote(&mut self, checkpoint: u64, oldest_reader_epoch: Option<u64>) {
        let reader_bound = oldest_reader_epoch.unwrap_or(u64::MAX);
        let ready: Vec<u64> = self.pending.keys().copied().take_while(|&g| g < checkpoint && g <= reader_bound).collect();
        for g in ready {
            let set = self.pending.remove(&g).expect("listed above");
            let disjoint = self.free.absorb(set);
            assert!(disjoint, "a slot was pending and free at once");
        }
    }

    /// Makes the slots released at `generation` free at once, for the checkpoint of that
    /// generation to write in place (through the journal: `space/mod.rs`, "Writing in
    /// place"). Returns them.
    pub fn reuse_released(&mut self, generation: u64) -> RangeSet {
        let Some(set) = self.pending.remove(&generation) else { return RangeSet::new() };
        let disjoint = self.free.absorb(set.clone());
        assert!(disjoint, "a slot was pending and free at once");
        set
    }

    /// Gives the free slots at the end of the file back: the tip comes down to the
    /// first of them. Returns the new tip when it moved.
    pub fn trim_free_tail(&mut self) -> Option<u64> {
        let before = self.tip;
        while let Some(start) = self.free.pop_last_ending_at(self.tip) {
            self.tip = start;
        }
        (self.tip != before).then_some(self.tip)
    }

    pub fn stats(&self) -> SpaceStats {
        let pending: u64 = self.pending.values().map(RangeSet::len).sum();
        let releasing: u64 = self.releasing.iter().map(release_pages).sum();
        let free = self.free.len();
        SpaceStats { tip: self.tip, free, pending, releasing, live: self.tip - META_SLOTS - free - pending - releasing }
    }

    /// True when `page` is allocated: below the tip, not a meta slot, not free or pending.
    pub fn in_use(&self, page: u64) -> bool {
        page >= META_SLOTS
            && page < self.tip
            && !self.free.contains(page)
            && !self.pending.values().any(|set| set.contains(page))
    }

    /// Reference count of an allocated page (0 only while a checkpoint runs).
    pub fn count(&self, page: u64) -> u32 {
        self.counts.get(&page).copied().unwrap_or(1)
    }

    /// Pages with a count other than 1, ascending.
    pub fn unusual_counts(&self) -> Vec<(u64, u32)> {
        let mut counts: Vec<(u64, u32)> = self.counts.iter().map(|(&p, &c)| (p, c)).collect();
        counts.sort_unstable();
        counts
    }

    pub fn free(&self) -> &RangeSet {
        &self.free
    }

    pub fn pending(&self) -> &BTreeMap<u64, RangeSet> {
        &self.pending
    }

    pub fn releasing(&self) -> &VecDeque<Ref> {
        &self.releasing
    }

    /// Rebuilds a map from its parts (the codec's decoder); `None` when they contradict
    /// each other (overlapping sets, a count of 0 or 1, a slot past the tip).
    pub fn from_parts(
        tip: u64,
        counts: Vec<(u64, u32)>,
        free: RangeSet,
        pending: BTreeMap<u64, RangeSet>,
        releasing: Vec<Ref>,
    ) -> Option<SpaceMap> {
        if !(META_SLOTS..=PAGE_NO_MAX).contains(&tip) {
            return None;
        }
        let within = |set: &RangeSet| set.ranges().next().is_none_or(|(s, _)| s >= META_SLOTS) && set.end() <= tip;
        if !within(&free) || !pending.values().all(within) {
            return None;
        }
        let mut unusable = free.clone();
        for set in pending.values() {
            if !unusable.absorb(set.clone()) {
                return None;
            }
        }
        let mut map = SpaceMap { tip, counts: HashMap::with_capacity(counts.len()), free, pending, releasing: releasing.into() };
        for (page, count) in counts {
            if count < 2 || page < META_SLOTS || page >= tip || unusable.contains(page) || map.counts.insert(page, count).is_some() {
                return None;
            }
        }
        let mut queued = std::collections::HashSet::with_capacity(map.releasing.len());
        let released_ok = map.releasing.iter().all(|r| {
            let page = r.page();
            let sane_len = !matches!(r, Ref::Overflow { len, .. } if *len as usize > VALUE_BYTES_MAX);
            sane_len && page >= META_SLOTS && page < tip && !unusable.contains(page) && !map.counts.contains_key(&page) && queued.insert(page)
        });
        // Every slot is one thing at most: what is free, pending or queued fits the file.
        let accounted = unusable.len().saturating_add(map.releasing.iter().map(release_pages).sum::<u64>());
        (released_ok && accounted <= tip - META_SLOTS).then_some(map)
    }
}

/// Slots a queued release frees: one per node or space map page, a whole chain for a
/// large value.
fn release_pages(target: &Ref) -> u64 {
    match target {
        Ref::Node(_) | Ref::SpaceMap(_) => 1,
        Ref::Overflow { len, .. } => crate::page::overflow::overflow_pages(*len as usize),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(page: u64) -> Ref {
        Ref::Node(DiskLoc { page, checksum: page * 7 })
    }

    #[test]
    fn a_slot_is_reused_by_a_later_checkpoint_and_after_older_readers() {
        let mut map = SpaceMap::default();
        let a = map.allocate().unwrap();
        map.reference(a);
        assert_eq!(map.count(a), 1);
        map.dereference(node(a));
        assert_eq!(map.next_release(), Some(node(a)));
        map.released(&[a], 5);
        map.promote(5, None);
        assert_ne!(map.allocate(), Some(a), "checkpoint 5 may not write what it freed, but through the journal");
        let mut map2 = map.clone();
        let mut map3 = map.clone();
        map.promote(6, Some(4));
        assert!(map.free().is_empty(), "a reader from epoch 4 may still reach it");
        map.promote(6, Some(5));
        assert_eq!(map.allocate(), Some(a), "free once the records on disk and every reader are past it");
        map2.promote(6, None);
        assert!(map2.free().contains(a));
        assert_eq!(map3.reuse_released(5).len(), 1, "writing in place takes it at once");
        assert!(map3.free().contains(a));
    }

    #[test]
    fn a_shared_slot_is_released_with_its_last_reference() {
        let mut map = SpaceMap::default();
        let a = map.allocate().unwrap();
        map.reference(a);
        map.reference(a);
        map.reference(a);
        assert_eq!(map.count(a), 3);
        map.dereference(node(a));
        map.dereference(node(a));
        assert_eq!(map.next_release(), None);
        map.dereference(node(a));
        assert_eq!(map.next_release(), Some(node(a)));
    }

    #[test]
    #[should_panic(expected = "dereferenced more often than referenced")]
    fn a_new_unreferenced_slot_cannot_be_dereferenced() {
        let mut map = SpaceMap::default();
        let a = map.allocate().unwrap();
        map.dereference(node(a));
    }

    #[test]
    fn the_free_tail_is_trimmed_and_the_tip_comes_down() {
        let mut map = SpaceMap::default();
        let pages: Vec<u64> = (0..6).map(|_| map.allocate().unwrap()).collect();
        for &p in &pages {
            map.reference(p);
        }
        for &p in &pages[3..] {
            map.dereference(node(p));
            map.next_release();
        }
        map.released(&pages[3..], 1);
        map.promote(2, None);
        assert_eq!(map.trim_free_tail(), Some(pages[3]));
        assert_eq!(map.tip(), pages[3]);
        assert_eq!(map.stats(), SpaceStats { tip: pages[3], free: 0, pending: 0, releasing: 0, live: 3 });
    }

    #[test]
    fn contradicting_parts_are_refused() {
        let mut free = RangeSet::new();
        free.insert_range(5, 8);
        let mut pending = BTreeMap::new();
        let mut p = RangeSet::new();
        p.insert(7);
        pending.insert(3, p);
        assert!(SpaceMap::from_parts(10, vec![], free.clone(), pending, vec![]).is_none(), "free and pending overlap");
        assert!(SpaceMap::from_parts(10, vec![(6, 2)], free.clone(), BTreeMap::new(), vec![]).is_none(), "a free slot with a count");
        assert!(SpaceMap::from_parts(10, vec![(9, 1)], free.clone(), BTreeMap::new(), vec![]).is_none(), "a count of 1 is never stored");
        assert!(SpaceMap::from_parts(7, vec![], free.clone(), BTreeMap::new(), vec![]).is_none(), "free past the tip");
        assert!(SpaceMap::from_parts(10, vec![], free.clone(), BTreeMap::new(), vec![node(6)]).is_none(), "releasing a free slot");
        assert!(SpaceMap::from_parts(10, vec![(9, 3)], free, BTreeMap::new(), vec![node(2)]).is_some());
    }
}
