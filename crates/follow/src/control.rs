//! Tracked control connections: which TCP connections to a control port
//! (FTP 21, RTSP 554, SIP 5060 over TCP) the follower believes in.
//!
//! A connection is keyed by its 5-tuple, with the server on the control port
//! ([`ConnKey`]). It is *tracked* once traffic has been seen in both directions:
//! a SYN from the client and the SYN-ACK back, or, for a capture that starts in the
//! middle of a connection, any packet each way. Linux's `nf_conntrack_ftp` reads
//! announcements only on an established connection (conntrack's
//! `IP_CT_ESTABLISHED`, which also needs a reply); a single packet sent to port 21
//! from anywhere, or a reply that nobody asked for, is not a connection.
//!
//! Invariants: at most `cap` connections are remembered; when full, the oldest
//! connection seen in one direction only goes first, then the oldest tracked one
//! that owns no flow (its unused expectations go with it); if neither exists, the
//! new connection is refused (and counted). A connection is forgotten after a RST, after FINs from
//! both sides and the linger time, or when idle.

use crate::aged::Aged;
use crate::segment::{Segment, FIN, RST};
use std::net::IpAddr;

/// A control connection: the client's and the server's address and port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ConnKey {
    /// The client's address and port: the end not on the protocol's port.
    pub client: (IpAddr, u16),
    /// The server's address and port: the end on the protocol's port.
    pub server: (IpAddr, u16),
}

/// A word per address and one for both ports (see `tracker::addr_word`); equal
/// keys write equal words.
impl std::hash::Hash for ConnKey {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write_u128(crate::tracker::addr_word(&self.client.0));
        h.write_u128(crate::tracker::addr_word(&self.server.0));
        h.write_u32(u32::from(self.client.1) << 16 | u32::from(self.server.1));
    }
}

impl ConnKey {
    /// The connection of `seg` with the server on `port`, and whether `seg` goes
    /// from the client to the server. `None` if neither end is on `port`.
    pub fn of(seg: &Segment<'_>, port: u16) -> Option<(ConnKey, bool)> {
        let (s, d) = ((seg.src, seg.sport), (seg.dst, seg.dport));
        if seg.dport == port {
            Some((
                ConnKey {
                    client: s,
                    server: d,
                },
                true,
            ))
        } else if seg.sport == port {
            Some((
                ConnKey {
                    client: d,
                    server: s,
                },
                false,
            ))
        } else {
            None
        }
    }
}

struct Conn {
    to_server: bool,
    to_client: bool,
    last_ns: u64,
    /// FIN seen from the client (bit 0) and from the server (bit 1).
    fins: u8,
    closed_ns: Option<u64>,
}

impl Conn {
    fn tracked(&self) -> bool {
        self.to_server && self.to_client
    }
}

/// Timers of control connections, in nanoseconds of packet time.
#[derive(Clone, Copy, Debug)]
pub struct ControlTimers {
    /// A tracked connection with no packet for this long is forgotten.
    pub idle_ns: u64,
    /// A connection seen one way only is forgotten after this long (conntrack's
    /// SYN_SENT timeout, 120 s).
    pub half_ns: u64,
    /// A closed connection stays this long, for its last packets.
    pub linger_ns: u64,
}

/// The connections seen on control ports.
pub(crate) struct Controls {
    /// Connections seen one way only, and tracked ones, apart: eviction takes the
    /// oldest of the first kind in O(log n) before it looks at the second.
    half: Aged<ConnKey, Conn>,
    conns: Aged<ConnKey, Conn>,
    cap: usize,
    /// How far eviction scans, oldest first: one more than the connections that
    /// can be busy (each busy one owns a flow, and flows are capped), so a
    /// connection that may go is always found when there is one.
    scan: usize,
    timers: ControlTimers,
}

/// What [`Controls::see`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Seen {
    Tracked,
    Untracked,
    /// The table is full of connections that must stay.
    Full,
}

/// What [`Controls::see`] did: what it found, and the tracked connection it
/// evicted to make room, whose expectations must go too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sight {
    pub seen: Seen,
    pub evicted: Option<ConnKey>,
}

impl Controls {
    pub(crate) fn new(cap: usize, max_busy: usize, timers: ControlTimers) -> Controls {
        Controls {
            half: Aged::new(),
            conns: Aged::new(),
            cap,
            scan: max_busy.saturating_add(1),
            timers,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.half.len() + self.conns.len()
    }

    /// Notes a packet of `key` (`to_server`: from the client) and says whether the
    /// connection is tracked, the packet included. `busy` says whether a tracked
    /// connection owns flows (and so may not be evicted).
    pub(crate) fn see(
        &mut self,
        key: ConnKey,
        to_server: bool,
        seg: &Segment<'_>,
        now: u64,
        busy: impl Fn(&ConnKey) -> bool,
    ) -> Sight {
        let mut evicted = None;
        if !self.conns.contains(&key) && !self.half.contains(&key) {
            if seg.flags & RST != 0 {
                return Sight {
                    seen: Seen::Untracked,
                    evicted,
                };
            }
            if self.len() >= self.cap {
                if let Some(v) = self.half.oldest(1, |_, _| true) {
                    self.half.remove(&v);
                } else if let Some(v) = self.conns.oldest(self.scan, |k, _| !busy(k)) {
                    self.conns.remove(&v);
                    evicted = Some(v);
                } else {
                    return Sight {
                        seen: Seen::Full,
                        evicted,
                    };
                }
            }
            self.half.insert(
                key,
                Conn {
                    to_server: false,
                    to_client: false,
                    last_ns: now,
                    fins: 0,
                    closed_ns: None,
                },
            );
        }
        let untracked = Sight {
            seen: Seen::Untracked,
            evicted,
        };
        let c = match self.conns.get_mut(&key) {
            Some(c) => c,
            None => match self.half.get_mut(&key) {
                Some(c) => c,
                None => return untracked,
            },
        };
        c.last_ns = now;
        if to_server {
            c.to_server = true;
        } else {
            c.to_client = true;
        }
        if seg.flags & FIN != 0 {
            c.fins |= if to_server { 1 } else { 2 };
        }
        if (seg.flags & RST != 0 || c.fins == 3) && c.closed_ns.is_none() {
            c.closed_ns = Some(now);
        }
        if !c.tracked() {
            return untracked;
        }
        if let Some(c) = self.half.remove(&key) {
            self.conns.insert(key, c);
        }
        Sight {
            seen: Seen::Tracked,
            evicted,
        }
    }

    /// Forgets connections whose time is up; returns them, so that their
    /// expectations can go too.
    pub(crate) fn expire(&mut self, now: u64) -> Vec<ConnKey> {
        let t = self.timers;
        let due = |idle: u64| {
            move |_: &ConnKey, c: &Conn| {
                c.closed_ns
                    .is_some_and(|x| now >= x.saturating_add(t.linger_ns))
                    || now >= c.last_ns.saturating_add(idle)
            }
        };
        for k in self.half.select(due(t.half_ns)) {
            self.half.remove(&k);
        }
        let gone = self.conns.select(due(t.idle_ns));
        for k in &gone {
            self.conns.remove(k);
        }
        gone
    }
}
