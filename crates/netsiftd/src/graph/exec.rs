//! A source's running filter graph and how a batch goes through it.
//!
//! [`Graphs`] holds `netsift_graph`'s [`Running`] (prefix merging and
//! reference counts, shared by every client of the source) and, per instance,
//! what it runs ([`Kind`]) with its state: a private copy of its MBuf that the
//! capture thread alone writes, published after each batch the instance ran
//! in to a memfd sealed so that clients map it read-only (whole 64-bit words,
//! relaxed: a reader sees each word of some batch's end, and a counter of 8
//! bytes whole), and its registers (FPL's `R[]`, kept from packet to packet,
//! as an instance's are).
//!
//! **A batch.** Instances run in id order, which is a topological order (an
//! instance is newer than its upstream). An instance runs when at least one
//! active flow uses it (every flow using it uses its upstream too, so its
//! upstream runs as well), on exactly the packets that reach it: all of them
//! for one with no upstream, else those some upstream instance passed. So each
//! instance runs once per packet that reaches it, however many flows share it.
//! A flow accepts a packet when one of its last elements (those nothing in the
//! flow feeds) passed it, or the element it reads passed it.
//!
//! **Several devices.** The graph is its home source's (the source its flows
//! were created on); a batch comes from the home source or from another
//! source a `device` element names, which hands its batches to the home's
//! dispatch too (`dispatch.rs`, feeds). An instance with no upstream takes a
//! batch whole when it is from its device (a `device` element naming the
//! home, or any other first element, reads the home source), and none of it
//! otherwise; the rest follows from the upstream instances.

use super::check::Kind;
use crate::programs::Packet;
use crate::programs::Programs;
use netsift_engine::{BatchScratch, LANES};
use netsift_ffpf::shm::{Memfd, RwMapping};
use netsift_graph::{FlowId, FlowSpec, Instance, InstanceId, Running};
use std::collections::BTreeMap;
use std::os::fd::OwnedFd;
use std::sync::Arc;

/// An instance's MBuf as clients see it.
struct Shared {
    memfd: Memfd,
    /// Shared with the mirror thread while the kernel runs the instance.
    map: Arc<RwMapping>,
}

/// The batches an instance with no upstream takes.
#[derive(Debug, PartialEq, Eq)]
enum Feed {
    /// The home source's (and it has an upstream: none of its own).
    Home,
    /// Those of another source, which a `device` element names.
    Device(String),
}

/// A running instance.
struct Node {
    kind: Kind,
    upstream: Vec<InstanceId>,
    feed: Feed,
    /// The MBuf as the instance keeps it (its length is the element's size).
    mem: Vec<u8>,
    shared: Option<Shared>,
    /// Active flows using it.
    active: usize,
    /// This batch, per chunk of [`LANES`] packets: which it passed.
    pass: Vec<u32>,
    /// Packets that reached it, and that it passed, while active.
    seen: u64,
    passed: u64,
    /// A sampler's packets since the last one it passed (mirrored in MBuf).
    count: u32,
    /// Placement (graph/kernel.rs): the kernel runs it, the daemon does not.
    resident: bool,
}

/// A source's running graph.
pub(crate) struct Graphs {
    running: Running,
    nodes: BTreeMap<InstanceId, Node>,
    /// Scratch, per chunk of [`LANES`] packets: which reach the instance
    /// being run.
    reach: Vec<u32>,
    /// Active graph flows.
    active_flows: usize,
    /// Scratch: the active instances of a batch, in id order.
    order: Vec<InstanceId>,
    /// MBuf bytes of all instances.
    mbuf_bytes: u64,
    /// Placement: what runs below the daemon (graph/kernel.rs).
    kernel: super::kernel::Kernel,
}

/// The most MBuf bytes a source's instances may hold together: each element
/// may ask for up to 1 MiB, so without a bound a few flows could make the
/// daemon hold gigabytes.
pub(crate) const MAX_MBUF_BYTES: u64 = 64 << 20;

impl Graphs {
    pub(crate) fn new() -> Graphs {
        Graphs {
            running: Running::new(netsift_graph::Limits::default()),
            nodes: BTreeMap::new(),
            reach: Vec::new(),
            active_flows: 0,
            order: Vec::new(),
            mbuf_bytes: 0,
            kernel: super::kernel::Kernel::new(),
        }
    }

    /// The running graph (instances, flows, reference counts).
    pub(crate) fn running(&self) -> &Running {
        &self.running
    }

    /// Packets that reached instance `id`, and that it passed.
    pub(crate) fn counts(&self, id: InstanceId) -> (u64, u64) {
        self.nodes.get(&id).map_or((0, 0), |n| (n.seen, n.passed))
    }

    /// Whether any graph flow is active.
    pub(crate) fn any_active(&self) -> bool {
        self.active_flows > 0
    }

    /// Instantiates `spec` on home source `home`, reusing every instance it
    /// shares with the running flows and making the others with `build` (and
    /// an MBuf each that asks for one). A failure undoes it whole.
    pub(crate) fn instantiate(
        &mut self,
        spec: FlowSpec,
        home: &str,
        build: impl Fn(&Instance) -> Result<Kind, String>,
    ) -> Result<FlowId, String> {
        let flow = self.running.instantiate(spec).map_err(|e| e.to_string())?;
        let ids = self.running.flow(flow).map(|f| f.instances.clone());
        let mut made = Vec::new();
        let mut result = Ok(());
        let mut bytes = self.mbuf_bytes;
        for id in ids.unwrap_or_default() {
            if self.nodes.contains_key(&id) || made.contains(&id) {
                continue;
            }
            let Some(i) = self.running.instance(id) else {
                continue;
            };
            bytes += u64::from(i.mbuf);
            if bytes > MAX_MBUF_BYTES {
                result = Err(format!(
                    "instance {id} ({}): its MBuf of {} bytes would bring this source's \
                     instances past {MAX_MBUF_BYTES} bytes of MBuf",
                    i.class.name, i.mbuf
                ));
                break;
            }
            match node(i, home, &build) {
                Ok(n) => {
                    self.kernel.adopt(i, &n.kind);
                    self.nodes.insert(id, n);
                    made.push(id);
                }
                Err(e) => {
                    result = Err(format!("instance {id} ({}): {e}", i.class.name));
                    break;
                }
            }
        }
        if let Err(e) = result {
            for id in made {
                self.nodes.remove(&id);
                self.kernel.forget(id);
            }
            self.running.close(flow);
            return Err(e);
        }
        self.mbuf_bytes = bytes;
        Ok(flow)
    }

    /// Closes `flow`: the instances no other flow uses go, with their MBufs.
    pub(crate) fn close(&mut self, flow: FlowId) {
        self.kernel.set_active(flow, false);
        for id in self.running.close(flow).unwrap_or_default() {
            self.kernel.forget(id);
            if let Some(n) = self.nodes.remove(&id) {
                self.mbuf_bytes -= n.mem.len() as u64;
            }
        }
    }

    fn distinct(&self, flow: FlowId) -> Vec<InstanceId> {
        let mut ids = self
            .running
            .flow(flow)
            .map(|f| f.instances.clone())
            .unwrap_or_default();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// `flow` is active: its instances run from the next batch on.
    pub(crate) fn activate(&mut self, flow: FlowId) {
        for id in self.distinct(flow) {
            if let Some(n) = self.nodes.get_mut(&id) {
                n.active += 1;
            }
        }
        self.active_flows += 1;
    }

    /// `flow` is no longer active: its instances no other active flow uses
    /// stop running (and keep their MBuf).
    pub(crate) fn deactivate(&mut self, flow: FlowId) {
        for id in self.distinct(flow) {
            if let Some(n) = self.nodes.get_mut(&id) {
                n.active = n.active.saturating_sub(1);
            }
        }
        self.active_flows = self.active_flows.saturating_sub(1);
    }

    /// The instances whose output `flow` delivers, each with the element
    /// (0-based, in written order) it runs as: `element`'s alone if given,
    /// else its last elements' (those nothing in it feeds), an instance two
    /// elements share under the first. That element is the class its IBuf
    /// entries carry.
    pub(crate) fn sinks(&self, flow: FlowId, element: Option<usize>) -> Vec<(u32, InstanceId)> {
        let Some(f) = self.running.flow(flow) else {
            return Vec::new();
        };
        let is_sink = |e: usize| match element {
            Some(x) => e == x,
            None => !f.spec.flow.edges.iter().any(|&(from, _)| from == e),
        };
        let mut sinks: Vec<(u32, InstanceId)> = Vec::new();
        for (e, id) in f.instances.iter().enumerate() {
            if is_sink(e) && !sinks.iter().any(|(_, i)| i == id) {
                // Numbered as the client wrote it: a rule's filter in front
                // of the graph is not the client's element.
                sinks.push((e.saturating_sub(f.spec.prefix) as u32, *id));
            }
        }
        sinks
    }

    /// Per chunk of [`LANES`] packets of the last batch: those instance `id`
    /// passed (empty if it did not run).
    pub(crate) fn passed(&self, id: InstanceId) -> &[u32] {
        self.nodes.get(&id).map_or(&[], |n| &n.pass)
    }

    /// A descriptor of the MBuf of element `element` of `flow`: its instance,
    /// its size and the descriptor; or why there is none.
    pub(crate) fn mbuf(
        &self,
        flow: FlowId,
        element: usize,
    ) -> Result<(InstanceId, u32, OwnedFd), String> {
        let f = self.running.flow(flow).ok_or("the flow's graph is gone")?;
        let id = *f.instances.get(element).ok_or_else(|| {
            format!(
                "element {element} (0-based): the graph has {} elements",
                f.instances.len()
            )
        })?;
        let n = self.nodes.get(&id).ok_or("the instance is gone")?;
        let class = f.spec.filters[element].class.name;
        let shared = n.shared.as_ref().ok_or_else(|| {
            format!("element {element} ({class}): instance {id} has no MBuf (its size is 0)")
        })?;
        let fd = shared.memfd.dup().map_err(|e| e.to_string())?;
        Ok((id, n.mem.len() as u32, fd))
    }

    /// Runs the active instances over `pkts`, a batch of the home source
    /// (`from` is `None`) or of the source `from` names (`flags`: per chunk
    /// of [`LANES`], the packets the host sent and those the kernel took a
    /// VLAN tag out of, [`Packet::tag_out`]); the instances that ran publish
    /// their MBuf. How many instances ran.
    pub(crate) fn run(
        &mut self,
        (pkts, from): (&[Packet<'_>], Option<&str>),
        flags: (&[u32], &[u32]),
        scratch: &mut BatchScratch,
    ) -> u64 {
        let mut ran = 0;
        // Kept from batch to batch: no allocation once warm.
        let mut ids = std::mem::take(&mut self.order);
        ids.clear();
        ids.extend(
            self.nodes
                .iter()
                .filter(|(_, n)| n.active > 0 && !n.resident)
                .map(|(id, _)| *id),
        );
        for &id in &ids {
            self.reach.clear();
            let n = &self.nodes[&id];
            let mine = match (&n.feed, from) {
                (Feed::Home, None) => true,
                (Feed::Device(d), Some(f)) => d == f,
                _ => false,
            };
            if n.upstream.is_empty() {
                self.reach.extend(pkts.chunks(LANES).map(|c| {
                    if mine {
                        u32::MAX >> (LANES - c.len())
                    } else {
                        0
                    }
                }));
            } else {
                self.reach.resize(pkts.len().div_ceil(LANES), 0);
                for u in &n.upstream {
                    let Some(up) = self.nodes.get(u).filter(|u| u.active > 0) else {
                        continue;
                    };
                    for (r, p) in self.reach.iter_mut().zip(&up.pass) {
                        *r |= *p;
                    }
                }
                // A device behind something (a rule's filter in front of
                // the graph) still passes only its own interface's packets.
                if matches!(n.kind, Kind::Source) && !mine {
                    self.reach.fill(0);
                }
            }
            let Some(n) = self.nodes.get_mut(&id) else {
                continue;
            };
            n.pass.clear();
            n.pass.resize(self.reach.len(), 0);
            let reached = ones(&self.reach);
            if reached == 0 {
                continue;
            }
            n.run(pkts, &self.reach, flags, scratch);
            n.seen += reached;
            n.passed += ones(&n.pass);
            if let Some(s) = &n.shared {
                s.map.store_words(0, &n.mem);
            }
            ran += 1;
        }
        self.order = ids;
        ran
    }

    /// Places the running graph again with `flow` active (`on`) or not
    /// (graph/kernel.rs): what the daemon runs carries its MBuf and
    /// registers into its regions, the kernel's program is made and swapped
    /// in, then the daemon stops running what went below and runs again
    /// what came back (its MBuf and registers carried out and published).
    /// What went wrong, to log.
    pub(crate) fn place(&mut self, flow: FlowId, on: bool) -> Option<String> {
        self.kernel.set_active(flow, on);
        for (id, n) in &mut self.nodes {
            if let (false, Some(r)) = (n.resident, self.kernel.regions(*id)) {
                match &mut n.kind {
                    // The kernel counts on from the daemon's count.
                    Kind::Sampler(_) => r.store(&u64::from(n.count).to_ne_bytes()),
                    Kind::Fpl(_, regs) => {
                        r.store(&n.mem);
                        r.carry_registers(regs, true);
                    }
                    _ => r.store(&n.mem),
                }
            }
        }
        let nodes = &self.nodes;
        let (resident, trouble) = self
            .kernel
            .update(&self.running, &|id| nodes.get(&id).map(|n| &n.kind));
        let mut mirrored = Vec::new();
        for (id, n) in &mut self.nodes {
            let below = resident.contains(id);
            if let (true, Some(s)) = (below, &n.shared) {
                mirrored.push((*id, Arc::clone(&s.map)));
            }
            if below == n.resident {
                continue;
            }
            if let (false, Some(r)) = (below, self.kernel.regions(*id)) {
                match &mut n.kind {
                    Kind::Sampler(_) => {
                        n.count = r.since();
                        if let Some(w) = n.mem.get_mut(..4) {
                            w.copy_from_slice(&n.count.to_ne_bytes());
                        }
                    }
                    Kind::Fpl(_, regs) => {
                        r.load(&mut n.mem);
                        r.carry_registers(regs, false);
                    }
                    _ => r.load(&mut n.mem),
                }
                if let Some(s) = &n.shared {
                    s.map.store_words(0, &n.mem);
                }
            }
            n.resident = below;
            n.pass.clear();
        }
        self.kernel.mirror(mirrored);
        trouble
    }

    /// The level below the daemon of the source, for instances made from
    /// now on (`graph::kernel::below`).
    pub(crate) fn set_below(&mut self, below: Result<super::kernel::Below, String>) {
        self.kernel.set_below(below);
    }

    /// Per element of `flow`: whether its instance runs in the kernel only.
    pub(crate) fn resident_elements(&self, flow: FlowId) -> Vec<bool> {
        let ids = self.running.flow(flow).map(|f| f.instances.clone());
        ids.unwrap_or_default()
            .iter()
            .map(|id| self.nodes.get(id).is_some_and(|n| n.resident))
            .collect()
    }

    /// Where instance `id` runs (`kernel` or `daemon`), and why.
    pub(crate) fn placed(&self, id: InstanceId) -> (&'static str, String) {
        self.kernel
            .placed(id)
            .map_or(("daemon", String::new()), |p| (p.runs, p.why.clone()))
    }
}

/// A node for instance `i` of home source `home`'s graph, with a sealed MBuf
/// if it asks for one.
fn node(
    i: &Instance,
    home: &str,
    build: &impl Fn(&Instance) -> Result<Kind, String>,
) -> Result<Node, String> {
    let kind = build(i)?;
    let feed = match i.args.first() {
        Some(netsift_graph::class::Value::Text(d)) if i.class.name == "device" && d != home => {
            Feed::Device(d.clone())
        }
        _ => Feed::Home,
    };
    let len = i.mbuf as usize;
    let shared = if len > 0 {
        // Whole words: published a word at a time.
        let memfd =
            Memfd::create(c"netsift-mbuf", len.div_ceil(8) * 8).map_err(|e| e.to_string())?;
        let map = Arc::new(memfd.map_rw().map_err(|e| e.to_string())?);
        memfd.seal_readers().map_err(|e| e.to_string())?;
        Some(Shared { memfd, map })
    } else {
        None
    };
    Ok(Node {
        kind,
        upstream: i.upstream.clone(),
        feed,
        mem: vec![0; len],
        shared,
        active: 0,
        pass: Vec::new(),
        seen: 0,
        passed: 0,
        count: 0,
        resident: false,
    })
}

/// How many packets `masks` (per chunk of [`LANES`]) marks.
fn ones(masks: &[u32]) -> u64 {
    masks.iter().map(|m| u64::from(m.count_ones())).sum()
}

/// The packets `masks` (per chunk of [`LANES`]) marks, in order.
fn lanes(masks: &[u32]) -> impl Iterator<Item = usize> + '_ {
    masks.iter().enumerate().flat_map(|(c, &m)| {
        let mut m = m;
        std::iter::from_fn(move || {
            let b = m.trailing_zeros();
            (m != 0).then(|| {
                m &= m - 1;
                c * LANES + b as usize
            })
        })
    })
}

/// Adds `v` to the native-endian `u64` at the start of `mem`, if it has room.
fn add_u64(mem: &mut [u8], v: u64) {
    if let Some(w) = mem.get_mut(..8) {
        let old = u64::from_ne_bytes(w.try_into().unwrap_or([0; 8]));
        w.copy_from_slice(&old.wrapping_add(v).to_ne_bytes());
    }
}

impl Node {
    /// Runs this instance on the packets `reach` marks, into `pass`.
    fn run(
        &mut self,
        pkts: &[Packet<'_>],
        reach: &[u32],
        flags: (&[u32], &[u32]),
        scratch: &mut BatchScratch,
    ) {
        let Node {
            kind,
            mem,
            pass,
            count,
            ..
        } = self;
        let reached = lanes(reach).map(|i| (i, &pkts[i]));
        let mut set = |i: usize, yes: bool| pass[i / LANES] |= u32::from(yes) << (i % LANES);
        match kind {
            Kind::Source => pass.copy_from_slice(reach),
            Kind::Pcap(programs) => run_pcap(programs, pkts, reach, flags, scratch, pass),
            Kind::Bpf(prog) => {
                for (i, p) in reached {
                    set(i, super::bpf::run(prog, p.data, p.wirelen) != 0);
                }
            }
            Kind::Fpl(prog, regs) => {
                for (i, p) in reached {
                    set(i, prog.run(p.data, mem, regs).accepts());
                }
            }
            Kind::Sampler(rate) => {
                // The packets since the last one passed, shown in MBuf (4
                // bytes, native-endian) where the element has room.
                for (i, _) in reached {
                    *count += 1;
                    if *count >= *rate {
                        *count = 0;
                        set(i, true);
                    }
                }
                if let Some(w) = mem.get_mut(..4) {
                    w.copy_from_slice(&count.to_ne_bytes());
                }
            }
            Kind::PacketCount => add_u64(mem, reached.count() as u64),
            Kind::ByteCount => add_u64(mem, reached.map(|(_, p)| u64::from(p.wirelen)).sum()),
            Kind::Follow(f) => {
                for (i, p) in reached {
                    set(i, f.judge(p));
                }
            }
            Kind::External(e) => {
                for (i, p) in reached {
                    set(i, e.judge(p.data, mem));
                }
                e.publish(mem);
            }
            Kind::Native(n) => {
                for (i, p) in reached {
                    set(i, n.judge(p.data, p.wirelen, mem));
                }
            }
        }
    }
}

/// A pcap instance over the chunks holding packets that reach it; a packet
/// passes when it reaches it and the filter accepts it.
fn run_pcap(
    programs: &Programs,
    pkts: &[Packet<'_>],
    reach: &[u32],
    (sent, tagged): (&[u32], &[u32]),
    scratch: &mut BatchScratch,
    pass: &mut [u32],
) {
    let mut data: [&[u8]; LANES] = [&[]; LANES];
    let mut wire = [0u32; LANES];
    for (c, chunk) in pkts.chunks(LANES).enumerate() {
        if reach[c] == 0 {
            continue;
        }
        for (i, p) in chunk.iter().enumerate() {
            data[i] = p.data;
            wire[i] = p.wirelen;
        }
        let n = chunk.len();
        let out = sent.get(c).copied().unwrap_or(0);
        // A frame the kernel took a VLAN tag out of is read as libpcap's
        // kernel filter reads it, where the source has such frames.
        let tag = tagged.get(c).copied().unwrap_or(0);
        pass[c] = reach[c] & programs.run_chunk(scratch, (&data[..n], &wire[..n]), (out, tag));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::check::{build, Env};
    use netsift_graph::{Limits, Privilege};
    use netsift_wire::LinkType;

    fn spec(text: &str) -> FlowSpec {
        FlowSpec::parse(text, Privilege::User, &Limits::default()).unwrap()
    }

    fn instantiate(g: &mut Graphs, text: &str) -> Result<FlowId, String> {
        instantiate_spec(g, spec(text))
    }

    fn instantiate_spec(g: &mut Graphs, spec: FlowSpec) -> Result<FlowId, String> {
        g.instantiate(spec, "src", |i| {
            let pcap = |t: &str| {
                let set = netsift_pcapc::compile(t, LinkType::EN10MB).map_err(|e| e.to_string())?;
                Ok(Programs {
                    received: netsift_engine::Compiled::new(set),
                    sent: None,
                    tag_out: None,
                })
            };
            let env = Env {
                linktype: LinkType::EN10MB,
                externs: &netsift_externs::Library::new(),
            };
            build(i.class.name, &i.args, i.mbuf, &i.calls, "src", &pcap, &env)
        })
    }

    /// UDP (even `seq`) and TCP (odd) IPv4 frames.
    fn frames() -> Vec<Vec<u8>> {
        (0..40u8)
            .map(|i| {
                let mut f = vec![0u8; 60];
                f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
                f[14] = 0x45;
                f[23] = if i % 2 == 0 { 17 } else { 6 };
                f[59] = i;
                f
            })
            .collect()
    }

    fn packets(frames: &[Vec<u8>]) -> Vec<Packet<'_>> {
        frames
            .iter()
            .map(|f| Packet {
                data: f,
                wirelen: 100,
                ts_ns: 0,
                outgoing: false,
                tag_out: false,
            })
            .collect()
    }

    #[test]
    fn a_shared_prefix_runs_once_per_packet_and_counts_land_in_mbuf() {
        let mut g = Graphs::new();
        let a = instantiate(&mut g, "(pcap,udp) -> (sampler,4,4)").unwrap();
        let b = instantiate(&mut g, "(pcap,udp) -> (bytecount,,8)").unwrap();
        assert_eq!(g.running().instance_count(), 3);
        g.activate(a);
        g.activate(b);
        let frames = frames();
        let pkts = packets(&frames);
        let mut scratch = BatchScratch::new();
        assert_eq!(g.run((&pkts, None), (&[0, 0], &[0, 0]), &mut scratch), 3);
        let udp = g.running().flow(a).unwrap().instances[0];
        assert_eq!(g.counts(udp), (40, 20));
        // Every fourth udp packet: seq 6, 14, 22, 30, 38.
        let [(1, sampler)] = g.sinks(a, None)[..] else {
            panic!("{:?}", g.sinks(a, None))
        };
        let picked: Vec<usize> = lanes(g.passed(sampler)).collect();
        assert_eq!(picked, [6, 14, 22, 30, 38]);
        let [(1, count)] = g.sinks(b, None)[..] else {
            panic!("{:?}", g.sinks(b, None))
        };
        assert_eq!(g.passed(count), [0, 0]);
        // Element 0 of either flow is the shared udp filter.
        assert_eq!(g.sinks(b, Some(0)), [(0, udp)]);
        assert_eq!(lanes(g.passed(udp)).count(), 20);
        let (_, size, fd) = g.mbuf(b, 1).unwrap();
        let map = netsift_ffpf::shm::RoMapping::new(std::os::fd::AsFd::as_fd(&fd), 8).unwrap();
        assert_eq!((size, map.load_u64(0)), (8, 20 * 100));
        // Paused, b's counter stops; its instance stays until it closes.
        g.deactivate(b);
        g.run((&pkts, None), (&[0, 0], &[0, 0]), &mut scratch);
        assert_eq!(map.load_u64(0), 2000);
        g.close(b);
        assert_eq!(g.running().instance_count(), 2);
        g.close(a);
        assert!(g.running().is_empty() && g.nodes.is_empty() && g.mbuf_bytes == 0);
    }

    #[test]
    fn an_fpl_element_calls_a_standard_external_function() {
        // `checksums_ok` of every packet, counted in MBuf by its answer: the
        // externs registry and the JIT in the daemon's fpl class. The test
        // frames carry no valid IPv4 checksum, so every answer is 0.
        let mut g = Graphs::new();
        let text = "(fpl,\"R[0] = EXTERN(checksums_ok, 0, 0); MEM[R[0]]++; RETURN 1;\",16)";
        let a = instantiate(&mut g, text).unwrap();
        g.activate(a);
        let frames = frames();
        let pkts = packets(&frames);
        g.run((&pkts, None), (&[0, 0], &[0, 0]), &mut BatchScratch::new());
        let (_, size, fd) = g.mbuf(a, 0).unwrap();
        let map = netsift_ffpf::shm::RoMapping::new(std::os::fd::AsFd::as_fd(&fd), 16).unwrap();
        assert_eq!((size, map.load_u64(0), map.load_u64(8)), (16, 40, 0));
        // An unknown function is refused when the graph is built.
        let e = instantiate(&mut g, "(fpl,\"R[0] = EXTERN(no_such_fn, 0, 0);\")").unwrap_err();
        assert!(e.contains("no_such_fn"), "{e}");
    }

    /// Two devices feed one graph: each device instance takes its own
    /// source's batches, what they feed takes both, and a first filter
    /// without a device reads the home source only.
    #[test]
    fn each_device_takes_its_own_sources_batches() {
        let mut g = Graphs::new();
        let both = instantiate(
            &mut g,
            "(device,src) | (device,other) -> (pcap,udp) -> (packetcount)",
        )
        .unwrap();
        let home = instantiate(&mut g, "(pcap,udp) -> (packetcount)").unwrap();
        g.activate(both);
        g.activate(home);
        let frames = frames();
        let pkts = packets(&frames);
        let mut scratch = BatchScratch::new();
        g.run((&pkts, None), (&[0, 0], &[0, 0]), &mut scratch);
        g.run((&pkts, Some("other")), (&[0, 0], &[0, 0]), &mut scratch);
        g.run((&pkts, Some("third")), (&[0, 0], &[0, 0]), &mut scratch);
        let ids = &g.running().flow(both).unwrap().instances;
        let (src, other, udp) = (ids[0], ids[1], ids[2]);
        assert_eq!((g.counts(src), g.counts(other)), ((40, 40), (40, 40)));
        assert_eq!(g.counts(udp), (80, 40));
        let count = |f: FlowId, e: usize| {
            let (_, _, fd) = g.mbuf(f, e).unwrap();
            let map = netsift_ffpf::shm::RoMapping::new(std::os::fd::AsFd::as_fd(&fd), 8).unwrap();
            map.load_u64(0)
        };
        assert_eq!((count(both, 3), count(home, 1)), (40, 20));
    }

    /// Behind a rule's filter (which reads the home source), a device
    /// naming another source passes none of the home packets the filter
    /// passes it, while the home device passes them on. The daemon refuses
    /// such a graph today (`flows.rs`), so only this test reaches the case.
    #[test]
    fn a_device_behind_a_filter_passes_only_its_own_sources_packets() {
        let mut g = Graphs::new();
        let guarded = spec("(device,src) | (device,other) -> (packetcount,,8)").behind("udp");
        let f = instantiate_spec(&mut g, guarded).unwrap();
        g.activate(f);
        let frames = frames();
        let pkts = packets(&frames);
        let mut scratch = BatchScratch::new();
        g.run((&pkts, None), (&[0, 0], &[0, 0]), &mut scratch);
        g.run((&pkts, Some("other")), (&[0, 0], &[0, 0]), &mut scratch);
        let ids = &g.running().flow(f).unwrap().instances;
        let (guard, src, other) = (ids[0], ids[1], ids[2]);
        assert_eq!(g.counts(guard), (40, 20));
        // The other device is not reached at all: not counted as seen.
        assert_eq!((g.counts(src), g.counts(other)), ((20, 20), (0, 0)));
        let (_, _, fd) = g.mbuf(f, 3).unwrap();
        let map = netsift_ffpf::shm::RoMapping::new(std::os::fd::AsFd::as_fd(&fd), 8).unwrap();
        assert_eq!(map.load_u64(0), 20, "the home source's udp packets only");
    }

    #[test]
    fn mbuf_bytes_are_bounded_per_source() {
        let mut g = Graphs::new();
        let per = 1 << 20;
        for n in 0..MAX_MBUF_BYTES / per {
            instantiate(&mut g, &format!("(fpl,\"RETURN {n};\",{per})")).unwrap();
        }
        let e = instantiate(&mut g, &format!("(fpl,\"RETURN 99;\",{per})")).unwrap_err();
        assert!(e.contains("past 67108864 bytes of MBuf"), "{e}");
        assert_eq!(g.running().flows().count() as u64, MAX_MBUF_BYTES / per);
    }
}
