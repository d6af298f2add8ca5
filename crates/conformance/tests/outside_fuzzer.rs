//! The expressions issue 26 quotes from the outside fuzzer's last run, each a
//! distinct minimal filter whose verdicts differed from libpcap's, run against
//! libpcap on every capture of the link types the project filters first: the
//! corpus captures, the generated frames and the same frames cut short. Every
//! packet with a defined libpcap verdict must agree; the packets libpcap has no
//! reproducible verdict on (`NoVerdict`: its scratch-register reuse between a
//! relation and `geneve`, which docs/status.md explains) are counted apart and
//! printed.
//!
//! The issue names ten; the tenth ("one long expression mixing `ether[48] < 11`,
//! `udp[0] == 4294967295` and `geneve`") is not quoted in full, so it is not here.

use netsift_conformance::*;

/// As quoted in issue 26, with the link types it names for each.
const CASES: [&str; 9] = [
    // 928 Ethernet corpus packets accepted where libpcap rejected them.
    "link[46] >= 67 || geneve or tcp[16] <= 012 or greater 60",
    // 37 on Ethernet.
    "icmp6[icmp6type] = icmp6-echo and geneve or !ip6[11] = 443",
    // LINUX_SLL2 and LINUX_SLL.
    "geneve and ether[12:2] = 0x86dd",
    "ip[0] >= 4 and geneve 1 or not host 10.1.2.3 or tcp[0] < 1024 and esp",
    // LINUX_SLL.
    "len <= 60 or geneve or ipx",
    // Cut frames.
    "vlan && host 192.168.1.255 or vlan 4094 or udp port 2049 or not host ff02::d and udp",
    "vlan and tcp port 68 or not pppoed and len < 1514 or len <= 170 and not udp src \
     portrange 68-6081 or 161-80",
    // NULL, big-endian.
    "port 1985 and 53 and ip6[37] < 126 or ip net 10.0.0 || 127",
    "!(!vlan 1000 and src port sunrpc and tcp src portrange 21-23 or ether src host \
     33:33:00:00:00:01 and ether proto 33011 or 0x0)",
];

#[test]
fn the_outside_fuzzers_expressions_agree_with_libpcap() {
    let corpus = require_corpus().map(|d| load_corpus_captures(&d));
    let generated = generated_capture_data();
    let snapped = snapped_capture_data();
    let exprs: Vec<String> = CASES.iter().map(|s| s.to_string()).collect();
    let cmp = Comparison::new(&Netsift);
    let mut total = Report::new("outside fuzzer", "netsift");
    for lt in LinkType::SUPPORTED {
        let caps: Vec<&CaptureData> = corpus
            .iter()
            .flat_map(|c| c.captures(lt))
            .chain(&generated[&lt])
            .chain(&snapped[&lt])
            .collect();
        let mut r = Report::new(&format!("outside fuzzer {lt}"), "netsift");
        cmp.run(lt, &exprs, &caps, &mut r);
        println!("{}", r.summary());
        total.merge(r);
    }
    println!("{}", total.render(30, 10));
    // Each expression ran somewhere: a case every link type refused would
    // compare nothing and pass.
    for e in &exprs {
        assert!(
            total.expr_set.iter().any(|(_, x)| x == e),
            "no link type compiled {e:?}"
        );
    }
    assert!(total.packets > 50_000, "{} verdicts", total.packets);
    assert!(
        total.mismatches == 0 && !total.failed(),
        "{}",
        total.render(30, 10)
    );
}
