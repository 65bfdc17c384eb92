//! WAL tests, on the simulated file system: each is named by what it breaks.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use common::wal_log::*;
use storage::vfs::{CrashMode, FaultKind, SimVfs, Vfs};
use storage::wal::{Frame, Wal, SEGMENT_BYTES_MAX};
use storage::Error;

/// Nested so that `cargo test -p tenantdb-storage wal` selects every test here.
mod wal {
    use super::*;

    #[test]
    fn append_then_reopen_returns_frames_after_checkpoint_in_order() {
        let sim = SimVfs::new();
        let mut all = Vec::new();
        {
            let (wal, recovered) = open(&sim, 0);
            assert!(recovered.frames.is_empty());
            assert_eq!(wal.next_lsn(), 1);
            all.extend(append(&wal, &[3]));
            all.extend(append(&wal, &[0, 17, 8]));
            all.extend(append(&wal, &[100, 1]));
            assert_eq!(wal.next_lsn(), 7);
        }
        let sim = sim.crash(CrashMode::DropUnsynced);
        for checkpoint in 0..=6 {
            let (wal, recovered) = open(&sim, checkpoint);
            assert_eq!(
                recovered.frames,
                all[checkpoint as usize..],
                "checkpoint {checkpoint}"
            );
            assert_eq!(recovered.torn_bytes, 0);
            assert_eq!(wal.next_lsn(), 7);
            assert_eq!(wal.oldest_lsn(), 1);
        }
    }

    #[test]
    fn lsns_continue_across_reopen() {
        let sim = SimVfs::new();
        {
            let (wal, _) = open(&sim, 0);
            append(&wal, &[5, 5]);
        }
        let sim = sim.crash(CrashMode::DropUnsynced);
        {
            let (wal, recovered) = open(&sim, 0);
            assert_eq!(wal.next_lsn(), 3);
            assert_eq!(lsns(&recovered.frames), [1, 2]);
            append(&wal, &[1]);
        }
        let (wal, recovered) = open(&sim.crash(CrashMode::DropUnsynced), 2);
        assert_eq!(lsns(&recovered.frames), [3]);
        assert_eq!(wal.next_lsn(), 4);
    }

    #[test]
    fn lsns_continue_after_every_segment_was_deleted() {
        let sim = SimVfs::new();
        {
            let (wal, _) = open(&sim, 0);
            append(&wal, &[5, 5, 5]);
        }
        for name in sim.list(&db().join("wal")).unwrap() {
            sim.remove(&db().join("wal").join(name)).unwrap();
        }
        sim.sync_dir(&db().join("wal")).unwrap();
        {
            let (wal, recovered) = open(&sim, 3);
            assert!(recovered.frames.is_empty());
            assert_eq!(wal.next_lsn(), 4);
            assert_eq!(wal.oldest_lsn(), 4);
            assert_eq!(wal.bytes(), 0);
            append(&wal, &[9]);
        }
        let (wal, recovered) = open(&sim.crash(CrashMode::DropUnsynced), 3);
        assert_eq!(lsns(&recovered.frames), [4]);
        assert_eq!(wal.oldest_lsn(), 4);
        assert_eq!(wal.next_lsn(), 5);
    }

    #[test]
    fn checkpoint_beyond_the_last_frame_reports_the_missing_frames_and_deletes_nothing() {
        // The checkpoint only covers durable frames and retention never deletes the
        // newest segment, so checkpointed frames missing at the end are damage.
        let sim = SimVfs::new();
        let written = {
            let (wal, _) = open(&sim, 0);
            append(&wal, &[5, 5, 5])
        };
        let end = 3 * frame_len(5);
        {
            let (wal, recovered) = open(&sim, 10);
            assert!(recovered.frames.is_empty());
            assert_eq!(recovered.damage, [damage(1, end, 4..11)]);
            assert_eq!((wal.oldest_lsn(), wal.next_lsn()), (1, 11));
            assert_eq!(wal.read_after(0, 3, usize::MAX).unwrap(), written, "frames before the damage read");
            expect_corrupted(wal.read_after(0, 10, usize::MAX), &seg_name(1), end);
            expect_corrupted(wal.read_after(6, 10, usize::MAX), &seg_name(1), end);
            append(&wal, &[1]);
            let problems = wal.verify().unwrap();
            assert_eq!(problems.len(), 1, "{problems:?}");
            assert!(problems[0].contains("LSN 4 to 10") && problems[0].contains(&format!("byte {end}")), "{problems:?}");
        }
        let sim = sim.crash(CrashMode::DropUnsynced);
        assert_eq!(sim.list(&db().join("wal")).unwrap(), [seg_name(1), seg_name(11)], "the damaged segment is kept, sealed");
        let (wal, recovered) = open(&sim, 10);
        assert_eq!(lsns(&recovered.frames), [11]);
        assert_eq!(recovered.damage, [damage(1, end, 4..11)]);
        assert_eq!(wal.next_lsn(), 12);
        assert_eq!(lsns(&wal.read_after(10, 10, usize::MAX).unwrap()), [11]);
    }

    #[test]
    fn segment_rotation_starts_a_new_segment_at_a_batch_boundary_once_full() {
        let sim = SimVfs::new();
        let big = 4 << 20; // four 4 MiB frames (plus headers) fill a segment
        let mut all = Vec::new();
        {
            let (wal, _) = open(&sim, 0);
            all.extend(append(&wal, &[big, big]));
            all.extend(append(&wal, &[big, big])); // now just over 16 MiB
            assert_eq!(sim.list(&db().join("wal")).unwrap(), [seg_name(1)]);
            all.extend(append(&wal, &[big, 10])); // starts segment 5
            all.extend(append(&wal, &[7]));
            assert_eq!(
                sim.list(&db().join("wal")).unwrap(),
                [seg_name(1), seg_name(5)]
            );
            assert_eq!(file_len(&sim, &seg_path(db(), 1)), 4 * frame_len(big));
            assert_eq!(
                wal.bytes(),
                all.iter().map(|f| frame_len(f.payload.len())).sum::<u64>()
            );
            assert_eq!(
                wal.bytes_after(4),
                frame_len(big) + frame_len(10) + frame_len(7)
            );
            assert!(wal.verify().unwrap().is_empty());
            // Reads cross the segment boundary.
            assert_eq!(
                lsns(&wal.read_after(3, 10, usize::MAX).unwrap()),
                [4, 5, 6, 7]
            );
        }
        let (wal, recovered) = open(&sim.crash(CrashMode::DropUnsynced), 0);
        assert_eq!(recovered.frames, all);
        assert_eq!(wal.next_lsn(), 8);
    }

    #[test]
    fn segment_rotation_keeps_a_batch_whole_even_past_the_limit() {
        let sim = SimVfs::new();
        let (wal, _) = open(&sim, 0);
        let big = 5 << 20;
        append(&wal, &[big, big, big, big]); // 20 MiB in one batch: one segment
        append(&wal, &[1]);
        assert_eq!(
            sim.list(&db().join("wal")).unwrap(),
            [seg_name(1), seg_name(5)]
        );
        assert!(file_len(&sim, &seg_path(db(), 1)) > SEGMENT_BYTES_MAX);
    }

    #[test]
    fn read_after_is_exclusive_and_batches_by_frames_and_bytes() {
        let sim = SimVfs::new();
        let (wal, _) = open(&sim, 0);
        let mut all = Vec::new();
        all.extend(append(&wal, &[10, 10, 10]));
        all.extend(append(&wal, &[10, 50]));
        all.extend(append(&wal, &[10, 1, 2, 3]));
        assert_eq!(wal.read_after(0, 100, usize::MAX).unwrap(), all);
        assert_eq!(
            wal.read_after(2, 100, usize::MAX).unwrap(),
            all[2..],
            "after is exclusive"
        );
        assert_eq!(lsns(&wal.read_after(1, 2, usize::MAX).unwrap()), [2, 3]);
        assert_eq!(
            lsns(&wal.read_after(0, 100, 30).unwrap()),
            [1, 2, 3],
            "30 bytes: exactly three"
        );
        assert_eq!(lsns(&wal.read_after(0, 100, 29).unwrap()), [1, 2]);
        assert_eq!(
            lsns(&wal.read_after(4, 100, 10).unwrap()),
            [5],
            "first frame even if larger"
        );
        assert_eq!(lsns(&wal.read_after(4, 100, 0).unwrap()), [5]);
        assert_eq!(lsns(&wal.read_after(5, 100, 16).unwrap()), [6, 7, 8, 9]);
        assert!(wal.read_after(9, 100, usize::MAX).unwrap().is_empty());
        assert!(wal.read_after(1000, 100, usize::MAX).unwrap().is_empty());
        assert!(wal
            .read_after(u64::MAX, 100, usize::MAX)
            .unwrap()
            .is_empty());
        assert!(wal.read_after(0, 0, usize::MAX).unwrap().is_empty());
        // Paging through with any page size yields every frame once, in order.
        for page in 1..5 {
            let mut got = Vec::new();
            let mut after = 0;
            loop {
                let frames = wal.read_after(after, page, 25).unwrap();
                let Some(last) = frames.last() else { break };
                after = last.lsn;
                got.extend(frames);
            }
            assert_eq!(got, all, "page size {page}");
        }
    }

    #[test]
    fn read_after_frames_deleted_by_retention_is_an_error_not_a_skip() {
        let sim = SimVfs::new();
        let (wal, _) = open(&sim, 0);
        let big = 6 << 20;
        append(&wal, &[big, big, big]); // segment 1: LSN 1..3
        append(&wal, &[4]); // segment 4
        wal.retain(3, 0).unwrap();
        assert_eq!(wal.oldest_lsn(), 4);
        assert_eq!(lsns(&wal.read_after(3, 10, usize::MAX).unwrap()), [4]);
        match wal.read_after(1, 10, usize::MAX) {
            Err(Error::InvalidArgument(_)) => {}
            other => panic!("expected InvalidArgument, got {other:?}"),
        }
    }

    #[test]
    fn bytes_after_is_exact_per_frame() {
        let sim = SimVfs::new();
        let (wal, _) = open(&sim, 0);
        let lens = [3usize, 8, 0, 100, 17];
        append(&wal, &lens[..2]);
        append(&wal, &lens[2..]);
        let total: u64 = lens.iter().map(|&l| frame_len(l)).sum();
        assert_eq!(wal.bytes(), total);
        for lsn in 0..=6u64 {
            let expected: u64 = lens.iter().skip(lsn as usize).map(|&l| frame_len(l)).sum();
            assert_eq!(wal.bytes_after(lsn), expected, "after {lsn}");
        }
        assert_eq!(wal.bytes_after(u64::MAX), 0);
    }

    #[test]
    fn segments_are_zero_filled_ahead_in_steps_up_to_the_segment_size() {
        let sim = SimVfs::new();
        let step = 4096;
        let (wal, _) = open_at_with(&sim, db(), 0, step);
        let path = seg_path(db(), 1);
        let ops = sim.op_count();
        append(&wal, &[100]);
        // create, write, allocate, sync, sync_dir
        assert_eq!(sim.op_count() - ops, 5);
        assert_eq!(file_len(&sim, &path), step, "durable with the first batch");
        let mut written = wal.bytes();
        // Batches inside the allocated space: one write and one sync each, and the
        // file's length never changes.
        while written + frame_len(1000) <= step {
            let ops = sim.op_count();
            append(&wal, &[1000]);
            written += frame_len(1000);
            assert_eq!(sim.op_count() - ops, 2);
            assert_eq!(file_len(&sim, &path), step);
        }
        // The batch that runs past it allocates the next step, in the same sync.
        let ops = sim.op_count();
        append(&wal, &[1000]);
        assert_eq!(sim.op_count() - ops, 3);
        assert_eq!(file_len(&sim, &path), 2 * step);
        // A batch far past it allocates up to the next multiple of the step.
        append(&wal, &[3 * step as usize]);
        assert!(wal.bytes() > 4 * step);
        assert_eq!(file_len(&sim, &path), wal.bytes().next_multiple_of(step));
        assert!(wal.verify().unwrap().is_empty());
        let frames = wal.read_after(0, 100, usize::MAX).unwrap();
        drop(wal);
        // Never past the segment size: the segment's last batch ends where it ends.
        let sim = sim.crash(CrashMode::DropUnsynced);
        let (wal, recovered) = open_at_with(&sim, db(), 0, SEGMENT_BYTES_MAX);
        assert_eq!(recovered.frames, frames);
        assert_eq!(recovered.torn_bytes, 0);
        let big = (SEGMENT_BYTES_MAX - wal.bytes()) as usize;
        append(&wal, &[big]);
        assert_eq!(file_len(&sim, &path), wal.bytes());
        append(&wal, &[1]);
        assert_eq!(file_len(&sim, &seg_path(db(), recovered.frames.len() as u64 + 2)), SEGMENT_BYTES_MAX, "the next segment");
        assert!(wal.verify().unwrap().is_empty());
    }

    #[test]
    fn preallocation_off_appends_exactly() {
        let sim = SimVfs::new();
        let (wal, _) = open_at_with(&sim, db(), 0, 0);
        append(&wal, &[100]);
        append(&wal, &[7, 9]);
        assert_eq!(file_len(&sim, &seg_path(db(), 1)), wal.bytes());
    }

    #[test]
    fn retention_keeps_what_it_must() {
        let sim = SimVfs::new();
        let big = 6 << 20; // three per segment
        let (wal, _) = open(&sim, 0);
        append(&wal, &[big, big, big]); // segment 1: 1..3
        append(&wal, &[big, big, big]); // segment 4: 4..6
        append(&wal, &[big, 10]); // segment 7: 7..8
        let seg_bytes = 3 * frame_len(big);
        assert_eq!(
            sim.list(&db().join("wal")).unwrap(),
            [seg_name(1), seg_name(4), seg_name(7)]
        );

        wal.retain(2, 0).unwrap(); // frame 3 is not checkpointed: segment 1 stays
        assert_eq!(wal.oldest_lsn(), 1);
        wal.retain(8, 2 * seg_bytes).unwrap(); // deleting segment 1 would leave too little
        assert_eq!(wal.oldest_lsn(), 1);
        wal.retain(8, seg_bytes).unwrap(); // segment 1 can go, segment 4 cannot
        assert_eq!(wal.oldest_lsn(), 4);
        wal.retain(u64::MAX, 0).unwrap(); // the newest segment always stays
        assert_eq!(wal.oldest_lsn(), 7);
        assert_eq!(wal.bytes(), frame_len(big) + frame_len(10));
        assert_eq!(lsns(&wal.read_after(6, 10, usize::MAX).unwrap()), [7, 8]);
        assert!(wal.verify().unwrap().is_empty());
        drop(wal);

        let sim = sim.crash(CrashMode::DropUnsynced);
        assert_eq!(
            sim.list(&db().join("wal")).unwrap(),
            [seg_name(7)],
            "removal is durable"
        );
        let (wal, recovered) = open(&sim, 6);
        assert_eq!(lsns(&recovered.frames), [7, 8]);
        assert_eq!(wal.oldest_lsn(), 7);
    }

    #[test]
    fn io_error_during_append_makes_further_appends_fail() {
        // (ENOSPC cannot hit this write: it only overwrites preallocated zeros.)
        for (kind, skip) in [(FaultKind::Eio, 0), (FaultKind::Eio, 1)] {
            let sim = SimVfs::new();
            let (wal, _) = open(&sim, 0);
            let acked = append(&wal, &[10, 20]);
            // skip 0: the write fails; skip 1: the write lands and the fsync fails. The
            // batch fits in the preallocated space, so its write is its first operation.
            sim.fail_at(sim.op_count() + skip, kind, false);
            let lost = [7u8; 5];
            match wal.append_batch(&[(3, &lost[..])]) {
                Err(Error::OutcomeUnknown(_)) => {}
                other => panic!("{kind:?}/{skip}: expected OutcomeUnknown, got {other:?}"),
            }
            sim.clear_faults();
            match wal.append_batch(&[(3, &lost[..])]) {
                Err(Error::FailStopped(_)) => {}
                other => panic!("expected FailStopped, got {other:?}"),
            }
            assert!(matches!(wal.retain(2, 0), Err(Error::FailStopped(_))));
            assert_eq!(wal.next_lsn(), 3, "a failed batch is never published");
            assert_eq!(
                wal.read_after(0, 10, usize::MAX).unwrap(),
                acked,
                "reads still work"
            );
            drop(wal);
            let (wal, recovered) = open(&sim.crash(CrashMode::DropUnsynced), 0);
            assert_eq!(recovered.frames, acked);
            assert_eq!(wal.next_lsn(), 3);
            append(&wal, &[1]);
        }
    }

    #[test]
    fn a_full_disk_at_the_preallocation_writes_nothing_and_does_not_stop_the_wal() {
        // Room for the batch itself but not for the preallocation after it: the
        // space is claimed first, so nothing of the batch lands (and none can be
        // replayed later), and the WAL carries on once space is freed.
        let step = 4096;
        let sim = SimVfs::new();
        let (wal, _) = open_at_with(&sim, db(), 0, step);
        let mut acked = append(&wal, &[10, 20]);
        let path = seg_path(db(), 1);
        assert_eq!(file_len(&sim, &path), step);
        sim.set_capacity(Some(sim.used_bytes() + 2000));
        let lost = payload(3, 5000);
        match wal.append_batch(&[(3, &lost[..])]) {
            Err(err @ Error::StorageFull { .. }) => assert_eq!(err.code(), "storage_full"),
            other => panic!("expected StorageFull, got {other:?}"),
        }
        assert_eq!(wal.next_lsn(), 3, "a refused batch is never published");
        assert_eq!(file_len(&sim, &path), step, "nothing of it was written");
        // A restart now, with the OS's view of the file (what the kernel would write
        // back later), finds nothing of the refused batch.
        let (_, restart) = Wal::open_read_only(Arc::new(sim.clone()) as Arc<dyn Vfs>, db(), 0).unwrap();
        assert_eq!(restart.frames, acked, "the refused batch never reached the file");
        // Not fail-stopped: a batch inside the allocated space still goes in.
        acked.extend(append(&wal, &[30]));
        sim.set_capacity(None);
        acked.extend(append(&wal, &[5000]));
        drop(wal);
        for (view, sim) in [("restart", sim.clone()), ("power loss", sim.crash(CrashMode::DropUnsynced))] {
            let (wal, recovered) = open(&sim, 0);
            assert_eq!(recovered.frames, acked, "{view}");
            assert!(wal.verify().unwrap().is_empty(), "{view}");
        }
    }

    #[test]
    fn a_full_disk_when_a_segment_is_created_leaves_no_segment_and_does_not_stop_the_wal() {
        for fault_on_create in [true, false] {
            let sim = SimVfs::new();
            let (wal, _) = open(&sim, 0);
            if fault_on_create {
                sim.fail_at(sim.op_count(), FaultKind::Enospc, true);
            } else {
                sim.set_capacity(Some(sim.used_bytes() + 100));
            }
            let lost = payload(1, 10);
            assert!(matches!(wal.append_batch(&[(1, &lost[..])]), Err(Error::StorageFull { .. })));
            assert!(sim.list(&db().join("wal")).unwrap().is_empty(), "the new segment is removed");
            sim.clear_faults();
            sim.set_capacity(None);
            let acked = append(&wal, &[10]);
            drop(wal);
            let (_, recovered) = open(&sim, 0);
            assert_eq!(recovered.frames, acked);
        }
    }

    #[test]
    fn crash_at_every_operation_keeps_every_acknowledged_batch() {
        // A workload with a rotation; fail each operation in turn, then crash (chaos).
        let workload = |wal: &Wal, acked: &mut Vec<Frame>| -> storage::Result<()> {
            for lens in [&[10usize, 20][..], &[9 << 20], &[8 << 20], &[30, 40], &[5]] {
                let first = wal.next_lsn();
                let frames: Vec<Frame> = (0..lens.len())
                    .map(|i| Frame {
                        lsn: first + i as u64,
                        payload: payload(first + i as u64, lens[i]),
                    })
                    .collect();
                let batch: Vec<(u64, &[u8])> = frames
                    .iter()
                    .map(|f| (f.lsn, f.payload.as_slice()))
                    .collect();
                wal.append_batch(&batch)?;
                acked.extend(frames);
            }
            Ok(())
        };
        let total_ops = {
            let sim = SimVfs::new();
            let (wal, _) = open(&sim, 0);
            let start = sim.op_count();
            workload(&wal, &mut Vec::new()).unwrap();
            assert!(
                sim.list(&db().join("wal")).unwrap().len() > 1,
                "the workload rotates"
            );
            sim.op_count() - start
        };
        for fail in 0..total_ops {
            let sim = SimVfs::new();
            let (wal, _) = open(&sim, 0);
            sim.fail_at(sim.op_count() + fail, FaultKind::Eio, true);
            let mut acked = Vec::new();
            assert!(workload(&wal, &mut acked).is_err(), "op {fail} fails");
            for seed in 0..4 {
                let crashed = sim.crash(CrashMode::Chaos { seed });
                let (wal, recovered) = open(&crashed, 0);
                let got = recovered.frames;
                assert!(
                    got.len() >= acked.len(),
                    "op {fail} seed {seed}: acknowledged frames lost"
                );
                assert_eq!(got[..acked.len()], acked[..], "op {fail} seed {seed}");
                assert!(wal.verify().unwrap().is_empty());
                append(&wal, &[3]);
            }
        }
    }

    #[test]
    fn readers_run_concurrently_with_appends_and_see_only_whole_batches() {
        let sim = SimVfs::new();
        let (wal, _) = open(&sim, 0);
        let wal = Arc::new(wal);
        let done = Arc::new(AtomicBool::new(false));
        let readers: Vec<_> = (0..3)
            .map(|r| {
                let wal = Arc::clone(&wal);
                let done = Arc::clone(&done);
                std::thread::spawn(move || {
                    let mut after = 0u64;
                    while !done.load(Ordering::Acquire) || after + 1 < wal.next_lsn() {
                        for frame in wal.read_after(after, 7 + r, 300).unwrap() {
                            assert_eq!(frame.lsn, after + 1, "no gaps, no repeats");
                            assert_eq!(frame.payload, payload(frame.lsn, frame.payload.len()));
                            after = frame.lsn;
                        }
                        let _ = (wal.bytes(), wal.bytes_after(after), wal.oldest_lsn());
                    }
                    after
                })
            })
            .collect();
        for i in 0..300usize {
            append(&wal, &[i % 50, 8, (i * 13) % 200]);
        }
        done.store(true, Ordering::Release);
        for reader in readers {
            assert_eq!(reader.join().unwrap(), 900);
        }
        assert!(wal.verify().unwrap().is_empty());
    }

    #[test]
    #[should_panic(expected = "consecutive")]
    fn append_with_wrong_lsn_is_a_bug() {
        let sim = SimVfs::new();
        let (wal, _) = open(&sim, 0);
        let _ = wal.append_batch(&[(2, &b"x"[..])]);
    }

    #[test]
    fn oversized_payload_is_refused_without_fail_stop() {
        let sim = SimVfs::new();
        let (wal, _) = open(&sim, 0);
        let huge = vec![0u8; storage::wal::FRAME_PAYLOAD_BYTES_MAX + 1];
        assert!(matches!(
            wal.append_batch(&[(1, &huge[..])]),
            Err(Error::InvalidArgument(_))
        ));
        append(&wal, &[1]);
        assert_eq!(wal.next_lsn(), 2);
    }
}
