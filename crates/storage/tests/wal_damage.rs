//! WAL tests of torn tails and damaged frames, on the simulated file system: what
//! recovery keeps, what it reports as corruption, and what it clears (each test is
//! named by what it breaks). The other WAL tests are in `wal.rs`.

mod common;

use common::wal_log::*;
use storage::vfs::{CrashMode, SimVfs, Vfs};
use storage::wal::{Frame, FRAME_HEADER_BYTES, PREALLOCATE_BYTES_DEFAULT};
use storage::Error;

/// Nested so that `cargo test -p tenantdb-storage wal` selects every WAL test.
mod wal_damage {
    use super::*;

    #[test]
    fn torn_tail_truncated_mid_frame_recovers_the_prefix_and_appends_cleanly() {
        let sim = SimVfs::new();
        let mut all;
        {
            let (wal, _) = open(&sim, 0);
            all = append(&wal, &[20, 30]);
            all.extend(append(&wal, &[700, 900]));
        }
        let path = seg_path(db(), 1);
        let prefix = frame_len(20) + frame_len(30);
        let third = prefix + frame_len(700);
        let full = third + frame_len(900);
        assert!(file_len(&sim, &path) > full, "the segment is preallocated");
        // (cut, frames that survive whole, where they end)
        for (cut, kept, end) in [
            (prefix + 1, 2, prefix),
            (prefix + 31, 2, prefix),
            (prefix + 512, 2, prefix),
            (third - 1, 2, prefix),
            (third + 5, 3, third),
            (full - 1, 3, third),
        ] {
            let sim = sim.crash(CrashMode::DropUnsynced);
            truncate(&sim, &path, cut);
            let torn = nonzero_len(&sim.read_raw(&path).unwrap()) - end;
            assert!(torn <= cut - end && torn + 8 > cut - end, "the cut ends near nonzero bytes");
            let (wal, recovered) = open(&sim, 0);
            assert_eq!(recovered.frames, all[..kept], "cut at {cut}");
            assert_eq!(recovered.torn_bytes, torn);
            assert_eq!(wal.next_lsn(), kept as u64 + 1);
            let crashed = sim.crash(CrashMode::DropUnsynced);
            assert!(zeros_from(&crashed, &path, end), "torn bytes zeroed durably");
            assert_eq!(file_len(&crashed, &path), cut, "the file keeps its length");
            let again = append(&wal, &[5]);
            assert!(wal.verify().unwrap().is_empty());
            drop(wal);
            let (_, recovered) = open(&sim.crash(CrashMode::DropUnsynced), kept as u64);
            assert_eq!(recovered.frames, again);
            assert_eq!(recovered.torn_bytes, 0);
        }
    }

    #[test]
    fn torn_tail_of_garbage_recovers_the_prefix() {
        let sim = SimVfs::new();
        let first;
        let end;
        {
            let (wal, _) = open(&sim, 0);
            first = append(&wal, &[20]);
            end = wal.bytes();
        }
        let path = seg_path(db(), 1);
        // Garbage after the last frame, then garbage that starts with a valid magic.
        for garbage in [
            vec![0xA5u8; 1000],
            b"TWAL\x10\x00\x00\x00garbage-garbage-garbage-garbage!".to_vec(),
        ] {
            let sim = sim.crash(CrashMode::DropUnsynced);
            sim.write_raw(&path, end, &garbage);
            let (wal, recovered) = open(&sim, 0);
            assert_eq!(recovered.frames, first);
            assert_eq!(recovered.torn_bytes, garbage.len() as u64);
            append(&wal, &[1, 2]);
            drop(wal);
            let (_, recovered) = open(&sim.crash(CrashMode::DropUnsynced), 0);
            assert_eq!(lsns(&recovered.frames), [1, 2, 3]);
        }
    }

    #[test]
    fn zeros_after_the_last_frame_are_free_space_not_a_torn_tail() {
        let sim = SimVfs::new();
        let first;
        let end;
        {
            let (wal, _) = open(&sim, 0);
            first = append(&wal, &[20]);
            end = wal.bytes();
            append(&wal, &[600, 600]);
        }
        let path = seg_path(db(), 1);
        let prefix = frame_len(20);
        assert_eq!(prefix, end);
        let full = file_len(&sim, &path);
        assert_eq!(full, PREALLOCATE_BYTES_DEFAULT, "one preallocation step");
        // The batch's sectors read back as zeros (never written), or the file was
        // extended with zeros past its preallocated end.
        sim.write_raw(&path, prefix, &vec![0u8; (full - prefix) as usize]);
        sim.write_raw(&path, full, &[0u8; 4096]);
        let ops = sim.op_count();
        let (wal, recovered) = open(&sim, 0);
        assert_eq!(recovered.frames, first);
        assert_eq!(recovered.torn_bytes, 0);
        assert_eq!(wal.next_lsn(), 2);
        assert_eq!(wal.bytes(), prefix);
        // Only reads: nothing to cut or clear.
        assert_eq!(sim.op_count() - ops, 1, "one read of the segment");
        assert_eq!(file_len(&sim, &path), full + 4096);
        append(&wal, &[7]);
        assert!(wal.verify().unwrap().is_empty());
        drop(wal);
        let (_, recovered) = open(&sim.crash(CrashMode::DropUnsynced), 0);
        assert_eq!(lsns(&recovered.frames), [1, 2]);
    }

    #[test]
    fn torn_frames_are_cleared_so_none_can_follow_new_frames_after_recovery() {
        let sim = SimVfs::new();
        let end;
        {
            let (wal, _) = open(&sim, 0);
            append(&wal, &[20]);
            end = wal.bytes() as usize;
        }
        let path = seg_path(db(), 1);
        // An unsynced batch 2..3 found with frame 2 damaged and frame 3 whole.
        let batch = {
            let twin = sim.crash(CrashMode::DropUnsynced);
            let (wal, _) = open(&twin, 0);
            append(&wal, &[600, 600]);
            twin.read_raw(&path).unwrap()[end..end + 2 * frame_len(600) as usize].to_vec()
        };
        let mut torn = batch.clone();
        torn[100..200].fill(0);
        sim.write_raw(&path, end as u64, &torn);
        let (wal, recovered) = open(&sim, 0);
        assert_eq!(lsns(&recovered.frames), [1]);
        assert_eq!(recovered.torn_bytes, batch.len() as u64);
        // A new frame 2 exactly as long as the torn one: the old frame 3, had it been
        // left in place, would now follow it as a valid member of its batch.
        assert_eq!(frame_len(597), frame_len(600));
        append(&wal, &[597]);
        drop(wal);
        let (wal, recovered) = open(&sim.crash(CrashMode::DropUnsynced), 0);
        assert_eq!(lsns(&recovered.frames), [1, 2]);
        assert_eq!(recovered.frames[1].payload.len(), 597);
        assert_eq!(wal.next_lsn(), 3);
    }

    #[test]
    fn reordered_torn_batch_later_frame_present_earlier_one_torn_is_a_torn_tail() {
        let sim = SimVfs::new();
        let first;
        {
            let (wal, _) = open(&sim, 0);
            first = append(&wal, &[20]);
            append(&wal, &[1000, 1000, 1000]); // LSN 2..4: several sectors
        }
        let path = seg_path(db(), 1);
        let start = frame_len(20);
        // Frame 2's second sector never made it; frames 3 and 4 are whole.
        sim.write_raw(&path, 512, &[0u8; 512]);
        let full = nonzero_len(&sim.read_raw(&path).unwrap());
        assert_eq!(full, start + 3 * frame_len(1000));
        let (wal, recovered) = open(&sim, 0);
        assert_eq!(recovered.frames, first);
        assert_eq!(recovered.torn_bytes, full - start);
        assert!(zeros_from(&sim, &path, start), "the torn frames are cleared");
        // Same with the frame's header sector lost instead.
        let sim2 = SimVfs::new();
        {
            let (wal, _) = open(&sim2, 0);
            append(&wal, &[480]); // frame 1 fills exactly the first sector
            append(&wal, &[1000, 1000, 1000]);
        }
        sim2.write_raw(&path, 512, &[0u8; 512]);
        let (_, recovered) = open(&sim2, 0);
        assert_eq!(lsns(&recovered.frames), [1]);
        drop(wal);
    }

    #[test]
    fn torn_batch_under_chaos_crashes_always_recovers_a_prefix() {
        // The batch is written (not synced) by hand, then the crash tears, drops or keeps
        // each of its sectors at random. `new_segment`: the batch starts a new segment
        // (as after a rotation), whose creation is unsynced too.
        let batch_lens = [700usize, 30, 1500, 9, 2000, 480];
        for new_segment in [false, true] {
            let base = SimVfs::new();
            let (synced, synced_bytes) = {
                let (wal, _) = open(&base, 0);
                let mut synced = append(&wal, &[100, 3]);
                synced.extend(append(&wal, &[1]));
                (synced, wal.bytes())
            };
            let batch_bytes: u64 = batch_lens.iter().map(|&l| frame_len(l)).sum();
            let torn_lsn = synced.len() as u64 + 1;
            let batch: Vec<Frame> = batch_lens
                .iter()
                .enumerate()
                .map(|(i, &len)| Frame {
                    lsn: torn_lsn + i as u64,
                    payload: payload(torn_lsn + i as u64, len),
                })
                .collect();
            let (target, offset, bytes) = {
                let twin = base.crash(CrashMode::DropUnsynced);
                if new_segment {
                    let mut bytes = foreign_segment(&twin, torn_lsn, &[&batch_lens]);
                    bytes.truncate(batch_bytes as usize);
                    (seg_path(db(), torn_lsn), 0, bytes)
                } else {
                    let path = seg_path(db(), 1);
                    let offset = synced_bytes as usize;
                    let (wal, _) = open(&twin, 0);
                    append(&wal, &batch_lens);
                    let bytes = twin.read_raw(&path).unwrap()[offset..offset + batch_bytes as usize].to_vec();
                    (path.clone(), offset, bytes)
                }
            };
            let mut outcomes = std::collections::BTreeSet::new();
            for seed in 0..300 {
                let sim = base.crash(CrashMode::DropUnsynced);
                let file = sim.open(&target, true).unwrap();
                file.write_at(&bytes, offset as u64).unwrap();
                // As the writer does: zeros after the batch, unsynced too.
                file.allocate(PREALLOCATE_BYTES_DEFAULT).unwrap();
                drop(file);
                let sim = sim.crash(CrashMode::Chaos { seed });
                let (wal, recovered) = open(&sim, 0);
                let got = recovered.frames;
                assert!(got.len() >= synced.len(), "seed {seed}: lost synced frames");
                assert_eq!(got[..synced.len()], synced[..], "seed {seed}");
                let kept = got.len() - synced.len();
                assert_eq!(
                    got[synced.len()..],
                    batch[..kept],
                    "seed {seed}: not a prefix"
                );
                outcomes.insert(kept);
                append(&wal, &[4]);
                assert!(wal.verify().unwrap().is_empty(), "seed {seed}");
            }
            assert!(
                outcomes.len() > 2,
                "chaos should tear at several places: {outcomes:?}"
            );
        }
    }

    #[test]
    fn bit_flip_in_an_earlier_synced_batch_followed_by_later_batches_is_wal_corrupted() {
        let sim = SimVfs::new();
        {
            let (wal, _) = open(&sim, 0);
            append(&wal, &[20]);
            append(&wal, &[30, 40]);
            append(&wal, &[50]);
        }
        let path = seg_path(db(), 1);
        let frame3 = frame_len(20) + frame_len(30);
        flip_bit(&sim, &path, frame3 + FRAME_HEADER_BYTES as u64 + 5, 3);
        expect_corrupted(open_at(&sim, db(), 0), &seg_name(1), frame3);
        expect_corrupted(open_at(&sim, db(), 2), &seg_name(1), frame3);
        // Once checkpointed, the frame is history recovery does not need: the WAL
        // opens, but the damage is reported, never silently dropped.
        let (wal, recovered) = open(&sim, 3);
        assert_eq!(recovered.damage, [damage(1, frame3, 3..4)]);
        assert_eq!(lsns(&recovered.frames), [4]);
        expect_corrupted(wal.read_after(0, 10, usize::MAX), &seg_name(1), frame3);
    }

    #[test]
    fn bit_flip_in_a_segment_followed_by_a_later_segment_is_wal_corrupted() {
        let sim = SimVfs::new();
        {
            let (wal, _) = open(&sim, 0);
            append(&wal, &[20, 20]);
        }
        plant(&sim, 3, &foreign_segment(&sim, 3, &[&[5], &[6]]));
        assert_eq!(
            lsns(&open(&sim, 0).1.frames),
            [1, 2, 3, 4],
            "planted segment continues"
        );
        flip_bit(&sim, &seg_path(db(), 1), frame_len(20) + 9, 0);
        expect_corrupted(open_at(&sim, db(), 0), &seg_name(1), frame_len(20));
    }

    #[test]
    fn every_single_bit_flip_in_a_frame_followed_by_a_later_batch_is_detected() {
        // Frame 2 (5-byte payload, 3 bytes of padding) sits between two batches.
        let build = || {
            let sim = SimVfs::new();
            let (wal, _) = open(&sim, 0);
            append(&wal, &[12]);
            append(&wal, &[5]);
            append(&wal, &[1]);
            sim
        };
        let path = seg_path(db(), 1);
        let start = frame_len(12);
        let len = frame_len(5);
        assert_eq!(len, 40);
        for bit in 0..len * 8 {
            let sim = build();
            flip_bit(&sim, &path, start + bit / 8, (bit % 8) as u8);
            expect_corrupted(open_at(&sim, db(), 0), &seg_name(1), start);
        }
        // And the first frame of a segment.
        for bit in 0..frame_len(12) * 8 {
            let sim = build();
            flip_bit(&sim, &path, bit / 8, (bit % 8) as u8);
            expect_corrupted(open_at(&sim, db(), 0), &seg_name(1), 0);
        }
    }

    #[test]
    fn damage_to_the_last_synced_batch_alone_is_indistinguishable_from_a_torn_tail() {
        // Documented limit: with no later batch, nothing tells bit rot from a tear.
        let sim = SimVfs::new();
        {
            let (wal, _) = open(&sim, 0);
            append(&wal, &[20]);
            append(&wal, &[30, 40]);
        }
        flip_bit(&sim, &seg_path(db(), 1), frame_len(20) + 40, 1);
        let (_, recovered) = open(&sim, 0);
        assert_eq!(lsns(&recovered.frames), [1]);
        assert!(recovered.torn_bytes > 0);
    }

    #[test]
    fn segment_whose_name_disagrees_with_its_first_frame_is_wal_corrupted() {
        let sim = SimVfs::new();
        {
            let (wal, _) = open(&sim, 0);
            append(&wal, &[20, 20, 20]);
        }
        plant(&sim, 4, &foreign_segment(&sim, 5, &[&[5]]));
        expect_corrupted(open_at(&sim, db(), 0), &seg_name(4), 0);
    }

    #[test]
    fn gap_between_segments_is_wal_corrupted() {
        let sim = SimVfs::new();
        {
            let (wal, _) = open(&sim, 0);
            append(&wal, &[20, 20, 20]);
        }
        plant(&sim, 6, &foreign_segment(&sim, 6, &[&[5]]));
        expect_corrupted(open_at(&sim, db(), 0), &seg_name(6), 0);
    }

    #[test]
    fn oldest_segment_starting_past_the_checkpoint_is_wal_corrupted() {
        let sim = SimVfs::new();
        plant(&sim, 8, &foreign_segment(&sim, 8, &[&[5]]));
        expect_corrupted(open_at(&sim, db(), 3), &seg_name(8), 0);
        // Retention may leave the oldest segment anywhere up to checkpoint + 1.
        let (wal, recovered) = open(&sim, 7);
        assert_eq!(lsns(&recovered.frames), [8]);
        assert_eq!(wal.oldest_lsn(), 8);
    }

    #[test]
    fn torn_tail_removes_later_segments_holding_only_discarded_frames() {
        let sim = SimVfs::new();
        {
            let (wal, _) = open(&sim, 0);
            append(&wal, &[20]);
            append(&wal, &[600, 600]);
        }
        // Torn frame 2, and a later segment that holds only torn bytes.
        sim.write_raw(&seg_path(db(), 1), 512, &[0xEE; 100]);
        plant(&sim, 4, &[0x11; 300]);
        let full = nonzero_len(&sim.read_raw(&seg_path(db(), 1)).unwrap());
        let (wal, recovered) = open(&sim, 0);
        assert_eq!(lsns(&recovered.frames), [1]);
        assert_eq!(recovered.torn_bytes, full - frame_len(20) + 300);
        assert_eq!(wal.next_lsn(), 2);
        let sim = sim.crash(CrashMode::DropUnsynced);
        assert_eq!(
            sim.list(&db().join("wal")).unwrap(),
            [seg_name(1)],
            "removal is durable"
        );
    }

    #[test]
    fn torn_first_batch_of_a_new_segment_recovers_into_that_segment() {
        let sim = SimVfs::new();
        {
            let (wal, _) = open(&sim, 0);
            append(&wal, &[20, 20]);
        }
        plant(&sim, 3, &foreign_segment(&sim, 3, &[&[700, 700]]));
        sim.write_raw(&seg_path(db(), 3), 0, &[0u8; 512]); // its first sector is lost
        let (wal, recovered) = open(&sim, 0);
        assert_eq!(lsns(&recovered.frames), [1, 2]);
        assert!(zeros_from(&sim, &seg_path(db(), 3), 0), "its torn bytes are cleared");
        append(&wal, &[1]);
        drop(wal);
        let (wal, recovered) = open(&sim.crash(CrashMode::DropUnsynced), 0);
        assert_eq!(lsns(&recovered.frames), [1, 2, 3]);
        assert!(wal.verify().unwrap().is_empty());
    }

    #[test]
    fn verify_reports_damage_and_read_after_refuses_damaged_frames() {
        let sim = SimVfs::new();
        let (wal, _) = open(&sim, 0);
        append(&wal, &[20]);
        append(&wal, &[30, 40]);
        assert_eq!(wal.verify().unwrap(), Vec::<String>::new());

        let path = seg_path(db(), 1);
        let offset = frame_len(20);
        flip_bit(&sim, &path, offset + 40, 6);
        let problems = wal.verify().unwrap();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains(&seg_name(1)) && problems[0].contains(&format!("byte {offset}")),
            "{problems:?}"
        );
        match wal.read_after(0, 10, usize::MAX) {
            Err(Error::WalCorrupted { segment, offset: o }) => {
                assert_eq!((segment, o), (seg_name(1), offset))
            }
            other => panic!("expected WalCorrupted, got {other:?}"),
        }
        assert_eq!(
            lsns(&wal.read_after(2, 10, usize::MAX).unwrap()),
            [3],
            "undamaged frames still read"
        );

        // Stray files are reported too; verify changes nothing.
        let before = sim.read_raw(&path).unwrap();
        sim.open(&db().join("wal").join("notes.txt"), true).unwrap();
        let problems = wal.verify().unwrap();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems.iter().any(|p| p.contains("notes.txt")));
        assert_eq!(sim.read_raw(&path).unwrap(), before);
    }
}
