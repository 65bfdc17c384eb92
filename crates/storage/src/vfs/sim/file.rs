//! An open file of the simulated disk: reads and writes go to the inode's current
//! bytes, and writes queue as pending until a `sync` makes them durable (`mod.rs`).

use std::io;
use std::sync::{Arc, Mutex, MutexGuard};

use super::gate::SyncGate;
use super::ops::{OpKind, EBADF};
use super::{apply_pending, set_len_of, write_into, InodeId, On, Pending, State};
use crate::vfs::VfsFile;

/// An open file. It names the inode, not the path, so it follows its file across
/// renames and keeps an unlinked file readable, as a POSIX descriptor does.
pub(super) struct SimFile {
    state: Arc<Mutex<State>>,
    gate: Arc<SyncGate>,
    id: InodeId,
    /// Opened with `open_read`: every change through this handle fails (EBADF).
    read_only: bool,
}

impl SimFile {
    pub(super) fn new(state: &Arc<Mutex<State>>, gate: &Arc<SyncGate>, id: InodeId, read_only: bool) -> SimFile {
        SimFile { state: Arc::clone(state), gate: Arc::clone(gate), id, read_only }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A read-only handle refuses every change, as a file opened `O_RDONLY` does.
    fn writable(&self) -> io::Result<()> {
        if self.read_only {
            return Err(io::Error::from_raw_os_error(EBADF));
        }
        Ok(())
    }
}

impl Drop for SimFile {
    fn drop(&mut self) {
        let mut state = self.lock();
        if let Some(inode) = state.inodes.get_mut(&self.id) {
            inode.handles -= 1;
        }
        state.collect_garbage();
    }
}

impl VfsFile for SimFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let mut state = self.lock();
        state.begin(OpKind::Read, On::File { id: self.id, offset, len: buf.len() as u64 })?;
        let data = &state.inode(self.id).current;
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(data.len());
        let n = buf.len().min(data.len() - start);
        buf[..n].copy_from_slice(&data[start..start + n]);
        Ok(n)
    }

    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.writable()?;
        let mut state = self.lock();
        let len = state.inode(self.id).current.len() as u64;
        let growth = (offset + buf.len() as u64).saturating_sub(len);
        state.begin(OpKind::Write { grows: growth > 0 }, On::File { id: self.id, offset, len: buf.len() as u64 })?;
        state.make_room(growth)?;
        let inode = state.inode(self.id);
        write_into(&mut inode.current, offset, buf);
        inode.pending.push(Pending::Write {
            offset,
            bytes: buf.to_vec(),
        });
        Ok(())
    }

    fn sync(&self) -> io::Result<()> {
        self.writable()?;
        self.gate.pass();
        let mut state = self.lock();
        let result = state.begin(OpKind::Sync, On::Whole(self.id));
        if result.is_err() && state.ledger.power_lost() {
            return result;
        }
        let inode = state.inode(self.id);
        if result.is_err() {
            // fsyncgate: the kernel may have dropped the dirty pages and cleared the
            // error, so a retried fsync succeeds without ever writing them.
            inode.pending.clear();
            inode.diverged = true;
            return result;
        }
        for op in std::mem::take(&mut inode.pending) {
            apply_pending(&mut inode.durable, &op);
        }
        debug_assert!(inode.diverged || inode.durable == inode.current);
        Ok(())
    }

    fn len(&self) -> io::Result<u64> {
        Ok(self.lock().inode(self.id).current.len() as u64)
    }

    fn allocate(&self, len: u64) -> io::Result<()> {
        self.writable()?;
        let mut state = self.lock();
        let at = state.inode(self.id).current.len() as u64;
        if at >= len {
            return Ok(());
        }
        state.begin(OpKind::Write { grows: true }, On::File { id: self.id, offset: at, len: len - at })?;
        state.make_room(len - at)?;
        let inode = state.inode(self.id);
        let zeros = vec![0u8; usize::try_from(len - at).expect("length fits in memory")];
        write_into(&mut inode.current, at, &zeros);
        inode.pending.push(Pending::Write { offset: at, bytes: zeros });
        Ok(())
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.writable()?;
        let mut state = self.lock();
        let current = state.inode(self.id).current.len() as u64;
        state.begin(OpKind::SetLen { grows: len > current }, On::File { id: self.id, offset: len, len: 0 })?;
        state.make_room(len.saturating_sub(current))?;
        let inode = state.inode(self.id);
        set_len_of(&mut inode.current, len);
        inode.pending.push(Pending::SetLen(len));
        Ok(())
    }
}
