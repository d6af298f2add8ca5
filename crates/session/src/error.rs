//! The error type: what failed, with the error underneath as its source.

use std::fmt;

/// A session that could not be opened, or a capture that failed while running.
///
/// `Display` gives one line (then, for a filter expression, the caret line the
/// compiler's error carries); [`Error::kind`] says which part failed, and
/// `source()` gives the error underneath where there is one.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// Which part of a session failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The filter expression (or a clause, or a follower's base filter) does
    /// not compile, or cannot be used as asked.
    Filter,
    /// The capture ring or the interface: opening, reading, statistics.
    Capture,
    /// The filter could not be placed where the configuration insists
    /// (`Placement::Kernel`, the XDP source); the message says why.
    Placement,
    /// What the configuration asks for is not supported (a link type, a
    /// combination of options).
    Unsupported,
    /// A capture file is malformed or could not be read.
    File,
    /// An edit of a live set that cannot be made (no such clause, a value the
    /// clause has no set for).
    Edit,
    /// A sink refused a packet or could not be flushed.
    Sink,
    /// An operating-system call outside the ring (a thread, a descriptor).
    Io,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            source: None,
        }
    }

    pub(crate) fn with_source(
        kind: ErrorKind,
        message: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Error {
        Error {
            kind,
            message: message.into(),
            source: Some(source.into()),
        }
    }

    /// A filter expression that does not compile: `bad filter expression: ...`.
    pub(crate) fn filter(e: impl fmt::Display) -> Error {
        Error::new(ErrorKind::Filter, format!("bad filter expression: {e}"))
    }

    /// A capture ring's failure, said as the ring says it.
    pub(crate) fn capture(e: netsift_capture::Error) -> Error {
        let m = e.to_string();
        Error::with_source(ErrorKind::Capture, m, e)
    }

    /// A sink's failure, said as the sink says it.
    pub(crate) fn sink(e: crate::SinkError) -> Error {
        let m = e.to_string();
        Error {
            kind: ErrorKind::Sink,
            message: m,
            source: Some(e),
        }
    }

    /// Which part failed.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        // A sink's own error is its message already; the others add context.
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}
