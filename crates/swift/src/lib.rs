//! libswift for netsift: the seeds' update API (Table 2) over a live pass set, plus
//! the BPF-friendly form that takes pcap text for one clause.
//!
//! ```
//! use netsift_swift::Swift;
//! use netsift_wire::LinkType;
//!
//! let (mut swift, reader) = Swift::open(LinkType::EN10MB);
//! let ctl = swift.add("tcp port ftp").unwrap();
//! let data = swift.add("host 10.0.0.7 and tcp port 30001").unwrap();
//! // ... a filtering thread calls reader.matches(&mut scratch, packet, wire_len) ...
//! swift.remove(&data).unwrap();
//! # let _ = (ctl, reader);
//! ```
//!
//! The pass-level routines (`new_pass`, `dup_pass`, `del_pass`, `select_op`,
//! `add_param`, `del_param`, `poke_inst`, `publish`, the SET tables) are the
//! engine's [`Writer`], reached through [`Swift::writer`] and
//! [`Swift::writer_mut`]. `add` compiles only the new clause: its cost depends on
//! the clause, never on what the live set already holds.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use netsift_engine::live::{self, ClauseId, LiveError, Reader, Writer};
use netsift_isa::PassSet;
use netsift_pcapc::Target;
use netsift_wire::LinkType;
use std::fmt;

/// Why compiling or adding a clause failed. The live set is unchanged after an
/// error.
///
/// `Display` is the underlying error's own message (a compile error's has its
/// caret line), so a wrapper is transparent: [`Error::kind`] holds the underlying
/// error, and `source()` is that error's source, not the error itself, so that a
/// chain printed in full does not say it twice.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
}

/// Which layer refused, with its error.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The text is not a filter libpcap would accept (the message has a caret line).
    Compile(netsift_pcapc::Error),
    /// The clause does not fit the live set.
    Live(LiveError),
}

impl Error {
    /// Which layer refused, with its error.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    fn inner(&self) -> &(dyn std::error::Error + 'static) {
        match &self.kind {
            ErrorKind::Compile(e) => e,
            ErrorKind::Live(e) => e,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.inner(), f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner().source()
    }
}

impl From<LiveError> for Error {
    fn from(e: LiveError) -> Error {
        Error {
            kind: ErrorKind::Live(e),
        }
    }
}

impl From<netsift_pcapc::Error> for Error {
    fn from(e: netsift_pcapc::Error) -> Error {
        Error {
            kind: ErrorKind::Compile(e),
        }
    }
}

/// Compiles `text` (pcap-filter syntax) for `linktype` as [`Swift::compile`] does,
/// without a live filter.
pub fn compile(text: &str, linktype: LinkType) -> Result<PassSet, Error> {
    netsift_pcapc::compile_for(text, Target::new(linktype)).map_err(Error::from)
}

/// A live filter for one link type (SPF_Open).
pub struct Swift {
    writer: Writer,
    target: Target,
}

impl Swift {
    /// An empty filter (it accepts nothing) and the reader that filters with it.
    pub fn open(linktype: LinkType) -> (Swift, Reader) {
        Swift::open_for(Target::new(linktype))
    }

    /// As [`Swift::open`], for a target that also names a capture file's byte order
    /// (what `pcap_compile` on an offline handle sees).
    pub fn open_for(target: Target) -> (Swift, Reader) {
        let (writer, reader) = live::new();
        (Swift { writer, target }, reader)
    }

    /// Compiles `text` (pcap-filter syntax) and adds it as one clause: the live set
    /// then accepts what it accepted before or what `text` accepts.
    pub fn add(&mut self, text: &str) -> Result<ClauseId, Error> {
        let set = self.compile(text)?;
        Ok(self.writer.add_clause(&set)?)
    }

    /// Compiles `text` for this filter's link type without adding it.
    pub fn compile(&self, text: &str) -> Result<PassSet, Error> {
        netsift_pcapc::compile_for(text, self.target).map_err(Error::from)
    }

    /// Removes a clause added by [`Swift::add`].
    pub fn remove(&mut self, clause: &ClauseId) -> Result<(), Error> {
        Ok(self.writer.del_clause(clause)?)
    }

    /// The link type clauses are compiled for.
    pub fn linktype(&self) -> LinkType {
        self.target.linktype
    }

    /// The live set's writer, for reading its state (`exists`, `instructions`,
    /// `listing`, `table_len`).
    pub fn writer(&self) -> &Writer {
        &self.writer
    }

    /// The live set's writer, for the seeds' pass-level routines (`new_pass`,
    /// `dup_pass`, `select_op`, `add_param`, `publish`, SET tables, ...).
    pub fn writer_mut(&mut self) -> &mut Writer {
        &mut self.writer
    }
}
