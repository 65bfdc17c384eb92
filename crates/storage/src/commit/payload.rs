//! A commit as the bytes of its WAL frame payload (`codec.rs`), checked once and then
//! used as they are: the sync thread applies the operations read in place from them
//! and writes the same bytes to the WAL. So what a caller handed in (the binding's
//! Buffer from `src/engine/commit-writer.ts`) is exactly what is logged and what the
//! change feed reads back: there is no second encoding to drift from the first.

use crate::encoding::ByteReader;
use super::codec::{read_header, read_op, Commit, Malformed, OpRef};
use crate::error::{Error, Result};
use crate::limits::{KEY_BYTES_MAX, NAME_BYTES_MAX, VALUE_BYTES_MAX, WAL_FRAME_PAYLOAD_BYTES_MAX};

/// A well-formed commit payload within every limit.
#[derive(Debug)]
pub struct CommitPayload {
    bytes: Vec<u8>,
    /// Where the first operation starts.
    ops_at: usize,
    count: u32,
    /// The format version it was written in (`codec.rs`): an old WAL frame keeps its own.
    version: u8,
}

impl CommitPayload {
    /// Checks `bytes` whole: the size against `WAL_FRAME_PAYLOAD_BYTES_MAX`, the
    /// format version, every length and tag, nothing left over, and each operation's
    /// names, key and value against the limits. Anything else is `InvalidArgument`
    /// naming what is wrong, and nothing has changed.
    pub fn parse(bytes: Vec<u8>) -> Result<CommitPayload> {
        if bytes.len() > WAL_FRAME_PAYLOAD_BYTES_MAX {
            return Err(Error::InvalidArgument(format!(
                "a commit of {} bytes is over the {WAL_FRAME_PAYLOAD_BYTES_MAX}-byte limit of one transaction",
                bytes.len()
            )));
        }
        let malformed = |at: String, why: Malformed| Error::InvalidArgument(format!("the commit payload is malformed: {at}{why}"));
        let mut r = ByteReader::new(&bytes);
        let (version, _meta, count) = read_header(&mut r, bytes.len()).map_err(|why| malformed(String::new(), why))?;
        let ops_at = bytes.len() - r.remaining();
        for n in 0..count {
            let op = read_op(&mut r, version).map_err(|why| malformed(format!("operation {} of {count}: ", n + 1), why))?;
            check_limits(op)?;
        }
        if !r.is_done() {
            return Err(malformed(String::new(), Malformed::TrailingBytes(r.remaining())));
        }
        Ok(CommitPayload { bytes, ops_at, count, version })
    }

    /// The payload, as the WAL frame holds it.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }


    /// The operations in order, read in place.
    pub fn ops(&self) -> Ops<'_> {
        Ops { reader: ByteReader::new(&self.bytes[self.ops_at..]), left: self.count, version: self.version }
    }
}

impl Commit {
    /// This commit's payload (`encode`), checked like any other.
    pub fn to_payload(&self) -> Result<CommitPayload> {
        CommitPayload::parse(self.encode())
    }
}

pub struct Ops<'a> {
    reader: ByteReader<'a>,
    left: u32,
    version: u8,
}

impl<'a> Iterator for Ops<'a> {
    type Item = OpRef<'a>;

    fn next(&mut self) -> Option<OpRef<'a>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        Some(read_op(&mut self.reader, self.version).expect("a parsed payload reads as it did when parsed"))
    }
}

fn check_limits(op: OpRef<'_>) -> Result<()> {
    let name = |what: &str, name: &[u8]| -> Result<()> {
        if name.is_empty() || name.len() > NAME_BYTES_MAX {
            return Err(Error::InvalidArgument(format!("{what} name must be 1 to {NAME_BYTES_MAX} bytes, got {}", name.len())));
        }
        Ok(())
    };
    let key = |key: &[u8]| -> Result<()> {
        if key.len() > KEY_BYTES_MAX {
            return Err(Error::InvalidArgument(format!("key of {} bytes exceeds {KEY_BYTES_MAX}", key.len())));
        }
        Ok(())
    };
    match op {
        OpRef::Put { tree, key: k, value } => {
            name("tree", tree)?;
            key(k)?;
            if value.len() > VALUE_BYTES_MAX {
                return Err(Error::InvalidArgument(format!("value of {} bytes exceeds {VALUE_BYTES_MAX}", value.len())));
            }
            Ok(())
        }
        OpRef::Delete { tree, key: k } => name("tree", tree).and(key(k)),
        OpRef::DropTree { tree } | OpRef::CompactTree { tree } => name("tree", tree),
        OpRef::CopyTree { from, to } => name("tree", from).and(name("tree", to)),
        OpRef::CopyTreeFromPin { pin, from, to } => name("pin", pin).and(name("tree", from)).and(name("tree", to)),
        OpRef::Pin { name: n } | OpRef::Unpin { name: n } => name("pin", n),
        // A prefix is held to a tree name's limits: an empty one would be every tree.
        OpRef::PinPrefix { name: n, prefix } => name("pin", n).and(name("prefix", prefix)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commit::Op;

    fn refused(bytes: Vec<u8>) -> String {
        match CommitPayload::parse(bytes) {
            Err(Error::InvalidArgument(message)) => message,
            other => panic!("expected InvalidArgument, got {other:?}"),
        }
    }

    #[test]
    fn a_parsed_payload_is_kept_as_it_is_and_reads_its_ops_in_place() {
        let commit = Commit {
            meta: b"m".to_vec(),
            ops: vec![
                Op::Put { tree: b"t"[..].into(), key: b"k"[..].into(), value: b"v"[..].into() },
                Op::Pin { name: b"p".to_vec() },
                Op::PinPrefix { name: b"q".to_vec(), prefix: b"t/".to_vec() },
            ],
        };
        let payload = commit.to_payload().unwrap();
        assert_eq!(payload.bytes(), &commit.encode()[..]);
        assert_eq!(payload.ops().map(OpRef::to_owned).collect::<Vec<_>>(), commit.ops);
    }

    #[test]
    fn a_version_1_payload_is_kept_as_it_is_and_reads_its_ops_in_place() {
        let commit = Commit { meta: b"m".to_vec(), ops: vec![Op::Pin { name: b"p".to_vec() }, Op::Unpin { name: b"p".to_vec() }] };
        let mut bytes = commit.encode();
        bytes[0] = 1;
        let payload = CommitPayload::parse(bytes.clone()).unwrap();
        assert_eq!(payload.bytes(), &bytes[..], "logged as it came, in its own version");
        assert_eq!(payload.ops().map(OpRef::to_owned).collect::<Vec<_>>(), commit.ops);
    }

    #[test]
    fn malformed_payloads_and_ops_over_a_limit_are_refused_naming_what_is_wrong() {
        let pin = |name: &[u8]| Commit { meta: Vec::new(), ops: vec![Op::Pin { name: name.to_vec() }] }.encode();
        let mut version = pin(b"p");
        version[0] = 3;
        assert!(refused(version).contains("format version 3, expected 1 to 2"));
        let mut tag = pin(b"p");
        tag[9] = 42;
        assert!(refused(tag).contains("operation 1 of 1: unknown operation tag 42"));
        let whole = pin(b"p");
        assert!(refused(whole[..whole.len() - 1].to_vec()).contains("operation 1 of 1: it ends inside a field"));
        assert!(refused([&whole[..], b"x"].concat()).contains("1 bytes follow the last operation"));
        assert!(refused(pin(b"")).contains("pin name must be 1 to"));
        let pin_prefix = |prefix: &[u8]| Commit { meta: Vec::new(), ops: vec![Op::PinPrefix { name: b"p".to_vec(), prefix: prefix.to_vec() }] }.encode();
        assert!(refused(pin_prefix(b"")).contains("prefix name must be 1 to"));
        let mut old = pin_prefix(b"t/");
        old[0] = 1;
        assert!(refused(old).contains("operation 1 of 1: unknown operation tag 9"), "a version 1 payload holds tags 1 to 8");
        let key = Commit { meta: Vec::new(), ops: vec![Op::Delete { tree: b"t".to_vec(), key: vec![0; KEY_BYTES_MAX + 1] }] };
        assert!(refused(key.encode()).contains("exceeds"));
    }
}
