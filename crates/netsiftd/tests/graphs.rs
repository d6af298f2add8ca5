//! Graph flows through the real daemon, on the capture file it plays: two
//! clients whose graphs share a `pcap` prefix run one instance of it (the
//! `graph` verb shows it shared) and each receives exactly the packets its
//! graph passes, computed here from the file with libpcap and our own
//! counting; a `packetcount` MBuf read by the client counts the packets its
//! upstream passed; a client that closes leaves the other's instances and
//! frees its own; bad graph text is refused with its position; `native` is
//! refused for a user who is not root, who sees none of root's instances;
//! on an interface, a graph's first pcap filter is held in the kernel.
//!
//! Any instance reads as a flow: by its element in a graph or by its id,
//! exactly what it passes, each IBuf entry's class naming the element; and
//! one graph reads two interfaces (veth pairs in namespaces the test makes),
//! their sources opened for it and closed after it, each device's frames in
//! the order sent. Refused: an element past the graph, an instance that does
//! not run or serves another class of rights, a device the rules forbid.

mod common;

use common::{activated, afs, afs_daemon, drain, kept, wait_stats, Connect, Got};
use netsift_ffpf::proto::ErrorCode;
use netsift_ffpf::{Client, Flow, FlowSpec};
use netsift_testkit::user::TempUser;
use netsift_testkit::{require, Need};
use std::io::BufRead;
use std::process::{Command, Stdio};

fn graph_flow(c: &Client, graph: &str) -> Flow {
    common::graph_flow(c, "afs", graph)
}

/// Every packet waiting in `flow`, with the class of its IBuf entry.
fn drain_classes(flow: &mut Flow) -> Vec<(Got, u32)> {
    let r = flow.reader().unwrap();
    let mut out = Vec::new();
    while let Some(p) = r.getnext().unwrap() {
        out.push(((p.data.to_vec(), p.wirelen, p.ts_ns), p.class));
    }
    out
}

/// `pkts`, each with `class`.
fn classed(pkts: &[Got], class: u32) -> Vec<(Got, u32)> {
    pkts.iter().map(|p| (p.clone(), class)).collect()
}

/// `expr` as `tcpdump -ddd` prints it for the file's link type, from
/// libpcap's own compiler.
fn ddd(expr: &str) -> String {
    let cap = netsift_oracle::Capture::open(&afs()).unwrap();
    let f = netsift_oracle::Filter::compile(cap.linktype(), expr).unwrap();
    let mut s = f.insns().len().to_string();
    for i in f.insns() {
        s.push_str(&format!(",{} {} {} {}", i.code, i.jt, i.jf, i.k));
    }
    s
}

/// What libpcap keeps of the file for `expr`, as booleans per packet.
fn verdicts(expr: &str) -> Vec<bool> {
    let mut cap = netsift_oracle::Capture::open(&afs()).unwrap();
    let f = netsift_oracle::Filter::compile(cap.linktype(), expr).unwrap();
    let mut out = Vec::new();
    while let Some(p) = cap.next() {
        let p = p.unwrap();
        out.push(f.accepts(&p.data, p.wire_len));
    }
    out
}

/// Every packet of the file.
fn all() -> Vec<Got> {
    kept("")
}

#[test]
fn two_graphs_share_a_prefix_and_get_what_each_passes() {
    require!(Need::File(&afs()));
    let d = afs_daemon(&["--fast", "--wait-flows", "2", "--ibuf-entries", "1024"]);
    let (ca, cb) = (d.client(), d.client());
    let host = "host 131.151.1.59";
    let ga = r#"(device,afs) -> (pcap,"udp") -> (pcap,"port 7001")"#;
    let gb = format!(
        r#"(device,afs) -> (pcap,"udp") -> ((bpf,"{}") | (sampler,3,4) | (packetcount,,8))"#,
        ddd(host)
    );
    let mut fa = graph_flow(&ca, ga);
    let mut fb = graph_flow(&cb, &gb);
    wait_stats(&ca, "playback", |s| s.sources[0].finished);

    // A: udp, then port 7001: what libpcap keeps for both.
    let want_a = kept("udp and port 7001");
    assert!(!want_a.is_empty());
    assert_eq!(drain(&mut fa), want_a, "{ga}");

    // B: udp, then (the host, as classic BPF) or (every third udp packet,
    // counted here), and a counter that passes nothing.
    let (udp, by_host) = (verdicts("udp"), verdicts(host));
    let mut nth = 0;
    // Each entry's class is the first last element that passed it: the
    // BPF filter (element 2), else the sampler (3).
    let want_b: Vec<(Got, u32)> = all()
        .into_iter()
        .enumerate()
        .filter_map(|(i, p)| {
            if !udp[i] {
                return None;
            }
            nth += 1;
            let class = if by_host[i] { 2 } else { 3 };
            (by_host[i] || nth % 3 == 0).then_some((p, class))
        })
        .collect();
    let n_udp = udp.iter().filter(|u| **u).count() as u64;
    assert!(
        want_b.len() as u64 > n_udp / 3,
        "the test needs host packets"
    );
    assert!(
        want_b.iter().any(|(_, c)| *c == 3),
        "the test needs sampled packets"
    );
    assert_eq!(drain_classes(&mut fb), want_b, "{gb}");
    assert_eq!(fb.stats().unwrap().accepted, want_b.len() as u64);

    // The packetcount's MBuf, as the client maps it: the udp packets.
    let m = fb.mbuf(4).unwrap();
    assert_eq!((m.len(), m.u64(0)), (8, Some(n_udp)));
    // The sampler's counter: udp packets since its last pick.
    assert_eq!(fb.mbuf(3).unwrap().u32(0), Some((n_udp % 3) as u32));
    let e = fb.mbuf(1).unwrap_err().to_string();
    assert!(e.contains("no MBuf"), "{e}");

    // One device and one `udp` instance for both; A's and B's own after.
    let v = ca.graph("afs").unwrap();
    let (na, nb) = (fa.number(), fb.number());
    assert_eq!(v.instances.len(), 6, "{v:#?}");
    let udp_i = v.instances.iter().find(|i| i.args == [r#""udp""#]).unwrap();
    assert_eq!((udp_i.flows.clone(), udp_i.refs), (vec![na, nb], 2));
    // It ran once per packet, not once per flow.
    assert_eq!((udp_i.seen, udp_i.passed), (all().len() as u64, n_udp));
    assert_eq!(udp_i.could_run, "kernel");
    let flows: Vec<_> = v.flows.iter().map(|f| f.flow).collect();
    assert_eq!(flows, [na, nb]);
    assert_eq!(v.flows[0].instances[..2], v.flows[1].instances[..2]);
    assert!(v.dot.contains("shared: flows"), "{}", v.dot);
    for i in &v.instances {
        let want = if matches!(i.class.as_str(), "device" | "pcap") {
            "kernel"
        } else {
            "daemon"
        };
        assert_eq!(
            (i.runs.as_str(), i.could_run.as_str()),
            ("daemon", want),
            "{i:?}"
        );
    }

    // B closes: A's instances stay, B's own go, with their MBufs (the
    // sampler's and the counter's memfds in the daemon).
    let mbufs = || {
        d.fd_list()
            .iter()
            .filter(|l| l.contains("netsift-mbuf"))
            .count()
    };
    assert_eq!(mbufs(), 2, "{:#?}", d.fd_list());
    let mine: Vec<u64> = v.flows[1].instances[2..].to_vec();
    fb.close().unwrap();
    assert_eq!(mbufs(), 0, "{:#?}", d.fd_list());
    let v = ca.graph("afs").unwrap();
    let left: Vec<u64> = v.instances.iter().map(|i| i.id).collect();
    assert_eq!(left, v.flows[0].instances, "{v:#?}");
    assert!(mine.iter().all(|m| !left.contains(m)));
    assert!(v.instances.iter().all(|i| i.refs == 1));
    assert_eq!(drain(&mut fa), Vec::<Got>::new());
    fa.close().unwrap();
    assert!(ca.graph("afs").unwrap().instances.is_empty());
}

#[test]
fn bad_graphs_are_refused_with_their_position() {
    require!(Need::File(&afs()));
    let d = afs_daemon(&["--fast"]);
    let c = d.client();
    let refused = |g: &str| {
        let e = common::refusal(&c, "afs", g);
        (e.refusal(), e.to_string())
    };
    let (code, m) = refused("(device,afs) -> (sampler,0,4)");
    assert_eq!(code, Some(ErrorCode::Filter));
    assert!(
        m.contains("element 2 (sampler)") && m.contains("byte 25"),
        "{m}"
    );
    let (_, m) = refused("(device,afs -> (pcap,udp)");
    assert!(m.contains("expected ')'") && m.contains("column"), "{m}");
    let (_, m) = refused(r#"(device,afs) -> (pcap,"udp and port")"#);
    assert!(m.contains("element 2 (pcap) at byte 16"), "{m}");
    let (code, m) = refused("(device,afs) | (device,eth9) -> (pcap,udp)");
    assert_eq!(code, Some(ErrorCode::NoSuchSource), "{m}");
    assert!(
        m.contains("element 2 (device) at byte 15") && m.contains(r#"no source "eth9""#),
        "{m}"
    );
    let (_, m) = refused(r#"(pcap,udp) -> (fpl,"RETURN PKT.B[")"#);
    assert!(m.contains("element 2 (fpl)") && m.contains("FPL"), "{m}");
    let (_, m) =
        refused(r#"(pcap,udp) -> (fpl,"R[0] = EXTERN(\"aho_corasick:none\", 0, 16);",16)"#);
    assert!(
        m.contains("element 2 (fpl)") && m.contains("aho_corasick:none"),
        "{m}"
    );
    let (_, m) = refused(r#"(device,afs) -> (bpf,"2,255 0 0 0,6 0 0 1")"#);
    assert!(m.contains("opcode 0xff"), "{m}");
    // Root may name `native`; the object must be there.
    let (_, m) = refused(r#"(device,afs) -> (native,"/opt/f.so")"#);
    assert!(
        m.contains("element 2 (native)") && m.contains("/opt/f.so: No such file"),
        "{m}"
    );
    let s = c.daemon_stats().unwrap();
    assert_eq!((s.flows, s.sources[0].flows), (0, 0), "{s:?}");
    // The MBuf of a flow that is not a graph, or of an element past the end.
    let f = common::active_flow(&c, "afs", "udp");
    let e = f.mbuf(0).unwrap_err();
    assert_eq!(e.refusal(), Some(ErrorCode::BadState), "{e}");
    assert!(e.to_string().contains("not a graph flow"), "{e}");
    let g = graph_flow(&c, "(pcap,udp) -> (packetcount)");
    let e = g.mbuf(2).unwrap_err().to_string();
    assert!(e.contains("element 2") && e.contains("2 elements"), "{e}");
}

const ROLE: &str = "NETSIFTD_GRAPHS_SIDE";
const INSTANCE: &str = "NETSIFTD_GRAPHS_INSTANCE";

/// Run as another user by `native_is_for_root_only`: tries a `native`
/// element and prints what the daemon said.
#[test]
fn user_side() {
    let Ok(sock) = std::env::var(ROLE) else {
        return;
    };
    let c = Client::connect(&sock).unwrap();
    let r = c.create(&FlowSpec {
        source: "afs".into(),
        graph: Some(r#"(device,afs) -> (native,"/opt/f.so")"#.into()),
        ..FlowSpec::default()
    });
    let seen = c.graph("afs").unwrap();
    println!("sees: {} {}", seen.instances.len(), seen.flows.len());
    // Root's instance, which serves no flow of this user's class.
    let id: u64 = std::env::var(INSTANCE).unwrap().parse().unwrap();
    match c.create(&FlowSpec {
        source: "afs".into(),
        instance: Some(id),
        ..FlowSpec::default()
    }) {
        Ok(_) => println!("instance: accepted"),
        Err(e) => println!("instance: {:?} {e}", e.refusal()),
    }
    match r {
        Ok(_) => println!("said: accepted"),
        Err(e) => println!("said: {:?} {e}", e.refusal()),
    }
}

#[test]
fn native_is_for_root_only() {
    let path = afs();
    require!(Need::That(
        "root, setpriv, useradd and the corpus",
        netsift_testkit::skip::all_met(&[
            Need::Root,
            Need::File(&path),
            Need::Command("setpriv"),
            Need::Command("useradd"),
        ])
    ));
    let d = afs_daemon(&["--mode", "0666"]);
    // Root's graph flow, which another user's rights do not see.
    let root = d.client();
    let _f = graph_flow(&root, "(device,afs) -> (packetcount)");
    let seen = root.graph("afs").unwrap();
    assert_eq!(seen.instances.len(), 2);
    let user = TempUser::new();
    let argv = user.setpriv();
    let out = Command::new(&argv[0])
        .args(&argv[1..])
        .arg(std::env::current_exe().unwrap())
        .args(["user_side", "--exact", "--nocapture", "--test-threads=1"])
        .env(ROLE, &d.socket)
        .env(INSTANCE, seen.instances[0].id.to_string())
        .stdout(Stdio::piped())
        .output()
        .unwrap();
    let lines: Vec<String> = out.stdout.lines().map_while(Result::ok).collect();
    // What the user's client printed after `tag`.
    let after = |tag: &str| {
        lines
            .iter()
            .find_map(|l| l.split_once(tag).map(|(_, s)| s))
            .unwrap_or_else(|| panic!("the user's client said no {tag:?}: {lines:#?}"))
    };
    let said = after("said:");
    assert!(
        said.contains("Denied") && said.contains("for root only"),
        "{said}"
    );
    assert!(said.contains("element 2 (native)"), "{said}");
    assert_eq!(after("sees: "), "0 0", "{lines:#?}");
    let instance = after("instance: ");
    assert!(
        instance.contains("Denied") && instance.contains("another class of rights"),
        "{instance}"
    );
}

/// On an interface (a veth pair in a namespace the test makes): a graph
/// flow's first pcap filter is its clause in the kernel's program while it
/// is active, and its sampler picks one in five of what passes it.
#[test]
fn a_graph_on_an_interface_holds_its_first_filter_in_the_kernel() {
    use netsift_testkit::netns::{Side, VethPair};
    use std::time::{Duration, Instant};
    require!(Need::Netns);
    let pair = VethPair::new();
    let (ns, dev) = pair.end(Side::A);
    let d = common::daemon(Some(ns), &["--iface", dev]);
    let c = d.client();
    let g = format!(r#"(device,{dev}) -> (pcap,"udp dst port 1234") -> (sampler,5,4)"#);
    let mut f = c
        .create(&FlowSpec {
            source: dev.into(),
            graph: Some(g.clone()),
            ..FlowSpec::default()
        })
        .unwrap();
    f.instantiate().unwrap();
    let clauses = |c: &Client| c.daemon_stats().unwrap().sources[0].kernel_clauses;
    assert_eq!(clauses(&c), 0);
    f.activate().unwrap();
    assert_eq!(clauses(&c), 1);
    let frames: Vec<Vec<u8>> = (0..50u32)
        .map(|i| netsift_testkit::frames::numbered_udp_from(i, 5000 + i as u16))
        .collect();
    pair.send(Side::B, &frames);
    let until = Instant::now() + Duration::from_secs(10);
    let mut got = Vec::new();
    while got.len() < 10 && Instant::now() < until {
        let r = f.reader().unwrap();
        r.wait_for(1, Duration::from_millis(100)).unwrap();
        while let Some(p) = r.getnext().unwrap() {
            got.push(p.data.to_vec());
        }
    }
    // The 5th, 10th, … of the 50 frames, in order.
    let want: Vec<Vec<u8>> = frames.iter().skip(4).step_by(5).cloned().collect();
    assert_eq!(got, want, "{g}");
    let v = c.graph(dev).unwrap();
    let pcap = v.instances.iter().find(|i| i.class == "pcap").unwrap();
    assert_eq!(pcap.passed, 50, "{v:#?}");
    f.pause().unwrap();
    assert_eq!(clauses(&c), 0);
}

/// An inner instance read as a flow, by its element and by its id, gets
/// exactly what libpcap keeps for it while another flow reads the graph's
/// last element; entries carry the element as their class; and the flow
/// read by id keeps the instances after the flows it was found through go.
#[test]
fn any_instance_reads_as_a_flow() {
    require!(Need::File(&afs()));
    let d = afs_daemon(&["--fast", "--wait-flows", "3", "--ibuf-entries", "4096"]);
    let c = d.client();
    let g = r#"(device,afs) -> (pcap,"udp") -> (sampler,3,4)"#;
    let at = |element: Option<u32>| FlowSpec {
        source: "afs".into(),
        graph: Some(g.into()),
        element,
        ..FlowSpec::default()
    };
    let mut inner = activated(&c, &at(Some(1)));
    let mut last = activated(&c, &at(None));
    let v = c.graph("afs").unwrap();
    assert_eq!(v.instances.len(), 3, "{v:#?}");
    let pcap = v.instances.iter().find(|i| i.class == "pcap").unwrap().id;
    let by_id = FlowSpec {
        source: "afs".into(),
        instance: Some(pcap),
        ..FlowSpec::default()
    };
    let mut by_id = activated(&c, &by_id);
    wait_stats(&c, "playback", |s| s.sources[0].finished);

    let udp = kept("udp");
    assert!(udp.len() > 100, "{}", udp.len());
    assert_eq!(drain_classes(&mut inner), classed(&udp, 1), "element 1");
    assert_eq!(
        drain_classes(&mut by_id),
        classed(&udp, 1),
        "instance {pcap}"
    );
    // The sampler's: the 3rd, 6th, ... udp packets.
    let third: Vec<Got> = udp.iter().skip(2).step_by(3).cloned().collect();
    assert_eq!(drain_classes(&mut last), classed(&third, 2), "{g}");

    // Three flows on the same three instances, each run once a packet.
    let v = c.graph("afs").unwrap();
    assert_eq!(v.instances.len(), 3, "{v:#?}");
    assert!(v.instances.iter().all(|i| i.refs == 3), "{v:#?}");
    let p = v.instances.iter().find(|i| i.id == pcap).unwrap();
    assert_eq!((p.seen, p.passed), (all().len() as u64, udp.len() as u64));

    // Refused: an element past the graph, an element without a graph, an
    // instance that does not run.
    let e = c.create(&at(Some(3))).unwrap_err();
    assert_eq!(e.refusal(), Some(ErrorCode::BadField), "{e}");
    let m = e.to_string();
    assert!(
        m.contains("field `element`: 3") && m.contains("3 elements"),
        "{m}"
    );
    let e = c
        .create(&FlowSpec {
            source: "afs".into(),
            element: Some(0),
            ..FlowSpec::default()
        })
        .unwrap_err();
    assert_eq!(e.refusal(), Some(ErrorCode::BadField), "{e}");
    let e = c
        .create(&FlowSpec {
            source: "afs".into(),
            instance: Some(pcap + 1000),
            ..FlowSpec::default()
        })
        .unwrap_err();
    assert_eq!(e.refusal(), Some(ErrorCode::BadField), "{e}");
    assert!(e.to_string().contains("no instance"), "{e}");

    // The flows it was found through close; it keeps the instances.
    inner.close().unwrap();
    last.close().unwrap();
    let v = c.graph("afs").unwrap();
    assert_eq!(v.flows.len(), 1, "{v:#?}");
    assert!(
        v.instances.iter().any(|i| i.id == pcap && i.refs == 1),
        "{v:#?}"
    );
    by_id.close().unwrap();
    assert!(c.graph("afs").unwrap().instances.is_empty());
}

/// One graph over two interfaces: `va` (of one veth pair) and `vc` (of
/// another, moved into the daemon's namespace). Both sources start when the
/// graph flow is instantiated and stop when it closes; each holds the
/// graph's `udp` clause in its kernel while it is active, so the devices see
/// only the UDP frames sent to them; the flow, reading the `udp` element,
/// gets every UDP frame sent on either, each interface's in the order sent,
/// and the counter counts them. A policy that does not open `vc` refuses a
/// graph naming it.
#[test]
fn one_graph_reads_two_interfaces() {
    use netsift_testkit::netns::Side;
    use std::time::{Duration, Instant};
    require!(Need::Netns);
    let (one, two) = common::veth::two_interfaces();
    let ns = one.a.as_str();
    let d = common::daemon(Some(ns), &["--iface", "va", "--iface", "vc"]);
    let c = d.client();
    let running = |c: &Client| -> Vec<(String, bool, u64)> {
        let s = c.daemon_stats().unwrap();
        s.sources
            .iter()
            .map(|s| (s.name.clone(), s.running, s.kernel_clauses))
            .collect()
    };
    let idle = vec![("va".to_string(), false, 0), ("vc".to_string(), false, 0)];
    assert_eq!(running(&c), idle);
    let g = r#"(device,va) | (device,vc) -> (pcap,"udp") -> (packetcount)"#;
    let mut f = c
        .create(&FlowSpec {
            source: "va".into(),
            graph: Some(g.into()),
            element: Some(2),
            ..FlowSpec::default()
        })
        .unwrap();
    f.instantiate().unwrap();
    f.activate().unwrap();
    let on = vec![("va".to_string(), true, 1), ("vc".to_string(), true, 1)];
    assert_eq!(running(&c), on);

    // UDP and TCP frames to each interface, from ports of their own.
    let frames = |sport: u16, n: u32| -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
        let udp: Vec<Vec<u8>> = (0..n)
            .map(|i| netsift_testkit::frames::numbered_udp_from(i, sport))
            .collect();
        let tcp = (0..n / 4)
            .map(|i| {
                netsift_testkit::frames::numbered(i, None, 16)
                    .tcp(sport, 80, 0x10)
                    .build()
            })
            .collect();
        (udp, tcp)
    };
    let (udp_a, tcp_a) = frames(5000, 40);
    let (udp_c, tcp_c) = frames(6000, 32);
    for i in 0..4 {
        let part = |v: &[Vec<u8>]| v.chunks(v.len().div_ceil(4)).nth(i).unwrap_or(&[]).to_vec();
        one.send(Side::B, &[part(&udp_a), part(&tcp_a)].concat());
        two.send(Side::B, &[part(&tcp_c), part(&udp_c)].concat());
    }
    let total = udp_a.len() + udp_c.len();
    let until = Instant::now() + Duration::from_secs(10);
    let mut got = Vec::new();
    while got.len() < total && Instant::now() < until {
        let r = f.reader().unwrap();
        r.wait_for(1, Duration::from_millis(100)).unwrap();
        while let Some(p) = r.getnext().unwrap() {
            got.push((p.data.to_vec(), p.class));
        }
    }
    let of = |sent: &[Vec<u8>]| -> Vec<Vec<u8>> {
        got.iter()
            .filter(|(p, _)| sent.contains(p))
            .map(|(p, _)| p.clone())
            .collect()
    };
    assert_eq!(got.len(), total, "{g}");
    assert_eq!(of(&udp_a), udp_a, "va's frames, in order");
    assert_eq!(of(&udp_c), udp_c, "vc's frames, in order");
    assert!(got.iter().all(|(_, class)| *class == 2));
    assert_eq!(f.mbuf(3).unwrap().u64(0), Some(total as u64));
    // Each device instance saw its interface's UDP frames only: the kernel
    // under each ring dropped the TCP ones.
    let v = c.graph("va").unwrap();
    let seen: Vec<(String, u64)> = v
        .instances
        .iter()
        .filter(|i| i.class == "device")
        .map(|i| (i.args[0].clone(), i.seen))
        .collect();
    let want = vec![
        (r#""va""#.to_string(), udp_a.len() as u64),
        (r#""vc""#.to_string(), udp_c.len() as u64),
    ];
    assert_eq!(seen, want, "{v:#?}");

    f.pause().unwrap();
    assert_eq!(
        running(&c),
        vec![("va".to_string(), true, 0), ("vc".to_string(), true, 0)]
    );
    f.close().unwrap();
    assert_eq!(running(&c), idle);
    drop(c);
    drop(d);

    // Under a rule that opens `va` alone, a graph naming `vc` is refused.
    let dir = tempfile::tempdir().unwrap();
    let policy = dir.path().join("policy.toml");
    std::fs::write(
        &policy,
        "default = \"deny\"\n[[rule]]\nname = \"va-only\"\nusers = [0]\nsources = [\"va\"]\n",
    )
    .unwrap();
    let d = common::daemon(
        Some(ns),
        &[
            "--iface",
            "va",
            "--iface",
            "vc",
            "--policy",
            policy.to_str().unwrap(),
        ],
    );
    let c = d.client();
    let e = c
        .create(&FlowSpec {
            source: "va".into(),
            graph: Some(g.into()),
            ..FlowSpec::default()
        })
        .unwrap_err();
    assert_eq!(e.refusal(), Some(ErrorCode::Denied), "{e}");
    let m = e.to_string();
    assert!(
        m.contains("element 2 (device)") && m.contains("va-only") && m.contains("vc"),
        "{m}"
    );
    assert_eq!(c.daemon_stats().unwrap().flows, 0);
}
