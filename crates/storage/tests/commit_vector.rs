//! One encoding of a commit (docs/format.md, "Commit payload"): the Rust encoder
//! produces the hand-written vector `vectors/commit_every_op.hex` byte for byte (the
//! TypeScript encoder is held to the same file by test/engine-commit-codec.test.ts), and
//! the bytes a committer hands in are the bytes of its WAL frame, whichever encoder made
//! them. A payload of format version 1 (`vectors/commit_every_op_v1.hex`, what frames
//! written before version 2 hold) is still read, logged as it is, and replayed.

use std::ops::Bound;
use std::sync::mpsc;

use storage::{Commit, CommitPayload, Database, Op, OpRef, Options};

fn vector() -> Vec<u8> {
    hex(include_str!("vectors/commit_every_op.hex"))
}

fn vector_v1() -> Vec<u8> {
    hex(include_str!("vectors/commit_every_op_v1.hex"))
}

/// A vector's bytes: hex pairs, `#` comments.
fn hex(text: &str) -> Vec<u8> {
    let hex: String = text.lines().map(|line| line.split('#').next().unwrap()).collect::<String>().split_whitespace().collect();
    assert_eq!(hex.len() % 2, 0, "the vector has an odd number of hex digits");
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex")).collect()
}

/// The commit the vector spells out, built as Rust callers build commits.
fn every_op() -> Commit {
    let name = |s: &str| s.as_bytes().to_vec();
    Commit {
        meta: name("m1"),
        ops: vec![
            Op::Put { tree: b"t"[..].into(), key: b"k"[..].into(), value: b"v1"[..].into() },
            Op::Pin { name: name("p") },
            Op::PinPrefix { name: name("q"), prefix: name("t/a/") },
            Op::CopyTree { from: name("t"), to: name("c") },
            Op::CopyTreeFromPin { pin: name("p"), from: name("t"), to: name("d") },
            Op::CompactTree { tree: name("t") },
            Op::Delete { tree: name("t"), key: name("k") },
            Op::Unpin { name: name("p") },
            Op::DropTree { tree: name("ŧ") },
        ],
    }
}

#[test]
fn the_rust_encoder_writes_the_hand_written_vector_and_parse_reads_it_back() {
    let commit = every_op();
    assert_eq!(commit.encode(), vector());
    assert_eq!(commit.encoded_bytes(), vector().len());
    let payload = CommitPayload::parse(vector()).expect("the vector is a valid commit");
    assert_eq!(payload.ops().map(OpRef::to_owned).collect::<Vec<_>>(), commit.ops);
    assert_eq!(Commit::decode(&vector()), Some(commit));
}

/// The commit the version 1 vector spells out: `every_op` without its pin prefix.
fn every_op_v1() -> Commit {
    let mut commit = every_op();
    commit.ops.retain(|op| !matches!(op, Op::PinPrefix { .. }));
    commit
}

#[test]
fn a_version_1_payload_is_still_read_logged_as_it_is_and_replayed() {
    let payload = CommitPayload::parse(vector_v1()).expect("a version 1 payload is a valid commit");
    assert_eq!(payload.ops().map(OpRef::to_owned).collect::<Vec<_>>(), every_op_v1().ops);
    assert_eq!(Commit::decode(&vector_v1()), Some(every_op_v1()));
    // What differs from today's encoding of the same commit is the version byte alone.
    assert_eq!(every_op_v1().encode()[1..], vector_v1()[1..]);

    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path(), Options::default()).unwrap();
    let (send, receive) = mpsc::channel();
    db.commit_payload(payload, Box::new(move |result| send.send(result).unwrap()));
    let lsn = receive.recv().unwrap().expect("the version 1 vector commits on an empty database");
    let head = read(&db);
    db.close().unwrap();
    // Reopened with no checkpoint since: the frame is replayed from the WAL.
    let db = Database::open(dir.path(), Options::default()).unwrap();
    assert_eq!(db.read_frames(0, 10, usize::MAX).unwrap().iter().map(|f| (f.lsn, f.payload.clone())).collect::<Vec<_>>(), [(lsn, vector_v1())]);
    assert_eq!(read(&db), head, "the replayed frame gives the same trees");
    assert_eq!(head.iter().map(|(name, _)| name.as_slice()).collect::<Vec<_>>(), [&b"c"[..], b"d", b"t"]);
    db.close().unwrap();
}

/// Every tree of the head and its entries.
fn read(db: &Database) -> Vec<(Vec<u8>, Vec<(Vec<u8>, Vec<u8>)>)> {
    let snapshot = db.snapshot();
    let trees = snapshot.trees().unwrap();
    let entries = |name: &[u8]| snapshot.range(name, Bound::Unbounded, Bound::Unbounded, false, 100).unwrap().into_iter().map(|(k, v)| (k.to_vec(), v.to_vec())).collect();
    trees.into_iter().map(|t| (t.name.clone(), entries(&t.name))).collect()
}

#[test]
fn a_commit_payload_is_logged_as_it_is_by_either_path() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(dir.path(), Options::default()).unwrap();
    // The binding's path: bytes from outside, checked and queued as they are.
    let (send, receive) = mpsc::channel();
    db.commit_payload(CommitPayload::parse(vector()).unwrap(), Box::new(move |result| send.send(result).unwrap()));
    let first = receive.recv().unwrap().expect("the vector commits on an empty database");
    // The vector's prefix pin stays: it goes before the same commit is made again.
    db.commit_sync(Commit { meta: Vec::new(), ops: vec![Op::Unpin { name: b"q".to_vec() }] }).unwrap();
    // Rust callers' path: an owned commit, encoded once.
    let second = db.commit_sync(every_op()).unwrap();
    let frames: Vec<_> = db.read_frames(0, 10, usize::MAX).unwrap().into_iter().filter(|f| f.lsn != first + 1).collect();
    assert_eq!(frames.iter().map(|f| f.lsn).collect::<Vec<_>>(), [first, second]);
    for frame in &frames {
        assert_eq!(frame.payload, vector(), "frame {} holds other bytes than were committed", frame.lsn);
    }
    // And the segment file itself holds them (after the frame header), twice.
    let segment = std::fs::read_dir(dir.path().join("wal")).unwrap().map(|e| e.unwrap().path()).find(|p| p.extension().is_some_and(|e| e == "wal")).unwrap();
    let bytes = std::fs::read(segment).unwrap();
    let found = bytes.windows(vector().len()).filter(|w| *w == vector()).count();
    assert_eq!(found, 2, "the segment holds each committed payload verbatim");
    db.close().unwrap();
}
