//! The glue: a packet the filter captured goes to the parser of its control protocol,
//! and what the parser announces goes to the [`Tracker`].
//!
//! Control traffic is recognised by its well-known port (FTP 21, SIP 5060, RTSP 554),
//! as the default base filter captures it. Each packet is parsed on its own: an
//! announcement split across two TCP segments is missed (as by Linux's
//! `nf_conntrack_ftp`, which also looks at one segment at a time).

use crate::segment::{segment, Segment};
use crate::tracker::{Endpoint, Mode, Timers, Tracker, TrackerStats, Transport};
use crate::{ftp, rtsp, sip};
use netsift_engine::live::Reader;
use netsift_swift::Error;
use netsift_wire::LinkType;
use std::collections::HashMap;
use std::net::IpAddr;

/// A control protocol to follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Protocol {
    Ftp,
    Sip,
    Rtsp,
}

impl Protocol {
    /// The filter that captures the protocol's control traffic.
    pub fn base(self) -> &'static str {
        match self {
            Protocol::Ftp => "tcp port 21",
            Protocol::Sip => "port 5060",
            Protocol::Rtsp => "tcp port 554",
        }
    }

    /// Parses `ftp,sip,rtsp` (any subset, any order).
    pub fn parse_list(s: &str) -> Result<Vec<Protocol>, String> {
        let mut out = Vec::new();
        for w in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let p = match w.to_ascii_lowercase().as_str() {
                "ftp" => Protocol::Ftp,
                "sip" => Protocol::Sip,
                "rtsp" => Protocol::Rtsp,
                _ => {
                    return Err(format!(
                        "unknown protocol {w:?} to follow (known: ftp, sip, rtsp)"
                    ))
                }
            };
            if !out.contains(&p) {
                out.push(p);
            }
        }
        if out.is_empty() {
            return Err("--follow needs at least one of ftp, sip, rtsp".into());
        }
        Ok(out)
    }
}

/// The default base filter: the control traffic of every followed protocol.
pub fn base_expression(protocols: &[Protocol]) -> String {
    let parts: Vec<String> = protocols
        .iter()
        .map(|p| format!("({})", p.base()))
        .collect();
    parts.join(" or ")
}

const FTP: u16 = 21;
const SIP: u16 = 5060;
const RTSP: u16 = 554;

/// Follows control protocols and keeps a live filter in step.
pub struct Follower {
    tracker: Tracker,
    linktype: LinkType,
    protocols: Vec<Protocol>,
    /// Endpoints announced per SIP call and per RTSP session, removed on BYE and
    /// TEARDOWN.
    sessions: HashMap<String, Vec<Endpoint>>,
}

impl Follower {
    /// `base` defaults to [`base_expression`].
    pub fn new(
        linktype: LinkType,
        protocols: &[Protocol],
        base: Option<&str>,
        mode: Mode,
        timers: Timers,
    ) -> Result<(Follower, Reader), Error> {
        let default = base_expression(protocols);
        let (tracker, reader) = Tracker::new(linktype, base.unwrap_or(&default), mode, timers)?;
        Ok((
            Follower {
                tracker,
                linktype,
                protocols: protocols.to_vec(),
                sessions: HashMap::new(),
            },
            reader,
        ))
    }

    pub fn stats(&self) -> TrackerStats {
        self.tracker.stats()
    }

    pub fn tracker(&self) -> &Tracker {
        &self.tracker
    }

    /// A packet the filter captured, at `ts_ns`.
    pub fn observe(&mut self, frame: &[u8], ts_ns: u64) -> Result<(), Error> {
        let Some(seg) = segment(self.linktype, frame) else {
            return self.tracker.expire(ts_ns);
        };
        self.tracker.observe(&seg, ts_ns)?;
        if seg.payload.is_empty() {
            return Ok(());
        }
        let on = |port: u16| seg.sport == port || seg.dport == port;
        for p in self.protocols.clone() {
            match p {
                Protocol::Ftp if seg.proto == 6 && on(FTP) => self.ftp(&seg, ts_ns)?,
                Protocol::Sip if on(SIP) => self.sip(&seg, ts_ns)?,
                Protocol::Rtsp if seg.proto == 6 && on(RTSP) => self.rtsp(&seg, ts_ns)?,
                _ => {}
            }
        }
        Ok(())
    }

    /// The two ends of a control connection: (server, client).
    fn ends(seg: &Segment<'_>, server_port: u16) -> (IpAddr, IpAddr) {
        if seg.sport == server_port {
            (seg.src, seg.dst)
        } else {
            (seg.dst, seg.src)
        }
    }

    fn ftp(&mut self, seg: &Segment<'_>, ts: u64) -> Result<(), Error> {
        let (server, client) = Self::ends(seg, FTP);
        for a in ftp::announcements(seg.payload) {
            let addr = a.addr.unwrap_or(match a.kind {
                ftp::AnnounceKind::Passive => server,
                ftp::AnnounceKind::Active => client,
            });
            // 0.0.0.0 in a 227 reply means "the address you are talking to".
            let addr = if addr.is_unspecified() { server } else { addr };
            let ep = Endpoint {
                addr,
                port: a.port,
                transport: Transport::Tcp,
            };
            self.tracker.announce(ep, ts)?;
        }
        Ok(())
    }

    fn sip(&mut self, seg: &Segment<'_>, ts: u64) -> Result<(), Error> {
        let Some(msg) = sip::parse(seg.payload) else {
            return Ok(());
        };
        let key = msg.call_id.map(|c| format!("sip {c}"));
        if msg.is_bye {
            return self.end_session(key);
        }
        let mut eps = Vec::new();
        for m in &msg.media {
            let Some(addr) = m.addr else { continue };
            let step = if m.is_rtp() { 2 } else { 1 };
            for k in 0..m.port_count.max(1) {
                let Some(port) = m.port.checked_add(step * k) else {
                    break;
                };
                eps.push(Endpoint {
                    addr,
                    port,
                    transport: Transport::Udp,
                });
            }
            if let (Some(p), Some(a)) = (m.rtcp_port, m.rtcp_addr.or(m.addr)) {
                eps.push(Endpoint {
                    addr: a,
                    port: p,
                    transport: Transport::Udp,
                });
            }
        }
        self.start_session(key, eps, ts)
    }

    fn rtsp(&mut self, seg: &Segment<'_>, ts: u64) -> Result<(), Error> {
        let Some(msg) = rtsp::parse(seg.payload) else {
            return Ok(());
        };
        let key = msg.session.map(|s| format!("rtsp {s}"));
        if msg.is_teardown {
            return self.end_session(key);
        }
        let (server, client) = Self::ends(seg, RTSP);
        let mut eps = Vec::new();
        for t in &msg.transports {
            // Interleaved transport rides on the RTSP connection itself.
            if t.protocol.to_ascii_uppercase().ends_with("/TCP") {
                continue;
            }
            let sides = [
                (t.client_port, t.destination.unwrap_or(client)),
                (t.server_port, t.source.unwrap_or(server)),
            ];
            for (range, addr) in sides {
                let Some(r) = range else { continue };
                for port in r.first..=r.last.max(r.first) {
                    eps.push(Endpoint {
                        addr,
                        port,
                        transport: Transport::Udp,
                    });
                }
            }
        }
        self.start_session(key, eps, ts)
    }

    fn start_session(
        &mut self,
        key: Option<String>,
        eps: Vec<Endpoint>,
        ts: u64,
    ) -> Result<(), Error> {
        for ep in &eps {
            self.tracker.announce(*ep, ts)?;
        }
        if let Some(k) = key {
            let list = self.sessions.entry(k).or_default();
            for ep in eps {
                if !list.contains(&ep) {
                    list.push(ep);
                }
            }
        }
        Ok(())
    }

    fn end_session(&mut self, key: Option<String>) -> Result<(), Error> {
        if let Some(eps) = key.and_then(|k| self.sessions.remove(&k)) {
            for ep in eps {
                self.tracker.remove(&ep)?;
            }
        }
        Ok(())
    }
}
