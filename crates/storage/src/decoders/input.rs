//! Reading a fuzz input's own header fields: every read succeeds (missing bytes read
//! as zero), so every byte string is a valid input and the fuzzer wastes no runs.

pub struct Input<'a> {
    bytes: &'a [u8],
}

impl<'a> Input<'a> {
    pub fn new(bytes: &'a [u8]) -> Input<'a> {
        Input { bytes }
    }

    pub fn u8(&mut self) -> u8 {
        self.take(1).first().copied().unwrap_or(0)
    }

    pub fn u16(&mut self) -> u16 {
        let mut le = [0u8; 2];
        let got = self.take(2);
        le[..got.len()].copy_from_slice(got);
        u16::from_le_bytes(le)
    }

    /// Up to `n` bytes (fewer at the end of the input).
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let (taken, rest) = self.bytes.split_at(n.min(self.bytes.len()));
        self.bytes = rest;
        taken
    }

    /// Everything not read yet.
    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.bytes)
    }
}

/// A small deterministic mixer, to pick positions from input bytes without a PRNG
/// dependency (splitmix64's finaliser).
pub fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}
