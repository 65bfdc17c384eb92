//! Finding WAL frames in segment files by their headers (`docs/format.md`, "WAL
//! frame"), so damage tests can aim at one frame.

/// Where the frame of `lsn` starts in a segment's bytes, and its length (padding
/// included), walking the frames from the start.
pub fn frame_at(segment: &[u8], lsn: u64) -> Option<(usize, usize)> {
    let mut offset = 0;
    while offset + 32 <= segment.len() && &segment[offset..offset + 4] == b"TWAL" {
        let payload_len = u32::from_le_bytes(segment[offset + 4..offset + 8].try_into().unwrap()) as usize;
        let frame_lsn = u64::from_le_bytes(segment[offset + 8..offset + 16].try_into().unwrap());
        let len = (32 + payload_len).next_multiple_of(8);
        if frame_lsn == lsn {
            return Some((offset, len));
        }
        offset += len;
    }
    None
}

/// The segment file name for a first LSN.
pub fn segment_name(first_lsn: u64) -> String {
    format!("{first_lsn:020}.wal")
}
