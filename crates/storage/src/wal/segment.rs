//! A WAL segment file, `{first_lsn:020}.wal`, and the in-memory index of its frames.
//!
//! Layout of a segment file:
//!
//! | offset | bytes | content                                                            |
//! |-------:|------:|--------------------------------------------------------------------|
//! |      0 |     n | frames (`frame.rs`), back to back, LSNs `first_lsn`, `first_lsn + 1`, ... |
//! |      n |  rest | zeros to the end of the file: preallocated space (`mod.rs`)        |
//!
//! The file is zero-filled in steps of the preallocation step, up to
//! `SEGMENT_BYTES_MAX`; the segment's last batch may end past that, and the file
//! with it. A frame never starts with a zero byte (its magic), so the first offset
//! from which the file holds only zeros is where its frames end.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::vfs::{read_full_or_zero, Vfs, VfsFile};

const SUFFIX: &str = ".wal";
const DIGITS: usize = 20;

const _: () = assert!(u64::MAX.ilog10() as usize + 1 == DIGITS);
// The end of the frames is found by the zeros after them: a frame's first byte is not zero.
const _: () = assert!(super::FRAME_MAGIC.to_le_bytes()[0] != 0);

pub fn segment_name(first_lsn: u64) -> String {
    format!("{first_lsn:020}{SUFFIX}")
}

/// The first LSN a segment file name promises, or `None` if it is not a segment name.
pub fn parse_segment_name(name: &str) -> Option<u64> {
    let digits = name.strip_suffix(SUFFIX)?;
    if digits.len() != DIGITS || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Segment files in `wal_dir` as `(first_lsn, name)`, oldest first. Other names are
/// ignored here (`verify` reports them).
pub fn list_segments(vfs: &dyn Vfs, wal_dir: &Path) -> Result<Vec<(u64, String)>> {
    let names = vfs
        .list(wal_dir)
        .map_err(|e| Error::io("list WAL directory", wal_dir, e))?;
    let mut segments: Vec<(u64, String)> = names
        .into_iter()
        .filter_map(|name| Some((parse_segment_name(&name)?, name)))
        .collect();
    segments.sort();
    Ok(segments)
}

/// One segment as the WAL knows it: only frames that are durable and were verified
/// (at open, or written and synced by this process) are in it, plus the checkpointed
/// frames recovery found damaged or missing (`damage`), which keep their place in
/// the index so that reading them fails instead of skipping them.
pub struct Segment {
    pub name: String,
    pub path: PathBuf,
    pub first_lsn: u64,
    pub file: Arc<dyn VfsFile>,
    /// Start offset of every frame; frame `k` has LSN `first_lsn + k`. u32 because a
    /// segment never grows past `SEGMENT_FILE_BYTES_MAX`; it keeps the index at 4
    /// bytes per frame (a frame is at least 32 bytes).
    pub offsets: Vec<u32>,
    /// End of the last frame: the durable, verified length of the segment's frames.
    /// The file goes on with zeros (preallocated space) up to `file_bytes`.
    pub bytes: u64,
    /// Length of the file as this process last made it (or found it): `bytes`, then
    /// zeros. Only the writer uses it, to know when to preallocate more.
    pub file_bytes: u64,
    /// Damage recovery found here, oldest first (see the module docs of `wal`). A
    /// segment holding any is sealed: no batch is ever appended to it.
    pub damage: Vec<WalDamage>,
}

/// Checkpointed frames (`lsns`, possibly empty: then only bytes after the last frame)
/// found damaged or missing at `offset` of `segment` when the WAL was opened. Their
/// index entries point at `offset`; reading them is `Error::WalCorrupted`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalDamage {
    pub segment: String,
    pub offset: u64,
    pub lsns: std::ops::Range<u64>,
}

impl Segment {
    /// Whether new batches must go to a new segment: this one holds damage.
    pub fn sealed(&self) -> bool {
        !self.damage.is_empty()
    }

    /// Records `lsns` (the next LSNs of this segment) as damaged at `offset`, and
    /// indexes each at `offset`.
    pub fn add_damage(&mut self, lsns: std::ops::Range<u64>, offset: u64) {
        assert_eq!(lsns.start, self.end_lsn(), "damage continues the segment's LSNs");
        let at = u32::try_from(offset).expect("a segment's offsets fit in u32");
        self.offsets.extend(std::iter::repeat_n(at, (lsns.end - lsns.start) as usize));
        // Offsets never decrease and `bytes` is at or past every one of them.
        self.bytes = self.bytes.max(offset);
        self.damage.push(WalDamage { segment: self.name.clone(), offset, lsns });
    }

    pub fn frame_count(&self) -> u64 {
        self.offsets.len() as u64
    }

    /// One past the last LSN held (`first_lsn` when empty).
    pub fn end_lsn(&self) -> u64 {
        self.first_lsn + self.frame_count()
    }

    /// Byte offset where the frame `lsn` starts; `end_lsn()` maps to `bytes`.
    pub fn offset_of(&self, lsn: u64) -> u64 {
        assert!(
            (self.first_lsn..=self.end_lsn()).contains(&lsn),
            "LSN {lsn} is outside segment {}",
            self.name
        );
        match self.offsets.get((lsn - self.first_lsn) as usize) {
            Some(&offset) => u64::from(offset),
            None => self.bytes,
        }
    }
}

/// Whether every byte is zero: how the space after a segment's last frame looks.
pub fn is_zero(bytes: &[u8]) -> bool {
    // Word-wise OR in fixed chunks, so the compiler vectorises it: open reads up to a
    // whole preallocated step of zeros.
    let mut chunks = bytes.chunks_exact(64);
    for chunk in &mut chunks {
        if chunk.iter().fold(0u8, |acc, &b| acc | b) != 0 {
            return false;
        }
    }
    chunks.remainder().iter().all(|&b| b == 0)
}

/// One past the last nonzero byte (0 if all are zero).
pub fn nonzero_end(bytes: &[u8]) -> usize {
    let mut end = bytes.len();
    while end >= 64 && is_zero(&bytes[end - 64..end]) {
        end -= 64;
    }
    while end > 0 && bytes[end - 1] == 0 {
        end -= 1;
    }
    end
}

/// Reads a whole file into memory (short reads past the end read as zeros).
pub fn read_all(file: &dyn VfsFile, path: &Path) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    read_all_into(file, path, &mut buf)?;
    Ok(buf)
}

/// Reads a whole file into `buf`, reusing its allocation. Opening and verifying read
/// segment after segment through one buffer: a fresh 16 MiB vector per segment makes
/// glibc raise its mmap threshold after the first is freed, and the later ones then
/// stay in the heap, keeping tens of MiB resident after open (P12).
pub fn read_all_into(file: &dyn VfsFile, path: &Path, buf: &mut Vec<u8>) -> Result<()> {
    let len = file
        .len()
        .map_err(|e| Error::io("stat WAL segment", path, e))?;
    let len = usize::try_from(len).map_err(|_| {
        Error::InvalidArgument(format!("WAL segment of {len} bytes does not fit in memory"))
    })?;
    buf.clear();
    buf.resize(len, 0);
    read_full_or_zero(file, buf, 0).map_err(|e| Error::io("read WAL segment", path, e))
}

/// Reads `start..end` of a file; bytes past its end read as zeros, so a shrunken file
/// shows up as frames failing their checksum rather than as an I/O error.
pub fn read_range(file: &dyn VfsFile, path: &Path, start: u64, end: u64) -> Result<Vec<u8>> {
    let len = usize::try_from(end - start).map_err(|_| {
        Error::InvalidArgument(format!(
            "WAL range of {} bytes does not fit in memory",
            end - start
        ))
    })?;
    let mut buf = vec![0u8; len];
    read_full_or_zero(file, &mut buf, start).map_err(|e| Error::io("read WAL segment", path, e))?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_checks_find_every_nonzero_byte() {
        for len in [0usize, 1, 63, 64, 65, 200, 1000] {
            let zeros = vec![0u8; len];
            assert!(is_zero(&zeros));
            assert_eq!(nonzero_end(&zeros), 0);
            for at in 0..len {
                let mut bytes = zeros.clone();
                bytes[at] = 1 << (at % 8);
                assert!(!is_zero(&bytes), "len {len} at {at}");
                assert_eq!(nonzero_end(&bytes), at + 1, "len {len} at {at}");
                bytes[0] = 9;
                assert_eq!(nonzero_end(&bytes), at + 1, "len {len} at {at}");
            }
        }
    }

    #[test]
    fn segment_names_round_trip_and_reject_lookalikes() {
        for lsn in [0, 1, 42, u64::MAX] {
            let name = segment_name(lsn);
            assert_eq!(name.len(), 24);
            assert_eq!(parse_segment_name(&name), Some(lsn));
        }
        assert_eq!(segment_name(1), "00000000000000000001.wal");
        for bad in [
            "1.wal",
            "0000000000000000000a.wal",
            "00000000000000000001.tmp",
            "99999999999999999999.wal",
            "+0000000000000000001.wal",
        ] {
            assert_eq!(parse_segment_name(bad), None, "{bad}");
        }
    }
}
