//! The writer's side: a flow group, its PBuf, and one IBuf, control page and
//! wake-up channel per flow. The future daemon owns one [`Group`] per group of
//! clients with the same access rights, and calls [`Group::write_batch`] with
//! each batch of filtered packets.
//!
//! Per packet the group stores the bytes **once** (in PBuf) and one index
//! entry in the IBuf of every flow that accepted it; after the batch it
//! publishes each touched IBuf's `W`, its counters, and wakes the flows whose
//! unread count reached what their client asked for: one signal per batch, not
//! per packet.
//!
//! Accounting is exact per flow. The writer counts `accepted`, `pbuf_full` and
//! `ibuf_full` ([`FlowCounters`]); the reader counts `delivered`,
//! `overwritten` and `invalid`; every accepted packet is in exactly one of
//! the five once the reader has caught up.
//!
//! Where packet bytes live is [`PacketStore`]'s business, chosen per group
//! by its [`CopyMode`]: one shared PBuf ([`CopyMode::Once`], the default), or
//! one PBuf per flow ([`CopyMode::PerFlow`]: a packet accepted by `k` flows is
//! stored `k` times, as `k` sockets would each get it, for comparison). Both
//! answer the same two questions (room for a record, append a record), and a
//! flow's PBuf is an ordinary PBuf to its reader. [`CopyMode::Zero`] makes
//! PBuf a ring of frames the kernel itself writes ([`crate::frames`], an
//! AF_XDP UMEM): the source reports each filled frame with
//! [`Group::write_frames`] and hands frames back with [`Group::refill`] once
//! the slowest attached reader has passed them. Nothing outside this module
//! and `reader` names the PBuf type.

use crate::control::{ControlWriterSide, Reported, STATUS_DETACHED};
use crate::error::Error;
use crate::frames::{FrameRing, FRAME};
use crate::ibuf::{IbufWriter, WriterCounts, FLAG_DETACHED};
use crate::pbuf::{record_len, PbufWriter};
use crate::policy::{clamp_read, clamp_wake, CopyMode, Policy, Stall, StallBound};
use crate::wake::Waker;
use crate::xsk::Umem;
use std::fmt;
use std::os::fd::OwnedFd;
use std::sync::atomic::{fence, Ordering};
use std::time::Instant;

/// A flow of a [`Group`]. Ids are not reused: a removed flow's id stays dead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlowId {
    slot: u32,
    gen: u32,
}

impl fmt::Display for FlowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "flow {}.{}", self.slot, self.gen)
    }
}

/// The descriptors a client needs to read a flow, to be sent over
/// `SCM_RIGHTS`. Each is the group's file under a new descriptor: closing
/// these does not affect the group.
#[derive(Debug)]
pub struct FlowFds {
    /// The group's PBuf (sealed: read-only mappings only).
    pub pbuf: OwnedFd,
    /// The flow's IBuf (sealed: read-only mappings only).
    pub ibuf: OwnedFd,
    /// The flow's control page (read-write, fixed size).
    pub control: OwnedFd,
    /// The client's end of the flow's wake-up channel.
    pub wake: OwnedFd,
}

/// One packet offered to a group: its bytes, time stamp, length on the wire,
/// and the flows that accepted it with their classification results.
#[derive(Clone, Copy, Debug)]
pub struct Incoming<'a> {
    /// The captured bytes (cut to the PBuf's largest record if longer).
    pub bytes: &'a [u8],
    /// Nanoseconds since the epoch.
    pub ts_ns: u64,
    /// The packet's length on the wire.
    pub wirelen: u32,
    /// The accepting flows and the class each filter returned. Unknown (removed)
    /// flows are ignored; a flow listed twice takes the packet once.
    pub flows: &'a [(FlowId, u32)],
}

/// One packet the kernel put in a frame of a [`CopyMode::Zero`] group, as the
/// capture source read it from its RX ring, and the flows that accepted it.
#[derive(Clone, Copy, Debug)]
pub struct Received<'a> {
    /// Its UMEM address (`xdp_desc.addr`).
    pub addr: u64,
    /// Its bytes there (`xdp_desc.len`).
    pub len: u32,
    /// Its length on the wire.
    pub wirelen: u32,
    /// Nanoseconds since the epoch.
    pub ts_ns: u64,
    /// The accepting flows and their classes (empty: the frame is only
    /// passed over, and goes back to the kernel with the next refill).
    pub flows: &'a [(FlowId, u32)],
}

/// A flow's writer-side counters and state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowCounters {
    /// Packets the flow accepted, and the drops the writer decided.
    pub writer: WriterCounts,
    /// Entries written to the flow's IBuf (`W`).
    pub written: u64,
    /// The client's `R`, as the writer last clamped it.
    pub read: u64,
    /// Whether the flow was detached from the slow-reader policy.
    pub detached: bool,
}

/// What one [`Group::write_batch`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchSummary {
    /// Copies stored: one per packet in [`CopyMode::Once`], one per flow that
    /// got the packet in [`CopyMode::PerFlow`].
    pub stored: u64,
    /// Packets stored nowhere: no flow could take them.
    pub refused: u64,
    /// Flows detached for stalling during this batch.
    pub detached: u64,
    /// Wake-up signals sent.
    pub woken: u64,
}

/// Where a group's packet bytes live (see the module docs).
#[derive(Debug)]
enum PacketStore {
    /// One PBuf shared by the group's flows.
    Shared(PbufWriter),
    /// One PBuf per flow, in [`Flow::own`], each of `capacity` bytes.
    PerFlow {
        capacity: u64,
        /// Copies stored, bytes of records, copies refused, over every flow
        /// the group has had (a removed flow's PBuf goes, its figures stay).
        totals: (u64, u64, u64),
    },
    /// The kernel's frames (zero copy).
    Frames(FrameRing),
}

#[derive(Debug)]
struct Flow {
    gen: u32,
    ibuf: IbufWriter,
    control: ControlWriterSide,
    waker: Waker,
    /// The flow's own PBuf ([`CopyMode::PerFlow`] only).
    own: Option<PbufWriter>,
    detached: bool,
    /// The client's `R`, clamped (see `policy::clamp_read`).
    r: u64,
    counts: WriterCounts,
    /// Touched in this batch: publish and maybe wake.
    dirty: bool,
}

impl Flow {
    fn refresh_read(&mut self) {
        let raw = self.control.raw_read();
        self.r = clamp_read(raw, self.r, self.ibuf.write_pos(), self.ibuf.entries());
    }

    fn ibuf_has_room(&self) -> bool {
        self.ibuf.write_pos() - self.r < self.ibuf.entries()
    }

    /// [`CopyMode::PerFlow`], slow-reader preference: whether a record of
    /// `caplen` bytes fits in the flow's own PBuf below its oldest unread
    /// record, looking at the client's `R` again if not.
    fn own_room(&mut self, caplen: u32) -> bool {
        for fresh in [false, true] {
            if fresh {
                self.refresh_read();
            }
            let Some(pbuf) = self.own.as_ref() else {
                return false;
            };
            let reclaim = if self.r < self.ibuf.write_pos() {
                self.ibuf.pbuf_pos(self.r)
            } else {
                pbuf.write_pos()
            };
            if pbuf.fits(caplen, reclaim) {
                return true;
            }
        }
        false
    }

    fn detach(&mut self) {
        self.detached = true;
        self.ibuf.set_flags(FLAG_DETACHED);
        self.control.set_status(STATUS_DETACHED);
        self.waker.signal();
    }
}

/// A flow group's buffers, writer side.
#[derive(Debug)]
pub struct Group {
    policy: Policy,
    store: PacketStore,
    flows: Vec<Option<Flow>>,
    /// Generation of each slot's next flow.
    gens: Vec<u32>,
    bound: StallBound,
    stall: Option<Stall<usize>>,
    /// Per packet: the accepting flows' slots and classes.
    targets: Vec<(usize, u32)>,
}

impl Group {
    /// A group with a PBuf data area of `pbuf_bytes` (a power of two, 4 KiB up
    /// to 1 TiB) and no flows: [`CopyMode::Once`].
    pub fn new(policy: Policy, pbuf_bytes: u64) -> Result<Group, Error> {
        Group::with_copy(policy, pbuf_bytes, CopyMode::Once)
    }

    /// A group storing packets as `copy` says: one PBuf of `pbuf_bytes` for
    /// the group ([`CopyMode::Once`]), or one of `pbuf_bytes` for each flow,
    /// made with the flow ([`CopyMode::PerFlow`]; the size is checked now).
    pub fn with_copy(policy: Policy, pbuf_bytes: u64, copy: CopyMode) -> Result<Group, Error> {
        let store = match copy {
            CopyMode::Once => PacketStore::Shared(PbufWriter::create(pbuf_bytes)?),
            CopyMode::Zero => PacketStore::Frames(FrameRing::create(pbuf_bytes, FRAME)?),
            CopyMode::PerFlow => {
                if !pbuf_bytes.is_power_of_two()
                    || !(crate::pbuf::PBUF_MIN..=crate::pbuf::PBUF_MAX).contains(&pbuf_bytes)
                {
                    return Err(Error::invalid(format!(
                        "per-flow PBuf of {pbuf_bytes} bytes: a power of two from {} to {}",
                        crate::pbuf::PBUF_MIN,
                        crate::pbuf::PBUF_MAX
                    )));
                }
                PacketStore::PerFlow {
                    capacity: pbuf_bytes,
                    totals: (0, 0, 0),
                }
            }
        };
        Ok(Group {
            policy,
            store,
            flows: Vec::new(),
            gens: Vec::new(),
            bound: StallBound::default(),
            stall: None,
            targets: Vec::new(),
        })
    }

    /// Sets how long a stalled reader may hold the group back (slow-reader
    /// preference only; the default is forever).
    pub fn set_stall_bound(&mut self, bound: StallBound) {
        self.bound = bound;
        self.stall = None;
    }

    /// The group's policy.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// Where the group stores packets.
    pub fn copy_mode(&self) -> CopyMode {
        match self.store {
            PacketStore::Shared(_) => CopyMode::Once,
            PacketStore::PerFlow { .. } => CopyMode::PerFlow,
            PacketStore::Frames(_) => CopyMode::Zero,
        }
    }

    /// [`CopyMode::Zero`]: the region to register as the AF_XDP UMEM.
    pub fn umem(&self) -> Option<Umem> {
        match &self.store {
            PacketStore::Frames(r) => Some(r.umem()),
            _ => None,
        }
    }

    /// [`CopyMode::Zero`]: the bytes of the frame `d` names, returned by the
    /// kernel and not yet written with [`Group::write_frames`]
    /// ([`FrameRing::frame`]); `None` otherwise.
    pub fn frame(&self, d: &crate::xsk::RxDesc) -> Option<&[u8]> {
        match &self.store {
            PacketStore::Frames(r) => r.frame(d),
            _ => None,
        }
    }

    /// A new flow with an IBuf of `ibuf_entries` (a power of two), and the
    /// descriptors its client needs.
    pub fn add_flow(&mut self, ibuf_entries: u64) -> Result<(FlowId, FlowFds), Error> {
        let ibuf = IbufWriter::create(ibuf_entries)?;
        let control = ControlWriterSide::create()?;
        let (waker, wake) = Waker::pair()?;
        let own = match &self.store {
            PacketStore::Shared(_) | PacketStore::Frames(_) => None,
            PacketStore::PerFlow { capacity, .. } => Some(PbufWriter::create(*capacity)?),
        };
        let pbuf = match (&self.store, &own) {
            (_, Some(p)) | (PacketStore::Shared(p), None) => p.dup()?,
            (PacketStore::Frames(r), None) => r.dup()?,
            (PacketStore::PerFlow { .. }, None) => unreachable!("made above"),
        };
        let fds = FlowFds {
            pbuf,
            ibuf: ibuf.dup()?,
            control: control.dup()?,
            wake,
        };
        let slot = match self.flows.iter().position(Option::is_none) {
            Some(s) => s,
            None => {
                self.flows.push(None);
                self.gens.push(0);
                self.flows.len() - 1
            }
        };
        let slot32 = u32::try_from(slot).map_err(|_| Error::invalid("more than 2^32 flows"))?;
        let gen = self.gens[slot];
        self.flows[slot] = Some(Flow {
            gen,
            ibuf,
            control,
            waker,
            own,
            detached: false,
            r: 0,
            counts: WriterCounts::default(),
            dirty: false,
        });
        Ok((FlowId { slot: slot32, gen }, fds))
    }

    /// Removes a flow, closing its IBuf, control page and channel (a client's
    /// descriptors keep its own mappings alive until it closes them).
    pub fn remove_flow(&mut self, id: FlowId) -> Result<(), Error> {
        let slot = self
            .lookup(id)
            .ok_or_else(|| Error::invalid(format!("removing {id}: no such flow")))?;
        self.flows[slot] = None;
        self.gens[slot] = self.gens[slot].wrapping_add(1);
        if self.stall.is_some_and(|s| s.flow == slot) {
            self.stall = None;
        }
        Ok(())
    }

    fn lookup(&self, id: FlowId) -> Option<usize> {
        let slot = id.slot as usize;
        match self.flows.get(slot) {
            Some(Some(f)) if f.gen == id.gen => Some(slot),
            _ => None,
        }
    }

    fn flow(&self, id: FlowId) -> Option<&Flow> {
        self.lookup(id).and_then(|s| self.flows[s].as_ref())
    }

    /// The flows of the group.
    pub fn flow_ids(&self) -> Vec<FlowId> {
        self.flows
            .iter()
            .enumerate()
            .filter_map(|(s, f)| {
                f.as_ref().map(|f| FlowId {
                    slot: s as u32,
                    gen: f.gen,
                })
            })
            .collect()
    }

    /// A flow's writer-side counters.
    pub fn counters(&self, id: FlowId) -> Option<FlowCounters> {
        self.flow(id).map(|f| FlowCounters {
            writer: f.counts,
            written: f.ibuf.write_pos(),
            read: f.r,
            detached: f.detached,
        })
    }

    /// What a flow's client reports in its control page (untrusted).
    pub fn reported(&self, id: FlowId) -> Option<Reported> {
        self.flow(id).map(|f| f.control.reported())
    }

    /// PBuf's packets stored, bytes of records (padding included) and packets
    /// refused for lack of room. In [`CopyMode::PerFlow`], copies and their
    /// bytes summed over every flow's PBuf (removed flows' included), and
    /// copies refused.
    pub fn pbuf_stats(&self) -> (u64, u64, u64) {
        match &self.store {
            PacketStore::Shared(p) => p.stats(),
            PacketStore::PerFlow { totals, .. } => *totals,
            PacketStore::Frames(r) => r.stats(),
        }
    }

    /// Stores a batch of packets (see the module docs), then wakes.
    pub fn write_batch(&mut self, batch: &[Incoming<'_>]) -> BatchSummary {
        self.write_batch_at(batch, Instant::now())
    }

    /// [`Group::write_batch`] at a given time (the stall bound's clock).
    pub fn write_batch_at(&mut self, batch: &[Incoming<'_>], now: Instant) -> BatchSummary {
        let mut sum = BatchSummary::default();
        for f in self.flows.iter_mut().flatten() {
            f.refresh_read();
        }
        // R*, cached for the batch: it only grows as readers advance, and new
        // entries lie above it, so a stale value is conservative.
        let mut reclaim: Option<(u64, Option<usize>)> = None;
        for pkt in batch {
            self.collect_targets(pkt);
            if self.targets.is_empty() {
                continue;
            }
            if self.policy == Policy::SlowReader {
                self.drop_ibuf_full();
                if self.targets.is_empty() {
                    sum.refused += 1;
                    continue;
                }
            }
            match self.store {
                PacketStore::Shared(_) => self.store_once(pkt, &mut reclaim, now, &mut sum),
                PacketStore::PerFlow { .. } => self.store_per_flow(pkt, &mut sum),
                // The kernel writes a zero-copy group's packets; bytes offered
                // here have nowhere to go, which the accounting says.
                PacketStore::Frames(_) => {
                    for &(s, _) in &self.targets {
                        if let Some(f) = self.flows[s].as_mut() {
                            f.counts.pbuf_full += 1;
                        }
                    }
                    sum.refused += 1;
                }
            }
        }
        sum.woken = self.publish_and_wake();
        sum
    }

    /// [`CopyMode::Zero`]: the frames the kernel filled, in the order of the
    /// source's RX ring, every one of them (a frame no flow wants is passed
    /// over). Each gets its record header and an IBuf entry per accepting
    /// flow (slow-reader preference: a full IBuf drops for its flow alone);
    /// no packet byte is copied. Then publishes and wakes, as
    /// [`Group::write_batch`]. A frame that is not the one the kernel was to
    /// fill next is an error naming it; the frames before it are kept.
    pub fn write_frames(&mut self, batch: &[Received<'_>]) -> Result<BatchSummary, Error> {
        if !matches!(self.store, PacketStore::Frames(_)) {
            return Err(Error::invalid(
                "write_frames: the group copies packets (CopyMode::Zero only)",
            ));
        }
        let mut sum = BatchSummary::default();
        for f in self.flows.iter_mut().flatten() {
            f.refresh_read();
        }
        let mut failed = None;
        for pkt in batch {
            let PacketStore::Frames(ring) = &mut self.store else {
                break;
            };
            let pos = match ring.receive(pkt.addr, pkt.len, pkt.wirelen, pkt.ts_ns) {
                Ok(p) => p,
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            };
            self.collect_targets(&Incoming {
                bytes: &[],
                ts_ns: pkt.ts_ns,
                wirelen: pkt.wirelen,
                flows: pkt.flows,
            });
            if self.targets.is_empty() {
                continue;
            }
            if self.policy == Policy::SlowReader {
                self.drop_ibuf_full();
                if self.targets.is_empty() {
                    sum.refused += 1;
                    continue;
                }
            }
            for &(s, class) in &self.targets {
                if let Some(f) = self.flows[s].as_mut() {
                    f.ibuf.push(pos, pkt.len, class);
                }
            }
        }
        sum.woken = self.publish_and_wake();
        match failed {
            Some(e) => Err(e),
            None => Ok(sum),
        }
    }

    /// [`CopyMode::Zero`]: appends to `out` the UMEM addresses of the frames
    /// the kernel may fill again, in order, for the source's fill ring. Under
    /// slow-reader preference a frame comes back only once every attached
    /// flow's reader has passed every entry in it (their `R`s are read
    /// afresh); under fast-reader preference once it is half a ring behind
    /// the newest frame, whether read or not (readers lapped count
    /// `overwritten`; handing frames back the moment they are received
    /// would leave no reader any frame it could trust). The first call hands out every
    /// frame. Nothing for a group that copies.
    ///
    /// The stall bound's time applies (its bytes do not: the kernel, not the
    /// writer, counts what it drops): a flow whose unread entry keeps every
    /// frame from the kernel, while the kernel holds none, for longer than
    /// the bound is detached, and its frames go back.
    pub fn refill(&mut self, out: &mut Vec<u64>) {
        self.refill_at(out, Instant::now());
    }

    /// [`Group::refill`] at a given time (the stall bound's clock).
    pub fn refill_at(&mut self, out: &mut Vec<u64>, now: Instant) {
        if !matches!(self.store, PacketStore::Frames(_)) {
            return;
        }
        for f in self.flows.iter_mut().flatten() {
            f.refresh_read();
        }
        loop {
            let (reclaim, slowest) = match self.policy {
                Policy::SlowReader => self.reclaim(),
                Policy::FastReader => (u64::MAX, None),
            };
            let PacketStore::Frames(ring) = &mut self.store else {
                return;
            };
            // Fast reader: the newest half of the ring stays the readers'.
            let reclaim = match self.policy {
                Policy::SlowReader => reclaim,
                Policy::FastReader => ring.fast_reclaim(),
            };
            let before = out.len();
            ring.hand_out(reclaim, out);
            if out.len() > before {
                self.stall = None;
                return;
            }
            // Nothing to give: a stall only if the kernel has nothing left.
            if ring.kernel_frames() > 0 {
                return;
            }
            let Some(slow) = slowest else { return };
            if !self.bound.note(&mut self.stall, slow, 0, now) {
                return;
            }
            if let Some(f) = self.flows[slow].as_mut() {
                f.detach();
                f.dirty = true;
            }
            self.stall = None;
        }
    }

    /// [`CopyMode::Once`]: the packet's bytes once in the group's PBuf, an
    /// entry in each target's IBuf.
    fn store_once(
        &mut self,
        pkt: &Incoming<'_>,
        reclaim: &mut Option<(u64, Option<usize>)>,
        now: Instant,
        sum: &mut BatchSummary,
    ) {
        let PacketStore::Shared(pbuf) = &self.store else {
            return;
        };
        let caplen = pkt.bytes.len().min(pbuf.max_caplen() as usize);
        let bytes = &pkt.bytes[..caplen];
        let caplen = caplen as u32;
        if self.policy == Policy::SlowReader && !self.make_room(caplen, reclaim, now, sum) {
            for &(s, _) in &self.targets {
                if let Some(f) = self.flows[s].as_mut() {
                    f.counts.pbuf_full += 1;
                }
            }
            if let PacketStore::Shared(pbuf) = &mut self.store {
                pbuf.count_full_drop();
            }
            sum.refused += 1;
            return;
        }
        let PacketStore::Shared(pbuf) = &mut self.store else {
            return;
        };
        let pos = pbuf.append(bytes, pkt.ts_ns, pkt.wirelen);
        sum.stored += 1;
        for &(s, class) in &self.targets {
            if let Some(f) = self.flows[s].as_mut() {
                f.ibuf.push(pos, caplen, class);
            }
        }
    }

    /// [`CopyMode::PerFlow`]: the packet's bytes in each target's own PBuf,
    /// with its entry. Under the slow-reader preference a full PBuf drops the
    /// packet for its flow alone (`pbuf_full`), as a full socket would; the
    /// stall bound does not apply, since a slow reader holds back no one else.
    fn store_per_flow(&mut self, pkt: &Incoming<'_>, sum: &mut BatchSummary) {
        let Group {
            store,
            flows,
            targets,
            policy,
            ..
        } = self;
        let PacketStore::PerFlow { totals, .. } = store else {
            return;
        };
        let mut stored = 0;
        for &(s, class) in targets.iter() {
            let Some(f) = flows[s].as_mut() else { continue };
            let Some(max) = f.own.as_ref().map(PbufWriter::max_caplen) else {
                continue;
            };
            let caplen = pkt.bytes.len().min(max as usize) as u32;
            if *policy == Policy::SlowReader && !f.own_room(caplen) {
                f.counts.pbuf_full += 1;
                if let Some(p) = f.own.as_mut() {
                    p.count_full_drop();
                }
                totals.2 += 1;
                continue;
            }
            let Some(pbuf) = f.own.as_mut() else { continue };
            let before = pbuf.write_pos();
            let pos = pbuf.append(&pkt.bytes[..caplen as usize], pkt.ts_ns, pkt.wirelen);
            totals.0 += 1;
            totals.1 += pbuf.write_pos() - before;
            f.ibuf.push(pos, caplen, class);
            stored += 1;
        }
        sum.stored += stored;
        if stored == 0 {
            sum.refused += 1;
        }
    }

    /// Fills `targets` with the packet's known, distinct flows, and counts the
    /// packet as accepted by each.
    fn collect_targets(&mut self, pkt: &Incoming<'_>) {
        self.targets.clear();
        for &(id, class) in pkt.flows {
            let Some(s) = self.lookup(id) else { continue };
            if self.targets.iter().any(|&(t, _)| t == s) {
                continue;
            }
            self.targets.push((s, class));
            if let Some(f) = self.flows[s].as_mut() {
                f.counts.accepted += 1;
                f.dirty = true;
            }
        }
    }

    /// Slow-reader preference: removes from `targets` the attached flows whose
    /// IBuf is full (after a fresh look at their `R`), counting the drop.
    fn drop_ibuf_full(&mut self) {
        let flows = &mut self.flows;
        self.targets.retain(|&(s, _)| {
            let Some(f) = flows[s].as_mut() else {
                return false;
            };
            if f.detached || f.ibuf_has_room() {
                return true;
            }
            f.refresh_read();
            if f.ibuf_has_room() {
                return true;
            }
            f.counts.ibuf_full += 1;
            false
        });
    }

    /// Slow-reader preference: whether a record of `caplen` fits below `R*`,
    /// refreshing readers' positions once and detaching a reader that stalled
    /// past the bound if it does not.
    fn make_room(
        &mut self,
        caplen: u32,
        reclaim: &mut Option<(u64, Option<usize>)>,
        now: Instant,
        sum: &mut BatchSummary,
    ) -> bool {
        let mut refreshed = false;
        loop {
            let (rc, slowest) = *reclaim.get_or_insert_with(|| self.reclaim());
            let PacketStore::Shared(pbuf) = &self.store else {
                return false;
            };
            if pbuf.fits(caplen, rc) {
                self.stall = None;
                return true;
            }
            if !refreshed {
                refreshed = true;
                for f in self.flows.iter_mut().flatten() {
                    f.refresh_read();
                }
                *reclaim = Some(self.reclaim());
                continue;
            }
            let Some(slow) = slowest else { return false };
            if !self
                .bound
                .note(&mut self.stall, slow, record_len(caplen), now)
            {
                return false;
            }
            if let Some(f) = self.flows[slow].as_mut() {
                f.detach();
                f.dirty = true;
            }
            self.stall = None;
            sum.detached += 1;
            *reclaim = Some(self.reclaim());
        }
    }

    /// `R*`: the least PBuf position among attached flows' unread entries
    /// (PBuf's `W` if none), and the flow holding it.
    fn reclaim(&self) -> (u64, Option<usize>) {
        let w = match &self.store {
            PacketStore::Shared(pbuf) => pbuf.write_pos(),
            PacketStore::PerFlow { .. } => u64::MAX,
            PacketStore::Frames(ring) => ring.next_pos(),
        };
        let mut best = (w, None);
        for (s, f) in self.flows.iter().enumerate() {
            let Some(f) = f else { continue };
            if f.detached || f.r >= f.ibuf.write_pos() {
                continue;
            }
            let pos = f.ibuf.pbuf_pos(f.r);
            if pos < best.0 {
                best = (pos, Some(s));
            }
        }
        best
    }

    /// Whether the group's shared store is more than half taken by packets
    /// some reader has not read (slow-reader preference only: under
    /// fast-reader preference the writer overwrites and nothing is held; a
    /// copy per flow holds only its own flow back).
    fn pressure(&self) -> bool {
        if self.policy != Policy::SlowReader {
            return false;
        }
        let (held_from, _) = self.reclaim();
        let (w, cap) = match &self.store {
            PacketStore::Shared(pbuf) => (pbuf.write_pos(), pbuf.capacity()),
            PacketStore::Frames(ring) => (ring.next_pos(), ring.umem().len),
            PacketStore::PerFlow { .. } => return false,
        };
        w.saturating_sub(held_from) > cap / 2
    }

    /// Publishes PBuf's statistics and each touched flow's `W` and counters,
    /// then signals the flows whose unread count reached their threshold.
    fn publish_and_wake(&mut self) -> u64 {
        match &self.store {
            PacketStore::Shared(pbuf) => pbuf.publish_stats(),
            PacketStore::Frames(ring) => ring.publish_stats(),
            PacketStore::PerFlow { .. } => {}
        }
        for f in self.flows.iter_mut().flatten().filter(|f| f.dirty) {
            if let Some(p) = &f.own {
                p.publish_stats();
            }
            f.ibuf.publish();
            f.ibuf.publish_counts(&f.counts);
        }
        // Pairs with the reader's fence between arming `wake_at` and loading
        // `W`: either it sees the new W, or this sees its threshold.
        fence(Ordering::SeqCst);
        // A reader asked to be woken at n packets, but under slow-reader
        // preference its oldest unread packet also holds the group's PBuf: a
        // flow that accepts one packet in a thousand would keep thousands of
        // others' packets waiting for its n-th, and the PBuf would fill and
        // drop for everyone. So once PBuf is half full, any armed reader with
        // a packet waiting is woken, touched by this batch or not.
        let pressed = self.pressure();
        let mut woken = 0;
        for f in self.flows.iter_mut().flatten() {
            if !(f.dirty || pressed) {
                continue;
            }
            f.dirty = false;
            let raw = f.control.raw_wake_at();
            let want = clamp_wake(raw, f.ibuf.entries());
            if want == 0 {
                continue;
            }
            f.refresh_read();
            let waiting = f.ibuf.write_pos() - f.r;
            let due = waiting >= want || (pressed && waiting > 0);
            if due && f.control.disarm(raw) {
                f.waker.signal();
                woken += 1;
            }
        }
        woken
    }
}
