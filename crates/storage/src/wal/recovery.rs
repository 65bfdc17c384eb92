//! Opening the WAL after a clean shutdown or a crash: scan, tell a torn tail from
//! corruption, cut the tail. The rule and why it holds are in the module docs of `wal`.

use std::path::Path;

use super::frame::{self, FRAME_ALIGN};
use super::segment::{is_zero, list_segments, nonzero_end, read_all, read_all_into, Segment};
use super::{Frame, Recovered, SEGMENT_FILE_BYTES_MAX};
use crate::error::{Error, Result};
use crate::vfs::Vfs;

pub struct Outcome {
    pub segments: Vec<Segment>,
    pub next_lsn: u64,
    pub recovered: Recovered,
}

fn corrupted(segment: &str, offset: u64) -> Error {
    Error::WalCorrupted {
        segment: segment.to_string(),
        offset,
    }
}

pub fn recover(vfs: &dyn Vfs, wal_dir: &Path, checkpoint_lsn: u64) -> Result<Outcome> {
    let names = list_segments(vfs, wal_dir)?;
    if let Some((first_lsn, name)) = names.first() {
        // LSNs start at 1. The oldest segment may start anywhere retention left it, but
        // not past the checkpoint: frames after the checkpoint are needed for replay.
        if *first_lsn == 0 || *first_lsn > checkpoint_lsn.saturating_add(1) {
            return Err(corrupted(name, 0));
        }
    }

    let mut segments: Vec<Segment> = Vec::new();
    let mut frames = Vec::new();
    let mut torn_bytes = 0u64;
    // Next LSN expected; the oldest segment's name sets it.
    let mut expected = names.first().map_or(0, |(lsn, _)| *lsn);
    // One buffer for every segment (see read_all_into).
    let mut data = Vec::new();
    for (i, (first_lsn, name)) in names.iter().enumerate() {
        if *first_lsn != expected {
            return Err(corrupted(name, 0));
        }
        let path = wal_dir.join(name);
        let file = vfs
            .open(&path, false)
            .map_err(|e| Error::io("open WAL segment", &path, e))?;
        read_all_into(&*file, &path, &mut data)?;
        let mut segment = Segment {
            name: name.clone(),
            path,
            first_lsn: *first_lsn,
            file,
            offsets: Vec::new(),
            bytes: 0,
            file_bytes: data.len() as u64,
        };
        let bad_offset = scan_segment(&data, &mut segment, checkpoint_lsn, &mut frames)?;
        expected = segment.end_lsn();
        let Some(bad_offset) = bad_offset else {
            segments.push(segment);
            continue;
        };
        // Nothing but zeros from here on: preallocated space (or an unsynced batch
        // none of whose sectors landed). The segment's frames end here; no tear.
        if is_zero(&data[bad_offset..]) {
            segments.push(segment);
            continue;
        }

        // The first unreadable frame: torn tail or corruption?
        let later = &names[i + 1..];
        let later_bytes =
            match later_batch_search(vfs, wal_dir, &data, bad_offset, expected, later)? {
                Search::LaterBatchFound => return Err(corrupted(name, bad_offset as u64)),
                Search::TornTail { later_bytes } => later_bytes,
            };
        let dirty_end = nonzero_end(&data);
        torn_bytes += (dirty_end - bad_offset) as u64 + later_bytes;
        // Later segments go first: a crash in between then finds the same torn tail
        // again, never a cleaned segment followed by a gap.
        remove_durably(vfs, wal_dir, later.iter().map(|(_, name)| name.as_str()))?;
        // The torn bytes are overwritten with zeros rather than cut off, so the file
        // keeps its preallocated space, and no torn frame can reappear after the new
        // frames that will be appended here. (Frames stop at the first unreadable one,
        // so nothing but zeros may ever follow the last frame.)
        let (file, path) = (&segment.file, &segment.path);
        file.write_at(&vec![0u8; dirty_end - bad_offset], bad_offset as u64)
            .map_err(|e| Error::io("clear torn WAL tail", path, e))?;
        file.sync()
            .map_err(|e| Error::io("sync WAL segment", path, e))?;
        segments.push(segment);
        break;
    }

    let last_lsn = expected.saturating_sub(1);
    let next_lsn = if segments.is_empty() {
        checkpoint_lsn + 1
    } else if checkpoint_lsn > last_lsn {
        // Every stored frame is checkpointed, and keeping them would leave a hole in
        // the LSN sequence before checkpoint_lsn + 1: start afresh there.
        remove_durably(vfs, wal_dir, segments.iter().map(|s| s.name.as_str()))?;
        segments.clear();
        frames.clear();
        checkpoint_lsn + 1
    } else {
        last_lsn + 1
    };
    Ok(Outcome {
        segments,
        next_lsn,
        recovered: Recovered { frames, torn_bytes },
    })
}

/// Scans a segment's frames in order, filling its index and collecting frames after
/// the checkpoint. Returns the offset of the first unreadable frame, if any. A
/// readable frame that does not belong where it sits is corruption at once.
fn scan_segment(
    data: &[u8],
    segment: &mut Segment,
    checkpoint_lsn: u64,
    frames: &mut Vec<Frame>,
) -> Result<Option<usize>> {
    let mut offset = 0usize;
    let mut batch_start: Option<u64> = None;
    while offset < data.len() {
        let rest = &data[offset..];
        let Some(header) = frame::check(rest) else {
            return Ok(Some(offset));
        };
        let lsn = segment.end_lsn();
        let end = offset + header.frame_bytes();
        // A batch never spans segments, so the first frame of a segment starts one.
        let in_batch =
            header.batch_start_lsn == header.lsn || Some(header.batch_start_lsn) == batch_start;
        if header.lsn != lsn
            || !in_batch
            || !frame::padding_is_zero(rest, &header)
            || end as u64 > SEGMENT_FILE_BYTES_MAX
        {
            return Err(corrupted(&segment.name, offset as u64));
        }
        if lsn > checkpoint_lsn {
            frames.push(Frame {
                lsn,
                payload: frame::payload(rest, &header).to_vec(),
            });
        }
        segment.offsets.push(offset as u32);
        segment.bytes = end as u64;
        batch_start = Some(header.batch_start_lsn);
        offset = end;
    }
    Ok(None)
}

enum Search {
    /// A readable frame of a batch that started after the bad frame: it was synced.
    LaterBatchFound,
    /// Only frames of the bad frame's own (unsynced) batch, if any, follow it.
    /// `later_bytes`: the later segments' bytes up to their last nonzero one.
    TornTail { later_bytes: u64 },
}

/// Looks for a readable frame with `lsn >= expected` and `batch_start_lsn > expected`
/// from `bad_offset` in `data` and through every later segment. Linear: a readable
/// frame is skipped whole, anything else advances by the frame alignment.
fn later_batch_search(
    vfs: &dyn Vfs,
    wal_dir: &Path,
    data: &[u8],
    bad_offset: usize,
    expected: u64,
    later: &[(u64, String)],
) -> Result<Search> {
    if later_batch_in(data, bad_offset, expected) {
        return Ok(Search::LaterBatchFound);
    }
    let mut later_bytes = 0u64;
    for (_, name) in later {
        let path = wal_dir.join(name);
        let file = vfs
            .open(&path, false)
            .map_err(|e| Error::io("open WAL segment", &path, e))?;
        let data = read_all(&*file, &path)?;
        if later_batch_in(&data, 0, expected) {
            return Ok(Search::LaterBatchFound);
        }
        later_bytes += nonzero_end(&data) as u64;
    }
    Ok(Search::TornTail { later_bytes })
}

fn later_batch_in(data: &[u8], start: usize, expected: u64) -> bool {
    let mut offset = start;
    while offset < data.len() {
        match frame::check(&data[offset..]) {
            Some(header) => {
                if header.lsn >= expected && header.batch_start_lsn > expected {
                    return true;
                }
                offset += header.frame_bytes();
            }
            None => offset += FRAME_ALIGN,
        }
    }
    false
}

fn remove_durably<'a>(
    vfs: &dyn Vfs,
    wal_dir: &Path,
    names: impl Iterator<Item = &'a str>,
) -> Result<()> {
    let mut removed = false;
    for name in names {
        let path = wal_dir.join(name);
        vfs.remove(&path)
            .map_err(|e| Error::io("remove WAL segment", &path, e))?;
        removed = true;
    }
    if removed {
        vfs.sync_dir(wal_dir)
            .map_err(|e| Error::io("sync WAL directory", wal_dir, e))?;
    }
    Ok(())
}
