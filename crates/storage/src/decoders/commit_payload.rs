//! Target `commit_payload`: a WAL frame's payload (and the binding's commit buffer)
//! through `CommitPayload::parse`, the check every commit passes before it is applied
//! and logged as it is, and `Commit::decode`, the owned reading of the same format.
//!
//! Input: the payload as it is.
//!
//! Beyond the shared properties: `parse` refuses with `InvalidArgument` only, accepts
//! exactly the payloads `decode` accepts whose operations are within the limits, keeps
//! the bytes it accepted as they are, and its operations read in place are `decode`'s.
//! What `decode` accepts re-encodes to the same bytes, but for the version byte of a
//! version 1 payload (`encode` writes version 2).

use super::{assert_alloc_bounded, measure};
use crate::commit::{Commit, OpRef};
use crate::commit::CommitPayload;
use crate::error::Error;
use crate::limits::{KEY_BYTES_MAX, NAME_BYTES_MAX, VALUE_BYTES_MAX};

pub fn check_commit_payload(input: &[u8]) {
    let (result, allocated) = measure(|| Commit::decode(input));
    assert_alloc_bounded("Commit::decode", allocated, input.len());
    let (parsed, allocated) = measure(|| CommitPayload::parse(input.to_vec()));
    // The copy of the input is the only allocation proportional to it.
    assert_alloc_bounded("CommitPayload::parse", allocated, input.len());
    let Some(commit) = result else {
        match parsed {
            Err(Error::InvalidArgument(_)) => return,
            other => panic!("CommitPayload::parse did not refuse a payload Commit::decode refuses: {other:?}"),
        }
    };
    assert_eq!(commit.encoded_bytes(), input.len(), "encoded_bytes disagrees with the bytes decoded");
    let mut encoded = commit.encode();
    // A version 1 payload holds a commit `encode` writes as version 2, the rest the same.
    if input[0] == 1 {
        assert_eq!(encoded[0], 2, "encode writes version 2");
        encoded[0] = 1;
    }
    if encoded != input {
        let at = (0..input.len().min(encoded.len())).find(|&i| encoded[i] != input[i]);
        panic!("Commit::decode accepted a payload that re-encodes to other bytes (first difference at {at:?})");
    }
    assert_eq!(Commit::decode(&commit.encode()).as_ref(), Some(&commit), "the re-encoded commit decodes differently");
    let within = commit.ops.iter().all(|op| within_limits(op.op_ref()));
    match parsed {
        Ok(payload) => {
            assert!(within, "CommitPayload::parse accepted an operation over a limit");
            assert_eq!(payload.bytes(), input, "CommitPayload::parse changed the bytes it accepted");
            let ops: Vec<_> = payload.ops().map(OpRef::to_owned).collect();
            assert_eq!(ops, commit.ops, "the operations read in place differ from Commit::decode's");
        }
        Err(Error::InvalidArgument(_)) => assert!(!within, "CommitPayload::parse refused a payload within every limit"),
        Err(other) => panic!("CommitPayload::parse refused with {other:?}, not InvalidArgument"),
    }
}

/// The limits of `limits.rs`, restated here rather than taken from the check under
/// test.
fn within_limits(op: OpRef<'_>) -> bool {
    let name = |n: &[u8]| (1..=NAME_BYTES_MAX).contains(&n.len());
    match op {
        OpRef::Put { tree, key, value } => name(tree) && key.len() <= KEY_BYTES_MAX && value.len() <= VALUE_BYTES_MAX,
        OpRef::Delete { tree, key } => name(tree) && key.len() <= KEY_BYTES_MAX,
        OpRef::DropTree { tree } | OpRef::CompactTree { tree } => name(tree),
        OpRef::CopyTree { from, to } => name(from) && name(to),
        OpRef::CopyTreeFromPin { pin, from, to } => name(pin) && name(from) && name(to),
        OpRef::Pin { name: n } | OpRef::Unpin { name: n } => name(n),
        OpRef::PinPrefix { name: n, prefix } => name(n) && name(prefix),
    }
}
