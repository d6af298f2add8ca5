//! The follower: a packet the live filter accepted is judged exactly, and the
//! control traffic among them feeds the protocols' parsers, whose announcements
//! become expectations under conntrack's rules (docs/follow.md).
//!
//! Two stages: the live filter holds the base filter (the control traffic) and
//! every listener endpoint some expectation or flow needs, on the listener's side
//! only; [`Follower::judge`] then keeps a packet only if the base filter accepts
//! it (a compiled copy is kept for this) or it belongs exactly to an admitted flow
//! or opens one from an expectation. So both live forms (passes, SET) keep exactly
//! the same packets, whatever else a listener endpoint's filter entry lets by.
//!
//! Rules for announcements (Linux's `nf_conntrack_ftp` and `nf_conntrack_sip`
//! with their defaults are the model):
//!
//! * FTP: `PORT`/`EPRT` count only from the client, `227`/`229` only from the
//!   server, only on a tracked control connection ([`crate::control`]), and only
//!   at the start of a line. The announced address must be the sender's (unless
//!   `loose`, conntrack's `loose=1`); the expectation admits only the other peer of
//!   the control connection, and is consumed by its first connection. One unused
//!   expectation per control connection (conntrack's FTP `max_expected`).
//! * SIP: a dialog is its Call-ID and its two signaling endpoints. SDP media must
//!   be at the sender's address and is expected from the other participant only
//!   (conntrack's `sip_direct_media=1`; `loose` lifts both); one RTP port and one
//!   RTCP port per `m=` line (a port count above 1 is refused, never expanded), at
//!   most 8 expectations a message. Only a BYE of the dialog, between its
//!   participants, removes its media.
//! * RTSP: a session is its Session id and the two ends of a tracked control
//!   connection; the server's reply sets the transport. `client_port` is the
//!   client's (`destination=` must be the client), `server_port` the server's
//!   (`source=` must be the server); a range of more than 2 ports is refused. Only
//!   a TEARDOWN of the session from its client removes its media.
//!
//! Each packet is parsed on its own: an announcement split across two TCP segments
//! is missed (as by `nf_conntrack_ftp`, which also looks at one segment at a time).

use crate::control::{ConnKey, ControlTimers, Controls, Seen};
use crate::expect::{DialogKey, ExpKey, Limits, Owner, Refusal, Table, TableStats};
use crate::segment::{segment, segment_tag_out, Segment};
use crate::tracker::{
    compile_fixed, Change, Endpoint, Mode, Timers, Tracker, TrackerStats, Transport,
};
use crate::{ftp, rtsp, sip};
use netsift_engine::live::Reader;
use netsift_engine::{Compiled, Scratch};
use netsift_isa::PassSet;
use netsift_swift::Error;
use netsift_wire::LinkType;
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::net::IpAddr;

/// A control protocol to follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// FTP: `PORT`, `EPRT`, `227` and `229` announce data connections.
    Ftp,
    /// SIP: SDP bodies announce RTP and RTCP media.
    Sip,
    /// RTSP: `Transport` headers announce RTP and RTCP media.
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
    pub fn parse_list(s: &str) -> Result<Vec<Protocol>, ParseProtocolError> {
        let mut out = Vec::new();
        for w in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let p = match w.to_ascii_lowercase().as_str() {
                "ftp" => Protocol::Ftp,
                "sip" => Protocol::Sip,
                "rtsp" => Protocol::Rtsp,
                _ => return Err(ParseProtocolError::Unknown(w.to_string())),
            };
            if !out.contains(&p) {
                out.push(p);
            }
        }
        if out.is_empty() {
            return Err(ParseProtocolError::Empty);
        }
        Ok(out)
    }
}

/// Why a list of protocols to follow ([`Protocol::parse_list`]) was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseProtocolError {
    /// A name that is none of `ftp`, `sip`, `rtsp` (as written).
    Unknown(String),
    /// The list names no protocol at all.
    Empty,
}

impl std::fmt::Display for ParseProtocolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseProtocolError::Unknown(w) => {
                write!(
                    f,
                    "unknown protocol {w:?} to follow (known: ftp, sip, rtsp)"
                )
            }
            ParseProtocolError::Empty => {
                f.write_str("--follow needs at least one of ftp, sip, rtsp")
            }
        }
    }
}

impl std::error::Error for ParseProtocolError {}

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

/// conntrack's FTP expectation timeout (`ftp_exp_policy`: 5 minutes).
const FTP_EXPECT_NS: u64 = 300_000_000_000;
/// conntrack's SIP media expectation timeout (`sip_exp_policy`: 3 minutes); RTSP,
/// which has no in-tree conntrack helper, uses the same.
const MEDIA_EXPECT_NS: u64 = 180_000_000_000;
/// Unused expectations per owner: conntrack's FTP `max_expected` is 1; its SIP
/// policy allows 4 audio and 4 video expectations (RTP and RTCP each way).
const FTP_MAX_EXPECTED: usize = 1;
const MEDIA_MAX_EXPECTED: usize = 8;
/// A port range or count larger than this (an RTP/RTCP pair) is refused.
const MAX_RANGE: u32 = 2;
/// How often (packet time) every kind of state is swept for expiry.
const SWEEP_NS: u64 = 100_000_000;

/// Everything a follower can be told.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Flow timers: linger after a close, idle expiry.
    pub timers: Timers,
    /// Bounds on the expectation table, whatever the control traffic announces.
    pub limits: Limits,
    /// A tracked control connection or an empty dialog idle this long is forgotten.
    pub session_idle_ns: u64,
    /// Accept an announced address other than the sender's (conntrack's FTP
    /// `loose=1`), and SIP/RTSP media from any host, not only the other
    /// participant (its `sip_direct_media=0`). Unsafe: a peer can then point the
    /// capture at any host.
    pub loose: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            timers: Timers::default(),
            limits: Limits::default(),
            session_idle_ns: 300_000_000_000,
            loose: false,
        }
    }
}

impl From<Timers> for Config {
    fn from(timers: Timers) -> Config {
        Config {
            timers,
            ..Config::default()
        }
    }
}

/// Announcements refused, by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Refused {
    /// Against the protocol's direction: a 227/229 from the client, a
    /// PORT/EPRT from the server, a TEARDOWN from the server. (An RTSP transport
    /// the client proposes is no announcement, and not counted.)
    pub direction: u64,
    /// The announced address is not the announcing side's.
    pub address: u64,
    /// On a control connection that is not tracked.
    pub untracked: u64,
    /// A port range or count over the cap.
    pub range: u64,
    /// The control connection or dialog has its most expectations and flows (all
    /// of them flows), or one message announced more than the dialog may expect.
    pub owner_cap: u64,
    /// Expectations and flows in all are at their cap, none of them unused.
    pub flow_cap: u64,
    /// Control connections or dialogs are at their cap.
    pub session_cap: u64,
    /// A BYE or TEARDOWN that matches no dialog of its participants.
    pub foreign_end: u64,
}

impl Refused {
    /// `name count` pairs of the non-zero counters.
    pub fn nonzero(&self) -> Vec<(&'static str, u64)> {
        [
            ("direction", self.direction),
            ("address", self.address),
            ("untracked", self.untracked),
            ("range", self.range),
            ("per-session cap", self.owner_cap),
            ("flow cap", self.flow_cap),
            ("session cap", self.session_cap),
            ("foreign end", self.foreign_end),
        ]
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .collect()
    }

    /// Announcements refused, for every reason together.
    pub fn total(&self) -> u64 {
        self.nonzero().iter().map(|(_, n)| n).sum()
    }
}

/// What the follower did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FollowStats {
    /// Announcements parsed (each port of a range or media line counts once).
    pub announced: u64,
    /// Announcements refused, by reason.
    pub refused: Refused,
    /// What the expectation table holds and has done.
    pub table: TableStats,
    /// What the live filter's tracker holds and has done.
    pub tracker: TrackerStats,
    /// Dialogs and sessions ended by a BYE or TEARDOWN of theirs.
    pub ended: u64,
    /// Packets judged, and kept.
    pub judged: u64,
    /// Packets kept of those judged.
    pub kept: u64,
}

/// Follows control protocols and keeps a live filter in step.
pub struct Follower {
    tracker: Tracker,
    linktype: LinkType,
    protocols: Vec<Protocol>,
    base: Compiled,
    /// The base filter for Ethernet frames the kernel took a VLAN tag out of,
    /// as libpcap's kernel filter reads them ([`Follower::read_tags_out`]).
    tag_out_base: Option<Compiled>,
    scratch: Scratch,
    controls: Controls,
    table: Table,
    config: Config,
    hasher: RandomState,
    next_sweep_ns: u64,
    stats: FollowStats,
}

impl Follower {
    /// `base` defaults to [`base_expression`].
    pub fn new(
        linktype: LinkType,
        protocols: &[Protocol],
        base: Option<&str>,
        mode: Mode,
        config: impl Into<Config>,
    ) -> Result<(Follower, Reader), Error> {
        let config = config.into();
        let base = match base {
            Some(text) => netsift_swift::compile(text, linktype)?,
            None => compile_fixed(linktype, &base_expression(protocols))?,
        };
        let (tracker, reader) = Tracker::new(linktype, &base, mode, config.timers)?;
        let compiled = Compiled::new(base);
        let controls = Controls::new(
            config.limits.max_sessions,
            config.limits.max_flows,
            ControlTimers {
                idle_ns: config.session_idle_ns,
                half_ns: 120_000_000_000,
                linger_ns: config.timers.linger_ns,
            },
        );
        Ok((
            Follower {
                tracker,
                linktype,
                protocols: protocols.to_vec(),
                base: compiled,
                tag_out_base: None,
                scratch: Scratch::new(),
                controls,
                table: Table::new(config.limits, config.timers),
                config,
                hasher: RandomState::new(),
                next_sweep_ns: 0,
                stats: FollowStats::default(),
            },
            reader,
        ))
    }

    /// What the follower has done so far, its table's and tracker's figures
    /// included.
    pub fn stats(&self) -> FollowStats {
        FollowStats {
            table: self.table.stats,
            tracker: self.tracker.stats(),
            ..self.stats
        }
    }

    /// Starts the tracker's journal of filter changes, for a filter kept beside
    /// the live set; take them after every packet with [`Follower::take_changes`].
    pub fn journal(&mut self) {
        self.tracker.journal();
    }

    /// The filter changes the last packets made ([`Change`]), oldest first.
    pub fn take_changes(&mut self) -> Vec<Change> {
        self.tracker.take_changes()
    }

    /// Starts (or stops) the tracker's edit clock ([`Tracker::time_edits`]); read
    /// it through [`Follower::tracker`].
    pub fn time_edits(&mut self, on: bool) {
        self.tracker.time_edits(on);
    }

    /// The tracker that keeps the live filter in step with the endpoints.
    pub fn tracker(&self) -> &Tracker {
        &self.tracker
    }

    /// Expectations, flows, owners (control connections with expectations or
    /// flows, dialogs, sessions) and control connections held now.
    pub fn state_sizes(&self) -> [usize; 4] {
        [
            self.table.expectations(),
            self.table.flows(),
            self.table.owners(),
            self.controls.len(),
        ]
    }

    /// The verdict on a packet the live filter accepted, at `ts_ns`: keep it if
    /// the base filter accepts it or it belongs to an admitted flow. The packet
    /// also updates the state (control connections, announcements, flows); the
    /// second value is the first filter edit that failed doing so, which loses
    /// that update but not the verdict. With the caps below the live set's
    /// capacity ([`Tracker::endpoint_capacity`]) an edit does not fail for room.
    pub fn judge(&mut self, frame: &[u8], wire_len: u32, ts_ns: u64) -> (bool, Result<(), Error>) {
        let is_base = self.base.matches(&mut self.scratch, frame, wire_len);
        self.decide(is_base, segment(self.linktype, frame), ts_ns)
    }

    /// From now on, [`Follower::judge_tag_out`] reads a frame the kernel took a
    /// VLAN tag out of as libpcap's kernel filter (and so `tcpdump -i`) does:
    /// the base filter as `base`, compiled for such frames (with the tag put
    /// back at byte 12, as a capture ring hands them over), and the
    /// connections' addresses and ports after the tag.
    pub fn read_tags_out(&mut self, base: PassSet) {
        self.tag_out_base = Some(Compiled::new(base));
    }

    /// Whether [`Follower::read_tags_out`] was called.
    pub fn reads_tags_out(&self) -> bool {
        self.tag_out_base.is_some()
    }

    /// [`Follower::judge`] for an Ethernet frame the kernel took a VLAN tag out
    /// of (put back at byte 12), read as [`Follower::read_tags_out`] says; as
    /// [`Follower::judge`] reads it if that was not called. Exact, whatever
    /// the live filter says of the frame: callers may skip it for such frames.
    pub fn judge_tag_out(
        &mut self,
        frame: &[u8],
        wire_len: u32,
        ts_ns: u64,
    ) -> (bool, Result<(), Error>) {
        let Some(base) = &self.tag_out_base else {
            return self.judge(frame, wire_len, ts_ns);
        };
        let is_base = base.matches(&mut self.scratch, frame, wire_len);
        self.decide(is_base, segment_tag_out(frame), ts_ns)
    }

    /// The verdict on a packet the base filter accepts or not (`is_base`),
    /// whose segment is `seg`.
    fn decide(
        &mut self,
        is_base: bool,
        seg: Option<Segment<'_>>,
        ts_ns: u64,
    ) -> (bool, Result<(), Error>) {
        self.stats.judged += 1;
        let swept = self.sweep(ts_ns);
        let Some(seg) = seg else {
            self.stats.kept += u64::from(is_base);
            return (is_base, swept);
        };
        let in_flow = self.table.admit(&seg, ts_ns);
        let edits = if is_base {
            swept.and(self.control(&seg, ts_ns))
        } else {
            swept
        };
        let keep = is_base || in_flow;
        self.stats.kept += u64::from(keep);
        (keep, edits)
    }

    /// [`Follower::judge`] for callers that want only the state updates (the whole
    /// frame as its wire length).
    pub fn observe(&mut self, frame: &[u8], ts_ns: u64) -> Result<(), Error> {
        self.judge(frame, frame.len() as u32, ts_ns).1
    }

    fn sweep(&mut self, now: u64) -> Result<(), Error> {
        if now < self.next_sweep_ns {
            return Ok(());
        }
        self.next_sweep_ns = now.saturating_add(SWEEP_NS);
        for c in self.controls.expire(now) {
            self.table
                .drop_expectations_of(&mut self.tracker, &Owner::Conn(c))?;
        }
        self.table
            .expire(&mut self.tracker, now, self.config.session_idle_ns)
    }

    fn control(&mut self, seg: &Segment<'_>, ts: u64) -> Result<(), Error> {
        // By index: a clone of the list would allocate per control packet.
        for i in 0..self.protocols.len() {
            match self.protocols[i] {
                Protocol::Ftp if seg.proto == 6 => self.ftp(seg, ts)?,
                Protocol::Sip if seg.sport == SIP || seg.dport == SIP => self.sip(seg, ts)?,
                Protocol::Rtsp if seg.proto == 6 => self.rtsp(seg, ts)?,
                _ => {}
            }
        }
        Ok(())
    }

    /// Tracks the TCP control connection of `seg` on `port`: its key, whether the
    /// packet goes to the server, and whether the connection is tracked.
    fn track(
        &mut self,
        seg: &Segment<'_>,
        port: u16,
        ts: u64,
    ) -> Result<Option<(ConnKey, bool, bool)>, Error> {
        let Some((key, to_server)) = ConnKey::of(seg, port) else {
            return Ok(None);
        };
        let table = &self.table;
        let sight = self.controls.see(key, to_server, seg, ts, |k| {
            table.has_flows(&Owner::Conn(*k))
        });
        if let Some(gone) = sight.evicted {
            self.table
                .drop_expectations_of(&mut self.tracker, &Owner::Conn(gone))?;
        }
        if sight.seen == Seen::Full && !seg.payload.is_empty() {
            self.stats.refused.session_cap += 1;
        }
        Ok(Some((key, to_server, sight.seen == Seen::Tracked)))
    }

    fn count(&mut self, r: Refusal) {
        let c = &mut self.stats.refused;
        match r {
            Refusal::PerOwner => c.owner_cap += 1,
            Refusal::Flows => c.flow_cap += 1,
            Refusal::Sessions => c.session_cap += 1,
        }
    }

    fn expect(
        &mut self,
        owner: Owner,
        key: ExpKey,
        ts: u64,
        timeout: u64,
        max_expected: usize,
    ) -> Result<(), Error> {
        let r = self
            .table
            .expect(&mut self.tracker, owner, key, ts, timeout, max_expected)?;
        if let Err(r) = r {
            self.count(r);
        }
        Ok(())
    }

    fn ftp(&mut self, seg: &Segment<'_>, ts: u64) -> Result<(), Error> {
        let Some((key, to_server, tracked)) = self.track(seg, FTP, ts)? else {
            return Ok(());
        };
        if seg.payload.is_empty() {
            return Ok(());
        }
        // The sender is the announcing side; the expectation is for the other.
        let (sender, peer) = (seg.src, seg.dst);
        for a in ftp::announcements(seg.payload) {
            // 0.0.0.0 in a 227 reply means "the address you are talking to".
            let addr = a.addr.filter(|a| !a.is_unspecified()).unwrap_or(sender);
            let listener = Endpoint {
                addr,
                port: a.port,
                transport: Transport::Tcp,
            };
            let ends = (sender, peer);
            self.ftp_announce(a, key, (to_server, tracked), listener, ends, ts)?;
            // After the expectation (if any) is in the live set: a filter that
            // guessed this listener from the same announcement may drop its guess.
            self.tracker.note(Change::Announced(listener));
        }
        Ok(())
    }

    /// One FTP announcement `a` of listener `listener`, from `sender` to `peer` on
    /// the control connection `key` (sent to the server or not, tracked or not),
    /// under conntrack's rules.
    fn ftp_announce(
        &mut self,
        a: ftp::Announce,
        key: ConnKey,
        (to_server, tracked): (bool, bool),
        listener: Endpoint,
        (sender, peer): (IpAddr, IpAddr),
        ts: u64,
    ) -> Result<(), Error> {
        self.stats.announced += 1;
        if !tracked {
            self.stats.refused.untracked += 1;
            return Ok(());
        }
        let passive = a.kind == ftp::AnnounceKind::Passive;
        // 227/229 are the server's replies, PORT/EPRT the client's commands.
        if passive == to_server {
            self.stats.refused.direction += 1;
            return Ok(());
        }
        if listener.addr != sender && !self.config.loose {
            self.stats.refused.address += 1;
            return Ok(());
        }
        // Even loose, conntrack's FTP expectation is for the other peer.
        let exp = ExpKey {
            listener,
            peer: Some(peer),
        };
        self.expect(Owner::Conn(key), exp, ts, FTP_EXPECT_NS, FTP_MAX_EXPECTED)
    }

    fn dialog(&self, rtsp: bool, id: Option<&str>, x: IpAddr, y: IpAddr) -> DialogKey {
        let (a, b) = if x <= y { (x, y) } else { (y, x) };
        DialogKey {
            rtsp,
            id: self.hasher.hash_one(id.unwrap_or("")),
            a,
            b,
        }
    }

    /// Ends a dialog on a BYE/TEARDOWN that belongs to it; counts one that does not.
    fn end(&mut self, d: DialogKey) -> Result<(), Error> {
        let o = Owner::Dialog(d);
        if self.table.has_owner(&o) {
            self.table.drop_owner(&mut self.tracker, &o)?;
            self.stats.ended += 1;
        } else {
            self.stats.refused.foreign_end += 1;
        }
        Ok(())
    }

    fn sip(&mut self, seg: &Segment<'_>, ts: u64) -> Result<(), Error> {
        let tracked = if seg.proto == 6 {
            match self.track(seg, SIP, ts)? {
                Some((_, _, t)) => t,
                None => false,
            }
        } else {
            true
        };
        let Some(msg) = sip::parse(seg.payload) else {
            return Ok(());
        };
        let (sender, peer) = (seg.src, seg.dst);
        let d = self.dialog(false, msg.call_id, sender, peer);
        if msg.is_bye {
            if !tracked {
                self.stats.refused.untracked += 1;
                return Ok(());
            }
            return self.end(d);
        }
        let mut made = 0;
        for m in &msg.media {
            let Some(addr) = m.addr else { continue };
            let mut ports = vec![(addr, m.port)];
            if let Some(p) = m.rtcp_port {
                ports.push((m.rtcp_addr.unwrap_or(addr), p));
            } else if m.is_rtp() {
                if let Some(p) = m.port.checked_add(1) {
                    ports.push((addr, p));
                }
            }
            self.stats.announced += ports.len() as u64;
            if !tracked {
                self.stats.refused.untracked += ports.len() as u64;
                continue;
            }
            // `m=audio P/n`: n streams. conntrack reads only P; expanding n is
            // what let one packet add 32,768 flows, so more than one is refused.
            if u32::from(m.port_count.max(1)) > 1 {
                self.stats.refused.range += ports.len() as u64;
                continue;
            }
            for (a, port) in ports {
                if a != sender && !self.config.loose {
                    self.stats.refused.address += 1;
                    continue;
                }
                self.media(d, (a, port), peer, ts, &mut made)?;
            }
        }
        Ok(())
    }

    /// One media expectation of dialog `d`: `peer` may send to `listener` (UDP).
    /// One message makes at most the dialog's `max_expected`; more would only
    /// evict the message's own first ones, at a filter edit each (an IPv6
    /// endpoint is a compiled clause), so the rest are refused as over the cap.
    fn media(
        &mut self,
        d: DialogKey,
        (addr, port): (IpAddr, u16),
        peer: IpAddr,
        ts: u64,
        made: &mut usize,
    ) -> Result<(), Error> {
        if *made >= MEDIA_MAX_EXPECTED {
            self.stats.refused.owner_cap += 1;
            return Ok(());
        }
        *made += 1;
        let listener = Endpoint {
            addr,
            port,
            transport: Transport::Udp,
        };
        // Loose is conntrack's `sip_direct_media=0` too: media from anyone, as
        // when the signaling goes through a proxy and the media does not.
        let peer = (!self.config.loose).then_some(peer);
        let exp = ExpKey { listener, peer };
        let o = Owner::Dialog(d);
        self.expect(o, exp, ts, MEDIA_EXPECT_NS, MEDIA_MAX_EXPECTED)
    }

    fn rtsp(&mut self, seg: &Segment<'_>, ts: u64) -> Result<(), Error> {
        let Some((key, to_server, tracked)) = self.track(seg, RTSP, ts)? else {
            return Ok(());
        };
        let Some(msg) = rtsp::parse(seg.payload) else {
            return Ok(());
        };
        let (client, server) = (key.client.0, key.server.0);
        let d = self.dialog(true, msg.session, client, server);
        if msg.is_teardown {
            if !tracked {
                self.stats.refused.untracked += 1;
            } else if !to_server {
                self.stats.refused.direction += 1;
            } else {
                self.end(d)?;
            }
            return Ok(());
        }
        // The client's request only proposes a transport; the server's reply
        // says what is used (RFC 2326 §12.39), so only replies announce.
        if to_server {
            return Ok(());
        }
        let mut made = 0;
        for t in &msg.transports {
            // Interleaved transport rides on the RTSP connection itself.
            if t.protocol.to_ascii_uppercase().ends_with("/TCP") {
                continue;
            }
            let sides = [
                (
                    t.client_port,
                    t.destination.unwrap_or(client),
                    client,
                    server,
                ),
                (t.server_port, t.source.unwrap_or(server), server, client),
            ];
            for (range, addr, own, peer) in sides {
                let Some(r) = range else { continue };
                let n = u32::from(r.last.max(r.first)) - u32::from(r.first) + 1;
                self.stats.announced += u64::from(n);
                if !tracked {
                    self.stats.refused.untracked += u64::from(n);
                    continue;
                }
                if n > MAX_RANGE {
                    self.stats.refused.range += u64::from(n);
                    continue;
                }
                if addr != own && !self.config.loose {
                    self.stats.refused.address += u64::from(n);
                    continue;
                }
                for port in r.first..=r.last.max(r.first) {
                    self.media(d, (addr, port), peer, ts, &mut made)?;
                }
            }
        }
        Ok(())
    }
}
