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
    /// An fsync failed earlier; nothing more is acknowledged until the directory is
    /// reopened and recovered (fail-stop, never retry an fsync and carry on).
    FailStopped(String),
    /// Another process (or another handle in this one) holds the directory's lock.
    Locked { dir: PathBuf },
    /// The operating system refused an operation.
    Io { op: &'static str, path: PathBuf, source: io::Error },
    /// The caller asked for something the storage core cannot do.
    InvalidArgument(String),
    /// The database was closed.
    Closed,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// A stable snake_case code, the one the binding hands to JavaScript.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Corrupted { .. } => "corrupted",
            Error::WalCorrupted { .. } => "corrupted",
            Error::FailStopped(_) => "fail_stopped",
            Error::Locked { .. } => "locked",
            Error::Io { .. } => "io",
            Error::InvalidArgument(_) => "invalid_argument",
            Error::Closed => "closed",
        }
    }

    pub(crate) fn io(op: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Error {
        Error::Io { op, path: path.into(), source }
    }
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
                "database stopped after a failed fsync ({cause}); reopen the directory to recover"
            ),
            Error::Locked { dir } => write!(
                f,
                "database directory {} is locked by another process (is a server running on it?)",
                dir.display()
            ),
            Error::Io { op, path, source } => write!(f, "{op} {}: {source}", path.display()),
            Error::InvalidArgument(message) => f.write_str(message),
            Error::Closed => f.write_str("database is closed"),
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
