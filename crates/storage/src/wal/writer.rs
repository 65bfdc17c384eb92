//! Appending batches and retiring old segments: the only code that changes the WAL
//! after open. Both run under the writer mutex; file I/O happens outside the state
//! lock, and the state changes only after the I/O is durable.
//!
//! A batch's outcome is always known or said to be unknown (`docs/operations.md`,
//! "Disk full"): space is allocated (zero-filled) BEFORE the batch's bytes are
//! written, so a full file system fails the allocation, when nothing of the batch is
//! in the file yet (`Error::StorageFull`, the WAL carries on). Once the batch's
//! `write_at` started, a failure of it or of its `sync` leaves bytes that may or may
//! not reach the disk: `Error::OutcomeUnknown`, and the WAL fail-stops.

use std::sync::Arc;

use super::frame;
use super::segment::{segment_name, Segment};
use super::{Wal, FRAME_PAYLOAD_BYTES_MAX, SEGMENT_BYTES_MAX, SEGMENT_FILE_BYTES_MAX};
use crate::error::{Error, Result};
use crate::vfs::VfsFile;

/// Where a batch goes.
enum Target {
    /// Append to the current (newest) segment at this offset.
    Current {
        file: Arc<dyn VfsFile>,
        path: std::path::PathBuf,
        offset: u64,
        file_bytes: u64,
    },
    /// Start a new segment named after the batch's first LSN.
    New,
}

/// Why a batch write failed, and what that says about its bytes.
enum Failure {
    /// Nothing of the batch reached the file (creating or preallocating failed).
    NotWritten(Error),
    /// The batch's `write_at` ran: its bytes may be in the file, durable or not.
    MaybeWritten(Error),
}

/// What a durable batch write changed.
struct Written {
    /// The segment the batch started, if it started one.
    new_segment: Option<Segment>,
    /// Where the batch starts in its segment.
    offset: u64,
    /// The segment file's length now.
    file_bytes: u64,
}

/// How far to zero-fill a segment file `file_bytes` long once a batch ends at `end`:
/// only when the batch runs past what is allocated, then up to the next multiple of
/// `step` (0: never), and never past `SEGMENT_BYTES_MAX` (the batches there are the
/// segment's last).
fn preallocation_target(step: u64, end: u64, file_bytes: u64) -> Option<u64> {
    if step == 0 || end <= file_bytes {
        return None;
    }
    let target = end.next_multiple_of(step).min(SEGMENT_BYTES_MAX);
    (target > end).then_some(target)
}

pub fn append_batch(wal: &Wal, frames: &[(u64, &[u8])]) -> Result<()> {
    if wal.read_only {
        return Err(Error::ReadOnly("writing the WAL"));
    }
    let mut failed = wal.lock_writer();
    if let Some(cause) = failed.as_ref() {
        return Err(Error::FailStopped(cause.clone()));
    }
    if frames.is_empty() {
        return Ok(());
    }
    // Only this thread (holding the writer mutex) changes the state, so what is read
    // here stays true until we publish.
    let (first_lsn, current) = {
        let state = wal.read_state();
        let current = state
            .segments
            .last()
            .filter(|s| !s.sealed())
            .map(|s| (Arc::clone(&s.file), s.path.clone(), s.bytes, s.end_lsn(), s.file_bytes));
        (state.next_lsn, current)
    };
    for (i, (lsn, _)) in frames.iter().enumerate() {
        assert_eq!(
            *lsn,
            first_lsn + i as u64,
            "WAL batch frame {i} has LSN {lsn}; frames must be consecutive from next_lsn {first_lsn}"
        );
    }
    if let Some((lsn, payload)) = frames
        .iter()
        .find(|(_, p)| p.len() > FRAME_PAYLOAD_BYTES_MAX)
    {
        return Err(Error::InvalidArgument(format!(
            "WAL frame {lsn} has a payload of {} bytes, over the {FRAME_PAYLOAD_BYTES_MAX}-byte cap",
            payload.len()
        )));
    }
    let batch_bytes: u64 = frames
        .iter()
        .map(|(_, p)| frame::frame_bytes(p.len()) as u64)
        .sum();
    if batch_bytes > SEGMENT_FILE_BYTES_MAX {
        return Err(Error::InvalidArgument(format!(
            "WAL batch of {batch_bytes} bytes exceeds the {SEGMENT_FILE_BYTES_MAX}-byte segment cap"
        )));
    }

    let mut buf = Vec::with_capacity(batch_bytes as usize);
    let mut relative = Vec::with_capacity(frames.len());
    for (lsn, payload) in frames {
        relative.push(buf.len() as u64);
        frame::encode_into(&mut buf, *lsn, first_lsn, payload);
    }

    let target = match current {
        // Append only to a segment that continues at first_lsn, is not full, keeps
        // its offsets within u32, and is not sealed (holds no damage).
        Some((file, path, bytes, end_lsn, file_bytes))
            if end_lsn == first_lsn
                && bytes < SEGMENT_BYTES_MAX
                && bytes + batch_bytes <= SEGMENT_FILE_BYTES_MAX =>
        {
            Target::Current {
                file,
                path,
                offset: bytes,
                file_bytes,
            }
        }
        _ => Target::New,
    };
    let written = write_durably(wal, target, first_lsn, &buf);
    let Written { new_segment, offset: base, file_bytes } = match written {
        Ok(done) => done,
        // Nothing was written and the file system is only full: carry on.
        Err(Failure::NotWritten(e @ Error::StorageFull { .. })) => return Err(e),
        Err(Failure::NotWritten(e)) => {
            // Nothing of this batch was written, but the device failed: stop.
            let cause = e.to_string();
            *failed = Some(cause.clone());
            return Err(Error::FailStopped(cause));
        }
        Err(Failure::MaybeWritten(e)) => {
            // Fail-stop: after a failed write or fsync, what is durable is unknown.
            let cause = e.to_string();
            *failed = Some(cause.clone());
            return Err(Error::OutcomeUnknown(cause));
        }
    };

    let mut state = wal.write_state();
    if let Some(segment) = new_segment {
        state.segments.push(segment);
    }
    let segment = state
        .segments
        .last_mut()
        .expect("the batch's segment is listed");
    segment
        .offsets
        .extend(relative.iter().map(|r| (base + r) as u32));
    segment.bytes = base + batch_bytes;
    segment.file_bytes = file_bytes;
    // Paired with recovery, which finds the next LSN where the newest segment ends.
    assert_eq!(segment.end_lsn(), first_lsn + frames.len() as u64, "the newest segment ends at the next LSN");
    assert!(segment.bytes <= SEGMENT_FILE_BYTES_MAX, "a segment never grows past its cap");
    state.next_lsn = first_lsn + frames.len() as u64;
    Ok(())
}

/// Writes the batch with one `write_at` and one `sync`: for a new segment, create,
/// allocate, write, sync, `sync_dir`; when the batch runs past the allocated space of
/// the current one, an `allocate` of zeros first, which the same `sync` makes
/// durable. A batch inside the allocated space only overwrites zeros, which needs no
/// new space.
fn write_durably(wal: &Wal, target: Target, first_lsn: u64, buf: &[u8]) -> std::result::Result<Written, Failure> {
    let (file, path, offset, file_bytes, new) = match target {
        Target::Current { file, path, offset, file_bytes } => (file, path, offset, file_bytes, false),
        Target::New => {
            let path = wal.dir.join(segment_name(first_lsn));
            let file = wal
                .vfs
                .open(&path, true)
                .map_err(|e| Failure::NotWritten(Error::io_or_full("create WAL segment", &path, e)))?;
            (file, path, 0, 0, true)
        }
    };
    let end = offset + buf.len() as u64;
    let mut file_bytes = file_bytes;
    if end > file_bytes {
        let target = preallocation_target(wal.preallocate_bytes, end, file_bytes).unwrap_or(end);
        if let Err(e) = file.allocate(target) {
            if new {
                // Best effort: an empty (or zero-filled) segment is harmless to
                // recovery, and a later batch reopens the same name anyway.
                let _ = wal.vfs.remove(&path);
            }
            return Err(Failure::NotWritten(Error::io_or_full("preallocate WAL segment", &path, e)));
        }
        file_bytes = target;
    }
    let maybe = |op, e| Failure::MaybeWritten(Error::io(op, &path, e));
    file.write_at(buf, offset).map_err(|e| maybe("write WAL segment", e))?;
    file.sync().map_err(|e| maybe("sync WAL segment", e))?;
    if !new {
        return Ok(Written { new_segment: None, offset, file_bytes });
    }
    // The batch is only durable once the new file's name is.
    wal.vfs
        .sync_dir(&wal.dir)
        .map_err(|e| Failure::MaybeWritten(Error::io("sync WAL directory", &wal.dir, e)))?;
    let segment = Segment {
        name: segment_name(first_lsn),
        path,
        first_lsn,
        file,
        offsets: Vec::new(),
        bytes: 0,
        file_bytes: 0,
        damage: Vec::new(),
    };
    Ok(Written { new_segment: Some(segment), offset: 0, file_bytes })
}

pub fn retain(wal: &Wal, checkpoint_lsn: u64, retention_bytes: u64) -> Result<()> {
    if wal.read_only {
        return Err(Error::ReadOnly("WAL retention"));
    }
    let mut failed = wal.lock_writer();
    if let Some(cause) = failed.as_ref() {
        return Err(Error::FailStopped(cause.clone()));
    }
    // Unlisted first, so no new read starts on a segment being removed (reads already
    // under way keep their open handle).
    let doomed: Vec<std::path::PathBuf> = {
        let mut state = wal.write_state();
        let mut remaining = state.bytes();
        let mut count = 0;
        // `count + 1 < len`: never the newest segment.
        while count + 1 < state.segments.len() {
            let segment = &state.segments[count];
            let all_checkpointed = segment.end_lsn() <= checkpoint_lsn.saturating_add(1);
            if !all_checkpointed || remaining - segment.bytes < retention_bytes {
                break;
            }
            remaining -= segment.bytes;
            count += 1;
        }
        state.segments.drain(..count).map(|s| s.path).collect()
    };
    if doomed.is_empty() {
        return Ok(());
    }
    let removed = (|| {
        for path in &doomed {
            wal.vfs
                .remove(path)
                .map_err(|e| Error::io("remove WAL segment", path, e))?;
        }
        wal.vfs
            .sync_dir(&wal.dir)
            .map_err(|e| Error::io("sync WAL directory", &wal.dir, e))
    })();
    if let Err(e) = &removed {
        *failed = Some(e.to_string());
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preallocation_runs_ahead_in_steps_and_stops_at_the_segment_size() {
        let step = 1 << 20;
        assert_eq!(preallocation_target(step, 232, 0), Some(step), "a new segment");
        assert_eq!(preallocation_target(step, 5000, step), None, "inside the allocated space");
        assert_eq!(preallocation_target(step, step, step), None, "ends exactly at it");
        assert_eq!(preallocation_target(step, step + 8, step), Some(2 * step));
        assert_eq!(preallocation_target(step, 3 * step, 0), None, "a batch ending on a step");
        assert_eq!(preallocation_target(0, 232, 0), None, "turned off");
        assert_eq!(preallocation_target(step, SEGMENT_BYTES_MAX - 8, SEGMENT_BYTES_MAX - step), Some(SEGMENT_BYTES_MAX));
        assert_eq!(preallocation_target(step, SEGMENT_BYTES_MAX + 8, SEGMENT_BYTES_MAX), None, "the segment's last batch");
        assert_eq!(preallocation_target(3 << 20, 5 << 20, 0), Some(6 << 20), "steps need not divide the segment");
        assert_eq!(preallocation_target(5 << 20, (16 << 20) - 8, 15 << 20), Some(SEGMENT_BYTES_MAX));
    }
}
