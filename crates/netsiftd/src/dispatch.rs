//! What a source's capture thread does with each batch: run each distinct
//! active filter once over it, then for each flow group store each packet
//! that any of the group's flows accepted once in the group's PBuf, with an
//! IBuf entry for every accepting flow ([`Group::write_batch`]); with
//! `--copy per-flow` the group stores it once per accepting flow instead
//! (`Counters::stored` counts copies either way).
//!
//! [`Dispatch`] is the part of a source both sides touch: the control side
//! (instantiate, activate, pause, close) edits it, and the capture thread
//! runs batches through it, each under the source's lock, so a batch sees a
//! flow table before or after an edit, never during one.
//!
//! **Feeds.** A graph may name other sources in its `device` elements: each
//! such source hands its batches to the graph's home dispatch as well
//! ([`deliver`], [`Dispatch::fed`]), after its own and with its own lock
//! released, so no thread ever holds two sources' locks. Each source's
//! packets reach the home in the order its thread took them.
//!
//! Filters are shared by text: two flows with the same expression hold one
//! [`Filter`] (reference-counted by its active flows), and a batch costs one
//! run of it. A flow's accounting is the group's, exact by construction: the
//! packets its filter accepted while it was active are the packets offered to
//! the group for it.

use crate::graph::exec::Graphs;
pub(crate) use crate::programs::{Packet, Programs};
use crate::rights::Class;
use netsift_engine::{BatchScratch, LANES};
use netsift_ffpf::proto::Direction;
use netsift_ffpf::xsk::RxDesc;
use netsift_ffpf::{FlowId, Group, Incoming, Received};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// A source's flow table behind its lock; a capture thread that panicked
/// while holding it leaves a table that is still whole between batches.
pub(crate) fn lock(d: &Mutex<Dispatch>) -> MutexGuard<'_, Dispatch> {
    d.lock().unwrap_or_else(|e| e.into_inner())
}

/// A distinct filter expression of active flows, compiled once.
struct Filter {
    text: String,
    programs: Programs,
    /// Active flows using it.
    refs: usize,
}

/// What decides an active flow's packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    /// A shared pcap filter: its slot in `filters`.
    Filter(usize),
    /// A filter graph: its slot in `graph_flows`.
    Graph(usize),
}

/// An active flow: its id, what decides its packets, the direction it takes.
#[derive(Clone, Copy, Debug)]
struct Active {
    flow: FlowId,
    verdict: Verdict,
    direction: Direction,
}

/// An active graph flow: its flow in the running graph and the instances
/// whose output it delivers, each with the element whose index its IBuf
/// entries carry as their class.
struct GraphActive {
    flow: netsift_graph::FlowId,
    sinks: Vec<(u32, netsift_graph::InstanceId)>,
}

/// Per sink of a graph flow: its class and, per chunk of [`LANES`] packets
/// of the batch, those it passed.
type SinkMasks = Vec<(u32, Vec<u32>)>;

/// A flow group of the source: one per rights class.
pub(crate) struct GroupSlot {
    /// Its number, as replies name it.
    pub(crate) number: u64,
    pub(crate) group: Group,
    /// The class's largest snap length: packets are cut to it before they
    /// are stored, so the PBuf never holds a byte past it.
    pub(crate) snaplen: Option<u32>,
    /// Flows of the group (any state past `created`).
    pub(crate) members: usize,
    /// Active flows.
    active: Vec<Active>,
}

impl GroupSlot {
    pub(crate) fn new(number: u64, group: Group) -> GroupSlot {
        GroupSlot {
            number,
            group,
            snaplen: None,
            members: 0,
            active: Vec::new(),
        }
    }
}

/// Another source's dispatch that this source's batches feed: the home of
/// graph flows whose `device` elements name this source.
pub(crate) struct Feed {
    /// The home source's name.
    home: String,
    dispatch: Arc<Mutex<Dispatch>>,
    /// Instantiated graph flows of that home that name this source.
    flows: usize,
}

/// Hands `pkts`, a batch of source `from`, to its dispatch `d` and then to
/// every dispatch it feeds, one lock at a time.
pub(crate) fn deliver(d: &Mutex<Dispatch>, from: &str, pkts: &[Packet<'_>]) {
    let feeds: Vec<Arc<Mutex<Dispatch>>> = {
        let mut d = lock(d);
        d.batch(pkts);
        if d.feeds.is_empty() {
            return;
        }
        d.feeds.iter().map(|f| Arc::clone(&f.dispatch)).collect()
    };
    for f in feeds {
        lock(&f).fed(from, pkts);
    }
}

/// A source's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counters {
    pub(crate) batches: u64,
    pub(crate) packets: u64,
    pub(crate) filter_runs: u64,
    /// Copies stored in PBufs: one per packet a group wanted (`--copy
    /// once`), one per packet per accepting flow (`--copy per-flow`).
    pub(crate) stored: u64,
    /// Activations since the source started (a file source waits for some).
    pub(crate) activations: u64,
    /// A file source played to its end.
    pub(crate) finished: bool,
}

/// The flow table a source's capture thread dispatches batches to.
pub(crate) struct Dispatch {
    filters: Vec<Option<Filter>>,
    /// The source's running filter graph, shared by its graph flows.
    pub(crate) graphs: Graphs,
    graph_flows: Vec<Option<GraphActive>>,
    /// Per graph flow slot: its sinks' masks.
    graph_masks: Vec<SinkMasks>,
    pub(crate) groups: HashMap<Class, GroupSlot>,
    pub(crate) counters: Counters,
    /// The home dispatches this source's batches feed.
    pub(crate) feeds: Vec<Feed>,
    scratch: BatchScratch,
    /// Per filter slot, per chunk of [`LANES`] packets: the accept mask.
    masks: Vec<Vec<u32>>,
    /// Per chunk of [`LANES`] packets: which the host sent.
    sent: Vec<u32>,
    /// Per chunk of [`LANES`] packets: which the kernel took a VLAN tag out of.
    tagged: Vec<u32>,
    /// Per packet of a group: the accepting flows, flattened.
    targets: Vec<(FlowId, u32)>,
    spans: Vec<(usize, usize)>,
    /// A group's packets for [`Group::write_batch`]: kept empty between
    /// batches so that its allocation serves every batch ([`reuse`]).
    incoming: Vec<Incoming<'static>>,
}

/// `v`, emptied, as a vector of another lifetime, in the same allocation:
/// the batch's [`Incoming`]s borrow its packets, which live no longer than
/// the call, so the vector kept between calls holds none. An empty vector's
/// `into_iter().map().collect()` never calls the closure, and std collects a
/// `vec::IntoIter` into a vector of an element of the same size and
/// alignment in place (`a_batch_allocates_nothing_once_warm` checks it does).
fn reuse<'a, 'b>(mut v: Vec<Incoming<'a>>) -> Vec<Incoming<'b>> {
    v.clear();
    v.into_iter()
        .map(|_| unreachable!("the vector was emptied"))
        .collect()
}

/// The lanes of a chunk that a flow taking `d` takes, `sent` being the
/// chunk's packets the host sent.
#[inline]
fn lanes(d: Direction, sent: u32) -> u32 {
    match d {
        Direction::InOut => u32::MAX,
        Direction::In => !sent,
        Direction::Out => sent,
    }
}

impl Dispatch {
    pub(crate) fn new() -> Dispatch {
        Dispatch {
            filters: Vec::new(),
            graphs: Graphs::new(),
            graph_flows: Vec::new(),
            graph_masks: Vec::new(),
            groups: HashMap::new(),
            counters: Counters::default(),
            feeds: Vec::new(),
            scratch: BatchScratch::new(),
            masks: Vec::new(),
            sent: Vec::new(),
            tagged: Vec::new(),
            targets: Vec::new(),
            spans: Vec::new(),
            incoming: Vec::new(),
        }
    }

    /// Distinct filters of active flows now.
    pub(crate) fn distinct_filters(&self) -> u64 {
        self.filters.iter().flatten().count() as u64
    }

    /// Flows in groups now.
    pub(crate) fn flows(&self) -> u64 {
        self.groups.values().map(|g| g.members as u64).sum()
    }

    /// Whether the source serves no flow, its own or another's graph: it
    /// may stop.
    pub(crate) fn idle(&self) -> bool {
        self.flows() == 0 && self.feeds.is_empty()
    }

    /// One more graph flow of source `home` (whose dispatch is `dispatch`)
    /// names this source: its batches feed that home from now on.
    pub(crate) fn add_feed(&mut self, home: &str, dispatch: &Arc<Mutex<Dispatch>>) {
        match self.feeds.iter_mut().find(|f| f.home == home) {
            Some(f) => f.flows += 1,
            None => self.feeds.push(Feed {
                home: home.to_string(),
                dispatch: Arc::clone(dispatch),
                flows: 1,
            }),
        }
    }

    /// One fewer graph flow of `home` names this source; the feed goes with
    /// the last.
    pub(crate) fn remove_feed(&mut self, home: &str) {
        if let Some(i) = self.feeds.iter().position(|f| f.home == home) {
            self.feeds[i].flows -= 1;
            if self.feeds[i].flows == 0 {
                self.feeds.swap_remove(i);
            }
        }
    }

    /// Makes `flow` of group `class` active with filter `text`, taking the
    /// packets of `direction` its filter accepts; `text` is compiled by
    /// `programs` unless an active flow already runs it.
    pub(crate) fn activate(
        &mut self,
        class: &Class,
        flow: FlowId,
        text: &str,
        direction: Direction,
        programs: impl FnOnce() -> Programs,
    ) {
        let slot = match self
            .filters
            .iter()
            .position(|f| f.as_ref().is_some_and(|f| f.text == text))
        {
            Some(s) => s,
            None => {
                let f = Filter {
                    text: text.to_string(),
                    programs: programs(),
                    refs: 0,
                };
                match self.filters.iter().position(Option::is_none) {
                    Some(s) => {
                        self.filters[s] = Some(f);
                        s
                    }
                    None => {
                        self.filters.push(Some(f));
                        self.filters.len() - 1
                    }
                }
            }
        };
        if let Some(f) = self.filters[slot].as_mut() {
            f.refs += 1;
        }
        if let Some(g) = self.groups.get_mut(class) {
            g.active.push(Active {
                flow,
                verdict: Verdict::Filter(slot),
                direction,
            });
        }
        self.counters.activations += 1;
    }

    /// Makes `flow` of group `class` active with graph flow `graph` (already
    /// instantiated in [`Dispatch::graphs`]), taking the packets of
    /// `direction` that its last elements pass, or element `element` if
    /// given.
    pub(crate) fn activate_graph(
        &mut self,
        class: &Class,
        flow: FlowId,
        (graph, element): (netsift_graph::FlowId, Option<u32>),
        direction: Direction,
    ) {
        self.graphs.activate(graph);
        let active = GraphActive {
            flow: graph,
            sinks: self.graphs.sinks(graph, element.map(|e| e as usize)),
        };
        let slot = match self.graph_flows.iter().position(Option::is_none) {
            Some(s) => {
                self.graph_flows[s] = Some(active);
                s
            }
            None => {
                self.graph_flows.push(Some(active));
                self.graph_flows.len() - 1
            }
        };
        if let Some(g) = self.groups.get_mut(class) {
            g.active.push(Active {
                flow,
                verdict: Verdict::Graph(slot),
                direction,
            });
        }
        self.counters.activations += 1;
    }

    /// Stops delivering to `flow` of group `class`; its filter goes with its
    /// last active flow. Whether it was active.
    pub(crate) fn deactivate(&mut self, class: &Class, flow: FlowId) -> bool {
        let Some(g) = self.groups.get_mut(class) else {
            return false;
        };
        let Some(i) = g.active.iter().position(|a| a.flow == flow) else {
            return false;
        };
        match g.active.swap_remove(i).verdict {
            Verdict::Filter(slot) => {
                if let Some(f) = self.filters[slot].as_mut() {
                    f.refs -= 1;
                    if f.refs == 0 {
                        self.filters[slot] = None;
                    }
                }
            }
            Verdict::Graph(slot) => {
                if let Some(a) = self.graph_flows[slot].take() {
                    self.graphs.deactivate(a.flow);
                }
            }
        }
        true
    }

    /// Runs one batch (see the module docs).
    pub(crate) fn batch(&mut self, pkts: &[Packet<'_>]) {
        if pkts.is_empty() {
            return;
        }
        self.counters.batches += 1;
        self.counters.packets += pkts.len() as u64;
        if self.filters.iter().all(Option::is_none) && !self.graphs.any_active() {
            return;
        }
        self.run_filters(pkts);
        self.run_graphs(pkts, None);
        self.write_groups(pkts);
    }

    /// A batch of source `from`, which feeds this dispatch's graph: its
    /// graph flows take what their instances pass of it; its filter flows
    /// (of this source) take none of it. The source's own counters are not
    /// this one's.
    pub(crate) fn fed(&mut self, from: &str, pkts: &[Packet<'_>]) {
        if pkts.is_empty() || !self.graphs.any_active() {
            return;
        }
        self.directions(pkts);
        let chunks = pkts.len().div_ceil(LANES);
        self.masks.resize_with(self.filters.len(), Vec::new);
        for m in &mut self.masks {
            m.clear();
            m.resize(chunks, 0);
        }
        self.run_graphs(pkts, Some(from));
        self.write_groups(pkts);
    }

    /// Each group's share of the batch whose verdicts are in `masks` and
    /// `graph_masks`, into its PBuf and its flows' IBufs.
    fn write_groups(&mut self, pkts: &[Packet<'_>]) {
        let Dispatch {
            groups,
            masks,
            graph_masks,
            sent,
            targets,
            spans,
            counters,
            incoming,
            ..
        } = self;
        for g in groups.values_mut().filter(|g| !g.active.is_empty()) {
            accepting(
                &g.active,
                (masks, graph_masks),
                sent,
                pkts.len(),
                targets,
                spans,
            );
            let cut = g.snaplen.map_or(usize::MAX, |n| n as usize);
            // Borrowing this group's targets, so taken back before the next
            // group's are written.
            let mut batch = reuse(std::mem::take(incoming));
            batch.extend(
                pkts.iter()
                    .zip(spans.iter())
                    .filter(|(_, (a, b))| a != b)
                    .map(|(p, &(a, b))| Incoming {
                        bytes: &p.data[..p.data.len().min(cut)],
                        ts_ns: p.ts_ns,
                        wirelen: p.wirelen,
                        flows: &targets[a..b],
                    }),
            );
            if !batch.is_empty() {
                counters.stored += g.group.write_batch(&batch).stored;
            }
            *incoming = reuse(batch);
        }
    }

    /// An AF_XDP source's batch (`--copy zero`): the frames of `descs`, in
    /// RX order, which the kernel put in the UMEM of group `group`. Each
    /// distinct filter runs once over them where they lie (no copy); every
    /// frame goes to the group in order, with the flows that accepted it
    /// ([`Group::write_frames`]: an index entry each); then the frames the
    /// group's preference gives back to the kernel are appended to `fill`.
    /// Records keep at most `snaplen` bytes (and the group's rule's snap
    /// length), as a ring's would. `Ok(false)`: the group is gone.
    pub(crate) fn frames(
        &mut self,
        group: u64,
        descs: &[RxDesc],
        (ts_ns, snaplen): (u64, u32),
        fill: &mut Vec<u64>,
    ) -> Result<bool, String> {
        let Some(class) = self
            .groups
            .iter()
            .find(|(_, g)| g.number == group)
            .map(|(c, _)| c.clone())
        else {
            return Ok(false);
        };
        // Out of the table while its frames are lent to the filters.
        let mut g = self.groups.remove(&class).expect("found above");
        let r = self.frames_of(&mut g, descs, (ts_ns, snaplen), fill);
        self.groups.insert(class, g);
        r.map(|()| true)
    }

    fn frames_of(
        &mut self,
        g: &mut GroupSlot,
        descs: &[RxDesc],
        (ts_ns, snaplen): (u64, u32),
        fill: &mut Vec<u64>,
    ) -> Result<(), String> {
        if !descs.is_empty() {
            // A descriptor the group does not recognise is read as an empty
            // frame; `write_frames` then refuses its address.
            let pkts: Vec<Packet<'_>> = descs
                .iter()
                .map(|x| {
                    let data = g.group.frame(x).unwrap_or(&[]);
                    Packet {
                        data,
                        wirelen: x.len(),
                        ts_ns,
                        // An AF_XDP socket sees what the interface received.
                        outgoing: false,
                        // The tag is still in the frame; the kernel would
                        // take it out before a socket filter read the frame.
                        tag_out: netsift_session::tag_ahead(data),
                    }
                })
                .collect();
            self.counters.batches += 1;
            self.counters.packets += pkts.len() as u64;
            self.run_filters(&pkts);
            self.run_graphs(&pkts, None);
        }
        let Dispatch {
            masks,
            graph_masks,
            sent,
            targets,
            spans,
            ..
        } = self;
        accepting(
            &g.active,
            (masks, graph_masks),
            sent,
            descs.len(),
            targets,
            spans,
        );
        let cut = g.snaplen.unwrap_or(u32::MAX).min(snaplen);
        let received: Vec<Received<'_>> = descs
            .iter()
            .zip(spans.iter())
            .map(|(x, &(a, b))| Received {
                addr: x.addr(),
                len: x.len().min(cut),
                wirelen: x.len(),
                ts_ns,
                flows: &targets[a..b],
            })
            .collect();
        g.group
            .write_frames(&received)
            .map_err(|e| format!("flow group {}: {e}", g.number))?;
        g.group.refill(fill);
        Ok(())
    }

    /// The running graph over the batch, this source's (`from` is `None`)
    /// or a fed one (each active instance once per packet that reaches it),
    /// then each active graph flow's sinks' masks into `graph_masks`.
    fn run_graphs(&mut self, pkts: &[Packet<'_>], from: Option<&str>) {
        if !self.graphs.any_active() {
            return;
        }
        self.graphs
            .run((pkts, from), (&self.sent, &self.tagged), &mut self.scratch);
        self.graph_masks
            .resize_with(self.graph_flows.len(), Vec::new);
        let chunks = pkts.len().div_ceil(LANES);
        for (slot, a) in self.graph_flows.iter().enumerate() {
            let Some(a) = a else { continue };
            let masks = &mut self.graph_masks[slot];
            masks.resize_with(a.sinks.len(), Default::default);
            for (&(element, id), (class, m)) in a.sinks.iter().zip(masks.iter_mut()) {
                *class = element;
                m.clear();
                m.extend_from_slice(self.graphs.passed(id));
                // An instance no packet reached this batch passed none.
                m.resize(chunks, 0);
            }
        }
    }

    /// Per chunk of [`LANES`] packets of the batch, into `sent`: which the
    /// host sent; into `tagged`: which the kernel took a VLAN tag out of.
    fn directions(&mut self, pkts: &[Packet<'_>]) {
        let mask = |c: &[Packet<'_>], f: fn(&Packet<'_>) -> bool| {
            c.iter()
                .enumerate()
                .fold(0u32, |m, (i, p)| m | u32::from(f(p)) << i)
        };
        self.sent.clear();
        self.sent
            .extend(pkts.chunks(LANES).map(|c| mask(c, |p| p.outgoing)));
        self.tagged.clear();
        self.tagged
            .extend(pkts.chunks(LANES).map(|c| mask(c, |p| p.tag_out)));
    }

    /// Each distinct filter once over the batch, into `masks`: a filter
    /// whose program differs by direction runs each program on the chunks
    /// holding packets of its direction, and each packet takes its own
    /// direction's verdict.
    fn run_filters(&mut self, pkts: &[Packet<'_>]) {
        self.directions(pkts);
        let mut data: [&[u8]; LANES] = [&[]; LANES];
        let mut wire = [0u32; LANES];
        self.masks.resize_with(self.filters.len(), Vec::new);
        for (slot, f) in self.filters.iter().enumerate() {
            let Some(f) = f else { continue };
            let masks = &mut self.masks[slot];
            masks.clear();
            let flags = self.sent.iter().zip(&self.tagged);
            for (chunk, (&out, &tagged)) in pkts.chunks(LANES).zip(flags) {
                for (i, p) in chunk.iter().enumerate() {
                    data[i] = p.data;
                    wire[i] = p.wirelen;
                }
                let n = chunk.len();
                let (data, wire) = (&data[..n], &wire[..n]);
                let mask = f
                    .programs
                    .run_chunk(&mut self.scratch, (data, wire), (out, tagged));
                masks.push(mask);
            }
            self.counters.filter_runs += 1;
        }
    }
}

/// Which active flows take each of the first `n` packets: for packet `i`,
/// `targets[spans[i].0..spans[i].1]` (the flows whose filter accepted it in
/// the direction the flow takes), each with the class its IBuf entry
/// carries: 0 for a pcap filter, for a graph the element of the first of its
/// sinks that passed it.
fn accepting(
    active: &[Active],
    (masks, graph_masks): (&[Vec<u32>], &[SinkMasks]),
    sent: &[u32],
    n: usize,
    targets: &mut Vec<(FlowId, u32)>,
    spans: &mut Vec<(usize, usize)>,
) {
    targets.clear();
    spans.clear();
    for i in 0..n {
        let (chunk, bit) = (i / LANES, 1u32 << (i % LANES));
        let start = targets.len();
        for a in active {
            let take = lanes(a.direction, sent[chunk]) & bit;
            let class = match a.verdict {
                Verdict::Filter(s) => (masks[s][chunk] & take != 0).then_some(0),
                Verdict::Graph(s) => graph_masks[s]
                    .iter()
                    .find(|(_, m)| m[chunk] & take != 0)
                    .map(|(class, _)| *class),
            };
            if let Some(class) = class {
                targets.push((a.flow, class));
            }
        }
        spans.push((start, targets.len()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netsift_engine::Compiled;
    use netsift_ffpf::{CopyMode, FlowFds, FlowReader, Policy};
    use netsift_wire::LinkType;

    const RIGHTS: &Class = &Class::Uid(1);

    fn compiled(expr: &str) -> Programs {
        Programs {
            received: Compiled::new(netsift_pcapc::compile(expr, LinkType::EN10MB).unwrap()),
            sent: None,
            tag_out: None,
        }
    }

    /// A UDP/IPv4 frame to port `port`, with `seq` in its payload.
    fn frame(port: u16, seq: u8) -> Vec<u8> {
        let mut f = vec![0u8; 14 + 20 + 8 + 1];
        f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
        f[14] = 0x45;
        f[16..18].copy_from_slice(&(20u16 + 9).to_be_bytes());
        f[23] = 17;
        f[36..38].copy_from_slice(&port.to_be_bytes());
        f[42] = seq;
        f
    }

    /// 40 frames, `seq` 0 to 39: the even ones to port 53, the odd to 80.
    fn frames() -> Vec<Vec<u8>> {
        (0..40u8)
            .map(|i| frame(if i % 2 == 0 { 53 } else { 80 }, i))
            .collect()
    }

    /// `frames` as a batch; the host sent those whose `seq` is a multiple of 3.
    fn packets(frames: &[Vec<u8>]) -> Vec<Packet<'_>> {
        frames
            .iter()
            .map(|f| Packet {
                data: f,
                wirelen: f.len() as u32,
                ts_ns: 1,
                outgoing: f[42] % 3 == 0,
                tag_out: false,
            })
            .collect()
    }

    fn reader(fds: FlowFds) -> FlowReader {
        FlowReader::from_fds(fds.pbuf, fds.ibuf, fds.control, fds.wake).unwrap()
    }

    fn read_all(r: &mut FlowReader) -> Vec<u8> {
        let mut seqs = Vec::new();
        while let Some(p) = r.getnext().unwrap() {
            seqs.push(p.data[42]);
        }
        seqs
    }

    fn seqs(keep: impl Fn(u8) -> bool) -> Vec<u8> {
        (0..40).filter(|&i| keep(i)).collect()
    }

    /// A dispatch with one group (`copy`) of three flows: two on `udp port
    /// 53` (compiled once), one on `udp`; their ids and buffers.
    fn three_flows(copy: CopyMode) -> (Dispatch, [(FlowId, FlowFds); 3]) {
        let mut d = Dispatch::new();
        let group = Group::with_copy(Policy::SlowReader, 1 << 16, copy).unwrap();
        let mut g = GroupSlot::new(1, group);
        let flows = [(); 3].map(|_| g.group.add_flow(64).unwrap());
        g.members = 3;
        d.groups.insert(RIGHTS.clone(), g);
        let both = Direction::InOut;
        d.activate(RIGHTS, flows[0].0, "udp port 53", both, || {
            compiled("udp port 53")
        });
        d.activate(RIGHTS, flows[1].0, "udp port 53", both, || {
            panic!("compiled twice")
        });
        d.activate(RIGHTS, flows[2].0, "udp", both, || compiled("udp"));
        (d, flows)
    }

    #[test]
    fn one_run_per_distinct_filter_and_one_copy_per_group() {
        let (mut d, [(a, fa), (b, fb), (c, fc)]) = three_flows(CopyMode::Once);
        assert_eq!(d.distinct_filters(), 2);
        let frames = frames();
        let pkts = packets(&frames);
        d.batch(&pkts);
        assert_eq!((d.counters.batches, d.counters.filter_runs), (1, 2));
        // Every frame is UDP: each is stored once, though up to three flows take it.
        assert_eq!(d.counters.stored, 40);
        let even = seqs(|i| i % 2 == 0);
        assert_eq!(read_all(&mut reader(fa)), even);
        assert_eq!(read_all(&mut reader(fb)), even);
        assert_eq!(read_all(&mut reader(fc)), seqs(|_| true));

        // Paused, a flow gets nothing more and its filter's last user goes.
        assert!(d.deactivate(RIGHTS, c));
        assert!(!d.deactivate(RIGHTS, c));
        assert_eq!(d.distinct_filters(), 1);
        d.batch(&pkts);
        assert_eq!(d.counters.filter_runs, 3);
        let g = &d.groups[RIGHTS].group;
        assert_eq!(g.counters(a).unwrap().writer.accepted, 40);
        assert_eq!(g.counters(b).unwrap().writer.accepted, 40);
        assert_eq!(g.counters(c).unwrap().writer.accepted, 40);
    }

    #[test]
    fn a_copy_per_flow_stores_a_copy_per_accepting_flow() {
        let (mut d, [(_, fa), (_, fb), (_, fc)]) = three_flows(CopyMode::PerFlow);
        let frames = frames();
        d.batch(&packets(&frames));
        // Still one run per distinct filter; but 20 + 20 + 40 copies.
        assert_eq!(d.counters.filter_runs, 2);
        assert_eq!(d.counters.stored, 80);
        let even = seqs(|i| i % 2 == 0);
        assert_eq!(read_all(&mut reader(fa)), even);
        assert_eq!(read_all(&mut reader(fb)), even);
        assert_eq!(read_all(&mut reader(fc)), seqs(|_| true));
    }

    /// A flow's direction, and a filter that tests it, each take exactly the
    /// packets of their direction; `outbound` runs its two programs (as an
    /// interface's flows compile it) and still counts as one run.
    #[test]
    fn directions_and_direction_filters_take_their_packets() {
        let mut d = Dispatch::new();
        let mut g = GroupSlot::new(1, Group::new(Policy::SlowReader, 1 << 16).unwrap());
        let flows = [(); 4].map(|_| g.group.add_flow(64).unwrap());
        g.members = 4;
        d.groups.insert(RIGHTS.clone(), g);
        // As netsiftd compiles for an interface: `outbound` accepts nothing
        // received and every sent packet.
        let outbound = || Programs {
            received: Compiled::new(netsift_pcapc::reject_all()),
            sent: Some(compiled("len >= 0").received),
            tag_out: None,
        };
        d.activate(RIGHTS, flows[0].0, "udp", Direction::In, || compiled("udp"));
        d.activate(RIGHTS, flows[1].0, "udp", Direction::Out, || {
            panic!("twice")
        });
        d.activate(RIGHTS, flows[2].0, "outbound", Direction::InOut, outbound);
        // A direction and a filter that contradict it: nothing.
        d.activate(RIGHTS, flows[3].0, "outbound", Direction::In, || {
            panic!("twice")
        });
        let frames = frames();
        d.batch(&packets(&frames));
        assert_eq!(d.counters.filter_runs, 2);
        let [(_, f0), (_, f1), (_, f2), (id3, f3)] = flows;
        assert_eq!(read_all(&mut reader(f0)), seqs(|i| i % 3 != 0));
        assert_eq!(read_all(&mut reader(f1)), seqs(|i| i % 3 == 0));
        assert_eq!(read_all(&mut reader(f2)), seqs(|i| i % 3 == 0));
        assert_eq!(read_all(&mut reader(f3)), Vec::<u8>::new());
        let g = &d.groups[RIGHTS].group;
        assert_eq!(g.counters(id3).unwrap().writer.accepted, 0);
    }

    /// The vector of a group's packets keeps its allocation from one batch
    /// to the next (std's in-place collect, which [`reuse`] relies on).
    #[test]
    fn a_batch_allocates_nothing_once_warm() {
        let (mut d, _flows) = three_flows(CopyMode::Once);
        let frames = frames();
        d.batch(&packets(&frames));
        let (cap, ptr) = (d.incoming.capacity(), d.incoming.as_ptr());
        assert!(cap >= 40, "{cap}");
        for _ in 0..3 {
            let frames = frames.clone();
            d.batch(&packets(&frames));
            assert_eq!((d.incoming.capacity(), d.incoming.as_ptr()), (cap, ptr));
            assert!(d.incoming.is_empty());
        }
    }
}
