//! Flows and their life cycle (FFPF §3): `create` (the seeds' `flow_create`
//! and `flow_populate`: the filter compiles for the source), `instantiate`
//! (authorise, join the group of the client's rights, build the buffers),
//! `activate`, `pause`, `close`; and `set_filter`.
//!
//! [`Daemon`] holds the flow table and the sources behind one lock, taken
//! per request; a source's `Dispatch` (its flow table) is locked inside it
//! (never the other way round: the capture threads take only their source's).
//!
//! Edits keep the kernel's program a superset of what the flows want: on
//! `activate` the clause goes into the kernel before the flow is dispatched
//! to; on `pause` and `close` the flow leaves the dispatch before its clause
//! leaves the kernel.
//!
//! Authorisation is [`crate::rights()`], called once per connection: a peer
//! no rule admits is refused at `hello` (and so at every request after it);
//! `create` checks the flow against the peer's rights (source, snap length,
//! IBuf bytes, the user's flows on every connection), and the flow then runs
//! the rule's filter in front of its own, in the group of its class.
//!
//! A graph flow (`create` with `graph`) is checked whole at `create`
//! ([`crate::graph::check`]) and against its rule, behind the rule's filter
//! ([`crate::graph::authorise`]), instantiated into its source's running graph
//! at `instantiate` (sharing every prefix with the graphs running there), and
//! dispatched to by its last elements' verdicts; its kernel clause is the
//! union of its first `pcap` elements ([`crate::graph::place`]).

use crate::config::Config;
use crate::dispatch::Programs;
use crate::graph::authorise::Usage;
use crate::rights::{rights, Rights};
use crate::sources::{lock, Source};
use crate::stats::FlowView;
use crate::Log;
use netsift_engine::Compiled;
use netsift_ffpf::proto::{
    Direction, ErrorCode, FlowNo, FlowState, Refusal, ReplyBody, Request, SourceInfo, VERSION,
};
use netsift_ffpf::seqpacket::PeerCred;
use netsift_ffpf::{FlowId, Group, Policy};
use std::collections::hash_map::Entry;
use std::collections::BTreeMap;
use std::os::fd::OwnedFd;
use std::sync::{Mutex, MutexGuard};

/// One connection, as the daemon knows it.
#[derive(Debug)]
pub struct Conn {
    id: u64,
    /// Who connected, from the kernel.
    pub peer: PeerCred,
    /// Its rights, or why it has none (told at `hello`).
    rights: Result<Rights, netsift_ffpf::auth::Refusal>,
    hello: bool,
}

struct FlowEntry {
    conn: u64,
    /// Its owner's uid (a rule's `flows` counts across connections).
    uid: u32,
    source: String,
    /// The filter as the client gave it (its stats show this).
    filter: String,
    /// The filter it runs: the rule's in front of the client's.
    run: String,
    /// The direction it takes.
    direction: Direction,
    /// The clause it holds in the kernel's program while active: `run`, or
    /// the empty one (every packet) where `run` tests the direction, which
    /// the one program under the ring cannot (it serves both directions);
    /// none for a graph flow whose every last element runs in the kernel.
    clause: Option<String>,
    state: FlowState,
    ibuf_entries: u64,
    rights: Rights,
    /// Its id in its group, once instantiated.
    member: Option<FlowId>,
    /// A graph flow's checked definition (`filter` then holds its text).
    graph: Option<netsift_graph::FlowSpec>,
    /// A graph flow's flow in its source's running graph, once instantiated.
    graph_flow: Option<netsift_graph::FlowId>,
    /// The element (0-based) whose output a graph flow delivers (`None`: its
    /// last elements').
    element: Option<u32>,
    /// The other sources a graph flow's `device` elements name: they feed
    /// its source's graph while it is instantiated, and hold its clause in
    /// their kernel while it is active.
    devices: Vec<String>,
}

struct State {
    sources: BTreeMap<String, Source>,
    flows: BTreeMap<FlowNo, FlowEntry>,
    next_flow: FlowNo,
    next_group: u64,
    next_conn: u64,
    connections: u64,
}

/// The daemon: its sources, flows and connections.
pub struct Daemon {
    cfg: Config,
    log: Log,
    state: Mutex<State>,
    /// The policy new connections are judged by (SIGHUP reads it again).
    auth: std::sync::RwLock<Option<netsift_ffpf::auth::Policy>>,
}

fn refuse(code: ErrorCode, what: impl Into<String>) -> Refusal {
    Refusal::new(code, what)
}

fn done(flow: FlowNo, state: Option<FlowState>) -> ReplyBody {
    ReplyBody::Done { flow, state }
}

/// What a handled request answers: the reply and the descriptors that go
/// with it (`instantiate`'s four, `mbuf`'s one).
pub type Answer = (ReplyBody, Vec<OwnedFd>);

impl Daemon {
    /// A daemon over the sources of `cfg` (each checked now: an interface that
    /// does not exist, a file that does not read, is an error naming it).
    /// What it has to say goes to `log`.
    pub fn new(cfg: Config, log: Log) -> Result<Daemon, String> {
        let mut sources = BTreeMap::new();
        for spec in &cfg.sources {
            let s = Source::new(spec.clone(), cfg.snaplen)?;
            sources.insert(spec.name().to_string(), s);
        }
        Ok(Daemon {
            auth: std::sync::RwLock::new(cfg.auth.clone()),
            cfg,
            log,
            state: Mutex::new(State {
                sources,
                flows: BTreeMap::new(),
                next_flow: 1,
                next_group: 1,
                next_conn: 1,
                connections: 0,
            }),
        })
    }

    /// The configuration it runs with.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// Reads the policy file again (on SIGHUP): connections accepted from
    /// now on are judged by it; those already open, and their flows, keep
    /// the rights they were given. A file that does not read leaves the
    /// policy as it was, and the error says where. What it did, to log.
    pub fn reload_policy(&self) -> Result<String, String> {
        let Some(path) = &self.cfg.auth_file else {
            return Ok("no --policy: nothing to reload".into());
        };
        let p = netsift_ffpf::auth::Policy::load_with(path, &crate::vocabulary::Names)
            .map_err(|e| format!("--policy: {e}"))?;
        *self.auth.write().unwrap_or_else(|e| e.into_inner()) = Some(p);
        Ok(format!(
            "policy {} read again: new connections are judged by it",
            path.display()
        ))
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new connection from `peer`, unless the daemon serves its most.
    pub fn connect(&self, peer: PeerCred) -> Result<Conn, Refusal> {
        let mut st = self.state();
        if st.connections as usize >= self.cfg.max_connections {
            return Err(refuse(
                ErrorCode::Limit,
                format!("{} connections already: the daemon's most", st.connections),
            ));
        }
        st.connections += 1;
        let id = st.next_conn;
        st.next_conn += 1;
        Ok(Conn {
            id,
            peer,
            rights: rights(
                self.auth.read().unwrap_or_else(|e| e.into_inner()).as_ref(),
                &peer,
            ),
            hello: false,
        })
    }

    /// A connection ended (closed, crashed, killed): its flows are closed and
    /// their buffers freed.
    pub fn disconnect(&self, conn: Conn) {
        let mut st = self.state();
        st.connections = st.connections.saturating_sub(1);
        let mine: Vec<FlowNo> = st
            .flows
            .iter()
            .filter(|(_, f)| f.conn == conn.id)
            .map(|(n, _)| *n)
            .collect();
        for n in mine {
            self.close(&mut st, n);
        }
    }

    /// Stops every source.
    pub fn shutdown(&self) {
        let mut st = self.state();
        let flows: Vec<FlowNo> = st.flows.keys().copied().collect();
        for n in flows {
            self.close(&mut st, n);
        }
        for s in st.sources.values_mut() {
            s.stop();
        }
    }

    /// Handles one request of `conn`; a refusal changes nothing.
    pub fn handle(&self, conn: &mut Conn, req: Request) -> Result<Answer, Refusal> {
        if let Request::Hello { version } = req {
            if version != VERSION {
                return Err(refuse(
                    ErrorCode::Version,
                    format!("`hello`: version {version}; this daemon speaks {VERSION}"),
                ));
            }
            if let Err(r) = &conn.rights {
                return Err(refuse(ErrorCode::Denied, format!("`hello`: {r}")));
            }
            conn.hello = true;
            let software = format!("netsiftd {}", env!("CARGO_PKG_VERSION"));
            return Ok((ReplyBody::Hello { version, software }, Vec::new()));
        }
        if !conn.hello {
            return Err(refuse(
                ErrorCode::Version,
                format!("`{}` before `hello`: say hello first", req.verb()),
            ));
        }
        let mut st = self.state();
        let st = &mut *st;
        let reply = match req {
            Request::Hello { .. } => unreachable!("handled above"),
            Request::Sources => ReplyBody::Sources {
                sources: st
                    .sources
                    .iter()
                    .map(|(name, s)| SourceInfo {
                        name: name.clone(),
                        kind: s.kind().into(),
                        linktype: s.linktype.0,
                        snaplen: s.snaplen,
                    })
                    .collect(),
            },
            Request::Create {
                source,
                filter,
                snaplen,
                ibuf_entries,
                direction,
                graph,
                element,
                instance,
            } => {
                let ask = Ask {
                    source,
                    filter,
                    snaplen,
                    ibuf_entries,
                    direction,
                    graph,
                    element,
                    instance,
                };
                self.create(st, conn, ask)?
            }
            Request::Instantiate { flow } => return self.instantiate(st, conn, flow),
            Request::Activate { flow } => self.activate(st, conn, flow)?,
            Request::Pause { flow } => {
                let f = own(st, conn, flow)?;
                if f.state == FlowState::Active {
                    self.pause(st, flow);
                }
                done(flow, Some(st.flows[&flow].state))
            }
            Request::Close { flow } => {
                own(st, conn, flow)?;
                self.close(st, flow);
                done(flow, None)
            }
            Request::FlowStats { flow } => {
                own(st, conn, flow)?;
                ReplyBody::FlowStats(crate::stats::flow(&st.sources, flow_view(st, flow)))
            }
            Request::SetFilter { flow, filter } => self.set_filter(st, conn, flow, filter)?,
            Request::SetDirection { flow, direction } => {
                self.set_direction(st, conn, flow, direction)?
            }
            Request::DaemonStats => ReplyBody::DaemonStats(crate::stats::daemon(
                st.connections,
                st.flows.len() as u64,
                &st.sources,
            )),
            Request::Graph { source } => graph_view(st, conn, &source)?,
            Request::Mbuf { flow, element } => return mbuf(st, conn, flow, element),
        };
        Ok((reply, Vec::new()))
    }

    fn create(&self, st: &mut State, conn: &Conn, ask: Ask) -> Result<ReplyBody, Refusal> {
        let Ask {
            source,
            filter,
            snaplen,
            ibuf_entries,
            direction,
            graph,
            element,
            instance,
        } = ask;
        let s = st.sources.get(&source).ok_or_else(|| {
            let names: Vec<&str> = st.sources.keys().map(String::as_str).collect();
            refuse(
                ErrorCode::NoSuchSource,
                format!(
                    "`create`: no source {source:?} (sources: {})",
                    names.join(", ")
                ),
            )
        })?;
        let r = conn
            .rights
            .as_ref()
            .map_err(|r| refuse(ErrorCode::Denied, format!("`create`: {r}")))?;
        // An instance is read as the element it runs as in a graph flow of
        // the caller's class that uses it, whose graph this flow shares.
        let (graph, element) = match instance {
            Some(id) => {
                let (text, e) = instance_graph(st, conn, &source, id)?;
                (Some(text), Some(e))
            }
            None => (graph, element),
        };
        let held = st.flows.values().filter(|f| f.conn == conn.id).count();
        if held >= self.cfg.max_flows {
            return Err(refuse(
                ErrorCode::Limit,
                format!("`create`: this connection holds {held} flows, the most allowed"),
            ));
        }
        let entries = ibuf_entries.unwrap_or(self.cfg.ibuf_entries);
        // Asked for nothing: the most the source and the rule allow.
        let snaplen = snaplen
            .unwrap_or_else(|| s.snaplen.min(r.grant.snaplen.unwrap_or(u32::MAX)))
            .min(s.snaplen);
        let open_flows = st.flows.values().filter(|f| f.uid == conn.peer.uid).count();
        // The flow's source, and every other a graph's devices name.
        let may_open = |source: &str| {
            r.grant
                .check(&netsift_ffpf::auth::Request {
                    source,
                    snaplen,
                    buffer: entries.saturating_mul(netsift_ffpf::ibuf::IBUF_ENTRY_BYTES),
                    open_flows: u32::try_from(open_flows).unwrap_or(u32::MAX),
                })
                .map_err(|e| e.to_string())
        };
        may_open(&source).map_err(|e| refuse(ErrorCode::Denied, format!("`create`: {e}")))?;
        directed(s, "create", direction)?;
        // From here on `element` counts from the first element the daemon
        // runs: a rule's filter, if any, stands before the client's first.
        let mut element = element;
        let (filter, run, graph, devices) = match graph {
            None => {
                let run = r.grant.filter(&filter);
                compile(s, &run)?;
                (filter, run, None, Vec::new())
            }
            Some(text) => {
                let privilege = if conn.peer.uid == 0 {
                    netsift_graph::Privilege::Root
                } else {
                    netsift_graph::Privilege::User
                };
                let env = self.env(s);
                let spec = crate::graph::check::check(
                    "create",
                    &text,
                    privilege,
                    &source,
                    &|t| compile(s, t).map(|(p, _)| p).map_err(|r| r.what),
                    &env,
                )?;
                // An instance's element came from a running flow of the same
                // rule, counted as the daemon counts; the client's is checked.
                let asked = element.filter(|_| instance.is_none());
                if let Some(e) = asked.filter(|e| *e as usize >= spec.filters.len()) {
                    return Err(refuse(
                        ErrorCode::BadField,
                        format!(
                            "`create`: field `element`: {e} (0-based), but the graph has {} \
                             elements",
                            spec.filters.len()
                        ),
                    ));
                }
                let devices = devices(st, &source, &spec, &may_open)?;
                // The rule's filter goes in front of the whole graph.
                if let Some(f) = &r.grant.filter {
                    compile(s, f)?;
                    if !devices.is_empty() {
                        return Err(refuse(
                            ErrorCode::Denied,
                            format!(
                                "`create`: graph: your rule puts the filter {f:?} in front of \
                                 your graph, and a graph over several devices cannot run \
                                 behind it yet; name only {source}"
                            ),
                        ));
                    }
                }
                let mine = st.flows.values().filter(|f| f.uid == conn.peer.uid);
                let others = Usage::total(mine.filter_map(|f| f.graph.as_ref()));
                let spec = crate::graph::authorise::admit("create", spec, &r.grant, others)?;
                if instance.is_none() {
                    element = element.map(|e| e + spec.prefix as u32);
                }
                (text, String::new(), Some(spec), devices)
            }
        };
        let linktype = s.linktype.0;
        let no = st.next_flow;
        st.next_flow += 1;
        st.flows.insert(
            no,
            FlowEntry {
                conn: conn.id,
                uid: conn.peer.uid,
                source,
                filter,
                run,
                direction,
                clause: None,
                state: FlowState::Created,
                ibuf_entries: entries,
                rights: r.clone(),
                member: None,
                graph,
                graph_flow: None,
                element,
                devices,
            },
        );
        Ok(ReplyBody::Created {
            flow: no,
            linktype,
            snaplen,
        })
    }

    fn instantiate(&self, st: &mut State, conn: &Conn, flow: FlowNo) -> Result<Answer, Refusal> {
        let f = own(st, conn, flow)?;
        if f.state != FlowState::Created {
            return Err(refuse(
                ErrorCode::BadState,
                format!("`instantiate`: flow {flow} is {:?}, not created", f.state),
            ));
        }
        // The other devices feed the graph from before it exists (their
        // batches reach only active instances), so that a failure here
        // leaves nothing to undo on the flow's source.
        let (home, devices) = (f.source.clone(), f.devices.clone());
        self.feed(st, &home, &devices)?;
        let made = self.instantiate_here(st, flow);
        if made.is_err() {
            self.unfeed(st, &home, &devices);
        }
        made
    }

    /// Each of `devices` started if idle, and feeding `home`'s graph; undone
    /// whole if one cannot start.
    fn feed(&self, st: &mut State, home: &str, devices: &[String]) -> Result<(), Refusal> {
        let to = std::sync::Arc::clone(&st.sources[home].dispatch);
        for (i, dev) in devices.iter().enumerate() {
            let s = st.sources.get_mut(dev).expect("checked at create");
            if let Err(e) = s.start(&self.log) {
                if lock(&s.dispatch).idle() {
                    s.stop();
                }
                self.unfeed(st, home, &devices[..i]);
                return Err(refuse(
                    ErrorCode::Internal,
                    format!("`instantiate`: device {dev}: {e}"),
                ));
            }
            lock(&s.dispatch).add_feed(home, &to);
        }
        Ok(())
    }

    /// `devices` no longer feed `home`'s graph for one flow; each stops once
    /// it serves nothing.
    fn unfeed(&self, st: &mut State, home: &str, devices: &[String]) {
        for dev in devices {
            let Some(s) = st.sources.get_mut(dev) else {
                continue;
            };
            let mut d = lock(&s.dispatch);
            d.remove_feed(home);
            let idle = d.idle();
            drop(d);
            if idle {
                s.stop();
            }
        }
    }

    /// `instantiate` on the flow's own source: its group, buffers and graph.
    fn instantiate_here(&self, st: &mut State, flow: FlowNo) -> Result<Answer, Refusal> {
        let f = &st.flows[&flow];
        let granted = f.rights.clone();
        let (class, snaplen, entries, name) = (
            f.rights.class.clone(),
            f.rights.grant.snaplen,
            f.ibuf_entries,
            f.source.clone(),
        );
        let Some(s) = st.sources.get_mut(&name) else {
            return Err(refuse(
                ErrorCode::Internal,
                format!("source {name} is gone"),
            ));
        };
        let copy = s
            .copy_mode(&granted, self.cfg.copy)
            .map_err(|e| refuse(ErrorCode::Denied, format!("`instantiate`: {e}")))?;
        s.start(&self.log)
            .map_err(|e| refuse(ErrorCode::Internal, format!("`instantiate`: {e}")))?;
        let mut d = lock(&s.dispatch);
        let slot = match d.groups.entry(class.clone()) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(v) => {
                let g = Group::with_copy(self.cfg.policy, self.cfg.pbuf_bytes, copy);
                let mut g = match g {
                    Ok(g) => g,
                    Err(e) => {
                        let idle = d.idle();
                        drop(d);
                        if idle {
                            s.stop();
                        }
                        return Err(refuse(
                            ErrorCode::Internal,
                            format!("a flow group's PBuf: {e}"),
                        ));
                    }
                };
                g.set_stall_bound(self.cfg.stall);
                let number = st.next_group;
                st.next_group += 1;
                let mut slot = crate::dispatch::GroupSlot::new(number, g);
                slot.snaplen = snaplen;
                v.insert(slot)
            }
        };
        let added = slot.group.add_flow(entries);
        // A graph flow's instances, sharing what runs already; a failure
        // undoes the flow's buffers too.
        let spec = st.flows[&flow].graph.clone();
        let graph_flow = match (spec, &added) {
            (Some(spec), Ok((id, _))) => {
                // Placement (graph/kernel.rs): a ring source's interface, or
                // an AF_XDP source's program.
                d.graphs
                    .set_below(crate::graph::kernel::below(&s.spec, s.redirect()));
                let env = self.env(s);
                let made = d.graphs.instantiate(spec, &name, |i| {
                    let pcap = |t: &str| compile(s, t).map(|(p, _)| p).map_err(|r| r.what);
                    crate::graph::check::build(
                        i.class.name,
                        &i.args,
                        i.mbuf,
                        &i.calls,
                        &name,
                        &pcap,
                        &env,
                    )
                });
                match made {
                    Ok(g) => Some(g),
                    Err(e) => {
                        if let Some(slot) = d.groups.get_mut(&class) {
                            let _ = slot.group.remove_flow(*id);
                        }
                        if unwind(&mut d, &class) {
                            drop(d);
                            s.stop();
                        }
                        return Err(refuse(
                            ErrorCode::Filter,
                            format!("`instantiate`: graph: {e}"),
                        ));
                    }
                }
            }
            _ => None,
        };
        let (id, fds) = match added {
            Ok(x) => x,
            Err(e) => {
                if unwind(&mut d, &class) {
                    drop(d);
                    s.stop();
                }
                return Err(refuse(
                    ErrorCode::Internal,
                    format!("a flow's buffers: {e}"),
                ));
            }
        };
        let slot = d.groups.get_mut(&class).expect("made above");
        slot.members += 1;
        let group = slot.number;
        drop(d);
        let f = st.flows.get_mut(&flow).expect("owned above");
        f.member = Some(id);
        f.graph_flow = graph_flow;
        f.state = FlowState::Instantiated;
        let policy = match self.cfg.policy {
            Policy::SlowReader => "slow",
            Policy::FastReader => "fast",
        };
        Ok((
            ReplyBody::Instantiated {
                flow,
                group,
                policy: policy.into(),
            },
            vec![fds.pbuf, fds.ibuf, fds.control, fds.wake],
        ))
    }

    fn activate(&self, st: &mut State, conn: &Conn, flow: FlowNo) -> Result<ReplyBody, Refusal> {
        let f = own(st, conn, flow)?;
        match f.state {
            FlowState::Active => return Ok(done(flow, Some(FlowState::Active))),
            FlowState::Created => {
                return Err(refuse(
                    ErrorCode::BadState,
                    format!("`activate`: flow {flow} is not instantiated"),
                ))
            }
            FlowState::Instantiated | FlowState::Paused => {}
        }
        let (text, class, id, name, direction) = (
            f.run.clone(),
            f.rights.class.clone(),
            f.member.expect("instantiated"),
            f.source.clone(),
            f.direction,
        );
        let element = f.element;
        let graph = f.graph.clone().zip(f.graph_flow);
        // Its source, then the other devices its graph names.
        let kernels: Vec<String> = std::iter::once(name.clone())
            .chain(f.devices.iter().cloned())
            .collect();
        let s = st.sources.get_mut(&name).expect("a flow's source");
        let (programs, clause) = match &graph {
            None => {
                let (p, c) = compile(s, &text)?;
                (Some(p), Some(c))
            }
            // Placement first (graph/kernel.rs): what runs below needs no
            // clause under the ring.
            Some((spec, g)) => {
                let resident = self.place(s, *g, true);
                let clause = graph_clause(s, spec, &resident);
                if clause.is_err() {
                    self.place(s, *g, false);
                }
                (None, clause?)
            }
        };
        // The kernel first: from the reply on, nothing the flow wants is
        // dropped under the ring. Every device of a graph holds the one
        // clause of all its first filters (a superset of what those fed by
        // that device want); none when all it delivers and counts runs below.
        if let Some(c) = &clause {
            for (i, k) in kernels.iter().enumerate() {
                let held = st
                    .sources
                    .get_mut(k)
                    .expect("a flow's device")
                    .hold_clause(c);
                if let Err(e) = held {
                    for k in &kernels[..i] {
                        st.sources
                            .get_mut(k)
                            .expect("held")
                            .release_clause(c, &self.log);
                    }
                    if let Some((_, g)) = &graph {
                        self.place(&st.sources[&name], *g, false);
                    }
                    return Err(refuse(ErrorCode::Filter, format!("`activate`: {k}: {e}")));
                }
            }
        }
        let s = &st.sources[&name];
        match (programs, graph) {
            (Some(p), _) => lock(&s.dispatch).activate(&class, id, &text, direction, || p),
            (None, Some((_, g))) => {
                lock(&s.dispatch).activate_graph(&class, id, (g, element), direction)
            }
            (None, None) => unreachable!("a filter flow has programs"),
        }
        let f = st.flows.get_mut(&flow).expect("owned");
        f.state = FlowState::Active;
        f.clause = clause;
        Ok(done(flow, Some(FlowState::Active)))
    }

    /// Stops dispatching to an active flow, then releases its clause.
    fn pause(&self, st: &mut State, flow: FlowNo) {
        let f = st.flows.get_mut(&flow).expect("a flow");
        f.state = FlowState::Paused;
        let (clause, class, id, graph) = (
            f.clause.take(),
            f.rights.class.clone(),
            f.member.expect("active"),
            f.graph_flow,
        );
        let devices = f.devices.clone();
        let s = st.sources.get_mut(&f.source).expect("a flow's source");
        lock(&s.dispatch).deactivate(&class, id);
        if let Some(c) = &clause {
            s.release_clause(c, &self.log);
        }
        if let Some(g) = graph {
            self.place(s, g, false);
        }
        if let Some(c) = &clause {
            for d in &devices {
                if let Some(s) = st.sources.get_mut(d) {
                    s.release_clause(c, &self.log);
                }
            }
        }
    }

    /// What a graph element on source `s` is checked and built against.
    fn env(&self, s: &Source) -> crate::graph::check::Env<'_> {
        crate::graph::check::Env {
            linktype: s.linktype,
            externs: &self.cfg.externs,
        }
    }

    /// Places `s`'s running graph again with graph flow `g` active (`on`)
    /// or not (graph/kernel.rs), logging what went wrong; per element of
    /// `g`, whether it runs in the kernel only.
    fn place(&self, s: &Source, g: netsift_graph::FlowId, on: bool) -> Vec<bool> {
        let mut d = lock(&s.dispatch);
        if let Some(e) = d.graphs.place(g, on) {
            (self.log)(&format!(
                "source {}: graph elements fall back to the daemon: {e}",
                s.spec.name()
            ));
        }
        d.graphs.resident_elements(g)
    }

    /// Closes a flow in any state, freeing its buffers; its group goes with
    /// its last flow, and its source stops with its last flow.
    fn close(&self, st: &mut State, flow: FlowNo) {
        if st
            .flows
            .get(&flow)
            .is_some_and(|f| f.state == FlowState::Active)
        {
            self.pause(st, flow);
        }
        let Some(f) = st.flows.remove(&flow) else {
            return;
        };
        let Some(id) = f.member else { return };
        let Some(s) = st.sources.get_mut(&f.source) else {
            return;
        };
        let mut d = lock(&s.dispatch);
        if let Some(g) = f.graph_flow {
            d.graphs.close(g);
        }
        if let Some(g) = d.groups.get_mut(&f.rights.class) {
            let _ = g.group.remove_flow(id);
            g.members = g.members.saturating_sub(1);
            if g.members == 0 {
                d.groups.remove(&f.rights.class);
            }
        }
        let idle = d.idle();
        drop(d);
        if idle {
            s.stop();
        }
        self.unfeed(st, &f.source, &f.devices);
    }

    fn set_filter(
        &self,
        st: &mut State,
        conn: &Conn,
        flow: FlowNo,
        filter: String,
    ) -> Result<ReplyBody, Refusal> {
        let f = own(st, conn, flow)?;
        if f.graph.is_some() {
            return Err(refuse(
                ErrorCode::BadState,
                format!("`set_filter`: flow {flow} is a graph flow; its filters are its elements"),
            ));
        }
        let run = f.rights.grant.filter(&filter);
        let direction = f.direction;
        self.replace(st, flow, "set_filter", run, direction)?;
        st.flows.get_mut(&flow).expect("owned").filter = filter;
        Ok(done(flow, Some(st.flows[&flow].state)))
    }

    fn set_direction(
        &self,
        st: &mut State,
        conn: &Conn,
        flow: FlowNo,
        direction: Direction,
    ) -> Result<ReplyBody, Refusal> {
        let f = own(st, conn, flow)?;
        directed(&st.sources[&f.source], "set_direction", direction)?;
        if f.graph.is_some() {
            let (state, class, member, g) =
                (f.state, f.rights.class.clone(), f.member, f.graph_flow);
            let element = f.element;
            if let (FlowState::Active, Some(id), Some(g)) = (state, member, g) {
                let s = &st.sources[&f.source];
                let mut d = lock(&s.dispatch);
                d.deactivate(&class, id);
                d.activate_graph(&class, id, (g, element), direction);
            }
            st.flows.get_mut(&flow).expect("owned").direction = direction;
            return Ok(done(flow, Some(st.flows[&flow].state)));
        }
        let run = f.run.clone();
        self.replace(st, flow, "set_direction", run, direction)?;
        Ok(done(flow, Some(st.flows[&flow].state)))
    }

    /// Gives `flow` filter `run` and `direction` (refused by `verb` if `run`
    /// does not compile, changing nothing). An active flow switches between
    /// two batches: the kernel's program is widened first (the new clause
    /// in), the flow switched, then narrowed (the old clause out), so the
    /// kernel never drops what either wants.
    fn replace(
        &self,
        st: &mut State,
        flow: FlowNo,
        verb: &str,
        run: String,
        direction: Direction,
    ) -> Result<(), Refusal> {
        let f = &st.flows[&flow];
        let (state, class, member) = (f.state, f.rights.class.clone(), f.member);
        let s = st.sources.get_mut(&f.source).expect("a flow's source");
        let (programs, clause) = compile(s, &run)?;
        let f = st.flows.get_mut(&flow).expect("owned");
        if state == FlowState::Active {
            let id = member.expect("active");
            s.hold_clause(&clause)
                .map_err(|e| refuse(ErrorCode::Filter, format!("`{verb}`: {e}")))?;
            {
                let mut d = lock(&s.dispatch);
                d.deactivate(&class, id);
                d.activate(&class, id, &run, direction, || programs);
            }
            if let Some(old) = f.clause.replace(clause) {
                s.release_clause(&old, &self.log);
            }
        }
        f.run = run;
        f.direction = direction;
        Ok(())
    }
}

/// After a failed `instantiate`: the group of `class` goes if no flow is in
/// it; whether the source has no flow left (to stop once `d` is released).
fn unwind(d: &mut crate::dispatch::Dispatch, class: &crate::rights::Class) -> bool {
    if d.groups.get(class).is_some_and(|g| g.members == 0) {
        d.groups.remove(class);
    }
    d.idle()
}

/// The flow `flow` if `conn` owns it; a flow of another connection is
/// reported as missing, not as someone else's.
fn own<'a>(st: &'a State, conn: &Conn, flow: FlowNo) -> Result<&'a FlowEntry, Refusal> {
    st.flows
        .get(&flow)
        .filter(|f| f.conn == conn.id)
        .ok_or_else(|| {
            refuse(
                ErrorCode::NoSuchFlow,
                format!("no flow {flow} on this connection"),
            )
        })
}

/// What `create` asks for.
struct Ask {
    source: String,
    filter: String,
    snaplen: Option<u32>,
    ibuf_entries: Option<u64>,
    direction: Direction,
    graph: Option<String>,
    element: Option<u32>,
    instance: Option<u64>,
}

/// Refuses a direction on a source whose packets have none (a capture
/// file's), as libpcap refuses `pcap_setdirection` on a savefile.
fn directed(s: &Source, verb: &str, direction: Direction) -> Result<(), Refusal> {
    if direction == Direction::InOut || s.sent.is_some() {
        return Ok(());
    }
    Err(refuse(
        ErrorCode::BadField,
        format!(
            "`{verb}`: field `direction`: source {} is a capture file, whose \
             packets have no direction; only \"inout\"",
            s.spec.name()
        ),
    ))
}

/// `text` compiled for source `s`'s packets, and the clause the flow holds
/// in the kernel for it; a refusal says why.
fn compile(s: &Source, text: &str) -> Result<(Programs, String), Refusal> {
    let name = s.spec.name();
    let bad = |e: &dyn std::fmt::Display| {
        refuse(ErrorCode::Filter, format!("filter {text:?} on {name}: {e}"))
    };
    // As a live capture compiles it: once for received and once for sent
    // packets (a direction it rejects whole gets a program that accepts
    // none). Where the two differ the filter tests the direction: the daemon
    // runs each direction's program on its packets, and the kernel, whose one
    // program serves both, keeps every packet for it (the empty clause).
    // On a ring, also for frames the kernel took a VLAN tag out of, as
    // libpcap's kernel filter reads them (the kernel passes them up unsure).
    let (set, sent, tag_out) = match (s.sent, s.tag_out) {
        (None, _) => (
            netsift_pcapc::compile_for(text, s.target).map_err(|e| bad(&e))?,
            None,
            None,
        ),
        (Some(sent), None) => {
            let (set, other) =
                netsift_session::directed_sets(text, s.target, sent).map_err(|e| bad(&e))?;
            (set, Some(other), None)
        }
        (Some(sent), Some((tr, ts))) => {
            let [set, other, t_set, t_other] =
                netsift_session::compile_each(text, [s.target, sent, tr, ts])
                    .map_err(|e| bad(&e))?;
            (set, Some(other), Some((t_set, t_other)))
        }
    };
    // A program equal to the received one is not kept (the same for sent
    // packets, or for tagged ones).
    let sent = sent.filter(|o| *o != set);
    // The kernel's one program serves both directions: a filter that tests
    // the direction keeps every packet there (the empty clause).
    let clause = if sent.is_some() { "" } else { text };
    let tag_out = tag_out
        .map(|(t, o)| {
            let o = Some(o).filter(|o| *o != t);
            (t, o)
        })
        .filter(|(t, o)| *t != set || *o != sent);
    let programs = Programs {
        received: Compiled::new(set),
        sent: sent.map(Compiled::new),
        tag_out: tag_out.map(|(t, o)| {
            Box::new(Programs {
                received: Compiled::new(t),
                sent: o.map(Compiled::new),
                tag_out: None,
            })
        }),
    };
    Ok((programs, clause.to_string()))
}

fn flow_view(st: &State, flow: FlowNo) -> FlowView<'_> {
    let f = &st.flows[&flow];
    FlowView {
        no: flow,
        source: &f.source,
        filter: &f.filter,
        state: f.state,
        class: &f.rights.class,
        member: f.member,
    }
}

/// The sources other than `home` that graph `spec`'s `device` elements name,
/// each checked: it is one of the daemon's, the caller's rights open it
/// (`may_open`), and it is an interface read through a ring of `home`'s link
/// type, as `home` is (its packets go through filters compiled for `home`).
fn devices(
    st: &State,
    home: &str,
    spec: &netsift_graph::FlowSpec,
    may_open: &dyn Fn(&str) -> Result<(), String>,
) -> Result<Vec<String>, Refusal> {
    let h = &st.sources[home];
    let mut out: Vec<String> = Vec::new();
    for (i, (f, e)) in spec.filters.iter().zip(&spec.flow.elements).enumerate() {
        let Some(netsift_graph::class::Value::Text(dev)) = f.args.first() else {
            continue;
        };
        if f.class.name != "device" || dev == home || out.contains(dev) {
            continue;
        }
        let at = format!(
            "`create`: graph: element {} (device) at byte {}",
            i + 1,
            e.span.start
        );
        let d = st.sources.get(dev).ok_or_else(|| {
            let names: Vec<&str> = st.sources.keys().map(String::as_str).collect();
            refuse(
                ErrorCode::NoSuchSource,
                format!("{at}: no source {dev:?} (sources: {})", names.join(", ")),
            )
        })?;
        may_open(dev).map_err(|why| refuse(ErrorCode::Denied, format!("{at}: {why}")))?;
        let kinds = (h.kind(), d.kind());
        if kinds != ("ring", "ring") {
            return Err(refuse(
                ErrorCode::Filter,
                format!(
                    "{at}: {dev} is a {} source and {home} a {} source; several devices in \
                     one graph are interfaces read through rings (not files, not --copy zero)",
                    kinds.1, kinds.0
                ),
            ));
        }
        if d.linktype != h.linktype {
            return Err(refuse(
                ErrorCode::Filter,
                format!(
                    "{at}: {dev}'s link type {} is not {home}'s {}, for which the graph's \
                     filters are compiled",
                    d.linktype.0, h.linktype.0
                ),
            ));
        }
        out.push(dev.clone());
    }
    Ok(out)
}

/// The clause a graph flow holds in the kernel's program while active, its
/// elements marked in `resident` running in the kernel: the union of its
/// first daemon-run `pcap` elements, or every packet (the empty clause) when
/// one of them is of another class or tests the direction, or none when all
/// it delivers and counts runs below the daemon.
fn graph_clause(
    s: &Source,
    spec: &netsift_graph::FlowSpec,
    resident: &[bool],
) -> Result<Option<String>, Refusal> {
    use crate::graph::place::{kernel_clause, Clause};
    let below = |e: usize| resident.get(e).copied().unwrap_or(false);
    let texts = match kernel_clause(spec, &below) {
        Clause::Nothing => return Ok(None),
        Clause::All => return Ok(Some(String::new())),
        Clause::Any(texts) => texts,
    };
    let mut clauses = Vec::new();
    for t in &texts {
        let (_, c) = compile(s, t)?;
        if c.trim().is_empty() {
            return Ok(Some(String::new()));
        }
        clauses.push(format!("({c})"));
    }
    Ok(Some(clauses.join(" or ")))
}

/// The graph flows on `source` that `conn` may see (those of its class of
/// rights; root: all), by their flow in the running graph.
fn visible(st: &State, conn: &Conn, source: &str) -> BTreeMap<netsift_graph::FlowId, FlowNo> {
    let class = conn.rights.as_ref().ok().map(|r| &r.class);
    let sees = |f: &FlowEntry| conn.peer.uid == 0 || Some(&f.rights.class) == class;
    st.flows
        .iter()
        .filter(|(_, f)| f.source == source && sees(f))
        .filter_map(|(n, f)| f.graph_flow.map(|g| (g, *n)))
        .collect()
}

/// `create`'s `instance`: the graph text of a flow on `source` that `conn`
/// may see ([`visible`]) and that uses instance `id`, and the element that
/// runs as it. Refused `bad_field` when no instance `id` runs there,
/// `denied` when only flows of another class of rights use it.
fn instance_graph(
    st: &State,
    conn: &Conn,
    source: &str,
    id: u64,
) -> Result<(String, u32), Refusal> {
    let s = &st.sources[source];
    let d = lock(&s.dispatch);
    let running = d.graphs.running();
    let wanted = netsift_graph::InstanceId(id);
    if running.instance(wanted).is_none() {
        return Err(refuse(
            ErrorCode::BadField,
            format!("`create`: field `instance`: no instance {id} runs on {source}"),
        ));
    }
    visible(st, conn, source)
        .keys()
        .filter_map(|g| running.flow(*g))
        .find_map(|f| {
            let e = f.instances.iter().position(|i| *i == wanted)?;
            Some((f.spec.flow.text.clone(), e as u32))
        })
        .ok_or_else(|| {
            refuse(
                ErrorCode::Denied,
                format!(
                    "`create`: instance {id} on {source} serves only flows of another class \
                     of rights than yours"
                ),
            )
        })
}

/// The `graph` verb: `source`'s running graph as far as `conn` may see it:
/// the graph flows of its class of rights (root's: all), the instances they
/// use, and the same as DOT.
fn graph_view(st: &State, conn: &Conn, source: &str) -> Result<ReplyBody, Refusal> {
    let s = st.sources.get(source).ok_or_else(|| {
        refuse(
            ErrorCode::NoSuchSource,
            format!("`graph`: no source {source:?}"),
        )
    })?;
    let mine = visible(st, conn, source);
    let d = lock(&s.dispatch);
    let running = d.graphs.running();
    let mut flows = Vec::new();
    let mut users: BTreeMap<netsift_graph::InstanceId, Vec<FlowNo>> = BTreeMap::new();
    for (g, no) in &mine {
        let Some(rf) = running.flow(*g) else { continue };
        for id in &rf.instances {
            let u = users.entry(*id).or_default();
            if !u.contains(no) {
                u.push(*no);
            }
        }
        flows.push(netsift_ffpf::proto::GraphFlow {
            flow: *no,
            text: rf.spec.flow.text.clone(),
            instances: rf.instances.iter().map(|i| i.0).collect(),
        });
    }
    let instances = users
        .iter()
        .filter_map(|(id, flows)| {
            let i = running.instance(*id)?;
            let (seen, passed) = d.graphs.counts(*id);
            let (runs, why) = d.graphs.placed(*id);
            Some(netsift_ffpf::proto::GraphInstance {
                id: id.0,
                class: i.class.name.into(),
                args: i.args.iter().map(ToString::to_string).collect(),
                mbuf: i.mbuf,
                upstream: i.upstream.iter().map(|u| u.0).collect(),
                flows: flows.clone(),
                refs: i.refs as u64,
                runs: runs.into(),
                could_run: if runs != "daemon" {
                    runs
                } else {
                    crate::graph::place::could_run(running, *id)
                }
                .into(),
                why,
                seen,
                passed,
            })
        })
        .collect();
    let dot = netsift_graph::to_dot_with(running, |g| mine.get(&g).copied());
    let reply = ReplyBody::Graph {
        source: source.into(),
        flows,
        instances,
        dot,
    };
    let size = netsift_ffpf::proto::encode_reply(&netsift_ffpf::proto::Reply {
        id: Some(u64::MAX),
        body: reply.clone(),
    })
    .len();
    if size > netsift_ffpf::proto::MAX_MESSAGE {
        return Err(refuse(
            ErrorCode::Limit,
            format!(
                "`graph`: the running graph you see takes {size} bytes, more than a message \
                 holds ({})",
                netsift_ffpf::proto::MAX_MESSAGE
            ),
        ));
    }
    Ok(reply)
}

/// The `mbuf` verb: a read-only descriptor of the MBuf of element `element`
/// of `conn`'s graph flow `flow`.
fn mbuf(st: &State, conn: &Conn, flow: FlowNo, element: u32) -> Result<Answer, Refusal> {
    let f = own(st, conn, flow)?;
    let Some(g) = f.graph_flow else {
        let why = if f.graph.is_some() {
            "is not instantiated"
        } else {
            "is not a graph flow"
        };
        return Err(refuse(
            ErrorCode::BadState,
            format!("`mbuf`: flow {flow} {why}"),
        ));
    };
    let s = &st.sources[&f.source];
    let d = lock(&s.dispatch);
    // The client numbers its elements; the rule's filter stands before them.
    let prefix = f.graph.as_ref().map_or(0, |g| g.prefix);
    let (instance, size, fd) = d
        .graphs
        .mbuf(g, element as usize + prefix)
        .map_err(|e| refuse(ErrorCode::BadField, format!("`mbuf`: field `element`: {e}")))?;
    Ok((
        ReplyBody::Mbuf {
            flow,
            element,
            instance: instance.0,
            size,
        },
        vec![fd],
    ))
}
