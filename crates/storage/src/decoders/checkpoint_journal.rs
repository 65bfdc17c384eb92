//! Target `checkpoint_journal`: a checkpoint journal file (`checkpoint/journal.rs`) through
//! `Journal::read`, the decoder open runs before it redoes a checkpoint.
//!
//! Input: the file's bytes as they are, on the simulated file system. A journal that is
//! accepted must be self-consistent (its record decodes and carries the header's
//! generation, every entry reads as one whole slot), and any one byte of it changed must make it
//! refused: open must never redo a journal it did not write whole.

use std::path::Path;
use std::sync::Arc;

use super::{assert_alloc_bounded, measure};
use crate::checkpoint::Journal;
use crate::limits::PAGE_BYTES;
use crate::vfs::{SimVfs, Vfs};

const DIR: &str = "/fuzz/db";

pub fn check_checkpoint_journal(input: &[u8]) {
    if read(input).is_none() {
        return;
    }
    // One byte changed anywhere: refused. (Sampled: every header and trailer byte, and
    // a few in between.)
    let positions: Vec<usize> = (0..input.len().min(40)).chain(input.len().saturating_sub(16)..input.len()).chain((0..input.len()).step_by(997)).collect();
    for at in positions {
        let mut changed = input.to_vec();
        changed[at] ^= 0x01;
        assert!(read(&changed).is_none(), "a journal with byte {at} changed was accepted");
    }
}

/// The pages (number, slot bytes) of an accepted journal; each entry reads as one slot.
fn read(bytes: &[u8]) -> Option<Vec<(u64, usize)>> {
    let vfs = SimVfs::new();
    let dir = Path::new(DIR);
    vfs.create_dir_all(dir).expect("the simulated directory");
    let file = vfs.open(&dir.join(crate::checkpoint::JOURNAL_FILE_NAME), true).expect("the journal file");
    file.write_at(bytes, 0).expect("write the input");
    let vfs: Arc<dyn Vfs> = Arc::new(vfs);
    let journal = Journal::open_read(&*vfs, dir).expect("open").expect("present");
    let (result, allocated) = measure(|| journal.read());
    assert_alloc_bounded("Journal::read", allocated, bytes.len());
    let complete = result.expect("a file on the simulated system reads")?;
    let mut pages = Vec::new();
    for (&page, &offset) in &complete.offsets {
        let slot = journal.read_slot(offset).expect("an entry reads");
        assert_eq!(slot.len(), PAGE_BYTES);
        pages.push((page, slot.len()));
    }
    Some(pages)
}
