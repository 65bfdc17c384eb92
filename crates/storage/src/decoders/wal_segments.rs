//! Target `wal_segments`: WAL segment files made from the input, opened by `Wal::open`
//! on the simulated file system. Opening is the recovery scan, which runs the frame
//! decoder (`wal/frame.rs`: `check`, `payload`, `padding_is_zero`) at every frame
//! offset and, past an unreadable frame, the forward search for a later batch.
//! (`wal/frame.rs` is private to `wal`, so the WAL is fuzzed through its own entry point.)
//!
//! Input: `flags: u8`, `segments: u8` (1 + n % 3 files), `damage_frame: u8`,
//! `damage_at: u16`, `damage_xor: u8`, then per segment `first_lsn: u16` (its file
//! name) and, for all but the last, `len: u16`; the rest is the segments' bytes, cut
//! in that order. Flags: bit 0 "seal" recomputes the checksum of every frame found
//! walking a segment by magic and length (`wal_layout::seal`), so the fuzzer gets past
//! the checksum to the checks behind it (LSN order, batch starts, padding); bit 1
//! turns on the writer's zero-filling ahead (4 KiB steps) for the append below.
//!
//! Properties, at checkpoint LSN 0 (every frame is needed for replay):
//! 1. open returns frames or `WalCorrupted`, nothing else, and allocates within the
//!    bound for the input's size;
//! 2. the frames returned have LSNs 1..=n and are frames of the input in the documented
//!    layout (read again by `wal_layout`, not `wal/frame.rs`): in file order, with zero
//!    padding, and batches as the batch rule allows;
//! 3. the recovered log is clean: `verify` finds nothing, `read_after(0)` returns the
//!    same frames;
//! 4. a frame appended after recovery comes back with all the others at the next
//!    open, which finds nothing torn: no discarded byte reappeared;
//! 5. one byte of a recovered frame altered: in the padding, or in a frame followed by
//!    a later batch (a synced one), it is corruption; otherwise (the last batch) it is
//!    a torn tail, and exactly the frames before it come back. (The documented safe
//!    exception: a later-batch frame found inside the discarded bytes makes it
//!    corruption.)

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::input::Input;
use super::wal_layout::{self, HEADER_BYTES};
use super::{assert_alloc_bounded, measure};
use crate::error::{Error, Result};
use crate::vfs::{CrashMode, SimVfs, Vfs};
use crate::wal::{Frame, Recovered, Wal, WAL_DIR_NAME};

const FLAG_SEAL: u8 = 1;
const FLAG_PREALLOCATE: u8 = 2;
const PREALLOCATE_BYTES: u64 = 4 << 10;
const SEGMENTS_MAX: usize = 3;
const APPENDED: &[u8] = b"appended after recovery";

struct Scenario {
    flags: u8,
    damage_frame: u8,
    damage_at: u16,
    damage_xor: u8,
    /// `(first_lsn, bytes)` in input order; a repeated name overwrites the earlier file.
    segments: Vec<(u64, Vec<u8>)>,
}

pub fn check_wal_segments(input: &[u8]) {
    let scenario = parse(input);
    let vfs = SimVfs::new();
    for (first_lsn, bytes) in &scenario.segments {
        write_segment(&vfs, *first_lsn, bytes);
    }
    // What the directory holds, as the WAL lists it: by name.
    let mut files: Vec<(u64, Vec<u8>)> = Vec::new();
    for (first_lsn, bytes) in &scenario.segments {
        files.retain(|(lsn, _)| lsn != first_lsn);
        files.push((*first_lsn, bytes.clone()));
    }
    files.sort_by_key(|(lsn, _)| *lsn);
    let preallocate = if scenario.flags & FLAG_PREALLOCATE != 0 { PREALLOCATE_BYTES } else { 0 };

    let (opened, allocated) = measure(|| open(&vfs, preallocate));
    assert_alloc_bounded("Wal::open", allocated, input.len());
    let (wal, recovered) = match opened {
        Ok(opened) => opened,
        Err(Error::WalCorrupted { .. }) => return,
        Err(other) => panic!("Wal::open failed with {other:?}, not WAL corruption"),
    };
    let frames = recovered.frames;
    check_against_layout(&frames, &files);
    let problems = wal.verify().expect("verify reads the simulated files");
    assert!(problems.is_empty(), "the recovered log fails verify: {problems:?}");
    let read = wal.read_after(0, usize::MAX, usize::MAX).expect("read_after");
    assert!(read == frames, "read_after(0) differs from the frames recovered");

    let appended_lsn = frames.len() as u64 + 1;
    wal.append_batch(&[(appended_lsn, APPENDED)]).expect("append after recovery");
    drop(wal);
    let mut all = frames;
    all.push(Frame { lsn: appended_lsn, payload: APPENDED.to_vec() });
    let (wal, again) = open(&vfs, preallocate).expect("the log reopens after an append");
    assert_eq!(again.torn_bytes, 0, "reopening after a clean append found torn bytes");
    assert!(again.frames == all, "reopening after an append returned other frames");
    drop(wal);

    check_damage(&vfs, &all, &scenario, preallocate);
}

fn parse(input: &[u8]) -> Scenario {
    let mut input = Input::new(input);
    let flags = input.u8();
    let count = 1 + input.u8() as usize % SEGMENTS_MAX;
    let (damage_frame, damage_at, damage_xor) = (input.u8(), input.u16(), input.u8());
    let mut table = Vec::new();
    for i in 0..count {
        let first_lsn = u64::from(input.u16());
        let len = if i + 1 < count { Some(input.u16() as usize) } else { None };
        table.push((first_lsn, len));
    }
    let mut segments = Vec::new();
    for (first_lsn, len) in table {
        let mut bytes = match len {
            Some(len) => input.take(len).to_vec(),
            None => input.rest().to_vec(),
        };
        if flags & FLAG_SEAL != 0 {
            wal_layout::seal(&mut bytes);
        }
        segments.push((first_lsn, bytes));
    }
    Scenario { flags, damage_frame, damage_at, damage_xor, segments }
}

fn db_dir() -> &'static Path {
    Path::new("/db")
}

fn segment_path(first_lsn: u64) -> PathBuf {
    db_dir().join(WAL_DIR_NAME).join(format!("{first_lsn:020}.wal"))
}

fn write_segment(vfs: &SimVfs, first_lsn: u64, bytes: &[u8]) {
    let wal_dir = db_dir().join(WAL_DIR_NAME);
    vfs.create_dir_all(&wal_dir).expect("create the WAL directory");
    let file = vfs.open(&segment_path(first_lsn), true).expect("create a segment");
    file.set_len(0).expect("truncate");
    file.write_at(bytes, 0).expect("write a segment");
    file.sync().expect("sync a segment");
    vfs.sync_dir(&wal_dir).expect("sync the WAL directory");
}

fn open(vfs: &SimVfs, preallocate: u64) -> Result<(Wal, Recovered)> {
    Wal::open(Arc::new(vfs.clone()) as Arc<dyn Vfs>, db_dir(), 0, preallocate)
}

/// Property 2: every frame returned, read again by the documented layout.
fn check_against_layout(frames: &[Frame], files: &[(u64, Vec<u8>)]) {
    let (mut segment, mut at) = (0usize, 0usize);
    let mut batch_start = None;
    for (i, frame) in frames.iter().enumerate() {
        assert_eq!(frame.lsn, i as u64 + 1, "frame {i} returned with LSN {}", frame.lsn);
        let laid = loop {
            let (_, data) = files.get(segment).unwrap_or_else(|| panic!("LSN {} returned past the last segment", frame.lsn));
            if let Some(laid) = wal_layout::frame_at(data, at) {
                break laid;
            }
            // Frames go on in the next segment only after zeros (preallocated space).
            assert!(data[at.min(data.len())..].iter().all(|&b| b == 0), "LSN {} returned after unreadable bytes", frame.lsn);
            (segment, at, batch_start) = (segment + 1, 0, None);
        };
        let (_, data) = &files[segment];
        assert_eq!(laid.lsn, frame.lsn, "LSN {} returned where the file holds LSN {}", frame.lsn, laid.lsn);
        assert!(laid.payload(data) == frame.payload, "LSN {}: payload differs from the file", frame.lsn);
        assert!(laid.padding_is_zero, "LSN {} returned with nonzero padding", frame.lsn);
        assert!(
            laid.batch_start_lsn == laid.lsn || Some(laid.batch_start_lsn) == batch_start,
            "LSN {} returned with batch start {}, neither its own LSN nor its batch's",
            laid.lsn,
            laid.batch_start_lsn
        );
        batch_start = Some(laid.batch_start_lsn);
        at += laid.bytes();
    }
}

/// Property 5, on a copy of the recovered and appended log.
fn check_damage(vfs: &SimVfs, all: &[Frame], scenario: &Scenario, preallocate: u64) {
    let names = vfs.list(&db_dir().join(WAL_DIR_NAME)).expect("list the WAL directory");
    let files: Vec<(PathBuf, Vec<u8>)> = names
        .iter()
        .map(|name| {
            let path = db_dir().join(WAL_DIR_NAME).join(name);
            let bytes = vfs.read_raw(&path).expect("a listed segment");
            (path, bytes)
        })
        .collect();
    let laid: Vec<(usize, wal_layout::LaidFrame)> = files
        .iter()
        .enumerate()
        .flat_map(|(i, (_, data))| wal_layout::frames(data).into_iter().map(move |f| (i, f)))
        .collect();
    assert_eq!(laid.len(), all.len(), "the recovered segments do not hold the recovered frames back to back");

    let k = scenario.damage_frame as usize % laid.len();
    let (file, target) = &laid[k];
    let at = scenario.damage_at as usize % target.bytes();
    let xor = scenario.damage_xor.max(1);
    let (path, data) = &files[*file];
    let damaged = vfs.crash(CrashMode::DropUnsynced);
    damaged.write_raw(path, (target.offset + at) as u64, &[data[target.offset + at] ^ xor]);

    let in_padding = at >= HEADER_BYTES + target.payload_len;
    let later_batch = laid[k + 1..].iter().any(|(_, f)| f.batch_start_lsn > target.lsn);
    let outcome = open(&damaged, preallocate);
    let what = format!("LSN {} altered at byte {at} of its frame (xor {xor:#04x})", target.lsn);
    match outcome {
        Err(Error::WalCorrupted { .. }) if in_padding || later_batch => {}
        _ if in_padding => panic!("{what}, in the padding: not refused as corruption"),
        _ if later_batch => panic!("{what}, a later batch follows: not refused as corruption"),
        Ok((_, recovered)) => {
            assert!(recovered.frames[..] == all[..k], "{what}, in the last batch: not exactly the frames before it came back");
        }
        Err(Error::WalCorrupted { .. }) => {
            let mut segments: Vec<Vec<u8>> = files.iter().map(|(_, d)| d.clone()).collect();
            segments[*file][target.offset + at] ^= xor;
            assert!(
                wal_layout::later_batch_after(&segments, *file, target.offset, target.lsn),
                "{what}, in the last batch: refused as corruption with no later batch after it"
            );
        }
        Err(other) => panic!("{what}: open failed with {other:?}, not WAL corruption"),
    }
}
