//! The kernel-resident part of a graph (`netsift_kernel::graphs`), run by
//! `BPF_PROG_TEST_RUN` on built frames: a packet counter behind a `udp`
//! filter counts what the engine accepts, a byte counter fed by the source
//! counts every byte, a counter behind two filters on two paths counts a
//! packet once when both pass, and an FPL sink (Figure 6) ends with the
//! interpreter's MBuf; the program answers 0 to every frame. Needs root
//! (CAP_BPF): skipped with a message without it.

use netsift_kernel::codegen::Halves;
use netsift_kernel::fpl::{mbuf_region_len, Maps, REGS_LEN};
use netsift_kernel::graphs::{generate, generate_tagged, Action, Level, Sink};
use netsift_kernel::shared::Region;
use netsift_kernel::sys::{Map, MapKind, ProgKind, Program};
use netsift_testkit::frames::Frame;
use netsift_testkit::{require, Need};
use netsift_wire::LinkType;
use std::sync::atomic::Ordering;

fn bpf() -> Need<'static> {
    Need::Check(
        Region::create(8)
            .map(drop)
            .map_err(|e| format!("needs CAP_BPF: {e}")),
    )
}

/// UDP and TCP frames of several ports and sizes, an ARP-sized runt and an
/// IPv6 one.
fn frames() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for i in 0..60u16 {
        let f = Frame::default().ipv4([10, 0, 0, 2], [10, 0, 0, 1]);
        let f = match i % 3 {
            0 => f.udp(1000 + i, 53),
            1 => f.udp(1000 + i, 1234),
            _ => f.tcp(2000 + i % 5, 80, 0x10),
        };
        out.push(f.payload(&vec![i as u8; usize::from(i) * 7]).build());
    }
    out.push(
        Frame::default()
            .ipv6([0xfe80, 0, 0, 0, 0, 0, 0, 1], [0xfe80, 0, 0, 0, 0, 0, 0, 2])
            .udp(5, 53)
            .build(),
    );
    out
}

fn word(r: &Region) -> u64 {
    r.dwords()[0].load(Ordering::Acquire)
}

/// Runs the graph program of four sinks at `level` (loaded as `kind`) over
/// `frames`, each answered `answer`, and checks the counts against the
/// engine's and the FPL sink against the interpreter.
fn counts_at(level: Level, kind: ProgKind, frames: &[Vec<u8>], answer: u32) {
    let udp = netsift_swift::compile("udp", LinkType::EN10MB).unwrap();
    let port = netsift_swift::compile("port 53", LinkType::EN10MB).unwrap();
    let ip6 = netsift_swift::compile("ip6", LinkType::EN10MB).unwrap();
    let (packets, bytes, both) = (
        Region::create(8).unwrap(),
        Region::create(8).unwrap(),
        Region::create(8).unwrap(),
    );
    let text = "IF (PKT.ETH_TYPE == ETH_P_IP && PKT.IP_PROTO == PROTO_TCP) THEN \
                R[0] = Hash(26, 12, 256); MEM[ R[0] ]++; FI";
    let opts = netsift_fpl::Options {
        mbuf_len: 2048,
        ..netsift_fpl::Options::default()
    };
    let fig6 = netsift_fpl::compile(text, &opts, &netsift_fpl::externs::Externs::new()).unwrap();
    let (mem, regs) = (
        Region::create(mbuf_region_len(&fig6)).unwrap(),
        Region::create(REGS_LEN).unwrap(),
    );
    let maps = Maps {
        mbuf: mem.map().fd(),
        regs: regs.map().fd(),
    };
    let sinks = [
        Sink {
            action: Action::Packets(&packets),
            paths: vec![vec![0]],
        },
        Sink {
            action: Action::Bytes(&bytes),
            paths: vec![vec![]],
        },
        // (udp and port 53) or ip6: a packet both pass counts once.
        Sink {
            action: Action::Packets(&both),
            paths: vec![vec![0, 1], vec![2]],
        },
        Sink {
            action: Action::Fpl(&fig6, maps),
            paths: vec![vec![]],
        },
    ];
    let g = generate(&[&udp, &port, &ip6], &sinks, level).unwrap();
    let prog = Program::load(kind, "graph", &g.insns).unwrap();
    for f in frames {
        assert_eq!(prog.test_run(f, 1).unwrap().retval, answer);
    }
    let engine = |set: &netsift_isa::PassSet, f: &[u8]| {
        let c = netsift_engine::Compiled::new(set.clone());
        c.matches(&mut netsift_engine::Scratch::new(), f, f.len() as u32)
    };
    let n_udp = frames.iter().filter(|f| engine(&udp, f)).count() as u64;
    let n_both = frames
        .iter()
        .filter(|f| (engine(&udp, f) && engine(&port, f)) || engine(&ip6, f))
        .count() as u64;
    let n_bytes: u64 = frames.iter().map(|f| f.len() as u64).sum();
    assert_eq!(
        (word(&packets), word(&bytes), word(&both)),
        (n_udp, n_bytes, n_both)
    );
    let mut want = vec![0u8; 2048];
    let mut r = netsift_fpl::Registers::default();
    for f in frames {
        let _ = netsift_fpl::run(&fig6, f, &mut want, &mut r);
    }
    let got: Vec<u8> = mem
        .dwords()
        .iter()
        .flat_map(|w| w.load(Ordering::Acquire).to_ne_bytes())
        .collect();
    assert_eq!(got, want);
}

#[test]
fn counters_behind_filters_count_what_the_engine_accepts() {
    require!(Need::Root, bpf());
    let frames = frames();
    let udp = netsift_swift::compile("udp", LinkType::EN10MB).unwrap();
    let is_udp = |f: &Vec<u8>| {
        let c = netsift_engine::Compiled::new(udp.clone());
        c.matches(&mut netsift_engine::Scratch::new(), f, f.len() as u32)
    };
    assert_eq!(frames.iter().filter(|f| is_udp(f)).count(), 41);
    counts_at(Level::Socket { sent: true }, ProgKind::SchedCls, &frames, 0);
}

/// `XDP_PASS` and `XDP_DROP`.
const XDP_PASS: u32 = 2;
const XDP_DROP: u32 = 1;

#[test]
fn at_xdp_the_counters_see_tagged_frames_whole_and_hand_on() {
    require!(Need::Root, bpf());
    // Frames with their tags in the data, as XDP sees them: the filters and
    // the byte counter see the tag, as the daemon does in the UMEM.
    let mut frames = frames();
    for i in 0..12u16 {
        let f = Frame::default()
            .vlan(100 + i)
            .ipv4([10, 0, 0, 2], [10, 0, 0, 1])
            .udp(1000 + i, 53 + i % 2)
            .payload(&[7; 40])
            .build();
        frames.push(f);
    }
    // An empty slot 0: every frame passes on to the host stack.
    let then = Map::create(MapKind::ProgArray, 4, 4, 1).unwrap();
    let level = Level::Xdp { then: then.fd() };
    counts_at(level, ProgKind::Xdp, &frames, XDP_PASS);
    // With a program there, the tail call goes on to it: its answer is the
    // frame's.
    let mut a = netsift_kernel::asm::Asm::new();
    a.mov64_imm(netsift_kernel::asm::R0, XDP_DROP as i32);
    a.exit();
    let drop = Program::load(ProgKind::Xdp, "drop", &a.finish().unwrap()).unwrap();
    then.update(&0u32.to_ne_bytes(), &(drop.fd() as u32).to_ne_bytes())
        .unwrap();
    counts_at(level, ProgKind::Xdp, &frames, XDP_DROP);
}

#[test]
fn a_sampler_passes_1_in_n_from_the_count_it_was_given() {
    require!(Need::Root, bpf());
    let frames = frames();
    let udp = netsift_swift::compile("udp", LinkType::EN10MB).unwrap();
    let c = netsift_engine::Compiled::new(udp.clone());
    let n = frames
        .iter()
        .filter(|f| c.matches(&mut netsift_engine::Scratch::new(), f, f.len() as u32))
        .count() as u64;
    let then = Map::create(MapKind::ProgArray, 4, 4, 1).unwrap();
    for (level, kind) in [
        (Level::Socket { sent: true }, ProgKind::SchedCls),
        (Level::Xdp { then: then.fd() }, ProgKind::Xdp),
    ] {
        for (rate, start) in [(3u32, 2u64), (7, 0), (1, 0), (0, 0)] {
            let (counter, sampled, bytes) = (
                Region::create(8).unwrap(),
                Region::create(8).unwrap(),
                Region::create(8).unwrap(),
            );
            // The daemon's count since the last packet it passed, carried in.
            counter.dwords()[0].store(start, Ordering::Release);
            let sinks = [Sink {
                action: Action::Sample {
                    counter: &counter,
                    rate,
                    then: vec![Action::Packets(&sampled), Action::Bytes(&bytes)],
                },
                paths: vec![vec![0]],
            }];
            let g = generate(&[&udp], &sinks, level).unwrap();
            let prog = Program::load(kind, "graph", &g.insns).unwrap();
            let mut want = (0u64, 0u64);
            let mut since = start;
            for f in &frames {
                prog.test_run(f, 1).unwrap();
                // The daemon's sampler (graph/exec.rs), step by step.
                if c.matches(&mut netsift_engine::Scratch::new(), f, f.len() as u32) {
                    since += 1;
                    if since >= u64::from(rate) {
                        since = 0;
                        want = (want.0 + 1, want.1 + f.len() as u64);
                    }
                }
            }
            assert_eq!(word(&counter), start + n, "{level:?} 1 in {rate}");
            assert_eq!(word(&counter) % u64::from(rate.max(1)), since);
            assert_eq!(
                (word(&sampled), word(&bytes)),
                want,
                "{level:?} 1 in {rate}"
            );
            assert!(want.0 > 0);
        }
    }
}

/// A filter compiled for frames the kernel took a VLAN tag out of, as
/// libpcap's kernel filter (and so `tcpdump -i`) reads them.
fn tag_stripped(expr: &str) -> netsift_isa::PassSet {
    let meta = netsift_pcapc::Meta {
        outgoing: false,
        ifindex: 1,
        tag_stripped: true,
    };
    let t = netsift_pcapc::Target::new(LinkType::EN10MB).meta(meta);
    // `not vlan` rejects every such frame: libpcap's program answers 0.
    netsift_pcapc::compile_for(expr, t).unwrap_or_else(|_| netsift_pcapc::reject_all())
}

#[test]
fn at_xdp_a_frame_the_kernel_will_untag_runs_the_filters_tagged_program() {
    require!(Need::Root, bpf());
    // Untagged frames, then UDP inside VLAN 100 to 111 (802.1Q) and one
    // inside 802.1ad: at XDP the tag is still in the data, and the kernel
    // will take it out before a socket filter reads the frame.
    let mut frames = frames();
    let untagged = frames.len();
    for i in 0..12u16 {
        frames.push(
            Frame::default()
                .vlan(100 + i)
                .ipv4([10, 0, 0, 2], [10, 0, 0, 1])
                .udp(1000 + i, 53)
                .payload(&[7; 40])
                .build(),
        );
    }
    let mut ad = frames[untagged].clone();
    ad[12..14].copy_from_slice(&[0x88, 0xa8]);
    frames.push(ad);
    let then = Map::create(MapKind::ProgArray, 4, 4, 1).unwrap();
    let level = Level::Xdp { then: then.fd() };
    // What tcpdump -i keeps of them: every UDP frame, tagged or not; `not
    // vlan` only the untagged ones; `vlan 105` the one frame of VLAN 105.
    let udp_frames = 41 + 13;
    for (expr, want) in [
        ("udp", udp_frames),
        ("not vlan", untagged as u64),
        ("vlan 105", 1),
    ] {
        let plain = netsift_swift::compile(expr, LinkType::EN10MB).unwrap();
        let tagged = tag_stripped(expr);
        let counter = Region::create(8).unwrap();
        let sinks = [Sink {
            action: Action::Packets(&counter),
            paths: vec![vec![0]],
        }];
        let halves = [Halves {
            untagged: &plain,
            tagged: Some(&tagged),
        }];
        let g = generate_tagged(&halves, &sinks, level).unwrap();
        let prog = Program::load(ProgKind::Xdp, "graph", &g.insns).unwrap();
        for f in &frames {
            assert_eq!(prog.test_run(f, 1).unwrap().retval, XDP_PASS);
        }
        assert_eq!(word(&counter), want, "{expr}");
        // Read as a capture file holds them, the tagged frames are no UDP.
        if expr == "udp" {
            let counter = Region::create(8).unwrap();
            let sinks = [Sink {
                action: Action::Packets(&counter),
                paths: vec![vec![0]],
            }];
            let g = generate(&[&plain], &sinks, level).unwrap();
            let prog = Program::load(ProgKind::Xdp, "graph", &g.insns).unwrap();
            for f in &frames {
                prog.test_run(f, 1).unwrap();
            }
            assert_eq!(word(&counter), 41, "{expr} as a file");
        }
    }
}
