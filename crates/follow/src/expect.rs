//! The exact table: expectations, flows and who owns them, with every cap.
//!
//! * An `ExpKey` (expectation) is conntrack's: a listener (address, port,
//!   transport) that the *peer* (one address, any port; any address only for
//!   SIP/RTSP media under `--follow-loose`, conntrack's `sip_direct_media=0`)
//!   may open a flow to. It
//!   is consumed by the first packet from the peer to the listener (a TCP SYN, or
//!   any UDP datagram), which makes it a flow, and it expires unused after its
//!   protocol's timeout.
//! * A `FlowKey` (flow) is an exact 4-tuple; packets either way belong to it.
//! * An `Owner` is a tracked control connection (FTP) or a dialog/session
//!   (SIP, RTSP). Its members are bounded, and removing the owner (BYE, TEARDOWN)
//!   removes them.
//!
//! Every expectation and flow holds one reference on its listener endpoint in
//! the [`Tracker`], so the live filter holds exactly the listeners that something
//! needs.
//!
//! Caps ([`Limits`]): expectations and flows in all (`max_flows`, also never more
//! than the live set can hold, [`Tracker::endpoint_capacity`]); members per
//! owner (`max_per_owner`) and expectations per owner (the protocol's
//! `max_expected`, as conntrack's expectation policies); owners (`max_sessions`).
//! When a cap is reached, the oldest unused expectation goes (of the owner, then
//! anywhere); flows that carry packets are never evicted, only expired. If nothing
//! may go, the new expectation is refused and counted.

use crate::aged::Aged;
use crate::control::ConnKey;
use crate::segment::{Segment, FIN, RST, SYN};
use crate::tracker::{addr_word, Endpoint, Timers, Tracker, Transport};
use netsift_swift::Error;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::net::IpAddr;

/// Who announced an expectation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Owner {
    /// A tracked control connection (FTP).
    Conn(ConnKey),
    /// A SIP dialog or RTSP session.
    Dialog(DialogKey),
}

/// A SIP dialog (Call-ID) or RTSP session (Session), and its two participants
/// (the signaling endpoints' addresses, lower first). The identifier is kept as a
/// keyed hash, so a dialog costs the same however long its Call-ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct DialogKey {
    pub rtsp: bool,
    pub id: u64,
    pub a: IpAddr,
    pub b: IpAddr,
}

/// An expectation: `peer` (`None`: anyone) may open a flow to `listener`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ExpKey {
    pub listener: Endpoint,
    pub peer: Option<IpAddr>,
}

/// A flow: the listener and the peer's address and port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FlowKey {
    pub listener: Endpoint,
    pub peer: (IpAddr, u16),
}

// Both hash a few words, not field by field (see `tracker::addr_word`): every
// packet the follower judges looks flows up, and every announcement expectations.
impl Hash for ExpKey {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.listener.hash(h);
        match &self.peer {
            Some(a) => h.write_u128(addr_word(a)),
            None => h.write_u8(0),
        }
    }
}

impl Hash for FlowKey {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.listener.hash(h);
        h.write_u128(addr_word(&self.peer.0));
        h.write_u16(self.peer.1);
    }
}

struct Exp {
    owner: Owner,
    expires_ns: u64,
}

struct Flow {
    owner: Owner,
    last_ns: u64,
    /// FIN seen from the listener's side (bit 0) and from the peer (bit 1).
    fins: u8,
    closed_ns: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Member {
    Exp(ExpKey),
    Flow(FlowKey),
}

struct OwnerState {
    /// In the order they were announced.
    members: Vec<Member>,
    last_ns: u64,
}

/// The caps; see the module documentation and docs/follow.md.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Expectations and flows in all.
    pub max_flows: usize,
    /// Expectations and flows of one control connection or dialog.
    pub max_per_owner: usize,
    /// Control connections remembered, and (separately) owners: control
    /// connections with expectations or flows, dialogs and sessions.
    pub max_sessions: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_flows: 1024,
            max_per_owner: 16,
            max_sessions: 4096,
        }
    }
}

/// Why an announcement was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The owner's expectations and flows.
    PerOwner,
    /// Expectations and flows in all.
    Flows,
    /// Owners in all.
    Sessions,
}

/// What a table operation did, for the follower's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableStats {
    /// Expectations created.
    pub expected: u64,
    /// Flows created from expectations.
    pub flows: u64,
    /// Expectations that expired unused.
    pub expired: u64,
    /// Unused expectations evicted to make room.
    pub evicted: u64,
    /// Flows removed (closed and lingered, idle, or their dialog ended).
    pub flows_removed: u64,
}

pub(crate) struct Table {
    exps: Aged<ExpKey, Exp>,
    flows: HashMap<FlowKey, Flow>,
    owners: Aged<Owner, OwnerState>,
    limits: Limits,
    timers: Timers,
    pub stats: TableStats,
}

impl Table {
    pub(crate) fn new(limits: Limits, timers: Timers) -> Table {
        Table {
            exps: Aged::new(),
            flows: HashMap::new(),
            owners: Aged::new(),
            limits,
            timers,
            stats: TableStats::default(),
        }
    }

    pub(crate) fn expectations(&self) -> usize {
        self.exps.len()
    }

    pub(crate) fn flows(&self) -> usize {
        self.flows.len()
    }

    pub(crate) fn owners(&self) -> usize {
        self.owners.len()
    }

    /// Whether `o` owns a flow: such an owner is never evicted (its unused
    /// expectations may be).
    pub(crate) fn has_flows(&self, o: &Owner) -> bool {
        self.owners
            .get(o)
            .is_some_and(|s| s.members.iter().any(|m| matches!(m, Member::Flow(_))))
    }

    pub(crate) fn has_owner(&self, o: &Owner) -> bool {
        self.owners.contains(o)
    }

    /// `peer` may open a flow to `listener`, for `owner`, until `timeout_ns` from
    /// `now`. At most `max_expected` unused expectations per owner: a new one
    /// replaces the owner's oldest (conntrack's `evict_oldest_expect`).
    pub(crate) fn expect(
        &mut self,
        tracker: &mut Tracker,
        owner: Owner,
        key: ExpKey,
        now: u64,
        timeout_ns: u64,
        max_expected: usize,
    ) -> Result<Result<(), Refusal>, Error> {
        if let Some(e) = self.exps.get_mut(&key) {
            // Announced again: it lives longer, and stays with its first owner.
            e.expires_ns = now.saturating_add(timeout_ns);
            return Ok(Ok(()));
        }
        if !self.owners.contains(&owner) {
            if self.owners.len() >= self.limits.max_sessions {
                // At most `max_flows` owners have a flow, so this scan finds one
                // without, if there is one.
                let scan = self.limits.max_flows.saturating_add(1);
                let victim = self.owners.oldest(scan, |_, s| {
                    s.members.iter().all(|m| matches!(m, Member::Exp(_)))
                });
                match victim {
                    Some(v) => self.drop_owner(tracker, &v)?,
                    None => return Ok(Err(Refusal::Sessions)),
                }
            }
            self.owners.insert(
                owner,
                OwnerState {
                    members: Vec::new(),
                    last_ns: now,
                },
            );
        }
        // The owner's own caps: its oldest unused expectation makes room.
        let (members, unused) = self.owners.get(&owner).map_or((0, 0), |s| {
            let unused = s
                .members
                .iter()
                .filter(|m| matches!(m, Member::Exp(_)))
                .count();
            (s.members.len(), unused)
        });
        if members >= self.limits.max_per_owner || unused >= max_expected.max(1) {
            match self.oldest_exp_of(&owner) {
                Some(k) => {
                    self.remove_exp(tracker, &k)?;
                    self.stats.evicted += 1;
                }
                None => return Ok(Err(Refusal::PerOwner)),
            }
        }
        // The global cap, never more than the live set can hold.
        let cap = self.limits.max_flows.min(tracker.endpoint_capacity());
        if self.exps.len() + self.flows.len() >= cap {
            match self.exps.oldest(usize::MAX, |_, _| true) {
                Some(k) => {
                    self.remove_exp(tracker, &k)?;
                    self.stats.evicted += 1;
                }
                None => return Ok(Err(Refusal::Flows)),
            }
        }
        tracker.acquire(key.listener)?;
        self.exps.insert(
            key,
            Exp {
                owner,
                expires_ns: now.saturating_add(timeout_ns),
            },
        );
        if let Some(s) = self.owners.get_mut(&owner) {
            s.members.push(Member::Exp(key));
            s.last_ns = now;
        }
        self.stats.expected += 1;
        Ok(Ok(()))
    }

    fn oldest_exp_of(&self, owner: &Owner) -> Option<ExpKey> {
        self.owners
            .get(owner)?
            .members
            .iter()
            .find_map(|m| match m {
                Member::Exp(k) => Some(*k),
                Member::Flow(_) => None,
            })
    }

    fn forget_member(&mut self, owner: &Owner, m: Member) {
        if let Some(s) = self.owners.get_mut(owner) {
            s.members.retain(|x| *x != m);
        }
    }

    fn remove_exp(&mut self, tracker: &mut Tracker, k: &ExpKey) -> Result<(), Error> {
        if let Some(e) = self.exps.remove(k) {
            self.forget_member(&e.owner, Member::Exp(*k));
            tracker.release(&k.listener)?;
        }
        Ok(())
    }

    fn remove_flow(&mut self, tracker: &mut Tracker, k: &FlowKey) -> Result<(), Error> {
        if let Some(f) = self.flows.remove(k) {
            self.forget_member(&f.owner, Member::Flow(*k));
            tracker.release(&k.listener)?;
            self.stats.flows_removed += 1;
        }
        Ok(())
    }

    /// Removes an owner with everything it owns (BYE, TEARDOWN, eviction).
    pub(crate) fn drop_owner(&mut self, tracker: &mut Tracker, o: &Owner) -> Result<(), Error> {
        let Some(s) = self.owners.remove(o) else {
            return Ok(());
        };
        for m in s.members {
            match m {
                Member::Exp(k) => {
                    if self.exps.remove(&k).is_some() {
                        tracker.release(&k.listener)?;
                    }
                }
                Member::Flow(k) => {
                    if self.flows.remove(&k).is_some() {
                        tracker.release(&k.listener)?;
                        self.stats.flows_removed += 1;
                    }
                }
            }
        }
        Ok(())
    }

    /// A control connection went away: its unused expectations go with it (as
    /// conntrack removes a dead master's expectations); its flows live on.
    pub(crate) fn drop_expectations_of(
        &mut self,
        tracker: &mut Tracker,
        o: &Owner,
    ) -> Result<(), Error> {
        while let Some(k) = self.oldest_exp_of(o) {
            self.remove_exp(tracker, &k)?;
        }
        if !self.has_flows(o) {
            self.owners.remove(o);
        }
        Ok(())
    }

    /// Whether the packet belongs to a flow, or opens one from an expectation;
    /// updates the flow's state.
    pub(crate) fn admit(&mut self, seg: &Segment<'_>, now: u64) -> bool {
        let Some(t) = Transport::from_proto(seg.proto) else {
            return false;
        };
        let ep = |addr, port| Endpoint {
            addr,
            port,
            transport: t,
        };
        let to_listener = FlowKey {
            listener: ep(seg.dst, seg.dport),
            peer: (seg.src, seg.sport),
        };
        let from_listener = FlowKey {
            listener: ep(seg.src, seg.sport),
            peer: (seg.dst, seg.dport),
        };
        for (k, from_peer) in [(to_listener, true), (from_listener, false)] {
            if let Some(f) = self.flows.get_mut(&k) {
                f.last_ns = now;
                if t == Transport::Tcp {
                    if seg.flags & FIN != 0 {
                        f.fins |= if from_peer { 2 } else { 1 };
                    }
                    if (seg.flags & RST != 0 || f.fins == 3) && f.closed_ns.is_none() {
                        f.closed_ns = Some(now);
                    }
                }
                let owner = f.owner;
                if let Some(s) = self.owners.get_mut(&owner) {
                    s.last_ns = now;
                }
                return true;
            }
        }
        // A new flow opens only from the peer, with a SYN for TCP.
        const ACK: u8 = 0x10;
        if t == Transport::Tcp && seg.flags & (SYN | ACK | RST | FIN) != SYN {
            return false;
        }
        let exact = ExpKey {
            listener: to_listener.listener,
            peer: Some(seg.src),
        };
        let any = ExpKey {
            peer: None,
            ..exact
        };
        let Some((ek, e)) = [exact, any]
            .into_iter()
            .find_map(|k| self.exps.remove(&k).map(|e| (k, e)))
        else {
            return false;
        };
        // The expectation's reference on the listener passes to the flow.
        let owner = e.owner;
        self.flows.insert(
            to_listener,
            Flow {
                owner,
                last_ns: now,
                fins: 0,
                closed_ns: None,
            },
        );
        if let Some(s) = self.owners.get_mut(&owner) {
            for m in s.members.iter_mut() {
                if *m == Member::Exp(ek) {
                    *m = Member::Flow(to_listener);
                }
            }
            s.last_ns = now;
        }
        self.stats.flows += 1;
        true
    }

    /// Removes expired expectations, closed and idle flows, and dialogs idle with
    /// nothing left (`dialog_idle_ns`).
    pub(crate) fn expire(
        &mut self,
        tracker: &mut Tracker,
        now: u64,
        dialog_idle_ns: u64,
    ) -> Result<(), Error> {
        for k in self.exps.select(|_, e| now >= e.expires_ns) {
            self.remove_exp(tracker, &k)?;
            self.stats.expired += 1;
        }
        let Timers { linger_ns, idle_ns } = self.timers;
        let due: Vec<FlowKey> = self
            .flows
            .iter()
            .filter(|(_, f)| {
                f.closed_ns
                    .is_some_and(|c| now >= c.saturating_add(linger_ns))
                    || now >= f.last_ns.saturating_add(idle_ns)
            })
            .map(|(k, _)| *k)
            .collect();
        for k in due {
            self.remove_flow(tracker, &k)?;
        }
        for o in self
            .owners
            .select(|_, s| s.members.is_empty() && now >= s.last_ns.saturating_add(dialog_idle_ns))
        {
            self.owners.remove(&o);
        }
        Ok(())
    }
}
