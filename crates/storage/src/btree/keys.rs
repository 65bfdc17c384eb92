//! A node's keys, in memory: end to end in one buffer in ascending order, with where
//! each ends, so a search is a binary search over offsets into one allocation (as the
//! page image keeps them), not a pointer chase per key. Every key its own heap
//! allocation cost each comparison of a lookup a dependent cache miss
//! (docs/performance.md, P3).
//!
//! The search mostly touches neither: the keys of a node share a prefix (all bytes the
//! first and the last key share, so every key between them shares it too), which a
//! search compares once, and each key keeps the eight bytes after it as a big-endian
//! integer (`heads`), so most comparisons are one integer comparison in one small array.
//! Two heads in order mean their keys are in that order (a shorter key is padded with
//! zeros, and it sorts first whenever the padding decides), and equal heads fall back
//! to comparing the rest of the keys.
//!
//! Inserting or removing a key moves the bytes after it, at most a page's worth; a
//! change of the first or last key recomputes the prefix and, if it moved, the heads.

use std::cmp::Ordering;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Keys {
    bytes: Vec<u8>,
    /// `ends[i]`: where key `i` ends in `bytes` (it starts where key `i - 1` ends).
    ends: Vec<u32>,
    /// Bytes every key starts with: those the first and the last key share.
    prefix: u32,
    /// For key `i`, the eight bytes after the prefix, big-endian, zero-padded.
    heads: Vec<u64>,
}

impl Keys {
    pub fn with_capacity(keys: usize, bytes: usize) -> Keys {
        Keys { bytes: Vec::with_capacity(bytes), ends: Vec::with_capacity(keys), prefix: 0, heads: Vec::with_capacity(keys) }
    }

    /// A copy whose buffers hold exactly the keys (a decoder reserves a page's room, as
    /// it cannot know the keys' share before reading them). A copy, not `shrink_to_fit`:
    /// shrinking in place left the rest of each page-sized buffer free between the
    /// cache's nodes, where glibc seldom reused it (RSS 1.4 times the cache's bytes,
    /// docs/performance.md, P12); the page-sized buffer freed at once is the next
    /// decode's.
    pub fn fitted(&self) -> Keys {
        self.clone()
    }

    /// Bytes of the three buffers as allocated (capacity, not length), for the page
    /// cache's budget.
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + 4 * self.ends.capacity() + 8 * self.heads.capacity()
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Bytes of all the keys together.
    pub fn total_bytes(&self) -> usize {
        self.bytes.len()
    }

    fn start(&self, i: usize) -> usize {
        if i == 0 { 0 } else { self.ends[i - 1] as usize }
    }

    pub fn get(&self, i: usize) -> &[u8] {
        &self.bytes[self.start(i)..self.ends[i] as usize]
    }

    pub fn first(&self) -> Option<&[u8]> {
        (!self.is_empty()).then(|| self.get(0))
    }

    pub fn last(&self) -> Option<&[u8]> {
        self.len().checked_sub(1).map(|i| self.get(i))
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &[u8]> + ExactSizeIterator + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// The index of `key`, or where it would be inserted (as `slice::binary_search`).
    pub fn search(&self, key: &[u8]) -> Result<usize, usize> {
        let Some((head, rest)) = self.probe(key) else { return Err(self.outside(key)) };
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.compare_at(mid, head, rest) {
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
                Ordering::Equal => return Ok(mid),
            }
        }
        Err(lo)
    }

    /// The number of keys `<= key`: in a branch, the index of the child that may hold it.
    pub fn upper_bound(&self, key: &[u8]) -> usize {
        let Some((head, rest)) = self.probe(key) else { return self.outside(key) };
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.compare_at(mid, head, rest).is_le() { lo = mid + 1 } else { hi = mid }
        }
        lo
    }

    /// `key`'s head and the bytes after the prefix, if it starts with the prefix.
    fn probe<'k>(&self, key: &'k [u8]) -> Option<(u64, &'k [u8])> {
        let prefix = self.prefix as usize;
        let rest = key.strip_prefix(&self.bytes[..prefix.min(self.bytes.len())])?;
        Some((head(rest), rest))
    }

    /// Where `key`, which does not start with the prefix, stands: before every key or
    /// after every key.
    fn outside(&self, key: &[u8]) -> usize {
        let prefix = &self.bytes[..self.prefix as usize];
        if key < prefix { 0 } else { self.len() }
    }

    /// The order of key `i` against a key that starts with the prefix, whose head is
    /// `head` and whose bytes after the prefix are `rest`.
    fn compare_at(&self, i: usize, head: u64, rest: &[u8]) -> Ordering {
        match self.heads[i].cmp(&head) {
            Ordering::Equal => self.get(i)[self.prefix as usize..].cmp(rest),
            order => order,
        }
    }

    /// The first index whose key `pred` refuses, all before it accepted (`pred` must
    /// hold of a prefix of the keys, as `slice::partition_point`).
    pub fn partition_point(&self, mut pred: impl FnMut(&[u8]) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(self.get(mid)) { lo = mid + 1 } else { hi = mid }
        }
        lo
    }

    pub fn push(&mut self, key: &[u8]) {
        let i = self.len();
        self.insert(i, key);
    }

    pub fn insert(&mut self, i: usize, key: &[u8]) {
        let at = self.start(i);
        self.bytes.splice(at..at, key.iter().copied());
        let len = key.len() as u32;
        for end in &mut self.ends[i..] {
            *end += len;
        }
        self.ends.insert(i, u32::try_from(at + key.len()).expect("a node's keys fit in u32 offsets"));
        self.heads.insert(i, 0);
        if i == 0 || i + 1 == self.len() {
            self.refresh();
        } else {
            // Between the first and the last key, it shares their prefix.
            self.heads[i] = head(&key[self.prefix as usize..]);
        }
    }

    pub fn remove(&mut self, i: usize) {
        let (start, end) = (self.start(i), self.ends[i] as usize);
        let edge = i == 0 || i + 1 == self.len();
        self.bytes.drain(start..end);
        self.ends.remove(i);
        self.heads.remove(i);
        let len = (end - start) as u32;
        for end in &mut self.ends[i..] {
            *end -= len;
        }
        if edge {
            self.refresh();
        }
    }

    /// Removes and returns the last key.
    pub fn pop(&mut self) -> Option<Vec<u8>> {
        let i = self.len().checked_sub(1)?;
        let key = self.bytes.split_off(self.start(i));
        self.ends.pop();
        self.heads.pop();
        self.refresh();
        Some(key)
    }

    /// Keys `at..` move to the returned value.
    pub fn split_off(&mut self, at: usize) -> Keys {
        let cut = self.start(at);
        let bytes = self.bytes.split_off(cut);
        let ends = self.ends.split_off(at).into_iter().map(|end| end - cut as u32).collect();
        let heads = self.heads.split_off(at);
        let mut right = Keys { bytes, ends, prefix: self.prefix, heads };
        self.refresh();
        right.refresh();
        right
    }

    /// Appends `other`'s keys after these.
    pub fn append(&mut self, other: &Keys) {
        let base = self.bytes.len() as u32;
        self.bytes.extend_from_slice(&other.bytes);
        self.ends.extend(other.ends.iter().map(|end| end + base));
        self.heads.resize(self.ends.len(), 0);
        self.prefix = u32::MAX; // recomputed whole
        self.refresh();
    }

    /// Replaces keys `range` by `with`.
    pub fn splice(&mut self, range: std::ops::Range<usize>, with: &Keys) {
        let tail = self.split_off(range.end);
        self.truncate(range.start);
        self.append(with);
        self.append(&tail);
    }

    fn truncate(&mut self, len: usize) {
        self.bytes.truncate(self.start(len));
        self.ends.truncate(len);
        self.heads.truncate(len);
        self.refresh();
    }

    pub fn from_iter<'a>(keys: impl IntoIterator<Item = &'a [u8]>) -> Keys {
        let mut out = Keys::default();
        for key in keys {
            out.push(key);
        }
        out
    }

    /// Sets the prefix to what the first and last key share and, if it moved, every head.
    fn refresh(&mut self) {
        let prefix = match (self.first(), self.last()) {
            (Some(first), Some(last)) => first.iter().zip(last).take_while(|(a, b)| a == b).count() as u32,
            _ => 0,
        };
        if prefix == self.prefix && self.heads.len() == self.len() {
            // Only the edge key changed: its head (the others keep theirs).
            for i in [0, self.len().saturating_sub(1)] {
                if i < self.len() {
                    self.heads[i] = head(&self.get(i)[prefix as usize..]);
                }
            }
            return;
        }
        self.prefix = prefix;
        self.heads.resize(self.len(), 0);
        for i in 0..self.len() {
            let key = self.get(i);
            debug_assert!(key.starts_with(&self.bytes[..prefix as usize]), "every key starts with the prefix");
            self.heads[i] = head(&key[prefix as usize..]);
        }
    }
}

/// The first eight bytes of `rest`, big-endian, zero-padded.
fn head(rest: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    let n = rest.len().min(8);
    word[..n].copy_from_slice(&rest[..n]);
    u64::from_be_bytes(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operation against a sorted vector of keys, with keys made to share
    /// prefixes and to differ past their eighth byte, and shorter keys among longer ones.
    #[test]
    fn searches_and_changes_agree_with_a_sorted_vector() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..200 {
            let stem: &[u8] = if round % 3 == 0 { b"" } else { b"\x02key-0000000000" };
            let mut model: Vec<Vec<u8>> = Vec::new();
            let mut keys = Keys::default();
            for _ in 0..60 {
                let mut key = stem.to_vec();
                for _ in 0..(next() % 14) {
                    key.push(b"\x00\x01ab"[(next() % 4) as usize]);
                }
                match next() % 5 {
                    0 if !model.is_empty() => {
                        let i = (next() as usize) % model.len();
                        model.remove(i);
                        keys.remove(i);
                    }
                    1 if model.len() > 2 => {
                        let at = 1 + (next() as usize) % (model.len() - 1);
                        let right = keys.split_off(at);
                        let model_right = model.split_off(at);
                        assert_eq!(right.iter().map(<[u8]>::to_vec).collect::<Vec<_>>(), model_right);
                        if next() % 2 == 0 {
                            keys.append(&right);
                            model.extend(model_right);
                        }
                    }
                    _ => {
                        if let Err(i) = model.binary_search(&key) {
                            model.insert(i, key.clone());
                            keys.insert(i, &key);
                        }
                    }
                }
                assert_eq!(keys.iter().map(<[u8]>::to_vec).collect::<Vec<_>>(), model);
                let mut probe = stem.to_vec();
                for _ in 0..(next() % 14) {
                    probe.push(b"\x00\x01ab"[(next() % 4) as usize]);
                }
                if next() % 4 == 0 {
                    probe = probe[..(next() as usize) % (probe.len() + 1)].to_vec();
                }
                for candidate in [&probe, model.first().unwrap_or(&probe), model.last().unwrap_or(&probe)] {
                    assert_eq!(keys.search(candidate), model.binary_search(candidate), "search {candidate:?} in {model:?}");
                    assert_eq!(keys.upper_bound(candidate), model.partition_point(|k| k <= candidate), "upper_bound {candidate:?}");
                }
            }
        }
    }
}
