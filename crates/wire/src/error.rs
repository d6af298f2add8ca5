//! The error type shared by every checked constructor in this crate.
//!
//! A view is built from untrusted bytes with `new_checked`, which validates the
//! buffer once and reports one of two failures:
//!
//! * [`Error::Truncated`]: the buffer ends before the header does (a short capture,
//!   or a snapshot length that cut the packet);
//! * [`Error::Malformed`]: a length or offset field inside the header is impossible
//!   (an IPv4 IHL below 5, a TCP data offset below 5, an option that overruns its
//!   header, an extension-header chain longer than the walker's bound, ...).

use std::fmt;

/// Why a checked constructor refused a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Error {
    /// The buffer is shorter than the header it should hold.
    Truncated,
    /// A field of the header contradicts the header's own layout.
    Malformed,
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = core::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated => f.write_str("buffer too short for the header"),
            Error::Malformed => f.write_str("malformed header field"),
        }
    }
}

impl std::error::Error for Error {}
