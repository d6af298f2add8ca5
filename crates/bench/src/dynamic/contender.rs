//! The contenders of the dynamic experiment, each in two halves: the filtering side
//! (what the replay thread runs per packet) and the updating side (what the
//! application thread does when a data connection is announced).
//!
//! * netsift: the follower's [`Tracker`] editing a live pass set through the update
//!   API (the seeds' FTPCap-Swift), in pass mode or with the SET instruction.
//! * libpcap: FTPCap-LSF. On every announcement the application rebuilds the whole
//!   expression, `(ip and tcp port ftp) or (ip host X and (tcp port Y or ...)) or ...`
//!   with the ports of one server grouped, compiles it with `pcap_compile`, and swaps
//!   the program into the `bpf_filter` loop.
//! * kernel LSF: the same program attached with `SO_ATTACH_FILTER`, timing only the
//!   attach (reported beside libpcap, not used for filtering).

use super::lsf::LsfSocket;
use arc_swap::ArcSwap;
use netsift_engine::live::{Reader, Session};
use netsift_engine::Scratch;
use netsift_follow::tracker::{Endpoint, Mode, Timers, Tracker, Transport};
use netsift_oracle::Filter;
use netsift_wire::LinkType;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::Instant;

/// The control-traffic expression both contenders start from (the seeds' base).
pub const BASE: &str = "ip and tcp port ftp";

/// Which contender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// netsift's follower editing a live pass set, in pass mode or SET mode.
    Netsift(Mode),
    /// libpcap recompiling the whole expression on every announcement (FTPCap-LSF).
    Libpcap,
}

impl Kind {
    /// The contender's name in reports: `netsift`, `netsift-set` or `libpcap`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Netsift(Mode::Passes) => "netsift",
            Kind::Netsift(Mode::Set) => "netsift-set",
            Kind::Libpcap => "libpcap",
        }
    }
}

/// The per-packet half.
#[derive(Clone)]
pub enum FilterSide {
    /// A reader of the tracker's live program.
    Netsift(Reader),
    /// The libpcap program the updater swaps in whole on every change.
    Libpcap(Arc<ArcSwap<Filter>>),
}

/// Per-thread state of a [`FilterSide`].
// One per filtering thread, never moved in a hot loop: the size difference is moot.
#[allow(clippy::large_enum_variant)]
pub enum FilterState<'a> {
    /// A pinned session on the live program and the engine's per-packet scratch.
    Netsift(Session<'a>, Scratch),
    /// The shared slot holding the current libpcap program, loaded per packet.
    Libpcap(&'a ArcSwap<Filter>),
}

impl FilterSide {
    /// Fresh per-thread state for one filtering thread.
    pub fn state(&self) -> FilterState<'_> {
        match self {
            FilterSide::Netsift(r) => FilterState::Netsift(r.session(), Scratch::new()),
            FilterSide::Libpcap(f) => FilterState::Libpcap(f),
        }
    }
}

impl FilterState<'_> {
    /// Whether the current filter accepts the packet `pkt` whose length on the wire
    /// is `wire_len`.
    #[inline]
    pub fn matches(&mut self, pkt: &[u8], wire_len: u32) -> bool {
        match self {
            FilterState::Netsift(session, scratch) => session.matches(scratch, pkt, wire_len),
            FilterState::Libpcap(f) => f.load().run_libpcap(pkt, wire_len) != 0,
        }
    }

    /// Lets the writer reclaim old pass versions (netsift); call between batches.
    pub fn quiesce(&mut self) {
        if let FilterState::Netsift(session, _) = self {
            session.repin();
        }
    }
}

/// The per-announcement half.
pub enum Updater {
    /// netsift's follower, which edits the live program through the update API.
    Netsift(Box<Tracker>),
    /// The expression rebuilder that recompiles with libpcap.
    Libpcap(LibpcapUpdater),
}

/// One timed update.
#[derive(Clone, Copy, Debug)]
pub struct Update {
    /// Connections in the filter before this update.
    pub connections: usize,
    /// Time from the call to the new filter being visible, nanoseconds.
    pub ns: u64,
    /// Kernel attach time of the same program (libpcap only, where it worked).
    pub lsf_ns: Option<u64>,
}

impl Updater {
    /// The updating and filtering halves of contender `kind`, both starting from
    /// [`BASE`]; `lsf` also times a kernel attach of each libpcap program.
    pub fn new(kind: Kind, lsf: bool) -> Result<(Updater, FilterSide), String> {
        match kind {
            Kind::Netsift(mode) => {
                let base =
                    netsift_swift::compile(BASE, LinkType::EN10MB).map_err(|e| e.to_string())?;
                let (t, reader) = Tracker::new(LinkType::EN10MB, &base, mode, Timers::default())
                    .map_err(|e| e.to_string())?;
                Ok((Updater::Netsift(Box::new(t)), FilterSide::Netsift(reader)))
            }
            Kind::Libpcap => {
                let u = LibpcapUpdater::new(lsf)?;
                let side = FilterSide::Libpcap(u.filter.clone());
                Ok((Updater::Libpcap(u), side))
            }
        }
    }

    /// Data connections the filter currently accepts.
    pub fn connections(&self) -> usize {
        match self {
            Updater::Netsift(t) => t.len(),
            Updater::Libpcap(u) => u.connections,
        }
    }

    /// Makes the filter accept the data connection to `server:port`; returns the time
    /// from the call to the new filter being visible to the filtering thread.
    pub fn announce(&mut self, server: Ipv4Addr, port: u16) -> Result<Update, String> {
        let connections = self.connections();
        match self {
            Updater::Netsift(t) => {
                let ep = Endpoint {
                    addr: IpAddr::V4(server),
                    port,
                    transport: Transport::Tcp,
                };
                let start = Instant::now();
                t.announce(ep, 0).map_err(|e| e.to_string())?;
                Ok(Update {
                    connections,
                    ns: start.elapsed().as_nanos() as u64,
                    lsf_ns: None,
                })
            }
            Updater::Libpcap(u) => u.announce(server, port, connections),
        }
    }

    /// Undoes an announcement (used by the latency series to keep the size fixed).
    pub fn withdraw(&mut self, server: Ipv4Addr, port: u16) -> Result<(), String> {
        match self {
            Updater::Netsift(t) => {
                let ep = Endpoint {
                    addr: IpAddr::V4(server),
                    port,
                    transport: Transport::Tcp,
                };
                t.remove(&ep).map(|_| ()).map_err(|e| e.to_string())
            }
            Updater::Libpcap(u) => {
                u.withdraw(server, port);
                Ok(())
            }
        }
    }
}

/// FTPCap-LSF's application side.
pub struct LibpcapUpdater {
    servers: Vec<(Ipv4Addr, Vec<u16>)>,
    connections: usize,
    filter: Arc<ArcSwap<Filter>>,
    lsf: Option<LsfSocket>,
}

impl LibpcapUpdater {
    pub(crate) fn new(lsf: bool) -> Result<LibpcapUpdater, String> {
        let f = Filter::compile(LinkType::EN10MB, BASE)?;
        let lsf = if lsf { LsfSocket::new().ok() } else { None };
        Ok(LibpcapUpdater {
            servers: Vec::new(),
            connections: 0,
            filter: Arc::new(ArcSwap::from_pointee(f)),
            lsf,
        })
    }

    /// The whole expression, ports of one server grouped as the seeds did (libpcap's
    /// optimiser does better that way).
    pub fn expression(&self) -> String {
        let mut e = format!("({BASE})");
        for (server, ports) in &self.servers {
            if ports.is_empty() {
                continue;
            }
            let p: Vec<String> = ports.iter().map(|p| format!("tcp port {p}")).collect();
            e.push_str(&format!(" or (ip host {server} and ({}))", p.join(" or ")));
        }
        e
    }

    /// Adds the data connection to `server:port` to [`Self::expression`]; false
    /// if it was there already.
    pub(crate) fn add(&mut self, server: Ipv4Addr, port: u16) -> bool {
        match self.servers.iter_mut().find(|(s, _)| *s == server) {
            Some((_, ports)) if ports.contains(&port) => return false,
            Some((_, ports)) => ports.push(port),
            None => self.servers.push((server, vec![port])),
        }
        self.connections += 1;
        true
    }

    fn announce(
        &mut self,
        server: Ipv4Addr,
        port: u16,
        connections: usize,
    ) -> Result<Update, String> {
        let start = Instant::now();
        self.add(server, port);
        let f = Filter::compile(LinkType::EN10MB, &self.expression())?;
        let f = Arc::new(f);
        self.filter.store(f.clone());
        let ns = start.elapsed().as_nanos() as u64;
        let lsf_ns = self.lsf.as_ref().and_then(|s| s.attach(f.insns()).ok());
        Ok(Update {
            connections,
            ns,
            lsf_ns,
        })
    }

    fn withdraw(&mut self, server: Ipv4Addr, port: u16) {
        if let Some((_, ports)) = self.servers.iter_mut().find(|(s, _)| *s == server) {
            if let Some(k) = ports.iter().position(|&p| p == port) {
                ports.remove(k);
                self.connections -= 1;
            }
        }
        // The program is not rebuilt: the series measures the next announce only.
    }
}
