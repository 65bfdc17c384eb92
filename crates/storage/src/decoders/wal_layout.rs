//! The WAL frame layout as `docs/format.md` documents it, written out again here
//! without `wal/frame.rs`, so the `wal_segments` target compares what recovery returns
//! with an independent reading of the same bytes.

use crate::encoding::checksum;
use crate::limits::WAL_FRAME_PAYLOAD_BYTES_MAX;

pub const HEADER_BYTES: usize = 32;
pub const ALIGN: usize = 8;
const MAGIC: &[u8; 4] = b"TWAL";

/// A frame read by the documented layout.
#[derive(Debug, Clone)]
pub struct LaidFrame {
    pub offset: usize,
    pub payload_len: usize,
    pub lsn: u64,
    pub batch_start_lsn: u64,
    pub padding_is_zero: bool,
}

impl LaidFrame {
    /// Bytes the frame takes, padding included.
    pub fn bytes(&self) -> usize {
        frame_bytes(self.payload_len)
    }

    pub fn payload<'a>(&self, data: &'a [u8]) -> &'a [u8] {
        &data[self.offset + HEADER_BYTES..self.offset + HEADER_BYTES + self.payload_len]
    }
}

pub fn frame_bytes(payload_len: usize) -> usize {
    (HEADER_BYTES + payload_len).next_multiple_of(ALIGN)
}

fn u64_at(data: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(data[at..at + 8].try_into().expect("8 bytes"))
}

/// The payload length of a frame header at `at` whose magic holds and whose padded
/// frame fits in `data` (checksum not checked).
fn shape_at(data: &[u8], at: usize) -> Option<usize> {
    let header = data.get(at..at.checked_add(HEADER_BYTES)?)?;
    if &header[..4] != MAGIC {
        return None;
    }
    let payload_len = u32::from_le_bytes(header[4..8].try_into().expect("4 bytes")) as usize;
    (payload_len <= WAL_FRAME_PAYLOAD_BYTES_MAX && frame_bytes(payload_len) <= data.len() - at).then_some(payload_len)
}

/// The frame at `at`, if magic, length and checksum hold: xxh3_64 of header bytes
/// 0..24 followed by the payload.
pub fn frame_at(data: &[u8], at: usize) -> Option<LaidFrame> {
    let payload_len = shape_at(data, at)?;
    let mut summed = data[at..at + 24].to_vec();
    summed.extend_from_slice(&data[at + HEADER_BYTES..at + HEADER_BYTES + payload_len]);
    if u64_at(data, at + 24) != checksum(&summed) {
        return None;
    }
    let padding = at + HEADER_BYTES + payload_len..at + frame_bytes(payload_len);
    Some(LaidFrame {
        offset: at,
        payload_len,
        lsn: u64_at(data, at + 8),
        batch_start_lsn: u64_at(data, at + 16),
        padding_is_zero: data[padding].iter().all(|&b| b == 0),
    })
}

/// Frames back to back from the start of a segment, up to the first unreadable one.
pub fn frames(data: &[u8]) -> Vec<LaidFrame> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(frame) = frame_at(data, at) {
        at += frame.bytes();
        out.push(frame);
    }
    out
}

/// Recomputes the checksum of every frame found walking from the start of a segment
/// by magic and length alone, so a fuzzer's changes to header fields and payloads
/// still pass the checksum.
pub fn seal(data: &mut [u8]) {
    let mut at = 0;
    while let Some(payload_len) = shape_at(data, at) {
        let mut summed = data[at..at + 24].to_vec();
        summed.extend_from_slice(&data[at + HEADER_BYTES..at + HEADER_BYTES + payload_len]);
        let sum = checksum(&summed);
        data[at + 24..at + 32].copy_from_slice(&sum.to_le_bytes());
        at += frame_bytes(payload_len);
    }
}

/// The documented forward search past an unreadable frame where LSN `expected` was
/// due, from byte `at` of segment `first` on through the later ones: is there a
/// readable frame of a batch that started after `expected`? Readable frames are
/// skipped whole, anything else by the alignment.
pub fn later_batch_after(segments: &[Vec<u8>], first: usize, at: usize, expected: u64) -> bool {
    segments[first..].iter().enumerate().any(|(i, data)| {
        let mut offset = if i == 0 { at } else { 0 };
        while offset < data.len() {
            match frame_at(data, offset) {
                Some(f) if f.lsn >= expected && f.batch_start_lsn > expected => return true,
                Some(f) => offset += f.bytes(),
                None => offset += ALIGN,
            }
        }
        false
    })
}
