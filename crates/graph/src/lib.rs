//! FFPF's filter graphs: a flow written in the seeds' `ffpf-flow` syntax becomes
//! a graph of filter instances that shares every common prefix with the flows
//! already running, and the whole can be drawn as DOT. No I/O: the daemon runs
//! the instances.
//!
//! The steps, each a function you can call and test:
//!
//! 1. [`syntax`]: text to a syntax tree with spans, then to a [`Flow`] (elements
//!    and edges);
//! 2. [`class`]: the one table of filter classes and how each checks its
//!    arguments; [`FlowSpec::parse`] checks a whole flow against it;
//! 3. [`Running`]: instantiation with prefix merging and reference counts;
//! 4. [`to_dot`]: the running graph as the seeds' Figure 3;
//! 5. guards ([`FlowSpec::behind`], [`Flow::unguarded_path`]): a filter in
//!    front of a whole flow, and whether every path to an element passes one.
//!
//! ```
//! use netsift_graph::{FlowSpec, Limits, Privilege, Running};
//!
//! let limits = Limits::default();
//! let mut running = Running::new(limits);
//! let a = FlowSpec::parse("(device,eth0) -> (sampler,2,4) -> (pcap,\"tcp\") -> (bytecount,,8)",
//!     Privilege::User, &limits).unwrap();
//! let b = FlowSpec::parse("(device,eth0) -> (sampler,2,4) -> (pcap,\"udp\") -> (packetcount,,8)",
//!     Privilege::User, &limits).unwrap();
//! let fa = running.instantiate(a).unwrap();
//! running.instantiate(b).unwrap();
//! assert_eq!(running.instance_count(), 6); // device and sampler run once
//! running.close(fa);
//! assert_eq!(running.instance_count(), 4);
//! ```
//!
//! The syntax, the classes and the merging rules: `docs/graphs.md`.

#![forbid(unsafe_code)]

pub mod class;
mod dot;
mod error;
mod guard;
mod limits;
mod running;
mod span;
mod spec;
pub mod syntax;

pub use dot::{to_dot, to_dot_with};
pub use error::{Error, ErrorKind};
pub use limits::Limits;
pub use running::{FlowId, Instance, InstanceId, Running, RunningFlow};
pub use span::Span;
pub use spec::{Callable, Filter, FlowSpec, Privilege};
pub use syntax::lower::Flow;
