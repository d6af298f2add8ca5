//! The seeds' examples in FPL (crates/fpl/examples/*.fpl), run by the reference
//! interpreter and checked against computations that share nothing with it:
//! Figure 6's counters against counts kept while building the packets, Figure
//! 7's verdicts against the set of ports the test announced, and Table 1's
//! filter against libpcap on the corpus captures; Figure 2b's two filter
//! calls on one MBuf against packets per TCP flow counted by
//! `netsift_testkit::fig2b`'s model, on the corpus, by both executors.

mod common;

use netsift_fpl::externs::{Call, ExternFn, Externs};
use netsift_fpl::jit::Jit;
use netsift_fpl::{compile, compile_with, define, run, Definition, Options, Program, Registers};
use netsift_oracle::Filter;
use netsift_testkit::fig2b;
use netsift_testkit::frames::Frame;
use netsift_wire::LinkType;
use std::collections::{BTreeSet, HashMap};

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
    let mut n = 0u32;
    for (key, tcp, udp) in common::figure6_traffic() {
        let v = run(&prog, &tcp, &mut mbuf, &mut regs);
        assert_eq!(v.value(), 0, "Figure 6 has no RETURN");
        *truth.entry(key).or_default() += 1;
        n += 1;
        run(&prog, &udp, &mut mbuf, &mut regs);
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

#[test]
fn table1_filter_agrees_with_libpcap_on_the_corpus() {
    let Some(variants) = common::table1_corpus() else {
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
    for p in &variants {
        let want = pcap.accepts(p, p.len() as u32);
        let got = run(&prog, p, &mut mbuf, &mut [0; 16]).accepts();
        assert_eq!(got, want, "packet {:02x?}", &p[..p.len().min(64)]);
        checked += 1;
        accepted += usize::from(want);
    }
    eprintln!("table 1 filter: {checked} packets, {accepted} accepted by both");
    assert!(
        variants.len() > 5_000,
        "corpus too small: {}",
        variants.len()
    );
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
    let mut hits = 0;
    for p in common::table1_built() {
        let want = pcap.accepts(&p, p.len() as u32);
        assert_eq!(
            run(&prog, &p, &mut [0; 64], &mut [0; 16]).accepts(),
            want,
            "{:02x?}",
            &p[..p.len().min(64)]
        );
        hits += usize::from(want);
    }
    assert_eq!(hits, 2, "the whole frame and its first fragment");
}

/// Figure 2b's caller, calling its two filters.
fn figure2b() -> Program {
    let defs = [
        Definition {
            name: "count_flows",
            text: fig2b::COUNT_FLOWS,
            mbuf_len: fig2b::COUNT_WINDOW,
        },
        Definition {
            name: "top_flows",
            text: fig2b::TOP_FLOWS,
            mbuf_len: fig2b::TOP_WINDOW,
        },
    ];
    let filters =
        define(&defs, &Options::default(), &Externs::new()).unwrap_or_else(|e| panic!("{e}"));
    let opts = Options {
        mbuf_len: fig2b::CALLER_MBUF,
        ..Options::default()
    };
    compile_with(fig2b::CALLER, &opts, &Externs::new(), &filters).unwrap_or_else(|e| panic!("{e}"))
}

/// Figure 2b on every Ethernet packet of the corpus: the first call counts
/// the packets of each TCP flow in a table, the second lists the ten most
/// active, both in the caller's MBuf; the table and the list equal the
/// model's, and the interpreter and the JIT agree on every verdict and on the
/// MBuf, checked along the way and at the end.
#[test]
fn figure2b_two_filter_calls_share_one_mbuf() {
    let Some(packets) = common::corpus_ethernet() else {
        return;
    };
    let prog = figure2b();
    let code = Jit::new().unwrap().compile(&prog).unwrap();
    let mut truth = fig2b::Truth::default();
    let (mut mbuf, mut jmbuf) = (vec![0u8; prog.mbuf_len()], vec![0u8; prog.mbuf_len()]);
    let (mut regs, mut jregs) = ([0; 16], [0; 16]);
    for (i, p) in packets.iter().enumerate() {
        let counted = truth.count(p);
        let v = run(&prog, p, &mut mbuf, &mut regs);
        assert_eq!(
            v.accepts(),
            counted,
            "packet {i}: {:02x?}",
            &p[..p.len().min(64)]
        );
        assert_eq!(code.run(p, &mut jmbuf, &mut jregs), v, "packet {i}");
        if i % 1000 == 0 {
            assert!(jmbuf == mbuf, "MBuf after packet {i}");
            fig2b::Table::read(&mbuf).check(&truth);
        }
    }
    assert!(jmbuf == mbuf && jregs == regs);
    let table = fig2b::Table::read(&mbuf);
    table.check(&truth);
    eprintln!(
        "figure 2b: {} packets, {} counted in {} TCP flows, top ten {:?}",
        packets.len(),
        truth.counted,
        truth.counts.len(),
        truth.top_counts()
    );
    assert!(
        truth.counts.len() > 20 && table.top.len() == 10,
        "too few flows to mean anything"
    );
}
