//! Three kinds of failure, kept apart: corruption (a stored byte is wrong), operating
//! errors (the OS refused, the directory is locked, the caller asked for something
//! impossible), and bugs (assertions, which panic and are never mapped to data).

use std::fmt;
use std::io;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CorruptionKind {
    /// The slot's checksum does not match its bytes.
    Checksum,
    /// The checksum holds but the slot names another page: a misdirected write.
    PageNumber,
    /// The slot is intact but is not the page type its reader expected.
    PageType,
    /// Neither meta slot is valid.
    Meta,
    /// The slot is intact but is not the version its parent points to: a lost write
    /// or a stale image (the parent records each child's checksum).
    Stale,
    /// The slot decodes but breaks a tree invariant (key order, bounds, depth).
    Tree,
}

impl CorruptionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CorruptionKind::Checksum => "checksum",
            CorruptionKind::PageNumber => "page_number",
            CorruptionKind::PageType => "page_type",
            CorruptionKind::Meta => "meta",
            CorruptionKind::Stale => "stale",
            CorruptionKind::Tree => "tree",
        }
    }
}

#[derive(Debug)]
pub enum Error {
    /// A stored page failed verification. Its bytes are never returned as data.
    Corrupted { page: u64, kind: CorruptionKind },
    /// A WAL frame that was durable is damaged: a bad frame followed by frames of a
    /// later, synced batch. (A torn tail after a crash is normal recovery instead.)
    WalCorrupted { segment: String, offset: u64 },
    /// A write or fsync failed, or the binding caught a panic (`database/fail_stop.rs`), now or
    /// earlier (the cause names it), so the database stopped writing: this commit or
    /// checkpoint was NOT written, and nothing more is until the directory is reopened
    /// and recovered (fail-stop: never retry an fsync and carry on).
    FailStopped(String),
    /// Writing or syncing this commit's WAL batch failed after its bytes may have
    /// reached the file: it may or may not be durable (recovery decides). The
    /// database is fail-stopped, as for `FailStopped`.
    OutcomeUnknown(String),
    /// The file system is full (ENOSPC) or over quota (EDQUOT) where nothing of the
    /// commit or checkpoint had been written yet: it was not written, and the
    /// database carries on (a later commit succeeds once space is freed).
    StorageFull { op: &'static str, path: PathBuf, detail: String },
    /// The database was opened read-only; it refuses to change anything.
    ReadOnly(&'static str),
    /// Another process (or another handle in this one) holds the directory's lock.
    Locked { dir: PathBuf },
    /// The operating system refused an operation.
    Io { op: &'static str, path: PathBuf, source: io::Error },
    /// The caller asked for something the storage core cannot do.
    InvalidArgument(String),
    /// The database was closed.
    Closed,
    /// A backup holds the gate (`database/backup/gate.rs`): the named maintenance (a checkpoint,
    /// a compaction) is refused, and may be retried once the backup ends.
    BackupInProgress(&'static str),
    /// The database is in follower mode (`Options::follower`): it applies a primary's
    /// frames and refuses local commits.
    NotPrimary,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// A stable snake_case code, the one the binding hands to JavaScript.
    /// True for damage to stored bytes (as opposed to an operating error or a bug).
    pub fn is_corruption(&self) -> bool {
        matches!(self, Error::Corrupted { .. } | Error::WalCorrupted { .. })
    }

    pub fn code(&self) -> &'static str {
        match self {
            Error::Corrupted { .. } => "corrupted",
            Error::WalCorrupted { .. } => "corrupted",
            Error::FailStopped(_) => "fail_stopped",
            Error::OutcomeUnknown(_) => "outcome_unknown",
            Error::StorageFull { .. } => "storage_full",
            Error::ReadOnly(_) => "read_only",
            Error::Locked { .. } => "locked",
            Error::Io { .. } => "io",
            Error::InvalidArgument(_) => "invalid_argument",
            Error::Closed => "closed",
            Error::BackupInProgress(_) => "backup_in_progress",
            Error::NotPrimary => "not_primary",
        }
    }

    /// The page of the page file a `Corrupted` error names.
    pub fn page(&self) -> Option<u64> {
        match self {
            Error::Corrupted { page, .. } => Some(*page),
            _ => None,
        }
    }

    /// The damaged file of a corruption error, relative to the database directory:
    /// `pages`, or `wal/<segment>` (as the corruption log names it).
    pub fn file(&self) -> Option<String> {
        match self {
            Error::Corrupted { .. } => Some("pages".into()),
            Error::WalCorrupted { segment, .. } => Some(format!("wal/{segment}")),
            _ => None,
        }
    }

    pub(crate) fn io(op: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Error {
        Error::Io { op, path: path.into(), source }
    }

    /// Like `io`, but a full file system (ENOSPC, EDQUOT) becomes `StorageFull`. Only
    /// for operations after whose failure nothing of the change was written.
    pub(crate) fn io_or_full(op: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Error {
        if is_full(&source) {
            Error::StorageFull { op, path: path.into(), detail: source.to_string() }
        } else {
            Error::io(op, path, source)
        }
    }

    /// The same error again, for completing every commit of a failed batch (the
    /// variants a batch can fail with are exact copies).
    pub(crate) fn duplicate(&self) -> Error {
        match self {
            Error::FailStopped(cause) => Error::FailStopped(cause.clone()),
            Error::OutcomeUnknown(cause) => Error::OutcomeUnknown(cause.clone()),
            Error::StorageFull { op, path, detail } => {
                Error::StorageFull { op, path: path.clone(), detail: detail.clone() }
            }
            Error::InvalidArgument(message) => Error::InvalidArgument(message.clone()),
            Error::ReadOnly(what) => Error::ReadOnly(what),
            Error::Closed => Error::Closed,
            Error::NotPrimary => Error::NotPrimary,
            // Not a batch's error; the safe reading is that nothing is known.
            other => Error::OutcomeUnknown(other.to_string()),
        }
    }
}

/// Linux errno values, spelled out so no `libc` dependency is needed.
const ENOSPC: i32 = 28;
const EDQUOT: i32 = 122;

/// Whether an I/O error says the file system (or the user's quota) is full.
pub(crate) fn is_full(err: &io::Error) -> bool {
    matches!(err.raw_os_error(), Some(ENOSPC | EDQUOT))
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Corrupted { page, kind } => {
                write!(f, "page {page} is corrupted ({} check failed)", kind.as_str())
            }
            Error::WalCorrupted { segment, offset } => {
                write!(f, "WAL segment {segment} is corrupted at byte {offset}")
            }
            Error::FailStopped(cause) => write!(
                f,
                "database stopped writing after a failure ({cause}); this change was not \
                 written; reopen the directory to recover"
            ),
            Error::OutcomeUnknown(cause) => write!(
                f,
                "writing this commit failed ({cause}): it may or may not be durable; the \
                 database stopped writing; reopen the directory to recover, then check \
                 whether the commit is there before retrying it"
            ),
            Error::StorageFull { op, path, detail } => write!(
                f,
                "the disk is full: {op} {}: {detail}; nothing of this change was written; \
                 free space and retry",
                path.display()
            ),
            Error::ReadOnly(what) => {
                write!(f, "the database is open read-only: {what} is refused")
            }
            Error::Locked { dir } => write!(
                f,
                "database directory {} is locked by another process (is a server running on it?)",
                dir.display()
            ),
            Error::Io { op, path, source } => write!(f, "{op} {}: {source}", path.display()),
            Error::InvalidArgument(message) => f.write_str(message),
            Error::Closed => f.write_str("database is closed"),
            Error::BackupInProgress(what) => {
                write!(f, "{what} is refused while a backup is in progress; retry once it ends")
            }
            Error::NotPrimary => f.write_str("the database is a follower: it applies its primary's frames and refuses local commits"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
