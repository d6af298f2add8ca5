//! Zero-copy views of the headers netsift filters on, and the link types it knows.
//!
//! `LinkType` holds the LINKTYPE_* value stored in capture files (not the platform's
//! DLT_* value); every other crate speaks in these numbers.
//!
//! # Views
//!
//! Each protocol module offers a typed view over any `T: AsRef<[u8]>`, in the style
//! of smoltcp's `wire` module: `new_checked(buffer)` validates the buffer once and
//! returns [`Error::Truncated`] or [`Error::Malformed`]; the accessors of a checked
//! view cannot panic and read straight from the buffer (no copy, no allocation).
//! `new_unchecked` skips the check for buffers already known to be good; even then
//! the accessors do not panic, they return zeros or empty slices past the end.
//! Views made for captures accept a buffer cut by the snapshot length wherever the
//! header itself is whole: payload accessors are clamped to the bytes present.
//!
//! | link layer | network | transport and tunnels |
//! |---|---|---|
//! | [`ethernet`] (II, 802.3, LLC/SNAP) | [`arp`] (ARP/RARP) | [`tcp`], [`udp`], [`sctp`] |
//! | [`vlan`] (802.1Q, 802.1ad QinQ) | [`ipv4`] | [`icmpv4`], [`icmpv6`], [`igmp`] |
//! | [`mpls`] | [`ipv6`] (+ extension headers) | [`gre`], [`vxlan`], [`geneve`] |
//! | [`pppoe`] (+ PPP protocol) | | |
//! | [`sll`] (SLL, SLL2), [`loopback`] (NULL, LOOP) | | |
//!
//! The views know nothing of how tcpdump prints a packet: that text (summary
//! lines, `-v`, `-e`, dumps, time stamps) is the `netsift-print` crate's.

#![forbid(unsafe_code)]

mod bytes;
pub mod checksum;
mod error;
mod linktype;

pub mod arp;
pub mod ethernet;
pub mod geneve;
pub mod gre;
pub mod icmpv4;
pub mod icmpv6;
pub mod igmp;
pub mod ip;
pub mod ipv4;
pub mod ipv6;
pub mod loopback;
pub mod mpls;
pub mod pppoe;
pub mod sctp;
pub mod sll;
pub mod tcp;
pub mod udp;
pub mod vlan;
pub mod vxlan;

pub use error::{Error, Result};
pub use linktype::LinkType;
