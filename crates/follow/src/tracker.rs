//! Turns announced endpoints into live filter edits, the way the seeds' FTPCap did,
//! and takes them out again when their connections end.
//!
//! An endpoint is where a data flow will arrive: `(address, port, tcp|udp)`. Two ways
//! to filter them:
//!
//! * [`Mode::Passes`] (the seeds' FTPCap-Swift): IPv4 endpoints of one server share a
//!   pass `ip, proto, not a fragment, host S, port {P1..}`. A new port on a known
//!   server is `add_param` on that pass's port instruction; when the instruction is
//!   full (10 ports), or for a new server, the tracker duplicates an existing server
//!   pass (`dup_pass`), rewrites its host and port instructions with `select_op`, and
//!   publishes it, so the child reuses the parent's protocol tests (hierarchical
//!   execution). The host test comes after the protocol tests for that reason.
//! * [`Mode::Set`]: one pass per transport protocol whose last instruction is a SET
//!   lookup of `(address, port)` in either direction; an endpoint is one table insert.
//!   This is O(1) per update for any number of endpoints.
//!
//! IPv6 endpoints are one compiled clause each (`ip6 host A and tcp port P`).
//!
//! An endpoint is removed when its TCP connection has closed (FINs from both sides,
//! or a RST) and a linger time has passed, so the last ACKs are still captured; or
//! when no packet has used it for the idle timeout.

use netsift_engine::live::{set_key, ClauseId, LiveError, PassId, Reader};
use netsift_isa::insn::build::{self, Field};
use netsift_isa::insn::{Opcode, Size};
use netsift_isa::{Instruction, PassKind, PassSet};
use netsift_swift::{Error, Swift};
use netsift_wire::LinkType;
use std::collections::HashMap;
use std::net::IpAddr;

use crate::segment::{Segment, FIN, RST};

/// Transport protocol of an endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transport {
    Tcp,
    Udp,
}

impl Transport {
    fn name(self) -> &'static str {
        match self {
            Transport::Tcp => "tcp",
            Transport::Udp => "udp",
        }
    }
    fn from_proto(p: u8) -> Option<Transport> {
        match p {
            6 => Some(Transport::Tcp),
            17 => Some(Transport::Udp),
            _ => None,
        }
    }
}

/// Where an announced flow arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Endpoint {
    pub addr: IpAddr,
    pub port: u16,
    pub transport: Transport,
}

/// How endpoints become filter edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Passes,
    Set,
}

/// Timers, in nanoseconds of packet time.
#[derive(Clone, Copy, Debug)]
pub struct Timers {
    /// How long a closed TCP connection's endpoint stays, for its last packets.
    pub linger_ns: u64,
    /// An endpoint no packet has used for this long is removed.
    pub idle_ns: u64,
}

impl Default for Timers {
    fn default() -> Self {
        Timers {
            linger_ns: 2_000_000_000,
            idle_ns: 120_000_000_000,
        }
    }
}

/// The IPv4 pass for one transport, compiled once and taken apart: the protocol tests,
/// then the host test, then the port test.
struct Template {
    set: PassSet,
    host: usize,
    port: usize,
}

impl Template {
    fn new(swift: &Swift, t: Transport) -> Result<Template, Error> {
        // Marker values that find the host and port instructions in the program.
        const HOST: u32 = 0x0a0b_0c0d;
        const PORT: u32 = 0x1f1e;
        let compiled = swift.compile(&format!("ip host 10.11.12.13 and {} port 7966", t.name()))?;
        let has = |i: &Instruction, size: Size, v: u32| {
            i.decode().opcode == Some(Opcode::Eq2)
                && i.operand_slots()
                    .is_some_and(|(f, s, n, _)| s == size && n == 1 && i.operand(f, s, 0) == v)
        };
        // The alternative that tests the port through the IPv4 header, found by its
        // port test going through an anchor (the IPv4 header length). libpcap also
        // emits an IPv6 alternative, with the port at a fixed offset, that the
        // `ip host` test contradicts.
        let pass = compiled
            .passes()
            .iter()
            .filter(|p| p.kind == PassKind::Root)
            .find(|p| {
                let is = p.instructions();
                is.iter().any(|i| has(i, Size::B4, HOST))
                    && is
                        .iter()
                        .any(|i| has(i, Size::B2, PORT) && i.decode().anchor != 0)
                    && !is.iter().any(|i| i.decode().opcode == Some(Opcode::Group))
            })
            .ok_or(Error::Live(LiveError::NoSuchClause))?;
        let mut rest: Vec<Instruction> = Vec::new();
        let (mut host, mut port) = (None, None);
        for i in pass.instructions() {
            let i = i.with_copied(false);
            if has(&i, Size::B4, HOST) {
                host = Some(i);
            } else if has(&i, Size::B2, PORT) && i.decode().anchor != 0 {
                port = Some(i);
            } else if !rest.contains(&i) {
                rest.push(i);
            }
        }
        let (host, port) = (host.expect("found above"), port.expect("found above"));
        let mut set = PassSet::new();
        for a in compiled.anchors().iter().skip(1) {
            set.anchor(*a)
                .map_err(|_| Error::Live(LiveError::TooManyAnchors))?;
        }
        let p = set.push_pass(PassKind::Root, None).expect("empty set");
        let n = rest.len();
        for i in rest.into_iter().chain([host, port]) {
            set.push_insn(p, i).expect("a compiled pass fits");
        }
        Ok(Template {
            set,
            host: n,
            port: n + 1,
        })
    }

    fn with(&self, index: usize, v: u32) -> Instruction {
        let i = self.set.passes()[0].instructions()[index];
        let (f, s, _, _) = i.operand_slots().expect("an EQ2");
        i.with_operand(f, s, 0, v)
    }

    /// The SET form: protocol tests, then `(host, port)` looked up in `table`, source
    /// pair then destination pair.
    fn set_form(&self, table: u32) -> Option<PassSet> {
        let insns = self.set.passes()[0].instructions();
        let field = |i: &Instruction| {
            let d = i.decode();
            Some((
                Field {
                    anchor: d.anchor,
                    offset: d.offset as u32,
                    size: d.size?,
                },
                (i.p(1) & 0xffff) as u16,
            ))
        };
        let (a, da) = field(&insns[self.host])?;
        let (b, db) = field(&insns[self.port])?;
        let lookup = build::set(table, a, u32::MAX, Some(b), 0xffff, Some((da, db)))?;
        let mut set = self.set.clone();
        set.set_insn(0, self.host, lookup).ok()?;
        // The port test becomes part of the lookup; an always-true test would be a
        // wasted step, so the pass is rebuilt without it.
        let mut out = PassSet::new();
        for x in set.anchors().iter().skip(1) {
            out.anchor(*x).ok()?;
        }
        let p = out.push_pass(PassKind::Root, None).ok()?;
        for (k, i) in set.passes()[0].instructions().iter().enumerate() {
            if k != self.port {
                out.push_insn(p, *i).ok()?;
            }
        }
        Some(out)
    }
}

/// A draft pass holding the one pass of `set`, its anchors joined to the live set's.
fn draft(swift: &mut Swift, set: &PassSet) -> Result<PassId, Error> {
    let map = swift.writer_mut().import_anchors(set)?;
    let id = swift.writer_mut().new_pass()?;
    for (k, i) in set.passes()[0].instructions().iter().enumerate() {
        let i = i.map_anchors(|a| map.get(a as usize).copied().unwrap_or(a));
        swift.writer_mut().select_op(id, k, i)?;
    }
    Ok(id)
}

/// One IPv4 server pass and the ports it holds.
struct ServerPass {
    id: PassId,
    ports: Vec<u16>,
}

struct Entry {
    last_ns: u64,
    /// FIN seen from the endpoint's side (bit 0) and from the other side (bit 1).
    fins: u8,
    closed_ns: Option<u64>,
}

/// Counters for reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrackerStats {
    pub announced: u64,
    pub installed: u64,
    pub removed: u64,
    /// Live-set edits made (each is one published update).
    pub edits: u64,
}

/// Keeps the live filter in step with the endpoints announced so far.
pub struct Tracker {
    swift: Swift,
    mode: Mode,
    timers: Timers,
    templates: HashMap<Transport, Template>,
    servers: HashMap<(IpAddr, Transport), Vec<ServerPass>>,
    /// The pass new server passes are duplicated from.
    dup_source: HashMap<Transport, PassId>,
    /// A draft of the first server pass, built ahead so that the first announcement
    /// costs two instruction writes and a publish, not a clause insertion.
    drafts: HashMap<Transport, PassId>,
    tables: HashMap<Transport, (u32, ClauseId)>,
    v6: HashMap<Endpoint, ClauseId>,
    entries: HashMap<Endpoint, Entry>,
    next_sweep_ns: u64,
    stats: TrackerStats,
}

/// How often (packet time) idle and closed endpoints are looked for.
const SWEEP_NS: u64 = 100_000_000;

impl Tracker {
    /// A live filter for `linktype` holding the clause `base` (the control traffic),
    /// and the reader that filters with it.
    pub fn new(
        linktype: LinkType,
        base: &str,
        mode: Mode,
        timers: Timers,
    ) -> Result<(Tracker, Reader), Error> {
        let (mut swift, reader) = Swift::open(linktype);
        swift.add(base)?;
        let mut templates = HashMap::new();
        let mut drafts = HashMap::new();
        for t in [Transport::Tcp, Transport::Udp] {
            let tpl = Template::new(&swift, t)?;
            if mode == Mode::Passes {
                drafts.insert(t, draft(&mut swift, &tpl.set)?);
            }
            templates.insert(t, tpl);
        }
        Ok((
            Tracker {
                swift,
                mode,
                timers,
                templates,
                // Sized ahead: a map that grows rehashes inside an update.
                servers: HashMap::with_capacity(256),
                dup_source: HashMap::new(),
                drafts,
                tables: HashMap::new(),
                v6: HashMap::with_capacity(64),
                entries: HashMap::with_capacity(1024),
                next_sweep_ns: 0,
                stats: TrackerStats::default(),
            },
            reader,
        ))
    }

    pub fn stats(&self) -> TrackerStats {
        self.stats
    }

    /// Endpoints currently in the filter.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The live set's listing (`-d` form).
    pub fn listing(&self) -> String {
        self.swift.writer().listing()
    }

    /// An endpoint was announced at `now_ns`: make the filter accept its traffic.
    /// Announcing an endpoint already tracked refreshes it.
    pub fn announce(&mut self, ep: Endpoint, now_ns: u64) -> Result<(), Error> {
        self.stats.announced += 1;
        if let Some(e) = self.entries.get_mut(&ep) {
            *e = Entry {
                last_ns: now_ns,
                fins: 0,
                closed_ns: None,
            };
            return Ok(());
        }
        self.install(ep)?;
        self.stats.installed += 1;
        self.entries.insert(
            ep,
            Entry {
                last_ns: now_ns,
                fins: 0,
                closed_ns: None,
            },
        );
        Ok(())
    }

    fn install(&mut self, ep: Endpoint) -> Result<(), Error> {
        let v4 = match ep.addr {
            IpAddr::V4(a) => u32::from(a),
            IpAddr::V6(a) => {
                let c = self.swift.add(&format!(
                    "ip6 host {a} and {} port {}",
                    ep.transport.name(),
                    ep.port
                ))?;
                self.stats.edits += 1;
                self.v6.insert(ep, c);
                return Ok(());
            }
        };
        let tpl = &self.templates[&ep.transport];
        if self.mode == Mode::Set {
            let table = match self.tables.get(&ep.transport) {
                Some(&(t, _)) => t,
                None => {
                    let t = self.swift.writer_mut().create_table(1024)?;
                    let set = tpl
                        .set_form(t)
                        .ok_or(Error::Live(LiveError::TooManyAnchors))?;
                    let c = self.swift.writer_mut().add_clause(&set)?;
                    self.tables.insert(ep.transport, (t, c));
                    t
                }
            };
            self.swift
                .writer_mut()
                .table_insert(table, set_key(v4, ep.port as u32))?;
            self.stats.edits += 1;
            return Ok(());
        }
        let (host_idx, port_idx) = (tpl.host, tpl.port);
        let key = (ep.addr, ep.transport);
        // A known server with room: one more SIMD operand.
        if let Some(sp) = self
            .servers
            .get_mut(&key)
            .and_then(|v| v.iter_mut().find(|s| s.ports.len() < 10))
        {
            self.swift
                .writer_mut()
                .add_param(sp.id, port_idx, ep.port as u32)?;
            sp.ports.push(ep.port);
            self.stats.edits += 1;
            return Ok(());
        }
        let host = tpl.with(host_idx, v4);
        let port = tpl.with(port_idx, ep.port as u32);
        let id = match self
            .dup_source
            .get(&ep.transport)
            .copied()
            .filter(|&p| self.swift.writer().exists(p))
        {
            // The seeds' way: a child of an existing server pass.
            Some(parent) => {
                let id = self.swift.writer_mut().dup_pass(parent)?;
                self.swift.writer_mut().select_op(id, host_idx, host)?;
                self.swift.writer_mut().select_op(id, port_idx, port)?;
                self.swift.writer_mut().publish(id)?;
                id
            }
            None => {
                let id = match self.drafts.remove(&ep.transport) {
                    Some(d) if self.swift.writer().exists(d) => d,
                    _ => draft(&mut self.swift, &tpl.set)?,
                };
                self.swift.writer_mut().select_op(id, host_idx, host)?;
                self.swift.writer_mut().select_op(id, port_idx, port)?;
                self.swift.writer_mut().publish(id)?;
                self.dup_source.insert(ep.transport, id);
                id
            }
        };
        self.stats.edits += 1;
        self.servers.entry(key).or_default().push(ServerPass {
            id,
            ports: vec![ep.port],
        });
        Ok(())
    }

    /// Takes an endpoint out of the filter.
    pub fn remove(&mut self, ep: &Endpoint) -> Result<bool, Error> {
        if self.entries.remove(ep).is_none() {
            return Ok(false);
        }
        self.stats.removed += 1;
        self.stats.edits += 1;
        if let Some(c) = self.v6.remove(ep) {
            self.swift.remove(&c)?;
            return Ok(true);
        }
        let IpAddr::V4(a) = ep.addr else {
            return Ok(true);
        };
        if self.mode == Mode::Set {
            if let Some(&(t, _)) = self.tables.get(&ep.transport) {
                self.swift
                    .writer_mut()
                    .table_remove(t, set_key(u32::from(a), ep.port as u32))?;
            }
            return Ok(true);
        }
        let port_idx = self.templates[&ep.transport].port;
        let key = (ep.addr, ep.transport);
        let Some(list) = self.servers.get_mut(&key) else {
            return Ok(true);
        };
        if let Some(k) = list.iter().position(|s| s.ports.contains(&ep.port)) {
            let sp = &mut list[k];
            if sp.ports.len() == 1 {
                // Its last port: the pass goes (its children keep their own copies).
                self.swift.writer_mut().del_pass(sp.id)?;
                list.remove(k);
            } else {
                self.swift
                    .writer_mut()
                    .del_param(sp.id, port_idx, ep.port as u32)?;
                sp.ports.retain(|&p| p != ep.port);
            }
        }
        if list.is_empty() {
            self.servers.remove(&key);
        }
        Ok(true)
    }

    /// Notes a packet the filter accepted: it keeps its endpoint alive, and FIN/RST
    /// start the endpoint's linger time. Also removes endpoints whose time is up.
    pub fn observe(&mut self, seg: &Segment<'_>, now_ns: u64) -> Result<(), Error> {
        if let Some(t) = Transport::from_proto(seg.proto) {
            for (addr, port, own) in [(seg.dst, seg.dport, false), (seg.src, seg.sport, true)] {
                let ep = Endpoint {
                    addr,
                    port,
                    transport: t,
                };
                if let Some(e) = self.entries.get_mut(&ep) {
                    e.last_ns = now_ns;
                    if t == Transport::Tcp {
                        if seg.flags & FIN != 0 {
                            e.fins |= if own { 1 } else { 2 };
                        }
                        if (seg.flags & RST != 0 || e.fins == 3) && e.closed_ns.is_none() {
                            e.closed_ns = Some(now_ns);
                        }
                    }
                }
            }
        }
        self.expire(now_ns)
    }

    /// Removes endpoints that have lingered after closing or been idle too long.
    pub fn expire(&mut self, now_ns: u64) -> Result<(), Error> {
        if now_ns < self.next_sweep_ns {
            return Ok(());
        }
        self.next_sweep_ns = now_ns.saturating_add(SWEEP_NS);
        let Timers { linger_ns, idle_ns } = self.timers;
        let due: Vec<Endpoint> = self
            .entries
            .iter()
            .filter(|(_, e)| {
                e.closed_ns
                    .is_some_and(|c| now_ns >= c.saturating_add(linger_ns))
                    || now_ns >= e.last_ns.saturating_add(idle_ns)
            })
            .map(|(ep, _)| *ep)
            .collect();
        for ep in due {
            self.remove(&ep)?;
        }
        Ok(())
    }
}
