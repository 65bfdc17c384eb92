//! Read-only check of every stored frame, for `tenantdb verify`-style tools.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use super::frame;
use super::segment::{is_zero, parse_segment_name, read_all_into, WalDamage};
use super::Wal;
use crate::error::{Error, Result};
use crate::progress::{Progress, WorkStep};
use crate::vfs::VfsFile;

/// What verify needs of a segment, copied out so no lock is held during I/O.
struct Snapshot {
    name: String,
    path: PathBuf,
    first_lsn: u64,
    file: Arc<dyn VfsFile>,
    offsets: Vec<u32>,
    bytes: u64,
    damage: Vec<WalDamage>,
}

pub fn verify(wal: &Wal, progress: Option<&Progress>) -> Result<Vec<String>> {
    // The listing and the snapshot are taken under the writer mutex, so no append
    // (rotation) or retain is half done between them; it waits for at most one batch.
    // The reading below runs without it.
    let (listed, snapshots) = {
        let _writer = wal.lock_writer();
        let listed = wal
            .vfs
            .list(&wal.dir)
            .map_err(|e| Error::io("list WAL directory", &wal.dir, e))?;
        let state = wal.read_state();
        let snapshots: Vec<Snapshot> = state
            .segments
            .iter()
            .map(|s| Snapshot {
                name: s.name.clone(),
                path: s.path.clone(),
                first_lsn: s.first_lsn,
                file: Arc::clone(&s.file),
                offsets: s.offsets.clone(),
                bytes: s.bytes,
                damage: s.damage.clone(),
            })
            .collect();
        (listed, snapshots)
    };

    let mut problems = Vec::new();
    let known: BTreeSet<&str> = snapshots.iter().map(|s| s.name.as_str()).collect();
    let on_disk: BTreeSet<&str> = listed.iter().map(String::as_str).collect();
    for name in &listed {
        match parse_segment_name(name) {
            None => problems.push(format!(
                "WAL directory holds {name}, which is not a segment file"
            )),
            // A read-only open leaves a torn tail's segments where they are.
            Some(_) if wal.doomed.contains(name) => {}
            Some(first_lsn) if !known.contains(name.as_str()) => problems.push(format!(
                "WAL segment file {name} is on disk but not part of the log \
                 (starts at LSN {first_lsn}; left by a failed append or copied in?)"
            )),
            Some(_) => {}
        }
    }
    for snapshot in &snapshots {
        if !on_disk.contains(snapshot.name.as_str()) {
            problems.push(format!(
                "WAL segment {} is missing from the WAL directory",
                snapshot.name
            ));
        }
    }

    let step = progress.map(|p| p.begin(WorkStep::VerifyWal, snapshots.iter().map(|s| s.bytes).sum()));
    let last = snapshots.len().saturating_sub(1);
    // One buffer for every segment (see read_all_into).
    let mut data = Vec::new();
    for (i, snapshot) in snapshots.iter().enumerate() {
        if i > 0 {
            let previous = &snapshots[i - 1];
            let expected = previous.first_lsn + previous.offsets.len() as u64;
            if snapshot.first_lsn != expected {
                problems.push(format!(
                    "WAL segment {} starts at LSN {} but the previous segment ends before LSN {expected}",
                    snapshot.name, snapshot.first_lsn
                ));
            }
        }
        verify_segment(snapshot, i == last, &mut data, &mut problems)?;
        if let Some(step) = &step {
            step.add(snapshot.bytes);
        }
    }
    Ok(problems)
}

fn verify_segment(
    snapshot: &Snapshot,
    newest: bool,
    data: &mut Vec<u8>,
    problems: &mut Vec<String>,
) -> Result<()> {
    let name = &snapshot.name;
    let len = snapshot
        .file
        .len()
        .map_err(|e| Error::io("stat WAL segment", &snapshot.path, e))?;
    // The newest segment may be growing under a concurrent append; only the durable
    // prefix is ours to judge there. After the last frame of the others, only zeros
    // (preallocated space) may follow.
    if len < snapshot.bytes {
        problems.push(format!(
            "WAL segment {name} is {len} bytes long but its frames end at byte {}",
            snapshot.bytes
        ));
    }
    read_all_into(&*snapshot.file, &snapshot.path, data)?;
    for damage in &snapshot.damage {
        problems.push(damage_problem(damage));
    }
    // A damaged segment may hold anything after its damage: reported above.
    let damaged = !snapshot.damage.is_empty();
    if !newest && !damaged && data.len() as u64 > snapshot.bytes && !is_zero(&data[snapshot.bytes as usize..]) {
        problems.push(format!(
            "WAL segment {name} holds bytes other than zeros after its last frame (byte {})",
            snapshot.bytes
        ));
    }
    // A shrunken file reads as zeros, so its lost frames fail below.
    data.resize(data.len().max(snapshot.bytes as usize), 0);
    let mut batch_start: Option<u64> = None;
    for (k, &offset) in snapshot.offsets.iter().enumerate() {
        let lsn = snapshot.first_lsn + k as u64;
        if snapshot.damage.iter().any(|d| d.lsns.contains(&lsn)) {
            // Reported once above; the frame after it starts a new run.
            batch_start = None;
            continue;
        }
        let start = offset as usize;
        let end = snapshot
            .offsets
            .get(k + 1)
            .map_or(snapshot.bytes as usize, |&o| o as usize);
        let rest = &data[start..end];
        let Some(header) = frame::check(rest) else {
            problems.push(format!(
                "WAL segment {name}, byte {start}: frame of LSN {lsn} is damaged (magic, length or checksum)"
            ));
            batch_start = None;
            continue;
        };
        if header.frame_bytes() != rest.len() {
            problems.push(format!(
                "WAL segment {name}, byte {start}: frame of LSN {lsn} is {} bytes, the index says {}",
                header.frame_bytes(),
                rest.len()
            ));
        }
        if header.lsn != lsn {
            problems.push(format!(
                "WAL segment {name}, byte {start}: frame holds LSN {} where LSN {lsn} belongs",
                header.lsn
            ));
        }
        let in_batch = header.batch_start_lsn == header.lsn
            || batch_start.is_none_or(|b| b == header.batch_start_lsn) && k > 0;
        if !in_batch {
            problems.push(format!(
                "WAL segment {name}, byte {start}: frame of LSN {lsn} names batch start {}, \
                 which is neither its own LSN nor its batch's",
                header.batch_start_lsn
            ));
        }
        if !frame::padding_is_zero(rest, &header) {
            problems.push(format!(
                "WAL segment {name}, byte {start}: padding after frame of LSN {lsn} is not zero"
            ));
        }
        batch_start = Some(header.batch_start_lsn);
    }
    Ok(())
}

/// The sentence `verify` reports for damage recovery found (and kept).
fn damage_problem(damage: &WalDamage) -> String {
    let WalDamage { segment, offset, lsns } = damage;
    if lsns.is_empty() {
        return format!("WAL segment {segment}, byte {offset}: bytes other than zeros after its last frame");
    }
    let which = if lsns.end - lsns.start == 1 {
        format!("frame of LSN {}", lsns.start)
    } else {
        format!("frames of LSN {} to {}", lsns.start, lsns.end - 1)
    };
    format!(
        "WAL segment {segment}, byte {offset}: {which} damaged or missing (checkpointed: the \
         data is intact, but the change feed cannot return them)"
    )
}
