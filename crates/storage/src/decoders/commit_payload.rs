//! Target `commit_payload`: a WAL frame's payload (and the binding's commit buffer)
//! through `Commit::decode`.
//!
//! Input: the payload as it is.

use super::{assert_alloc_bounded, measure};
use crate::commit::Commit;

pub fn check_commit_payload(input: &[u8]) {
    let (result, allocated) = measure(|| Commit::decode(input));
    assert_alloc_bounded("Commit::decode", allocated, input.len());
    let Some(commit) = result else { return };
    assert_eq!(commit.encoded_bytes(), input.len(), "encoded_bytes disagrees with the bytes decoded");
    let encoded = commit.encode();
    if encoded != input {
        let at = (0..input.len().min(encoded.len())).find(|&i| encoded[i] != input[i]);
        panic!("Commit::decode accepted a payload that re-encodes to other bytes (first difference at {at:?})");
    }
    assert_eq!(Commit::decode(&encoded).as_ref(), Some(&commit), "the re-encoded commit decodes differently");
}
