//! Capture errors: what failed, on which interface, and the OS's reason.

use std::fmt;
use std::io;

/// What kind of failure an [`Error`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// No interface has this name.
    NoSuchInterface,
    /// The process may not capture (AF_PACKET needs CAP_NET_RAW).
    Permission,
    /// The kernel refused a setting (ring size, version, fanout group).
    Refused,
    /// The interface's hardware type is not one netsift captures.
    Unsupported,
    /// Any other system call failure.
    Os,
}

/// A capture failure, worded for the command line: `eth9: no such interface`.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    what: String,
    source: Option<io::Error>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, what: impl Into<String>) -> Error {
        Error {
            kind,
            what: what.into(),
            source: None,
        }
    }

    /// OS error `source`, while doing `what`.
    pub(crate) fn with_source(
        kind: ErrorKind,
        what: impl Into<String>,
        source: io::Error,
    ) -> Error {
        Error {
            kind,
            what: what.into(),
            source: Some(source),
        }
    }

    /// The last OS error, while doing `what`.
    pub(crate) fn os(what: impl Into<String>) -> Error {
        let e = io::Error::last_os_error();
        let kind = match e.raw_os_error() {
            Some(libc::EPERM) | Some(libc::EACCES) => ErrorKind::Permission,
            Some(libc::ENODEV) | Some(libc::ENXIO) => ErrorKind::NoSuchInterface,
            Some(libc::EINVAL) | Some(libc::ENOMEM) | Some(libc::EBUSY) => ErrorKind::Refused,
            _ => ErrorKind::Os,
        };
        Error {
            kind,
            what: what.into(),
            source: Some(e),
        }
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            Some(e) => write!(f, "{}: {e}", self.what),
            None => write!(f, "{}", self.what),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_ref().map(|e| e as _)
    }
}
