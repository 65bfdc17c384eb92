//! WAL corruption tests of checkpointed history, and the read-only open, on the
//! simulated file system: each is named by what it breaks. The rule (module docs of
//! `wal`): a frame at or below the checkpoint LSN was synced, so damage to it is
//! corruption, reported and kept (never dropped as a torn tail), and, since recovery
//! does not need it, the WAL still opens.

mod common;

use common::wal_log::*;
use storage::vfs::{CrashMode, SimVfs, Vfs};
use storage::wal::{Wal, FRAME_HEADER_BYTES};
use storage::Error;

/// Batches [12], [5], [1]: LSN 1, 2, 3, each its own batch.
fn three_batches() -> SimVfs {
    let sim = SimVfs::new();
    let (wal, _) = open(&sim, 0);
    append(&wal, &[12]);
    append(&wal, &[5]);
    append(&wal, &[1]);
    sim
}

#[test]
fn every_single_bit_flip_in_a_checkpointed_frame_is_reported_and_the_rest_stays_readable() {
    let path = seg_path(db(), 1);
    let start = frame_len(12);
    for bit in 0..frame_len(5) * 8 {
        let sim = three_batches();
        flip_bit(&sim, &path, start + bit / 8, (bit % 8) as u8);
        let (wal, recovered) = open(&sim, 2);
        assert_eq!(recovered.damage, [damage(1, start, 2..3)], "bit {bit}");
        assert_eq!(lsns(&recovered.frames), [3], "bit {bit}: the frame after the checkpoint replays");
        assert_eq!(lsns(&wal.read_after(0, 1, usize::MAX).unwrap()), [1], "bit {bit}");
        expect_corrupted(wal.read_after(0, 10, usize::MAX), &seg_name(1), start);
        expect_corrupted(wal.read_after(1, 10, usize::MAX), &seg_name(1), start);
        assert_eq!(lsns(&wal.read_after(2, 10, usize::MAX).unwrap()), [3], "bit {bit}");
        let problems = wal.verify().unwrap();
        assert_eq!(problems.len(), 1, "bit {bit}: {problems:?}");
        assert!(problems[0].contains(&format!("byte {start}")) && problems[0].contains("LSN 2"), "{problems:?}");
        // Sealed: the next batch starts a new segment, and it all reopens the same.
        append(&wal, &[7]);
        assert_eq!(sim.list(&db().join("wal")).unwrap(), [seg_name(1), seg_name(4)], "bit {bit}");
        drop(wal);
        let (wal, recovered) = open(&sim.crash(CrashMode::DropUnsynced), 2);
        assert_eq!(recovered.damage, [damage(1, start, 2..3)], "bit {bit}");
        assert_eq!(lsns(&recovered.frames), [3, 4], "bit {bit}");
        assert_eq!(wal.next_lsn(), 5);
    }
}

#[test]
fn damaged_checkpointed_frame_followed_by_a_torn_batch_keeps_the_damage_and_discards_the_tail() {
    // LSN 1..3 synced (3 checkpointed and damaged), batch 4..6 torn: frame 4 lost,
    // 5 and 6 whole. Frame 4 is not needed (torn, never acknowledged): open.
    let sim = SimVfs::new();
    {
        let (wal, _) = open(&sim, 0);
        append(&wal, &[20]);
        append(&wal, &[30, 40]);
        append(&wal, &[600, 30, 30]);
    }
    let path = seg_path(db(), 1);
    let frame3 = frame_len(20) + frame_len(30);
    let frame4 = frame3 + frame_len(40);
    flip_bit(&sim, &path, frame3 + FRAME_HEADER_BYTES as u64 + 2, 4);
    sim.write_raw(&path, frame4, &vec![0u8; 512]);
    let (wal, recovered) = open(&sim, 3);
    assert_eq!(recovered.damage, [damage(1, frame3, 3..4)]);
    assert!(recovered.frames.is_empty());
    assert!(recovered.torn_bytes > 0);
    assert_eq!(wal.next_lsn(), 4);
    append(&wal, &[9, 9]);
    drop(wal);
    // The torn batch's whole frames were cleared: they never pass for history.
    let (wal, recovered) = open(&sim.crash(CrashMode::DropUnsynced), 3);
    assert_eq!(recovered.damage, [damage(1, frame3, 3..4)]);
    assert_eq!(lsns(&recovered.frames), [4, 5]);
    assert_eq!(recovered.frames[0].payload, payload(4, 9), "the new frame 4, not the torn one");
    assert_eq!(wal.verify().unwrap().len(), 1);
}

#[test]
fn damaged_checkpointed_frame_followed_by_a_damaged_synced_one_refuses_the_open() {
    // Frames 3 (checkpointed) and 4 (needed, synced: batch 5 follows) are damaged.
    let sim = SimVfs::new();
    {
        let (wal, _) = open(&sim, 0);
        append(&wal, &[20]);
        append(&wal, &[30, 40]);
        append(&wal, &[50]);
        append(&wal, &[60]);
    }
    let path = seg_path(db(), 1);
    let frame3 = frame_len(20) + frame_len(30);
    flip_bit(&sim, &path, frame3 + 40, 1);
    flip_bit(&sim, &path, frame3 + frame_len(40) + 40, 1);
    expect_corrupted(open_at(&sim, db(), 3), &seg_name(1), frame3);
    // Checkpointed up to 4, both are history: it opens.
    let (_, recovered) = open(&sim, 4);
    assert_eq!(recovered.damage, [damage(1, frame3, 3..5)]);
    assert_eq!(lsns(&recovered.frames), [5]);
}

#[test]
fn missing_checkpointed_segment_between_two_others_is_reported_not_refused() {
    let sim = SimVfs::new();
    {
        let (wal, _) = open(&sim, 0);
        append(&wal, &[20, 20]);
    }
    // LSN 3 and 4 (a whole segment) are gone; segment 5 continues.
    plant(&sim, 5, &foreign_segment(&sim, 5, &[&[5], &[6]]));
    let end = 2 * frame_len(20);
    let (wal, recovered) = open(&sim, 4);
    assert_eq!(recovered.damage, [damage(1, end, 3..5)]);
    assert_eq!(lsns(&recovered.frames), [5, 6]);
    expect_corrupted(wal.read_after(2, 10, usize::MAX), &seg_name(1), end);
    assert_eq!(lsns(&wal.read_after(4, 10, usize::MAX).unwrap()), [5, 6]);
    assert_eq!(wal.verify().unwrap().len(), 1);
    // Frames recovery needs may not be missing.
    expect_corrupted(open_at(&sim, db(), 3), &seg_name(5), 0);
}

#[test]
fn bytes_after_the_last_frame_of_a_checkpointed_segment_are_reported() {
    let sim = SimVfs::new();
    {
        let (wal, _) = open(&sim, 0);
        append(&wal, &[20, 20]);
    }
    plant(&sim, 3, &foreign_segment(&sim, 3, &[&[5]]));
    let end = 2 * frame_len(20);
    sim.write_raw(&seg_path(db(), 1), end + 16, &[0xAB; 40]);
    let (wal, recovered) = open(&sim, 3);
    assert_eq!(recovered.damage, [damage(1, end, 3..3)], "no frame is lost, but the bytes are wrong");
    assert_eq!(lsns(&wal.read_after(0, 10, usize::MAX).unwrap()), [1, 2, 3]);
    let problems = wal.verify().unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("bytes other than zeros"), "{problems:?}");
}

fn files(sim: &SimVfs) -> Vec<(String, Vec<u8>)> {
    let dir = db().join("wal");
    sim.list(&dir).unwrap().into_iter().map(|name| {
        let bytes = sim.read_raw(&dir.join(&name)).unwrap();
        (name, bytes)
    }).collect()
}

#[test]
fn read_only_open_of_a_torn_tail_recovers_in_memory_and_changes_no_byte() {
    let sim = SimVfs::new();
    let acked = {
        let (wal, _) = open(&sim, 0);
        let mut acked = append(&wal, &[20]);
        acked.extend(append(&wal, &[30]));
        acked
    };
    // A torn batch 3..4 and a later segment holding only torn bytes.
    sim.write_raw(&seg_path(db(), 1), frame_len(20) + frame_len(30), &[0x5A; 300]);
    plant(&sim, 5, &[0x11; 200]);
    let before = files(&sim);
    let (wal, recovered) = Wal::open_read_only(std::sync::Arc::new(sim.clone()), db(), 0).unwrap();
    assert_eq!(recovered.frames, acked);
    assert!(recovered.torn_bytes > 0);
    assert_eq!(wal.next_lsn(), 3);
    assert_eq!(wal.read_after(0, 10, usize::MAX).unwrap(), acked);
    assert!(wal.verify().unwrap().is_empty(), "a torn tail is no problem: {:?}", wal.verify().unwrap());
    assert!(matches!(wal.append_batch(&[(3, &b"x"[..])]), Err(Error::ReadOnly(_))));
    assert!(matches!(wal.retain(2, 0), Err(Error::ReadOnly(_))));
    drop(wal);
    assert_eq!(files(&sim), before, "not a byte changed");
    // A writable open then does what the read-only one left undone.
    let (_, writable) = open(&sim, 0);
    assert_eq!(writable.frames, acked);
    assert_eq!(writable.torn_bytes, recovered.torn_bytes);
    assert_eq!(sim.list(&db().join("wal")).unwrap(), [seg_name(1)]);
}

#[test]
fn read_only_open_of_a_missing_wal_directory_is_an_empty_wal() {
    let sim = SimVfs::new();
    sim.create_dir_all(db()).unwrap();
    let (wal, recovered) = Wal::open_read_only(std::sync::Arc::new(sim.clone()), db(), 7).unwrap();
    assert!(recovered.frames.is_empty());
    assert_eq!(wal.next_lsn(), 8);
    assert!(!sim.exists(&db().join("wal")).unwrap(), "nothing created");
}
