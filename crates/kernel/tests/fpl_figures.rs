//! The seeds' FPL examples compiled to eBPF and run in the kernel
//! (`BPF_PROG_TEST_RUN`) against the reference interpreter: Table 1's filter on
//! every Ethernet packet of the shared corpus (by path, `../shared/corpus`, or
//! `NETSIFT_CORPUS`), each IPv4/UDP one also rewritten to match and cut short;
//! the same on the XDP hook, whose ring must hold exactly the accepted frames;
//! Figure 6's per-flow counters on built TCP flows and the corpus, its MBuf read
//! through the mapping. Needs root (CAP_BPF) and the corpus: skipped with a
//! message without them, a failure under `CI=true`.

use netsift_fpl::externs::Externs;
use netsift_fpl::{compile, run, Options, Program};
use netsift_kernel::codegen::{XDP_HDR, XDP_STATS};
use netsift_kernel::fpl::Loaded;
use netsift_kernel::ringbuf::RingBuf;
use netsift_kernel::sys::{Map, MapKind, ProgKind};
use netsift_testkit::frames::Frame;
use netsift_testkit::{require, Need};
use netsift_wire::LinkType;
use std::path::{Path, PathBuf};

fn example(name: &str) -> (String, Program) {
    let path = format!("{}/../fpl/examples/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let p = compile(&text, &Options::default(), &Externs::new()).unwrap();
    (text, p)
}

fn corpus_dir() -> PathBuf {
    std::env::var_os("NETSIFT_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
        PathBuf::from,
    )
}

/// Every packet of the corpus's Ethernet captures that a test run of a
/// socket buffer takes: an Ethernet header, a whole IPv4 or IPv6 header when
/// the EtherType says so, and what fits in a page with the kernel's head- and
/// tailroom (3,000 bytes is under that).
fn corpus_packets() -> Vec<Vec<u8>> {
    // The callers' `require!` checked the corpus is there.
    let files = netsift_testkit::tcpdump_captures(env!("CARGO_MANIFEST_DIR")).unwrap_or_default();
    let mut out = Vec::new();
    for f in files {
        let Ok(mut r) = netsift_pcapio::open(&f) else {
            continue;
        };
        if r.linktype() != LinkType::EN10MB {
            continue;
        }
        while let Ok(Some(p)) = r.next_packet() {
            if test_runnable(p.data) {
                out.push(p.data.to_vec());
            }
        }
    }
    out
}

/// Whether `BPF_PROG_TEST_RUN` takes `f` as a socket buffer.
fn test_runnable(f: &[u8]) -> bool {
    let least = match f.get(12..14) {
        Some([0x08, 0x00]) => 34,
        Some([0x86, 0xdd]) => 54,
        _ => 14,
    };
    (least..=3000).contains(&f.len())
}

/// The packet from 192.168.1.3 to UDP port 54321, if it is IPv4 and UDP with
/// room for the port.
fn retargeted(p: &[u8]) -> Option<Vec<u8>> {
    if p.len() < 34 || p[12..14] != [8, 0] || p[23] != 17 {
        return None;
    }
    let l4 = 14 + usize::from(p[14] & 15) * 4;
    let mut q = p.to_vec();
    q[26..30].copy_from_slice(&[192, 168, 1, 3]);
    q.get_mut(l4 + 2..l4 + 4)?
        .copy_from_slice(&54321u16.to_be_bytes());
    Some(q)
}

/// The corpus's frames, each IPv4/UDP one also rewritten to match Table 1 and
/// cut short (to 40 bytes, in the UDP header when the IP header has no
/// options), so that loads past the end are compared too.
fn table1_frames() -> Vec<Vec<u8>> {
    let packets = corpus_packets();
    assert!(packets.len() > 5_000, "corpus too small: {}", packets.len());
    let mut variants = packets.clone();
    variants.extend(packets.iter().filter_map(|p| retargeted(p)));
    variants.extend(packets.iter().filter_map(|p| retargeted(p)).map(|mut p| {
        p.truncate(40);
        p
    }));
    variants
}

#[test]
fn table1_filter_agrees_with_the_interpreter_on_the_corpus() {
    let dir = corpus_dir();
    require!(Need::Root, Need::File(&dir));
    let (text, p) = example("table1_udp.fpl");
    let k = Loaded::load(&p, Some(&text), ProgKind::SchedCls).unwrap();
    let frames = table1_frames();
    let mut mbuf = vec![0u8; p.mbuf_len()];
    let mut accepted = 0;
    for f in &frames {
        let want = run(&p, f, &mut mbuf, &mut [0; 16]);
        let got = k.prog.test_run(f, 1).unwrap();
        let keep = if want.accepts() { f.len() as u32 } else { 0 };
        assert_eq!(got.retval, keep, "frame {:02x?}", &f[..f.len().min(64)]);
        assert_eq!(k.result(), want.value());
        accepted += usize::from(want.accepts());
    }
    eprintln!(
        "table 1 in eBPF: {} frames, {accepted} accepted by both",
        frames.len()
    );
    assert!(accepted > 1_000, "too few matching frames: {accepted}");
}

#[test]
fn table1_filter_on_the_xdp_hook_copies_what_the_interpreter_accepts() {
    let dir = corpus_dir();
    require!(Need::Root, Need::File(&dir));
    let (text, p) = example("table1_udp.fpl");
    let mut ring = RingBuf::create(1 << 22).expect("a ring buffer");
    let stats = Map::create(MapKind::PerCpuArray, 4, 8, XDP_STATS).expect("counters");
    let k = Loaded::load_xdp(&p, Some(&text), ring.map().fd(), stats.fd(), 4096).unwrap();
    let frames = table1_frames();
    let mut accepted = 0u64;
    for f in &frames {
        let want = run(&p, f, &mut vec![0u8; p.mbuf_len()], &mut [0; 16]);
        assert_eq!(k.prog.test_run(f, 1).unwrap().retval, 2, "XDP_PASS");
        assert_eq!(k.result(), want.value());
        let mut records = 0;
        ring.drain(|rec| {
            records += 1;
            // Records come in a few sizes: the header says how much is the frame.
            let h = XDP_HDR as usize;
            let cap = u32::from_ne_bytes(rec[..4].try_into().unwrap()) as usize;
            assert_eq!(cap, f.len(), "captured length");
            assert_eq!(&rec[h..h + cap], &f[..], "the record holds the frame");
        });
        assert_eq!(records, usize::from(want.accepts()));
        accepted += u64::from(want.accepts());
    }
    let counted = (
        stats.sum_percpu_u64(0).unwrap(),
        stats.sum_percpu_u64(1).unwrap(),
    );
    assert_eq!(
        counted,
        (frames.len() as u64, accepted),
        "seen and accepted"
    );
    assert!(accepted > 1_000, "too few matching frames: {accepted}");
}

#[test]
fn figure6_counts_flows_in_the_mapped_mbuf_as_the_interpreter_does() {
    let dir = corpus_dir();
    require!(Need::Root, Need::File(&dir));
    let (text, p) = example("fig6_flow_counts.fpl");
    let k = Loaded::load(&p, Some(&text), ProgKind::SchedCls).unwrap();
    let mut mbuf = vec![0u8; p.mbuf_len()];
    let mut regs = [0i64; 16];
    let mut frames = Vec::new();
    for round in 0..20u32 {
        for flow in round..20u32 {
            let (src, dst) = ([10, 0, 0, flow as u8], [192, 168, 1, (flow * 3) as u8]);
            let (sport, dport) = (1024 + flow as u16 * 13, 80 + flow as u16);
            frames.push(
                Frame::default()
                    .ipv4(src, dst)
                    .tcp(sport, dport, 0x10)
                    .build(),
            );
            frames.push(Frame::default().ipv4(src, dst).udp(sport, dport).build());
        }
    }
    frames.extend(corpus_packets());
    for f in &frames {
        let want = run(&p, f, &mut mbuf, &mut regs);
        let got = k.prog.test_run(f, 1).unwrap();
        assert_eq!(got.retval, 0, "Figure 6 has no RETURN");
        assert_eq!(want.value(), 0);
    }
    assert_eq!(k.registers(), regs);
    let counts = k.mbuf_bytes();
    assert_eq!(counts, mbuf, "the MBuf read through the mapping");
    let total: i64 = counts
        .chunks(8)
        .map(|c| i64::from_ne_bytes(c.try_into().unwrap()))
        .sum();
    eprintln!(
        "figure 6 in eBPF: {} frames, {total} TCP packets counted",
        frames.len()
    );
    assert!(
        total >= 210,
        "the built flows alone have 210 TCP packets: {total}"
    );
}
