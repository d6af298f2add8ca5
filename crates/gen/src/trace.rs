//! A realistic gateway trace for the static-filtering experiment of the Swift paper
//! (section 5.2, Tables 5-7), and the paper's six filters over it.
//!
//! The paper filtered 14 million packets captured at a campus gateway with a 75-byte
//! snapshot length. [`TraceGen`] makes a deterministic stand-in: an endless stream of
//! Ethernet frames from about 600 concurrent conversations, each drawn when the last
//! one ends. [`trace`] collects the first `packets` of it.
//!
//! # What is in it
//!
//! - **Link layer:** IPv4 (about 72% of the packets), IPv6 (about 25%), ARP (2%), and a
//!   little STP (802.3/LLC) and LLDP; one conversation in seven is 802.1Q-tagged
//!   (VLAN 10, 20 or 30), which `ip` without `vlan` does not match, as on a trunk
//!   port, so `ip` accepts about 62%.
//! - **Addresses:** clients in 192.168.2.0/24 (the most active LAN), 192.168.1.0/24,
//!   192.168.3.0/24 and 172.16.0.0/16; internal servers in 10.0.0.0/8; about 4000
//!   public servers in 30 real-world /16s; eight IRC servers. IPv6 conversations use
//!   2001:db8::/32 inside and 2a00:1450::/32 outside. Every pool is fixed (it does not
//!   depend on the seed), so the 38 addresses of filter 6 ([`SEEDS_HOSTS`]) are known:
//!   20 of them take part in conversations, 18 never appear.
//! - **Services and ports:** a Zipf-like table of 26 services (HTTP, HTTPS, DNS, QUIC,
//!   SMTP, IMAP, POP3, SSH, FTP, IRC, SMB, NFS over UDP, NTP, SNMP, RTP, ping, P2P on
//!   ephemeral ports, ...); client ports are ephemeral (Linux 32768-60999 or Windows
//!   49152-65535); servers and clients are chosen Zipf-like (rank `k` has weight
//!   `1/k`) within their pools.
//! - **Conversations:** TCP with handshake (MSS/SACK options), request and response
//!   segments of realistic sizes (full 1460-byte segments for bulk data, a pure ACK
//!   every second segment, interactive exchanges for SSH/IRC/FTP control), FIN or RST
//!   teardown, some already running when the capture starts; DNS/NTP/SNMP
//!   request-response pairs; RTP and syslog streams; NFS datagrams of 8 KB split into
//!   IPv4 fragments (so port tests see non-first fragments); ICMP echo; ARP request and
//!   reply; IGMPv3 reports with the Router Alert IP option (IHL 6), and a few TCP
//!   conversations with IP options, so the `4*([14]&0xf)` header length matters.
//! - **Checksums** are correct on the full frame (IPv4 header, TCP, UDP, ICMP, and
//!   IPv6 pseudo-header checksums); frames are zero-padded to 60 bytes; `data` is cut
//!   at the snapshot length, `orig_len` keeps the length on the wire.
//! - **Time:** 250 000 packets per second on average (the paper's replay rate), whole
//!   microseconds from 2008-01-01.
//!
//! Determinism: all randomness is [`SplitMix64`] with integer arithmetic only, so one
//! configuration gives the same bytes on any machine. Generation is streaming (one
//! frame at a time, O(concurrent conversations) state), about a microsecond a packet.

use std::net::Ipv4Addr;

use super::packet::{
    icmp_echo_frame, internet_checksum, tcp_frame, udp_frame, Host, IpFields, TcpFlags, TcpSegment,
    MIN_FRAME, MSS,
};
use super::rng::SplitMix64;
use super::GenPacket;
use netsift_testkit::frames::Frame;
use netsift_wire::ethernet::{EtherType, EthernetFrame};
use netsift_wire::ipv4::Ipv4Packet;
use netsift_wire::vlan::VlanTag;

/// The 38 addresses of filter 6 (the paper's "suspicious IRC traffic" filter). The
/// first 20 appear in the trace (eight IRC servers, five internal clients, two
/// internal servers, five popular public servers); the last 18 (198.18.0.0/15 and
/// 100.64.0.0/10) never do.
pub const SEEDS_HOSTS: [[u8; 4]; 38] = [
    [195, 154, 200, 15],
    [195, 154, 200, 16],
    [212, 83, 148, 10],
    [62, 231, 75, 133],
    [38, 229, 70, 22],
    [130, 239, 18, 119],
    [193, 10, 255, 100],
    [81, 171, 22, 3],
    [192, 168, 2, 66],
    [192, 168, 2, 101],
    [192, 168, 2, 137],
    [192, 168, 1, 23],
    [172, 16, 4, 17],
    [10, 1, 3, 7],
    [10, 20, 0, 5],
    [203, 0, 113, 80],
    [198, 51, 100, 25],
    [91, 189, 91, 38],
    [23, 21, 150, 121],
    [69, 171, 250, 35],
    [198, 18, 0, 1],
    [198, 18, 0, 2],
    [198, 18, 0, 3],
    [198, 18, 0, 4],
    [198, 18, 0, 5],
    [198, 18, 0, 6],
    [198, 18, 0, 7],
    [198, 18, 0, 8],
    [198, 18, 0, 9],
    [100, 64, 7, 1],
    [100, 64, 7, 2],
    [100, 64, 7, 3],
    [100, 64, 7, 4],
    [100, 64, 7, 5],
    [100, 64, 7, 6],
    [100, 64, 7, 7],
    [100, 64, 7, 8],
    [100, 64, 7, 9],
];

/// How many of [`SEEDS_HOSTS`] (the first ones) take part in the trace.
pub const SEEDS_HOSTS_PRESENT: usize = 20;

/// The six static filters of the paper's Table 5, numbered 1-6, for EN10MB.
pub fn seeds_filters() -> Vec<(u32, String)> {
    let hosts = SEEDS_HOSTS
        .iter()
        .map(|a| Ipv4Addr::from(*a).to_string())
        .collect::<Vec<_>>()
        .join(" or ");
    vec![
        (1, String::new()),
        (2, "ip".to_string()),
        (
            3,
            "ip src net 192.168.2.0/24 and dst net 10.0.0.0/8".to_string(),
        ),
        (4, "ip src or dst net 192.168.2.0/24".to_string()),
        (
            5,
            "ip and tcp port (ssh or http or imap or smtp or pop3 or ftp)".to_string(),
        ),
        (
            6,
            format!("ip and (not tcp port (80 or 25 or 143) and not ip host ({hosts}))"),
        ),
    ]
}

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceConfig {
    /// Number of packets.
    pub packets: usize,
    /// Snapshot length: `data` is cut to this many bytes (75 as in the paper; 65535
    /// for full frames).
    pub snaplen: u32,
    /// Seed of every random choice.
    pub seed: u64,
    /// Time of the first packet, ns since the Unix epoch (a multiple of 1000).
    pub start_ns: u64,
    /// Mean packet rate, packets per second.
    pub pps: u64,
}

/// 2008-01-01 00:00:00 UTC, the season of the paper.
pub const TRACE_START_NS: u64 = 1_199_145_600 * 1_000_000_000;

impl Default for TraceConfig {
    fn default() -> Self {
        TraceConfig {
            packets: 1_000_000,
            snaplen: 75,
            seed: 1,
            start_ns: TRACE_START_NS,
            pps: 250_000,
        }
    }
}

/// The first `cfg.packets` packets of [`TraceGen`].
pub fn trace(cfg: &TraceConfig) -> Vec<GenPacket> {
    let mut v = Vec::with_capacity(cfg.packets);
    v.extend(TraceGen::new(cfg).take(cfg.packets));
    v
}

/// Counts by kind, for the report of `gen-trace`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceStats {
    /// Packets in all.
    pub packets: u64,
    /// IPv4 packets (tagged or not).
    pub ipv4: u64,
    /// IPv6 packets.
    pub ipv6: u64,
    /// Frames with an 802.1Q tag.
    pub vlan: u64,
    /// ARP packets.
    pub arp: u64,
    /// Frames of any other EtherType.
    pub other: u64,
    /// TCP segments.
    pub tcp: u64,
    /// UDP datagrams.
    pub udp: u64,
    /// ICMP and ICMPv6 messages.
    pub icmp: u64,
    /// IPv4 fragments after the first (a non-zero offset).
    pub fragments: u64,
    /// Bytes on the wire, summed.
    pub wire_bytes: u64,
}

impl TraceStats {
    /// Adds one frame (looks at its untruncated headers: 75 bytes hold them all).
    pub fn add(&mut self, p: &GenPacket) {
        let d = &p.data;
        self.packets += 1;
        self.wire_bytes += u64::from(p.orig_len);
        let mut et = u16::from_be_bytes([d[12], d[13]]);
        let mut l3 = 14;
        if et == 0x8100 {
            self.vlan += 1;
            et = u16::from_be_bytes([d[16], d[17]]);
            l3 = 18;
        }
        let proto = match et {
            0x0800 => {
                self.ipv4 += 1;
                if u16::from_be_bytes([d[l3 + 6], d[l3 + 7]]) & 0x1fff != 0 {
                    self.fragments += 1;
                }
                d[l3 + 9]
            }
            0x86dd => {
                self.ipv6 += 1;
                d[l3 + 6]
            }
            0x0806 => {
                self.arp += 1;
                0
            }
            _ => {
                self.other += 1;
                0
            }
        };
        match proto {
            6 => self.tcp += 1,
            17 => self.udp += 1,
            1 | 58 => self.icmp += 1,
            _ => {}
        }
    }

    /// One line: shares of each kind in percent.
    pub fn summary(&self) -> String {
        let pc = |n: u64| 100.0 * n as f64 / self.packets.max(1) as f64;
        format!(
            "{} packets, mean {:.0} bytes on the wire; IPv4 {:.1}% (fragments {:.2}%), IPv6 {:.1}%, \
             VLAN-tagged {:.1}%, ARP {:.1}%, other {:.1}%; TCP {:.1}%, UDP {:.1}%, ICMP {:.1}%",
            self.packets,
            self.wire_bytes as f64 / self.packets.max(1) as f64,
            pc(self.ipv4),
            pc(self.fragments),
            pc(self.ipv6),
            pc(self.vlan),
            pc(self.arp),
            pc(self.other),
            pc(self.tcp),
            pc(self.udp),
            pc(self.icmp),
        )
    }
}

// ---------------------------------------------------------------------------------
// Pools and Zipf choices.

/// Sampling rank `k` (0-based) with weight proportional to `1/(k+1)`.
#[derive(Clone, Debug)]
struct Zipf {
    cdf: Vec<u64>,
}

impl Zipf {
    fn new(n: usize) -> Zipf {
        let mut acc = 0u64;
        let cdf = (0..n)
            .map(|k| {
                acc += 1_000_000_000 / (k as u64 + 1);
                acc
            })
            .collect();
        Zipf { cdf }
    }
    fn sample(&self, rng: &mut SplitMix64) -> usize {
        let total = *self.cdf.last().expect("non-empty");
        let x = rng.below(total);
        self.cdf.partition_point(|&c| c <= x)
    }
}

/// Weighted choice over a small table.
fn weighted<T>(rng: &mut SplitMix64, items: &[(u32, T)]) -> usize {
    let total: u64 = items.iter().map(|(w, _)| u64::from(*w)).sum();
    let mut x = rng.below(total);
    for (i, (w, _)) in items.iter().enumerate() {
        if x < u64::from(*w) {
            return i;
        }
        x -= u64::from(*w);
    }
    items.len() - 1
}

/// A value spread evenly over the octaves of `lo..=hi` (a heavy tail: each doubling
/// is as likely as the previous one), `lo >= 1`.
fn log_uniform(rng: &mut SplitMix64, lo: u32, hi: u32) -> u32 {
    let (lo, hi) = (lo.max(1), hi.max(lo.max(1)));
    let octaves = 32 - (hi / lo).leading_zeros(); // octaves in hi/lo, at least 1
    let e = rng.below(u64::from(octaves)) as u32;
    let base = lo << e;
    let v = base + rng.below(u64::from(base)) as u32;
    v.clamp(lo, hi)
}

const PUBLIC_PREFIXES: [[u8; 2]; 30] = [
    [93, 184],
    [151, 101],
    [142, 250],
    [172, 217],
    [104, 16],
    [13, 107],
    [52, 84],
    [31, 13],
    [157, 240],
    [185, 199],
    [140, 82],
    [199, 232],
    [216, 58],
    [74, 125],
    [8, 8],
    [1, 1],
    [203, 0],
    [198, 51],
    [91, 189],
    [23, 21],
    [69, 171],
    [64, 233],
    [17, 253],
    [204, 79],
    [66, 220],
    [208, 80],
    [87, 250],
    [77, 88],
    [128, 112],
    [130, 239],
];

/// Where a named filter-6 address sits in the public server pool (popular ranks).
const PUBLIC_NAMED: [(usize, usize); 5] = [(2, 15), (5, 16), (11, 17), (30, 18), (90, 19)];
const PUBLIC_SERVERS: usize = 4000;

/// Fixed address pools (the same for every seed).
struct Pools {
    lan_a: Zipf,
    lan_b: Zipf,
    lan_c: Zipf,
    campus: Vec<u32>,
    campus_z: Zipf,
    internal: Vec<u32>,
    internal_z: Zipf,
    public: Vec<u32>,
    public_z: Zipf,
    irc: Vec<u32>,
    irc_z: Zipf,
}

fn v4(a: [u8; 4]) -> u32 {
    u32::from_be_bytes(a)
}

impl Pools {
    fn new() -> Pools {
        let mut r = SplitMix64::new(0x5eed_5eed_0005_0002);
        let campus: Vec<u32> = (0..400)
            .map(|i| {
                if i == 7 {
                    v4(SEEDS_HOSTS[12])
                } else {
                    v4([172, 16, r.below(16) as u8, 1 + r.below(250) as u8])
                }
            })
            .collect();
        let mut internal: Vec<u32> = vec![
            v4([10, 0, 0, 80]),
            v4([10, 0, 0, 53]),
            v4([10, 0, 0, 25]),
            v4([10, 0, 0, 143]),
            v4([10, 1, 3, 7]),
            v4([10, 0, 0, 22]),
            v4([10, 0, 1, 10]),
            v4([10, 20, 0, 5]),
        ];
        while internal.len() < 64 {
            let second = [0u8, 1, 2, 20, 64, 128][r.below(6) as usize];
            internal.push(v4([10, second, r.below(8) as u8, 1 + r.below(254) as u8]));
        }
        let mut public: Vec<u32> = (0..PUBLIC_SERVERS)
            .map(|_| {
                let p = PUBLIC_PREFIXES[r.below(PUBLIC_PREFIXES.len() as u64) as usize];
                let a = v4([p[0], p[1], r.below(256) as u8, 1 + r.below(254) as u8]);
                // Keep the named filter-6 addresses out of the random part.
                if SEEDS_HOSTS.iter().any(|h| v4(*h) == a) {
                    a ^ 1
                } else {
                    a
                }
            })
            .collect();
        for (pos, h) in PUBLIC_NAMED {
            public[pos] = v4(SEEDS_HOSTS[h]);
        }
        Pools {
            lan_a: Zipf::new(200),
            lan_b: Zipf::new(120),
            lan_c: Zipf::new(80),
            campus_z: Zipf::new(campus.len()),
            campus,
            internal_z: Zipf::new(internal.len()),
            internal,
            public_z: Zipf::new(public.len()),
            public,
            irc_z: Zipf::new(8),
            irc: SEEDS_HOSTS[..8].iter().map(|h| v4(*h)).collect(),
        }
    }

    /// A client on one of the local networks. The LAN hosts are numbered from .10 in
    /// decreasing activity, so the named filter-6 clients (.66, .101, .137, 1.23) have
    /// middling ranks.
    fn client(&self, r: &mut SplitMix64) -> u32 {
        match r.below(100) {
            0..=44 => v4([192, 168, 2, 10 + self.lan_a.sample(r) as u8]),
            45..=59 => v4([192, 168, 1, 10 + self.lan_b.sample(r) as u8]),
            60..=69 => v4([192, 168, 3, 10 + self.lan_c.sample(r) as u8]),
            _ => self.campus[self.campus_z.sample(r)],
        }
    }

    /// A server of service number `svc`: ranks are rotated per service, so each
    /// service has its own most popular servers.
    fn internal(&self, r: &mut SplitMix64, svc: usize) -> u32 {
        let k = (self.internal_z.sample(r) + svc * 5) % self.internal.len();
        self.internal[k]
    }
    fn public(&self, r: &mut SplitMix64, svc: usize) -> u32 {
        let k = self.public_z.sample(r);
        // The most popular ranks keep their place (so the named ones stay popular),
        // the tail rotates per service.
        let k = if k < 100 {
            k
        } else {
            100 + (k - 100 + svc * 131) % (self.public.len() - 100)
        };
        self.public[k]
    }
}

// ---------------------------------------------------------------------------------
// Services.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// Request segments from the client, then response segments.
    Web {
        req: (u32, u32),
        resp_segs: (u32, u32),
    },
    /// Client uploads (SMTP DATA): many client segments, short replies.
    Upload,
    /// Alternating small packets (SSH, IRC, FTP control, MySQL).
    Interactive {
        exchanges: (u32, u32),
        size: (u32, u32),
    },
    /// Big transfer both ways at random (P2P).
    P2p,
    /// UDP request/response pairs.
    UdpPairs {
        pairs: (u32, u32),
        q: (u32, u32),
        a: (u32, u32),
    },
    /// One-directional UDP stream (syslog) or a bidirectional one (RTP, `both`).
    UdpStream {
        pkts: (u32, u32),
        size: (u32, u32),
        both: bool,
    },
    /// QUIC-like: a 1200-byte initial, then response datagrams.
    Quic,
    /// NFS over UDP: 8 KB datagrams in IPv4 fragments.
    Frag,
    Ping,
    Arp,
    Stp,
    Lldp,
    Igmp,
}

#[derive(Clone, Copy, Debug)]
struct Svc {
    /// Relative number of conversations.
    weight: u32,
    shape: Shape,
    /// Server port (0: ephemeral, for P2P and RTP).
    port: u16,
    /// Percent of conversations whose server is internal (10.0.0.0/8).
    internal: u8,
    /// Percent of conversations over IPv6.
    v6: u8,
    /// Percent of conversations coming in from the Internet to an internal server.
    inbound: u8,
    /// Server pool override: IRC servers.
    irc: bool,
}

const fn svc(weight: u32, shape: Shape, port: u16, internal: u8, v6: u8, inbound: u8) -> Svc {
    Svc {
        weight,
        shape,
        port,
        internal,
        v6,
        inbound,
        irc: false,
    }
}

const WEB: Shape = Shape::Web {
    req: (1, 2),
    resp_segs: (1, 256),
};
const TLS: Shape = Shape::Web {
    req: (1, 3),
    resp_segs: (1, 512),
};
const SERVICES: [Svc; 26] = [
    svc(300, WEB, 80, 45, 25, 8),
    svc(260, TLS, 443, 15, 40, 3),
    svc(
        2300,
        Shape::UdpPairs {
            pairs: (1, 2),
            q: (28, 60),
            a: (60, 420),
        },
        53,
        75,
        35,
        0,
    ),
    svc(40, Shape::Quic, 443, 0, 45, 0),
    svc(40, Shape::Upload, 25, 70, 5, 30),
    svc(
        45,
        Shape::Web {
            req: (1, 3),
            resp_segs: (1, 200),
        },
        143,
        85,
        10,
        5,
    ),
    svc(
        22,
        Shape::Web {
            req: (1, 2),
            resp_segs: (1, 400),
        },
        110,
        80,
        0,
        5,
    ),
    svc(
        30,
        Shape::Interactive {
            exchanges: (4, 600),
            size: (36, 180),
        },
        22,
        60,
        25,
        20,
    ),
    svc(
        12,
        Shape::Interactive {
            exchanges: (6, 40),
            size: (10, 80),
        },
        21,
        45,
        0,
        10,
    ),
    svc(
        300,
        Shape::UdpPairs {
            pairs: (1, 3),
            q: (48, 48),
            a: (48, 48),
        },
        123,
        50,
        15,
        0,
    ),
    svc(
        150,
        Shape::UdpPairs {
            pairs: (1, 3),
            q: (50, 50),
            a: (50, 230),
        },
        137,
        100,
        0,
        0,
    ),
    svc(
        18,
        Shape::Web {
            req: (1, 2),
            resp_segs: (1, 300),
        },
        993,
        70,
        10,
        0,
    ),
    svc(
        16,
        Shape::Web {
            req: (1, 2),
            resp_segs: (1, 512),
        },
        8080,
        50,
        0,
        10,
    ),
    svc(
        12,
        Shape::Interactive {
            exchanges: (4, 200),
            size: (40, 600),
        },
        3306,
        100,
        0,
        0,
    ),
    Svc {
        irc: true,
        ..svc(
            10,
            Shape::Interactive {
                exchanges: (10, 800),
                size: (30, 300),
            },
            6667,
            0,
            0,
            0,
        )
    },
    svc(10, Shape::P2p, 0, 0, 20, 0),
    svc(
        10,
        Shape::UdpStream {
            pkts: (20, 3000),
            size: (160, 172),
            both: true,
        },
        0,
        20,
        10,
        0,
    ),
    svc(
        10,
        Shape::Web {
            req: (1, 4),
            resp_segs: (1, 600),
        },
        445,
        100,
        20,
        0,
    ),
    svc(
        130,
        Shape::UdpPairs {
            pairs: (1, 8),
            q: (40, 120),
            a: (40, 400),
        },
        161,
        100,
        0,
        0,
    ),
    svc(
        10,
        Shape::UdpStream {
            pkts: (1, 40),
            size: (60, 300),
            both: false,
        },
        514,
        100,
        0,
        0,
    ),
    svc(6, Shape::Frag, 2049, 100, 0, 0),
    svc(130, Shape::Ping, 0, 50, 20, 20),
    svc(1450, Shape::Arp, 0, 100, 0, 0),
    svc(400, Shape::Stp, 0, 100, 0, 0),
    svc(150, Shape::Lldp, 0, 100, 0, 0),
    svc(60, Shape::Igmp, 0, 100, 0, 0),
];

// ---------------------------------------------------------------------------------
// Endpoints and frames.

#[derive(Clone, Copy, Debug)]
struct Ep {
    ip: u32,
    mac: [u8; 6],
    v6: [u8; 16],
}

impl Ep {
    fn new(ip: u32) -> Ep {
        let o = ip.to_be_bytes();
        let internal = o[0] == 10 || o[0] == 192 && o[1] == 168 || o[0] == 172 && o[1] == 16;
        let mut v6 = if internal {
            [
                0x20, 0x01, 0x0d, 0xb8, 0, 0, o[1], o[2], 0, 0, 0, 0, 0, 0, 0, 0,
            ]
        } else {
            [
                0x2a, 0x00, 0x14, 0x50, o[0], o[1], 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            ]
        };
        v6[12..].copy_from_slice(&o);
        Ep {
            ip,
            mac: Host::from_ip(Ipv4Addr::from(ip)).mac,
            v6,
        }
    }
    fn host(&self) -> Host {
        Host {
            mac: self.mac,
            ip: Ipv4Addr::from(self.ip),
        }
    }
}

/// Random payload bytes, sliced at random offsets (filling every payload anew would
/// dominate the generation time and adds nothing a filter looks at).
struct Noise(Vec<u8>);

const NOISE_LEN: usize = 1 << 16;

impl Noise {
    fn new() -> Noise {
        let mut v = vec![0u8; NOISE_LEN + 9000];
        SplitMix64::new(0x0015_e000).fill(&mut v);
        Noise(v)
    }
    fn get(&self, r: &mut SplitMix64, len: usize) -> &[u8] {
        let off = r.below(NOISE_LEN as u64) as usize;
        &self.0[off..off + len.min(9000)]
    }
}

fn pad(mut f: Vec<u8>) -> Vec<u8> {
    if f.len() < MIN_FRAME {
        f.resize(MIN_FRAME, 0);
    }
    f
}

/// An Ethernet/IPv6 frame from `src` to `dst` with hop limit `hops`, padded to
/// [`MIN_FRAME`], its transport still to choose.
fn ipv6(src: &Ep, dst: &Ep, hops: u8) -> Frame {
    Frame::ethernet(src.mac, dst.mac)
        .ipv6(src.v6, dst.v6)
        .with_ipv6(|r| r.hop_limit = hops)
        .padded()
}

/// A raw IPv4 packet (any protocol, the flags and fragment offset word `frag` as
/// given) in an Ethernet frame.
fn ipv4_raw(src: &Ep, dst: &Ep, ip: IpFields, frag: u16, proto: u8, body: &[u8]) -> Vec<u8> {
    Frame::ethernet(src.mac, dst.mac)
        .ipv4(src.ip, dst.ip)
        .with_ipv4(|r| {
            r.ident = ip.ident;
            r.ttl = ip.ttl;
            r.dont_frag = frag & 0x4000 != 0;
            r.more_frags = frag & 0x2000 != 0;
            r.frag_offset = u32::from(frag & 0x1fff) * 8;
        })
        .ip_proto(proto)
        .payload(body)
        .padded()
        .build()
}

/// Inserts IPv4 options after the 20-byte header of an untagged IPv4 frame, fixing
/// IHL, total length and the header checksum (transport checksums do not cover them).
fn add_ipv4_options(f: &mut Vec<u8>, opts: &[u8]) {
    debug_assert!(opts.len() & 3 == 0 && opts.len() <= 40);
    let total = usize::from(Ipv4Packet::new_unchecked(&f[14..]).total_len()) + opts.len();
    // Drop the Ethernet padding first: it belongs after the IP packet.
    f.truncate(14 + total - opts.len());
    f.splice(34..34, opts.iter().copied());
    let mut ip = Ipv4Packet::new_unchecked(&mut f[14..]);
    ip.set_header_len(20 + opts.len());
    ip.set_total_len(total as u16);
    ip.fill_checksum();
    if f.len() < MIN_FRAME {
        f.resize(MIN_FRAME, 0);
    }
}

/// Tags a frame with an 802.1Q header.
fn add_vlan(f: &mut Vec<u8>, vid: u16) {
    // The tag goes before the frame's EtherType, which then follows it.
    f.splice(12..12, [0; 4]);
    EthernetFrame::new_unchecked(&mut f[..]).set_ethertype(EtherType::VLAN);
    VlanTag::new_unchecked(&mut f[14..]).set_tci(vid & 0xfff);
}

// ---------------------------------------------------------------------------------
// Conversations.

/// The TCP part of a conversation's state.
#[derive(Clone, Debug)]
struct Tcp {
    phase: u8,
    c_seq: u32,
    s_seq: u32,
    c_left: u32,
    s_left: u32,
    c_size: (u32, u32),
    s_size: (u32, u32),
    alternate: bool,
    server_turn: bool,
    last_server: bool,
    unacked: u8,
    rst: bool,
    ts_opt: bool,
    ts: u32,
    c_win: u16,
    s_win: u16,
}

#[derive(Clone, Debug)]
enum State {
    Tcp(Box<Tcp>),
    /// Packets left, and whose turn (UDP pairs, streams, ping, ARP).
    Turns {
        left: u32,
        server_turn: bool,
    },
    /// NFS: datagrams left, fragment index in the current one.
    Frag {
        left: u32,
        index: u32,
    },
    /// One frame, then done.
    Single,
}

#[derive(Clone, Debug)]
struct Flow {
    svc: Svc,
    state: State,
    client: Ep,
    server: Ep,
    cport: u16,
    sport: u16,
    v6: bool,
    vlan: Option<u16>,
    ip_opts: bool,
    c_ip: IpFields,
    s_ip: IpFields,
    /// Per-flow sizes for UDP shapes.
    sizes: (u32, u32),
    /// ICMP ident / ARP requester seq.
    ident: u16,
    seq: u16,
    done: bool,
}

const ACK: u8 = TcpFlags::ACK;
const SYN: u8 = TcpFlags::SYN;
const FIN: u8 = TcpFlags::FIN;
const RST: u8 = TcpFlags::RST;
const PSH: u8 = TcpFlags::PSH;

fn ephemeral(r: &mut SplitMix64) -> u16 {
    if r.percent(70) {
        r.range(32768, 60999) as u16
    } else {
        r.range(49152, 65535) as u16
    }
}

/// The endless frame stream; see the module documentation.
pub struct TraceGen {
    rng: SplitMix64,
    pools: Pools,
    noise: Noise,
    active: Vec<Flow>,
    ts_us: u64,
    mean_gap_ns: u64,
    snaplen: usize,
    frag_ident: u16,
}

/// Concurrent conversations.
const ACTIVE: usize = 600;

impl TraceGen {
    /// A generator of the trace `cfg` describes.
    pub fn new(cfg: &TraceConfig) -> TraceGen {
        let mut g = TraceGen {
            rng: SplitMix64::new(cfg.seed),
            pools: Pools::new(),
            noise: Noise::new(),
            active: Vec::with_capacity(ACTIVE),
            ts_us: cfg.start_ns / 1000,
            mean_gap_ns: 1_000_000_000 / cfg.pps.max(1),
            snaplen: cfg.snaplen.max(1) as usize,
            frag_ident: 1,
        };
        for _ in 0..ACTIVE {
            let f = g.new_flow(true);
            g.active.push(f);
        }
        g
    }

    fn new_flow(&mut self, at_start: bool) -> Flow {
        let r = &mut self.rng;
        let si = weighted(r, &SERVICES.map(|s| (s.weight, ())));
        let svc = SERVICES[si];
        let pools = &self.pools;
        let inbound = r.percent(u64::from(svc.inbound));
        let (client, server) = if svc.irc {
            (pools.client(r), pools.irc[pools.irc_z.sample(r)])
        } else if inbound {
            (pools.public(r, si + 7), pools.internal(r, si))
        } else if matches!(
            svc.shape,
            Shape::Arp | Shape::Igmp | Shape::Stp | Shape::Lldp
        ) {
            let c = pools.client(r);
            // ARP: a neighbour on the same /24, or the gateway (.1).
            let s = if r.percent(40) {
                (c & !0xff) | 1
            } else {
                pools.client(r)
            };
            (c, (c & !0xff) | (s & 0xff))
        } else if r.percent(u64::from(svc.internal)) {
            (pools.client(r), pools.internal(r, si))
        } else {
            (pools.client(r), pools.public(r, si))
        };
        let v6 = r.percent(u64::from(svc.v6));
        let vlan = (r.below(100) < 14 && !matches!(svc.shape, Shape::Stp | Shape::Lldp))
            .then(|| [10u16, 20, 30][r.below(3) as usize]);
        let sport = if svc.port == 0 {
            r.range(1024, 65535) as u16
        } else {
            svc.port
        };
        let windows_client = r.percent(35);
        let c_ip = IpFields {
            ident: r.next_u32() as u16,
            ttl: if windows_client { 128 } else { 64 },
            dont_frag: true,
        };
        let s_ip = IpFields {
            ident: r.next_u32() as u16,
            ttl: if server >> 24 == 10 {
                63
            } else {
                40 + r.below(20) as u8
            },
            dont_frag: true,
        };
        let mut sizes = (0, 0);
        let state = match svc.shape {
            Shape::Web { req, resp_segs } => {
                let c_left = r.range(u64::from(req.0), u64::from(req.1)) as u32;
                let s_left = log_uniform(r, resp_segs.0, resp_segs.1);
                self.tcp_state(
                    c_left,
                    s_left,
                    (200, 900),
                    (MSS as u32, MSS as u32),
                    false,
                    at_start,
                )
            }
            Shape::Upload => {
                let c_left = log_uniform(r_mut(&mut self.rng), 2, 300);
                self.tcp_state(
                    c_left,
                    6,
                    (MSS as u32, MSS as u32),
                    (20, 120),
                    false,
                    at_start,
                )
            }
            Shape::Interactive { exchanges, size } => {
                let n = log_uniform(r_mut(&mut self.rng), exchanges.0, exchanges.1);
                self.tcp_state(n / 2 + 1, n / 2 + 1, size, size, true, at_start)
            }
            Shape::P2p => {
                let a = log_uniform(r_mut(&mut self.rng), 1, 2000);
                let b = log_uniform(r_mut(&mut self.rng), 1, 200);
                self.tcp_state(
                    b,
                    a,
                    (MSS as u32, MSS as u32),
                    (MSS as u32, MSS as u32),
                    false,
                    at_start,
                )
            }
            Shape::UdpPairs { pairs, q, a } => {
                let r = &mut self.rng;
                sizes = (r.range(u64::from(q.0), u64::from(q.1)) as u32, 0);
                sizes.1 = r.range(u64::from(a.0), u64::from(a.1)) as u32;
                State::Turns {
                    left: 2 * r.range(u64::from(pairs.0), u64::from(pairs.1)) as u32,
                    server_turn: false,
                }
            }
            Shape::UdpStream { pkts, size, both } => {
                let r = &mut self.rng;
                sizes = (size.0, size.1);
                let _ = both;
                State::Turns {
                    left: log_uniform(r, pkts.0, pkts.1),
                    server_turn: false,
                }
            }
            Shape::Quic => {
                let r = &mut self.rng;
                sizes = (1200, 1252);
                State::Turns {
                    left: 2 + log_uniform(r, 1, 800),
                    server_turn: false,
                }
            }
            Shape::Frag => State::Frag {
                left: self.rng.range(1, 20) as u32,
                index: 0,
            },
            Shape::Ping => State::Turns {
                left: 2 * self.rng.range(1, 8) as u32,
                server_turn: false,
            },
            Shape::Arp => State::Turns {
                left: if self.rng.percent(60) { 2 } else { 1 },
                server_turn: false,
            },
            Shape::Stp | Shape::Lldp | Shape::Igmp => State::Single,
        };
        let r = &mut self.rng;
        Flow {
            svc,
            state,
            client: Ep::new(client),
            server: Ep::new(server),
            cport: ephemeral(r),
            sport,
            v6,
            vlan,
            ip_opts: r.below(400) == 0,
            c_ip,
            s_ip,
            sizes,
            ident: r.next_u32() as u16,
            seq: r.range(1, 200) as u16,
            done: false,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn tcp_state(
        &mut self,
        c_left: u32,
        s_left: u32,
        c_size: (u32, u32),
        s_size: (u32, u32),
        alternate: bool,
        at_start: bool,
    ) -> State {
        let r = &mut self.rng;
        // Conversations present when the capture starts are mostly mid-stream.
        let phase = if at_start && r.percent(80) || r.percent(8) {
            3
        } else {
            0
        };
        State::Tcp(Box::new(Tcp {
            phase,
            c_seq: r.next_u32(),
            s_seq: r.next_u32(),
            c_left,
            s_left,
            c_size,
            s_size,
            alternate,
            server_turn: false,
            last_server: false,
            unacked: 0,
            rst: r.percent(6),
            ts_opt: r.percent(60),
            ts: r.next_u32(),
            c_win: r.range(500, 65535) as u16,
            s_win: r.range(500, 65535) as u16,
        }))
    }

    /// The next frame of conversation `i` (full length); a conversation that ends is
    /// replaced by a new one.
    fn step(&mut self, i: usize) -> Vec<u8> {
        let mut flow = std::mem::replace(&mut self.active[i], placeholder());
        let frame = self.frame(&mut flow);
        if flow.done {
            flow = self.new_flow(false);
        }
        self.active[i] = flow;
        frame
    }

    fn frame(&mut self, f: &mut Flow) -> Vec<u8> {
        let mut frame = match std::mem::replace(&mut f.state, State::Single) {
            State::Tcp(t) => self.tcp_step(f, t),
            State::Turns { left, server_turn } => {
                let fr = self.turn_frame(f, server_turn);
                let both = !matches!(f.svc.shape, Shape::UdpStream { both: false, .. });
                let server_next = match f.svc.shape {
                    // QUIC: the initial, then mostly the server.
                    Shape::Quic => self.rng.percent(85),
                    Shape::UdpStream { .. } => both && self.rng.percent(50),
                    _ => !server_turn,
                };
                f.state = State::Turns {
                    left: left - 1,
                    server_turn: server_next,
                };
                f.done = left <= 1;
                fr
            }
            State::Frag { left, index } => {
                let fr = self.frag_frame(f, index);
                if index + 1 < FRAGS {
                    f.state = State::Frag {
                        left,
                        index: index + 1,
                    };
                } else {
                    f.state = State::Frag {
                        left: left - 1,
                        index: 0,
                    };
                    self.frag_ident = self.frag_ident.wrapping_add(1);
                    f.done = left <= 1;
                }
                fr
            }
            State::Single => {
                f.done = true;
                self.single_frame(f)
            }
        };
        if let Some(vid) = f.vlan {
            add_vlan(&mut frame, vid);
        }
        frame
    }

    fn tcp_step(&mut self, f: &mut Flow, mut t: Box<Tcp>) -> Vec<u8> {
        let r = &mut self.rng;
        // (from server?, flags, payload length)
        let (from_server, flags, len) = match t.phase {
            0 => (false, SYN, 0),
            1 => (true, SYN | ACK, 0),
            2 => (false, ACK, 0),
            3 => {
                if t.unacked >= 2 {
                    t.unacked = 0;
                    (!t.last_server, ACK, 0)
                } else {
                    let server = if t.alternate {
                        let s = if t.c_left == 0 {
                            true
                        } else if t.s_left == 0 {
                            false
                        } else {
                            t.server_turn
                        };
                        t.server_turn = !s;
                        s
                    } else {
                        t.c_left == 0
                    };
                    if server != t.last_server {
                        t.unacked = 0;
                    }
                    t.last_server = server;
                    if !t.alternate {
                        t.unacked += 1;
                    }
                    let (lo, hi) = if server { t.s_size } else { t.c_size };
                    let left = if server { &mut t.s_left } else { &mut t.c_left };
                    *left = left.saturating_sub(1);
                    // The last segment of a bulk transfer is usually short.
                    let len = if *left == 0 && lo == MSS as u32 && r.percent(70) {
                        r.range(1, MSS as u64) as u32
                    } else {
                        r.range(u64::from(lo), u64::from(hi)) as u32
                    };
                    if t.c_left == 0 && t.s_left == 0 {
                        t.phase = 4;
                    }
                    (server, PSH | ACK, len)
                }
            }
            4 if t.rst => (true, RST | ACK, 0),
            4 => (false, FIN | ACK, 0),
            5 => (true, FIN | ACK, 0),
            _ => (false, ACK, 0),
        };
        let syn = flags & SYN != 0;
        let mut opts: Vec<u8> = Vec::new();
        if syn {
            opts.extend_from_slice(&[2, 4, 5, 180, 1, 1, 4, 2]);
        }
        if t.ts_opt {
            t.ts = t.ts.wrapping_add(1 + r.below(40) as u32);
            opts.extend_from_slice(&[1, 1, 8, 10]);
            opts.extend_from_slice(&t.ts.to_be_bytes());
            opts.extend_from_slice(&t.ts.wrapping_sub(7).to_be_bytes());
        }
        // Segments fill the 1500-byte MTU at most (MSS less IP and TCP options).
        let max_len =
            1500 - if f.v6 { 40 } else { 20 } - 20 - opts.len() - 4 * usize::from(f.ip_opts);
        let len = len.min(max_len as u32);
        let (seq, ack) = if from_server {
            (t.s_seq, t.c_seq)
        } else {
            (t.c_seq, t.s_seq)
        };
        let ack = if t.phase == 0 { 0 } else { ack };
        let adv = len + u32::from(syn) + u32::from(flags & FIN != 0);
        if from_server {
            t.s_seq = t.s_seq.wrapping_add(adv);
        } else {
            t.c_seq = t.c_seq.wrapping_add(adv);
        }
        let win = if from_server { t.s_win } else { t.c_win };
        let payload = self.noise.get(r_mut(&mut self.rng), len as usize);
        let (src, dst, sport, dport, ip) = endpoints(f, from_server);
        let frame = if f.v6 {
            ipv6(&src, &dst, ip.ttl)
                .tcp(sport, dport, flags)
                .with_tcp(|t| {
                    t.seq = seq;
                    t.ack = ack;
                    t.window = win;
                    t.options = opts.to_vec();
                })
                .payload(payload)
                .build()
        } else {
            let mut fr = tcp_frame(&TcpSegment {
                src: src.host(),
                dst: dst.host(),
                sport,
                dport,
                ip,
                seq,
                ack,
                flags,
                window: win,
                options: &opts,
                payload,
            });
            if f.ip_opts {
                add_ipv4_options(&mut fr, &[1, 1, 1, 0]);
            }
            fr
        };
        bump_ident(f, from_server);
        match t.phase {
            0..=2 => t.phase += 1,
            3 => {}
            4 if t.rst => {
                t.phase = 7;
                f.done = true;
            }
            6 => {
                t.phase = 7;
                f.done = true;
            }
            _ => t.phase += 1,
        }
        f.state = State::Tcp(t);
        frame
    }

    fn turn_frame(&mut self, f: &mut Flow, from_server: bool) -> Vec<u8> {
        let (src, dst, sport, dport, mut ip) = endpoints(f, from_server);
        ip.dont_frag = false;
        bump_ident(f, from_server);
        let r = &mut self.rng;
        match f.svc.shape {
            Shape::Ping => {
                let payload = self.noise.get(r, 56);
                let reply = from_server;
                if !reply {
                    f.seq = f.seq.wrapping_add(1);
                }
                if f.v6 {
                    // The ICMPv6 echo message, its checksum over the pseudo-header.
                    let mut m = vec![if reply { 129 } else { 128 }, 0, 0, 0];
                    m.extend_from_slice(&f.ident.to_be_bytes());
                    m.extend_from_slice(&f.seq.to_be_bytes());
                    m.extend_from_slice(payload);
                    let ck = netsift_wire::checksum::pseudo(&src.v6, &dst.v6, 58, &m);
                    m[2..4].copy_from_slice(&ck.to_be_bytes());
                    ipv6(&src, &dst, ip.ttl).ip_proto(58).payload(&m).build()
                } else {
                    icmp_echo_frame(src.host(), dst.host(), ip, reply, f.ident, f.seq, payload)
                }
            }
            Shape::Arp => arp_frame(&f.client, &f.server, from_server),
            _ => {
                let len = match f.svc.shape {
                    Shape::UdpStream { .. } | Shape::Quic => {
                        r.range(u64::from(f.sizes.0), u64::from(f.sizes.1)) as u32
                    }
                    _ if from_server => f.sizes.1,
                    _ => f.sizes.0,
                };
                let payload = self.noise.get(r_mut(&mut self.rng), len as usize);
                if f.v6 {
                    ipv6(&src, &dst, ip.ttl)
                        .udp(sport, dport)
                        .payload(payload)
                        .build()
                } else {
                    udp_frame(src.host(), dst.host(), sport, dport, ip, payload)
                }
            }
        }
    }

    /// Fragment `index` of the current 8 KB NFS reply (server to client).
    fn frag_frame(&mut self, f: &mut Flow, index: u32) -> Vec<u8> {
        let (src, dst, sport, dport, mut ip) = endpoints(f, true);
        ip.dont_frag = false;
        ip.ident = self.frag_ident;
        let per = 1480usize;
        let total = 8 + NFS_DATAGRAM;
        let start = index as usize * per;
        let end = (start + per).min(total);
        let mut body = Vec::with_capacity(end - start);
        if index == 0 {
            // The UDP header; its checksum is left 0 ("none"), as NFS servers did.
            body.extend_from_slice(&sport.to_be_bytes());
            body.extend_from_slice(&dport.to_be_bytes());
            body.extend_from_slice(&(total as u16).to_be_bytes());
            body.extend_from_slice(&[0, 0]);
            body.extend_from_slice(self.noise.get(&mut self.rng, end - 8));
        } else {
            body.extend_from_slice(self.noise.get(&mut self.rng, end - start));
        }
        let more = if end < total { 0x2000 } else { 0 };
        ipv4_raw(&src, &dst, ip, more | (start / 8) as u16, 17, &body)
    }

    fn single_frame(&mut self, f: &mut Flow) -> Vec<u8> {
        match f.svc.shape {
            Shape::Stp => {
                let mut fr = vec![0x01, 0x80, 0xc2, 0, 0, 0];
                fr.extend_from_slice(&f.client.mac);
                fr.extend_from_slice(&39u16.to_be_bytes());
                fr.extend_from_slice(&[0x42, 0x42, 0x03, 0, 0, 0, 0, 0x80, 0]);
                fr.extend_from_slice(&f.server.mac);
                fr.extend_from_slice(&[0u8; 24]);
                pad(fr)
            }
            Shape::Lldp => {
                let mut fr = vec![0x01, 0x80, 0xc2, 0, 0, 0x0e];
                fr.extend_from_slice(&f.client.mac);
                fr.extend_from_slice(&0x88ccu16.to_be_bytes());
                fr.extend_from_slice(&[0x02, 0x07, 0x04]);
                fr.extend_from_slice(&f.client.mac);
                fr.extend_from_slice(&[0x04, 0x03, 0x05, b'g', b'1', 0x06, 0x02, 0, 120]);
                fr.extend_from_slice(self.noise.get(&mut self.rng, 80));
                fr.extend_from_slice(&[0, 0]);
                pad(fr)
            }
            _ => {
                // IGMPv3 membership report with the Router Alert option.
                let group = 0xe000_0000 | self.rng.below(1 << 16) as u32 | 0xfb << 16;
                let mut body = vec![0x22, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0, 0];
                body.extend_from_slice(&group.to_be_bytes());
                let ck = internet_checksum(&body);
                body[2..4].copy_from_slice(&ck.to_be_bytes());
                let dst = Ep::new(v4([224, 0, 0, 22]));
                let mut ip = f.c_ip;
                ip.ttl = 1;
                let mut fr = ipv4_raw(&f.client, &dst, ip, 0, 2, &body);
                fr[..6].copy_from_slice(&[0x01, 0x00, 0x5e, 0, 0, 0x16]);
                add_ipv4_options(&mut fr, &[0x94, 4, 0, 0]);
                fr
            }
        }
    }
}

const NFS_DATAGRAM: usize = 8192;
const FRAGS: u32 = (8 + NFS_DATAGRAM as u32).div_ceil(1480);

fn r_mut(r: &mut SplitMix64) -> &mut SplitMix64 {
    r
}

fn placeholder() -> Flow {
    let e = Ep::new(0);
    Flow {
        svc: SERVICES[0],
        state: State::Single,
        client: e,
        server: e,
        cport: 0,
        sport: 0,
        v6: false,
        vlan: None,
        ip_opts: false,
        c_ip: IpFields {
            ident: 0,
            ttl: 0,
            dont_frag: false,
        },
        s_ip: IpFields {
            ident: 0,
            ttl: 0,
            dont_frag: false,
        },
        sizes: (0, 0),
        ident: 0,
        seq: 0,
        done: true,
    }
}

fn endpoints(f: &Flow, from_server: bool) -> (Ep, Ep, u16, u16, IpFields) {
    if from_server {
        (f.server, f.client, f.sport, f.cport, f.s_ip)
    } else {
        (f.client, f.server, f.cport, f.sport, f.c_ip)
    }
}

fn bump_ident(f: &mut Flow, from_server: bool) {
    let ip = if from_server {
        &mut f.s_ip
    } else {
        &mut f.c_ip
    };
    ip.ident = ip.ident.wrapping_add(1);
}

fn arp_frame(c: &Ep, s: &Ep, reply: bool) -> Vec<u8> {
    let (src, dst) = if reply { (s, c) } else { (c, s) };
    let mut f = Vec::with_capacity(60);
    f.extend_from_slice(if reply { &dst.mac } else { &[0xff; 6] });
    f.extend_from_slice(&src.mac);
    f.extend_from_slice(&0x0806u16.to_be_bytes());
    f.extend_from_slice(&[0, 1, 0x08, 0, 6, 4, 0, if reply { 2 } else { 1 }]);
    f.extend_from_slice(&src.mac);
    f.extend_from_slice(&src.ip.to_be_bytes());
    f.extend_from_slice(if reply { &dst.mac } else { &[0; 6] });
    f.extend_from_slice(&dst.ip.to_be_bytes());
    pad(f)
}

impl Iterator for TraceGen {
    type Item = GenPacket;

    fn next(&mut self) -> Option<GenPacket> {
        let i = self.rng.below(self.active.len() as u64) as usize;
        let frame = self.step(i);
        // Exponential-looking gaps from integers: uniform in 0..2*mean, in whole µs.
        let gap_ns = self.rng.below(2 * self.mean_gap_ns + 1);
        self.ts_us += gap_ns / 1000 + u64::from(self.rng.below(1000) < gap_ns % 1000);
        let orig_len = frame.len() as u32;
        let data = if frame.len() > self.snaplen {
            frame[..self.snaplen].to_vec()
        } else {
            frame
        };
        Some(GenPacket {
            ts_ns: self.ts_us * 1000,
            orig_len,
            data,
        })
    }
}
