//! Reading durable frames (the change feed). The segment list is locked only to plan
//! the read (file handles and frame offsets); the file I/O runs without any lock.

use std::path::PathBuf;
use std::sync::Arc;

use super::frame::{self, FRAME_ALIGN, FRAME_HEADER_BYTES};
use super::segment::{read_range, WalDamage};
use super::{Frame, Wal};
use crate::error::{Error, Result};
use crate::vfs::VfsFile;

/// A run of consecutive frames in one segment.
struct Piece {
    name: String,
    path: PathBuf,
    file: Arc<dyn VfsFile>,
    first_lsn: u64,
    /// Start of each frame, then the end of the last one.
    bounds: Vec<u64>,
    /// The segment's damage (checkpointed frames found damaged at open).
    damage: Vec<WalDamage>,
}

pub fn read_after(
    wal: &Wal,
    after: u64,
    max_frames: usize,
    max_bytes: usize,
) -> Result<Vec<Frame>> {
    if max_frames == 0 {
        return Ok(Vec::new());
    }
    let pieces = plan(wal, after, max_frames, max_bytes)?;
    let mut frames = Vec::new();
    let mut payload_bytes = 0usize;
    for piece in pieces {
        let start = piece.bounds[0];
        let end = *piece.bounds.last().expect("a piece has bounds");
        let data = read_range(&*piece.file, &piece.path, start, end)?;
        for (k, window) in piece.bounds.windows(2).enumerate() {
            let lsn = piece.first_lsn + k as u64;
            if let Some(damage) = piece.damage.iter().find(|d| d.lsns.contains(&lsn)) {
                // Its size is unknown, so only a count limit can end the read before it.
                if frames.len() == max_frames {
                    return Ok(frames);
                }
                return Err(Error::WalCorrupted {
                    segment: piece.name.clone(),
                    offset: damage.offset,
                });
            }
            let rest = &data[(window[0] - start) as usize..(window[1] - start) as usize];
            // These bytes were verified at open or written by us; failing now is damage.
            let header = frame::check(rest)
                .filter(|h| h.lsn == lsn && h.frame_bytes() == rest.len())
                .ok_or_else(|| Error::WalCorrupted {
                    segment: piece.name.clone(),
                    offset: window[0],
                })?;
            if !frames.is_empty()
                && (frames.len() == max_frames || payload_bytes + header.payload_len > max_bytes)
            {
                return Ok(frames);
            }
            payload_bytes += header.payload_len;
            frames.push(Frame {
                lsn,
                payload: frame::payload(rest, &header).to_vec(),
            });
        }
    }
    Ok(frames)
}

/// Picks the frames to read: a superset of the answer, sized with a lower bound of
/// each payload (frame bytes less header and the largest padding), so the exact byte
/// limit can be applied after reading.
fn plan(wal: &Wal, after: u64, max_frames: usize, max_bytes: usize) -> Result<Vec<Piece>> {
    let state = wal.read_state();
    let Some(want) = after.checked_add(1).filter(|&want| want < state.next_lsn) else {
        return Ok(Vec::new());
    };
    let oldest = state.oldest_lsn();
    if want < oldest {
        return Err(Error::InvalidArgument(format!(
            "WAL frames after LSN {after} were deleted by retention; the oldest stored is {oldest}"
        )));
    }
    let first = state.segments.partition_point(|s| s.end_lsn() <= want);
    let mut pieces = Vec::new();
    let mut count = 0usize;
    let mut min_bytes = 0usize;
    'segments: for segment in &state.segments[first..] {
        let first_lsn = want.max(segment.first_lsn);
        let mut bounds = vec![segment.offset_of(first_lsn)];
        let mut lsn = first_lsn;
        let mut full = false;
        while lsn < segment.end_lsn() {
            let frame_bytes = (segment.offset_of(lsn + 1) - segment.offset_of(lsn)) as usize;
            let min_payload = frame_bytes.saturating_sub(FRAME_HEADER_BYTES + FRAME_ALIGN - 1);
            if count == max_frames
                || (count > 0 && min_bytes.saturating_add(min_payload) > max_bytes)
            {
                full = true;
                break;
            }
            count += 1;
            min_bytes = min_bytes.saturating_add(min_payload);
            lsn += 1;
            bounds.push(segment.offset_of(lsn));
        }
        if bounds.len() > 1 {
            pieces.push(Piece {
                name: segment.name.clone(),
                path: segment.path.clone(),
                file: Arc::clone(&segment.file),
                first_lsn,
                bounds,
                damage: segment.damage.clone(),
            });
        }
        if full {
            break 'segments;
        }
    }
    Ok(pieces)
}
