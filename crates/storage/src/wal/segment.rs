//! A WAL segment file, `{first_lsn:020}.wal`, and the in-memory index of its frames.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::vfs::{read_full_or_zero, Vfs, VfsFile};

const SUFFIX: &str = ".wal";
const DIGITS: usize = 20;

const _: () = assert!(u64::MAX.ilog10() as usize + 1 == DIGITS);

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
/// (at open, or written and synced by this process) are in it.
pub struct Segment {
    pub name: String,
    pub path: PathBuf,
    pub first_lsn: u64,
    pub file: Arc<dyn VfsFile>,
    /// Start offset of every frame; frame `k` has LSN `first_lsn + k`. u32 because a
    /// segment never grows past `SEGMENT_FILE_BYTES_MAX`; it keeps the index at 4
    /// bytes per frame (a frame is at least 32 bytes).
    pub offsets: Vec<u32>,
    /// End of the last frame: the durable, verified length of the segment.
    pub bytes: u64,
}

impl Segment {
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

/// Reads a whole file into memory (short reads past the end read as zeros).
pub fn read_all(file: &dyn VfsFile, path: &Path) -> Result<Vec<u8>> {
    let len = file
        .len()
        .map_err(|e| Error::io("stat WAL segment", path, e))?;
    read_range(file, path, 0, len)
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
