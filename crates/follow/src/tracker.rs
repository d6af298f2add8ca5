//! Turns listener endpoints into live filter edits, the way the seeds' FTPCap did,
//! and takes them out again when nothing needs them.
//!
//! An endpoint is where a data flow arrives: `(address, port, tcp|udp)`. The filter
//! accepts a packet of an endpoint only on the endpoint's own side: its source is
//! the endpoint, or its destination is (`src host A and src port P or dst host A and
//! dst port P`), never `host A and port P` with the port on the other side. This is
//! the first of two stages (docs/follow.md): the filter narrows to listener
//! endpoints, and the [`Follower`](crate::Follower) decides exactly, per packet,
//! which of them belong to an admitted flow.
//!
//! * [`Mode::Passes`] (the seeds' FTPCap-Swift): IPv4 endpoints of one server share
//!   two passes, `ip, proto, not a fragment, src host S, src port {P1..}` and its
//!   `dst` twin. A new port on a known server is one `add_param` on each; when an
//!   instruction is full, or for a new server, the tracker duplicates an existing
//!   server pass (`dup_pass`), rewrites its host and port instructions with
//!   `select_op`, and publishes it, so the child reuses the parent's protocol tests
//!   (hierarchical execution). The host test comes after the protocol tests for
//!   that reason.
//! * [`Mode::Set`]: one pass per transport protocol whose last instruction is a SET
//!   lookup of the source pair, then the destination pair; an endpoint is one table
//!   insert. This is O(1) per update for any number of endpoints.
//!
//! IPv6 endpoints are one compiled clause each, of the same two-sided form.
//!
//! Endpoints are reference-counted ([`Tracker::acquire`], [`Tracker::release`]):
//! several expectations and flows may share a listener, and the filter entry goes
//! when the last of them does. The tracker keeps no timers; lifetimes belong to the
//! follower.

use netsift_engine::live::{set_key, ClauseId, LiveError, LiveErrorKind, PassId, Reader};
use netsift_isa::insn::build::{self, Field};
use netsift_isa::insn::{Opcode, Size};
use netsift_isa::{Instruction, PassKind, PassSet, MAX_PASSES};
use netsift_swift::{Error, Swift};
use netsift_wire::LinkType;
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Compiles one of the follower's fixed expressions (the templates, the IPv6
/// sizing clause, the default base filter) once per process and link type. Every
/// follower (one per capture, per fuzz input, per bindings session) would
/// otherwise compile the same ten or so expressions, about 1 ms in all. The texts
/// come from this crate, never from packets or users, so the memo holds at most
/// a dozen entries per link type.
pub(crate) fn compile_fixed(linktype: LinkType, text: &str) -> Result<PassSet, Error> {
    type Memo = Mutex<HashMap<(LinkType, String), PassSet>>;
    static MEMO: OnceLock<Memo> = OnceLock::new();
    let memo = MEMO.get_or_init(|| Mutex::new(HashMap::new()));
    let key = (linktype, text.to_string());
    // A poisoned lock only means another thread panicked while holding it; the
    // map itself is whole (inserts are single calls).
    if let Some(set) = memo.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(set.clone());
    }
    let set = netsift_swift::compile(text, linktype)?;
    memo.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, set.clone());
    Ok(set)
}

/// Transport protocol of an endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Transport {
    /// TCP (IP protocol 6).
    Tcp,
    /// UDP (IP protocol 17).
    Udp,
}

impl Transport {
    fn name(self) -> &'static str {
        match self {
            Transport::Tcp => "tcp",
            Transport::Udp => "udp",
        }
    }
    /// Index into the tracker's per-transport arrays.
    fn idx(self) -> usize {
        self as usize
    }
    pub(crate) fn from_proto(p: u8) -> Option<Transport> {
        match p {
            6 => Some(Transport::Tcp),
            17 => Some(Transport::Udp),
            _ => None,
        }
    }
}

/// Where an announced flow arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// The listener's address.
    pub addr: IpAddr,
    /// The listener's port.
    pub port: u16,
    /// The flow's transport protocol.
    pub transport: Transport,
}

/// Hashed as one or two words rather than field by field (the derived form feeds
/// the address's variant, its length and its bytes, the port and the transport
/// separately): every announcement, expectation and flow looks endpoints up, and
/// each `write` of a keyed hasher costs a round. Equal endpoints write equal words.
impl std::hash::Hash for Endpoint {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let tail = u64::from(self.port) << 8 | self.transport as u64;
        match self.addr {
            IpAddr::V4(a) => h.write_u64(u64::from(u32::from(a)) << 24 | tail),
            IpAddr::V6(a) => {
                h.write_u128(u128::from(a));
                h.write_u64(1 << 63 | tail);
            }
        }
    }
}

/// An address as one word for hashing (IPv4 in its IPv4-mapped IPv6 form): the
/// follower's keys hash a word per address rather than the derived variant,
/// length and bytes, each a `write` of the keyed hasher.
pub(crate) fn addr_word(a: &IpAddr) -> u128 {
    match a {
        IpAddr::V4(v4) => u128::from(v4.to_ipv6_mapped()),
        IpAddr::V6(v6) => u128::from(*v6),
    }
}

/// How endpoints become filter edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// IPv4 endpoints of one server share two passes, and a new port is an
    /// `add_param` on them (the seeds' FTPCap-Swift).
    Passes,
    /// Endpoints are keys of a SET table in one pass per transport protocol, so
    /// an edit is a table insert or remove.
    Set,
}

/// Timers, in nanoseconds of packet time. The follower applies them.
#[derive(Clone, Copy, Debug)]
pub struct Timers {
    /// How long a closed TCP connection stays, for its last packets.
    pub linger_ns: u64,
    /// A flow no packet has used for this long is removed.
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

/// Which side of a packet a pass tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Side {
    Src,
    Dst,
}

impl Side {
    fn idx(self) -> usize {
        self as usize
    }
    fn name(self) -> &'static str {
        match self {
            Side::Src => "src",
            Side::Dst => "dst",
        }
    }
}

/// An IPv4 pass for one transport, compiled once and taken apart: the protocol
/// tests, then the host test, then the port test.
struct Template {
    set: PassSet,
    host: usize,
    port: usize,
    /// How many ports the port instruction holds.
    capacity: usize,
    /// The host and port tests, and where their first operand goes: every new
    /// or retargeted server pass writes both, so they are taken apart once.
    tests: [(Instruction, usize, Size); 2],
}

impl Template {
    /// `ip [dir] host H and tcp [dir] port P`, with `dir` empty for either side.
    fn new(swift: &Swift, t: Transport, dir: &str) -> Result<Template, Error> {
        // Marker values that find the host and port instructions in the program.
        const HOST: u32 = 0x0a0b_0c0d;
        const PORT: u32 = 0x1f1e;
        let compiled = compile_fixed(
            swift.linktype(),
            &format!("ip {dir} host 10.11.12.13 and {} {dir} port 7966", t.name()),
        )?;
        let has = |i: &Instruction, size: Size, v: u32| {
            matches!(i.decode().opcode, Some(Opcode::Eq2 | Opcode::Eq))
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
            .ok_or(Error::from(LiveError::from(LiveErrorKind::NoSuchClause)))?;
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
        let capacity = port.operand_slots().map_or(1, |(_, _, _, c)| c);
        let mut set = PassSet::new();
        for a in compiled.anchors().iter().skip(1) {
            set.anchor(*a)
                .map_err(|_| Error::from(LiveError::from(LiveErrorKind::TooManyAnchors)))?;
        }
        let p = set.push_pass(PassKind::Root, None).expect("empty set");
        let n = rest.len();
        for i in rest.into_iter().chain([host, port]) {
            set.push_insn(p, i).expect("a compiled pass fits");
        }
        // As the set holds them (found above as an EQ or EQ2).
        let test = |k: usize| {
            let i = set.passes()[0].instructions()[k];
            i.operand_slots().map(|(f, s, _, _)| (i, f, s))
        };
        let none = || Error::from(LiveError::from(LiveErrorKind::NoSuchClause));
        let (host_test, port_test) = (test(n).ok_or_else(none)?, test(n + 1).ok_or_else(none)?);
        Ok(Template {
            set,
            host: n,
            port: n + 1,
            capacity,
            tests: [host_test, port_test],
        })
    }

    /// The host test for server `v4`.
    fn host_with(&self, v4: u32) -> Instruction {
        let (i, f, s) = self.tests[0];
        i.with_operand(f, s, 0, v4)
    }

    /// The port test for `port` alone.
    fn port_with(&self, port: u16) -> Instruction {
        let (i, f, s) = self.tests[1];
        i.with_operand(f, s, 0, port as u32)
    }

    /// The SET form of the either-side template: protocol tests, then the source
    /// pair `(host, port)` looked up in `table`, then the destination pair. A pair
    /// is looked up as a whole, so the port is always the host's own.
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

/// The transport's idle server passes (see [`Tracker::idle`]) made to test
/// server `v4` and `port` on their own sides (`pair`: the transport's source-
/// and destination-side templates), one publish per side; `None` if there are
/// none (or they could not be rewritten, and are gone). A function of the
/// fields it edits, so that the caller keeps its entry in the server index.
fn retarget(
    swift: &mut Swift,
    idle: &mut Option<[PassId; 2]>,
    pair: &[Template; 2],
    v4: u32,
    port: u16,
) -> Option<[PassId; 2]> {
    let ids = idle.take()?;
    let w = swift.writer_mut();
    for (id, tpl) in ids.into_iter().zip(pair) {
        let ops = [
            (tpl.host, tpl.host_with(v4)),
            (tpl.port, tpl.port_with(port)),
        ];
        if w.select_ops(id, &ops).is_err() {
            // Only a pass that is gone refuses; drop what is left of the pair.
            for id in ids {
                let _ = w.del_pass(id);
            }
            return None;
        }
    }
    Some(ids)
}

/// Ports one pair of server passes holds at most: an EQ of 2-byte operands
/// holds 14, the template's port test; a template that held more is used up to
/// this.
const MAX_PORTS: usize = 14;

/// The two passes (source side, destination side) of one IPv4 server and the
/// ports they hold, inline: making and dropping a server allocates nothing.
struct ServerPass {
    ids: [PassId; 2],
    ports: [u16; MAX_PORTS],
    len: usize,
}

impl ServerPass {
    /// A server's new pair of passes, holding `port`.
    fn new(ids: [PassId; 2], port: u16) -> ServerPass {
        let mut ports = [0; MAX_PORTS];
        ports[0] = port;
        ServerPass { ids, ports, len: 1 }
    }

    fn ports(&self) -> &[u16] {
        &self.ports[..self.len]
    }
}

/// Server lists kept for reuse ([`Tracker::servers`]), at most.
const MAX_SPARE_LISTS: usize = 64;

/// Counters for reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrackerStats {
    /// Endpoint references taken ([`Tracker::acquire`]).
    pub announced: u64,
    /// Endpoints put into the filter.
    pub installed: u64,
    /// Endpoints taken out of the filter.
    pub removed: u64,
    /// Live-set edits made (each is one published update).
    pub edits: u64,
}

/// A change to what the filter accepts, for a filter kept beside the live set (the
/// kernel's, with `--place kernel`): see [`Tracker::journal`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The filter accepts this endpoint's traffic from now on.
    Listen(Endpoint),
    /// It no longer does.
    Unlisten(Endpoint),
    /// The follower has handled an FTP announcement of this listener (admitted
    /// or refused): a guess made from the same announcement before user space
    /// saw it (the kernel's own parse) may go.
    Announced(Endpoint),
}

/// Keeps the live filter in step with the endpoints that expectations and flows
/// need.
pub struct Tracker {
    swift: Swift,
    mode: Mode,
    /// Per transport (indexed by [`Transport::idx`], as every per-transport and
    /// per-side array here, so that an edit hashes nothing to find them): the
    /// either-side template (the SET form is made from it) and, in pass mode, the
    /// one-sided ones.
    either: [Template; 2],
    sided: Option<[[Template; 2]; 2]>,
    /// IPv4 server passes, keyed by the server's endpoint with port 0.
    servers: HashMap<Endpoint, Vec<ServerPass>>,
    /// Emptied server lists (at most [`MAX_SPARE_LISTS`]), so that a new
    /// server's list does not allocate.
    spare_lists: Vec<Vec<ServerPass>>,
    /// The pass new server passes of a side are duplicated from.
    dup_source: [[Option<PassId>; 2]; 2],
    /// Per transport, the passes of the last server whose last port went, kept
    /// for the next new server instead of deleted: retargeting them is one
    /// publish per side (host and port tests together, `select_ops`), where a
    /// new pair is a duplication and a first publish per side and a deletion
    /// two deaths. Their port tests hold no port meanwhile, so they match
    /// nothing. One pair per transport at most, and it fits in the room
    /// `reserved` counts for the drafts: a transport has an idle pair only
    /// after its first server took its drafts.
    idle: [Option<[PassId; 2]>; 2],
    /// Drafts of the first server passes, built ahead so that the first
    /// announcement costs instruction writes and a publish, not a clause insertion.
    drafts: [[Option<PassId>; 2]; 2],
    tables: [Option<(u32, ClauseId)>; 2],
    v6: HashMap<Endpoint, ClauseId>,
    /// Endpoints in the filter and how many expectations and flows use each.
    refs: HashMap<Endpoint, u32>,
    /// Passes in use right after construction: the base filter and the drafts.
    reserved: usize,
    /// The most passes one IPv6 endpoint's clause takes.
    v6_passes: usize,
    stats: TrackerStats,
    /// Changes not yet taken ([`Tracker::journal`]); `None` when nobody takes them,
    /// so that nothing grows.
    journal: Option<Vec<Change>>,
    /// Time in live-set edits, when a benchmark asks ([`Tracker::time_edits`]).
    edit_clock: Option<Duration>,
}

impl Tracker {
    /// A live filter for `linktype` holding the clause `base` (the control traffic),
    /// and the reader that filters with it. `_timers` is unused: the follower owns every
    /// lifetime; it stays so that callers timing raw edits
    /// (the dynamic benchmark) keep their shape.
    /// A tracker whose filter starts as `base` (compiled for `linktype`).
    pub fn new(
        linktype: LinkType,
        base: &PassSet,
        mode: Mode,
        _timers: Timers,
    ) -> Result<(Tracker, Reader), Error> {
        let (mut swift, reader) = Swift::open(linktype);
        swift.writer_mut().add_clause(base)?;
        let either = [
            Template::new(&swift, Transport::Tcp, "")?,
            Template::new(&swift, Transport::Udp, "")?,
        ];
        let mut drafts = [[None; 2]; 2];
        let sided = match mode {
            Mode::Set => None,
            Mode::Passes => {
                let pair = |t| -> Result<[Template; 2], Error> {
                    Ok([
                        Template::new(&swift, t, Side::Src.name())?,
                        Template::new(&swift, t, Side::Dst.name())?,
                    ])
                };
                let sided = [pair(Transport::Tcp)?, pair(Transport::Udp)?];
                for (t, pair) in sided.iter().enumerate() {
                    for (side, tpl) in pair.iter().enumerate() {
                        drafts[t][side] = Some(draft(&mut swift, &tpl.set)?);
                    }
                }
                Some(sided)
            }
        };
        let v6_passes = [Transport::Tcp, Transport::Udp]
            .iter()
            .map(|&t| {
                compile_fixed(linktype, &v6_clause(std::net::Ipv6Addr::LOCALHOST, 1, t))
                    .map(|s| s.passes().len())
            })
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .max()
            .unwrap_or(1);
        // Drafts are not published, but they hold their slots.
        let reserved = swift.writer().published() + drafts.iter().flatten().flatten().count();
        Ok((
            Tracker {
                swift,
                mode,
                either,
                sided,
                // Sized ahead: a map that grows rehashes inside an update.
                servers: HashMap::with_capacity(256),
                spare_lists: Vec::with_capacity(MAX_SPARE_LISTS),
                dup_source: [[None; 2]; 2],
                idle: [None, None],
                drafts,
                tables: [None, None],
                v6: HashMap::with_capacity(64),
                refs: HashMap::with_capacity(1024),
                reserved,
                v6_passes,
                stats: TrackerStats::default(),
                journal: None,
                edit_clock: None,
            },
            reader,
        ))
    }

    /// What the tracker has done so far.
    pub fn stats(&self) -> TrackerStats {
        self.stats
    }

    /// Endpoints currently in the filter.
    pub fn len(&self) -> usize {
        self.refs.len()
    }

    /// Whether no endpoint is in the filter.
    pub fn is_empty(&self) -> bool {
        self.refs.is_empty()
    }

    /// Compiles `text` for the live set's link type, without adding it.
    pub fn compile(&self, text: &str) -> Result<PassSet, Error> {
        self.swift.compile(text)
    }

    /// The live set's listing (`-d` form).
    pub fn listing(&self) -> String {
        self.swift.writer().listing()
    }

    /// How many endpoints the live set can hold whatever their addresses, after the
    /// base filter and the drafts: the worst case is a server (or an IPv6 clause)
    /// per endpoint. Capping endpoints at this keeps the base filter's passes and
    /// every admitted endpoint's room reserved: an insertion can never fail for
    /// want of passes.
    pub fn endpoint_capacity(&self) -> usize {
        let per = match self.mode {
            // Two passes per IPv4 server, a clause per IPv6 endpoint.
            Mode::Passes => self.v6_passes.max(2),
            // The SET passes (one per transport) and a clause per IPv6 endpoint.
            Mode::Set => self.v6_passes,
        };
        let fixed = self.reserved + if self.mode == Mode::Set { 2 } else { 0 };
        MAX_PASSES.saturating_sub(fixed) / per.max(1)
    }

    /// Starts keeping a journal of [`Change`]s for a filter kept beside the live
    /// set. The caller takes it ([`Tracker::take_changes`]) after every packet, so
    /// it holds one packet's changes at most.
    pub fn journal(&mut self) {
        self.journal.get_or_insert_with(Vec::new);
    }

    /// The changes since the last call, oldest first.
    /// (An empty journal allocates nothing, so the usual packet costs no more.)
    pub fn take_changes(&mut self) -> Vec<Change> {
        self.journal
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    pub(crate) fn note(&mut self, c: Change) {
        if let Some(j) = &mut self.journal {
            j.push(c);
        }
    }

    /// One more user of `ep`: the filter accepts its traffic from now on. Returns
    /// whether the endpoint was new to the filter.
    pub fn acquire(&mut self, ep: Endpoint) -> Result<bool, Error> {
        self.stats.announced += 1;
        // One lookup either way (a keyed hash of the endpoint is a good part of
        // a new endpoint's bookkeeping): the reference is taken before the
        // edit and given back if the edit is refused.
        match self.refs.entry(ep) {
            Entry::Occupied(mut n) => {
                *n.get_mut() += 1;
                return Ok(false);
            }
            Entry::Vacant(v) => {
                v.insert(1);
            }
        }
        if let Err(e) = self.timed(|t| t.install(ep)) {
            self.refs.remove(&ep);
            return Err(e);
        }
        self.stats.installed += 1;
        self.note(Change::Listen(ep));
        Ok(true)
    }

    /// One user fewer: the last one takes the endpoint out of the filter.
    pub fn release(&mut self, ep: &Endpoint) -> Result<(), Error> {
        match self.refs.get_mut(ep) {
            Some(n) if *n > 1 => {
                *n -= 1;
                Ok(())
            }
            Some(_) => self.remove(ep).map(|_| ()),
            None => Ok(()),
        }
    }

    /// Starts (or stops) adding up the time spent in live-set edits
    /// ([`Tracker::edit_time`]), for a benchmark that times an announcement's two
    /// halves apart: the edit through the update API, and the follower's
    /// bookkeeping around it. Off, no clock is read.
    pub fn time_edits(&mut self, on: bool) {
        self.edit_clock = on.then_some(Duration::ZERO);
    }

    /// The time spent in live-set edits (publishes included) since
    /// [`Tracker::time_edits`] turned the clock on; zero when it is off.
    pub fn edit_time(&self) -> Duration {
        self.edit_clock.unwrap_or_default()
    }

    /// Runs one live-set edit, on the edit clock if it is on.
    fn timed<T>(&mut self, edit: impl FnOnce(&mut Self) -> T) -> T {
        let Some(_) = self.edit_clock else {
            return self.together(edit);
        };
        let start = Instant::now();
        let out = self.together(edit);
        if let Some(c) = &mut self.edit_clock {
            *c += start.elapsed();
        }
        out
    }

    /// Runs one announcement's or withdrawal's edits with their versions
    /// stored together at the end (`Writer::hold`): a listener is two passes,
    /// and each store into the slot table costs a line the filtering threads
    /// read for every packet.
    fn together<T>(&mut self, edit: impl FnOnce(&mut Self) -> T) -> T {
        self.swift.writer_mut().hold();
        let out = edit(self);
        self.swift.writer_mut().release();
        out
    }

    /// Compatibility name for [`Tracker::acquire`] (the dynamic benchmark's).
    pub fn announce(&mut self, ep: Endpoint, _now_ns: u64) -> Result<(), Error> {
        self.acquire(ep).map(|_| ())
    }

    fn install(&mut self, ep: Endpoint) -> Result<(), Error> {
        let v4 = match ep.addr {
            IpAddr::V4(a) => u32::from(a),
            IpAddr::V6(a) => {
                let c = self.swift.add(&v6_clause(a, ep.port, ep.transport))?;
                self.stats.edits += 1;
                self.v6.insert(ep, c);
                return Ok(());
            }
        };
        let t = ep.transport.idx();
        if self.mode == Mode::Set {
            let table = match self.tables[t] {
                Some((table, _)) => table,
                None => {
                    let table = self.swift.writer_mut().create_table(1024)?;
                    let set = self.either[t]
                        .set_form(table)
                        .ok_or(Error::from(LiveError::from(LiveErrorKind::TooManyAnchors)))?;
                    let c = self.swift.writer_mut().add_clause(&set)?;
                    self.tables[t] = Some((table, c));
                    table
                }
            };
            self.swift
                .writer_mut()
                .table_insert(table, set_key(v4, ep.port as u32))?;
            self.stats.edits += 1;
            return Ok(());
        }
        let Some(sided) = &self.sided else {
            return Err(LiveError::from(LiveErrorKind::NoSuchClause).into());
        };
        let [src, dst] = &sided[t];
        let cap = src.capacity.min(dst.capacity).min(MAX_PORTS);
        let port_idx = [src.port, dst.port];
        let key = server_key(&ep);
        // One lookup of the server for the usual announcements: a port on a
        // known server with room, or a new server taking the idle pair.
        match self.servers.entry(key) {
            // A known server with room: one more SIMD operand on each side.
            Entry::Occupied(mut list) => {
                if let Some(sp) = list.get_mut().iter_mut().find(|s| s.len < cap) {
                    // One publish per side, stored together when the edit ends
                    // (`Tracker::together`).
                    for (id, index) in sp.ids.into_iter().zip(port_idx) {
                        self.swift
                            .writer_mut()
                            .add_param(id, index, ep.port as u32)?;
                        self.stats.edits += 1;
                    }
                    sp.ports[sp.len] = ep.port;
                    sp.len += 1;
                    return Ok(());
                }
                // Its passes are full: the idle pair, if any, as its next one.
                let ids = retarget(&mut self.swift, &mut self.idle[t], &sided[t], v4, ep.port);
                if let Some(ids) = ids {
                    self.stats.edits += 2;
                    list.get_mut().push(ServerPass::new(ids, ep.port));
                    return Ok(());
                }
            }
            // A new server: the idle pair, if any.
            Entry::Vacant(v) => {
                let ids = retarget(&mut self.swift, &mut self.idle[t], &sided[t], v4, ep.port);
                if let Some(ids) = ids {
                    self.stats.edits += 2;
                    let mut list = self.spare_lists.pop().unwrap_or_default();
                    list.push(ServerPass::new(ids, ep.port));
                    v.insert(list);
                    return Ok(());
                }
            }
        }
        // No pair is idle: a new one, duplicated from a server pass.
        let src = self.server_pass(ep, v4, Side::Src);
        let dst = src.and_then(|src| Ok((src, self.server_pass(ep, v4, Side::Dst)?)));
        let list = self.servers.entry(key).or_default();
        match dst {
            Ok((src, dst)) => {
                if list.capacity() == 0 {
                    *list = self.spare_lists.pop().unwrap_or_default();
                }
                list.push(ServerPass::new([src, dst], ep.port));
                Ok(())
            }
            Err(e) => {
                if list.is_empty() {
                    self.drop_server(&key);
                }
                Err(e)
            }
        }
    }

    /// A new published pass testing `side` for server `v4` and port `ep.port`.
    fn server_pass(&mut self, ep: Endpoint, v4: u32, side: Side) -> Result<PassId, Error> {
        let (t, s) = (ep.transport.idx(), side.idx());
        let Some(sided) = &self.sided else {
            return Err(LiveError::from(LiveErrorKind::NoSuchClause).into());
        };
        let tpl = &sided[t][s];
        let (host_idx, port_idx) = (tpl.host, tpl.port);
        let host = tpl.host_with(v4);
        let port = tpl.port_with(ep.port);
        let id = match self.dup_source[t][s].filter(|&p| self.swift.writer().exists(p)) {
            // The seeds' way: a child of an existing server pass.
            Some(parent) => self.swift.writer_mut().dup_pass(parent)?,
            None => {
                let id = match self.drafts[t][s].take() {
                    Some(d) if self.swift.writer().exists(d) => d,
                    _ => draft(&mut self.swift, &tpl.set)?,
                };
                self.dup_source[t][s] = Some(id);
                id
            }
        };
        self.swift.writer_mut().select_op(id, host_idx, host)?;
        self.swift.writer_mut().select_op(id, port_idx, port)?;
        self.swift.writer_mut().publish(id)?;
        self.stats.edits += 1;
        Ok(id)
    }

    /// Takes an endpoint out of the filter, whoever uses it.
    pub fn remove(&mut self, ep: &Endpoint) -> Result<bool, Error> {
        if self.refs.remove(ep).is_none() {
            return Ok(false);
        }
        // The live set narrows below before this is taken, and a filter kept
        // beside it narrows after: it stays a superset.
        self.note(Change::Unlisten(*ep));
        self.stats.removed += 1;
        self.stats.edits += 1;
        self.timed(|t| t.uninstall(ep))?;
        Ok(true)
    }

    /// The live-set edits that take `ep` out of the filter.
    fn uninstall(&mut self, ep: &Endpoint) -> Result<(), Error> {
        if let Some(c) = self.v6.remove(ep) {
            return self.swift.remove(&c);
        }
        let IpAddr::V4(a) = ep.addr else {
            return Ok(());
        };
        let t = ep.transport.idx();
        if self.mode == Mode::Set {
            if let Some((table, _)) = self.tables[t] {
                self.swift
                    .writer_mut()
                    .table_remove(table, set_key(u32::from(a), ep.port as u32))?;
            }
            return Ok(());
        }
        let Some(sided) = &self.sided else {
            return Ok(());
        };
        let port_idx = [sided[t][0].port, sided[t][1].port];
        let key = server_key(ep);
        let Some(list) = self.servers.get_mut(&key) else {
            return Ok(());
        };
        if let Some(k) = list.iter().position(|s| s.ports().contains(&ep.port)) {
            let sp = &mut list[k];
            // Its last port: the passes go (their children keep their own
            // copies), or stay idle, matching nothing, for the next new server.
            let last = sp.len == 1;
            let keep = last && self.idle[t].is_none();
            for (id, index) in sp.ids.into_iter().zip(port_idx) {
                if last && !keep {
                    self.swift.writer_mut().del_pass(id)?;
                } else {
                    self.swift
                        .writer_mut()
                        .del_param(id, index, ep.port as u32)?;
                }
            }
            if keep {
                self.idle[t] = Some(sp.ids);
            }
            if sp.len == 1 {
                list.remove(k);
            } else if let Some(at) = sp.ports().iter().position(|&p| p == ep.port) {
                // Order does not matter to the port test ("any of").
                sp.len -= 1;
                sp.ports[at] = sp.ports[sp.len];
            }
        }
        if list.is_empty() {
            self.drop_server(&key);
        }
        Ok(())
    }

    /// Forgets a server with no passes left, keeping its list's memory for the
    /// next new server (up to [`MAX_SPARE_LISTS`] lists).
    fn drop_server(&mut self, key: &Endpoint) {
        if let Some(mut list) = self.servers.remove(key) {
            if self.spare_lists.len() < MAX_SPARE_LISTS && list.capacity() > 0 {
                list.clear();
                self.spare_lists.push(list);
            }
        }
    }
}

/// The key of an IPv4 server's passes: its address and transport, port 0.
fn server_key(ep: &Endpoint) -> Endpoint {
    Endpoint { port: 0, ..*ep }
}

/// The clause of one IPv6 endpoint: its address and port on the same side.
fn v6_clause(a: std::net::Ipv6Addr, port: u16, t: Transport) -> String {
    let t = t.name();
    format!(
        "(ip6 src host {a} and {t} src port {port}) or (ip6 dst host {a} and {t} dst port {port})"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn ep(server: u32, port: u16) -> Endpoint {
        Endpoint {
            addr: IpAddr::V4(Ipv4Addr::from(0x0a01_0001 + server)),
            port,
            transport: Transport::Tcp,
        }
    }

    /// Pass versions published and steps decoded by announcing, then removing, a
    /// new port of a server that has room, with `n` endpoints in the filter.
    fn edit_cost(mode: Mode, n: usize) -> [(u64, u64); 2] {
        let base = compile_fixed(LinkType::EN10MB, "tcp port 21").expect("compiles");
        let (mut t, _r) =
            Tracker::new(LinkType::EN10MB, &base, mode, Timers::default()).expect("tracker");
        for k in 0..n {
            // Ten servers; a server's ports fill passes of 14 from 1024 up.
            t.acquire(ep((k % 10) as u32, 1024 + (k / 10) as u16))
                .expect("room");
        }
        let cost = |t: &mut Tracker, f: &mut dyn FnMut(&mut Tracker)| {
            let before = t.swift.writer().stats();
            f(t);
            let after = t.swift.writer().stats();
            (
                after.versions - before.versions,
                after.decoded - before.decoded,
            )
        };
        let new = ep(0, 60_000);
        let add = cost(&mut t, &mut |t| assert!(t.acquire(new).expect("room")));
        let del = cost(&mut t, &mut |t| assert!(t.remove(&new).expect("edit")));
        [add, del]
    }

    #[test]
    fn an_announcement_edits_two_passes_or_one_entry_whatever_the_endpoints() {
        // Pass mode: one `add_param` on each side's pass, one step decoded each
        // (the port test is the pass's last instruction), at 1 or 200 endpoints.
        for n in [1, 13, 200] {
            assert_eq!(
                edit_cost(Mode::Passes, n),
                [(2, 2), (2, 2)],
                "{n} endpoints"
            );
        }
        // SET: a table insert and remove, no pass published.
        for n in [1, 1000] {
            assert_eq!(edit_cost(Mode::Set, n), [(0, 0), (0, 0)], "{n} endpoints");
        }
    }

    /// Whether the tracker's live set accepts a TCP segment from `src` to `dst`.
    fn accepts(r: &Reader, src: (u32, u16), dst: (u32, u16)) -> bool {
        let addr = |k: u32| Ipv4Addr::from(0x0a01_0001 + k);
        let f = netsift_testkit::frames::Frame::ethernet([0; 6], [0; 6])
            .ipv4(addr(src.0), addr(dst.0))
            .tcp(src.1, dst.1, 0x10)
            .build();
        r.matches(&mut netsift_engine::Scratch::new(), &f, f.len() as u32)
    }

    /// A pass-mode tracker over `tcp port 21`, and its reader.
    fn pass_tracker() -> (Tracker, Reader) {
        let base = compile_fixed(LinkType::EN10MB, "tcp port 21").expect("compiles");
        Tracker::new(LinkType::EN10MB, &base, Mode::Passes, Timers::default()).expect("tracker")
    }

    #[test]
    fn a_new_server_retargets_the_last_servers_idle_passes_in_one_publish_per_side() {
        let (mut t, r) = pass_tracker();
        let client = (100, 40_000);
        t.acquire(ep(0, 5000)).expect("room");
        let (passes, stats) = (t.swift.writer().published(), t.swift.writer().stats());
        // Server 0's last port goes: its passes stay, matching nothing.
        t.remove(&ep(0, 5000)).expect("edit");
        assert_eq!(t.swift.writer().published(), passes);
        assert!(!accepts(&r, (0, 5000), client) && !accepts(&r, client, (0, 5000)));
        // Server 1 takes them: one version per side, its host and port tests
        // decoded, and nothing of server 0 left.
        let before = t.swift.writer().stats();
        t.acquire(ep(1, 6000)).expect("room");
        let after = t.swift.writer().stats();
        assert_eq!(after.versions - before.versions, 2);
        assert_eq!(after.decoded - before.decoded, 4);
        assert_eq!(t.swift.writer().published(), passes);
        assert!(accepts(&r, (1, 6000), client) && accepts(&r, client, (1, 6000)));
        assert!(!accepts(&r, (0, 6000), client) && !accepts(&r, (1, 5000), client));
        assert!(!accepts(&r, (0, 5000), client) && !accepts(&r, client, (0, 5000)));
        // The listener's side only, as before.
        assert!(!accepts(&r, (2, 6000), (1, 7000)));
        assert!(stats.versions < after.versions);
        // One idle pair per transport: with one kept, a second server's last
        // port takes its passes out of the set.
        t.acquire(ep(2, 7000)).expect("room");
        assert_eq!(t.swift.writer().published(), passes + 2);
        t.remove(&ep(1, 6000)).expect("edit");
        t.remove(&ep(2, 7000)).expect("edit");
        assert_eq!(t.swift.writer().published(), passes);
        assert!(!accepts(&r, (1, 6000), client) && !accepts(&r, (2, 7000), client));
        assert!(accepts(&r, (3, 21), client));
    }

    #[test]
    fn a_full_server_takes_the_idle_pair_as_its_next_passes() {
        let (mut t, r) = pass_tracker();
        let client = (100, 40_000);
        // Server 0 fills its pair; server 1's last port goes, so its pair is idle.
        for p in 0..MAX_PORTS as u16 {
            t.acquire(ep(0, 5000 + p)).expect("room");
        }
        t.acquire(ep(1, 6000)).expect("room");
        t.remove(&ep(1, 6000)).expect("edit");
        let passes = t.swift.writer().published();
        let before = t.swift.writer().stats();
        let next = ep(0, 5000 + MAX_PORTS as u16);
        t.acquire(next).expect("room");
        let after = t.swift.writer().stats();
        // The idle pair rewritten (one version per side, host and port decoded),
        // no pass added.
        assert_eq!(after.versions - before.versions, 2);
        assert_eq!(after.decoded - before.decoded, 4);
        assert_eq!(t.swift.writer().published(), passes);
        assert!(accepts(&r, (0, next.port), client) && accepts(&r, client, (0, next.port)));
        assert!(accepts(&r, (0, 5000), client) && !accepts(&r, (1, 6000), client));
        // Its first port going leaves the new pair as it is.
        t.remove(&ep(0, 5000)).expect("edit");
        assert!(!accepts(&r, (0, 5000), client) && accepts(&r, (0, next.port), client));
    }

    #[test]
    fn a_refused_endpoint_leaves_no_reference() {
        let (mut t, _r) = pass_tracker();
        // IPv6 endpoints are a clause each, until the set is full.
        let v6 = |k: u32| Endpoint {
            addr: IpAddr::V6(std::net::Ipv6Addr::from(
                0x2001_0db8_u128 << 96 | u128::from(k),
            )),
            port: 2000,
            transport: Transport::Tcp,
        };
        let refused = (0..MAX_PASSES as u32)
            .find(|&k| t.acquire(v6(k)).is_err())
            .expect("the set fills up");
        assert_eq!(t.len(), refused as usize);
        // Refused again, not counted as a second user of an endpoint it holds.
        assert!(t.acquire(v6(refused)).is_err());
        assert_eq!(t.len(), refused as usize);
        // A held endpoint still counts its users.
        assert_eq!(t.acquire(v6(0)).ok(), Some(false));
    }
}
