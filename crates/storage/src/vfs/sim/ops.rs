//! The simulated disk's ledger of I/O operations. Every counted operation gets its
//! index here; the ledger decides whether the injected fault fails it, remembers
//! where the fault actually fired (so a test can tell a fault that fired from one
//! that never met an operation it applies to), and, on request, keeps the sequence of
//! operations (so a test can show that a schedule is reproducible).

use std::io;

/// Linux errno values, spelled out so no `libc` dependency is needed.
pub(super) const EIO: i32 = 5;
pub(super) const EBADF: i32 = 9;
pub(super) const ENOSPC: i32 = 28;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// Every operation kind fails, reads and syncs included.
    Eio,
    /// Only operations that grow data fail: a `write_at` or `allocate` that extends
    /// the file, an extending `set_len`, and creating a file. Overwriting bytes the
    /// file already has needs no new space (as on ext4, XFS or tmpfs).
    Enospc,
    /// The power goes off: this operation and every later one fail (EIO, always
    /// persistent) and change nothing. Unlike `Eio`, a failed `sync` drops nothing:
    /// the writes pending at the cut stay pending, so `SimVfs::crash` may keep any of
    /// them, as a real power cut during an fsync may.
    PowerLoss,
}

impl FaultKind {
    /// The errno an operation failed by this fault returns.
    pub fn errno(self) -> i32 {
        match self {
            FaultKind::Eio | FaultKind::PowerLoss => EIO,
            FaultKind::Enospc => ENOSPC,
        }
    }
}

/// Where an injected fault fired: the first operation it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FiredFault {
    /// That operation's index (as counted by `SimVfs::op_count`).
    pub index: u64,
    /// That operation, as the trace spells it: kind, file, and for data operations
    /// offset and length, e.g. `write /sim/db/pages @8192+4096 grows`.
    pub op: String,
    /// The errno it returned.
    pub errno: i32,
    /// How many operations the fault failed (more than one only when persistent).
    pub times: u64,
}

#[derive(Clone, Copy)]
struct Fault {
    at: u64,
    kind: FaultKind,
    persistent: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum OpKind {
    Read,
    /// `grows`: the write extends the file (only then can it ENOSPC).
    Write {
        grows: bool,
    },
    Sync,
    /// `set_len`; `grows` says whether it extends the file (only then can it ENOSPC).
    SetLen {
        grows: bool,
    },
    SyncDir,
    Create,
    Remove,
    Rename,
}

impl OpKind {
    fn can_grow(self) -> bool {
        matches!(
            self,
            OpKind::Write { grows: true } | OpKind::SetLen { grows: true } | OpKind::Create
        )
    }

    fn name(self) -> &'static str {
        match self {
            OpKind::Read => "read",
            OpKind::Write { grows: false } => "write",
            OpKind::Write { grows: true } => "write+grow",
            OpKind::Sync => "sync",
            OpKind::SetLen { grows: false } => "set_len",
            OpKind::SetLen { grows: true } => "set_len+grow",
            OpKind::SyncDir => "sync_dir",
            OpKind::Create => "create",
            OpKind::Remove => "remove",
            OpKind::Rename => "rename",
        }
    }
}

#[derive(Default)]
pub(super) struct Ledger {
    count: u64,
    fault: Option<Fault>,
    fired: Option<FiredFault>,
    trace: Option<Vec<String>>,
}

impl Ledger {
    /// Counts one operation and decides whether it fails. A one-shot fault fires on
    /// the first operation at or after its index that the fault applies to (for
    /// `Eio`, exactly that index), then disarms. `target` names what the operation
    /// works on; it is spelled out only for the trace and for a fault that fires.
    pub(super) fn begin(&mut self, op: OpKind, target: impl FnOnce() -> String) -> io::Result<()> {
        let index = self.count;
        self.count += 1;
        let fault = self
            .fault
            .filter(|f| index >= f.at && (f.kind != FaultKind::Enospc || op.can_grow()));
        // Spelled out only when someone reads it: the trace, or a first firing.
        let first_firing = fault.is_some() && self.fired.is_none();
        let described = (self.trace.is_some() || first_firing).then(|| format!("{} {}", op.name(), target()));
        let Some(fault) = fault else {
            if let (Some(trace), Some(described)) = (self.trace.as_mut(), described) {
                trace.push(described);
            }
            return Ok(());
        };
        if !fault.persistent && fault.kind != FaultKind::PowerLoss {
            self.fault = None;
        }
        let errno = fault.kind.errno();
        if let (Some(trace), Some(described)) = (self.trace.as_mut(), described.as_ref()) {
            trace.push(format!("{described} failed {errno}"));
        }
        match (self.fired.as_mut(), described) {
            (Some(fired), _) => fired.times += 1,
            (None, described) => {
                let op = described.expect("spelled out for a first firing");
                self.fired = Some(FiredFault { index, op, errno, times: 1 });
            }
        }
        Err(io::Error::from_raw_os_error(errno))
    }

    pub(super) fn count(&self) -> u64 {
        self.count
    }

    /// Arms a fault (replacing any earlier one) and forgets where the last one fired.
    pub(super) fn fail_at(&mut self, at: u64, kind: FaultKind, persistent: bool) {
        self.fault = Some(Fault { at, kind, persistent });
        self.fired = None;
    }

    /// Disarms the fault; where it fired is still known.
    pub(super) fn clear_fault(&mut self) {
        self.fault = None;
    }

    /// Whether the power went off (`FaultKind::PowerLoss` fired).
    pub(super) fn power_lost(&self) -> bool {
        self.fired.is_some() && self.fault.is_some_and(|f| f.kind == FaultKind::PowerLoss)
    }

    pub(super) fn fired(&self) -> Option<FiredFault> {
        self.fired.clone()
    }

    pub(super) fn start_trace(&mut self) {
        self.trace.get_or_insert_with(Vec::new);
    }

    pub(super) fn trace(&self) -> Vec<String> {
        self.trace.clone().unwrap_or_default()
    }
}
