//! The README's sample capture, `samples/sample.pcap`: about 200 Ethernet packets of
//! a realistic mix (an HTTP and an SSH conversation, DNS over UDP, pings, ARP, a
//! VLAN-tagged subset, IPv6 neighbour discovery and a TLS-port conversation over
//! IPv6), with correct IP, TCP, UDP and ICMP checksums. Deterministic: the same bytes
//! every time (`cargo run -p netsift-conformance --bin mksample` rewrites the file;
//! a test checks the committed file is current).

use crate::synth::{checksum, Rng};

/// One packet of the sample: time stamp (seconds, microseconds) and bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SamplePacket {
    /// Seconds of the time stamp since the Unix epoch.
    pub ts_sec: u32,
    /// Microseconds of the time stamp (below 1,000,000).
    pub ts_usec: u32,
    /// The whole frame, starting at the Ethernet header (caplen = wire length).
    pub data: Vec<u8>,
}

/// The snapshot length written to the sample's header.
pub const SAMPLE_SNAPLEN: u32 = 262_144;

const CLIENT_MAC: [u8; 6] = [0x00, 0x11, 0x22, 0x33, 0x44, 0x55];
const GW_MAC: [u8; 6] = [0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb];
const SRV_MAC: [u8; 6] = [0x02, 0x00, 0x00, 0x00, 0x00, 0x02];
const BCAST: [u8; 6] = [0xff; 6];

const CLIENT: [u8; 4] = [192, 168, 1, 10];
const GW: [u8; 4] = [192, 168, 1, 1];
const WEB: [u8; 4] = [93, 184, 216, 34];
const DNS: [u8; 4] = [8, 8, 8, 8];
const SSH_SRV: [u8; 4] = [10, 0, 0, 2];
const VLAN_A: [u8; 4] = [10, 0, 0, 3];
const VLAN_B: [u8; 4] = [10, 0, 0, 4];

const V6_A: [u8; 16] = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
const V6_B: [u8; 16] = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];
const LL_A: [u8; 16] = [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
const LL_B: [u8; 16] = [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];

#[derive(Clone, Copy)]
enum Ip {
    V4([u8; 4]),
    V6([u8; 16]),
}

/// The transport checksum over the pseudo-header and the segment.
fn l4_checksum(src: Ip, dst: Ip, proto: u8, seg: &[u8]) -> u16 {
    match (src, dst) {
        (Ip::V4(s), Ip::V4(d)) => netsift_wire::checksum::pseudo(&s, &d, proto, seg),
        (Ip::V6(s), Ip::V6(d)) => netsift_wire::checksum::pseudo(&s, &d, proto, seg),
        _ => unreachable!("mixed address families"),
    }
}

struct Builder {
    rng: Rng,
    packets: Vec<SamplePacket>,
    /// Microseconds since the start.
    now: u64,
    ip_id: u16,
}

const START: u64 = 1_700_000_000;

impl Builder {
    fn tick(&mut self, max_us: u64) {
        self.now += 1 + self.rng.below(max_us);
    }

    fn emit(&mut self, data: Vec<u8>) {
        self.packets.push(SamplePacket {
            ts_sec: (START + self.now / 1_000_000) as u32,
            ts_usec: (self.now % 1_000_000) as u32,
            data,
        });
    }

    fn ether(&self, dst: [u8; 6], src: [u8; 6], vlan: Option<u16>, ethertype: u16) -> Vec<u8> {
        let mut v = Vec::with_capacity(128);
        v.extend_from_slice(&dst);
        v.extend_from_slice(&src);
        if let Some(id) = vlan {
            v.extend_from_slice(&0x8100u16.to_be_bytes());
            v.extend_from_slice(&id.to_be_bytes());
        }
        v.extend_from_slice(&ethertype.to_be_bytes());
        v
    }

    /// An IP packet in an Ethernet frame, with the transport checksum at `csum_at`
    /// (offset within `l4`) filled in.
    #[allow(clippy::too_many_arguments)]
    fn ip_frame(
        &mut self,
        dmac: [u8; 6],
        smac: [u8; 6],
        vlan: Option<u16>,
        src: Ip,
        dst: Ip,
        proto: u8,
        mut l4: Vec<u8>,
        csum_at: Option<usize>,
    ) -> Vec<u8> {
        if let Some(at) = csum_at {
            l4[at..at + 2].copy_from_slice(&[0, 0]);
            let c = if proto == 1 {
                checksum(&l4)
            } else {
                l4_checksum(src, dst, proto, &l4)
            };
            l4[at..at + 2].copy_from_slice(&c.to_be_bytes());
        }
        match (src, dst) {
            (Ip::V4(s), Ip::V4(d)) => {
                let mut f = self.ether(dmac, smac, vlan, 0x0800);
                let mut h = vec![0x45, 0];
                h.extend_from_slice(&((20 + l4.len()) as u16).to_be_bytes());
                self.ip_id = self.ip_id.wrapping_add(1 + self.rng.below(3) as u16);
                h.extend_from_slice(&self.ip_id.to_be_bytes());
                h.extend_from_slice(&[0x40, 0, 64, proto, 0, 0]);
                h.extend_from_slice(&s);
                h.extend_from_slice(&d);
                let c = checksum(&h);
                h[10..12].copy_from_slice(&c.to_be_bytes());
                f.extend_from_slice(&h);
                f.extend_from_slice(&l4);
                if f.len() < 60 {
                    f.resize(60, 0);
                }
                f
            }
            (Ip::V6(s), Ip::V6(d)) => {
                let mut f = self.ether(dmac, smac, vlan, 0x86dd);
                f.extend_from_slice(&[0x60, 0, 0, 0]);
                f.extend_from_slice(&(l4.len() as u16).to_be_bytes());
                f.push(proto);
                f.push(if proto == 58 { 255 } else { 64 });
                f.extend_from_slice(&s);
                f.extend_from_slice(&d);
                f.extend_from_slice(&l4);
                f
            }
            _ => unreachable!(),
        }
    }

    fn udp(&mut self, ends: (Endpoint, Endpoint), payload: &[u8]) {
        let (a, b) = ends;
        let mut u = Vec::new();
        u.extend_from_slice(&a.port.to_be_bytes());
        u.extend_from_slice(&b.port.to_be_bytes());
        u.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
        u.extend_from_slice(&[0, 0]);
        u.extend_from_slice(payload);
        let f = self.ip_frame(b.mac, a.mac, a.vlan, a.ip, b.ip, 17, u, Some(6));
        self.emit(f);
    }

    fn icmp_echo(&mut self, a: Endpoint, b: Endpoint, reply: bool, id: u16, seq: u16) {
        let v6 = matches!(a.ip, Ip::V6(_));
        let ty = match (v6, reply) {
            (false, false) => 8,
            (false, true) => 0,
            (true, false) => 128,
            (true, true) => 129,
        };
        let mut m = vec![ty, 0, 0, 0];
        m.extend_from_slice(&id.to_be_bytes());
        m.extend_from_slice(&seq.to_be_bytes());
        m.extend((0..32u8).map(|i| 0x61 + (i % 23)));
        let proto = if v6 { 58 } else { 1 };
        let f = self.ip_frame(b.mac, a.mac, a.vlan, a.ip, b.ip, proto, m, Some(2));
        self.emit(f);
    }

    fn arp(&mut self, op: u16, sha: [u8; 6], spa: [u8; 4], tha: [u8; 6], tpa: [u8; 4]) {
        let dst = if op == 1 { BCAST } else { tha };
        let mut f = self.ether(dst, sha, None, 0x0806);
        f.extend_from_slice(&[0, 1, 8, 0, 6, 4]);
        f.extend_from_slice(&op.to_be_bytes());
        f.extend_from_slice(&sha);
        f.extend_from_slice(&spa);
        f.extend_from_slice(&tha);
        f.extend_from_slice(&tpa);
        f.resize(60, 0);
        self.emit(f);
    }

    fn neighbor(&mut self, advert: bool, src: ([u8; 6], [u8; 16]), target: [u8; 16]) {
        let (smac, sip) = src;
        let (dmac, dip) = if advert {
            (CLIENT_MAC, LL_A)
        } else {
            // solicited-node multicast
            let mut ip = [0u8; 16];
            ip[0] = 0xff;
            ip[1] = 0x02;
            ip[11] = 1;
            ip[12] = 0xff;
            ip[13..].copy_from_slice(&target[13..]);
            ([0x33, 0x33, 0xff, target[13], target[14], target[15]], ip)
        };
        let mut m = vec![if advert { 136 } else { 135 }, 0, 0, 0];
        m.extend_from_slice(&(if advert { 0x6000_0000u32 } else { 0 }).to_be_bytes());
        m.extend_from_slice(&target);
        m.extend_from_slice(&[if advert { 2 } else { 1 }, 1]);
        m.extend_from_slice(&smac);
        let f = self.ip_frame(dmac, smac, None, Ip::V6(sip), Ip::V6(dip), 58, m, Some(2));
        self.emit(f);
    }
}

#[derive(Clone, Copy)]
struct Endpoint {
    mac: [u8; 6],
    ip: Ip,
    port: u16,
    vlan: Option<u16>,
}

/// A TCP connection with sequence numbers tracked on both sides.
struct Tcp {
    c: Endpoint,
    s: Endpoint,
    cseq: u32,
    sseq: u32,
}

impl Tcp {
    fn new(c: Endpoint, s: Endpoint, rng: &mut Rng) -> Tcp {
        Tcp {
            c,
            s,
            cseq: rng.next_u32(),
            sseq: rng.next_u32(),
        }
    }

    fn seg(&mut self, b: &mut Builder, from_client: bool, flags: u8, payload: &[u8]) {
        let (a, z) = if from_client {
            (self.c, self.s)
        } else {
            (self.s, self.c)
        };
        let (seq, ack) = if from_client {
            (self.cseq, self.sseq)
        } else {
            (self.sseq, self.cseq)
        };
        let syn = flags & 0x02 != 0;
        let mut t = Vec::new();
        t.extend_from_slice(&a.port.to_be_bytes());
        t.extend_from_slice(&z.port.to_be_bytes());
        t.extend_from_slice(&seq.to_be_bytes());
        t.extend_from_slice(&(if flags & 0x10 != 0 { ack } else { 0 }).to_be_bytes());
        let opts: &[u8] = if syn {
            &[
                2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7,
            ]
        } else {
            &[]
        };
        t.push((((20 + opts.len()) / 4) << 4) as u8);
        t.push(flags);
        t.extend_from_slice(&64240u16.to_be_bytes());
        t.extend_from_slice(&[0, 0, 0, 0]);
        t.extend_from_slice(opts);
        t.extend_from_slice(payload);
        let f = b.ip_frame(z.mac, a.mac, a.vlan, a.ip, z.ip, 6, t, Some(16));
        b.emit(f);
        let adv = payload.len() as u32 + (syn as u32) + ((flags & 0x01 != 0) as u32);
        if from_client {
            self.cseq = self.cseq.wrapping_add(adv);
        } else {
            self.sseq = self.sseq.wrapping_add(adv);
        }
    }

    fn handshake(&mut self, b: &mut Builder) {
        self.seg(b, true, 0x02, &[]);
        b.tick(30_000);
        self.seg(b, false, 0x12, &[]);
        b.tick(500);
        self.seg(b, true, 0x10, &[]);
    }

    fn close(&mut self, b: &mut Builder) {
        self.seg(b, true, 0x11, &[]);
        b.tick(20_000);
        self.seg(b, false, 0x11, &[]);
        b.tick(500);
        self.seg(b, true, 0x10, &[]);
    }

    /// `data` from one side, acknowledged by the other.
    fn exchange(&mut self, b: &mut Builder, from_client: bool, data: &[u8]) {
        for chunk in data.chunks(1200) {
            self.seg(b, from_client, 0x18, chunk);
            b.tick(5_000);
        }
        self.seg(b, !from_client, 0x10, &[]);
    }
}

fn dns_query(id: u16, name: &str, qtype: u16, answer: Option<&[u8]>) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(&id.to_be_bytes());
    v.extend_from_slice(&(if answer.is_some() { 0x8180u16 } else { 0x0100 }).to_be_bytes());
    v.extend_from_slice(&[0, 1, 0, answer.is_some() as u8, 0, 0, 0, 0]);
    for label in name.split('.') {
        v.push(label.len() as u8);
        v.extend_from_slice(label.as_bytes());
    }
    v.push(0);
    v.extend_from_slice(&qtype.to_be_bytes());
    v.extend_from_slice(&[0, 1]);
    if let Some(rdata) = answer {
        v.extend_from_slice(&[0xc0, 0x0c]);
        v.extend_from_slice(&qtype.to_be_bytes());
        v.extend_from_slice(&[0, 1, 0, 0, 0x0e, 0x10]);
        v.extend_from_slice(&(rdata.len() as u16).to_be_bytes());
        v.extend_from_slice(rdata);
    }
    v
}

/// The sample's packets, in time order.
pub fn sample_packets() -> Vec<SamplePacket> {
    let mut b = Builder {
        rng: Rng::new(0x5a3b_1e00),
        packets: Vec::new(),
        now: 0,
        ip_id: 0x1c46,
    };
    let client = |port| Endpoint {
        mac: CLIENT_MAC,
        ip: Ip::V4(CLIENT),
        port,
        vlan: None,
    };
    let via_gw = |ip, port| Endpoint {
        mac: GW_MAC,
        ip: Ip::V4(ip),
        port,
        vlan: None,
    };

    // ARP for the gateway.
    b.arp(1, CLIENT_MAC, CLIENT, [0; 6], GW);
    b.tick(800);
    b.arp(2, GW_MAC, GW, CLIENT_MAC, CLIENT);
    b.tick(2_000);

    // DNS: A and AAAA for a few names.
    let lookups = [
        ("www.example.com", 1u16),
        ("www.example.com", 28),
        ("mirror.example.org", 1),
        ("mirror.example.org", 28),
        ("ntp.example.net", 1),
        ("git.example.com", 1),
        ("git.example.com", 28),
        ("mail.example.com", 15),
    ];
    for (i, (name, qtype)) in lookups.into_iter().enumerate() {
        let id = 0x3a10 + i as u16;
        let q = dns_query(id, name, qtype, None);
        let ends = (client(53_000 + i as u16), via_gw(DNS, 53));
        b.udp(ends, &q);
        b.tick(25_000);
        let rdata: Vec<u8> = match qtype {
            1 => WEB.to_vec(),
            28 => V6_B.to_vec(),
            _ => b"\x00\x0a\x04mail\xc0\x11".to_vec(),
        };
        let r = dns_query(id, name, qtype, Some(&rdata));
        b.udp((ends.1, ends.0), &r);
        b.tick(3_000);
    }

    // HTTP: two requests on one connection.
    let mut http = Tcp::new(client(51_514), via_gw(WEB, 80), &mut b.rng);
    http.handshake(&mut b);
    for (path, body_len) in [("/", 1800usize), ("/favicon.ico", 300)] {
        let req = format!(
            "GET {path} HTTP/1.1\r\nHost: www.example.com\r\nUser-Agent: netsift-sample/1.0\r\n\
             Accept: */*\r\n\r\n"
        );
        b.tick(1_000);
        http.exchange(&mut b, true, req.as_bytes());
        b.tick(40_000);
        let mut resp = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {body_len}\r\n\r\n"
        )
        .into_bytes();
        resp.extend((0..body_len).map(|i| b"<p>netsift sample</p>\n"[i % 22]));
        http.exchange(&mut b, false, &resp);
    }
    b.tick(5_000);
    http.close(&mut b);

    // A second, short HTTP connection: a HEAD request and a 304.
    b.tick(300_000);
    let mut head = Tcp::new(client(51_530), via_gw(WEB, 80), &mut b.rng);
    head.handshake(&mut b);
    b.tick(800);
    head.exchange(
        &mut b,
        true,
        b"HEAD /index.html HTTP/1.1\r\nHost: www.example.com\r\nIf-None-Match: \"abc\"\r\n\r\n",
    );
    b.tick(35_000);
    head.exchange(
        &mut b,
        false,
        b"HTTP/1.1 304 Not Modified\r\nETag: \"abc\"\r\n\r\n",
    );
    b.tick(2_000);
    head.close(&mut b);

    // Pings to the resolver, interleaved with an SSH session on the LAN.
    let ssh_srv = Endpoint {
        mac: SRV_MAC,
        ip: Ip::V4(SSH_SRV),
        port: 22,
        vlan: None,
    };
    let mut ssh = Tcp::new(client(40_022), ssh_srv, &mut b.rng);
    b.tick(100_000);
    ssh.handshake(&mut b);
    b.tick(2_000);
    ssh.exchange(&mut b, false, b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n");
    b.tick(2_000);
    ssh.exchange(&mut b, true, b"SSH-2.0-OpenSSH_9.6\r\n");
    for i in 0..26u16 {
        b.tick(150_000);
        if i % 3 == 0 {
            let (a, z) = (client(0), via_gw(DNS, 0));
            b.icmp_echo(a, z, false, 0x4d2, i / 3 + 1);
            b.tick(12_000);
            b.icmp_echo(z, a, true, 0x4d2, i / 3 + 1);
        }
        // encrypted-looking records both ways
        let n = 36 + 16 * b.rng.below(6) as usize;
        let rec = b.rng.bytes(n);
        ssh.exchange(&mut b, i % 2 == 0, &rec);
    }
    b.tick(10_000);
    ssh.close(&mut b);

    // VLAN 100: an AMQP-port conversation and NTP between two hosts on a trunk.
    let va = Endpoint {
        mac: [0x02, 0, 0, 0, 0, 0x03],
        ip: Ip::V4(VLAN_A),
        port: 49_152,
        vlan: Some(100),
    };
    let vb = Endpoint {
        mac: [0x02, 0, 0, 0, 0, 0x04],
        ip: Ip::V4(VLAN_B),
        port: 5672,
        vlan: Some(100),
    };
    let mut amqp = Tcp::new(va, vb, &mut b.rng);
    b.tick(50_000);
    amqp.handshake(&mut b);
    amqp.exchange(&mut b, true, b"AMQP\x00\x00\x09\x01");
    for _ in 0..8 {
        b.tick(30_000);
        let n = 20 + b.rng.below(120) as usize;
        let frame = b.rng.bytes(n);
        let from_client = b.rng.chance(50);
        amqp.exchange(&mut b, from_client, &frame);
    }
    for _ in 0..5 {
        b.tick(60_000);
        let mut ntp = vec![0x23, 0, 6, 0xe9];
        ntp.resize(48, 0);
        let a = Endpoint { port: 123, ..va };
        let z = Endpoint { port: 123, ..vb };
        b.udp((a, z), &ntp);
        b.tick(900);
        ntp[0] = 0x24;
        ntp[1] = 2;
        b.udp((z, a), &ntp);
    }
    amqp.close(&mut b);

    // IPv6: neighbour discovery, a ping, and a conversation to port 443.
    b.tick(80_000);
    b.neighbor(false, (CLIENT_MAC, LL_A), LL_B);
    b.tick(400);
    b.neighbor(true, (SRV_MAC, LL_B), LL_B);
    let a6 = Endpoint {
        mac: CLIENT_MAC,
        ip: Ip::V6(V6_A),
        port: 0,
        vlan: None,
    };
    let b6 = Endpoint {
        mac: SRV_MAC,
        ip: Ip::V6(V6_B),
        port: 443,
        vlan: None,
    };
    for seq in 1..=3 {
        b.tick(200_000);
        b.icmp_echo(a6, b6, false, 0x77, seq);
        b.tick(300);
        b.icmp_echo(b6, a6, true, 0x77, seq);
    }
    let mut tls = Tcp::new(Endpoint { port: 55_443, ..a6 }, b6, &mut b.rng);
    b.tick(1_000);
    tls.handshake(&mut b);
    let mut hello = vec![0x16, 0x03, 0x01, 0x00, 0xc0, 0x01];
    hello.extend(b.rng.bytes(190));
    tls.exchange(&mut b, true, &hello);
    let mut reply = vec![0x16, 0x03, 0x03, 0x04, 0x00, 0x02];
    reply.extend(b.rng.bytes(900));
    tls.exchange(&mut b, false, &reply);
    for _ in 0..10 {
        b.tick(20_000);
        let n = 40 + b.rng.below(200) as usize;
        let mut rec = vec![0x17, 0x03, 0x03];
        rec.extend_from_slice(&(n as u16).to_be_bytes());
        rec.extend(b.rng.bytes(n));
        let from_client = b.rng.chance(40);
        tls.exchange(&mut b, from_client, &rec);
    }
    tls.close(&mut b);

    // A closing round of ARP and a broadcast DHCP-style UDP packet.
    b.tick(500_000);
    b.arp(1, SRV_MAC, SSH_SRV, [0; 6], [10, 0, 0, 1]);
    b.tick(100_000);
    let dhcp_c = Endpoint {
        mac: CLIENT_MAC,
        ip: Ip::V4([0, 0, 0, 0]),
        port: 68,
        vlan: None,
    };
    let dhcp_s = Endpoint {
        mac: BCAST,
        ip: Ip::V4([255, 255, 255, 255]),
        port: 67,
        vlan: None,
    };
    let mut bootp = vec![1, 1, 6, 0];
    bootp.extend_from_slice(&b.rng.bytes(4));
    bootp.resize(236, 0);
    bootp[28..34].copy_from_slice(&CLIENT_MAC);
    bootp.extend_from_slice(&[0x63, 0x82, 0x53, 0x63, 53, 1, 1, 255]);
    b.udp((dhcp_c, dhcp_s), &bootp);

    b.packets
}

/// The sample as pcap file bytes (little-endian, microseconds, LINKTYPE_ETHERNET),
/// written with `netsift_pcapio::PcapWriter`.
pub fn sample_pcap() -> Vec<u8> {
    let mut w = netsift_pcapio::PcapWriter::new(
        Vec::new(),
        netsift_wire::LinkType::EN10MB,
        SAMPLE_SNAPLEN,
        netsift_pcapio::TsPrecision::Micro,
    )
    .expect("writing to a Vec cannot fail");
    for p in sample_packets() {
        w.write_packet(p.ts_sec, p.ts_usec, &p.data, p.data.len() as u32)
            .expect("writing to a Vec cannot fail");
    }
    w.into_inner().expect("writing to a Vec cannot fail")
}

/// Where the sample lives in the repository.
pub fn sample_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/sample.pcap")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_is_sized_and_deterministic() {
        let a = sample_packets();
        assert!((180..=240).contains(&a.len()), "{} packets", a.len());
        assert_eq!(a, sample_packets());
        let bytes = sample_pcap();
        assert!(bytes.len() < 64 * 1024, "{} bytes", bytes.len());
        // time stamps never go backwards
        for w in a.windows(2) {
            assert!((w[0].ts_sec, w[0].ts_usec) <= (w[1].ts_sec, w[1].ts_usec));
        }
    }

    #[test]
    fn checksums_verify() {
        for p in sample_packets() {
            let d = &p.data;
            let mut off = 12;
            let mut et = u16::from_be_bytes([d[off], d[off + 1]]);
            if et == 0x8100 {
                off += 4;
                et = u16::from_be_bytes([d[off], d[off + 1]]);
            }
            let ip = &d[off + 2..];
            if et == 0x0800 {
                assert_eq!(checksum(&ip[..20]), 0);
                let total = u16::from_be_bytes([ip[2], ip[3]]) as usize;
                let l4 = &ip[20..total];
                let (s, t) = (
                    Ip::V4(ip[12..16].try_into().unwrap()),
                    Ip::V4(ip[16..20].try_into().unwrap()),
                );
                match ip[9] {
                    1 => assert_eq!(checksum(l4), 0),
                    6 | 17 => assert_eq!(l4_checksum(s, t, ip[9], l4), 0),
                    p => panic!("proto {p}"),
                }
            } else if et == 0x86dd {
                let plen = u16::from_be_bytes([ip[4], ip[5]]) as usize;
                let l4 = &ip[40..40 + plen];
                let (s, t) = (
                    Ip::V6(ip[8..24].try_into().unwrap()),
                    Ip::V6(ip[24..40].try_into().unwrap()),
                );
                assert_eq!(l4_checksum(s, t, ip[6], l4), 0);
            } else {
                assert_eq!(et, 0x0806);
            }
        }
    }

    /// libpcap reads the sample and sees the mix it should.
    #[test]
    fn libpcap_reads_the_sample() {
        let dir = std::env::temp_dir().join(format!("netsift-sample-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("sample.pcap");
        std::fs::write(&path, sample_pcap()).unwrap();
        let mut cap = netsift_oracle::Capture::open(&path).unwrap();
        assert_eq!(cap.linktype(), netsift_wire::LinkType::EN10MB);
        let (packets, err) = cap.read_all();
        assert!(err.is_none());
        assert_eq!(packets.len(), sample_packets().len());
        let count = |e: &str| {
            let f = netsift_oracle::Filter::compile(netsift_wire::LinkType::EN10MB, e).unwrap();
            packets
                .iter()
                .filter(|p| f.accepts(&p.data, p.wire_len))
                .count()
        };
        assert!(count("tcp port 80") >= 10);
        assert!(count("tcp port 22") >= 20);
        assert_eq!(count("udp port 53"), 16);
        assert!(count("icmp") >= 8);
        assert_eq!(count("arp"), 3);
        assert!(count("vlan 100") >= 20);
        assert!(count("ip6") >= 20);
        assert!(count("icmp6") >= 8);
        // tcp[] reaches IPv4 only: the three IPv4 connections
        assert_eq!(count("tcp[tcpflags] & tcp-syn != 0"), 6);
        assert_eq!(count("broadcast"), 3);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The committed `samples/sample.pcap` is what `mksample` writes today.
    #[test]
    fn committed_sample_is_current() {
        let path = sample_path();
        match std::fs::read(&path) {
            Ok(bytes) => assert!(
                bytes == sample_pcap(),
                "{} is stale: run `cargo run -p netsift-conformance --bin mksample`",
                path.display()
            ),
            Err(e) => panic!("{}: {e}", path.display()),
        }
    }
}
