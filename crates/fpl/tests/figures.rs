//! The seeds' examples in FPL (crates/fpl/examples/*.fpl), run by the reference
//! interpreter and checked against computations that share nothing with it:
//! Figure 6's counters against counts kept while building the packets, Figure
//! 7's verdicts against the set of ports the test announced, and Table 1's
//! filter against libpcap on the corpus captures.

use netsift_fpl::externs::{Call, ExternFn, Externs};
use netsift_fpl::{compile, run, Options, Program, Registers};
use netsift_oracle::{Capture, Filter};
use netsift_testkit::frames::Frame;
use netsift_wire::LinkType;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

const FIG6: &str = include_str!("../examples/fig6_flow_counts.fpl");
const FIG7: &str = include_str!("../examples/fig7_rtsp_ports.fpl");
const TABLE1: &str = include_str!("../examples/table1_udp.fpl");

fn slot(mbuf: &[u8], i: usize) -> i64 {
    i64::from_le_bytes(mbuf[8 * i..8 * i + 8].try_into().unwrap())
}

/// FNV-1a 32, written here again so that the test does not trust the crate's.
fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 2_166_136_261;
    for &b in bytes {
        h ^= u32::from(b);
        h = h.wrapping_mul(16_777_619);
    }
    h
}

#[test]
fn figure6_counts_packets_per_tcp_flow() {
    let prog = compile(FIG6, &Options::default(), &Externs::new()).unwrap();
    let mut mbuf = vec![0u8; 4096];
    let mut regs: Registers = [0; 16];
    let mut truth: HashMap<[u8; 12], i64> = HashMap::new();
    // 40 TCP flows with 1 to 40 packets each, interleaved, with UDP and ARP between.
    let mut n = 0u32;
    for round in 0..40u32 {
        for flow in round..40u32 {
            let src = [10, 0, (flow / 7) as u8, flow as u8];
            let dst = [192, 168, 1, (flow * 3) as u8];
            let (sport, dport) = (1024 + flow as u16 * 13, 80 + flow as u16);
            let f = Frame::default()
                .ipv4(src, dst)
                .tcp(sport, dport, 0x10)
                .payload(&[0; 9])
                .build();
            let v = run(&prog, &f, &mut mbuf, &mut regs);
            assert_eq!(v.value(), 0, "Figure 6 has no RETURN");
            let mut key = [0u8; 12];
            key[..4].copy_from_slice(&src);
            key[4..8].copy_from_slice(&dst);
            key[8..10].copy_from_slice(&sport.to_be_bytes());
            key[10..].copy_from_slice(&dport.to_be_bytes());
            *truth.entry(key).or_default() += 1;
            n += 1;
            let udp = Frame::default().ipv4(src, dst).udp(sport, dport).build();
            run(&prog, &udp, &mut mbuf, &mut regs);
        }
    }
    let mut want = vec![0i64; 256];
    for (key, count) in &truth {
        want[(fnv1a(key) % 256) as usize] += count;
    }
    let got: Vec<i64> = (0..256).map(|i| slot(&mbuf, i)).collect();
    assert_eq!(got, want);
    assert_eq!(got.iter().sum::<i64>(), i64::from(n));
    assert!(
        mbuf[2048..].iter().all(|&b| b == 0),
        "nothing written past the table"
    );
}

/// The seeds' `GetDynTCPDPortFromRTSP`, simplified as the figure is: the
/// `client_port=` of an RTSP request's Transport header, or 0.
fn rtsp_port(call: Call<'_>) -> i64 {
    let p = call.packet;
    let Some(&vihl) = p.get(14) else { return 0 };
    let l4 = 14 + usize::from(vihl & 15) * 4;
    let Some(&off) = p.get(l4 + 12) else { return 0 };
    let payload = p.get(l4 + usize::from(off >> 4) * 4..).unwrap_or(&[]);
    let text = String::from_utf8_lossy(payload);
    let Some(at) = text.find("client_port=") else {
        return 0;
    };
    let digits: String = text[at + 12..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap_or(0)
}

fn rtsp_registry() -> Externs {
    let mut r = Externs::new();
    r.register(ExternFn::new("GetDynTCPDPortFromRTSP", 0, 0, rtsp_port));
    r
}

fn setup(client_port: u16) -> Vec<u8> {
    let msg = format!(
        "SETUP rtsp://10.0.0.1/movie/track1 RTSP/1.0\r\nCSeq: 3\r\nTransport: RTP/AVP/TCP;unicast;client_port={client_port}-{}\r\n\r\n",
        client_port + 1
    );
    Frame::default()
        .ipv4([10, 0, 0, 2], [10, 0, 0, 1])
        .tcp(40000, 554, 0x18)
        .payload(msg.as_bytes())
        .build()
}

#[test]
fn figure7_passes_only_announced_rtsp_data_ports() {
    let prog = compile(FIG7, &Options::default(), &rtsp_registry()).unwrap();
    let mut mbuf = vec![0u8; 4096];
    let mut regs: Registers = [0; 16];
    let mut announced = BTreeSet::new();
    let mut accepted = 0;
    for step in 0u16..60 {
        if step % 10 == 3 {
            let port = 5000 + step * 2;
            assert!(
                !run(&prog, &setup(port), &mut mbuf, &mut regs).accepts(),
                "control packets are not passed"
            );
            announced.insert(port);
            continue;
        }
        for dport in [5000 + step * 2, 5000 + (step % 10) * 20 + 6, 6000] {
            let tcp = Frame::default()
                .ipv4([10, 0, 0, 1], [10, 0, 0, 2])
                .tcp(3000, dport, 0x10)
                .build();
            let want = announced.contains(&dport);
            assert_eq!(
                run(&prog, &tcp, &mut mbuf, &mut regs).accepts(),
                want,
                "TCP to {dport}, announced {announced:?}"
            );
            accepted += usize::from(want);
            let udp = Frame::default()
                .ipv4([10, 0, 0, 1], [10, 0, 0, 2])
                .udp(3000, dport)
                .build();
            assert!(
                !run(&prog, &udp, &mut mbuf, &mut regs).accepts(),
                "the figure follows TCP only"
            );
        }
    }
    assert!(accepted > 0);
    assert_eq!(regs[0] as usize, announced.len());
    let stored: BTreeSet<u16> = (0..announced.len())
        .map(|i| slot(&mbuf, i) as u16)
        .collect();
    assert_eq!(stored, announced);
}

fn table1() -> Program {
    compile(TABLE1, &Options::default(), &Externs::new()).unwrap()
}

/// Every Ethernet capture of the corpus, read by libpcap.
fn corpus_packets() -> Option<Vec<Vec<u8>>> {
    // The shared corpus, or NETSIFT_CORPUS as the conformance tests take it.
    let root = std::env::var_os("NETSIFT_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
        PathBuf::from,
    );
    let dir = root.join("pcaps/tcpdump");
    if !netsift_testkit::skip::skip_unless(
        &format!("the capture corpus at {}", dir.display()),
        dir.is_dir(),
    ) {
        return None;
    }
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let Ok(mut cap) = Capture::open(&f) else {
            continue;
        };
        if cap.linktype() != LinkType::EN10MB {
            continue;
        }
        out.extend(cap.read_all().0.into_iter().map(|p| p.data));
    }
    Some(out)
}

/// The same packet from 192.168.1.3 to UDP port 54321, if it is IPv4 and UDP
/// with room for the port, else `None`.
fn retargeted(p: &[u8]) -> Option<Vec<u8>> {
    let udp = Filter::compile(LinkType::EN10MB, "ip and udp").unwrap();
    if !udp.accepts(p, p.len() as u32) {
        return None;
    }
    let l4 = 14 + usize::from(p[14] & 15) * 4;
    let mut q = p.to_vec();
    q[26..30].copy_from_slice(&[192, 168, 1, 3]);
    q.get_mut(l4 + 2..l4 + 4)?
        .copy_from_slice(&54321u16.to_be_bytes());
    Some(q)
}

#[test]
fn table1_filter_agrees_with_libpcap_on_the_corpus() {
    let Some(packets) = corpus_packets() else {
        return;
    };
    let prog = table1();
    let pcap = Filter::compile(
        LinkType::EN10MB,
        "ip src 192.168.1.3 and ip proto \\udp and dst port 54321",
    )
    .unwrap();
    let mut mbuf = vec![0u8; prog.mbuf_len()];
    let (mut checked, mut accepted) = (0usize, 0usize);
    let mut variants = packets.clone();
    variants.extend(packets.iter().filter_map(|p| retargeted(p)));
    // Cut copies, so that loads past the end are compared too.
    variants.extend(packets.iter().filter_map(|p| retargeted(p)).map(|mut p| {
        p.truncate(40);
        p
    }));
    for p in &variants {
        let want = pcap.accepts(p, p.len() as u32);
        let got = run(&prog, p, &mut mbuf, &mut [0; 16]).accepts();
        assert_eq!(got, want, "packet {:02x?}", &p[..p.len().min(64)]);
        checked += 1;
        accepted += usize::from(want);
    }
    eprintln!("table 1 filter: {checked} packets, {accepted} accepted by both");
    assert!(packets.len() > 5_000, "corpus too small: {}", packets.len());
    assert!(
        accepted > 100,
        "too few matches to mean anything: {accepted}"
    );
}

#[test]
fn table1_filter_on_built_packets() {
    let prog = table1();
    let pcap = Filter::compile(
        LinkType::EN10MB,
        "ip src 192.168.1.3 and ip proto \\udp and dst port 54321",
    )
    .unwrap();
    let frames = [
        Frame::default()
            .ipv4([192, 168, 1, 3], [10, 0, 0, 1])
            .udp(9, 54321),
        Frame::default()
            .ipv4([192, 168, 1, 4], [10, 0, 0, 1])
            .udp(9, 54321),
        Frame::default()
            .ipv4([192, 168, 1, 3], [10, 0, 0, 1])
            .udp(54321, 9),
        Frame::default()
            .ipv4([192, 168, 1, 3], [10, 0, 0, 1])
            .tcp(9, 54321, 2),
        Frame::default()
            .vlan(5)
            .ipv4([192, 168, 1, 3], [10, 0, 0, 1])
            .udp(9, 54321),
    ];
    let mut hits = 0;
    for f in &frames {
        let mut whole = vec![f.build()];
        whole.extend(f.clone().payload(&[7; 3000]).fragments(1000));
        for p in whole {
            let want = pcap.accepts(&p, p.len() as u32);
            assert_eq!(
                run(&prog, &p, &mut [0; 64], &mut [0; 16]).accepts(),
                want,
                "{f:?}"
            );
            hits += usize::from(want);
        }
    }
    assert_eq!(hits, 2, "the whole frame and its first fragment");
}
