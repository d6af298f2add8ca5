//! Synthetic packets for every supported link type.
//!
//! Everything here is deterministic: a [`Rng`] (xorshift64*, seeded through
//! splitmix64) drives every choice, so a seed names a packet set forever, on every
//! platform. Addresses, ports, VLAN ids and the like are drawn from the small
//! [`pool`]s that the random expression generator ([`crate::exprgen`]) draws from
//! too, so random filters hit the packets often.
//!
//! The builders go from the inside out: [`Gen::l3`] makes a network-layer payload and
//! the EtherType naming it, then a link-layer builder ([`Gen::ethernet_random`],
//! [`Gen::sll`], ...) wraps it. [`Gen::frame`] picks everything at random for one
//! link type, and [`truncate`] cuts a packet's captured length below its wire length
//! (libpcap rejects a packet when a load runs past the captured bytes, so this
//! matters).

use netsift_oracle::OwnedPacket;
use netsift_wire::arp::{ArpOperation, ArpPacket};
use netsift_wire::ethernet::{EtherType, EthernetAddress, EthernetFrame};
use netsift_wire::ip::IpProtocol;
use netsift_wire::ipv4::Ipv4Packet;
use netsift_wire::ipv6::Ipv6Packet;
use netsift_wire::tcp::TcpPacket;
use netsift_wire::udp::UdpPacket;
use netsift_wire::vlan::VlanTag;
use netsift_wire::LinkType;

/// A small, fast, seedable PRNG (xorshift64*), seeded through splitmix64.
#[derive(Clone, Debug)]
pub struct Rng {
    s: u64,
}

impl Rng {
    /// A generator whose whole stream is fixed by `seed`; any seed, zero included, is valid.
    pub fn new(seed: u64) -> Rng {
        // splitmix64 of the seed, never zero.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        Rng { s: z | 1 }
    }

    /// A seed derived from a name (FNV-1a), for per-capture streams.
    pub fn seed_from_str(s: &str) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in s.bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h
    }

    /// The next 64 bits of the stream.
    pub fn next_u64(&mut self) -> u64 {
        self.s ^= self.s >> 12;
        self.s ^= self.s << 25;
        self.s ^= self.s >> 27;
        self.s.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// The high 32 bits of the next 64-bit draw.
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// The high 8 bits of the next 64-bit draw.
    pub fn u8(&mut self) -> u8 {
        (self.next_u64() >> 56) as u8
    }

    /// The high 16 bits of the next 64-bit draw.
    pub fn u16(&mut self) -> u16 {
        (self.next_u64() >> 48) as u16
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((self.next_u64() >> 32) * n) >> 32
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent as u64
    }

    /// A uniformly chosen element of `xs`; panics if `xs` is empty.
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }

    /// Picks an index with the given weights.
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut r = self.below(total as u64) as u32;
        for (i, &w) in weights.iter().enumerate() {
            if r < w {
                return i;
            }
            r -= w;
        }
        weights.len() - 1
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.u8()).collect()
    }
}

mod lan;
mod links;
mod wlan;

/// The value pools shared by the packet generator and the expression generator.
pub mod pool {
    /// IPv4 addresses: private, loopback, multicast, broadcast and the zero address.
    pub const IPV4: &[[u8; 4]] = &[
        [10, 0, 0, 1],
        [10, 0, 0, 2],
        [10, 0, 0, 3],
        [10, 0, 0, 4],
        [10, 0, 1, 1],
        [10, 1, 2, 3],
        [192, 168, 1, 1],
        [192, 168, 1, 2],
        [192, 168, 1, 10],
        [192, 168, 1, 255],
        [192, 168, 2, 7],
        [172, 16, 5, 4],
        [8, 8, 8, 8],
        [127, 0, 0, 1],
        [224, 0, 0, 1],
        [224, 0, 0, 251],
        [239, 255, 255, 250],
        [255, 255, 255, 255],
        [0, 0, 0, 0],
    ];

    /// IPv6 addresses as eight 16-bit groups: loopback, link-local, documentation,
    /// multicast, IPv4-mapped and the unspecified address.
    pub const IPV6: &[[u16; 8]] = &[
        [0, 0, 0, 0, 0, 0, 0, 1],
        [0xfe80, 0, 0, 0, 0, 0, 0, 1],
        [0xfe80, 0, 0, 0, 0, 0, 0, 2],
        [0x2001, 0xdb8, 0, 0, 0, 0, 0, 1],
        [0x2001, 0xdb8, 0, 0, 0, 0, 0, 2],
        [0x2001, 0xdb8, 1, 0, 0, 0, 0, 0x10],
        [0x2001, 0xdb8, 0, 0, 0, 0, 0x0a00, 1],
        [0xff02, 0, 0, 0, 0, 0, 0, 1],
        [0xff02, 0, 0, 0, 0, 0, 0, 2],
        [0xff02, 0, 0, 0, 0, 1, 0xff00, 1],
        [0xff05, 0, 0, 0, 0, 0, 1, 3],
        [0, 0, 0, 0, 0, 0xffff, 0x0a00, 1],
        [0, 0, 0, 0, 0, 0, 0, 0],
    ];

    /// Unicast MAC addresses (the group bit clear), some locally administered.
    pub const MAC_UNICAST: &[[u8; 6]] = &[
        [0x00, 0x11, 0x22, 0x33, 0x44, 0x55],
        [0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb],
        [0x02, 0x00, 0x00, 0x00, 0x00, 0x01],
        [0x02, 0x00, 0x00, 0x00, 0x00, 0x02],
        [0x00, 0x00, 0x0c, 0x07, 0xac, 0x01],
    ];

    /// Group MAC addresses: broadcast, IPv4 and IPv6 multicast, and the STP bridge group.
    pub const MAC_GROUP: &[[u8; 6]] = &[
        [0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        [0x01, 0x00, 0x5e, 0x00, 0x00, 0x01],
        [0x01, 0x00, 0x5e, 0x7f, 0xff, 0xfa],
        [0x33, 0x33, 0x00, 0x00, 0x00, 0x01],
        [0x33, 0x33, 0xff, 0x00, 0x00, 0x01],
        [0x01, 0x80, 0xc2, 0x00, 0x00, 0x00],
    ];

    /// TCP/UDP/SCTP ports: well-known services, the edges of the privileged and
    /// ephemeral ranges, the tunnel ports (VXLAN 4789, Geneve 6081) and 0 and 65535.
    pub const PORTS: &[u16] = &[
        0, 1, 7, 20, 21, 22, 23, 25, 53, 67, 68, 80, 110, 123, 137, 161, 443, 514, 1022, 1023,
        1024, 1025, 2049, 4789, 5672, 6081, 8080, 32768, 65534, 65535,
    ];

    /// 802.1Q VLAN IDs, including the reserved 0 and 4095.
    pub const VLAN_IDS: &[u16] = &[0, 1, 2, 10, 100, 1000, 4094, 4095];
    /// MPLS labels: the reserved labels 0 to 3, ordinary ones and the 20-bit maximum.
    pub const MPLS_LABELS: &[u32] = &[0, 1, 2, 3, 16, 100, 1000, 1_048_575];
    /// PPPoE session IDs, including 0 and 65535.
    pub const PPPOE_SESSIONS: &[u16] = &[0, 1, 0x1234, 65535];
    /// VXLAN and Geneve network identifiers, up to the 24-bit maximum.
    pub const VNIS: &[u32] = &[0, 1, 10, 11, 12345, 16_777_215];
    /// Interface indexes for `ifindex` on Linux cooked captures, up to `u32::MAX`.
    pub const IFINDEXES: &[u32] = &[0, 1, 2, 3, 10, 0xffff_ffff];

    /// EtherTypes carried opaquely (besides IPv4, IPv6, ARP, RARP, VLAN, MPLS, PPPoE).
    pub const OTHER_ETHERTYPES: &[u16] = &[
        0x6003, // DECnet
        0x6004, // LAT
        0x6007, // SCA
        0x6001, // MOP dump/load
        0x6002, // MOP remote console
        0x809b, // AppleTalk
        0x80f3, // AARP
        0x8137, // IPX
        0x88cc, // LLDP
        0x8809, // slow protocols
        0x0842, // Wake-on-LAN
        0x9000, // loopback
        0x88e5, // MACsec
        0x05dc, // 1500: the largest 802.3 length
        0x05dd, // 1501: between length and type
        0x0600, // 1536: smallest EtherType
    ];

    /// IP protocol numbers for opaque payloads.
    pub const OTHER_IP_PROTOS: &[u8] = &[0, 2, 9, 50, 51, 88, 89, 103, 108, 112, 132, 255];

    /// ICMP message types: echo, the error messages and the informational types.
    pub const ICMP_TYPES: &[u8] = &[0, 3, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 40];
    /// ICMPv6 message types: errors, echo, MLD and neighbour discovery, and 255.
    pub const ICMP6_TYPES: &[u8] = &[
        1, 2, 3, 4, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 143, 255,
    ];
    /// TCP flag bytes: the usual handshake and teardown combinations, ECN bits, none
    /// and all.
    pub const TCP_FLAGS: &[u8] = &[
        0x02, 0x12, 0x10, 0x18, 0x11, 0x19, 0x04, 0x14, 0x01, 0x30, 0x29, 0xc2, 0x52, 0x00, 0xff,
    ];
    /// Lengths used for `less`/`greater` and `len` relations.
    pub const LENGTHS: &[u32] = &[0, 1, 14, 20, 40, 42, 54, 60, 64, 100, 128, 200, 576, 1500];
}

/// `a.b.c.d` of an IPv4 address.
pub fn ipv4_text(a: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])
}

/// The compressed text of an IPv6 address (`::` for the longest zero run).
pub fn ipv6_text(a: [u16; 8]) -> String {
    std::net::Ipv6Addr::new(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]).to_string()
}

/// `aa:bb:cc:dd:ee:ff`.
pub fn mac_text(m: [u8; 6]) -> String {
    m.iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

fn ipv6_bytes(a: [u16; 8]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (i, w) in a.iter().enumerate() {
        out[2 * i..2 * i + 2].copy_from_slice(&w.to_be_bytes());
    }
    out
}

fn put16(v: &mut Vec<u8>, x: u16) {
    v.extend_from_slice(&x.to_be_bytes());
}

fn put32(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_be_bytes());
}

pub use netsift_wire::checksum::internet as checksum;

/// An Ethernet frame through wire's setters: addresses, each tag's TPID (in the
/// type field before it) and TCI, the final type/length field, the body.
fn ethernet_frame(
    dst: [u8; 6],
    src: [u8; 6],
    tags: &[(u16, u16)],
    type_or_len: u16,
    body: &[u8],
) -> Vec<u8> {
    let mut v = vec![0u8; 14 + 4 * tags.len()];
    let mut f = EthernetFrame::new_unchecked(&mut v[..]);
    f.set_dst_addr(EthernetAddress(dst));
    f.set_src_addr(EthernetAddress(src));
    f.set_type_or_length(tags.first().map_or(type_or_len, |t| t.0));
    for (i, (_, tci)) in tags.iter().enumerate() {
        let next = tags.get(i + 1).map_or(type_or_len, |t| t.0);
        let mut tag = VlanTag::new_unchecked(&mut v[14 + 4 * i..]);
        tag.set_tci(*tci);
        tag.set_ethertype(EtherType(next));
    }
    v.extend_from_slice(body);
    v
}

/// EtherType of IPv4.
pub const ETH_IPV4: u16 = 0x0800;
/// EtherType of ARP.
pub const ETH_ARP: u16 = 0x0806;
/// EtherType of reverse ARP.
pub const ETH_RARP: u16 = 0x8035;
/// EtherType of an 802.1Q VLAN tag.
pub const ETH_VLAN: u16 = 0x8100;
/// EtherType of an 802.1ad (QinQ) service tag.
pub const ETH_QINQ: u16 = 0x88a8;
/// The pre-standard QinQ EtherType some switches still send.
pub const ETH_QINQ_OLD: u16 = 0x9100;
/// EtherType of IPv6.
pub const ETH_IPV6: u16 = 0x86dd;
/// EtherType of unicast MPLS.
pub const ETH_MPLS: u16 = 0x8847;
/// EtherType of multicast MPLS.
pub const ETH_MPLS_MC: u16 = 0x8848;
/// EtherType of PPPoE discovery.
pub const ETH_PPPOED: u16 = 0x8863;
/// EtherType of PPPoE session traffic.
pub const ETH_PPPOES: u16 = 0x8864;
/// EtherType of transparent Ethernet bridging (Ethernet inside GRE).
pub const ETH_TEB: u16 = 0x6558;

/// A network-layer payload and the EtherType that names it.
#[derive(Clone, Debug)]
pub struct L3 {
    /// The EtherType (one of the `ETH_*` constants or an opaque one).
    pub ethertype: u16,
    /// The network-layer header and everything after it.
    pub bytes: Vec<u8>,
}

/// The random packet generator. Holds the RNG and the tunnel nesting depth.
pub struct Gen {
    /// The random source; public so that callers can draw from the same seeded
    /// stream (snapshot lengths, ...) and stay deterministic.
    pub rng: Rng,
    depth: u32,
}

impl Gen {
    /// A generator whose every packet is fixed by `seed`.
    pub fn new(seed: u64) -> Gen {
        Gen {
            rng: Rng::new(seed),
            depth: 0,
        }
    }

    fn ipv4_addr(&mut self) -> [u8; 4] {
        if self.rng.chance(90) {
            *self.rng.pick(pool::IPV4)
        } else {
            let b = self.rng.bytes(4);
            [b[0], b[1], b[2], b[3]]
        }
    }

    fn ipv6_addr(&mut self) -> [u8; 16] {
        if self.rng.chance(90) {
            ipv6_bytes(*self.rng.pick(pool::IPV6))
        } else {
            let b = self.rng.bytes(16);
            let mut a = [0u8; 16];
            a.copy_from_slice(&b);
            a
        }
    }

    fn port(&mut self) -> u16 {
        if self.rng.chance(85) {
            *self.rng.pick(pool::PORTS)
        } else {
            self.rng.u16()
        }
    }

    /// A MAC address: mostly from the unicast pool, often a group address, rarely random.
    pub fn mac(&mut self) -> [u8; 6] {
        match self.rng.weighted(&[70, 25, 5]) {
            0 => *self.rng.pick(pool::MAC_UNICAST),
            1 => *self.rng.pick(pool::MAC_GROUP),
            _ => {
                let b = self.rng.bytes(6);
                [b[0], b[1], b[2], b[3], b[4], b[5]]
            }
        }
    }

    fn payload(&mut self, max: usize) -> Vec<u8> {
        let n = match self.rng.weighted(&[30, 50, 15, 5]) {
            0 => 0,
            1 => self.rng.range(1, 64) as usize,
            2 => self.rng.range(64, 600) as usize,
            _ => self.rng.range(600, 1400) as usize,
        };
        let n = n.min(max);
        if self.rng.chance(20) {
            let text = b"GET / HTTP/1.1\r\nHost: example\r\n\r\n";
            text.iter().copied().cycle().take(n).collect()
        } else {
            self.rng.bytes(n)
        }
    }

    // ---- transport layer ----

    /// A TCP segment (header with options, then payload).
    pub fn tcp(&mut self) -> Vec<u8> {
        let (sport, dport) = (self.port(), self.port());
        let (seq, ack) = (self.rng.next_u32(), self.rng.next_u32());
        let mut opts = Vec::new();
        if self.rng.chance(40) {
            opts.extend_from_slice(&[2, 4, 0x05, 0xb4]); // MSS 1460
            if self.rng.chance(50) {
                opts.extend_from_slice(&[1, 3, 3, 7]); // NOP, window scale
            }
            if self.rng.chance(50) {
                opts.extend_from_slice(&[4, 2, 1, 1]); // SACK permitted, NOP NOP
            }
            if self.rng.chance(40) {
                opts.extend_from_slice(&[8, 10]); // timestamps
                opts.extend_from_slice(&self.rng.bytes(8));
                opts.extend_from_slice(&[1, 1]);
            }
        }
        while opts.len() % 4 != 0 {
            opts.push(0);
        }
        opts.truncate(40);
        let doff = if self.rng.chance(3) {
            self.rng.below(16) as u8 // sometimes a bogus data offset
        } else {
            (5 + opts.len() / 4) as u8
        };
        let flags = if self.rng.chance(90) {
            *self.rng.pick(pool::TCP_FLAGS)
        } else {
            self.rng.u8()
        };
        let window = self.rng.u16();
        let urgent = if self.rng.chance(10) {
            self.rng.u16()
        } else {
            0
        };
        let p = self.payload(1200);
        // The header through wire's setters (checksum left 0); the data offset may
        // be bogus, so the options and payload go in by position.
        let mut v = vec![0u8; 20];
        let mut t = TcpPacket::new_unchecked(&mut v[..]);
        t.set_src_port(sport);
        t.set_dst_port(dport);
        t.set_seq_number(seq);
        t.set_ack_number(ack);
        t.set_header_len(usize::from(doff) * 4);
        t.set_flags(flags);
        t.set_window_len(window);
        t.set_urgent_at(urgent);
        v.extend_from_slice(&opts);
        v.extend_from_slice(&p);
        v
    }

    /// A UDP datagram; to port 4789 it carries VXLAN, to 6081 Geneve.
    pub fn udp(&mut self) -> Vec<u8> {
        let sport = self.port();
        let mut dport = self.port();
        let nested = self.depth < 2 && self.rng.chance(15);
        let body = if nested {
            self.depth += 1;
            let b = if self.rng.chance(50) {
                dport = 4789;
                self.vxlan()
            } else {
                dport = 6081;
                self.geneve()
            };
            self.depth -= 1;
            b
        } else if dport == 53 || sport == 53 {
            self.dns()
        } else {
            self.payload(1200)
        };
        let len = if self.rng.chance(5) {
            self.rng.u16()
        } else {
            (8 + body.len()) as u16
        };
        // The length may be bogus: the body goes in by position, checksum 0.
        let mut v = vec![0u8; 8];
        let mut u = UdpPacket::new_unchecked(&mut v[..]);
        u.set_src_port(sport);
        u.set_dst_port(dport);
        u.set_len(len);
        v.extend_from_slice(&body);
        v
    }

    fn dns(&mut self) -> Vec<u8> {
        let mut v = Vec::new();
        put16(&mut v, self.rng.u16());
        put16(&mut v, if self.rng.chance(50) { 0x0100 } else { 0x8180 });
        put16(&mut v, 1);
        put16(&mut v, 0);
        put16(&mut v, 0);
        put16(&mut v, 0);
        v.extend_from_slice(b"\x07example\x03com\x00\x00\x01\x00\x01");
        v
    }

    /// VXLAN header (flags 0x08, VNI) and an inner Ethernet frame.
    pub fn vxlan(&mut self) -> Vec<u8> {
        let mut v = vec![if self.rng.chance(90) { 0x08 } else { 0x00 }, 0, 0, 0];
        let vni = self.vni();
        put32(&mut v, vni << 8);
        let inner = self.ethernet_random();
        v.extend_from_slice(&inner);
        v
    }

    fn vni(&mut self) -> u32 {
        if self.rng.chance(85) {
            *self.rng.pick(pool::VNIS)
        } else {
            self.rng.next_u32() & 0x00ff_ffff
        }
    }

    /// Geneve header (options of 0 to 12 bytes, VNI) and an inner Ethernet frame or
    /// IP packet.
    pub fn geneve(&mut self) -> Vec<u8> {
        let optwords = self.rng.below(4) as u8;
        let mut v = vec![optwords & 0x3f, if self.rng.chance(10) { 0x80 } else { 0 }];
        let (proto, inner) = match self.rng.weighted(&[70, 15, 10, 5]) {
            0 => (ETH_TEB, self.ethernet_random()),
            1 => (ETH_IPV4, self.ipv4()),
            2 => (ETH_IPV6, self.ipv6()),
            _ => (self.rng.u16(), self.payload(100)),
        };
        put16(&mut v, proto);
        let vni = self.vni();
        put32(&mut v, vni << 8);
        for _ in 0..optwords {
            v.extend_from_slice(&self.rng.bytes(4));
        }
        v.extend_from_slice(&inner);
        v
    }

    /// An SCTP common header (ports mostly from the pool, a random tag, a zero
    /// checksum) and one DATA or INIT chunk.
    pub fn sctp(&mut self) -> Vec<u8> {
        let mut v = Vec::new();
        put16(&mut v, self.port());
        put16(&mut v, self.port());
        put32(&mut v, self.rng.next_u32());
        put32(&mut v, 0);
        // One DATA or INIT chunk.
        let data = self.payload(200);
        v.push(if self.rng.chance(50) { 0 } else { 1 });
        v.push(0);
        put16(&mut v, (4 + data.len()) as u16);
        v.extend_from_slice(&data);
        v
    }

    /// ICMP; error messages quote an IPv4 header and 8 bytes.
    pub fn icmp(&mut self) -> Vec<u8> {
        let ty = if self.rng.chance(90) {
            *self.rng.pick(pool::ICMP_TYPES)
        } else {
            self.rng.u8()
        };
        let code = if self.rng.chance(70) {
            0
        } else {
            self.rng.below(16) as u8
        };
        let mut v = vec![ty, code, 0, 0];
        put32(&mut v, self.rng.next_u32());
        if matches!(ty, 3 | 4 | 5 | 11 | 12) && self.depth < 2 {
            self.depth += 1;
            let mut inner = self.ipv4();
            self.depth -= 1;
            let ihl = ((inner[0] & 0x0f) as usize * 4).min(inner.len());
            inner.truncate(ihl + 8);
            v.extend_from_slice(&inner);
        } else {
            let p = self.payload(200);
            v.extend_from_slice(&p);
        }
        let c = checksum(&v);
        v[2..4].copy_from_slice(&c.to_be_bytes());
        v
    }

    /// ICMPv6 with a zero checksum; neighbour solicitations and advertisements
    /// carry a target address.
    pub fn icmp6(&mut self) -> Vec<u8> {
        let ty = if self.rng.chance(90) {
            *self.rng.pick(pool::ICMP6_TYPES)
        } else {
            self.rng.u8()
        };
        let mut v = vec![ty, 0, 0, 0];
        put32(&mut v, self.rng.next_u32());
        if matches!(ty, 135 | 136) {
            let a = self.ipv6_addr();
            v.extend_from_slice(&a);
        }
        let p = self.payload(100);
        v.extend_from_slice(&p);
        v
    }

    /// An IGMP message (query, report, leave or DVMRP) with a zero checksum and a
    /// group address.
    pub fn igmp(&mut self) -> Vec<u8> {
        let ty = *self.rng.pick(&[0x11u8, 0x12, 0x16, 0x17, 0x22, 0x13]);
        let mut v = vec![ty, self.rng.u8(), 0, 0];
        let g = self.ipv4_addr();
        v.extend_from_slice(&g);
        v
    }

    /// GRE with optional checksum/key/sequence fields and an inner packet.
    pub fn gre(&mut self) -> Vec<u8> {
        let c = self.rng.chance(20);
        let k = self.rng.chance(30);
        let s = self.rng.chance(20);
        let flags: u16 = (c as u16) << 15 | (k as u16) << 13 | (s as u16) << 12;
        let (proto, inner) = if self.depth < 2 {
            self.depth += 1;
            let r = match self.rng.weighted(&[40, 25, 20, 15]) {
                0 => (ETH_IPV4, self.ipv4()),
                1 => (ETH_IPV6, self.ipv6()),
                2 => (ETH_TEB, self.ethernet_random()),
                _ => (0x880b, self.payload(100)), // PPP
            };
            self.depth -= 1;
            r
        } else {
            (0x880b, self.payload(40))
        };
        let mut v = Vec::new();
        put16(&mut v, flags);
        put16(&mut v, proto);
        if c {
            put32(&mut v, 0);
        }
        if k {
            put32(&mut v, self.rng.next_u32());
        }
        if s {
            put32(&mut v, self.rng.next_u32());
        }
        v.extend_from_slice(&inner);
        v
    }

    /// The body of an IP packet with protocol `proto`.
    fn transport(&mut self, proto: u8, v6: bool) -> Vec<u8> {
        match proto {
            6 => self.tcp(),
            17 => self.udp(),
            132 => self.sctp(),
            1 => self.icmp(),
            58 => self.icmp6(),
            2 => self.igmp(),
            47 if self.depth < 2 => self.gre(),
            4 if self.depth < 2 => {
                self.depth += 1;
                let r = self.ipv4();
                self.depth -= 1;
                r
            }
            41 if self.depth < 2 => {
                self.depth += 1;
                let r = self.ipv6();
                self.depth -= 1;
                r
            }
            112 => {
                // VRRP v2/v3 or CARP
                let mut v = vec![*self.rng.pick(&[0x21u8, 0x31, 0x11]), self.rng.u8()];
                v.extend_from_slice(&self.rng.bytes(18));
                v
            }
            103 => {
                // PIM
                let mut v = vec![0x20 | self.rng.below(10) as u8, 0, 0, 0];
                v.extend_from_slice(&self.rng.bytes(12));
                v
            }
            50 => {
                let mut v = Vec::new();
                put32(&mut v, self.rng.next_u32());
                put32(&mut v, self.rng.next_u32());
                v.extend_from_slice(&self.rng.bytes(24));
                v
            }
            51 if !v6 => {
                // IPv4 AH: next header, payload length in 32-bit words minus 2.
                let next = *self.rng.pick(&[6u8, 17, 1, 4]);
                let mut v = vec![next, 4, 0, 0];
                put32(&mut v, self.rng.next_u32());
                put32(&mut v, self.rng.next_u32());
                v.extend_from_slice(&self.rng.bytes(12));
                let inner = self.transport(next, false);
                v.extend_from_slice(&inner);
                v
            }
            _ => self.payload(300),
        }
    }

    fn ip_proto(&mut self, v6: bool) -> u8 {
        let common: &[u8] = if v6 {
            &[6, 17, 58, 132, 47, 4, 41]
        } else {
            &[6, 17, 1, 2, 132, 47, 4, 41]
        };
        match self.rng.weighted(&[85, 12, 3]) {
            0 => *self.rng.pick(common),
            1 => *self.rng.pick(pool::OTHER_IP_PROTOS),
            _ => self.rng.u8(),
        }
    }

    // ---- network layer ----

    /// An IPv4 packet: options, fragments (first and non-first), and a body.
    pub fn ipv4(&mut self) -> Vec<u8> {
        let proto = self.ip_proto(false);
        let mut opts = Vec::new();
        if self.rng.chance(15) {
            match self.rng.below(3) {
                0 => opts.extend_from_slice(&[148, 4, 0, 0]), // router alert
                1 => {
                    // record route with two slots
                    opts.extend_from_slice(&[7, 11, 4]);
                    opts.extend_from_slice(&[0; 8]);
                }
                _ => {
                    let n = self.rng.range(1, 40) as usize;
                    opts.resize(n, 1);
                }
            }
            opts.truncate(40);
            while opts.len() % 4 != 0 {
                opts.push(0);
            }
        }
        let ihl = (5 + opts.len() / 4) as u8;
        let (flags_frag, body) = match self.rng.weighted(&[80, 8, 8, 4]) {
            0 => (if self.rng.chance(50) { 0x4000 } else { 0 }, None),
            1 => (0x2000, None), // first fragment, more follow
            2 => {
                // a non-first fragment: the transport header is not here
                let off = self.rng.range(1, 0x1fff) as u16;
                let mf = if self.rng.chance(50) { 0x2000 } else { 0 };
                (mf | off, Some(self.payload(400)))
            }
            _ => (self.rng.u16() & 0xbfff, None),
        };
        let body = match body {
            Some(b) => b,
            None => self.transport(proto, false),
        };
        let src = self.ipv4_addr();
        let dst = self.ipv4_addr();
        let version = if self.rng.chance(3) {
            self.rng.u8() >> 4 // a bogus version now and then
        } else {
            4
        };
        let tos = self.rng.u8() & 0xfc;
        let total = if self.rng.chance(4) {
            self.rng.u16()
        } else {
            (20 + opts.len() + body.len()).min(65535) as u16
        };
        let ident = self.rng.u16();
        let ttl = *self.rng.pick(&[1u8, 2, 64, 128, 255]);
        let mut v = vec![0u8; 20 + opts.len()];
        let mut ip = Ipv4Packet::new_unchecked(&mut v[..]);
        ip.set_version(version);
        ip.set_header_len(usize::from(ihl) * 4);
        ip.set_tos(tos);
        ip.set_total_len(total);
        ip.set_ident(ident);
        ip.set_reserved_flag(flags_frag & 0x8000 != 0);
        ip.set_dont_frag(flags_frag & 0x4000 != 0);
        ip.set_more_frags(flags_frag & 0x2000 != 0);
        ip.set_frag_offset(u32::from(flags_frag & 0x1fff) * 8);
        ip.set_ttl(ttl);
        ip.set_protocol(IpProtocol(proto));
        ip.set_src_addr(src.into());
        ip.set_dst_addr(dst.into());
        ip.options_mut().copy_from_slice(&opts);
        ip.fill_checksum();
        v.extend_from_slice(&body);
        v
    }

    /// An IPv6 packet with zero to three extension headers (hop-by-hop, routing,
    /// fragment, destination options, AH) before the upper layer.
    pub fn ipv6(&mut self) -> Vec<u8> {
        let upper = self.ip_proto(true);
        let n_ext = *self.rng.pick(&[0usize, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 3]);
        let mut exts: Vec<u8> = Vec::new();
        for i in 0..n_ext {
            let e = *self.rng.pick(&[0u8, 43, 44, 60, 51]);
            if e == 0 && i != 0 {
                exts.push(60);
            } else {
                exts.push(e);
            }
        }
        let mut nonfirst_fragment = false;
        let mut hdrs = Vec::new();
        for (i, &e) in exts.iter().enumerate() {
            let next = exts.get(i + 1).copied().unwrap_or(upper);
            match e {
                0 | 60 => {
                    let units = self.rng.below(3) as u8; // (units + 1) * 8 bytes
                    hdrs.push(next);
                    hdrs.push(units);
                    // PadN filling the rest
                    let n = (units as usize + 1) * 8 - 2;
                    hdrs.push(1);
                    hdrs.push((n - 2) as u8);
                    hdrs.resize(hdrs.len() + n - 2, 0);
                }
                43 => {
                    let naddr = self.rng.below(3) as u8;
                    hdrs.push(next);
                    hdrs.push(naddr * 2);
                    hdrs.push(*self.rng.pick(&[0u8, 2, 3, 4]));
                    hdrs.push(naddr);
                    put32(&mut hdrs, 0);
                    for _ in 0..naddr {
                        let a = self.ipv6_addr();
                        hdrs.extend_from_slice(&a);
                    }
                }
                44 => {
                    hdrs.push(next);
                    hdrs.push(0);
                    let off: u16 = if self.rng.chance(40) {
                        nonfirst_fragment = true;
                        self.rng.range(1, 0x1fff) as u16
                    } else {
                        0
                    };
                    let m = self.rng.chance(50) as u16;
                    put16(&mut hdrs, off << 3 | m);
                    put32(&mut hdrs, self.rng.next_u32());
                }
                _ => {
                    // AH: length in 32-bit words minus 2; 12 bytes + 12 ICV = 24 = 6 words
                    hdrs.push(next);
                    hdrs.push(4);
                    put16(&mut hdrs, 0);
                    put32(&mut hdrs, self.rng.next_u32());
                    put32(&mut hdrs, self.rng.next_u32());
                    hdrs.extend_from_slice(&self.rng.bytes(12));
                }
            }
        }
        let body = if nonfirst_fragment {
            self.payload(300)
        } else {
            self.transport(upper, true)
        };
        let first_next = exts.first().copied().unwrap_or(upper);
        let version = if self.rng.chance(3) {
            self.rng.u8() >> 4
        } else {
            6
        };
        // The traffic class and flow label: 4 + 24 random bits.
        let tc_high = self.rng.u8() & 0x0f;
        let rest = self.rng.bytes(3);
        let plen = if self.rng.chance(4) {
            self.rng.u16()
        } else {
            (hdrs.len() + body.len()).min(65535) as u16
        };
        let hops = *self.rng.pick(&[1u8, 64, 255]);
        let src = self.ipv6_addr();
        let dst = self.ipv6_addr();
        let mut v = vec![0u8; 40];
        let mut ip = Ipv6Packet::new_unchecked(&mut v[..]);
        ip.set_version(version);
        ip.set_traffic_class(tc_high << 4 | rest[0] >> 4);
        ip.set_flow_label(u32::from_be_bytes([0, rest[0] & 0x0f, rest[1], rest[2]]));
        ip.set_payload_len(plen);
        ip.set_next_header(IpProtocol(first_next));
        ip.set_hop_limit(hops);
        ip.set_src_addr(src.into());
        ip.set_dst_addr(dst.into());
        v.extend_from_slice(&hdrs);
        v.extend_from_slice(&body);
        v
    }

    /// An ARP or RARP packet (Ethernet/IPv4 mostly; odd hardware and sizes sometimes).
    pub fn arp(&mut self) -> Vec<u8> {
        let odd = self.rng.chance(10);
        let htype = if odd { *self.rng.pick(&[6u16, 0]) } else { 1 };
        let ptype = if odd && self.rng.chance(50) {
            ETH_IPV6
        } else {
            ETH_IPV4
        };
        let (hln, pln) = if odd && self.rng.chance(50) {
            (8u8, 16u8)
        } else {
            (6, 4)
        };
        let oper = *self.rng.pick(&[1u16, 2, 3, 4, 8, 9]);
        // Each address as long as its length field says, zero-padded.
        let mut addrs = Vec::new();
        for _ in 0..2 {
            let mut m = self.mac().to_vec();
            m.resize(hln.into(), 0);
            let mut a = self.ipv4_addr().to_vec();
            a.resize(pln.into(), 0);
            addrs.push((m, a));
        }
        let mut v = vec![0u8; 8 + 2 * usize::from(hln + pln)];
        let mut p = ArpPacket::new_unchecked(&mut v[..]);
        p.set_hardware_type(htype);
        p.set_protocol_type(EtherType(ptype));
        p.set_hardware_len(hln);
        p.set_protocol_len(pln);
        p.set_operation(ArpOperation(oper));
        p.set_source_hardware_addr(&addrs[0].0);
        p.set_source_protocol_addr(&addrs[0].1);
        p.set_target_hardware_addr(&addrs[1].0);
        p.set_target_protocol_addr(&addrs[1].1);
        v
    }

    /// A random network-layer payload.
    pub fn l3(&mut self) -> L3 {
        match self.rng.weighted(&[50, 25, 8, 3, 14]) {
            0 => L3 {
                ethertype: ETH_IPV4,
                bytes: self.ipv4(),
            },
            1 => L3 {
                ethertype: ETH_IPV6,
                bytes: self.ipv6(),
            },
            2 => L3 {
                ethertype: ETH_ARP,
                bytes: self.arp(),
            },
            3 => L3 {
                ethertype: ETH_RARP,
                bytes: self.arp(),
            },
            _ => L3 {
                ethertype: *self.rng.pick(pool::OTHER_ETHERTYPES),
                bytes: self.payload(200),
            },
        }
    }

    /// An IPv4 or IPv6 packet (for links that carry only IP).
    pub fn ip(&mut self) -> L3 {
        if self.rng.chance(60) {
            L3 {
                ethertype: ETH_IPV4,
                bytes: self.ipv4(),
            }
        } else {
            L3 {
                ethertype: ETH_IPV6,
                bytes: self.ipv6(),
            }
        }
    }

    // ---- link layer ----

    /// An 802.2 LLC frame body: STP BPDU, SNAP-encapsulated IP/ARP, ISO (IS-IS, CLNP,
    /// ES-IS), IPX, NetBEUI, or random SAPs, with I, S or U format control fields.
    pub fn llc(&mut self) -> Vec<u8> {
        let mut v = Vec::new();
        match self.rng.weighted(&[20, 20, 20, 10, 10, 20]) {
            0 => {
                v.extend_from_slice(&[0x42, 0x42, 0x03]);
                v.extend_from_slice(&[0, 0, 0, 0]);
                v.extend_from_slice(&self.rng.bytes(31));
            }
            1 => {
                v.extend_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0]);
                let l3 = self.l3();
                put16(&mut v, l3.ethertype);
                v.extend_from_slice(&l3.bytes);
            }
            2 => {
                v.extend_from_slice(&[0xfe, 0xfe, 0x03]);
                let nlpid = *self.rng.pick(&[0x83u8, 0x81, 0x82, 0x8e]);
                v.push(nlpid);
                // IS-IS: length, version, id length, PDU type (15..=26)
                v.extend_from_slice(&[27, 1, 0]);
                v.push(*self.rng.pick(&[15u8, 16, 17, 18, 20, 24, 25, 26, 27]));
                v.extend_from_slice(&self.rng.bytes(30));
            }
            3 => {
                v.extend_from_slice(&[0xe0, 0xe0, 0x03]);
                v.extend_from_slice(&self.rng.bytes(30));
            }
            4 => {
                v.extend_from_slice(&[0xf0, 0xf0, 0x03]);
                v.extend_from_slice(&self.rng.bytes(20));
            }
            _ => {
                let sap = self.rng.u8();
                v.push(sap);
                v.push(sap);
                // I (xxxxxxx0), S (xxxxxx01: RR 01, RNR 05, REJ 09), U (xxxxxx11)
                let ctl = *self.rng.pick(&[
                    0x00u8, 0x02, 0x01, 0x05, 0x09, 0x03, 0x13, 0x43, 0x63, 0x0f, 0x6f, 0x73, 0x87,
                    0xaf, 0xe3, 0xff,
                ]);
                v.push(ctl);
                if ctl & 0x03 != 0x03 {
                    v.push(self.rng.u8());
                }
                v.extend_from_slice(&self.rng.bytes(20));
            }
        }
        v
    }

    fn vlan_tci(&mut self) -> u16 {
        let vid = if self.rng.chance(85) {
            *self.rng.pick(pool::VLAN_IDS)
        } else {
            self.rng.u16() & 0x0fff
        };
        (self.rng.u16() & 0xf000) | vid
    }

    /// An MPLS label stack (1 to 3 labels, bottom-of-stack set on the last) and what
    /// it carries (IPv4, IPv6 or random bytes).
    pub fn mpls(&mut self) -> Vec<u8> {
        let n = self.rng.range(1, 3);
        let mut v = Vec::new();
        for i in 0..n {
            let label = if self.rng.chance(85) {
                *self.rng.pick(pool::MPLS_LABELS)
            } else {
                self.rng.next_u32() & 0xfffff
            };
            let bos = (i == n - 1) as u32;
            put32(
                &mut v,
                label << 12 | (self.rng.below(8) as u32) << 9 | bos << 8 | 64,
            );
        }
        let inner = match self.rng.weighted(&[50, 30, 20]) {
            0 => self.ipv4(),
            1 => self.ipv6(),
            _ => self.payload(60),
        };
        v.extend_from_slice(&inner);
        v
    }

    /// A PPPoE session header and a PPP frame (IPv4, IPv6, LCP, IPCP).
    pub fn pppoe_session(&mut self) -> Vec<u8> {
        let sid = if self.rng.chance(85) {
            *self.rng.pick(pool::PPPOE_SESSIONS)
        } else {
            self.rng.u16()
        };
        let (proto, inner) = match self.rng.weighted(&[50, 25, 15, 10]) {
            0 => (0x0021u16, self.ipv4()),
            1 => (0x0057, self.ipv6()),
            2 => (0xc021, self.payload(30)),
            _ => (0x8021, self.payload(30)),
        };
        let mut v = vec![0x11, 0x00];
        put16(&mut v, sid);
        put16(&mut v, (2 + inner.len()) as u16);
        put16(&mut v, proto);
        v.extend_from_slice(&inner);
        v
    }

    /// What follows an Ethernet frame's addresses: VLAN tags (TPID and TCI each),
    /// then the type/length field and its body (MPLS, PPPoE, an 802.3 length with
    /// LLC, or an EtherType and a network payload).
    fn ethernet_body(&mut self) -> (Vec<(u16, u16)>, u16, Vec<u8>) {
        let ntags = self.rng.weighted(&[70, 20, 8, 2]);
        let mut tags = Vec::new();
        for i in 0..ntags {
            let tpid = if i + 1 < ntags && self.rng.chance(50) {
                *self.rng.pick(&[ETH_QINQ, ETH_QINQ_OLD])
            } else if self.rng.chance(90) {
                ETH_VLAN
            } else {
                *self.rng.pick(&[ETH_QINQ, ETH_QINQ_OLD])
            };
            let tci = self.vlan_tci();
            tags.push((tpid, tci));
        }
        let (type_or_len, body) = match self.rng.weighted(&[72, 9, 7, 2, 10]) {
            0 => {
                let l3 = self.l3();
                (l3.ethertype, l3.bytes)
            }
            1 => {
                let t = if self.rng.chance(85) {
                    ETH_MPLS
                } else {
                    ETH_MPLS_MC
                };
                (t, self.mpls())
            }
            2 => (ETH_PPPOES, self.pppoe_session()),
            3 => (ETH_PPPOED, vec![0x11, 0x09, 0, 0, 0, 4, 1, 1, 0, 0]),
            _ => {
                let llc = self.llc();
                let len = if self.rng.chance(90) {
                    llc.len().min(1500) as u16
                } else {
                    self.rng.range(0, 1500) as u16
                };
                (len, llc)
            }
        };
        (tags, type_or_len, body)
    }

    /// A random Ethernet frame (also used inside VXLAN, Geneve and GRE).
    pub fn ethernet_random(&mut self) -> Vec<u8> {
        let dst = self.mac();
        let src = if self.rng.chance(95) {
            *self.rng.pick(pool::MAC_UNICAST)
        } else {
            self.mac()
        };
        let (tags, type_or_len, body) = self.ethernet_body();
        let mut v = ethernet_frame(dst, src, &tags, type_or_len, &body);
        if v.len() < 60 && self.rng.chance(50) {
            v.resize(60, 0);
        }
        v
    }

    /// A Linux cooked (SLL) header around a payload of protocol `proto`.
    pub fn sll(&mut self, proto: u16, payload: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        put16(&mut v, *self.rng.pick(&[0u16, 1, 2, 3, 4, 4, 0, 5]));
        put16(
            &mut v,
            *self.rng.pick(&[1u16, 1, 1, 772, 776, 65534, 824, 280]),
        );
        let halen = *self.rng.pick(&[6u16, 6, 6, 0, 8]);
        put16(&mut v, halen);
        let m = self.mac();
        v.extend_from_slice(&m);
        v.extend_from_slice(&[0, 0]);
        put16(&mut v, proto);
        v.extend_from_slice(payload);
        v
    }

    /// A Linux cooked v2 (SLL2) header around a payload of protocol `proto`.
    pub fn sll2(&mut self, proto: u16, payload: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        put16(&mut v, proto);
        put16(&mut v, 0);
        let ifindex = if self.rng.chance(90) {
            *self.rng.pick(pool::IFINDEXES)
        } else {
            self.rng.next_u32()
        };
        put32(&mut v, ifindex);
        put16(&mut v, *self.rng.pick(&[1u16, 1, 1, 772, 776, 65534, 824]));
        v.push(*self.rng.pick(&[0u8, 1, 2, 3, 4, 4, 0, 5]));
        v.push(*self.rng.pick(&[6u8, 6, 6, 0, 8]));
        let m = self.mac();
        v.extend_from_slice(&m);
        v.extend_from_slice(&[0, 0]);
        v.extend_from_slice(payload);
        v
    }

    /// A cooked-capture protocol and payload: an EtherType and its packet, or one of
    /// the Linux pseudo-protocols (802.2 LLC 0x0004, 802.3 0x0001, ...).
    fn cooked_payload(&mut self) -> (u16, Vec<u8>) {
        match self.rng.weighted(&[75, 8, 4, 3, 10]) {
            0 => {
                let l3 = self.l3();
                (l3.ethertype, l3.bytes)
            }
            1 => (0x0004, self.llc()),
            2 => (0x0001, self.payload(60)),
            3 => (
                *self.rng.pick(&[0x0003u16, 0x0005, 0x000c, 0x0019]),
                self.payload(60),
            ),
            _ => {
                // VLAN, MPLS and PPPoE inside cooked captures
                match self.rng.below(3) {
                    0 => {
                        let mut v = Vec::new();
                        let tci = self.vlan_tci();
                        put16(&mut v, tci);
                        let l3 = self.l3();
                        put16(&mut v, l3.ethertype);
                        v.extend_from_slice(&l3.bytes);
                        (ETH_VLAN, v)
                    }
                    1 => (ETH_MPLS, self.mpls()),
                    _ => (ETH_PPPOES, self.pppoe_session()),
                }
            }
        }
    }

    /// A BSD loopback address family for an IP version: AF_INET 2, and the several
    /// AF_INET6 values of the BSDs (24, 28, 30) and Linux (10), plus odd ones.
    fn loopback_family(&mut self, ethertype: u16) -> u32 {
        if ethertype == ETH_IPV4 {
            if self.rng.chance(90) {
                2
            } else {
                *self.rng.pick(&[7u32, 23, 0])
            }
        } else if self.rng.chance(90) {
            *self.rng.pick(&[24u32, 28, 30, 10])
        } else {
            *self.rng.pick(&[2u32, 7, 0])
        }
    }

    /// One random frame of link type `lt`.
    pub fn frame(&mut self, lt: LinkType) -> Vec<u8> {
        match lt {
            LinkType::EN10MB => self.ethernet_random(),
            LinkType::LINUX_SLL => {
                let (p, body) = self.cooked_payload();
                self.sll(p, &body)
            }
            LinkType::LINUX_SLL2 => {
                let (p, body) = self.cooked_payload();
                self.sll2(p, &body)
            }
            LinkType::NULL | LinkType::LOOP => {
                let l3 = if self.rng.chance(90) {
                    self.ip()
                } else {
                    self.l3()
                };
                let af = self.loopback_family(l3.ethertype);
                // NULL: host byte order of the capturing machine (either); LOOP: network.
                let hdr = if lt == LinkType::LOOP || self.rng.chance(20) {
                    af.to_be_bytes()
                } else {
                    af.to_le_bytes()
                };
                let mut v = hdr.to_vec();
                v.extend_from_slice(&l3.bytes);
                v
            }
            LinkType::RAW => {
                if self.rng.chance(95) {
                    self.ip().bytes
                } else {
                    self.payload(80)
                }
            }
            LinkType::IPV4 => {
                if self.rng.chance(95) {
                    self.ipv4()
                } else {
                    self.ipv6()
                }
            }
            LinkType::IPV6 => {
                if self.rng.chance(95) {
                    self.ipv6()
                } else {
                    self.ipv4()
                }
            }
            _ => self.frame_more(lt),
        }
    }

    /// A random frame as a packet, truncated below its wire length now and then.
    pub fn packet(&mut self, lt: LinkType, truncate_percent: u32) -> OwnedPacket {
        let data = self.frame(lt);
        let wire_len = data.len() as u32;
        let mut p = OwnedPacket {
            data,
            wire_len,
            ts_sec: 0,
            ts_usec: 0,
        };
        if self.rng.chance(truncate_percent) {
            truncate(&mut self.rng, &mut p);
        }
        p
    }
}

/// Cuts the captured length of `p` to a random smaller length (keeping `wire_len`):
/// usually somewhere in the headers, sometimes to nothing at all.
pub fn truncate(rng: &mut Rng, p: &mut OwnedPacket) {
    let len = p.data.len();
    if len == 0 {
        return;
    }
    let cut = match rng.weighted(&[70, 20, 10]) {
        0 => rng.below(len.min(96) as u64) as usize,
        1 => rng.below(len as u64) as usize,
        _ => 0,
    };
    p.data.truncate(cut);
}

/// Deterministic synthetic captures for one link type: a broad mix, a heavily
/// truncated set, and (for Ethernet) a tunnel- and tag-heavy set.
pub fn captures_for(lt: LinkType, seed: u64) -> Vec<(String, LinkType, Vec<OwnedPacket>)> {
    let name = lt.name().unwrap_or("UNKNOWN");
    let mut out = Vec::new();
    let mut g = Gen::new(seed ^ Rng::seed_from_str(name));
    let mixed: Vec<OwnedPacket> = (0..600)
        .map(|i| {
            let mut p = g.packet(lt, 10);
            p.ts_sec = 1_700_000_000 + i;
            p
        })
        .collect();
    out.push((format!("gen-{name}-mixed"), lt, mixed));
    let truncated: Vec<OwnedPacket> = (0..150)
        .map(|i| {
            let mut p = g.packet(lt, 100);
            p.ts_sec = 1_700_001_000 + i;
            p
        })
        .collect();
    out.push((format!("gen-{name}-truncated"), lt, truncated));
    out
}

/// Captures of one link type as a capture with a small snap length has them: three
/// captures, each of 200 fresh frames cut to its own snap length between 40 and 96
/// bytes (the wire length kept), as `tcpdump -s N` writes them. Short packets are
/// where the verdict depends on which loads libpcap's optimizer leaves before a
/// decision; a snap length cuts every frame at the same place, the way real
/// captures are cut, where [`truncate`] cuts each at random.
pub fn snapped_captures_for(lt: LinkType, seed: u64) -> Vec<(String, LinkType, Vec<OwnedPacket>)> {
    let name = lt.name().unwrap_or("UNKNOWN");
    let mut g = Gen::new(seed ^ Rng::seed_from_str(name) ^ Rng::seed_from_str("snap"));
    (0..3)
        .map(|k| {
            let snap = g.rng.range(40, 96) as usize;
            let packets = (0..200)
                .map(|i| {
                    let mut p = g.packet(lt, 0);
                    p.data.truncate(snap);
                    p.ts_sec = 1_700_002_000 + 1000 * k + i;
                    p
                })
                .collect();
            (format!("gen-{name}-snap{snap}"), lt, packets)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rng_is_deterministic_and_spread() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        let xs: Vec<u64> = (0..100).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..100).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        let mut c = Rng::new(43);
        assert_ne!(xs[0], c.next_u64());
        let mut hist = [0u32; 10];
        for _ in 0..10_000 {
            hist[a.below(10) as usize] += 1;
        }
        assert!(hist.iter().all(|&h| (800..1200).contains(&h)), "{hist:?}");
        for _ in 0..1000 {
            let r = a.range(5, 7);
            assert!((5..=7).contains(&r));
        }
    }

    #[test]
    fn checksum_of_a_known_header() {
        // RFC 1071 style example: an IPv4 header whose checksum is 0xb861.
        let h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(checksum(&h), 0xb861);
    }

    #[test]
    fn texts() {
        assert_eq!(ipv4_text([10, 0, 0, 1]), "10.0.0.1");
        assert_eq!(ipv6_text([0xfe80, 0, 0, 0, 0, 0, 0, 1]), "fe80::1");
        assert_eq!(mac_text([0xff; 6]), "ff:ff:ff:ff:ff:ff");
    }

    #[test]
    fn ipv4_header_is_well_formed_mostly() {
        let mut g = Gen::new(1);
        let mut good = 0;
        for _ in 0..500 {
            let p = g.ipv4();
            let ihl = (p[0] & 0x0f) as usize * 4;
            assert!(ihl >= 20 && p.len() >= ihl);
            if p[0] >> 4 == 4 {
                good += 1;
                assert_eq!(checksum(&p[..ihl]), 0);
            }
        }
        assert!(good > 450);
    }

    #[test]
    fn ipv6_extension_chain_is_walkable() {
        let mut g = Gen::new(2);
        let mut with_ext = 0;
        for _ in 0..500 {
            let p = g.ipv6();
            let mut next = p[6];
            let mut off = 40;
            let mut hops = 0;
            while matches!(next, 0 | 43 | 44 | 60 | 51) && hops < 4 {
                if off + 2 > p.len() {
                    break; // a random upper-layer number that looks like a header
                }
                let len = match next {
                    44 => 8,
                    51 => (p[off + 1] as usize + 2) * 4,
                    _ => (p[off + 1] as usize + 1) * 8,
                };
                next = p[off];
                off += len;
                hops += 1;
            }
            if hops > 0 {
                with_ext += 1;
            }
        }
        assert!(with_ext > 100, "{with_ext}");
    }

    #[test]
    fn ethernet_frames_cover_the_features() {
        let mut g = Gen::new(3);
        let (mut vlan, mut qinq, mut mpls, mut pppoe, mut llc, mut bcast, mut vxlan) =
            (0, 0, 0, 0, 0, 0, 0);
        for _ in 0..3000 {
            let f = g.ethernet_random();
            let et = u16::from_be_bytes([f[12], f[13]]);
            match et {
                ETH_VLAN => {
                    vlan += 1;
                    if u16::from_be_bytes([f[16], f[17]]) == ETH_VLAN {
                        qinq += 1;
                    }
                }
                ETH_QINQ | ETH_QINQ_OLD => qinq += 1,
                ETH_MPLS | ETH_MPLS_MC => mpls += 1,
                ETH_PPPOES => pppoe += 1,
                0..=1500 => llc += 1,
                _ => {}
            }
            if f[..6] == [0xff; 6] {
                bcast += 1;
            }
            if et == ETH_IPV4 && f.len() > 14 + 24 && f[14 + 9] == 17 {
                let ihl = (f[14] & 0x0f) as usize * 4;
                if f.len() >= 14 + ihl + 4 && f[14 + ihl + 2..14 + ihl + 4] == [0x12, 0xb5] {
                    vxlan += 1;
                }
            }
        }
        for (name, n) in [
            ("vlan", vlan),
            ("qinq", qinq),
            ("mpls", mpls),
            ("pppoe", pppoe),
            ("llc", llc),
            ("bcast", bcast),
            ("vxlan", vxlan),
        ] {
            assert!(n > 10, "{name}: {n}");
        }
    }

    #[test]
    fn captures_are_deterministic_and_truncated() {
        for lt in LinkType::SUPPORTED {
            let a = captures_for(lt, 7);
            let b = captures_for(lt, 7);
            assert_eq!(a.len(), b.len());
            for (x, y) in a.iter().zip(&b) {
                assert_eq!(x.0, y.0);
                assert_eq!(x.2, y.2);
            }
            let trunc = &a[1].2;
            assert!(trunc.iter().all(|p| p.data.len() as u32 <= p.wire_len));
            assert!(
                trunc
                    .iter()
                    .filter(|p| (p.data.len() as u32) < p.wire_len)
                    .count()
                    > 100
            );
        }
    }

    #[test]
    fn loopback_headers() {
        let mut g = Gen::new(4);
        let mut be = 0;
        let mut le = 0;
        for _ in 0..500 {
            let f = g.frame(LinkType::NULL);
            if f[0] == 0 && f[3] != 0 {
                be += 1;
            } else if f[0] != 0 {
                le += 1;
            }
            let l = g.frame(LinkType::LOOP);
            assert_eq!(l[0], 0);
        }
        assert!(be > 20 && le > 200, "{be} {le}");
    }
}
