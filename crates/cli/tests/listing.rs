//! `netsift -d`: a listing a tcpdump user can read. Values compared with a
//! field the listing knows are written as tcpdump writes them (dotted quads,
//! IPv6 groups, decimal ports and VLAN IDs, EtherTypes and protocols by name),
//! every anchor is defined once, and `--place kernel -d` lists the eBPF
//! program in bpftool's notation with no instruction left raw.

mod common;

use common::run;

/// `netsift args`'s standard output; it must succeed.
fn listing(args: &[&str]) -> String {
    let o = run(env!("CARGO_BIN_EXE_netsift"), args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// The listing's instruction lines (`  N: ...`).
fn insns(l: &str) -> Vec<&str> {
    l.lines()
        .filter_map(|x| x.trim_start().split_once(": ").map(|(_, i)| i))
        .collect()
}

#[test]
fn addresses_ports_and_protocols_read_as_tcpdump_writes_them() {
    let l = listing(&["-d", "host 10.1.2.3 and port 80"]);
    for want in [
        "eq [12:2] in {IPv4 (0x0800)}",
        "& 255.255.255.255 in {10.1.2.3}",
        "tcp (6)",
        "udp (17)",
        "in {80}",
    ] {
        assert!(l.contains(want), "no {want:?} in\n{l}");
    }
    // The address is nowhere in hexadecimal.
    assert!(!l.contains("0xa010203"), "{l}");

    let l = listing(&[
        "-d",
        "vlan 1213 and src net 10.172.0.0/16 and udp dst port 53",
    ]);
    for want in [
        "802.1Q (0x8100)",
        "& 0xfff in {1213}",
        "eq [16:2] in {IPv4 (0x0800)}",
        "meq [30:4] & 255.255.0.0 in {10.172.0.0}",
        "in {53}",
    ] {
        assert!(l.contains(want), "no {want:?} in\n{l}");
    }

    let l = listing(&["-d", "ip6 dst host fe80::1 and tcp"]);
    for want in ["{IPv6 (0x86dd)}", "in {fe80:0}", "in {0:1}", "{tcp (6)}"] {
        assert!(l.contains(want), "no {want:?} in\n{l}");
    }

    // In an IPv6 pass [26:4] is an address word, not an IPv4 address.
    assert!(!l.contains("0.0.0."), "{l}");

    // Masks over addresses; ARP's addresses.
    let l = listing(&["-d", "ip6 net fe80::/10 or arp host 10.1.2.3"]);
    for want in [
        "& ffc0:0 in {fe80:0}",
        "eq2 [28:4] or [+10] & 255.255.255.255 in {10.1.2.3}",
    ] {
        assert!(l.contains(want), "no {want:?} in\n{l}");
    }

    // A value without a name keeps its number, a field the listing does not
    // know its hexadecimal value.
    let l = listing(&["-d", "ether proto 0x1234 or ether src 0:1:2:3:4:5"]);
    assert!(l.contains("eq [12:2] in {0x1234}"), "{l}");
    assert!(l.contains("eq [8:4] in {0x2030405}"), "{l}");
}

#[test]
fn each_anchor_is_listed_once() {
    // `inbound` on a dead handle: libpcap's load of the kernel's ancillary data
    // at 0xfffff004, past what an anchor's 16-bit step reaches in one.
    let l = listing(&["-y", "EN10MB", "-d", "inbound"]);
    let anchors: Vec<&str> = l
        .lines()
        .skip_while(|x| *x != "anchors:")
        .skip(1)
        .take_while(|x| x.starts_with("  @"))
        .collect();
    assert_eq!(
        anchors,
        ["  @1..@16 = const(@previous + 65535): @16 = @0 + 1048560"],
        "{l}"
    );
    assert!(l.contains("not eq [@16+0:2] in {0x4}"), "{l}");
    // Every anchor named in a listing of several is defined on one line only.
    for expr in [
        "vlan and tcp port 22 or udp port 53",
        "ifindex 3 or port 80",
    ] {
        let l = listing(&["-y", "EN10MB", "-d", expr]);
        let mut defined = Vec::new();
        for line in l.lines().filter(|x| x.starts_with("  @")) {
            let (lhs, _) = line.trim().split_once(" = ").unwrap();
            let range = match lhs.split_once("..") {
                Some((a, b)) => a[1..].parse::<u32>().unwrap()..=b[1..].parse().unwrap(),
                None => {
                    let k = lhs[1..].parse::<u32>().unwrap();
                    k..=k
                }
            };
            for k in range {
                assert!(!defined.contains(&k), "@{k} twice in\n{l}");
                defined.push(k);
            }
        }
        assert!(!defined.is_empty(), "{expr}: {l}");
    }
}

#[test]
fn the_kernel_listing_is_decoded() {
    for expr in [
        "host 10.1.2.3",
        "vlan 12 and udp[8:4] < 500",
        "ip6 and tcp port 22",
        "greater 100 and ip[2:2] - ((ip[0] & 0xf) << 2) > 40",
    ] {
        let l = listing(&["--place", "kernel", "-d", expr]);
        let body = insns(&l);
        assert!(body.len() > 5, "{expr}: {l}");
        for i in &body {
            // A raw instruction was `28 r0 r0 +0 0xc`: an opcode byte first.
            let raw = i
                .split(' ')
                .next()
                .is_some_and(|w| w.len() == 2 && w.chars().all(|c| c.is_ascii_hexdigit()));
            assert!(
                !raw && !i.starts_with("(code"),
                "{expr}: {i:?} undecoded in\n{l}"
            );
        }
        assert!(l.contains("skb["), "{expr}: no packet load in\n{l}");
    }
    let l = listing(&["--place", "kernel", "-d", "host 10.1.2.3"]);
    assert!(l.contains("r0 = *(u16 *)skb[12]"), "{l}");
    assert!(l.contains("r0 = *(u32 *)skb[26]"), "{l}");
}
