//! `summarize` must never panic and must always print one line, whatever the bytes:
//! random buffers, every truncation of hand-made packets of each protocol, random
//! mutations of them, under every link type (and an unsupported one), with and
//! without the link-level header and relative sequence numbers; and, when the
//! shared corpus is present, truncations of every corpus packet.

mod common;

use netsift_print::{summarize, DefaultPrint, Names, PacketType, Summarizer, SummaryOptions};
use netsift_wire::LinkType;

/// xorshift64*: a small deterministic generator, so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

fn check(s: &mut Summarizer, lt: LinkType, data: &[u8], wire_len: u32) {
    let out = s.summarize(lt, data, wire_len);
    // Summaries continue on more lines where tcpdump's do (verbose details, a
    // tunnel's inner frame, OpenFlow's messages), never with an empty one but
    // where tcpdump's ForCES printer ends its own lines with a newline, and
    // the last (SOME/IP's line ends with a newline of its own in tcpdump).
    let forces = out.contains("ForCES");
    let body = out.strip_suffix('\n').unwrap_or(&out);
    assert!(
        !out.contains('\r') && (forces || body.split('\n').skip(1).all(|l| !l.is_empty())),
        "bad line breaks in the summary for {lt} {data:02x?}: {out:?}"
    );
    // 802.11 frames with no data (and radiotap headers before them) print
    // nothing, as tcpdump's do.
    let wlan = [105, 127, 163, 119].contains(&lt.0);
    assert!(
        !out.is_empty() || wlan,
        "empty summary for {lt} {data:02x?}"
    );
}

/// Names for every port and host a test packet may carry.
fn names() -> &'static Names {
    static NAMES: std::sync::OnceLock<Names> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        Names::new()
            .with_services("domain 53/udp\nhttp 80/tcp\n")
            .with_hosts("10.0.0.1 one\n::1 six\n")
    })
}

fn summarizers() -> Vec<Summarizer> {
    vec![
        Summarizer::new(),
        Summarizer::with_options(SummaryOptions {
            absolute_tcp_seq: true,
            link_header: true,
            interface_name: Some(|i| Some(format!("if{i}"))),
            default_print: DefaultPrint::On,
            ..SummaryOptions::default()
        }),
        Summarizer::with_options(SummaryOptions {
            verbose: 1,
            ..SummaryOptions::default()
        }),
        Summarizer::with_options(SummaryOptions {
            verbose: 3,
            link_header: true,
            ..SummaryOptions::default()
        }),
        Summarizer::with_options(SummaryOptions {
            verbose: 2,
            nfs_handles: true,
            packet_type: Some(PacketType::Rpc),
            ..SummaryOptions::default()
        }),
        Summarizer::with_options(SummaryOptions {
            quiet: true,
            default_print: DefaultPrint::Suppressed,
            names: Some(names()),
            ..SummaryOptions::default()
        }),
    ]
}

fn link_types() -> Vec<LinkType> {
    let mut v = LinkType::SUPPORTED.to_vec();
    v.extend([
        LinkType::PPP,
        LinkType::C_HDLC,
        LinkType::SLIP,
        LinkType::PFLOG,
        LinkType::IPNET,
    ]);
    v.push(LinkType(147));
    // 802.11 and its capture headers, Frame Relay, FRF.16, switch tags, IPoIB,
    // NFLOG, vsock, PKTAP, PPP serial, SunATM, Juniper, 802.15.4.
    v.extend(
        [
            105, 127, 163, 119, 107, 182, 281, 282, 284, 285, 242, 239, 271, 258, 50, 123, 132,
            137, 164, 178, 195, 230,
        ]
        .map(LinkType),
    );
    v
}

use common::build::*;

fn dns_query() -> Vec<u8> {
    let mut v = vec![0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 1];
    v.extend_from_slice(b"\x07example\x03com\x00\x00\x01\x00\x01");
    v.extend_from_slice(&[0, 0, 41, 0x10, 0, 0, 0, 0x80, 0, 0, 4, 0, 10, 0, 0]);
    v
}

fn dns_response() -> Vec<u8> {
    let mut v = vec![0x12, 0x34, 0x81, 0x80, 0, 1, 0, 4, 0, 0, 0, 0];
    v.extend_from_slice(b"\x03www\x07example\x03com\x00\x00\x01\x00\x01");
    v.extend_from_slice(&[0xc0, 12, 0, 5, 0, 1, 0, 0, 0, 60, 0, 2, 0xc0, 16]);
    v.extend_from_slice(&[0xc0, 16, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 93, 184, 216, 34]);
    v.extend_from_slice(&[0xc0, 16, 0, 28, 0, 1, 0, 0, 0, 60, 0, 16]);
    v.extend_from_slice(&[0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    v.extend_from_slice(&[
        0xc0, 16, 0, 16, 0, 1, 0, 0, 0, 60, 0, 6, 5, b'h', b'e', 0x01, b'l', b'o',
    ]);
    v
}

fn arp(op: u16) -> Vec<u8> {
    let mut v = vec![0, 1, 8, 0, 6, 4];
    v.extend_from_slice(&op.to_be_bytes());
    v.extend_from_slice(&[0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 10, 0, 0, 1]);
    v.extend_from_slice(&[0, 0, 0, 0, 0, 0, 10, 0, 0, 2]);
    v
}

fn icmp_echo() -> Vec<u8> {
    icmp_echo_request()
}

fn icmp_unreach() -> Vec<u8> {
    let mut v = vec![3, 3, 0, 0, 0, 0, 0, 0];
    v.extend_from_slice(&ipv4(17, &udp(1234, 53, b"abcd"), &[]));
    v
}

fn ipv6_chain() -> Vec<u8> {
    let mut p = vec![43, 0, 5, 2, 0, 0, 1, 0]; // HBH: router alert, PadN
    p.extend_from_slice(&[44, 2, 0, 1, 0, 0, 0, 0]); // routing type 0, one address
    p.extend_from_slice(&[0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    p.extend_from_slice(&[60, 0, 0, 1, 1, 2, 3, 4]); // fragment, first
    p.extend_from_slice(&[51, 0, 1, 4, 0, 0, 0, 0]); // destination options
    p.extend_from_slice(&[58, 4, 0, 0, 0, 0, 1, 0, 0, 0, 0, 7]); // AH
    p.extend_from_slice(&[0; 12]);
    p.extend_from_slice(&[128, 0, 0, 0, 0, 1, 0, 1, 1, 2, 3]); // echo request
    ipv6(0, &p)
}

fn gre(proto: u16, inner: &[u8]) -> Vec<u8> {
    let mut v = vec![0xb0, 0x00];
    v.extend_from_slice(&proto.to_be_bytes());
    v.extend_from_slice(&[0xab, 0xcd, 0, 0, 0, 0, 0, 0x28, 0, 0, 0, 5]);
    v.extend_from_slice(inner);
    v
}

fn templates() -> Vec<(LinkType, Vec<u8>)> {
    let tcp4 = ipv4(
        6,
        &tcp(52422, 80, 0x18, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
        &[],
    );
    let tcp4opt = ipv4(
        6,
        &tcp(22, 40000, 0x12, b"SSH-2.0-OpenSSH\r\n"),
        &[0x94, 4, 0, 0, 1, 0, 0, 0],
    );
    let udp4 = ipv4(17, &udp(5353, 5353, &dns_response()), &[]);
    let dnsq = ipv4(17, &udp(40000, 53, &dns_query()), &[]);
    let icmp4 = ipv4(1, &icmp_echo(), &[]);
    let icmpu = ipv4(1, &icmp_unreach(), &[]);
    let igmp = ipv4(
        2,
        &[0x11, 100, 0, 0, 0, 0, 0, 0, 2, 125, 0, 1, 224, 0, 0, 1],
        &[],
    );
    let tcp6 = ipv6(6, &tcp(443, 50000, 0x11, b""));
    let udp6 = ipv6(17, &udp(547, 546, b"\x01\x02\x03"));
    let icmp6 = ipv6(
        58,
        &[
            135, 0, 0, 0, 0, 0, 0, 0, 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
        ],
    );
    let chain6 = ipv6_chain();
    let sctp = ipv4(
        132,
        &[
            0x0b, 0x59, 0x0b, 0x59, 0, 0, 0, 1, 0, 0, 0, 0, 0, 3, 0, 20, 0, 0, 0, 1, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 4,
        ],
        &[],
    );
    let vx = ipv4(
        17,
        &udp(
            1000,
            4789,
            &[&[0x08, 0, 0, 0, 0, 0, 100, 0][..], &eth(0x0806, &arp(1))].concat(),
        ),
        &[],
    );
    let gnv = ipv4(
        17,
        &udp(
            1000,
            6081,
            &[
                &[0x01, 0x40, 0x08, 0x00, 0, 0, 10, 0, 0, 1, 2, 3][..],
                &icmp4,
            ]
            .concat(),
        ),
        &[],
    );
    let gre4 = ipv4(47, &gre(0x0800, &tcp4), &[]);
    let gre_teb = ipv4(47, &gre(0x6558, &eth(0x0800, &icmp4)), &[]);
    let pptp = ipv4(
        47,
        &[
            0x30, 0x81, 0x88, 0x0b, 0, 4, 0, 7, 0, 0, 0, 1, 0, 0, 0, 2, 0xff, 0x03, 0xc0, 0x21, 1,
            1, 0, 4,
        ],
        &[],
    );
    let mpls = [
        &[0x00, 0x01, 0x0a, 0x40, 0x00, 0x02, 0x01, 0xff][..],
        &icmp4,
    ]
    .concat();
    let pppoe_s = [
        &[0x11, 0x00, 0x12, 0x34][..],
        &((icmp4.len() + 2) as u16).to_be_bytes(),
        &[0x00, 0x21],
        &icmp4,
    ]
    .concat();
    let pppoe_d = [
        0x11, 0x09, 0, 0, 0, 12, 1, 1, 0, 0, 1, 3, 0, 4, 0x16, 0x37, 0x2c, 0x16,
    ]
    .to_vec();
    let lcp = [
        0x11, 0x00, 0x00, 0x17, 0, 12, 0xc0, 0x21, 9, 106, 0, 8, 1, 2, 3, 4,
    ]
    .to_vec();
    let stp = [&[0x42u8, 0x42, 0x03, 0, 0, 2, 2, 0x3c][..], &[0u8; 31]].concat();
    let snap = [&[0xaau8, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00][..], &icmp4].concat();

    let mut v = vec![
        (LinkType::EN10MB, eth(0x0800, &tcp4)),
        (LinkType::EN10MB, eth(0x0800, &tcp4opt)),
        (LinkType::EN10MB, eth(0x0800, &udp4)),
        (LinkType::EN10MB, eth(0x0800, &dnsq)),
        (LinkType::EN10MB, eth(0x0800, &icmpu)),
        (LinkType::EN10MB, eth(0x0800, &igmp)),
        (LinkType::EN10MB, eth(0x86dd, &chain6)),
        (LinkType::EN10MB, eth(0x86dd, &icmp6)),
        (LinkType::EN10MB, eth(0x0800, &sctp)),
        (LinkType::EN10MB, eth(0x0800, &vx)),
        (LinkType::EN10MB, eth(0x0800, &gnv)),
        (LinkType::EN10MB, eth(0x0800, &gre4)),
        (LinkType::EN10MB, eth(0x0800, &gre_teb)),
        (LinkType::EN10MB, eth(0x0800, &pptp)),
        (LinkType::EN10MB, eth(0x0806, &arp(1))),
        (LinkType::EN10MB, eth(0x8035, &arp(3))),
        (LinkType::EN10MB, vlan(0x8100, 10, 0x0800, &icmp4)),
        (
            LinkType::EN10MB,
            vlan(
                0x88a8,
                200,
                0x8100,
                &[&[0x07, 0xd1, 0x08, 0x06][..], &arp(2)].concat(),
            ),
        ),
        (LinkType::EN10MB, eth(0x8847, &mpls)),
        (LinkType::EN10MB, eth(0x8864, &pppoe_s)),
        (LinkType::EN10MB, eth(0x8864, &lcp)),
        (LinkType::EN10MB, eth(0x8863, &pppoe_d)),
        (LinkType::EN10MB, eth(stp.len() as u16, &stp)),
        (LinkType::EN10MB, eth(snap.len() as u16, &snap)),
        (
            LinkType::EN10MB,
            eth(
                0x88e5,
                &[
                    &[0x20u8, 0, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 0, 1, 0x08, 0x00][..],
                    &icmp4,
                    &[0u8; 16],
                ]
                .concat(),
            ),
        ),
        (
            LinkType::EN10MB,
            eth(
                0x88cc,
                &[
                    0x02, 0x07, 4, 0, 1, 2, 3, 4, 5, 0x0a, 3, b'a', b'b', b'c', 0, 0,
                ],
            ),
        ),
        (
            LinkType::EN10MB,
            eth(
                0x9000,
                &[0, 0, 2, 0, 0, 0x11, 0x22, 0x33, 0x44, 0x55, 1, 0, 7, 0],
            ),
        ),
        (LinkType::EN10MB, eth(0x1234, &[1, 2, 3])),
    ];
    let mut sll = vec![
        0, 0, 0, 1, 0, 6, 0, 0x11, 0x22, 0x33, 0x44, 0x55, 0, 0, 0x08, 0x00,
    ];
    sll.extend_from_slice(&tcp4);
    v.push((LinkType::LINUX_SLL, sll));
    let mut sll = vec![
        0, 4, 0, 1, 0, 6, 0, 0x11, 0x22, 0x33, 0x44, 0x55, 0, 0, 0x81, 0x00, 0, 5, 0, 4,
    ];
    sll.extend_from_slice(&stp);
    v.push((LinkType::LINUX_SLL, sll));
    let mut sll2 = vec![
        0x86, 0xdd, 0, 0, 0, 0, 0, 3, 0, 1, 0, 6, 0, 0x11, 0x22, 0x33, 0x44, 0x55, 0, 0,
    ];
    sll2.extend_from_slice(&tcp6);
    v.push((LinkType::LINUX_SLL2, sll2));
    v.push((LinkType::NULL, [&[2u8, 0, 0, 0][..], &icmp4].concat()));
    v.push((LinkType::NULL, [&[0u8, 0, 0, 30][..], &udp6].concat()));
    v.push((LinkType::LOOP, [&[0u8, 0, 0, 24][..], &chain6].concat()));
    v.push((LinkType::LOOP, [&[0u8, 0, 0, 2][..], &dnsq].concat()));
    v.push((LinkType::RAW, tcp4.clone()));
    v.push((LinkType::RAW, udp6.clone()));
    v.push((LinkType::IPV4, icmpu.clone()));
    v.push((LinkType::IPV6, tcp6.clone()));
    // NFS: a v3 READ call over UDP, a GETATTR reply to it over TCP.
    let (call, reply) = nfs_rpc();
    v.push((LinkType::RAW, ipv4(17, &udp(800, 2049, &call), &[])));
    let mut rec = (0x8000_0000u32 | reply.len() as u32).to_be_bytes().to_vec();
    rec.extend_from_slice(&reply);
    v.push((LinkType::RAW, ipv4(6, &tcp(2049, 800, 0x18, &rec), &[])));
    v
}

/// An NFS v3 READ call with an 8-byte handle, and a reply to it with
/// attributes: RPC messages for the NFS printer's templates.
fn nfs_rpc() -> (Vec<u8>, Vec<u8>) {
    let words = |w: &[u32]| -> Vec<u8> { w.iter().flat_map(|x| x.to_be_bytes()).collect() };
    let call = words(&[7, 0, 2, 100_003, 3, 6, 0, 0, 0, 0, 8, 1, 2, 0, 0, 4096, 512]);
    let mut reply = words(&[7, 1, 0, 0, 0, 0, 0, 1]);
    reply.extend(words(&[
        1, 0o644, 1, 0, 0, 0, 10, 0, 8, 0, 0, 0, 0, 0, 9, 0, 1, 2, 3, 4, 5,
    ]));
    reply.extend(words(&[512, 1]));
    (call, reply)
}

#[test]
fn templates_render_sensibly() {
    // A few fixed expectations, so that a broken template cannot make the
    // truncation sweep below vacuous.
    let t = templates();
    let first = summarize(t[0].0, &t[0].1, t[0].1.len() as u32);
    assert!(
        first.starts_with("IP 10.0.0.1.52422 > 10.0.0.2.80: Flags [P.]"),
        "{first}"
    );
    assert!(first.ends_with(": HTTP: GET / HTTP/1.1"), "{first}");
    let arp = t
        .iter()
        .find(|(_, p)| p.get(12..14) == Some(&[0x08, 0x06]))
        .unwrap();
    assert_eq!(
        summarize(arp.0, &arp.1, arp.1.len() as u32),
        "ARP, Request who-has 10.0.0.2 tell 10.0.0.1, length 28"
    );
}

#[test]
fn every_truncation_of_every_template() {
    let mut sums = summarizers();
    for (lt, pkt) in templates() {
        for n in 0..=pkt.len() {
            for s in sums.iter_mut() {
                check(s, lt, &pkt[..n], pkt.len() as u32);
                check(s, lt, &pkt[..n], n as u32);
            }
        }
    }
}

#[test]
fn random_mutations_under_every_link_type() {
    let mut rng = Rng(0x5eed_0fc0_ffee_0011);
    let templates = templates();
    let lts = link_types();
    let mut sums = summarizers();
    for _ in 0..20_000 {
        let (mut lt, pkt) = templates[rng.below(templates.len())].clone();
        let mut pkt = pkt;
        for _ in 0..1 + rng.below(8) {
            let i = rng.below(pkt.len());
            pkt[i] = rng.next() as u8;
        }
        if rng.below(8) == 0 {
            lt = lts[rng.below(lts.len())];
        }
        let n = rng.below(pkt.len() + 1);
        let wire = (n + rng.below(3000)) as u32;
        let pick = rng.below(sums.len());
        let s = &mut sums[pick];
        check(s, lt, &pkt[..n], wire);
        // Claimed lengths below the capture are reported, not trusted.
        check(s, lt, &pkt[..n], rng.below(n + 1) as u32);
    }
}

#[test]
fn random_bytes_under_every_link_type() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let mut sums = summarizers();
    for lt in link_types() {
        for _ in 0..3_000 {
            let len = rng.below(160);
            let mut data = rng.bytes(len);
            // Steer a third of the cases into the IP printers.
            if len > 20 && rng.below(3) == 0 {
                match lt {
                    LinkType::EN10MB => {
                        data[12] = if rng.below(2) == 0 { 0x08 } else { 0x86 };
                        data[13] = if data[12] == 0x08 { 0x00 } else { 0xdd };
                        data[14] = if data[12] == 0x08 { 0x45 } else { 0x60 };
                    }
                    LinkType::RAW | LinkType::IPV4 => data[0] = 0x45,
                    LinkType::IPV6 => data[0] = 0x60,
                    _ => {}
                }
            }
            let wire = (len + rng.below(100)) as u32;
            for s in sums.iter_mut() {
                check(s, lt, &data, wire);
            }
        }
    }
}

#[test]
fn truncations_of_corpus_packets() {
    let root = common::corpus_root();
    if !root.is_dir() {
        eprintln!("skipping: no corpus at {}", root.display());
        return;
    }
    let mut sums = summarizers();
    let mut packets = 0usize;
    for dir in ["tcpdump", "libpcap"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in rd.flatten() {
            let Ok(bytes) = std::fs::read(e.path()) else {
                continue;
            };
            let Some(pkts) = common::capture::read_capture(&bytes) else {
                continue;
            };
            for p in pkts.iter().filter(|p| p.linktype.is_supported()) {
                packets += 1;
                let step = (p.data.len() / 24).max(1);
                let mut n = 0;
                while n <= p.data.len() {
                    for s in sums.iter_mut() {
                        check(s, p.linktype, &p.data[..n], p.wire_len);
                    }
                    n += step;
                }
            }
        }
    }
    eprintln!("{packets} corpus packets truncated and summarized");
}

/// Corpus packets with a few bytes changed, through every summarizer: the
/// verbose printers read much deeper into real protocols than the templates go.
#[test]
fn mutations_of_corpus_packets() {
    let root = common::corpus_root();
    if !root.is_dir() {
        eprintln!("skipping: no corpus at {}", root.display());
        return;
    }
    let mut rng = Rng(0x7e57_ab1e_5eed_0042);
    let mut sums = summarizers();
    let mut packets = 0usize;
    for dir in ["tcpdump", "libpcap"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut files: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        files.sort();
        for f in files {
            let Ok(bytes) = std::fs::read(&f) else {
                continue;
            };
            let Some(pkts) = common::capture::read_capture(&bytes) else {
                continue;
            };
            // A few packets of each capture keep the run short.
            for p in pkts.iter().filter(|p| p.linktype.is_supported()).take(8) {
                packets += 1;
                for _ in 0..4 {
                    let mut data = p.data.clone();
                    if data.is_empty() {
                        continue;
                    }
                    for _ in 0..1 + rng.below(8) {
                        let i = rng.below(data.len());
                        data[i] = rng.next() as u8;
                    }
                    for s in sums.iter_mut() {
                        check(s, p.linktype, &data, p.wire_len);
                    }
                }
            }
        }
    }
    eprintln!("{packets} corpus packets mutated and summarized");
}
