//! Errors of the buffer layer: what failed, on which buffer, and the OS's reason.

use crate::proto::ErrorCode;
use std::fmt;
use std::io;

/// What kind of failure an [`Error`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A caller's argument is out of range (a size, an offset, a flow id).
    Invalid,
    /// A shared buffer handed to a reader failed validation: wrong magic,
    /// version or size, missing seals, or a header that disagrees with the file.
    BadBuffer,
    /// A record or index entry read from shared memory points outside its
    /// buffer or disagrees with itself (a writer bug or a hostile writer).
    Corrupt,
    /// A system call failed.
    Os,
    /// The daemon refused a request ([`Error::refusal`] says why).
    Refused,
    /// The daemon's reply broke the protocol (not a reply, a wrong id, missing
    /// descriptors), or the connection to it is gone.
    Protocol,
}

/// A buffer-layer failure, worded as `what: why`, e.g.
/// `IBuf fd 7: magic 0x0 is not netsift's IBuf`.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    what: String,
    source: Option<io::Error>,
    code: Option<ErrorCode>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, what: impl Into<String>) -> Error {
        Error {
            kind,
            what: what.into(),
            source: None,
            code: None,
        }
    }

    /// The daemon refused a request with `code`, saying `what`.
    pub(crate) fn refused(code: ErrorCode, what: impl Into<String>) -> Error {
        Error {
            code: Some(code),
            ..Error::new(ErrorKind::Refused, what)
        }
    }

    pub(crate) fn protocol(what: impl Into<String>) -> Error {
        Error::new(ErrorKind::Protocol, what)
    }

    /// Why the daemon refused, for an [`ErrorKind::Refused`] error.
    pub fn refusal(&self) -> Option<ErrorCode> {
        self.code
    }

    pub(crate) fn invalid(what: impl Into<String>) -> Error {
        Error::new(ErrorKind::Invalid, what)
    }

    pub(crate) fn bad_buffer(what: impl Into<String>) -> Error {
        Error::new(ErrorKind::BadBuffer, what)
    }

    pub(crate) fn corrupt(what: impl Into<String>) -> Error {
        Error::new(ErrorKind::Corrupt, what)
    }

    /// The last OS error, while doing `what`.
    pub(crate) fn os(what: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Os,
            what: what.into(),
            source: Some(io::Error::last_os_error()),
            code: None,
        }
    }

    /// OS error `source`, while doing `what`.
    pub(crate) fn os_from(what: impl Into<String>, source: io::Error) -> Error {
        Error {
            kind: ErrorKind::Os,
            what: what.into(),
            source: Some(source),
            code: None,
        }
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The OS error behind an [`ErrorKind::Os`] failure, if any.
    pub fn os_error(&self) -> Option<&io::Error> {
        self.source.as_ref()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.source, self.code) {
            (Some(e), _) => write!(f, "{}: {e}", self.what),
            (None, Some(c)) => write!(f, "{} ({c})", self.what),
            (None, None) => write!(f, "{}", self.what),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}
