//! A capture as a library: what the `netsift` command line, and next the
//! capture daemon and the C and Python bindings, drive.
//!
//! A session is a source (an interface's AF_PACKET rings, its XDP hook, or a
//! capture file) × where the filter runs ([`Placement`]) × a filter mode
//! ([`FilterSpec`]: a static expression, a live set of clauses edited while
//! capturing, or a protocol follower) × a number of workers × a [`Sink`]. The
//! library decides and reports; it never prints. What it decides on the way
//! comes as [`Event`]s, what it counted as a [`Report`], and what failed as an
//! [`Error`].
//!
//! Capturing from an interface into a callback, until ten packets are in:
//!
//! ```no_run
//! use netsift_session::{events, Callback, Capture, Config, FilterSpec, Source};
//! use std::sync::atomic::AtomicBool;
//!
//! let mut cfg = Config::new(Source::Ring("eth0".into()));
//! cfg.filter = FilterSpec::Static("tcp port 443".into());
//! cfg.count = Some(10);
//! let capture = Capture::open(&cfg, events::ignore())?;
//! let mut sink = Callback(|rec: &netsift_pcapio::Record<'_>| {
//!     println!("{} bytes at {}", rec.packet.orig_len, rec.packet.ts_sec);
//!     Ok(())
//! });
//! let stop = AtomicBool::new(false);
//! let (report, result) = capture.run(std::slice::from_mut(&mut sink), &stop);
//! result?;
//! println!("{} captured, {} dropped", report.captured, report.dropped);
//! # Ok::<(), netsift_session::Error>(())
//! ```
//!
//! Where to find what:
//!
//! - [`config`]: the typed configuration; [`Capture`]: opening and running a
//!   live capture; [`FileFilter`]: a capture file as a source.
//! - `filter`: the one filter mode and keep loop every source and worker shares.
//! - `place`: the filter in the kernel (eBPF socket filters) and its listings;
//!   `xdp`: the XDP source.
//! - [`clauses`]: a live set edited while capturing, and the ordering of edits
//!   between the kernel and user space (widen the kernel first, narrow user
//!   space first), so that the kernel's answer is always a superset.
//! - `ring`, `workers`, `merge`: one ring on the calling thread; N rings on N
//!   threads merged back in time order.
//! - [`sink`]: where packets go, and the one conversion from a captured frame
//!   to a record.

mod capture;
pub mod clauses;
pub mod config;
mod error;
pub mod event;
pub mod file;
mod filter;
mod following;
mod merge;
mod place;
mod report;
mod ring;
pub mod sink;
mod workers;
mod xdp;

/// A static filter's pass sets by `[outgoing][tag_put_back]`: what `filter`
/// runs and `place` puts in the kernel (here so that neither module needs the
/// other).
pub(crate) type SplitSets = [[netsift_engine::PassSet; 2]; 2];

pub use capture::Capture;
pub use clauses::Clauses;
pub use config::{Config, Direction, FilterSpec, FollowSpec, Placement, Source, DEFAULT_SNAPLEN};
pub use error::{Error, ErrorKind};
pub use event::{Event, Events, Placed};
pub use file::FileFilter;
pub use filter::{compile, compile_each, directed_sets, BATCH};
pub use following::FollowReport;
pub use place::{follow_listing, kernel_listing};
pub use report::{FileReport, Report, RingReport, XdpReport};
pub use sink::{record, Callback, Records, Sink, SinkError};
pub use workers::{REORDER_MAX, REORDER_WINDOW_NS};
pub use xdp::{tag_ahead, xdp_listing};

/// The events module under the name the examples use.
pub use event as events;
