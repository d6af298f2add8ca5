//! `geneve`: libpcap's gen_geneve and what it does to the primitives after it.

use netsift_pcapc::compile;
use netsift_wire::LinkType;

fn listing(expr: &str, lt: LinkType) -> String {
    match compile(expr, lt) {
        Ok(set) => set.to_string(),
        Err(e) => panic!("{expr}: {e}"),
    }
}

#[test]
fn compiles_on_every_link_type() {
    for lt in [
        LinkType::EN10MB,
        LinkType::RAW,
        LinkType::IPV4,
        LinkType::IPV6,
        LinkType::NULL,
        LinkType::LOOP,
        LinkType::LINUX_SLL,
        LinkType::LINUX_SLL2,
    ] {
        for (e, rule) in [
            ("geneve", "anchors:"),
            ("geneve 11 and tcp", "geneve-linkpayload"),
            ("geneve and ether host 00:11:22:33:44:55", "geneve-payload"),
            ("geneve or ip", "geneve-linktype"),
            (
                "vlan and geneve and geneve 7 and udp port 53",
                "geneve-linkpayload",
            ),
        ] {
            if lt != LinkType::EN10MB && e.starts_with("vlan") {
                continue;
            }
            let l = listing(e, lt);
            assert!(l.contains(rule), "{lt} {e}:\n{l}");
        }
    }
}

#[test]
fn outer_header_length_follows_the_link_type_test() {
    // Ethernet: the Ethertype just before the IP header picks IHL or 40.
    assert!(listing("geneve", LinkType::EN10MB).contains("ip-payload-by-type(@0 + 14)"));
    assert!(listing("vlan and geneve", LinkType::EN10MB).contains("ip-payload-by-type(@0 + 18)"));
    // BSD loopback: the address family before it.
    assert!(listing("geneve", LinkType::NULL).contains("ip-payload-by-af(@0 + 4)"));
    // Raw IP: the version nibble, which is what libpcap tests there.
    assert!(listing("geneve", LinkType::RAW).contains("ip-payload-by-version(@0 + 0)"));
    // A single IP version: fixed.
    assert!(listing("geneve", LinkType::IPV6).contains("const(@0 + 40)"));
}

#[test]
fn the_ethernet_header_check_after_geneve() {
    // gen_prevlinkhdr_check: the Geneve protocol type must be TEB before a MAC test.
    let l = listing("geneve and ether broadcast", LinkType::EN10MB);
    assert!(l.contains("in {0x6558}"), "{l}");
    let l = listing("geneve and ip", LinkType::EN10MB);
    assert!(!l.contains("in {0x6558}"), "{l}");
}

#[test]
fn refusals() {
    let e = compile("geneve and ip protochain 6", LinkType::EN10MB).unwrap_err();
    assert!(e.to_string().contains("variable length headers"), "{e}");
    let e = compile("geneve 16777216", LinkType::EN10MB).unwrap_err();
    assert!(
        e.to_string().contains("greater than maximum 16777215"),
        "{e}"
    );
}

#[test]
fn unoptimized_filters_are_not_refused_as_rejecting_all() {
    // libpcap does not optimize a filter with geneve or protochain, so it never
    // reports "expression rejects all packets" for one.
    compile("geneve and ip and arp", LinkType::EN10MB).unwrap();
    compile("ip protochain 6 and ip6", LinkType::EN10MB).unwrap();
}
