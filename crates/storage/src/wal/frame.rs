//! A WAL frame: one committed transaction's opaque payload, with its LSN.
//!
//! Layout of every frame (little-endian); frames start at 8-aligned segment offsets:
//!
//! | offset | bytes       | field           | meaning                                              |
//! |-------:|------------:|-----------------|------------------------------------------------------|
//! |      0 |           4 | magic           | `FRAME_MAGIC` = 0x4C41_5754, the bytes "TWAL" on disk |
//! |      4 |           4 | payload_len     | bytes of payload, at most `FRAME_PAYLOAD_BYTES_MAX`   |
//! |      8 |           8 | lsn             | this frame's LSN                                     |
//! |     16 |           8 | batch_start_lsn | LSN of the first frame of the batch (group commit)   |
//! |     24 |           8 | checksum        | xxh3_64 of bytes 0..24 followed by the payload       |
//! |     32 | payload_len | payload         | opaque to the WAL                                    |
//! |    ... |         0-7 | padding         | zeros up to the next multiple of 8                   |
//!
//! The checksum covers the header fields and the payload. The padding is outside it
//! but must be zero, so every bit of a frame is checked. `batch_start_lsn` is what
//! lets recovery tell a torn last batch from damage to an earlier, synced one (see
//! the module docs of `wal`).

use xxhash_rust::xxh3::Xxh3Default;

use super::FRAME_PAYLOAD_BYTES_MAX;

/// "TWAL" when stored little-endian: b'T' = 0x54, b'W' = 0x57, b'A' = 0x41, b'L' = 0x4C.
pub const FRAME_MAGIC: u32 = 0x4C41_5754;
pub const FRAME_HEADER_BYTES: usize = 32;
/// Frames start at multiples of this, so a forward scan only probes aligned offsets.
pub const FRAME_ALIGN: usize = 8;

const OFFSET_MAGIC: usize = 0;
const OFFSET_PAYLOAD_LEN: usize = 4;
const OFFSET_LSN: usize = 8;
const OFFSET_BATCH_START: usize = 16;
const OFFSET_CHECKSUM: usize = 24;

const _: () = assert!(OFFSET_CHECKSUM + 8 == FRAME_HEADER_BYTES);
const _: () = assert!(FRAME_HEADER_BYTES == 32);
const _: () = assert!(FRAME_HEADER_BYTES.is_multiple_of(FRAME_ALIGN));
const _: () = assert!(u32::from_le_bytes(*b"TWAL") == FRAME_MAGIC);
const _: () = assert!(FRAME_PAYLOAD_BYTES_MAX <= u32::MAX as usize);

/// The header of a frame whose magic, length and checksum hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub payload_len: usize,
    pub lsn: u64,
    pub batch_start_lsn: u64,
}

impl Header {
    /// Bytes the frame takes in the segment, padding included.
    pub fn frame_bytes(&self) -> usize {
        frame_bytes(self.payload_len)
    }
}

/// Bytes a frame with `payload_len` bytes of payload takes, padding included.
pub fn frame_bytes(payload_len: usize) -> usize {
    (FRAME_HEADER_BYTES + payload_len).next_multiple_of(FRAME_ALIGN)
}

/// Appends the encoded frame (with padding) to `out`.
pub fn encode_into(out: &mut Vec<u8>, lsn: u64, batch_start_lsn: u64, payload: &[u8]) {
    assert!(
        payload.len() <= FRAME_PAYLOAD_BYTES_MAX,
        "caller checks the payload cap"
    );
    let start = out.len();
    let mut header = [0u8; FRAME_HEADER_BYTES];
    header[OFFSET_MAGIC..OFFSET_MAGIC + 4].copy_from_slice(&FRAME_MAGIC.to_le_bytes());
    header[OFFSET_PAYLOAD_LEN..OFFSET_PAYLOAD_LEN + 4]
        .copy_from_slice(&(payload.len() as u32).to_le_bytes());
    header[OFFSET_LSN..OFFSET_LSN + 8].copy_from_slice(&lsn.to_le_bytes());
    header[OFFSET_BATCH_START..OFFSET_BATCH_START + 8]
        .copy_from_slice(&batch_start_lsn.to_le_bytes());
    let sum = frame_checksum(&header[..OFFSET_CHECKSUM], payload);
    header[OFFSET_CHECKSUM..].copy_from_slice(&sum.to_le_bytes());
    out.extend_from_slice(&header);
    out.extend_from_slice(payload);
    out.resize(start + frame_bytes(payload.len()), 0);
}

/// Checks the frame at the start of `rest` (the segment bytes from the frame's offset
/// to the end of what is known): magic, length cap, the whole padded frame present,
/// and checksum. `None` means unreadable: missing, torn or damaged. A `Some` frame is
/// exactly what some writer wrote; whether it belongs where it sits (LSN, batch,
/// padding) is the caller's question.
pub fn check(rest: &[u8]) -> Option<Header> {
    if rest.len() < FRAME_HEADER_BYTES || read_u32(rest, OFFSET_MAGIC) != FRAME_MAGIC {
        return None;
    }
    let payload_len = read_u32(rest, OFFSET_PAYLOAD_LEN) as usize;
    if payload_len > FRAME_PAYLOAD_BYTES_MAX || frame_bytes(payload_len) > rest.len() {
        return None;
    }
    let payload = &rest[FRAME_HEADER_BYTES..FRAME_HEADER_BYTES + payload_len];
    if read_u64(rest, OFFSET_CHECKSUM) != frame_checksum(&rest[..OFFSET_CHECKSUM], payload) {
        return None;
    }
    Some(Header {
        payload_len,
        lsn: read_u64(rest, OFFSET_LSN),
        batch_start_lsn: read_u64(rest, OFFSET_BATCH_START),
    })
}

/// The payload of a frame that passed [`check`].
pub fn payload<'a>(rest: &'a [u8], header: &Header) -> &'a [u8] {
    &rest[FRAME_HEADER_BYTES..FRAME_HEADER_BYTES + header.payload_len]
}

/// Whether the padding after the payload of a frame that passed [`check`] is zero.
pub fn padding_is_zero(rest: &[u8], header: &Header) -> bool {
    rest[FRAME_HEADER_BYTES + header.payload_len..header.frame_bytes()]
        .iter()
        .all(|&b| b == 0)
}

/// xxh3_64 of `header_fields ++ payload`, streamed so a large payload is not copied.
/// Equal to `crate::encoding::checksum` of the concatenation (tested below).
fn frame_checksum(header_fields: &[u8], payload: &[u8]) -> u64 {
    let mut hasher = Xxh3Default::new();
    hasher.update(header_fields);
    hasher.update(payload);
    hasher.digest()
}

fn read_u32(bytes: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes(bytes[offset..offset + 4].try_into().expect("4 bytes"))
}

fn read_u64(bytes: &[u8], offset: usize) -> u64 {
    u64::from_le_bytes(bytes[offset..offset + 8].try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::checksum;

    #[test]
    fn frame_checksum_is_the_crate_checksum_of_header_then_payload() {
        for len in [0usize, 1, 7, 8, 100, 240, 1000, 5000] {
            let payload: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            let mut out = Vec::new();
            encode_into(&mut out, 42, 40, &payload);
            let mut joined = out[..OFFSET_CHECKSUM].to_vec();
            joined.extend_from_slice(&payload);
            assert_eq!(
                read_u64(&out, OFFSET_CHECKSUM),
                checksum(&joined),
                "len {len}"
            );
        }
    }

    #[test]
    fn frame_encodes_aligned_and_checks_back() {
        for len in 0..20usize {
            let bytes = vec![0xAB; len];
            let mut out = vec![1, 2, 3, 4, 5, 6, 7, 8];
            encode_into(&mut out, 9, 7, &bytes);
            assert_eq!(out.len() % FRAME_ALIGN, 0);
            assert_eq!(&out[..4], b"\x01\x02\x03\x04");
            assert_eq!(&out[8..12], b"TWAL");
            let header = check(&out[8..]).expect("a fresh frame checks");
            assert_eq!(
                header,
                Header {
                    payload_len: len,
                    lsn: 9,
                    batch_start_lsn: 7
                }
            );
            assert_eq!(payload(&out[8..], &header), &bytes[..]);
            assert!(padding_is_zero(&out[8..], &header));
            // One byte short of the padded frame is unreadable, not a short frame.
            assert_eq!(check(&out[8..out.len() - 1]), None);
        }
    }

    #[test]
    fn frame_claiming_more_than_the_payload_cap_is_unreadable() {
        let mut out = Vec::new();
        encode_into(&mut out, 1, 1, b"x");
        out[OFFSET_PAYLOAD_LEN..OFFSET_PAYLOAD_LEN + 4]
            .copy_from_slice(&((FRAME_PAYLOAD_BYTES_MAX + 1) as u32).to_le_bytes());
        assert_eq!(check(&out), None);
    }
}
