//! `netsift -i`: live capture on a veth pair in network namespaces the test makes
//! and removes. Frames sent from one side must come out of netsift on the other
//! exactly as tcpdump's filter picks them from the same frames in a file.

use netsift_testkit::frames::{numbered, numbered_udp, numbered_udp_from};
use netsift_testkit::live::{Finished, Live, Running};
use netsift_testkit::netns::{exec, in_ns, send_frames, Side, VethPair};
use netsift_testkit::pcap::{self, packets};
use netsift_testkit::{require, Need};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// `netsift` in `side`'s namespace of `pair`, capturing on its interface with
/// `args` (the filter expression last).
fn netsift(pair: &VethPair, side: Side, args: &[&str]) -> Live {
    let (ns, dev) = pair.end(side);
    Live::new(env!("CARGO_BIN_EXE_netsift"))
        .in_ns(ns)
        .on(dev)
        .args(args)
}

/// What tcpdump's `expr` keeps of the frames in capture file `sent`.
fn tcpdump_keeps(sent: &Path, expr: &str, dir: &Path) -> Vec<(Vec<u8>, u32)> {
    let want_file = dir.join("want.pcap");
    let st = Command::new("tcpdump")
        .arg("-r")
        .arg(sent)
        .arg("-w")
        .arg(&want_file)
        .arg(expr)
        .output()
        .expect("tcpdump runs");
    assert!(
        st.status.success(),
        "tcpdump {expr}: {}",
        String::from_utf8_lossy(&st.stderr)
    );
    packets(&want_file)
}

#[test]
fn live_capture_matches_tcpdump_on_the_same_frames() {
    require!(Need::Netns, Need::Command("tcpdump"));
    let dir = tempfile::tempdir().unwrap();
    let frames: Vec<Vec<u8>> = (0..1000u32)
        .map(|i| {
            numbered_udp(
                i,
                [None, Some(12), Some(13)][i as usize % 3],
                (i % 50) as usize,
            )
        })
        .collect();
    let sent = dir.path().join("sent.pcap");
    pcap::write(&sent, &frames);
    // One netsift per expression, all capturing the one sending.
    let pair = VethPair::new();
    let runs: Vec<_> = ["vlan 12 and udp", "vlan and udp[8:4] < 500", "not vlan"]
        .into_iter()
        .enumerate()
        .map(|(k, expr)| {
            let want = tcpdump_keeps(&sent, expr, dir.path());
            assert!(
                !want.is_empty() && want.len() < frames.len(),
                "{expr}: {} of {}",
                want.len(),
                frames.len()
            );
            let count = want.len().to_string();
            let run = netsift(
                &pair,
                Side::A,
                &["-B", "65536", "--immediate-mode", "-c", &count],
            )
            .write_to(&dir.path().join(format!("out{k}.pcap")))
            .filter(expr)
            .start();
            (expr, want, run)
        })
        .collect();
    pair.send(Side::B, &frames);
    for (expr, want, run) in runs {
        let done = run.wait(Duration::from_secs(10));
        assert!(
            done.status.success(),
            "{expr}: netsift exited {}",
            done.status
        );
        assert_eq!(done.packets(), want, "{expr}");
    }
}

#[test]
fn packet_buffered_records_reach_the_file_while_capturing() {
    require!(Need::Netns);
    let dir = tempfile::tempdir().unwrap();
    let pair = VethPair::new();
    let out = dir.path().join("out.pcap");
    let run = netsift(&pair, Side::A, &["--immediate-mode", "-U"])
        .write_to(&out)
        .filter("udp")
        .start();
    let frames: Vec<Vec<u8>> = (0..200u32).map(|i| numbered_udp(i, None, 60)).collect();
    // The file header, then a record header and the frame each.
    let want = 24 + frames.iter().map(|f| 16 + f.len() as u64).sum::<u64>();
    pair.send(Side::B, &frames);
    // -U: every record is in the file while netsift still runs, with no flush
    // at exit to bring it there.
    let end = std::time::Instant::now() + Duration::from_secs(10);
    let size = || std::fs::metadata(&out).map_or(0, |m| m.len());
    while size() < want && std::time::Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(size(), want);
    let got = packets(&out);
    let done = run.stop();
    assert!(done.status.success(), "netsift exited {}", done.status);
    assert_eq!(got, pcap::as_sent(&frames));
}

#[test]
fn sigint_leaves_a_whole_file_and_the_statistics() {
    require!(Need::Netns, Need::Command("tcpdump"));
    let dir = tempfile::tempdir().unwrap();
    let pair = VethPair::new();
    let out = dir.path().join("out.pcap");
    let run = netsift(&pair, Side::A, &["-B", "65536"])
        .write_to(&out)
        .filter("udp")
        .start();
    assert!(
        run.said().len() == 1 && run.said()[0].starts_with("listening on"),
        "{:?}",
        run.said()
    );
    let frames: Vec<Vec<u8>> = (0..500u32).map(|i| numbered_udp(i, None, 1200)).collect();
    pair.send(Side::B, &frames);
    std::thread::sleep(Duration::from_millis(300));
    let done = run.stop();
    let rest = &done.stderr;
    assert!(done.status.success(), "exit {}: {rest}", done.status);
    assert!(rest.contains("500 packets captured"), "{rest}");
    assert!(rest.contains("packets received by filter"), "{rest}");
    assert!(rest.contains("0 packets dropped by kernel"), "{rest}");
    assert!(
        rest.contains(" packets filtered in place, 500 copied out"),
        "{rest}"
    );
    // tcpdump reads the file to its end.
    let r = Command::new("tcpdump")
        .arg("-r")
        .arg(&out)
        .arg("-q")
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert_eq!(String::from_utf8_lossy(&r.stdout).lines().count(), 500);
}

#[test]
fn follow_ftp_on_a_live_interface() {
    use netsift_gen::ftp::{ftp_workload, Class, FtpConfig};
    require!(Need::Netns);
    let cfg = FtpConfig {
        servers: 4,
        transfers: 6,
        duration_ns: 3_000_000_000,
        background_pps: 5_000,
        seed: 7,
        ..FtpConfig::default()
    };
    let w = ftp_workload(&cfg).expect("workload");
    let want: Vec<Vec<u8>> = w
        .packets
        .iter()
        .zip(&w.truth)
        .filter(|(_, c)| !matches!(c, Class::Background))
        .map(|(p, _)| p.data.clone())
        .collect();
    let frames: Vec<Vec<u8>> = w.packets.iter().map(|p| p.data.clone()).collect();
    assert!(
        frames.len() > want.len() + 1000,
        "background traffic to leave out"
    );
    // With the filter in the kernel, the data connections' first packets follow
    // their announcements at the sender's full speed: only the kernel's own
    // reading of the announcements lets them through in time. Both placements
    // capture the one sending.
    let dir = tempfile::tempdir().unwrap();
    let pair = VethPair::new();
    let count = want.len().to_string();
    let runs: Vec<(&str, Running)> = ["user", "kernel"]
        .into_iter()
        .map(|place| {
            // A ring large enough for the whole burst: this test is about
            // following, not about keeping up with a sender that never paces
            // itself.
            let args = [
                "-B",
                "65536",
                "--immediate-mode",
                "--place",
                place,
                "-c",
                &count,
            ];
            let run = netsift(&pair, Side::A, &args)
                .write_to(&dir.path().join(format!("{place}.pcap")))
                .args(["--follow", "ftp"])
                .start();
            (place, run)
        })
        .collect();
    pair.send(Side::B, &frames);
    for (place, run) in runs {
        let done = run.wait(Duration::from_secs(10));
        assert!(
            done.status.success(),
            "{place}: netsift exited {}",
            done.status
        );
        let got: Vec<Vec<u8>> = done.packets().into_iter().map(|(d, _)| d).collect();
        assert_eq!(
            got.len(),
            want.len(),
            "{place}: control + data packets captured"
        );
        assert!(
            got == want,
            "{place}: the captured packets are the control and data packets, in order"
        );
    }
}

#[test]
fn two_workers_capture_every_packet_once_in_time_order() {
    require!(Need::Netns);
    let dir = tempfile::tempdir().unwrap();
    let pair = VethPair::new();
    let out = dir.path().join("out.pcap");
    let frames: Vec<Vec<u8>> = (0..4000u32)
        .map(|i| numbered_udp_from(i, 10_000 + (i % 16) as u16))
        .collect();
    let count = frames.len().to_string();
    let args = [
        "-B",
        "65536",
        "--workers",
        "2",
        "--immediate-mode",
        "-c",
        &count,
    ];
    let run = netsift(&pair, Side::A, &args)
        .write_to(&out)
        .filter("udp")
        .start();
    let first = &run.said()[0];
    assert!(
        first.starts_with("listening on") && first.contains("2 workers"),
        "{first}"
    );
    pair.send(Side::B, &frames);
    let done = run.wait(Duration::from_secs(10));
    let rest = &done.stderr;
    assert!(done.status.success(), "exit {}: {rest}", done.status);
    // Every frame once (the UDP payload's sequence number says which).
    let got = done.records();
    let mut seqs: Vec<u32> = got
        .iter()
        .map(|r| u32::from_be_bytes(r.data[42..46].try_into().unwrap()))
        .collect();
    assert_eq!(got.len(), frames.len(), "{rest}");
    // In time-stamp order.
    assert!(
        got.windows(2)
            .all(|w| (w[0].ts_sec, w[0].ts_nsec) <= (w[1].ts_sec, w[1].ts_nsec)),
        "out of time order"
    );
    seqs.sort_unstable();
    assert!(
        seqs.iter().copied().eq(0..frames.len() as u32),
        "each frame exactly once"
    );
    // Both workers took flows, and each reports its statistics.
    for w in 0..2 {
        let line = rest
            .lines()
            .find(|l| l.starts_with(&format!("worker {w}:")))
            .unwrap_or_else(|| panic!("no statistics for worker {w}: {rest}"));
        assert!(
            !line.starts_with(&format!("worker {w}: 0 packets")),
            "{line}"
        );
    }
    assert!(rest.contains("4000 packets captured"), "{rest}");
}

#[test]
fn any_writes_what_tcpdump_i_any_writes() {
    require!(Need::Netns, Need::Command("tcpdump"));
    let dir = tempfile::tempdir().unwrap();
    let pair = VethPair::new();
    let frames: Vec<Vec<u8>> = (0..400u32)
        .map(|i| numbered_udp(i, None, (i % 30) as usize))
        .collect();
    let n = frames.len().to_string();
    let ours = dir.path().join("netsift.pcap");
    let theirs = dir.path().join("tcpdump.pcap");
    // Both with a 2 KiB snap length: in immediate mode libpcap's ring has one slot
    // per snap length, and at the default 256 KiB a 64 MiB buffer holds only 256
    // packets of the unpaced burst.
    let args = [
        "-i",
        "any",
        "-s",
        "2048",
        "-B",
        "65536",
        "--immediate-mode",
        "-c",
        &n,
    ];
    let netsift = Live::new(env!("CARGO_BIN_EXE_netsift"))
        .in_ns(&pair.a)
        .args(args)
        .write_to(&ours)
        .filter("udp")
        .start();
    let tcpdump = Live::tcpdump()
        .in_ns(&pair.a)
        .args(args)
        .write_to(&theirs)
        .filter("udp")
        .start();
    pair.send(Side::B, &frames);
    assert!(netsift.wait(Duration::from_secs(10)).status.success());
    assert!(tcpdump.wait(Duration::from_secs(10)).status.success());
    let (a, b) = (packets(&ours), packets(&theirs));
    assert_eq!(a.len(), 400);
    let first_diff = a.iter().zip(&b).position(|(x, y)| x != y);
    assert!(
        a == b,
        "netsift -i any and tcpdump -i any wrote different packets: {} and {}, first difference at {first_diff:?}: {:02x?} / {:02x?}",
        a.len(),
        b.len(),
        first_diff.map(|i| &a[i]),
        first_diff.map(|i| &b[i]),
    );
    // And the same file header's link type (LINUX_SLL2, 276).
    let lt = |p: &Path| u32::from_le_bytes(std::fs::read(p).unwrap()[20..24].try_into().unwrap());
    assert_eq!(lt(&ours), 276);
    assert_eq!(lt(&ours), lt(&theirs));
}

/// Sends one command on the control socket and returns the reply's status line.
fn control(sock: &mut std::os::unix::net::UnixStream, cmd: &str) -> String {
    use std::io::{BufRead, BufReader, Write};
    writeln!(sock, "{cmd}").unwrap();
    let mut r = BufReader::new(sock.try_clone().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            r.read_line(&mut line).unwrap() > 0,
            "{cmd}: the socket closed"
        );
        if line.starts_with("ok") || line.starts_with("error") {
            return line.trim_end().to_string();
        }
    }
}

/// A paced stream of three flows over `pair` until the flag is set: UDP from
/// source ports 1, 9 and 2 in turn, each frame carrying its sequence number;
/// the thread returns how many it sent.
fn three_flows(
    pair: &VethPair,
) -> (
    std::sync::Arc<std::sync::atomic::AtomicBool>,
    std::thread::JoinHandle<u32>,
) {
    use std::sync::atomic::{AtomicBool, Ordering};
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let (s, dev) = (stop.clone(), pair.veth_b.clone());
    let sender = in_ns(&pair.b, move || {
        let mut seq = 0u32;
        while !s.load(Ordering::Relaxed) {
            let burst: Vec<Vec<u8>> = (0..30)
                .map(|_| {
                    seq += 1;
                    numbered_udp_from(seq, [1, 9, 2][seq as usize % 3])
                })
                .collect();
            send_frames(&dev, &burst);
            std::thread::sleep(Duration::from_millis(1));
        }
        seq
    });
    (stop, sender)
}

#[test]
fn control_edits_reach_the_running_capture_with_nothing_lost_or_leaked() {
    require!(Need::Netns);
    use std::sync::atomic::Ordering;
    // In user space, and with the clauses in the kernel too (each edit swaps the
    // kernel's program: widened before user space on an add, narrowed after it on
    // a delete).
    for (workers, place) in [
        (None, "user"),
        (Some("2"), "user"),
        (None, "kernel"),
        (Some("2"), "kernel"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let pair = VethPair::new();
        let out = dir.path().join("out.pcap");
        let sock = dir.path().join("ctl.sock");
        let mut args = vec![
            "-i",
            &pair.veth_a,
            "-B",
            "65536",
            "--immediate-mode",
            "-w",
            out.to_str().unwrap(),
            "--control",
            sock.to_str().unwrap(),
            "--place",
            place,
        ];
        if let Some(n) = workers {
            args.extend(["--workers", n]);
        }
        args.push("udp port 1");
        let run = Live::new(env!("CARGO_BIN_EXE_netsift"))
            .in_ns(&pair.a)
            .args(&args)
            .start();
        let said = run.said().to_vec();
        assert_eq!(
            said.iter().any(|l| l.contains("filtering in the kernel")),
            place == "kernel",
            "{said:?}"
        );
        let mut ctl = std::os::unix::net::UnixStream::connect(&sock).expect("control socket");
        // A paced stream of three flows: source port 1 (matched by every filter the
        // edits below go through), 9 (by none) and 2 (only while its clause lives).
        let (stop, sender) = three_flows(&pair);
        let pause = || std::thread::sleep(Duration::from_millis(150));
        pause();
        assert_eq!(control(&mut ctl, "add udp port 2"), "ok 1");
        pause();
        assert_eq!(control(&mut ctl, "add udp port 1"), "ok 2");
        pause();
        assert_eq!(control(&mut ctl, "del 0"), "ok");
        pause();
        assert_eq!(control(&mut ctl, "del 1"), "ok");
        assert!(control(&mut ctl, "add udp port").starts_with("error: bad filter expression"));
        pause();
        stop.store(true, Ordering::Relaxed);
        let sent = sender.join().unwrap();
        std::thread::sleep(Duration::from_millis(200));
        drop(ctl);
        let status = run.wait(Duration::from_millis(10)).status;
        assert!(
            status.success(),
            "{workers:?} {place}: netsift exited {status}"
        );
        assert!(!sock.exists(), "the control socket is removed at exit");

        let mut by_port: [Vec<u32>; 3] = Default::default();
        for (f, _) in packets(&out) {
            let port = u16::from_be_bytes([f[34], f[35]]);
            let seq = u32::from_be_bytes(f[42..46].try_into().unwrap());
            let slot = match port {
                1 => 0,
                2 => 1,
                p => panic!("{workers:?}: packet {seq} of port {p} leaked"),
            };
            by_port[slot].push(seq);
        }
        let ones: Vec<u32> = (1..=sent).filter(|s| s % 3 == 0).collect();
        by_port[0].sort_unstable();
        assert_eq!(
            by_port[0].len(),
            ones.len(),
            "{workers:?}: port 1 packets lost around the edits"
        );
        assert_eq!(by_port[0], ones, "{workers:?}");
        // Port 2: captured from some packet on (the add) up to some packet (the
        // del), every one in between.
        by_port[1].sort_unstable();
        let twos = &by_port[1];
        assert!(
            twos.len() > 10,
            "{workers:?}: {} port 2 packets",
            twos.len()
        );
        let (first, last) = (twos[0], twos[twos.len() - 1]);
        let between: Vec<u32> = (first..=last).filter(|s| s % 3 == 2).collect();
        assert_eq!(*twos, between, "{workers:?}: a gap in port 2's packets");
        assert!(
            first > 2 && last + 3 <= sent,
            "{workers:?}: {first}..{last} of {sent}"
        );
        eprintln!(
            "{workers:?} {place}: {sent} sent, {} of port 1, {} of port 2 ({first}..{last})",
            by_port[0].len(),
            twos.len()
        );
    }
}

/// Sends half of `received` from vb's peer, then `sent` from vb itself, then the
/// other half of `received`.
fn send_both_ways(pair: &VethPair, received: &[Vec<u8>], sent: Vec<Vec<u8>>) {
    let (first, second) = received.split_at(received.len() / 2);
    pair.send(Side::A, first);
    pair.send(Side::B, &sent);
    pair.send(Side::A, second);
}

#[test]
fn direction_picks_sent_or_received_packets() {
    require!(Need::Netns);
    let dir = tempfile::tempdir().unwrap();
    let pair = VethPair::new();
    // On vb: 150 frames sent from vb (source port 1), 100 received from va (port 2).
    let out_frames: Vec<Vec<u8>> = (0..150u32).map(|i| numbered_udp_from(i, 1)).collect();
    let in_frames: Vec<Vec<u8>> = (0..100u32).map(|i| numbered_udp_from(i, 2)).collect();
    let mut runs = Vec::new();
    for (q, n) in [("out", out_frames.len()), ("in", in_frames.len())] {
        let out = dir.path().join(format!("{q}.pcap"));
        let count = n.to_string();
        let child = Live::new(env!("CARGO_BIN_EXE_netsift"))
            .in_ns(&pair.b)
            .args([
                "-i",
                &pair.veth_b,
                "-Q",
                q,
                "--immediate-mode",
                "-c",
                &count,
                "-w",
                out.to_str().unwrap(),
                "udp",
            ])
            .start();
        runs.push((q, n, out, child));
    }
    // Received, sent, received: a run that ignored -Q would take the wrong first.
    send_both_ways(&pair, &in_frames, out_frames);
    for (q, n, out, child) in runs {
        let status = child.wait(Duration::from_secs(10)).status;
        assert!(status.success(), "-Q {q}: netsift exited {status}");
        let got = packets(&out);
        assert_eq!(got.len(), n, "-Q {q}");
        let port = if q == "out" { 1 } else { 2 };
        assert!(
            got.iter()
                .all(|(f, _)| u16::from_be_bytes([f[34], f[35]]) == port),
            "-Q {q} took a packet of the other direction"
        );
    }
}

/// `inbound`, `outbound` and `ifindex` on an Ethernet interface test what the
/// socket says of each packet, as libpcap's kernel filter does (its ancillary
/// loads): netsift compiles the filter once for each direction and picks the
/// program packet by packet, one worker or two; the kernel program reads the
/// socket buffer's packet type; at the XDP hook, where every frame was received,
/// they are constants. (tcpdump is no oracle here: libpcap
/// also filters the blocks already in its ring in user space, where those loads
/// fail, so it drops its first second of such packets.)
#[test]
fn direction_primitives_test_what_the_socket_says() {
    require!(Need::Netns);
    let dir = tempfile::tempdir().unwrap();
    let pair = VethPair::new();
    let index = pair.ifindex(Side::B).to_string();
    // On vb: 150 frames sent from vb (source port 1), 100 received from va (port 2).
    let out_frames: Vec<Vec<u8>> = (0..150u32).map(|i| numbered_udp_from(i, 1)).collect();
    let in_frames: Vec<Vec<u8>> = (0..100u32).map(|i| numbered_udp_from(i, 2)).collect();
    let cases: Vec<(Vec<String>, String, &[u16])> = vec![
        (vec![], "inbound".into(), &[2]),
        (vec![], "udp and outbound".into(), &[1]),
        (vec![], "not inbound".into(), &[1]),
        (
            vec![],
            "udp src port 1 and inbound or udp src port 2 and outbound".into(),
            &[],
        ),
        (vec![], "inbound or udp src port 1".into(), &[1, 2]),
        (vec![], format!("udp and ifindex {index}"), &[1, 2]),
        (
            vec!["--workers".into(), "2".into()],
            "outbound".into(),
            &[1],
        ),
        // The kernel program reads the socket buffer's packet type, and decides.
        (
            vec!["--place".into(), "kernel".into()],
            "udp and inbound".into(),
            &[2],
        ),
        (
            vec!["--place".into(), "kernel".into()],
            "outbound and udp src port 1".into(),
            &[1],
        ),
        // At the XDP hook every frame was received on the interface.
        (
            vec!["--place".into(), "xdp".into()],
            format!("inbound and ifindex {index}"),
            &[2],
        ),
    ];
    let mut runs = Vec::new();
    for (k, (extra, expr, ports)) in cases.iter().enumerate() {
        let n = out_frames.len() * usize::from(ports.contains(&1))
            + in_frames.len() * usize::from(ports.contains(&2));
        let out = dir.path().join(format!("{k}.pcap"));
        let mut args: Vec<&str> = vec!["-i", &pair.veth_b, "--immediate-mode"];
        args.extend(extra.iter().map(String::as_str));
        args.extend(["-w", out.to_str().unwrap(), expr.as_str()]);
        let run = Live::new(env!("CARGO_BIN_EXE_netsift"))
            .in_ns(&pair.b)
            .args(args)
            .start();
        let said = run.said().to_vec();
        runs.push((expr, ports, n, out, run, said));
    }
    send_both_ways(&pair, &in_frames, out_frames);
    std::thread::sleep(Duration::from_millis(300));
    for (expr, ports, n, out, run, said) in runs {
        let status = run.wait(Duration::from_millis(10)).status;
        assert!(
            status.success(),
            "{expr}: netsift exited {status}: {said:?}"
        );
        if said.iter().any(|l| l.contains("filtering in the kernel")) {
            assert!(
                said.iter().any(|l| l.contains("decides every frame")),
                "{expr}: {said:?}"
            );
        }
        let got = packets(&out);
        let udp: Vec<u16> = got
            .iter()
            .filter(|(f, _)| f.len() > 35 && f[12..14] == [8, 0] && f[23] == 17)
            .map(|(f, _)| u16::from_be_bytes([f[34], f[35]]))
            .filter(|p| *p == 1 || *p == 2)
            .collect();
        assert_eq!(udp.len(), n, "{expr}: {said:?}");
        assert!(
            udp.iter().all(|p| ports.contains(p)),
            "{expr} took a packet of the other direction"
        );
    }
    // The follower compiles its base filter as for a dead handle: refused.
    let out = exec(&pair.b, env!("CARGO_BIN_EXE_netsift"))
        .args(["-i", &pair.veth_b, "--follow", "ftp", "-c", "1"])
        .arg(format!("tcp and ifindex {index}"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("--follow"), "{err}");
    // One field tested both ways: libpcap's optimiser rejects it, and so does netsift.
    let out = exec(&pair.b, env!("CARGO_BIN_EXE_netsift"))
        .args(["-i", &pair.veth_b, "-c", "1", "inbound and outbound"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("rejects all packets"),
        "{err}"
    );
}

/// Frames for the placement tests: UDP, a third of them tagged (VLAN 12), source
/// ports 0..4 in turn.
fn placement_frames(n: u32) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            numbered(i, (i % 3 == 0).then_some(12), (i % 40) as usize)
                .udp((i % 5) as u16, 1234)
                .build()
        })
        .collect()
}

/// Placement runs: `netsift -i` with `args` and each of `exprs` on one veth
/// pair, the frames sent from the other end (once for all the runs when
/// `together`, once for each when a run takes the interface for itself, as an
/// XDP program does). Each must write exactly what tcpdump's filter keeps of the
/// frames. Returns, for each expression, the finished run and how many frames
/// tcpdump kept.
fn placed_runs(
    dir: &Path,
    args: &[&str],
    frames: &[Vec<u8>],
    exprs: &[&str],
    together: bool,
) -> Vec<(Finished, usize)> {
    let sent = dir.join("sent.pcap");
    pcap::write(&sent, frames);
    let pair = VethPair::new();
    let start = |k: usize, expr: &str| {
        netsift(&pair, Side::A, args)
            .write_to(&dir.join(format!("out{k}.pcap")))
            .filter(expr)
            .start()
    };
    let finish = |run: Running| {
        std::thread::sleep(Duration::from_millis(300));
        run.wait(Duration::from_millis(1))
    };
    let done: Vec<Finished> = if together {
        let runs: Vec<Running> = exprs.iter().enumerate().map(|(k, e)| start(k, e)).collect();
        pair.send(Side::B, frames);
        runs.into_iter().map(finish).collect()
    } else {
        let mut done = Vec::new();
        for (k, e) in exprs.iter().enumerate() {
            let run = start(k, e);
            pair.send(Side::B, frames);
            done.push(finish(run));
        }
        done
    };
    exprs
        .iter()
        .zip(done)
        .map(|(expr, done)| {
            let want = tcpdump_keeps(&sent, expr, dir);
            let said = done.said.join("\n");
            assert!(done.status.success(), "{expr:?}: {said}\n{}", done.stderr);
            assert_eq!(done.packets(), want, "{expr:?}: {said}\n{}", done.stderr);
            (done, want.len())
        })
        .collect()
}

/// tcpdump's "N packets received by filter".
fn received_by_filter(expr: &str, rest: &str) -> usize {
    rest.lines()
        .find_map(|l| l.strip_suffix(" packets received by filter"))
        .and_then(|n| n.trim().parse::<usize>().ok())
        .unwrap_or_else(|| panic!("{expr:?}: no statistics in {rest}"))
}

#[test]
fn kernel_placement_drops_early_and_writes_what_user_space_writes() {
    require!(Need::Netns);
    let dir = tempfile::tempdir().unwrap();
    // The kernel takes a tag out before a socket filter runs, and the program
    // reads it from beside the packet.
    let frames = placement_frames(900);
    // Filters the kernel's program decides whole: ports (compares at the IPv4
    // payload anchor), the tag, and a payload word read through the tag.
    let exprs = [
        "udp src port 2 and not vlan",
        "vlan 12 and udp src port 3",
        "vlan and udp[8:2] < 300",
    ];
    let args = ["-B", "65536", "--immediate-mode", "--place", "kernel"];
    for (expr, (done, written)) in
        exprs
            .iter()
            .zip(placed_runs(dir.path(), &args, &frames, &exprs, true))
    {
        let (said, rest) = (done.said.join("\n"), &done.stderr);
        assert!(said.contains("decides every frame"), "{expr}: {said}");
        // Only what the kernel accepted reached the ring: exactly what is written,
        // tagged frames too (user space did not filter them again).
        let received = received_by_filter(expr, rest);
        assert!(
            written == received && received < frames.len(),
            "{expr}: {written} written, {received} of {} reached the ring: {rest}",
            frames.len()
        );
        eprintln!(
            "{expr}: {written} written, {received} of {} reached the ring",
            frames.len()
        );
    }
}

/// `--place xdp`: the filter runs as an XDP program on the receiving veth, copies
/// what it accepts into a ring buffer and passes every frame on; netsift writes
/// exactly what tcpdump's filter keeps of the frames sent, tagged ones included
/// (nothing has taken their tags out at the XDP hook), and the program saw every
/// frame.
#[test]
fn xdp_level_captures_what_the_filter_accepts() {
    require!(Need::Netns);
    let dir = tempfile::tempdir().unwrap();
    let frames = placement_frames(600);
    // Not an empty filter: the stack of a new interface may send frames of its own.
    let exprs = [
        "udp src port 2 and not vlan",
        "vlan 12 and udp src port 3",
        "udp or (vlan and udp)",
    ];
    // One XDP program an interface: the runs take turns.
    let runs = placed_runs(dir.path(), &["--place", "xdp"], &frames, &exprs, false);
    for (expr, (done, written)) in exprs.iter().zip(runs) {
        let (said, rest) = (done.said.join("\n"), &done.stderr);
        assert!(
            said.contains("capturing at the XDP hook"),
            "{expr:?}: {said}"
        );
        // The program saw at least every frame sent (the stack may add its own,
        // such as IPv6 router solicitations, which the filters reject).
        let seen = received_by_filter(expr, rest);
        assert!(seen >= frames.len(), "{expr:?}: {seen} seen: {rest}");
        eprintln!("{expr:?}: {written} written, {seen} frames seen");
    }
}

/// `param N +V` / `param N -V` on `--control`: Swift's `add_param`/`del_param`
/// on a running capture, in user space and with the clauses in the kernel too
/// (there one map write each): a value added is captured from some packet on,
/// every packet after it until it is removed, and never a packet of a value
/// never added.
#[test]
fn control_param_adds_and_removes_a_value_in_place() {
    require!(Need::Netns);
    use std::sync::atomic::Ordering;
    for place in ["user", "kernel"] {
        let dir = tempfile::tempdir().unwrap();
        let pair = VethPair::new();
        let out = dir.path().join("out.pcap");
        let sock = dir.path().join("ctl.sock");
        let args = [
            "-i",
            &pair.veth_a,
            "-B",
            "65536",
            "--immediate-mode",
            "-w",
            out.to_str().unwrap(),
            "--control",
            sock.to_str().unwrap(),
            "--place",
            place,
            "udp port 1",
        ];
        let run = Live::new(env!("CARGO_BIN_EXE_netsift"))
            .in_ns(&pair.a)
            .args(args)
            .start();
        let mut ctl = std::os::unix::net::UnixStream::connect(&sock).expect("control socket");
        let (stop, sender) = three_flows(&pair);
        let pause = || std::thread::sleep(Duration::from_millis(150));
        pause();
        assert_eq!(control(&mut ctl, "param 0 +2"), "ok");
        assert_eq!(
            control(&mut ctl, "list"),
            "ok",
            "list ends with ok after its lines"
        );
        pause();
        assert_eq!(control(&mut ctl, "param 0 -2"), "ok");
        let bad = control(&mut ctl, "param 0 +10.0.0.1");
        assert!(
            bad.starts_with("error: the clause has no operand set"),
            "{bad}"
        );
        let bad = control(&mut ctl, "param 5 +2");
        assert!(bad.starts_with("error: no clause 5"), "{bad}");
        let bad = control(&mut ctl, "param 0 2");
        assert!(bad.starts_with("error: param needs"), "{bad}");
        pause();
        stop.store(true, Ordering::Relaxed);
        let sent = sender.join().unwrap();
        std::thread::sleep(Duration::from_millis(200));
        drop(ctl);
        let status = run.wait(Duration::from_millis(10)).status;
        assert!(status.success(), "{place}: netsift exited {status}");
        let mut by_port: [Vec<u32>; 2] = Default::default();
        for (f, _) in packets(&out) {
            let port = u16::from_be_bytes([f[34], f[35]]);
            let seq = u32::from_be_bytes(f[42..46].try_into().unwrap());
            match port {
                1 => by_port[0].push(seq),
                2 => by_port[1].push(seq),
                p => panic!("{place}: packet {seq} of port {p} leaked"),
            }
        }
        let ones: Vec<u32> = (1..=sent).filter(|s| s % 3 == 0).collect();
        by_port[0].sort_unstable();
        assert_eq!(
            by_port[0], ones,
            "{place}: port 1 packets lost around the edits"
        );
        by_port[1].sort_unstable();
        let twos = &by_port[1];
        assert!(twos.len() > 10, "{place}: {} port 2 packets", twos.len());
        let (first, last) = (twos[0], twos[twos.len() - 1]);
        let between: Vec<u32> = (first..=last).filter(|s| s % 3 == 2).collect();
        assert_eq!(*twos, between, "{place}: a gap in port 2's packets");
        assert!(
            first > 2 && last + 3 <= sent,
            "{place}: {first}..{last} of {sent}"
        );
        eprintln!("{place}: {sent} sent, port 2 from {first} to {last}");
    }
}
