//! `netsift -i` on VLAN-tagged traffic selects what `tcpdump -i` selects at the
//! same time on the same interface. Linux takes a received frame's tag out of
//! its data before a socket filter runs, and libpcap's kernel filter reads the
//! frame without it (`vlan` tests the tag the kernel keeps beside it), unlike a
//! capture file's filter: so `host` and `ip` match tagged traffic live. A frame
//! this host tags as it sends it (a VLAN interface; here a traffic control
//! program, since the test machine may have no 8021q module) keeps its tag beside
//! it while the veth's tx-vlan offload is on, and in its data while it is off.

use netsift_kernel::asm::{Asm, R0, R1, R2, R3};
use netsift_kernel::sys::{ProgKind, Program};
use netsift_testkit::frames::Frame;
use netsift_testkit::live::{Finished, Live};
use netsift_testkit::netns::{in_ns, send_frames, Side, VethPair};
use netsift_testkit::{require, Need};
use std::time::Duration;

const HOST: [u8; 4] = [10, 172, 64, 7];
const OTHER: [u8; 4] = [10, 172, 64, 9];
const VID: u16 = 1213;

/// A UDP frame from `src` to 10.0.0.1, tagged `vid` if given, numbered `seq`.
fn frame(seq: u32, vid: Option<u16>, src: [u8; 4]) -> Vec<u8> {
    let f = match vid {
        Some(v) => Frame::default().vlan(v),
        None => Frame::default(),
    };
    f.ipv4(src, [10, 0, 0, 1])
        .udp(4000, 5000)
        .payload(&seq.to_be_bytes())
        .build()
}

/// A traffic control program that tags every frame sent with VLAN [`VID`]
/// (`bpf_skb_vlan_push`, which puts the tag beside the frame, where the veth
/// leaves it with tx-vlan offload on and moves it into the data with it off),
/// linked to interface `ifindex`'s egress for as long as the link lives.
fn tag_sent_frames(ifindex: u32) -> std::os::fd::OwnedFd {
    const SKB_VLAN_PUSH: i32 = 18;
    let mut a = Asm::new();
    // r1 is the socket buffer; the protocol is big-endian.
    a.mov64_imm(R2, i32::from(0x8100u16.to_be()));
    a.mov64_imm(R3, i32::from(VID));
    a.call(SKB_VLAN_PUSH);
    let _ = R1;
    // TCX_NEXT: on to the next program, or the device.
    a.mov64_imm(R0, -1);
    a.exit();
    let p = Program::load(ProgKind::SchedCls, "tag_sent", &a.finish().unwrap()).unwrap();
    p.link_tcx(ifindex, true).unwrap()
}

/// Frames B sends (A receives them, the kernel taking each tag out), and
/// frames A sends through its VLAN interface.
fn traffic() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let mut seq = 0..;
    let mut received = Vec::new();
    for vid in [None, Some(VID), Some(5)] {
        for src in [HOST, OTHER] {
            for _ in 0..4 {
                received.push(frame(seq.next().unwrap(), vid, src));
            }
        }
    }
    let sent = [HOST, OTHER]
        .iter()
        .flat_map(|&src| (0..3).map(move |_| src))
        .map(|src| frame(seq.next().unwrap(), None, src))
        .collect();
    (received, sent)
}

/// Sorted packets of a finished run (each program reads its own socket; the
/// order of frames sent from both ends at once may differ between them).
fn sorted(done: &Finished) -> Vec<(Vec<u8>, u32)> {
    done.assert_success();
    let mut p = done.packets();
    p.sort();
    p
}

fn tagged(p: &(Vec<u8>, u32)) -> bool {
    p.0.get(12..14) == Some(&[0x81, 0x00][..])
}

const HOST_EXPR: &str = "host 10.172.64.7";

/// The filters compared: with and without `vlan`, and reading past the tag
/// (`ether[12:2]`, `less`) as libpcap's kernel filter reads a frame without it.
/// In `vlan 1213 or vlan 5` the second `vlan` is libpcap's second level (its
/// depth is not reset between alternatives), which reads the frame's data.
const EXPRS: [&str; 8] = [
    HOST_EXPR,
    "ip",
    "vlan",
    "vlan 1213",
    "not vlan",
    "vlan and host 10.172.64.7",
    "ether[12:2] = 0x0800 and udp port 5000 and less 48",
    "vlan 1213 or vlan 5",
];

#[test]
fn live_vlan_traffic_is_selected_as_tcpdump_i_selects_it() {
    require!(Need::Netns, Need::Command("tcpdump"));
    let dir = tempfile::tempdir().unwrap();
    let (host, exprs) = (HOST_EXPR, EXPRS);
    let (received, sent) = traffic();
    for offload in [true, false] {
        let pair = VethPair::new();
        pair.set_tx_vlan_offload(Side::A, offload);
        let (ns, dev) = pair.end(Side::A);
        let ifindex = pair.ifindex(Side::A);
        let tagger = in_ns(ns, move || tag_sent_frames(ifindex)).join().unwrap();
        let out = |name: String| dir.path().join(format!("{name}-{offload}.pcap"));
        let mut runs = Vec::new();
        for (k, expr) in exprs.iter().enumerate() {
            let tcpdump = Live::tcpdump()
                .in_ns(ns)
                .on(dev)
                .arg("--immediate-mode")
                .write_to(&out(format!("tcpdump{k}")))
                .filter(expr)
                .start();
            // A static filter, the same expression as the first clause of a
            // live set edited through --control, and as --follow's base filter
            // (no FTP here, so it keeps what the base filter keeps), each
            // placement both ways.
            let ours: Vec<_> = [
                "user",
                "kernel",
                "user --control",
                "kernel --control",
                "user --follow ftp",
                "kernel --follow ftp",
            ]
            .into_iter()
            .map(|how| {
                let mut args = vec!["--immediate-mode", "--place"];
                args.extend(how.split(' '));
                let place = how.split(' ').next().unwrap_or(how);
                let control = dir.path().join(format!("ctl{k}-{place}-{offload}"));
                if how.ends_with("--control") {
                    args.push(control.to_str().unwrap());
                }
                let run = Live::new(env!("CARGO_BIN_EXE_netsift"))
                    .in_ns(ns)
                    .on(dev)
                    .args(args)
                    .write_to(&out(format!("{}{k}", how.replace(' ', ""))))
                    .filter(expr)
                    .start();
                (how, run)
            })
            .collect();
            runs.push((expr, tcpdump, ours));
        }
        // As a file holds them: with the tag in place `host` misses tagged
        // frames (a static filter, and --follow's base filter).
        let as_file: Vec<_> = [&[][..], &["--follow", "ftp"][..]]
            .into_iter()
            .enumerate()
            .map(|(k, more)| {
                let run = Live::new(env!("CARGO_BIN_EXE_netsift"))
                    .in_ns(ns)
                    .on(dev)
                    .args(["--immediate-mode", "--vlan-as-file"])
                    .args(more.iter().copied())
                    .write_to(&out(format!("as-file{k}")))
                    .filter(host)
                    .start();
                (more.join(" "), run)
            })
            .collect();
        pair.send(Side::B, &received);
        let (sent, dev_a) = (sent.clone(), dev.to_string());
        in_ns(ns, move || send_frames(&dev_a, &sent))
            .join()
            .unwrap();
        drop(tagger);
        std::thread::sleep(Duration::from_millis(500));
        let mut host_theirs = Vec::new();
        for (expr, tcpdump, ours) in runs {
            let theirs = sorted(&tcpdump.stop());
            assert!(
                !theirs.is_empty(),
                "{expr} (offload {offload}): tcpdump kept nothing"
            );
            for (place, run) in ours {
                let done = run.stop();
                assert_eq!(
                    sorted(&done),
                    theirs,
                    "{expr} --place {place} (tx-vlan offload {offload}): netsift kept {} \
                     frames, tcpdump {}: {}",
                    done.packets().len(),
                    theirs.len(),
                    done.stderr
                );
            }
            eprintln!(
                "{expr} (tx-vlan offload {offload}): {} frames",
                theirs.len()
            );
            if *expr == host {
                host_theirs = theirs;
            }
        }
        // tcpdump's `host` kept tagged frames, which the file's reading does not.
        assert!(host_theirs.iter().any(tagged), "offload {offload}");
        let untagged: Vec<_> = host_theirs.into_iter().filter(|p| !tagged(p)).collect();
        for (more, run) in as_file {
            assert_eq!(
                sorted(&run.stop()),
                untagged,
                "--vlan-as-file {more} {host}"
            );
        }
    }
}

/// `--place xdp`: at the hook the tag is still in the frame, and a frame whose
/// outermost EtherType is 802.1Q or 802.1ad gets the program that reads it as
/// libpcap's kernel filter will once the kernel has taken the tag out. The
/// XDP hook sees received frames: tcpdump runs with `-Q in`. One XDP program
/// an interface: the filters take turns.
#[test]
fn xdp_level_selects_tagged_frames_as_tcpdump_i_does() {
    require!(Need::Netns, Need::Command("tcpdump"));
    let dir = tempfile::tempdir().unwrap();
    let (received, _) = traffic();
    let pair = VethPair::new();
    let (ns, dev) = pair.end(Side::A);
    for (k, expr) in EXPRS.iter().enumerate() {
        let run = |program: Live, name: &str, args: &[&str]| {
            program
                .in_ns(ns)
                .on(dev)
                .args(args)
                .write_to(&dir.path().join(format!("{name}{k}.pcap")))
                .filter(expr)
                .start()
        };
        let tcpdump = run(
            Live::tcpdump(),
            "tcpdump",
            &["--immediate-mode", "-Q", "in"],
        );
        let ours = run(
            Live::new(env!("CARGO_BIN_EXE_netsift")),
            "xdp",
            &["--place", "xdp"],
        );
        pair.send(Side::B, &received);
        std::thread::sleep(Duration::from_millis(500));
        let theirs = sorted(&tcpdump.stop());
        let done = ours.stop();
        assert!(!theirs.is_empty(), "{expr}: tcpdump kept nothing");
        assert!(done.said_contains("XDP"), "{expr}: {:?}", done.said);
        assert_eq!(sorted(&done), theirs, "{expr} --place xdp: {}", done.stderr);
        eprintln!("{expr} (xdp): {} frames", theirs.len());
    }
}
