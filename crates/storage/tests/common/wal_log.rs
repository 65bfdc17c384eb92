//! Helpers of the WAL tests (`wal.rs`, `wal_damage.rs`): a WAL on the simulated
//! file system, deterministic batches, and ways to damage or plant segment files.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use storage::vfs::{SimVfs, Vfs};
use storage::wal::{Frame, Recovered, Wal, WalDamage, FRAME_HEADER_BYTES, PREALLOCATE_BYTES_DEFAULT};
use storage::Error;

pub fn db() -> &'static Path {
    Path::new("/db")
}

pub fn seg_path(dir: &Path, first_lsn: u64) -> PathBuf {
    dir.join("wal").join(seg_name(first_lsn))
}

pub fn seg_name(first_lsn: u64) -> String {
    format!("{first_lsn:020}.wal")
}

pub fn open_at(sim: &SimVfs, dir: &Path, checkpoint: u64) -> storage::Result<(Wal, Recovered)> {
    Wal::open(Arc::new(sim.clone()) as Arc<dyn Vfs>, dir, checkpoint, PREALLOCATE_BYTES_DEFAULT)
}

pub fn open_at_with(sim: &SimVfs, dir: &Path, checkpoint: u64, preallocate_bytes: u64) -> (Wal, Recovered) {
    Wal::open(Arc::new(sim.clone()) as Arc<dyn Vfs>, dir, checkpoint, preallocate_bytes).expect("WAL opens")
}

pub fn open(sim: &SimVfs, checkpoint: u64) -> (Wal, Recovered) {
    open_at(sim, db(), checkpoint).expect("WAL opens")
}

/// Deterministic payload of `len` bytes for `lsn`, so content checks catch mix-ups.
pub fn payload(lsn: u64, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (lsn as usize * 131 + i * 7 + 1) as u8)
        .collect()
}

/// Appends one batch with these payload sizes at `next_lsn`; returns its frames.
pub fn append(wal: &Wal, lens: &[usize]) -> Vec<Frame> {
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
    wal.append_batch(&batch).expect("append");
    frames
}

/// Bytes a frame takes on disk, padding included.
pub fn frame_len(payload_len: usize) -> u64 {
    (FRAME_HEADER_BYTES + payload_len).next_multiple_of(8) as u64
}

pub fn file_len(sim: &SimVfs, path: &Path) -> u64 {
    sim.read_raw(path).expect("file exists").len() as u64
}

/// Length of `bytes` without its trailing zeros: where the last nonzero byte ends.
pub fn nonzero_len(bytes: &[u8]) -> u64 {
    bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i as u64 + 1)
}

/// Whether the durable file at `path` holds only zeros from `from` on.
pub fn zeros_from(sim: &SimVfs, path: &Path, from: u64) -> bool {
    sim.read_raw(path).expect("file exists")[from as usize..].iter().all(|&b| b == 0)
}

pub fn flip_bit(sim: &SimVfs, path: &Path, offset: u64, bit: u8) {
    let byte = sim.read_raw(path).expect("file exists")[offset as usize];
    sim.write_raw(path, offset, &[byte ^ (1 << bit)]);
}

pub fn truncate(sim: &SimVfs, path: &Path, len: u64) {
    let file = sim.open(path, false).unwrap();
    file.set_len(len).unwrap();
    file.sync().unwrap();
}

pub fn damage(segment_first_lsn: u64, offset: u64, lsns: std::ops::Range<u64>) -> WalDamage {
    WalDamage { segment: seg_name(segment_first_lsn), offset, lsns }
}

pub fn lsns(frames: &[Frame]) -> Vec<u64> {
    frames.iter().map(|f| f.lsn).collect()
}

pub fn expect_corrupted<T>(result: storage::Result<T>, segment: &str, offset: u64) {
    match result {
        Err(Error::WalCorrupted {
            segment: s,
            offset: o,
        }) => {
            assert_eq!((s.as_str(), o), (segment, offset), "wrong place reported")
        }
        Err(other) => panic!("expected WalCorrupted at {segment}:{offset}, got {other}"),
        Ok(_) => panic!("expected WalCorrupted at {segment}:{offset}, got Ok"),
    }
}

/// Builds a segment starting at `first_lsn` holding `batches` in another directory
/// (a WAL opened with checkpoint `first_lsn - 1`) and returns its bytes, to plant
/// hand-made segments without writing 16 MiB.
pub fn foreign_segment(sim: &SimVfs, first_lsn: u64, batches: &[&[usize]]) -> Vec<u8> {
    let dir = PathBuf::from(format!("/scratch{first_lsn}"));
    let (wal, _) = open_at(sim, &dir, first_lsn - 1).unwrap();
    for lens in batches {
        append(&wal, lens);
    }
    sim.read_raw(&seg_path(&dir, first_lsn)).unwrap()
}

pub fn plant(sim: &SimVfs, first_lsn: u64, bytes: &[u8]) {
    let path = db().join("wal").join(seg_name(first_lsn));
    sim.create_dir_all(&db().join("wal")).unwrap();
    let file = sim.open(&path, true).unwrap();
    file.write_at(bytes, 0).unwrap();
    file.sync().unwrap();
    sim.sync_dir(&db().join("wal")).unwrap();
}
