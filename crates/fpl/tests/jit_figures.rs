//! The seeds' examples (crates/fpl/examples/*.fpl) through the JIT against the
//! interpreter, on the packets tests/figures.rs uses: Figure 6 over 40
//! interleaved TCP flows with UDP between, Figure 7 over RTSP `SETUP`s and data,
//! each keeping its MBuf and registers from packet to packet in both executors;
//! Table 1's filter over the corpus (whole, retargeted to match, and cut) and
//! over built frames with fragments and a VLAN tag.
#![cfg(feature = "jit")]

mod common;

use netsift_fpl::externs::{Call, ExternFn, Externs};
use netsift_fpl::jit::{self, JitProgram};
use netsift_fpl::{compile, run, Options, Program, Registers, Verdict};
use netsift_oracle::Filter;
use netsift_testkit::frames::Frame;
use netsift_wire::LinkType;

/// A program in both executors, each with its own MBuf and registers kept
/// across packets; every packet must leave both in the same state.
struct Pair {
    program: Program,
    code: JitProgram,
    state: [(Vec<u8>, Registers); 2],
    runs: usize,
}

impl Pair {
    fn new(text: &str, registry: &Externs) -> Pair {
        let program = compile(text, &Options::default(), registry).unwrap();
        let code = jit::compile(&program).unwrap();
        let fresh = (vec![0u8; program.mbuf_len()], [0i64; 16]);
        Pair {
            program,
            code,
            state: [fresh.clone(), fresh],
            runs: 0,
        }
    }

    fn run(&mut self, packet: &[u8]) -> Verdict {
        let [(m0, r0), (m1, r1)] = &mut self.state;
        let want = run(&self.program, packet, m0, r0);
        let got = self.code.run(packet, m1, r1);
        assert_eq!(got, want, "packet {:02x?}", &packet[..packet.len().min(64)]);
        assert_eq!(
            r1,
            r0,
            "registers after {:02x?}",
            &packet[..packet.len().min(64)]
        );
        assert!(
            m1 == m0,
            "MBuf after {:02x?}",
            &packet[..packet.len().min(64)]
        );
        self.runs += 1;
        want
    }
}

#[test]
fn figure6_in_both() {
    let mut pair = Pair::new(
        include_str!("../examples/fig6_flow_counts.fpl"),
        &Externs::new(),
    );
    for (_, tcp, udp) in common::figure6_traffic() {
        pair.run(&tcp);
        pair.run(&tcp[..30]); // cut inside the hashed bytes
        pair.run(&udp);
    }
    let counted: i64 = (0..256)
        .map(|i| i64::from_le_bytes(pair.state[1].0[8 * i..8 * i + 8].try_into().unwrap()))
        .sum();
    assert_eq!(counted, 820, "the JIT counted every whole TCP packet");
}

/// Figure 7's `GetDynTCPDPortFromRTSP`, cut down: the number after
/// `client_port=` anywhere in the packet, or 0.
fn client_port(call: Call<'_>) -> i64 {
    const KEY: &[u8] = b"client_port=";
    let p = call.packet;
    let Some(at) = p.windows(KEY.len()).position(|w| w == KEY) else {
        return 0;
    };
    p[at + KEY.len()..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .take(5)
        .fold(0, |n, &d| n * 10 + i64::from(d - b'0'))
}

#[test]
fn figure7_in_both() {
    let mut registry = Externs::new();
    registry.register(ExternFn::new("GetDynTCPDPortFromRTSP", 0, 0, client_port));
    let mut pair = Pair::new(include_str!("../examples/fig7_rtsp_ports.fpl"), &registry);
    let mut accepted = 0;
    for step in 0u16..60 {
        if step % 10 == 3 {
            let msg = format!(
                "SETUP rtsp://10.0.0.1/movie/track1 RTSP/1.0\r\nCSeq: 3\r\nTransport: RTP/AVP/TCP;unicast;client_port={}-{}\r\n\r\n",
                5000 + step * 2,
                5001 + step * 2
            );
            let setup = Frame::default()
                .ipv4([10, 0, 0, 2], [10, 0, 0, 1])
                .tcp(40000, 554, 0x18)
                .payload(msg.as_bytes())
                .build();
            pair.run(&setup);
            continue;
        }
        for dport in [5000 + step * 2, 5000 + (step % 10) * 20 + 6, 6000] {
            let ip = Frame::default().ipv4([10, 0, 0, 1], [10, 0, 0, 2]);
            let tcp = ip.clone().tcp(3000, dport, 0x10).build();
            accepted += usize::from(pair.run(&tcp).accepts());
            pair.run(&ip.udp(3000, dport).build());
        }
    }
    assert!(accepted > 0, "some data packets pass");
    assert_eq!(
        pair.state[1].1[0], 6,
        "six ports announced, counted in R[0]"
    );
}

const TABLE1: &str = include_str!("../examples/table1_udp.fpl");
const TABLE1_PCAP: &str = "ip src 192.168.1.3 and ip proto \\udp and dst port 54321";

#[test]
fn table1_in_both_on_the_corpus() {
    let Some(packets) = common::table1_corpus() else {
        return;
    };
    let mut pair = Pair::new(TABLE1, &Externs::new());
    let pcap = Filter::compile(LinkType::EN10MB, TABLE1_PCAP).unwrap();
    let mut accepted = 0;
    for p in &packets {
        let v = pair.run(p);
        assert_eq!(v.accepts(), pcap.accepts(p, p.len() as u32));
        accepted += usize::from(v.accepts());
    }
    eprintln!("table 1 filter: {} packets, {accepted} accepted", pair.runs);
    assert!(packets.len() > 5_000 && accepted > 100);
}

#[test]
fn table1_in_both_on_built_packets() {
    let mut pair = Pair::new(TABLE1, &Externs::new());
    let mut hits = 0;
    for p in common::table1_built() {
        for cut in 0..=p.len().min(50) {
            pair.run(&p[..cut]);
        }
        hits += usize::from(pair.run(&p).accepts());
    }
    assert_eq!(hits, 2, "the whole frame and its first fragment");
}
