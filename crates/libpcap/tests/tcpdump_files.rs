//! Unmodified tcpdump reading and writing capture files prints the same bytes,
//! writes the same files and fails with the same messages whether it loads
//! the real libpcap or the shim; `tcpdump -D` lists the real interfaces as
//! they are, then the netsift ones. And the shim is what it loaded.

mod common;

use common::{assert_same, corpus, plain, same_as_tcpdump, shim_dir, shimmed, shimmed_cmd};
use netsift_testkit::{require, Need};
use std::process::Command;

/// Captures of several link types, pcap and pcapng.
const CAPTURES: &[&str] = &[
    "tcpdump/02-sunrise-sunset-esp.pcap",  // EN10MB
    "tcpdump/dhcp-rfc3004.pcap",           // EN10MB
    "tcpdump/dns-badcookie.pcap",          // NULL
    "tcpdump/RADIUS-RFC3162.pcap",         // LINUX_SLL
    "tcpdump/ieee802.11_exthdr.pcap",      // IEEE802_11_RADIO
    "tcpdump/LINKTYPE_IPV6.pcap",          // IPV6
    "tcpdump/bgp_vpn_attrset.pcap",        // PPP
    "tcpdump/OSPFv2_Capture_FINAL.pcapng", // pcapng
    "tcpdump/dhcp-option-108.pcapng",      // pcapng
    "libpcap/ISIS_p2p_adjacency.pcap",     // C_HDLC
];

/// The option sets each capture is printed with.
const MODES: &[&[&str]] = &[&["-n"], &["-nn", "-v"], &["-e"], &["-x"], &["-n", "-tttt"]];

fn needs() -> bool {
    netsift_testkit::skip::all_met(&[
        Need::Command("tcpdump"),
        Need::File(&corpus().join(CAPTURES[0])),
    ])
}

#[test]
fn printing_captures_is_byte_identical() {
    if !needs() {
        return;
    }
    for c in CAPTURES {
        let path = corpus().join(c);
        let path = path.to_str().unwrap();
        for mode in MODES {
            let mut args: Vec<&str> = mode.to_vec();
            args.extend(["-r", path]);
            same_as_tcpdump(&args);
        }
    }
}

#[test]
fn filtering_captures_is_byte_identical() {
    if !needs() {
        return;
    }
    let cases = [
        ("tcpdump/dhcp-rfc3004.pcap", "udp port 67"),
        ("tcpdump/02-sunrise-sunset-esp.pcap", "ip and not tcp"),
        (
            "tcpdump/OSPFv2_Capture_FINAL.pcapng",
            "proto ospf and len > 100",
        ),
        ("tcpdump/RADIUS-RFC3162.pcap", "udp"),
        ("tcpdump/dns-badcookie.pcap", "port 53"),
    ];
    for (c, f) in cases {
        let path = corpus().join(c);
        let args = ["-n", "-r", path.to_str().unwrap(), f];
        same_as_tcpdump(&args);
    }
}

#[test]
fn written_files_are_byte_identical() {
    if !needs() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (i, c) in CAPTURES.iter().enumerate() {
        let path = corpus().join(c);
        let path = path.to_str().unwrap();
        let (a, b) = (
            dir.path().join(format!("{i}-real.pcap")),
            dir.path().join(format!("{i}-shim.pcap")),
        );
        for filter in [None, Some("ip")] {
            let run = |out: &std::path::Path, shim: bool| {
                let mut args = vec!["-r", path, "-w", out.to_str().unwrap()];
                args.extend(filter);
                if shim {
                    shimmed("tcpdump", &args)
                } else {
                    plain("tcpdump", &args)
                }
            };
            assert_same(&format!("-w of {c}"), &run(&a, false), &run(&b, true));
            let (ra, rb) = (std::fs::read(&a), std::fs::read(&b));
            assert_eq!(ra.is_ok(), rb.is_ok(), "{c}");
            if let (Ok(ra), Ok(rb)) = (ra, rb) {
                assert!(
                    !rb.is_empty() || ra.is_empty(),
                    "{c}: the shim's file is empty"
                );
                assert!(ra == rb, "{c} {filter:?}: the written files differ");
            }
        }
    }
}

#[test]
fn errors_are_identical() {
    if !needs() {
        return;
    }
    let bad = corpus().join("libpcap-bad");
    let good = corpus().join(CAPTURES[0]);
    let good = good.to_str().unwrap();
    let mut cases: Vec<Vec<String>> = vec![
        vec!["-r".into(), "/nonexistent/x.pcap".into()],
        vec!["-r".into(), good.into(), "tcp port".into()],
        vec!["-r".into(), good.into(), "host no.such.host.invalid".into()],
        vec!["-r".into(), good.into(), "-y".into(), "NOSUCHDLT".into()],
        vec!["-i".into(), "nosuchif0".into(), "-c".into(), "1".into()],
        vec![
            "-d".into(),
            "-y".into(),
            "EN10MB".into(),
            "tcp and port 80".into(),
        ],
        vec!["-L".into(), "-i".into(), "nosuchif0".into()],
    ];
    for f in std::fs::read_dir(&bad).into_iter().flatten().flatten() {
        cases.push(vec!["-r".into(), f.path().to_str().unwrap().into()]);
    }
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        same_as_tcpdump(&args);
    }
}

#[test]
fn the_interface_list_is_the_real_one_then_netsifts() {
    if !needs() {
        return;
    }
    let real = plain("tcpdump", &["-D"]);
    let shim = shimmed("tcpdump", &["-D"]);
    assert_eq!(real.status.code(), shim.status.code());
    assert_eq!(real.stderr, shim.stderr);
    let (real, shim) = (
        String::from_utf8(real.stdout).unwrap(),
        String::from_utf8(shim.stdout).unwrap(),
    );
    let n = real.lines().count();
    let head: Vec<&str> = shim.lines().take(n).collect();
    assert_eq!(head, real.lines().collect::<Vec<_>>());
    let extra: Vec<&str> = shim.lines().skip(n).collect();
    assert!(!extra.is_empty(), "no netsift entries:\n{shim}");
    for (i, line) in extra.iter().enumerate() {
        let num = format!("{}.netsift-local:", n + i + 1);
        assert!(line.starts_with(&num), "{line}");
        let iface = line[num.len()..].split(' ').next().unwrap();
        assert!(
            line.contains(&format!("(netsift capture of {iface})")),
            "{line}"
        );
        // Only interfaces that are up.
        assert!(line.contains("[Up"), "{line}");
        let twin = real.lines().find(|l| {
            l.split_once('.')
                .is_some_and(|(_, r)| r.starts_with(&format!("{iface} ")))
        });
        assert!(twin.is_some(), "{iface} is not a real interface");
    }
}

/// The check that the others compared something: with `LD_DEBUG=libs`, the
/// loader says it took libpcap.so.0.8 from the shim's directory, and the real
/// library was loaded too (into its own namespace) and not in its place.
#[test]
fn the_shim_is_what_tcpdump_loads() {
    if !needs() {
        return;
    }
    let path = corpus().join(CAPTURES[0]);
    let out = shimmed_cmd("tcpdump", &["-n", "-r", path.to_str().unwrap()])
        .env("LD_DEBUG", "libs")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    let ours = shim_dir().join("libpcap.so.0.8");
    let init = |p: &str| {
        said.lines()
            .any(|l| l.contains("calling init:") && l.ends_with(p))
    };
    assert!(
        init(ours.to_str().unwrap()),
        "the shim was not loaded:\n{said}"
    );
    assert!(
        init(common::REAL),
        "the real library was not loaded:\n{said}"
    );
    let plain_run = plain("tcpdump", &["-n", "-r", path.to_str().unwrap()]);
    assert!(out.status.success() && plain_run.status.success());
}

/// `netsift-local:` names an interface netsift captures in process: one that
/// does not exist fails with tcpdump's message for a missing device and
/// netsift's reason; `netsift:` with no daemon says where it looked.
#[test]
fn a_missing_netsift_interface_fails_like_a_missing_device() {
    if !needs() {
        return;
    }
    require!(Need::Root);
    let out = shimmed("tcpdump", &["-i", "netsift-local:nosuchif0", "-c", "1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with(
            "tcpdump: netsift-local:nosuchif0: No such device exists\n(netsift: nosuchif0: "
        ),
        "{err}"
    );
    let out = Command::new("tcpdump")
        .args(["-i", "netsift:eth0", "-c", "1"])
        .env("LD_LIBRARY_PATH", shim_dir())
        .env("NETSIFT_SOCKET", "/nonexistent/netsift.sock")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("netsift: eth0: netsiftd at /nonexistent/netsift.sock: "),
        "{err}"
    );
}
