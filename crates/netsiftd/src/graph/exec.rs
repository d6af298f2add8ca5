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
//! flow feeds) passed it.

use super::check::Kind;
use crate::programs::Packet;
use crate::programs::Programs;
use netsift_engine::{BatchScratch, LANES};
use netsift_ffpf::shm::{Memfd, RwMapping};
use netsift_graph::{FlowId, FlowSpec, Instance, InstanceId, Running};
use std::collections::BTreeMap;
use std::os::fd::OwnedFd;

/// An instance's MBuf as clients see it.
struct Shared {
    memfd: Memfd,
    map: RwMapping,
}

/// A running instance.
struct Node {
    kind: Kind,
    upstream: Vec<InstanceId>,
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

    /// Instantiates `spec`, reusing every instance it shares with the running
    /// flows and making the others with `build` (and an MBuf each that asks
    /// for one). A failure undoes it whole.
    pub(crate) fn instantiate(
        &mut self,
        spec: FlowSpec,
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
            match node(i, &build) {
                Ok(n) => {
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
            }
            self.running.close(flow);
            return Err(e);
        }
        self.mbuf_bytes = bytes;
        Ok(flow)
    }

    /// Closes `flow`: the instances no other flow uses go, with their MBufs.
    pub(crate) fn close(&mut self, flow: FlowId) {
        for id in self.running.close(flow).unwrap_or_default() {
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

    /// The instances of `flow`'s last elements (those nothing in it feeds).
    pub(crate) fn sinks(&self, flow: FlowId) -> Vec<InstanceId> {
        let Some(f) = self.running.flow(flow) else {
            return Vec::new();
        };
        let mut sinks: Vec<InstanceId> = (0..f.instances.len())
            .filter(|&e| !f.spec.flow.edges.iter().any(|&(from, _)| from == e))
            .map(|e| f.instances[e])
            .collect();
        sinks.sort_unstable();
        sinks.dedup();
        sinks
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

    /// Runs the active instances over `pkts` (`sent`: per chunk of
    /// [`LANES`], the packets the host sent); the instances that ran publish
    /// their MBuf. How many instances ran.
    pub(crate) fn run(
        &mut self,
        pkts: &[Packet<'_>],
        sent: &[u32],
        scratch: &mut BatchScratch,
    ) -> u64 {
        let mut ran = 0;
        // Kept from batch to batch: no allocation once warm.
        let mut ids = std::mem::take(&mut self.order);
        ids.clear();
        ids.extend(
            self.nodes
                .iter()
                .filter(|(_, n)| n.active > 0)
                .map(|(id, _)| *id),
        );
        for &id in &ids {
            self.reach.clear();
            let n = &self.nodes[&id];
            if n.upstream.is_empty() {
                self.reach
                    .extend(pkts.chunks(LANES).map(|c| u32::MAX >> (LANES - c.len())));
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
            n.run(pkts, &self.reach, sent, scratch);
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

    /// Into `out`, per chunk of [`LANES`] packets of the last batch: those
    /// one of `sinks` passed.
    pub(crate) fn accepted(&self, sinks: &[InstanceId], chunks: usize, out: &mut Vec<u32>) {
        out.clear();
        out.resize(chunks, 0);
        for n in sinks.iter().filter_map(|s| self.nodes.get(s)) {
            for (o, p) in out.iter_mut().zip(&n.pass) {
                *o |= *p;
            }
        }
    }
}

/// A node for instance `i`, with a sealed MBuf if it asks for one.
fn node(i: &Instance, build: &impl Fn(&Instance) -> Result<Kind, String>) -> Result<Node, String> {
    let kind = build(i)?;
    let len = i.mbuf as usize;
    let shared = if len > 0 {
        // Whole words: published a word at a time.
        let memfd =
            Memfd::create(c"netsift-mbuf", len.div_ceil(8) * 8).map_err(|e| e.to_string())?;
        let map = memfd.map_rw().map_err(|e| e.to_string())?;
        memfd.seal_readers().map_err(|e| e.to_string())?;
        Some(Shared { memfd, map })
    } else {
        None
    };
    Ok(Node {
        kind,
        upstream: i.upstream.clone(),
        mem: vec![0; len],
        shared,
        active: 0,
        pass: Vec::new(),
        seen: 0,
        passed: 0,
        count: 0,
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
        sent: &[u32],
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
            Kind::Pcap(programs) => run_pcap(programs, pkts, reach, sent, scratch, pass),
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
        }
    }
}

/// A pcap instance over the chunks holding packets that reach it; a packet
/// passes when it reaches it and the filter accepts it.
fn run_pcap(
    programs: &Programs,
    pkts: &[Packet<'_>],
    reach: &[u32],
    sent: &[u32],
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
        pass[c] = reach[c] & programs.run_chunk(scratch, &data[..n], &wire[..n], out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::check::build;
    use netsift_graph::{Limits, Privilege};
    use netsift_wire::LinkType;

    fn spec(text: &str) -> FlowSpec {
        FlowSpec::parse(text, Privilege::User, &Limits::default()).unwrap()
    }

    fn instantiate(g: &mut Graphs, text: &str) -> Result<FlowId, String> {
        g.instantiate(spec(text), |i| {
            build(i.class.name, &i.args, i.mbuf, &i.calls, "src", &|t| {
                let set = netsift_pcapc::compile(t, LinkType::EN10MB).map_err(|e| e.to_string())?;
                Ok(Programs {
                    received: netsift_engine::Compiled::new(set),
                    sent: None,
                })
            })
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
        assert_eq!(g.run(&pkts, &[0, 0], &mut scratch), 3);
        let udp = g.running().flow(a).unwrap().instances[0];
        assert_eq!(g.counts(udp), (40, 20));
        // Every fourth udp packet: seq 6, 14, 22, 30, 38.
        let mut masks = Vec::new();
        g.accepted(&g.sinks(a), 2, &mut masks);
        assert_eq!(lanes(&masks).collect::<Vec<_>>(), [6, 14, 22, 30, 38]);
        g.accepted(&g.sinks(b), 2, &mut masks);
        assert_eq!(masks, [0, 0]);
        let (_, size, fd) = g.mbuf(b, 1).unwrap();
        let map = netsift_ffpf::shm::RoMapping::new(std::os::fd::AsFd::as_fd(&fd), 8).unwrap();
        assert_eq!((size, map.load_u64(0)), (8, 20 * 100));
        // Paused, b's counter stops; its instance stays until it closes.
        g.deactivate(b);
        g.run(&pkts, &[0, 0], &mut scratch);
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
        g.run(&pkts, &[0, 0], &mut BatchScratch::new());
        let (_, size, fd) = g.mbuf(a, 0).unwrap();
        let map = netsift_ffpf::shm::RoMapping::new(std::os::fd::AsFd::as_fd(&fd), 16).unwrap();
        assert_eq!((size, map.load_u64(0), map.load_u64(8)), (16, 40, 0));
        // An unknown function is refused when the graph is built.
        let e = instantiate(&mut g, "(fpl,\"R[0] = EXTERN(no_such_fn, 0, 0);\")").unwrap_err();
        assert!(e.contains("no_such_fn"), "{e}");
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
