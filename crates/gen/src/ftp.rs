//! The passive-mode FTP workload of the Swift paper (section 5.1, "FTPCap"): many
//! FTP servers, each with concurrent passive transfers started one by one, so a
//! filter must be updated every time a `227 Entering Passive Mode` reply announces
//! a new data connection.
//!
//! # What is generated
//!
//! [`ftp_workload`] turns an [`FtpConfig`] into an [`FtpWorkload`]: the packets in
//! time order, a [`Class`] per packet (the ground truth) and one [`DataConn`] per
//! transfer with the packet indices a benchmark needs (the 227 reply, the data
//! SYN, the last packet).
//!
//! Each *transfer* `k` has its own client (192.168.0.0/16) and its own control
//! connection to server `k % servers` (10.1.0.0/16) on port 21, carrying exactly
//! one PASV cycle; the transfer id `k` names both the control connection and the
//! data connection it announces. (One control connection per transfer, rather than
//! one per client with several PASV cycles, keeps every data connection's
//! announcement, client and lifetime independent, which is how the paper's trace
//! of 200 concurrent transfers was made.) Transfers start one by one, evenly over
//! the first 40% of the duration, round-robin over the servers, and each lasts 55%
//! of it, so the number of open data connections climbs from 1 to
//! `servers × transfers` and then falls again.
//!
//! The monitor sits next to the servers (as on the paper's LAN): a server answers
//! after a short processing delay (20-120 µs) and a client's answer to a server
//! packet is seen one round-trip time (`rtt`) plus a think time (0-300 µs) later.
//! The per-transfer timeline (times relative to the transfer's start):
//!
//! ```text
//! control  C→S SYN, S→C SYN-ACK, C→S ACK            three-way handshake (MSS, SACK, WS options)
//!          S 220, C USER, S 331, C PASS, S 230, C TYPE I, S 200, C PASV
//!          S 227 Entering Passive Mode (10,1,x,y,p1,p2).   ← announce_index
//! data     C→S SYN to the announced port, rtt + think after the 227   ← first_data_index
//! control  C RETR, S 150, C ACK
//! data     S→C SYN-ACK, C→S ACK, then a burst of `burst_segments` full-size
//!          (1460-byte) segments at 1 Gbit/s line rate, then one segment every
//!          1/rate_pps s (±10%) until the transfer's time is up; the client ACKs
//!          every second segment (rtt later); S FIN, C FIN-ACK, S ACK
//! control  S 226, C QUIT, S 221, S FIN, C FIN-ACK, S ACK
//! ```
//!
//! Sequence and acknowledgment numbers follow the bytes actually sent (random
//! ISNs); IPv4 identifications count up per sender and connection.
//!
//! Optional background traffic (`background_pps`) is TCP (55%), UDP (35%) and ICMP
//! echo (10%) between hosts of 172.16.0.0/16 and 172.20.0.0/16, arriving uniformly
//! at random with the given mean rate. It never involves an FTP server or client
//! address, never uses port 20 or 21 (UDP uses 40000-49999 so that tcpdump
//! decodes nothing in it), so no FTP filter can match it.
//!
//! # Invariants (checked by the tests)
//!
//! - packets are in non-decreasing time, multiples of 1 µs (the pcap file is in µs);
//! - the data ports of one server are distinct, in 1024..=65535, and no client
//!   port of a transfer to that server equals one of them, so a packet is `Data(k)`
//!   exactly when it is on (server, port) of transfer `k` — and it always comes
//!   after that transfer's 227 reply;
//! - every data SYN is at least `rtt` after its 227 reply;
//! - all randomness comes from [`SplitMix64`] seeded by `seed`, with integer
//!   arithmetic only: the same configuration gives the same bytes on any machine.

use std::fmt;
use std::io::{self, Write};
use std::net::Ipv4Addr;

use super::packet::{
    icmp_echo_frame, tcp_frame, udp_frame, Host, IpFields, TcpFlags, TcpSegment, MSS,
};
use super::rng::SplitMix64;
use super::GenPacket;

/// The default trace start, 2024-01-01 00:00:00 UTC, in ns (the first packet
/// comes at most a quarter of a start gap later).
pub const TRACE_EPOCH_NS: u64 = 1_704_067_200 * NS_PER_S;

const NS_PER_S: u64 = 1_000_000_000;
const NS_PER_MS: u64 = 1_000_000;
const NS_PER_US: u64 = 1_000;

/// Time to send one full-size frame at 1 Gbit/s: 1514 bytes plus 8 bytes of
/// preamble and 12 of inter-frame gap, at 8 ns a byte.
const WIRE_NS_FULL_FRAME: u64 = (1514 + 8 + 12) * 8;

/// Server processing delay, ns.
const SERVER_DELAY: (u64, u64) = (20 * NS_PER_US, 120 * NS_PER_US);
/// Client think time on top of the round trip, ns.
const CLIENT_THINK: (u64, u64) = (0, 300 * NS_PER_US);
/// Client delay before acknowledging data, ns.
const CLIENT_ACK_DELAY: (u64, u64) = (5 * NS_PER_US, 40 * NS_PER_US);

/// Receive windows: Linux's initial values in SYNs, then scaled by 2^7.
const CLIENT_SYN_WINDOW: u16 = 64240;
const SERVER_SYN_WINDOW: u16 = 65160;
const CLIENT_WINDOW: u16 = 502;
const SERVER_WINDOW: u16 = 509;
/// SYN options: MSS 1460, NOP, NOP, SACK permitted, NOP, window scale 7.
const SYN_OPTIONS: [u8; 12] = [2, 4, 0x05, 0xb4, 1, 1, 4, 2, 1, 3, 3, 7];

/// Largest accepted values, to keep addresses and ports unambiguous.
const MAX_SERVERS: u32 = 1000;
const MAX_TRANSFERS_PER_SERVER: u32 = 10_000;
const MAX_TRANSFERS: u32 = 64_000;
/// The generator holds the whole trace in memory; refuse configurations that
/// would need more than this many packets (about 10 GB).
const MAX_PACKETS: u64 = 20_000_000;

/// What to generate. [`FtpConfig::default`] is the documented default: 10 servers
/// × 20 transfers, 20 ms RTT, 10 s, seed 1, no background, snapshot length 65535,
/// bursts of 160 segments then 20 segments/s per connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FtpConfig {
    /// Number of FTP servers (distinct addresses 10.1.x.y).
    pub servers: u32,
    /// Concurrent passive transfers per server.
    pub transfers: u32,
    /// Client round-trip time as seen from the monitor next to the servers, ns
    /// (rounded down to whole µs).
    pub rtt_ns: u64,
    /// Target length of the trace, ns. Transfers start over the first 40% and
    /// each lasts 55% of it; the trace may run a few round trips longer (closing
    /// handshakes), or longer still if it is too short to hold a transfer.
    pub duration_ns: u64,
    /// Seed of every random choice.
    pub seed: u64,
    /// Mean rate of background packets per second (0: none).
    pub background_pps: u64,
    /// Snapshot length: frames are cut to this many bytes (the pcap header says
    /// so too); checksums are computed on the whole frame.
    pub snaplen: u32,
    /// Full-size data segments each data connection sends back to back first.
    pub burst_segments: u32,
    /// Data segments per second per connection after the burst (0: the transfer
    /// ends after its burst).
    pub rate_pps: u32,
    /// Trace start, ns since the Unix epoch (transfer 0 starts within a quarter of
    /// a start gap of it).
    pub epoch_ns: u64,
}

impl Default for FtpConfig {
    fn default() -> Self {
        FtpConfig {
            servers: 10,
            transfers: 20,
            rtt_ns: 20 * NS_PER_MS,
            duration_ns: 10 * NS_PER_S,
            seed: 1,
            background_pps: 0,
            snaplen: 65535,
            burst_segments: 160,
            rate_pps: 20,
            epoch_ns: TRACE_EPOCH_NS,
        }
    }
}

/// A configuration the generator refuses, with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// What is wrong, naming the field.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid FTP workload configuration: {}", self.message)
    }
}

impl std::error::Error for ConfigError {}

impl FtpConfig {
    /// Checks the limits that keep addresses, ports and memory use sane.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let fail = |message: String| Err(ConfigError { message });
        if !(1..=MAX_SERVERS).contains(&self.servers) {
            return fail(format!(
                "servers must be 1..={MAX_SERVERS}, not {}",
                self.servers
            ));
        }
        if !(1..=MAX_TRANSFERS_PER_SERVER).contains(&self.transfers) {
            return fail(format!(
                "transfers must be 1..={MAX_TRANSFERS_PER_SERVER}, not {}",
                self.transfers
            ));
        }
        if self.servers * self.transfers > MAX_TRANSFERS {
            return fail(format!(
                "servers × transfers must be at most {MAX_TRANSFERS} (one client address each), not {}",
                self.servers * self.transfers
            ));
        }
        if self.rtt_ns > 10 * NS_PER_S {
            return fail(format!("rtt must be at most 10 s, not {} ns", self.rtt_ns));
        }
        if self.duration_ns == 0 || self.duration_ns > 24 * 3600 * NS_PER_S {
            return fail(format!(
                "duration must be above 0 and at most one day, not {} ns",
                self.duration_ns
            ));
        }
        if !(1..=262_144).contains(&self.snaplen) {
            return fail(format!("snaplen must be 1..=262144, not {}", self.snaplen));
        }
        if !(1..=1_000_000).contains(&self.burst_segments) {
            return fail(format!(
                "burst segments must be 1..=1000000, not {}",
                self.burst_segments
            ));
        }
        if self.rate_pps > 1_000_000 {
            return fail(format!(
                "rate must be at most 1000000 pps, not {}",
                self.rate_pps
            ));
        }
        let n = u64::from(self.servers * self.transfers);
        let secs = self.duration_ns.div_ceil(NS_PER_S);
        let estimate = n * (u64::from(self.burst_segments) + u64::from(self.rate_pps) * secs) * 3
            / 2
            + self.background_pps.saturating_mul(secs);
        if estimate > MAX_PACKETS {
            return fail(format!(
                "about {estimate} packets would be generated, more than the {MAX_PACKETS} held in memory"
            ));
        }
        Ok(())
    }
}

/// What a packet is, for the ground truth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// On the control connection (port 21) of transfer `k`.
    Control(u32),
    /// On the data connection of transfer `k` (the one its 227 reply announced).
    Data(u32),
    /// Background traffic, no FTP.
    Background,
}

impl Class {
    /// `control`, `data` or `background`, as in the truth file.
    pub fn name(self) -> &'static str {
        match self {
            Class::Control(_) => "control",
            Class::Data(_) => "data",
            Class::Background => "background",
        }
    }

    /// The transfer id, if the packet belongs to a transfer.
    pub fn conn(self) -> Option<u32> {
        match self {
            Class::Control(k) | Class::Data(k) => Some(k),
            Class::Background => None,
        }
    }
}

/// One passive transfer: its control connection and the data connection it
/// announced. All indices are into [`FtpWorkload::packets`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataConn {
    /// Transfer id (the index of this entry; transfers are numbered in start order).
    pub id: u32,
    /// Server number (`id % servers`).
    pub server_index: u32,
    /// Server address.
    pub server: Ipv4Addr,
    /// Announced server data port.
    pub port: u16,
    /// Client address.
    pub client: Ipv4Addr,
    /// Client port of the data connection.
    pub client_port: u16,
    /// Client port of the control connection (server port 21).
    pub control_port: u16,
    /// Index of the `227 Entering Passive Mode` reply that announces `port`.
    pub announce_index: usize,
    /// Index of the data connection's SYN (its first packet).
    pub first_data_index: usize,
    /// Index of the data connection's last packet (the server's final ACK).
    pub last_data_index: usize,
    /// Number of packets of the data connection (handshakes and ACKs included).
    pub data_packets: u32,
    /// Number of full-size payload segments (the file is this × 1460 bytes).
    pub segments: u32,
}

/// A generated workload: packets in time order and their ground truth.
#[derive(Clone, Debug)]
pub struct FtpWorkload {
    /// The configuration it was generated from.
    pub config: FtpConfig,
    /// The packets, in non-decreasing time.
    pub packets: Vec<GenPacket>,
    /// `truth[i]` is the class of `packets[i]`.
    pub truth: Vec<Class>,
    /// One entry per transfer, `connections[k].id == k`.
    pub connections: Vec<DataConn>,
}

/// Summary figures of a workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FtpStats {
    /// All packets.
    pub packets: usize,
    /// Control-connection packets.
    pub control: usize,
    /// Data-connection packets.
    pub data: usize,
    /// Background packets.
    pub background: usize,
    /// Data connections (transfers).
    pub connections: usize,
    /// Time from the first to the last packet, ns.
    pub span_ns: u64,
    /// Largest number of data connections open at once (from SYN to last packet).
    pub max_concurrency: usize,
    /// Sum of the frames' wire lengths.
    pub wire_bytes: u64,
    /// Size of the pcap file [`FtpWorkload::write_pcap`] writes.
    pub file_bytes: u64,
}

impl FtpWorkload {
    /// Counts, time span and peak concurrency.
    pub fn stats(&self) -> FtpStats {
        let mut s = FtpStats {
            packets: self.packets.len(),
            control: 0,
            data: 0,
            background: 0,
            connections: self.connections.len(),
            span_ns: match (self.packets.first(), self.packets.last()) {
                (Some(a), Some(b)) => b.ts_ns - a.ts_ns,
                _ => 0,
            },
            max_concurrency: self.max_concurrency(),
            wire_bytes: self.packets.iter().map(|p| u64::from(p.orig_len)).sum(),
            file_bytes: 24
                + self
                    .packets
                    .iter()
                    .map(|p| 16 + p.data.len() as u64)
                    .sum::<u64>(),
        };
        for c in &self.truth {
            match c {
                Class::Control(_) => s.control += 1,
                Class::Data(_) => s.data += 1,
                Class::Background => s.background += 1,
            }
        }
        s
    }

    /// The largest number of data connections open at once, counting a
    /// connection open from its SYN to its last packet inclusive.
    pub fn max_concurrency(&self) -> usize {
        let mut delta = vec![0i64; self.packets.len() + 1];
        for c in &self.connections {
            delta[c.first_data_index] += 1;
            delta[c.last_data_index + 1] -= 1;
        }
        let mut open = 0i64;
        let mut max = 0i64;
        for d in delta {
            open += d;
            max = max.max(open);
        }
        max as usize
    }

    /// For each transfer, the data packets of its data connection before the first
    /// one a filter accepted (all of them if it accepted none): the paper's
    /// "missing packets per data connection". `accepted[i]` is the filter's verdict
    /// on `packets[i]`.
    ///
    /// Panics if `accepted` is not as long as `packets`.
    pub fn missed_packets(&self, accepted: &[bool]) -> Vec<u32> {
        assert_eq!(accepted.len(), self.packets.len(), "one verdict per packet");
        let mut missed = vec![0u32; self.connections.len()];
        let mut caught = vec![false; self.connections.len()];
        for (class, &ok) in self.truth.iter().zip(accepted) {
            if let Class::Data(k) = *class {
                let k = k as usize;
                if caught[k] {
                    continue;
                }
                if ok {
                    caught[k] = true;
                } else {
                    missed[k] += 1;
                }
            }
        }
        missed
    }

    /// Writes the packets as a microsecond Ethernet pcap file.
    pub fn write_pcap<W: Write>(&self, w: W) -> io::Result<W> {
        super::write_pcap(w, &self.packets, self.config.snaplen)
    }

    /// Writes the ground truth: a `#` header line, then `index<TAB>class<TAB>conn`
    /// per packet (0-based index, `control`/`data`/`background`, transfer id or
    /// `-`).
    pub fn write_truth<W: Write>(&self, mut w: W) -> io::Result<W> {
        writeln!(
            w,
            "# index\tclass\tconn (index: 0-based packet number in the pcap; class: control|data|background; conn: transfer id, shared by a control connection and the data connection its 227 announces; - for background)"
        )?;
        for (i, c) in self.truth.iter().enumerate() {
            match c.conn() {
                Some(k) => writeln!(w, "{i}\t{}\t{k}", c.name())?,
                None => writeln!(w, "{i}\t{}\t-", c.name())?,
            }
        }
        w.flush()?;
        Ok(w)
    }
}

/// Marks on events whose final packet index a [`DataConn`] records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mark {
    None,
    Announce(u32),
    DataSyn(u32),
}

/// One packet before merging: time relative to the trace start, in ns.
struct Event {
    ts: u64,
    frame: Vec<u8>,
    class: Class,
    mark: Mark,
}

/// Generates the workload described by `cfg`.
pub fn ftp_workload(cfg: &FtpConfig) -> Result<FtpWorkload, ConfigError> {
    cfg.validate()?;
    let root = SplitMix64::new(cfg.seed);
    let rtt = cfg.rtt_ns / NS_PER_US * NS_PER_US;
    let plans = plan_transfers(cfg, &root);

    let mut events = Vec::new();
    let segments: Vec<u32> = plans
        .iter()
        .map(|plan| {
            let mut rng = root.fork((2 << 32) | u64::from(plan.id));
            transfer_events(cfg, rtt, plan, &mut rng, &mut events)
        })
        .collect();
    if cfg.background_pps > 0 {
        let ftp_end = events.iter().map(|e| e.ts).max().unwrap_or(0);
        let end = ftp_end.max(cfg.duration_ns);
        background_events(
            cfg.background_pps,
            end,
            &mut root.fork(3 << 32),
            &mut events,
        );
    }

    // Merge the per-connection streams. The sort is stable and every stream was
    // pushed in causal order, so equal times keep cause before effect.
    events.sort_by_key(|e| e.ts);

    let mut packets = Vec::with_capacity(events.len());
    let mut truth = Vec::with_capacity(events.len());
    let mut announce = vec![usize::MAX; plans.len()];
    let mut syn = vec![usize::MAX; plans.len()];
    let mut last = vec![0usize; plans.len()];
    let mut count = vec![0u32; plans.len()];
    let snaplen = cfg.snaplen as usize;
    for (i, e) in events.into_iter().enumerate() {
        match e.mark {
            Mark::Announce(k) => announce[k as usize] = i,
            Mark::DataSyn(k) => syn[k as usize] = i,
            Mark::None => {}
        }
        if let Class::Data(k) = e.class {
            last[k as usize] = i;
            count[k as usize] += 1;
        }
        let orig_len = e.frame.len() as u32;
        let mut data = e.frame;
        if data.len() > snaplen {
            data.truncate(snaplen);
            data.shrink_to_fit();
        }
        packets.push(GenPacket {
            // Rounding down keeps the order and makes the µs pcap file exact.
            ts_ns: (cfg.epoch_ns + e.ts) / NS_PER_US * NS_PER_US,
            orig_len,
            data,
        });
        truth.push(e.class);
    }

    let connections = plans
        .iter()
        .map(|p| {
            let k = p.id as usize;
            DataConn {
                id: p.id,
                server_index: p.server_index,
                server: p.server.ip,
                port: p.data_port,
                client: p.client.ip,
                client_port: p.client_data_port,
                control_port: p.client_control_port,
                announce_index: announce[k],
                first_data_index: syn[k],
                last_data_index: last[k],
                data_packets: count[k],
                segments: segments[k],
            }
        })
        .collect();
    Ok(FtpWorkload {
        config: cfg.clone(),
        packets,
        truth,
        connections,
    })
}

/// The fixed choices of one transfer, made before any packet is built.
struct Plan {
    id: u32,
    server_index: u32,
    server: Host,
    client: Host,
    data_port: u16,
    client_control_port: u16,
    client_data_port: u16,
    /// Start (control SYN) relative to the trace start, ns.
    start: u64,
    /// When the server should stop sending data, ns.
    data_until: u64,
}

fn server_addr(s: u32) -> Ipv4Addr {
    Ipv4Addr::new(10, 1, (s / 250) as u8, (s % 250 + 1) as u8)
}

fn client_addr(k: u32) -> Ipv4Addr {
    Ipv4Addr::new(192, 168, (k / 250) as u8, (k % 250 + 1) as u8)
}

/// Chooses addresses, ports and start times. Data ports are drawn per server
/// (from the server's own stream) so they are distinct on that server; client
/// ports avoid them so "on (server, data port)" identifies the data connection.
fn plan_transfers(cfg: &FtpConfig, root: &SplitMix64) -> Vec<Plan> {
    let n = cfg.servers * cfg.transfers;
    let mut used: Vec<Vec<bool>> = Vec::with_capacity(cfg.servers as usize);
    let mut ports: Vec<Vec<u16>> = Vec::with_capacity(cfg.servers as usize);
    for s in 0..cfg.servers {
        let mut rng = root.fork((1 << 32) | u64::from(s));
        let mut taken = vec![false; 65536];
        let mut list = Vec::with_capacity(cfg.transfers as usize);
        while list.len() < cfg.transfers as usize {
            let p = rng.range(1024, 65535) as usize;
            if !taken[p] {
                taken[p] = true;
                list.push(p as u16);
            }
        }
        used.push(taken);
        ports.push(list);
    }

    let ramp = cfg.duration_ns * 2 / 5;
    let hold = cfg.duration_ns * 11 / 20;
    let gap = ramp / u64::from(n);
    (0..n)
        .map(|k| {
            let s = k % cfg.servers;
            let mut rng = root.fork((4 << 32) | u64::from(k));
            let taken = &used[s as usize];
            // Linux's default ephemeral range.
            let mut ephemeral = |avoid: u16| loop {
                let p = rng.range(32768, 60999) as u16;
                if !taken[p as usize] && p != avoid {
                    break p;
                }
            };
            let client_control_port = ephemeral(0);
            let client_data_port = ephemeral(client_control_port);
            // The jitter stays below a quarter gap, so starts keep their order.
            let start = u64::from(k) * gap + rng.below(gap / 4 + 1);
            Plan {
                id: k,
                server_index: s,
                server: Host::from_ip(server_addr(s)),
                client: Host::from_ip(client_addr(k)),
                data_port: ports[s as usize][(k / cfg.servers) as usize],
                client_control_port,
                client_data_port,
                start,
                data_until: start + hold,
            }
        })
        .collect()
}

/// Which way a segment goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    ToServer,
    ToClient,
}

/// One TCP connection's sending state: next sequence numbers and IPv4
/// identifications of both ends.
struct Conn {
    client: Host,
    server: Host,
    cport: u16,
    sport: u16,
    c_seq: u32,
    s_seq: u32,
    c_ident: u16,
    s_ident: u16,
    class: Class,
}

impl Conn {
    fn new(plan: &Plan, cport: u16, sport: u16, class: Class, rng: &mut SplitMix64) -> Self {
        Conn {
            client: plan.client,
            server: plan.server,
            cport,
            sport,
            c_seq: rng.next_u32(),
            s_seq: rng.next_u32(),
            c_ident: rng.next_u32() as u16,
            s_ident: rng.next_u32() as u16,
            class,
        }
    }

    /// Sends one segment at `ts`. `ack` defaults to everything the peer has sent
    /// so far (true whenever the sender has seen the peer's last segment).
    #[allow(clippy::too_many_arguments)]
    fn send(
        &mut self,
        out: &mut Vec<Event>,
        ts: u64,
        dir: Dir,
        flags: u8,
        ack: Option<u32>,
        payload: &[u8],
        mark: Mark,
    ) {
        let syn = flags & TcpFlags::SYN != 0;
        let (src, dst, sport, dport, seq, peer_seq, ident, window) = match dir {
            Dir::ToServer => (
                self.client,
                self.server,
                self.cport,
                self.sport,
                &mut self.c_seq,
                self.s_seq,
                &mut self.c_ident,
                if syn {
                    CLIENT_SYN_WINDOW
                } else {
                    CLIENT_WINDOW
                },
            ),
            Dir::ToClient => (
                self.server,
                self.client,
                self.sport,
                self.cport,
                &mut self.s_seq,
                self.c_seq,
                &mut self.s_ident,
                if syn {
                    SERVER_SYN_WINDOW
                } else {
                    SERVER_WINDOW
                },
            ),
        };
        // A bare SYN carries no acknowledgment; everything else does.
        let ack_no = if flags & TcpFlags::ACK != 0 {
            ack.unwrap_or(peer_seq)
        } else {
            0
        };
        let frame = tcp_frame(&TcpSegment {
            src,
            dst,
            sport,
            dport,
            ip: IpFields {
                ident: *ident,
                ttl: 64,
                dont_frag: true,
            },
            seq: *seq,
            ack: ack_no,
            flags,
            window,
            options: if syn { &SYN_OPTIONS } else { &[] },
            payload,
        });
        *ident = ident.wrapping_add(1);
        let consumed =
            payload.len() as u32 + u32::from(syn) + u32::from(flags & TcpFlags::FIN != 0);
        *seq = seq.wrapping_add(consumed);
        out.push(Event {
            ts,
            frame,
            class: self.class,
            mark,
        });
    }
}

/// Random delays of one transfer.
struct Timing<'a> {
    rng: &'a mut SplitMix64,
    rtt: u64,
}

impl Timing<'_> {
    fn server(&mut self) -> u64 {
        self.rng.range(SERVER_DELAY.0, SERVER_DELAY.1)
    }

    /// A client's answer to a server packet: one round trip plus think time.
    fn client(&mut self) -> u64 {
        self.rtt + self.rng.range(CLIENT_THINK.0, CLIENT_THINK.1)
    }

    fn client_ack(&mut self) -> u64 {
        self.rtt + self.rng.range(CLIENT_ACK_DELAY.0, CLIENT_ACK_DELAY.1)
    }
}

const PA: u8 = TcpFlags::PSH | TcpFlags::ACK;
const ACK: u8 = TcpFlags::ACK;
const FA: u8 = TcpFlags::FIN | TcpFlags::ACK;

/// Generates both connections of one transfer (see the module documentation for
/// the timeline); returns the number of payload segments.
fn transfer_events(
    cfg: &FtpConfig,
    rtt: u64,
    plan: &Plan,
    rng: &mut SplitMix64,
    out: &mut Vec<Event>,
) -> u32 {
    let k = plan.id;
    let mut ctl = Conn::new(plan, plan.client_control_port, 21, Class::Control(k), rng);
    let mut dat = Conn::new(
        plan,
        plan.client_data_port,
        plan.data_port,
        Class::Data(k),
        rng,
    );
    let mut file = vec![0u8; 8192];
    rng.fill(&mut file[..4096]);
    file.copy_within(..4096, 4096);
    let mut tm = Timing { rng, rtt };
    use Dir::{ToClient as S2C, ToServer as C2S};
    let none = Mark::None;

    // Control connection: handshake and login dialog.
    let mut t = plan.start;
    ctl.send(out, t, C2S, TcpFlags::SYN, None, &[], none);
    t += tm.server();
    ctl.send(out, t, S2C, TcpFlags::SYN | ACK, None, &[], none);
    t += tm.client();
    ctl.send(out, t, C2S, ACK, None, &[], none);
    t += tm.server();
    ctl.send(
        out,
        t,
        S2C,
        PA,
        None,
        b"220 (netsift-bench FTP server)\r\n",
        none,
    );
    let dialog: [(&[u8], &[u8]); 3] = [
        (
            b"USER anonymous\r\n",
            b"331 Please specify the password.\r\n",
        ),
        (b"PASS bench@example.org\r\n", b"230 Login successful.\r\n"),
        (b"TYPE I\r\n", b"200 Switching to Binary mode.\r\n"),
    ];
    for (cmd, reply) in dialog {
        t += tm.client();
        ctl.send(out, t, C2S, PA, None, cmd, none);
        t += tm.server();
        ctl.send(out, t, S2C, PA, None, reply, none);
    }
    t += tm.client();
    ctl.send(out, t, C2S, PA, None, b"PASV\r\n", none);
    t += tm.server();
    let ip = plan.server.ip.octets();
    let pasv = format!(
        "227 Entering Passive Mode ({},{},{},{},{},{}).\r\n",
        ip[0],
        ip[1],
        ip[2],
        ip[3],
        plan.data_port >> 8,
        plan.data_port & 0xff
    );
    ctl.send(out, t, S2C, PA, None, pasv.as_bytes(), Mark::Announce(k));

    // The client connects to the announced port and sends RETR at once.
    let t_syn = t + tm.client();
    dat.send(out, t_syn, C2S, TcpFlags::SYN, None, &[], Mark::DataSyn(k));
    let t_synack = t_syn + tm.server();
    dat.send(out, t_synack, S2C, TcpFlags::SYN | ACK, None, &[], none);
    let t_est = t_synack + tm.client();
    dat.send(out, t_est, C2S, ACK, None, &[], none);

    // The data schedule, known in advance so the 150 reply can give the size.
    let t_retr = t_syn + 5 * NS_PER_US;
    let t_150 = t_retr + tm.server();
    let mut sched = Vec::new();
    let t0 = t_est.max(t_150) + tm.server();
    for i in 0..u64::from(cfg.burst_segments) {
        sched.push(t0 + i * WIRE_NS_FULL_FRAME);
    }
    if cfg.rate_pps > 0 {
        let period = NS_PER_S / u64::from(cfg.rate_pps);
        let mut ts = *sched.last().expect("burst_segments >= 1");
        loop {
            ts += period - period / 10 + tm.rng.below(period / 5 + 1);
            if ts > plan.data_until {
                break;
            }
            sched.push(ts);
        }
    }
    let bytes = sched.len() as u64 * MSS as u64;

    ctl.send(
        out,
        t_retr,
        C2S,
        PA,
        None,
        format!("RETR file{k}.bin\r\n").as_bytes(),
        none,
    );
    let reply =
        format!("150 Opening BINARY mode data connection for file{k}.bin ({bytes} bytes).\r\n");
    ctl.send(out, t_150, S2C, PA, None, reply.as_bytes(), none);
    let t = t_150 + tm.client();
    ctl.send(out, t, C2S, ACK, None, &[], none);

    // Data: the server sends, the client acknowledges every second segment.
    let data_isn = dat.s_seq;
    let mut last_client = t_est;
    for (i, &ts) in sched.iter().enumerate() {
        let off = i * MSS % 4096;
        dat.send(out, ts, S2C, ACK, None, &file[off..off + MSS], none);
        if i % 2 == 1 {
            let acked = data_isn.wrapping_add(((i + 1) * MSS) as u32);
            // A random ACK delay must not let one ACK overtake the previous one.
            last_client = (ts + tm.client_ack()).max(last_client + NS_PER_US);
            dat.send(out, last_client, C2S, ACK, Some(acked), &[], none);
        }
    }
    let t_fin = sched.last().copied().unwrap_or(t0) + tm.server();
    dat.send(out, t_fin, S2C, FA, None, &[], none);
    let t = (t_fin + tm.client()).max(last_client + NS_PER_US);
    dat.send(out, t, C2S, FA, None, &[], none);
    let t = t + tm.server();
    dat.send(out, t, S2C, ACK, None, &[], none);

    // Control: completion, QUIT, and the server closes first.
    let mut t = t_fin + tm.server();
    ctl.send(out, t, S2C, PA, None, b"226 Transfer complete.\r\n", none);
    t += tm.client();
    ctl.send(out, t, C2S, PA, None, b"QUIT\r\n", none);
    t += tm.server();
    ctl.send(out, t, S2C, PA, None, b"221 Goodbye.\r\n", none);
    t += 10 * NS_PER_US;
    ctl.send(out, t, S2C, FA, None, &[], none);
    t += tm.client();
    ctl.send(out, t, C2S, FA, None, &[], none);
    t += tm.server();
    ctl.send(out, t, S2C, ACK, None, &[], none);
    sched.len() as u32
}

/// A background TCP or UDP conversation, or an ICMP echo pair.
struct BgFlow {
    a: Host,
    b: Host,
    aport: u16,
    bport: u16,
    a_seq: u32,
    b_seq: u32,
    a_ident: u16,
    b_ident: u16,
    ttl: u8,
    /// ICMP: an echo request is outstanding.
    pending: bool,
}

fn bg_host(rng: &mut SplitMix64, second: u8) -> Host {
    Host::from_ip(Ipv4Addr::new(
        172,
        second,
        rng.below(256) as u8,
        rng.range(1, 254) as u8,
    ))
}

fn bg_flow(rng: &mut SplitMix64, aport: u16, bport: u16) -> BgFlow {
    BgFlow {
        a: bg_host(rng, 16),
        b: bg_host(rng, 20),
        aport,
        bport,
        a_seq: rng.next_u32(),
        b_seq: rng.next_u32(),
        a_ident: rng.next_u32() as u16,
        b_ident: rng.next_u32() as u16,
        ttl: rng.range(48, 64) as u8,
        pending: false,
    }
}

/// Background traffic over `[0, end)`: mid-flow TCP segments (well-known server
/// ports other than 20/21), UDP datagrams and ICMP echoes, with uniform random
/// gaps averaging 1/pps.
fn background_events(pps: u64, end: u64, rng: &mut SplitMix64, out: &mut Vec<Event>) {
    const TCP_PORTS: [u16; 5] = [80, 443, 8080, 8443, 9000];
    let mut tcp: Vec<BgFlow> = (0..64)
        .map(|_| {
            let sport = TCP_PORTS[rng.below(TCP_PORTS.len() as u64) as usize];
            let cport = rng.range(32768, 60999) as u16;
            bg_flow(rng, cport, sport)
        })
        .collect();
    let mut udp: Vec<BgFlow> = (0..32)
        .map(|_| {
            let a = rng.range(40000, 49999) as u16;
            let b = rng.range(40000, 49999) as u16;
            bg_flow(rng, a, b)
        })
        .collect();
    let mut icmp: Vec<BgFlow> = (0..8).map(|_| bg_flow(rng, 0, 0)).collect();

    let mean_gap = (NS_PER_S / pps).max(1);
    let mut payload = vec![0u8; MSS];
    let mut t = rng.below(mean_gap);
    while t < end {
        let kind = rng.below(100);
        let frame = if kind < 55 {
            let f = &mut tcp[rng.below(64) as usize];
            let len = match rng.below(10) {
                0..=2 => 0,
                3..=5 => MSS,
                _ => rng.range(64, MSS as u64) as usize,
            };
            rng.fill(&mut payload[..len]);
            let to_b = rng.percent(50);
            let (src, dst, sport, dport, seq, ack, ident) = if to_b {
                (
                    f.a,
                    f.b,
                    f.aport,
                    f.bport,
                    &mut f.a_seq,
                    f.b_seq,
                    &mut f.a_ident,
                )
            } else {
                (
                    f.b,
                    f.a,
                    f.bport,
                    f.aport,
                    &mut f.b_seq,
                    f.a_seq,
                    &mut f.b_ident,
                )
            };
            let frame = tcp_frame(&TcpSegment {
                src,
                dst,
                sport,
                dport,
                ip: IpFields {
                    ident: *ident,
                    ttl: f.ttl,
                    dont_frag: true,
                },
                seq: *seq,
                ack,
                flags: if len == 0 { ACK } else { PA },
                window: 1024,
                options: &[],
                payload: &payload[..len],
            });
            *seq = seq.wrapping_add(len as u32);
            *ident = ident.wrapping_add(1);
            frame
        } else if kind < 90 {
            let f = &mut udp[rng.below(32) as usize];
            let len = rng.range(20, 512) as usize;
            rng.fill(&mut payload[..len]);
            let ip = IpFields {
                ident: f.a_ident,
                ttl: f.ttl,
                dont_frag: false,
            };
            f.a_ident = f.a_ident.wrapping_add(1);
            if rng.percent(50) {
                udp_frame(f.a, f.b, f.aport, f.bport, ip, &payload[..len])
            } else {
                udp_frame(f.b, f.a, f.bport, f.aport, ip, &payload[..len])
            }
        } else {
            let i = rng.below(8) as usize;
            let f = &mut icmp[i];
            let body: Vec<u8> = (0..56u8).collect();
            let ident = 0x1000 + i as u16;
            let ttl = f.ttl;
            let ip = |id: &mut u16| {
                let fields = IpFields {
                    ident: *id,
                    ttl,
                    dont_frag: false,
                };
                *id = id.wrapping_add(1);
                fields
            };
            // Requests and replies alternate, the reply echoing the request.
            if f.pending {
                f.pending = false;
                let ip = ip(&mut f.b_ident);
                icmp_echo_frame(f.b, f.a, ip, true, ident, f.a_seq as u16, &body)
            } else {
                f.pending = true;
                f.a_seq = f.a_seq.wrapping_add(1);
                let ip = ip(&mut f.a_ident);
                icmp_echo_frame(f.a, f.b, ip, false, ident, f.a_seq as u16, &body)
            }
        };
        out.push(Event {
            ts: t,
            frame,
            class: Class::Background,
            mark: Mark::None,
        });
        t += rng.below(2 * mean_gap + 1);
    }
}
