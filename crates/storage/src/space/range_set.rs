//! A set of page numbers kept as disjoint, non-adjacent ranges, so the free space of a
//! large file costs memory by its fragmentation, not its size.

use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RangeSet {
    /// start → end (exclusive); ranges never overlap nor touch.
    ranges: BTreeMap<u64, u64>,
    len: u64,
}

impl RangeSet {
    pub fn new() -> RangeSet {
        RangeSet::default()
    }

    /// Pages in the set.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn contains(&self, page: u64) -> bool {
        self.ranges.range(..=page).next_back().is_some_and(|(_, &end)| page < end)
    }

    /// Adds `page`; false (and nothing changes) when it is already in the set.
    pub fn insert(&mut self, page: u64) -> bool {
        self.insert_range(page, page + 1)
    }

    /// Adds `start..end`; false (and nothing changes) when any page of it is present.
    pub fn insert_range(&mut self, start: u64, end: u64) -> bool {
        assert!(start < end, "a range holds at least one page");
        let before = self.ranges.range(..end).next_back().map(|(&s, &e)| (s, e));
        if before.is_some_and(|(_, e)| e > start) {
            return false;
        }
        let mut new_start = start;
        let mut new_end = end;
        if let Some((s, e)) = before {
            if e == start {
                self.ranges.remove(&s);
                new_start = s;
            }
        }
        if let Some(after_end) = self.ranges.remove(&end) {
            new_end = after_end;
        }
        self.ranges.insert(new_start, new_end);
        self.len += end - start;
        true
    }

    /// Removes and returns the lowest page.
    pub fn pop_first(&mut self) -> Option<u64> {
        let (&start, &end) = self.ranges.iter().next()?;
        self.ranges.remove(&start);
        if start + 1 < end {
            self.ranges.insert(start + 1, end);
        }
        self.len -= 1;
        Some(start)
    }

    /// If the highest range ends at `end`, removes it and returns its start.
    pub fn pop_last_ending_at(&mut self, end: u64) -> Option<u64> {
        let (&start, &last_end) = self.ranges.iter().next_back()?;
        if last_end != end {
            return None;
        }
        self.ranges.remove(&start);
        self.len -= end - start;
        Some(start)
    }

    /// Moves every page of `other` into this set; false if the two shared a page (then
    /// the pages before the shared one were moved).
    pub fn absorb(&mut self, other: RangeSet) -> bool {
        other.ranges.into_iter().all(|(start, end)| self.insert_range(start, end))
    }

    /// The ranges, ascending, as `(start, end_exclusive)`.
    pub fn ranges(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.ranges.iter().map(|(&s, &e)| (s, e))
    }

    /// The highest page plus one, or 0 when empty.
    pub fn end(&self) -> u64 {
        self.ranges.iter().next_back().map_or(0, |(_, &e)| e)
    }
}

#[cfg(test)]
impl RangeSet {
    /// Removes `page`; false when it was not in the set.
    pub fn remove(&mut self, page: u64) -> bool {
        let Some((&start, &end)) = self.ranges.range(..=page).next_back() else { return false };
        if page >= end {
            return false;
        }
        self.ranges.remove(&start);
        if start < page {
            self.ranges.insert(start, page);
        }
        if page + 1 < end {
            self.ranges.insert(page + 1, end);
        }
        self.len -= 1;
        true
    }

    /// Every page, ascending.
    pub fn pages(&self) -> impl Iterator<Item = u64> + '_ {
        self.ranges().flat_map(|(s, e)| s..e)
    }

}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// A model test: random inserts, removals and pops against a BTreeSet.
    #[test]
    fn model_agrees_with_a_btreeset() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let mut set = RangeSet::new();
        let mut model = BTreeSet::new();
        for _ in 0..20_000 {
            match next(5) {
                0 | 1 => {
                    let page = next(300);
                    assert_eq!(set.insert(page), model.insert(page));
                }
                2 => {
                    let page = next(300);
                    assert_eq!(set.remove(page), model.remove(&page));
                }
                3 => assert_eq!(set.pop_first(), model.pop_first()),
                _ => {
                    let end = model.iter().next_back().map_or(0, |p| p + 1);
                    if let Some(start) = set.pop_last_ending_at(end) {
                        let popped: Vec<u64> = model.range(start..).copied().collect();
                        assert!(!popped.is_empty());
                        for p in popped {
                            model.remove(&p);
                        }
                        assert!(model.iter().next_back().is_none_or(|&p| p + 1 < start), "a whole range went");
                    } else {
                        assert!(model.is_empty());
                    }
                }
            }
            assert_eq!(set.len(), model.len() as u64);
            assert!(set.pages().eq(model.iter().copied()));
            // Ranges never touch: they are merged.
            let ranges: Vec<(u64, u64)> = set.ranges().collect();
            assert!(ranges.windows(2).all(|w| w[0].1 < w[1].0));
        }
    }

    #[test]
    fn a_range_overlapping_the_set_is_refused_whole() {
        let mut set = RangeSet::new();
        assert!(set.insert_range(10, 20));
        assert!(!set.insert_range(5, 11));
        assert!(!set.insert_range(19, 25));
        assert!(!set.insert_range(12, 13));
        assert_eq!(set.len(), 10);
        assert!(set.insert_range(20, 25), "adjacent ranges merge");
        assert_eq!(set.ranges().collect::<Vec<_>>(), vec![(10, 25)]);
    }
}
