//! FPL's standard library of external functions (`EXTERN(name, in, out)`):
//! Aho-Corasick over a pattern set, substring search, hashing, checksums, the
//! protocol followers' dynamic ports and a top-N counter, each an
//! [`ExternFn`] with the MBuf sizes the compiler checks calls against.
//!
//! [`standard`] is the registry of every function that needs no
//! configuration; [`Library`] adds what the administrator (or a graph
//! element) configures: named pattern sets and substrings, and the top-N
//! table's size. Functions are built once and shared read-only; a call never
//! rebuilds an automaton. Reference: `docs/externs.md`.
//!
//! | module | functions |
//! |---|---|
//! | [`search`] | `aho_corasick:SET`, `memmem:NAME` |
//! | [`sums`] | `hash`, `flow_hash`, `checksum`, `checksums_ok` |
//! | [`dynport`] | `GetDynTCPDPortFromRTSP`, `GetDynTCPDPortFromFTP`, `GetDynUDPPortFromSIP`, `rtsp_ports`, `sip_ports`, `ftp_ports` |
//! | [`topn`] | `topn`, `topn_key` |
//!
//! Every function takes packet bytes as hostile: work bounded by the packet's
//! length (or the table's size), no panic, and writes only inside its output
//! region; `args.rs` is the calling convention they share (docs/externs.md).

#![forbid(unsafe_code)]

mod args;
pub mod dynport;
pub mod patterns;
pub mod search;
pub mod sums;
pub mod topn;

use netsift_fpl::externs::{ExternFn, Externs};
use std::fmt;
use std::path::Path;

pub use search::{Found, PatternSet, Substring};

/// A refused configuration: a pattern list, a name or a table size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A pattern list is wrong; `line` is 1-based, 0 for the list as a whole.
    Patterns {
        /// The line of the list, 0 when not about one line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A pattern file is wrong; `line` is 1-based, 0 for the file as a whole.
    PatternFile {
        /// The file.
        path: String,
        /// The line, 0 when not about one line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A pattern file could not be read.
    Read {
        /// The file.
        path: String,
        /// The system's reason.
        message: String,
    },
    /// A set or substring name is not usable.
    Name(String),
    /// The top-N table size is outside 1 to [`topn::MAX_N`].
    TopN(usize),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Patterns { line: 0, message } => write!(f, "pattern list: {message}"),
            Error::Patterns { line, message } => {
                write!(f, "pattern list, line {line}: {message}")
            }
            Error::PatternFile {
                path,
                line: 0,
                message,
            } => write!(f, "{path}: {message}"),
            Error::PatternFile {
                path,
                line,
                message,
            } => write!(f, "{path}, line {line}: {message}"),
            Error::Read { path, message } => write!(f, "{path}: {message}"),
            Error::Name(m) => f.write_str(m),
            Error::TopN(n) => write!(
                f,
                "a top-N table of {n} entries; it must have 1 to {}",
                topn::MAX_N
            ),
        }
    }
}

impl std::error::Error for Error {}

/// The top-N table size of [`standard`]: the seeds' Figure 2b keeps the top 10.
pub const DEFAULT_TOPN: usize = 10;

/// The registry of every function that needs no configuration: `hash`,
/// `flow_hash`, `checksum`, `checksums_ok`, `GetDynTCPDPortFromRTSP`,
/// `GetDynTCPDPortFromFTP`, `GetDynUDPPortFromSIP`, `rtsp_ports`, `sip_ports`, `ftp_ports`, and `topn`/`topn_key` with
/// [`DEFAULT_TOPN`] entries. Pattern sets come from a [`Library`].
pub fn standard() -> Externs {
    Library::new().registry()
}

/// The standard functions plus configured pattern sets and substrings.
#[derive(Clone, Debug)]
pub struct Library {
    topn: usize,
    extra: Vec<ExternFn>,
}

impl Default for Library {
    fn default() -> Library {
        Library::new()
    }
}

impl Library {
    /// The standard functions, no pattern sets.
    pub fn new() -> Library {
        Library {
            topn: DEFAULT_TOPN,
            extra: Vec::new(),
        }
    }

    /// Sets the top-N table's entries (1 to [`topn::MAX_N`]).
    pub fn topn(&mut self, n: usize) -> Result<&mut Library, Error> {
        if !(1..=topn::MAX_N).contains(&n) {
            return Err(Error::TopN(n));
        }
        self.topn = n;
        Ok(self)
    }

    /// Adds `aho_corasick:SET` over `patterns`, its automaton built now.
    pub fn aho_corasick<P: AsRef<[u8]>>(
        &mut self,
        set: &str,
        patterns: &[P],
    ) -> Result<&mut Library, Error> {
        let name = self.name("aho_corasick", set)?;
        let f = PatternSet::new(patterns)?.function(name);
        self.extra.push(f);
        Ok(self)
    }

    /// Adds `aho_corasick:SET` over the pattern list in `path`
    /// ([`patterns::parse`]'s format).
    pub fn aho_corasick_file(&mut self, set: &str, path: &Path) -> Result<&mut Library, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Read {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        let patterns = patterns::parse(&text).map_err(|e| match e {
            Error::Patterns { line, message } => Error::PatternFile {
                path: path.display().to_string(),
                line,
                message,
            },
            other => other,
        })?;
        self.aho_corasick(set, &patterns)
    }

    /// Adds `memmem:NAME`, a search for `pattern` with a prebuilt finder.
    pub fn memmem(&mut self, name: &str, pattern: &[u8]) -> Result<&mut Library, Error> {
        let full = self.name("memmem", name)?;
        let f = Substring::new(pattern)?.function(full);
        self.extra.push(f);
        Ok(self)
    }

    /// `KIND:NAME`, once NAME is checked: 1 to 64 bytes of letters, digits,
    /// `_`, `-` and `.`, not yet used for this kind.
    fn name(&self, kind: &str, name: &str) -> Result<String, Error> {
        let ok = (1..=64).contains(&name.len())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
        if !ok {
            return Err(Error::Name(format!(
                "`{name}` is not a {kind} name: 1 to 64 letters, digits, `_`, `-` or `.`"
            )));
        }
        let full = format!("{kind}:{name}");
        if self.extra.iter().any(|f| f.name() == full) {
            return Err(Error::Name(format!("`{full}` is registered already")));
        }
        Ok(full)
    }

    /// Every function, in a registry the compiler resolves `EXTERN` names in.
    pub fn registry(&self) -> Externs {
        let mut r = Externs::new();
        for f in self.functions() {
            r.register(f);
        }
        r
    }

    /// Every function, standard ones first.
    pub fn functions(&self) -> Vec<ExternFn> {
        let mut v = vec![
            sums::hash(),
            sums::flow_hash(),
            sums::checksum(),
            sums::checksums_ok(),
            dynport::rtsp_port(),
            dynport::ftp_port(),
            dynport::sip_port(),
            dynport::rtsp_ports(),
            dynport::sip_ports(),
            dynport::ftp_ports(),
            topn::topn(self.topn),
            topn::topn_key(self.topn),
        ];
        v.extend(self.extra.iter().cloned());
        v
    }
}
