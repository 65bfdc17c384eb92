//! Follower mode (docs/replication.md, "Followers"): a follower applies a primary's WAL
//! frames through the same `Version::apply` recovery replays with, and so holds the
//! same trees, pins and LSNs; it refuses local commits; it refuses a frame that does not
//! follow its head and changes nothing; it keeps what it applied across a restart and a
//! checkpoint; promoted, it commits at the next LSN.

mod common;

use std::path::Path;
use std::sync::mpsc;

use common::{commit, open, put, read_all, sim_options, Rng};
use storage::vfs::SimVfs;
use storage::{CommitPayload, Database, Error, Op, Options};

fn follower(options: &Options) -> Options {
    Options { follower: true, ..options.clone() }
}

/// Applies `frames` queued together (one batch), returning each one's result.
fn apply(db: &Database, frames: &[(u64, Vec<u8>)]) -> Vec<storage::Result<u64>> {
    let receivers: Vec<_> = frames
        .iter()
        .map(|(lsn, payload)| {
            let (send, receive) = mpsc::channel();
            let payload = CommitPayload::parse(payload.clone()).expect("a frame the primary wrote parses");
            db.apply_frame(*lsn, payload, Box::new(move |result| {
                let _ = send.send(result);
            }));
            receive
        })
        .collect();
    receivers.into_iter().map(|r| r.recv().expect("every frame completes")).collect()
}

fn frames_after(db: &Database, after: u64) -> Vec<(u64, Vec<u8>)> {
    db.read_frames(after, usize::MAX, usize::MAX).unwrap().into_iter().map(|f| (f.lsn, f.payload)).collect()
}

/// A primary with random puts, deletes, pins and tree copies; returns it.
fn busy_primary(path: &Path, options: &Options, seed: u64, commits: u32) -> Database {
    let db = open(path, options);
    let mut rng = Rng::new(seed);
    for n in 0..commits {
        let ops = match rng.below(10) {
            0 => vec![Op::Pin { name: format!("p{n}").into_bytes() }],
            1 => vec![Op::CopyTree { from: b"a".to_vec(), to: format!("copy{n}").into_bytes() }],
            2 => vec![Op::Delete { tree: b"a".to_vec(), key: format!("k{}", rng.below(200)).into_bytes() }],
            _ => (0..1 + rng.below(20))
                .map(|_| {
                    let key = format!("k{}", rng.below(200));
                    let len = 10 + rng.below(300) as usize;
                    put("a", key.as_bytes(), &rng.bytes(len))
                })
                .collect(),
        };
        db.commit_sync(commit(ops)).unwrap();
        if n % 50 == 49 {
            db.checkpoint().unwrap();
        }
    }
    db
}

#[test]
fn a_follower_holds_the_primarys_trees_pins_and_lsns() {
    let vfs = SimVfs::new();
    let options = sim_options(&vfs, 1 << 20);
    let primary = busy_primary(Path::new("/primary"), &options, 7, 300);
    let replica = open(Path::new("/replica"), &follower(&options));
    assert!(replica.is_follower());
    // In uneven batches, with a checkpoint and a restart between them.
    let frames = frames_after(&primary, 0);
    let mut applied = 0;
    let mut rng = Rng::new(3);
    let mut replica = Some(replica);
    while applied < frames.len() {
        let take = (1 + rng.below(40) as usize).min(frames.len() - applied);
        let db = replica.as_ref().unwrap();
        let results = apply(db, &frames[applied..applied + take]);
        let expected: Vec<u64> = frames[applied..applied + take].iter().map(|(lsn, _)| *lsn).collect();
        assert_eq!(results.into_iter().map(Result::unwrap).collect::<Vec<_>>(), expected);
        applied += take;
        if rng.chance(10) {
            db.checkpoint().unwrap();
        }
        if rng.chance(10) {
            replica.take().unwrap().close().unwrap();
            replica = Some(open(Path::new("/replica"), &follower(&options)));
        }
    }
    let replica = replica.unwrap();
    let (p, r) = (primary.snapshot(), replica.snapshot());
    assert_eq!(r.lsn(), p.lsn());
    assert_eq!(read_all(&r), read_all(&p));
    let names = |s: &storage::Snapshot| s.pins().unwrap().into_iter().map(|t| t.name).collect::<Vec<_>>();
    assert_eq!(names(&r), names(&p));
    for name in names(&p) {
        assert_eq!(read_all(&r.pin(&name).unwrap().unwrap()), read_all(&p.pin(&name).unwrap().unwrap()));
    }
    // The follower's WAL holds the very payloads.
    assert_eq!(frames_after(&replica, 0), frames_after(&primary, 0));
    assert!(replica.verify().unwrap().problems.is_empty());
}

#[test]
fn a_follower_refuses_local_commits_and_frames_out_of_order() {
    let vfs = SimVfs::new();
    let options = sim_options(&vfs, 1 << 20);
    let primary = busy_primary(Path::new("/primary"), &options, 11, 20);
    let replica = open(Path::new("/replica"), &follower(&options));
    let frames = frames_after(&primary, 0);
    assert!(matches!(replica.commit_sync(commit(vec![put("a", b"x", b"y")])), Err(Error::NotPrimary)));
    // A gap, a repeat and a frame from the past: each refused, nothing applied.
    assert!(matches!(apply(&replica, &frames[1..2])[0], Err(Error::InvalidArgument(_))));
    assert_eq!(apply(&replica, &frames[0..1])[0].as_ref().unwrap(), &1);
    assert!(matches!(apply(&replica, &frames[0..1])[0], Err(Error::InvalidArgument(_))));
    let results = apply(&replica, &[frames[1].clone(), frames[3].clone(), frames[2].clone()]);
    assert_eq!(results[0].as_ref().unwrap(), &2);
    assert!(results[1].is_err());
    assert_eq!(results[2].as_ref().unwrap(), &3);
    assert_eq!(replica.snapshot().lsn(), 3);
    assert!(replica.verify().unwrap().problems.is_empty());
    // A primary refuses frames.
    assert!(matches!(apply(&primary, &frames[0..1])[0], Err(Error::InvalidArgument(_))));
}

#[test]
fn a_promoted_follower_commits_at_the_next_lsn_and_demoted_refuses_again() {
    let vfs = SimVfs::new();
    let options = sim_options(&vfs, 1 << 20);
    let primary = busy_primary(Path::new("/primary"), &options, 5, 30);
    let replica = open(Path::new("/replica"), &follower(&options));
    let frames = frames_after(&primary, 0);
    assert!(apply(&replica, &frames).iter().all(Result::is_ok));
    replica.set_follower(false);
    assert_eq!(replica.commit_sync(commit(vec![put("a", b"new", b"v")])).unwrap(), 31);
    replica.set_follower(true);
    assert!(matches!(replica.commit_sync(commit(vec![put("a", b"x", b"y")])), Err(Error::NotPrimary)));
    replica.close().unwrap();
    // A follower's mode is not stored: reopened without it, it is a primary.
    let reopened = open(Path::new("/replica"), &options);
    assert!(!reopened.is_follower());
    assert_eq!(reopened.snapshot().lsn(), 31);
    assert_eq!(reopened.snapshot().get(b"a", b"new").unwrap().as_deref(), Some(&b"v"[..]));
}
