//! `-T TYPE`: every UDP payload (and TCP payload, for `resp` and `domain`) read
//! as TYPE whatever its ports, as tcpdump 4.99.3's `udp_print` and `tcp_print`
//! read it: no checksum verdict, `-q` does not stop it, and a type with no
//! printer on that transport prints nothing after the header. Each type netsift
//! forces runs over corpus captures of other protocols (hostile input for its
//! printer) and of its own, compared with tcpdump line for line.

mod common;

use common::{corpus, corpus_found, run};
use netsift_testkit::{require, Need};

/// Captures of many UDP and TCP protocols.
const CAPTURES: &[&str] = &[
    "dns_udp.pcap",
    "dns_tcp.pcap",
    "vxlan.pcap",
    "snmp-heapoverflow-1.pcap",
    "tftp.pcap",
    "radius-rfc4675.pcap",
    "ptp.pcap",
    "someip1.pcap",
    "resp_1_benchmark.pcap",
    "ntp.pcap",
    "syslog-v.pcapng",
    "dhcpv6-ia-na.pcap",
    "isakmp4500.pcap",
    "rip_error_ripv1.pcap",
    "l2tp-avp-overflow.pcap",
];

/// Each type with captures of its own protocol (or where tcpdump reads it
/// instead of another: CARP is VRRP's protocol number).
const NATURAL: &[(&str, &[&str])] = &[
    ("zmtp1", &["zmtp1.pcap", "zmtp1-inf-loop-1.pcapng"]),
    (
        "pgm_zmtp1",
        &["pgm_zmtp1.pcap", "epgm_zmtp1.pcap", "pgm_opts_asan.pcap"],
    ),
    ("rtp", &["rtp-seg-fault-1.pcapng", "rtp-seg-fault-2.pcapng"]),
    (
        "rtcp",
        &["rtp-seg-fault-1.pcapng", "rtp-seg-fault-2.pcapng"],
    ),
    ("vat", &["rtp-seg-fault-1.pcapng", "rtp-seg-fault-2.pcapng"]),
    ("carp", &["vrrp.pcap", "vrrp-vrrp_print-oobr.pcap"]),
    (
        "cnfp",
        &["sflow_expanded.pcap", "udp-length-heapoverflow.pcap"],
    ),
    (
        "lmp",
        &[
            "lmp.pcap",
            "lmpv1_busyloop.pcap",
            "lmp-lmp_print_data_link_subobjs-oobr.pcap",
            "epgm_zmtp1.pcap",
        ],
    ),
];

/// Type and capture pairs whose printer, fed that capture's payloads, still
/// prints otherwise than tcpdump: DNS's question count loop on an ISAKMP
/// payload (one comma more), PTP's flags and truncation points on NTP and
/// cut L2TP payloads, the whiteboard's draw operations on cut L2TP payloads,
/// and a two-byte inner Ethernet frame after VXLAN (tcpdump dumps it).
const KNOWN: &[(&str, &str)] = &[
    ("domain", "isakmp4500.pcap"),
    ("ptp", "ntp.pcap"),
    ("ptp", "l2tp-avp-overflow.pcap"),
    ("wb", "l2tp-avp-overflow.pcap"),
    ("vxlan", "ptp.pcap"),
];

#[test]
fn forced_packet_types_print_as_tcpdump_prints_them() {
    let corpus = corpus();
    require!(Need::Command("tcpdump"), corpus_found(&corpus));
    let dir = corpus.unwrap().join("pcaps/tcpdump");
    let netsift = env!("CARGO_BIN_EXE_netsift");
    let (mut compared, mut lines) = (0, 0);
    let mut differ = Vec::new();
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for &(t, _) in netsift_print::PacketType::ALL {
        pairs.extend(CAPTURES.iter().map(|name| (t, *name)));
    }
    for &(t, names) in NATURAL {
        pairs.extend(names.iter().map(|name| (t, *name)));
    }
    for (t, name) in pairs {
        if KNOWN.contains(&(t, name)) {
            continue;
        }
        let path = dir.join(name);
        let path = path.to_str().unwrap();
        for flags in [
            &["-nn"][..],
            &["-nn", "-v"],
            &["-nn", "-vv"],
            &["-nn", "-q"],
        ] {
            let args: Vec<&str> = flags.iter().copied().chain(["-T", t, "-r", path]).collect();
            let theirs = String::from_utf8_lossy(&run("tcpdump", &args).stdout).into_owned();
            let ours = String::from_utf8_lossy(&run(netsift, &args).stdout).into_owned();
            compared += 1;
            lines += theirs.lines().count();
            if ours != theirs {
                differ.push(format!("-T {t} {flags:?} {name}"));
            }
        }
    }
    eprintln!(
        "-T: {compared} runs ({lines} tcpdump lines) equal but {}, {} pairs left out",
        differ.len(),
        KNOWN.len()
    );
    assert!(
        differ.is_empty(),
        "netsift differs from tcpdump: {differ:#?}"
    );
}

/// The captures of the forced types that tcpdump also decodes by port or
/// protocol (PGM, and ZMTP's TCP handshakes) print the same without `-T`.
#[test]
fn forced_types_captures_print_as_tcpdump_without_t() {
    let corpus = corpus();
    require!(Need::Command("tcpdump"), corpus_found(&corpus));
    let dir = corpus.unwrap().join("pcaps/tcpdump");
    let netsift = env!("CARGO_BIN_EXE_netsift");
    let mut differ = Vec::new();
    let names = NATURAL.iter().flat_map(|(_, n)| n.iter());
    for name in names {
        let path = dir.join(name);
        let path = path.to_str().unwrap();
        for flags in [&["-nn"][..], &["-nn", "-v"], &["-nn", "-vv"]] {
            let args: Vec<&str> = flags.iter().copied().chain(["-r", path]).collect();
            let theirs = run("tcpdump", &args).stdout;
            if theirs.is_empty() || run(netsift, &args).stdout != theirs {
                differ.push(format!("{flags:?} {name}"));
            }
        }
    }
    assert!(
        differ.is_empty(),
        "netsift differs from tcpdump: {differ:#?}"
    );
}

/// Without a forced type, VXLAN's port decides; with `-T vxlan` every UDP
/// payload is read as VXLAN and gets no checksum verdict, as in tcpdump.
#[test]
fn a_forced_type_decides_the_whole_udp_payload() {
    let corpus = corpus();
    require!(Need::Command("tcpdump"), corpus_found(&corpus));
    let path = corpus.unwrap().join("pcaps/tcpdump/dns_udp.pcap");
    let path = path.to_str().unwrap();
    let netsift = env!("CARGO_BIN_EXE_netsift");
    let out = |args: &[&str]| String::from_utf8_lossy(&run(netsift, args).stdout).into_owned();
    let plain = out(&["-nn", "-vv", "-r", path]);
    let forced = out(&["-nn", "-vv", "-T", "vxlan", "-r", path]);
    assert!(
        plain.contains("[udp sum ok]") && !plain.contains("VXLAN"),
        "{plain}"
    );
    assert!(
        forced.contains("VXLAN") && !forced.contains("udp sum"),
        "{forced}"
    );
    // A TCP type on UDP: nothing after the IP layer's `IP `.
    let resp = out(&["-nn", "-T", "resp", "-r", path]);
    assert!(resp.lines().all(|l| l.ends_with(" IP ")), "{resp}");
}
