//! Opening the WAL after a clean shutdown or a crash: scan, tell a torn tail from
//! corruption, cut the tail, and keep (never drop) damage to checkpointed history.
//! The rules and why they hold are in the module docs of `wal`.

use std::path::Path;

use super::frame::{self, Header, FRAME_ALIGN};
use super::segment::{is_zero, list_segments, nonzero_end, read_all, read_all_into, Segment, WalDamage};
use super::{Frame, Recovered, SEGMENT_FILE_BYTES_MAX};
use crate::error::{Error, Result};
use crate::vfs::{Vfs, VfsFile};

pub struct Outcome {
    pub segments: Vec<Segment>,
    pub next_lsn: u64,
    pub recovered: Recovered,
    /// Read-only: segment files a writable open would have removed (a torn tail).
    pub doomed: Vec<String>,
}

fn corrupted(segment: &str, offset: u64) -> Error {
    Error::WalCorrupted {
        segment: segment.to_string(),
        offset,
    }
}

/// How a scan of one segment's bytes ended.
enum Stop {
    /// The frames end here: the rest of the file (if any) is zeros.
    End,
    /// An unreadable frame at this offset where a frame after the checkpoint was
    /// expected: a torn tail or corruption (rules 1-4).
    Unreadable(usize),
    /// The checkpointed frames from the segment's end LSN on are damaged at `offset`,
    /// and no readable frame follows in this segment: how many are lost depends on
    /// where the next segment starts.
    DamagedToEnd { offset: usize },
    /// Checkpointed frames from `from_lsn` on are damaged at `offset`, and the frames
    /// after the checkpoint that follow them are unreadable too, up to a readable
    /// frame further on: torn tail or corruption, judged from the checkpoint on.
    DamagedThenUnreadable { offset: usize, from_lsn: u64 },
}

/// `read_only`: compute everything in memory; zero, remove and create nothing.
pub fn recover(vfs: &dyn Vfs, wal_dir: &Path, checkpoint_lsn: u64, read_only: bool) -> Result<Outcome> {
    let names = if read_only && !vfs.exists(wal_dir).map_err(|e| Error::io("stat WAL directory", wal_dir, e))? {
        Vec::new()
    } else {
        list_segments(vfs, wal_dir)?
    };
    if let Some((first_lsn, name)) = names.first() {
        // LSNs start at 1. The oldest segment may start anywhere retention left it, but
        // not past the checkpoint: frames after the checkpoint are needed for replay.
        if *first_lsn == 0 || *first_lsn > checkpoint_lsn.saturating_add(1) {
            return Err(corrupted(name, 0));
        }
    }
    let after_checkpoint = checkpoint_lsn.saturating_add(1);

    let mut segments: Vec<Segment> = Vec::new();
    let mut frames = Vec::new();
    let mut torn_bytes = 0u64;
    let mut doomed = Vec::new();
    // Next LSN expected; the oldest segment's name sets it.
    let mut expected = names.first().map_or(0, |(lsn, _)| *lsn);
    // Where the previous segment's frames stop short of `expected` with bytes other
    // than zeros after them (`Stop::DamagedToEnd`).
    let mut damaged_end: Option<usize> = None;
    // One buffer for every segment (see read_all_into).
    let mut data = Vec::new();
    for (i, (first_lsn, name)) in names.iter().enumerate() {
        if let Some(previous) = segments.last_mut() {
            let damaged_at = damaged_end.take();
            if *first_lsn != expected || damaged_at.is_some() {
                // The previous segment ends before `expected..first_lsn`: damaged or
                // missing frames. Only checkpointed ones may be lost (recovery does
                // not need them); anything else is refused.
                let lost_ok = *first_lsn >= expected && *first_lsn <= after_checkpoint;
                match (lost_ok, damaged_at) {
                    (true, Some(offset)) => previous.add_damage(expected..*first_lsn, offset as u64),
                    (true, None) => {
                        let offset = previous.bytes;
                        previous.add_damage(expected..*first_lsn, offset);
                    }
                    (false, Some(offset)) => return Err(corrupted(&previous.name, offset as u64)),
                    (false, None) => return Err(corrupted(name, 0)),
                }
            }
        }
        let path = wal_dir.join(name);
        let file = open_segment(vfs, &path, read_only)?;
        read_all_into(&*file, &path, &mut data)?;
        let mut segment = Segment {
            name: name.clone(),
            path,
            first_lsn: *first_lsn,
            file,
            offsets: Vec::new(),
            bytes: 0,
            file_bytes: data.len() as u64,
            damage: Vec::new(),
        };
        let stop = scan_segment(&data, &mut segment, checkpoint_lsn, &mut frames)?;
        expected = segment.end_lsn();
        let (bad_offset, damaged_from) = match stop {
            Stop::End => {
                segments.push(segment);
                continue;
            }
            Stop::DamagedToEnd { offset } => {
                damaged_end = Some(offset);
                segments.push(segment);
                continue;
            }
            Stop::Unreadable(offset) => (offset, None),
            Stop::DamagedThenUnreadable { offset, from_lsn } => (offset, Some(from_lsn)),
        };

        // The first unreadable frame after the checkpoint: torn tail or corruption?
        let torn_from = expected.max(after_checkpoint);
        let later = &names[i + 1..];
        let later_bytes =
            match later_batch_search(vfs, wal_dir, &data, bad_offset, torn_from, later, read_only)? {
                Search::LaterBatchFound => return Err(corrupted(name, bad_offset as u64)),
                Search::TornTail { later_bytes } => later_bytes,
            };
        // Later segments go first: a crash in between then finds the same torn tail
        // again, never a cleaned segment followed by a gap.
        let later_names = later.iter().map(|(_, name)| name.as_str());
        if read_only {
            doomed.extend(later_names.map(str::to_string));
        } else {
            remove_durably(vfs, wal_dir, later_names)?;
        }
        let cleared = match damaged_from {
            None => {
                // The torn bytes are overwritten with zeros rather than cut off, so the
                // file keeps its preallocated space, and no torn frame can reappear after
                // the new frames that will be appended here. (Frames stop at the first
                // unreadable one, so nothing but zeros may ever follow the last frame.)
                let dirty_end = nonzero_end(&data);
                if !read_only {
                    zero_durably(&*segment.file, &segment.path, &[(bad_offset, dirty_end)])?;
                }
                (dirty_end - bad_offset) as u64
            }
            Some(from_lsn) => {
                // The damaged checkpointed frames stay as evidence (the segment is sealed,
                // nothing is appended after them); only the torn batch's readable frames
                // are cleared, so no later probe can mistake them for history.
                segment.add_damage(from_lsn..torn_from, bad_offset as u64);
                let torn = readable_frames_from(&data, bad_offset, torn_from);
                if !read_only {
                    zero_durably(&*segment.file, &segment.path, &torn)?;
                }
                torn.iter().map(|(start, end)| (end - start) as u64).sum()
            }
        };
        torn_bytes += cleared + later_bytes;
        expected = segment.end_lsn();
        segments.push(segment);
        break;
    }
    if let Some(segment) = segments.last_mut() {
        // The newest segment ends before the checkpoint: its last frames are damaged
        // (or missing); retention never deletes the newest segment, so they cannot
        // have been removed legitimately.
        // (`damaged_end` is only ever set with `expected <= checkpoint_lsn`.)
        if expected < after_checkpoint {
            let offset = damaged_end.map_or(segment.bytes, |o| o as u64);
            segment.add_damage(expected..after_checkpoint, offset);
            expected = after_checkpoint;
        }
    }

    let damage: Vec<WalDamage> = segments.iter().flat_map(|s| s.damage.iter().cloned()).collect();
    let next_lsn = if segments.is_empty() { after_checkpoint } else { expected };
    // Damage is only ever checkpointed history: the frames to replay end where the WAL does.
    assert!(next_lsn >= after_checkpoint, "the next LSN is past the checkpoint");
    assert!(frames.first().is_none_or(|f| f.lsn > checkpoint_lsn), "only frames after the checkpoint are replayed");
    assert!(frames.last().is_none_or(|f| f.lsn + 1 == next_lsn), "the next LSN follows the last frame recovered");
    assert!(damage.iter().all(|d| d.lsns.end <= after_checkpoint), "the damage recovery keeps is checkpointed history");
    Ok(Outcome {
        segments,
        next_lsn,
        recovered: Recovered { frames, torn_bytes, damage },
        doomed,
    })
}

fn open_segment(vfs: &dyn Vfs, path: &Path, read_only: bool) -> Result<std::sync::Arc<dyn VfsFile>> {
    let file = if read_only { vfs.open_read(path) } else { vfs.open(path, false) };
    file.map_err(|e| Error::io("open WAL segment", path, e))
}

/// Whether the readable frame at `offset` belongs where it sits: the expected LSN, a
/// batch start that is its own LSN or its batch's, zero padding, within the cap.
/// After a resynchronisation (`batch_start` unknown mid-segment) any batch start up
/// to its own LSN fits.
fn fits(rest: &[u8], header: &Header, offset: usize, lsn: u64, batch_start: Option<u64>, resynced: bool) -> bool {
    // A batch never spans segments, so the first frame of a segment starts one.
    let in_batch = header.batch_start_lsn == header.lsn
        || Some(header.batch_start_lsn) == batch_start
        || (resynced && header.batch_start_lsn < header.lsn);
    header.lsn == lsn
        && in_batch
        && frame::padding_is_zero(rest, header)
        && (offset + header.frame_bytes()) as u64 <= SEGMENT_FILE_BYTES_MAX
}

/// Scans a segment's frames in order, filling its index (damage included) and
/// collecting frames after the checkpoint.
fn scan_segment(
    data: &[u8],
    segment: &mut Segment,
    checkpoint_lsn: u64,
    frames: &mut Vec<Frame>,
) -> Result<Stop> {
    let mut offset = 0usize;
    let mut batch_start: Option<u64> = None;
    let mut resynced = false;
    while offset < data.len() {
        let rest = &data[offset..];
        let lsn = segment.end_lsn();
        let header = frame::check(rest);
        if let Some(header) = header.filter(|h| fits(rest, h, offset, lsn, batch_start, resynced)) {
            if lsn > checkpoint_lsn {
                // Paired with replay (`database/`), which asserts each frame follows the last.
                assert!(frames.last().is_none_or(|f: &Frame| f.lsn + 1 == lsn), "frames to replay are recovered in LSN order, none skipped");
                frames.push(Frame {
                    lsn,
                    payload: frame::payload(rest, &header).to_vec(),
                });
            }
            let end = offset + header.frame_bytes();
            segment.offsets.push(offset as u32);
            segment.bytes = end as u64;
            batch_start = Some(header.batch_start_lsn);
            resynced = false;
            offset = end;
            continue;
        }
        // Nothing but zeros from here on: preallocated space (or an unsynced batch
        // none of whose sectors landed). The segment's frames end here; no tear.
        if is_zero(rest) {
            return Ok(Stop::End);
        }
        if lsn > checkpoint_lsn {
            // A readable frame that does not fit is corruption at once: a crash tears
            // or drops writes but never moves whole frames.
            if header.is_some() {
                return Err(corrupted(&segment.name, offset as u64));
            }
            return Ok(Stop::Unreadable(offset));
        }
        // A checkpointed frame was synced: this is damage, never a torn write.
        // Resynchronise on the next readable frame that continues the LSNs.
        match next_readable_after(data, offset, lsn) {
            Some((at, next)) if next.lsn <= checkpoint_lsn + 1 => {
                segment.add_damage(lsn..next.lsn, offset as u64);
                offset = at;
                batch_start = None;
                resynced = true;
            }
            Some(_) => return Ok(Stop::DamagedThenUnreadable { offset, from_lsn: lsn }),
            None => return Ok(Stop::DamagedToEnd { offset }),
        }
    }
    Ok(Stop::End)
}

/// The first readable frame at or after `start` whose LSN is above `lsn`, probing
/// 8-aligned offsets; a readable frame is skipped over whole (as in rule 2).
fn next_readable_after(data: &[u8], start: usize, lsn: u64) -> Option<(usize, Header)> {
    let mut offset = start;
    while offset < data.len() {
        match frame::check(&data[offset..]) {
            Some(header) if header.lsn > lsn => return Some((offset, header)),
            Some(header) => offset += header.frame_bytes(),
            None => offset += FRAME_ALIGN,
        }
    }
    None
}

/// Every readable frame at or after `start` with an LSN of at least `lsn`, as byte
/// ranges: the torn batch's frames that survived whole.
fn readable_frames_from(data: &[u8], start: usize, lsn: u64) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let mut offset = start;
    while offset < data.len() {
        match frame::check(&data[offset..]) {
            Some(header) => {
                let end = offset + header.frame_bytes();
                if header.lsn >= lsn {
                    found.push((offset, end));
                }
                offset = end;
            }
            None => offset += FRAME_ALIGN,
        }
    }
    found
}

fn zero_durably(file: &dyn VfsFile, path: &Path, ranges: &[(usize, usize)]) -> Result<()> {
    if ranges.is_empty() {
        return Ok(());
    }
    for &(start, end) in ranges {
        file.write_at(&vec![0u8; end - start], start as u64)
            .map_err(|e| Error::io("clear torn WAL tail", path, e))?;
    }
    file.sync()
        .map_err(|e| Error::io("sync WAL segment", path, e))
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
    read_only: bool,
) -> Result<Search> {
    if later_batch_in(data, bad_offset, expected) {
        return Ok(Search::LaterBatchFound);
    }
    let mut later_bytes = 0u64;
    for (_, name) in later {
        let path = wal_dir.join(name);
        let file = open_segment(vfs, &path, read_only)?;
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
