//! The space map's bytes. A checkpoint writes them across a chain of `SpaceMap` pages
//! (`chain.rs`) named by the meta record.
//!
//! Layout (little-endian; `v` is an unsigned LEB128 varint of at most 10 bytes):
//!
//! | field      | encoding | meaning                                                   |
//! |------------|----------|-----------------------------------------------------------|
//! | magic      | 8 bytes  | ASCII `SPACEMAP`                                          |
//! | format     | u32      | space map format, currently 1                             |
//! | tip        | u64      | allocator tip: slots `0..tip` exist                       |
//! | free       | ranges   | slots a checkpoint may write                              |
//! | pending    | v, then per generation: `g: v`, ranges (ascending `g`)     | slots unreachable since generation `g` |
//! | counts     | v, then per page: `page_delta: v`, `count: v` (ascending)  | reference counts other than 1 (never 0 or 1 on disk) |
//! | releasing  | v, then per entry: `kind: u8`, fields below | references whose count reached zero, in queue order |
//!
//! `ranges` is `n: v`, then `n` pairs `gap: v, len: v`: each range starts `gap` slots
//! after the previous one's end (the first after 0) and holds `len >= 1` slots.
//! `page_delta` is the page minus the previous page (the first: minus 0).
//!
//! A releasing entry's kind is 1 node (`page: v`, `checksum: u64`), 2 overflow chain
//! (`first_page: v`, `len: v`, `hash: u64`) or 3 space map page (`page: v`,
//! `checksum: u64`). Nothing follows the last entry.
//!
//! Decoding checks everything it can without the pages themselves (sets disjoint and
//! below the tip, counts of 2 or more, no trailing bytes) and yields `None` for any
//! malformed input: a damaged chain is corruption, never a panic.

use std::collections::BTreeMap;

use super::map::{Ref, SpaceMap};
use super::range_set::RangeSet;
use crate::page::DiskLoc;

const MAGIC: &[u8; 8] = b"SPACEMAP";
const FORMAT_VERSION: u32 = 1;
const KIND_NODE: u8 = 1;
const KIND_OVERFLOW: u8 = 2;
const KIND_SPACE_MAP: u8 = 3;
const VARINT_BYTES_MAX: usize = 10;

pub fn encode(map: &SpaceMap) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&map.tip().to_le_bytes());
    encode_ranges(&mut out, map.free());
    put_varint(&mut out, map.pending().len() as u64);
    for (&generation, set) in map.pending() {
        put_varint(&mut out, generation);
        encode_ranges(&mut out, set);
    }
    let counts = map.unusual_counts();
    assert!(counts.iter().all(|&(_, c)| c >= 2), "no slot is half-written when the space map is saved");
    put_varint(&mut out, counts.len() as u64);
    let mut previous = 0;
    for (page, count) in counts {
        put_varint(&mut out, page - previous);
        put_varint(&mut out, u64::from(count));
        previous = page;
    }
    put_varint(&mut out, map.releasing().len() as u64);
    for target in map.releasing() {
        match *target {
            Ref::Node(loc) => {
                out.push(KIND_NODE);
                put_varint(&mut out, loc.page);
                out.extend_from_slice(&loc.checksum.to_le_bytes());
            }
            Ref::Overflow { first_page, len, hash } => {
                out.push(KIND_OVERFLOW);
                put_varint(&mut out, first_page);
                put_varint(&mut out, u64::from(len));
                out.extend_from_slice(&hash.to_le_bytes());
            }
            Ref::SpaceMap(loc) => {
                out.push(KIND_SPACE_MAP);
                put_varint(&mut out, loc.page);
                out.extend_from_slice(&loc.checksum.to_le_bytes());
            }
        }
    }
    out
}

pub fn decode(bytes: &[u8]) -> Option<SpaceMap> {
    let mut r = Reader { bytes, at: 0 };
    if r.take(8)? != MAGIC || u32::from_le_bytes(r.take(4)?.try_into().ok()?) != FORMAT_VERSION {
        return None;
    }
    let tip = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
    let free = r.ranges(tip)?;
    let generations = r.count()?;
    let mut pending = BTreeMap::new();
    let mut last_generation = None;
    for _ in 0..generations {
        let generation = r.varint()?;
        if last_generation.is_some_and(|g| generation <= g) {
            return None;
        }
        last_generation = Some(generation);
        let set = r.ranges(tip)?;
        if set.is_empty() {
            return None;
        }
        pending.insert(generation, set);
    }
    let n = r.count()?;
    let mut counts = Vec::with_capacity(n.min(1 << 20) as usize);
    let mut page = 0u64;
    for i in 0..n {
        let delta = r.varint()?;
        if i > 0 && delta == 0 {
            return None;
        }
        page = page.checked_add(delta)?;
        let count = u32::try_from(r.varint()?).ok()?;
        counts.push((page, count));
    }
    let n = r.count()?;
    let mut releasing = Vec::with_capacity(n.min(1 << 20) as usize);
    for _ in 0..n {
        let target = match r.take(1)?[0] {
            KIND_NODE => Ref::Node(DiskLoc { page: r.varint()?, checksum: r.u64()? }),
            KIND_OVERFLOW => Ref::Overflow { first_page: r.varint()?, len: u32::try_from(r.varint()?).ok()?, hash: r.u64()? },
            KIND_SPACE_MAP => Ref::SpaceMap(DiskLoc { page: r.varint()?, checksum: r.u64()? }),
            _ => return None,
        };
        releasing.push(target);
    }
    if r.at != bytes.len() {
        return None;
    }
    SpaceMap::from_parts(tip, counts, free, pending, releasing)
}

fn encode_ranges(out: &mut Vec<u8>, set: &RangeSet) {
    put_varint(out, set.ranges().count() as u64);
    let mut previous_end = 0;
    for (start, end) in set.ranges() {
        put_varint(out, start - previous_end);
        put_varint(out, end - start);
        previous_end = end;
    }
}

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let slice = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(slice)
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    /// A varint, refusing overlong encodings and values past u64.
    fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for i in 0..VARINT_BYTES_MAX {
            let byte = self.take(1)?[0];
            let bits = u64::from(byte & 0x7f);
            if i == VARINT_BYTES_MAX - 1 && bits > 1 {
                return None;
            }
            value |= bits << (7 * i);
            if byte & 0x80 == 0 {
                return (i == 0 || byte != 0).then_some(value);
            }
        }
        None
    }

    /// A count of entries, each of which takes at least one byte: a count the rest of
    /// the input cannot hold is malformed (and allocates nothing).
    fn count(&mut self) -> Option<u64> {
        let n = self.varint()?;
        (n <= (self.bytes.len() - self.at) as u64).then_some(n)
    }

    fn ranges(&mut self, tip: u64) -> Option<RangeSet> {
        let n = self.count()?;
        let mut set = RangeSet::new();
        let mut end = 0u64;
        for i in 0..n {
            let gap = self.varint()?;
            let len = self.varint()?;
            // Ranges never touch (they would be one), so every gap but the first is >= 1.
            if len == 0 || (i > 0 && gap == 0) {
                return None;
            }
            let start = end.checked_add(gap)?;
            end = start.checked_add(len)?;
            if end > tip || !set.insert_range(start, end) {
                return None;
            }
        }
        Some(set)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> SpaceMap {
        let mut free = RangeSet::new();
        free.insert_range(4, 9);
        free.insert(300);
        let mut pending = BTreeMap::new();
        let mut p = RangeSet::new();
        p.insert_range(20, 23);
        pending.insert(7, p);
        let mut q = RangeSet::new();
        q.insert(1000);
        pending.insert(9, q);
        let releasing = vec![
            Ref::Node(DiskLoc { page: 40, checksum: u64::MAX }),
            Ref::Overflow { first_page: 41, len: 70_000, hash: 3 },
            Ref::SpaceMap(DiskLoc { page: 2000, checksum: 1 }),
        ];
        SpaceMap::from_parts(5000, vec![(10, 2), (11, 9), (4000, u32::MAX)], free, pending, releasing).unwrap()
    }

    #[test]
    fn round_trip() {
        let map = sample();
        assert_eq!(decode(&encode(&map)), Some(map));
        let empty = SpaceMap::default();
        assert_eq!(decode(&encode(&empty)), Some(empty));
    }

    #[test]
    fn every_truncation_and_every_appended_byte_is_refused() {
        let bytes = encode(&sample());
        for n in 0..bytes.len() {
            assert_eq!(decode(&bytes[..n]), None, "truncated to {n}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(&longer), None);
    }

    #[test]
    fn overlong_and_oversized_varints_are_refused() {
        let mut r = Reader { bytes: &[0x80, 0x00], at: 0 };
        assert_eq!(r.varint(), None, "a redundant continuation byte");
        let mut r = Reader { bytes: &[0xff; 10], at: 0 };
        assert_eq!(r.varint(), None, "more than 64 bits");
        let mut max = Vec::new();
        put_varint(&mut max, u64::MAX);
        assert_eq!(Reader { bytes: &max, at: 0 }.varint(), Some(u64::MAX));
    }

    #[test]
    fn a_count_larger_than_the_input_allocates_nothing() {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&100u64.to_le_bytes());
        put_varint(&mut bytes, u64::MAX >> 1);
        assert_eq!(decode(&bytes), None);
    }
}
