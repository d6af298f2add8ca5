//! tcpdump's text for captured packets: what `tcpdump -n` prints for each one.
//!
//! The header views of `netsift-wire` read packets; this crate turns them into the
//! lines tcpdump 4.99 prints, so that a front end that only filters or forwards
//! packets (a daemon, the C and Python bindings) need not link any of it.
//!
//! - [`summarize`], [`Summarizer`] and [`SummaryOptions`]: the summary of one
//!   packet after its time stamp, with tcpdump's `-S`, `-e`, `-v` and `-q`, and
//!   the names of ports, hosts and vendors it prints without `-n` ([`Names`]).
//! - [`Printer`] and [`PrintOptions`]: the whole line of [`pretty_print_packet`],
//!   the packet number (`-#`), the time stamp ([`TimeFormat`], `-t` ... `-ttttt`),
//!   the summary and a [`Dump`] of the bytes (`-x`, `-X`, `-A`).
//!
//! The crate computes text and returns it; writing it anywhere is the caller's job,
//! as is anything that depends on the machine, such as the names of its
//! interfaces ([`SummaryOptions::interface_name`]).
//!
//! ```
//! use netsift_print::{Packet, PrintOptions, Printer, TimeFormat};
//! use netsift_wire::LinkType;
//!
//! // An IPv4 header (protocol 253, reserved for experiments) and nothing else.
//! let ip = [
//!     0x45, 0, 0, 20, 0, 1, 0, 0, 64, 253, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
//! ];
//! let opts = PrintOptions { time: TimeFormat::Epoch, ..PrintOptions::default() };
//! let mut printer = Printer::new(LinkType::RAW, opts);
//! let packet = Packet { sec: 1_700_000_000, frac: 250_000, data: &ip, wire_len: 20 };
//! assert_eq!(
//!     printer.line(&packet),
//!     "1700000000.250000 IP 10.0.0.1 > 10.0.0.2:  ip-proto-253 0\n",
//! );
//! ```
//!
//! [`pretty_print_packet`]: https://github.com/the-tcpdump-group/tcpdump/blob/tcpdump-4.99/print.c

#![forbid(unsafe_code)]

mod dump;
mod line;
mod names;
mod summary;
mod time;

pub use dump::Dump;
pub use line::{Packet, PrintOptions, Printer};
pub use names::Names;
pub use summary::{summarize, DefaultPrint, PacketType, Summarizer, SummaryOptions};
pub use time::TimeFormat;
