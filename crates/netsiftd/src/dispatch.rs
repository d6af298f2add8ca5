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
//! Filters are shared by text: two flows with the same expression hold one
//! [`Filter`] (reference-counted by its active flows), and a batch costs one
//! run of it. A flow's accounting is the group's, exact by construction: the
//! packets its filter accepted while it was active are the packets offered to
//! the group for it.

use crate::rights::Class;
use netsift_engine::{BatchScratch, Compiled, LANES};
use netsift_ffpf::xsk::RxDesc;
use netsift_ffpf::{FlowId, Group, Incoming, Received};
use std::collections::HashMap;

/// One packet of a batch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Packet<'a> {
    /// The captured bytes.
    pub(crate) data: &'a [u8],
    /// Its length on the wire.
    pub(crate) wirelen: u32,
    /// Nanoseconds since the epoch.
    pub(crate) ts_ns: u64,
}

/// A distinct filter expression of active flows, compiled once.
struct Filter {
    text: String,
    compiled: Compiled,
    /// Active flows using it.
    refs: usize,
}

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
    /// Active flows and the filter each runs.
    active: Vec<(FlowId, usize)>,
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
    pub(crate) groups: HashMap<Class, GroupSlot>,
    pub(crate) counters: Counters,
    scratch: BatchScratch,
    /// Per filter slot, per chunk of [`LANES`] packets: the accept mask.
    masks: Vec<Vec<u32>>,
    /// Per packet of a group: the accepting flows, flattened.
    targets: Vec<(FlowId, u32)>,
    spans: Vec<(usize, usize)>,
}

impl Dispatch {
    pub(crate) fn new() -> Dispatch {
        Dispatch {
            filters: Vec::new(),
            groups: HashMap::new(),
            counters: Counters::default(),
            scratch: BatchScratch::new(),
            masks: Vec::new(),
            targets: Vec::new(),
            spans: Vec::new(),
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

    /// Makes `flow` of group `class` active with filter `text`, compiled as
    /// `compiled` unless an active flow already runs that text.
    pub(crate) fn activate(
        &mut self,
        class: &Class,
        flow: FlowId,
        text: &str,
        compiled: impl FnOnce() -> Compiled,
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
                    compiled: compiled(),
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
            g.active.push((flow, slot));
        }
        self.counters.activations += 1;
    }

    /// Stops delivering to `flow` of group `class`; its filter goes with its
    /// last active flow. Whether it was active.
    pub(crate) fn deactivate(&mut self, class: &Class, flow: FlowId) -> bool {
        let Some(g) = self.groups.get_mut(class) else {
            return false;
        };
        let Some(i) = g.active.iter().position(|(f, _)| *f == flow) else {
            return false;
        };
        let (_, slot) = g.active.swap_remove(i);
        if let Some(f) = self.filters[slot].as_mut() {
            f.refs -= 1;
            if f.refs == 0 {
                self.filters[slot] = None;
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
        if self.filters.iter().all(Option::is_none) {
            return;
        }
        self.run_filters(pkts);
        let Dispatch {
            groups,
            masks,
            targets,
            spans,
            counters,
            ..
        } = self;
        for g in groups.values_mut().filter(|g| !g.active.is_empty()) {
            accepting(&g.active, masks, pkts.len(), targets, spans);
            let cut = g.snaplen.map_or(usize::MAX, |n| n as usize);
            let incoming: Vec<Incoming<'_>> = pkts
                .iter()
                .zip(spans.iter())
                .filter(|(_, (a, b))| a != b)
                .map(|(p, &(a, b))| Incoming {
                    bytes: &p.data[..p.data.len().min(cut)],
                    ts_ns: p.ts_ns,
                    wirelen: p.wirelen,
                    flows: &targets[a..b],
                })
                .collect();
            if !incoming.is_empty() {
                counters.stored += g.group.write_batch(&incoming).stored;
            }
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
                .map(|x| Packet {
                    data: g.group.frame(x).unwrap_or(&[]),
                    wirelen: x.len(),
                    ts_ns,
                })
                .collect();
            self.counters.batches += 1;
            self.counters.packets += pkts.len() as u64;
            self.run_filters(&pkts);
        }
        let Dispatch {
            masks,
            targets,
            spans,
            ..
        } = self;
        accepting(&g.active, masks, descs.len(), targets, spans);
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

    /// Each distinct filter once over the batch, into `masks`.
    fn run_filters(&mut self, pkts: &[Packet<'_>]) {
        let mut data: [&[u8]; LANES] = [&[]; LANES];
        let mut wire = [0u32; LANES];
        self.masks.resize_with(self.filters.len(), Vec::new);
        for (slot, f) in self.filters.iter().enumerate() {
            let Some(f) = f else { continue };
            let masks = &mut self.masks[slot];
            masks.clear();
            for chunk in pkts.chunks(LANES) {
                for (i, p) in chunk.iter().enumerate() {
                    data[i] = p.data;
                    wire[i] = p.wirelen;
                }
                let n = chunk.len();
                masks.push(
                    f.compiled
                        .filter_batch(&mut self.scratch, &data[..n], &wire[..n]),
                );
            }
            self.counters.filter_runs += 1;
        }
    }
}

/// For each of `n` packets, the active flows whose filter accepted it (the
/// bits of `masks`), flattened into `targets`, with its span in `spans`.
fn accepting(
    active: &[(FlowId, usize)],
    masks: &[Vec<u32>],
    n: usize,
    targets: &mut Vec<(FlowId, u32)>,
    spans: &mut Vec<(usize, usize)>,
) {
    targets.clear();
    spans.clear();
    for i in 0..n {
        let start = targets.len();
        for &(flow, slot) in active {
            if masks[slot][i / LANES] >> (i % LANES) & 1 != 0 {
                targets.push((flow, 0));
            }
        }
        spans.push((start, targets.len()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netsift_ffpf::{CopyMode, FlowReader, Policy};
    use netsift_wire::LinkType;

    fn compiled(expr: &str) -> Compiled {
        Compiled::new(netsift_pcapc::compile(expr, LinkType::EN10MB).unwrap())
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

    fn reader(fds: netsift_ffpf::FlowFds) -> FlowReader {
        FlowReader::from_fds(fds.pbuf, fds.ibuf, fds.control, fds.wake).unwrap()
    }

    fn read_all(r: &mut FlowReader) -> Vec<u8> {
        let mut seqs = Vec::new();
        while let Some(p) = r.getnext().unwrap() {
            seqs.push(p.data[42]);
        }
        seqs
    }

    #[test]
    fn one_run_per_distinct_filter_and_one_copy_per_group() {
        let rights = &Class::Uid(1);
        let mut d = Dispatch::new();
        let mut g = GroupSlot::new(1, Group::new(Policy::SlowReader, 1 << 16).unwrap());
        let (a, fa) = g.group.add_flow(64).unwrap();
        let (b, fb) = g.group.add_flow(64).unwrap();
        let (c, fc) = g.group.add_flow(64).unwrap();
        g.members = 3;
        d.groups.insert(rights.clone(), g);
        d.activate(rights, a, "udp port 53", || compiled("udp port 53"));
        d.activate(rights, b, "udp port 53", || panic!("compiled twice"));
        d.activate(rights, c, "udp", || compiled("udp"));
        assert_eq!(d.distinct_filters(), 2);

        let frames: Vec<Vec<u8>> = (0..40u8)
            .map(|i| frame(if i % 2 == 0 { 53 } else { 80 }, i))
            .collect();
        let pkts: Vec<Packet<'_>> = frames
            .iter()
            .map(|f| Packet {
                data: f,
                wirelen: f.len() as u32,
                ts_ns: 1,
            })
            .collect();
        d.batch(&pkts);
        assert_eq!((d.counters.batches, d.counters.filter_runs), (1, 2));
        // Every frame is UDP: each is stored once, though up to three flows take it.
        assert_eq!(d.counters.stored, 40);
        let even: Vec<u8> = (0..40).filter(|i| i % 2 == 0).collect();
        assert_eq!(read_all(&mut reader(fa)), even);
        assert_eq!(read_all(&mut reader(fb)), even);
        assert_eq!(read_all(&mut reader(fc)), (0..40).collect::<Vec<u8>>());

        // Paused, a flow gets nothing more and its filter's last user goes.
        assert!(d.deactivate(rights, c));
        assert!(!d.deactivate(rights, c));
        assert_eq!(d.distinct_filters(), 1);
        d.batch(&pkts);
        assert_eq!(d.counters.filter_runs, 3);
        let g = &d.groups[rights].group;
        assert_eq!(g.counters(a).unwrap().writer.accepted, 40);
        assert_eq!(g.counters(c).unwrap().writer.accepted, 40);
    }

    #[test]
    fn a_copy_per_flow_stores_a_copy_per_accepting_flow() {
        let rights = &Class::Uid(1);
        let mut d = Dispatch::new();
        let group = Group::with_copy(Policy::SlowReader, 1 << 16, CopyMode::PerFlow).unwrap();
        let mut g = GroupSlot::new(1, group);
        let (a, fa) = g.group.add_flow(64).unwrap();
        let (b, fb) = g.group.add_flow(64).unwrap();
        let (c, fc) = g.group.add_flow(64).unwrap();
        g.members = 3;
        d.groups.insert(rights.clone(), g);
        d.activate(rights, a, "udp port 53", || compiled("udp port 53"));
        d.activate(rights, b, "udp port 53", || panic!("compiled twice"));
        d.activate(rights, c, "udp", || compiled("udp"));
        let frames: Vec<Vec<u8>> = (0..40u8)
            .map(|i| frame(if i % 2 == 0 { 53 } else { 80 }, i))
            .collect();
        let pkts: Vec<Packet<'_>> = frames
            .iter()
            .map(|f| Packet {
                data: f,
                wirelen: f.len() as u32,
                ts_ns: 1,
            })
            .collect();
        d.batch(&pkts);
        // Still one run per distinct filter; but 20 + 20 + 40 copies.
        assert_eq!(d.counters.filter_runs, 2);
        assert_eq!(d.counters.stored, 80);
        let even: Vec<u8> = (0..40).filter(|i| i % 2 == 0).collect();
        assert_eq!(read_all(&mut reader(fa)), even);
        assert_eq!(read_all(&mut reader(fb)), even);
        assert_eq!(read_all(&mut reader(fc)), (0..40).collect::<Vec<u8>>());
    }
}
