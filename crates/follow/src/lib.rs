//! Protocol followers: parsers that read the application payload of one packet of a
//! control connection and report the data flows it announces, and the follower that
//! turns announcements into captured flows under conntrack's rules.
//!
//! Two layers:
//!
//! * The parsers ([`ftp`], [`sip`], [`rtsp`]) hold no state, never panic, and borrow
//!   from the payload instead of copying it; each returns at most a small `Vec` per
//!   packet ([`ftp::announcements`] allocates nothing).
//! * The [`Follower`] treats every announcement as attacker input (docs/follow.md):
//!   it counts one only on a tracked control connection ([`control`]), in its
//!   protocol's direction, naming the sender's own address; it keeps exact
//!   expectations and flows with capped, expiring state ([`expect`]); it keeps the
//!   live filter narrowed to their listener endpoints ([`tracker`]); and
//!   [`Follower::judge`] gives the exact verdict on each packet the filter accepted.
//!
//! | module | protocol | recognises | output |
//! |---|---|---|---|
//! | [`ftp`] | FTP, RFC 959 / 1123 / 2428 | `227` and `229` replies, `PORT` and `EPRT` commands | [`ftp::Announce`]: address, TCP port, who listens |
//! | [`sip`] | SIP, RFC 3261, with SDP, RFC 4566 / 3605 | `c=`, `m=`, `a=rtcp:` of an `application/sdp` body; `Call-ID`, `BYE` | [`sip::Message`] with [`sip::Media`] |
//! | [`rtsp`] | RTSP, RFC 2326 | `Transport:` specs (client/server/multicast ports, source, destination); `Session:`, `TEARDOWN` | [`rtsp::Message`] with [`rtsp::TransportSpec`] |
//!
//! Each protocol has its own output type, because what they announce differs: FTP a
//! single TCP listener, SDP media streams with RTP/RTCP port pairs, RTSP port ranges
//! for both ends. Every reported port is non-zero and every address is an IP literal
//! of the family the message states; anything malformed is left out rather than
//! guessed. A line cut off by the end of the payload is never read as if complete.
//! What each parser deliberately ignores is listed in its module documentation.

#![forbid(unsafe_code)]

pub mod ftp;
pub mod rtsp;
pub mod sip;
mod text;

pub use ftp::{Announce, AnnounceKind};
mod aged;
pub mod control;
pub mod expect;
pub mod follower;
pub mod segment;
pub mod tracker;

pub use expect::{Limits, TableStats};
pub use follower::{Config, FollowStats, Follower, ParseProtocolError, Protocol, Refused};
pub use tracker::{Change, Endpoint, Mode, Timers, Tracker, Transport};
