//! `netsiftd`, the capture daemon: it owns the sources (interfaces, capture
//! files), filters each batch once per distinct filter, and serves flows to
//! unprivileged clients through FFPF's shared buffers (`netsift_ffpf`), with
//! descriptors passed over its control socket.
//!
//! Where to find what:
//!
//! - [`config`]: flags and the typed configuration;
//! - [`listener`]: the control socket, one thread per connection;
//! - [`mod@rights`]: a peer's rights under the `--policy` file (or one class
//!   per uid without one) and the class its flow groups are keyed by;
//! - [`flows`]: the flow table and life cycle ([`Daemon`]), groups;
//! - `sources`: interfaces (a session capture with the union of the active
//!   filters as kernel clauses) and capture files played, each on a thread;
//! - `xdp_source`, `xsk`, `guard`: `--copy zero`, an interface's frames
//!   redirected by XDP into an AF_XDP UMEM that is its group's PBuf, and the
//!   guard against doing so on an interface that carries the host's traffic;
//! - `dispatch`: per batch, each distinct filter once, each group's PBuf once;
//! - `stats`: the figures the stats requests return.
//!
//! Arrows: `config`, `rights` ← `dispatch` ← `xdp_source` (with `xsk`) ←
//! `sources` (with `guard`) ← `stats` ← `flows` ←
//! `listener`.
//! It never prints: what it has to say goes to the [`Log`] the binary gives.
//! The protocol is `docs/daemon.md`'s and `netsift_ffpf::proto`'s.

#![forbid(unsafe_code)]

pub mod config;
mod dispatch;
pub mod flows;
mod graph;
mod guard;
pub mod listener;
mod programs;
pub mod rights;
mod sources;
mod stats;
mod vocabulary;
mod xdp_source;
mod xsk;

pub use config::{Config, Flags};
pub use flows::Daemon;
pub use rights::{rights, Class, Rights};

use std::fmt;
use std::sync::Arc;

/// Where the daemon says what happens (the binary writes it to stderr).
pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

/// A failure to start: what failed, and where.
#[derive(Debug)]
pub struct Error {
    what: String,
}

impl Error {
    /// An error saying `what`.
    pub fn new(what: impl Into<String>) -> Error {
        Error { what: what.into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)
    }
}

impl std::error::Error for Error {}
