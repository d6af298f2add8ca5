//! `summarize` and `Summarizer` on hand-made packets, against the lines tcpdump
//! 4.99.3 prints for the same bytes (recorded with `tcpdump -n [-e|-S] -r`).

mod common;

use common::build::*;
use netsift_print::{summarize, Summarizer, SummaryOptions};
use netsift_wire::LinkType;

const A: [u8; 4] = [10, 0, 0, 1];
const B: [u8; 4] = [10, 0, 0, 2];

fn one(lt: LinkType, p: &[u8]) -> String {
    summarize(lt, p, p.len() as u32)
}

fn with(opts: SummaryOptions, lt: LinkType, p: &[u8]) -> String {
    Summarizer::with_options(opts).summarize(lt, p, p.len() as u32)
}

fn link_header() -> SummaryOptions {
    SummaryOptions {
        link_header: true,
        ..SummaryOptions::default()
    }
}

fn echo4() -> Vec<u8> {
    ipv4_between(1, A, B, &icmp_echo_request())
}

const ECHO: &str = "IP 10.0.0.1 > 10.0.0.2: ICMP echo request, id 1, seq 1, length 64";

#[test]
fn vlan_tags_are_silent_without_link_header() {
    let p = vlan(0x8100, 10, 0x0800, &echo4());
    assert_eq!(one(LinkType::EN10MB, &p), ECHO);
    assert_eq!(
        with(link_header(), LinkType::EN10MB, &p),
        "66:77:88:99:aa:bb > 00:11:22:33:44:55, ethertype 802.1Q (0x8100), length 102: \
         vlan 10, p 0, ethertype IPv4 (0x0800), 10.0.0.1 > 10.0.0.2: ICMP echo request, id 1, seq 1, length 64"
    );
    // QinQ-style stacking, with a priority.
    let inner = [&[0x00, 30, 0x08, 0x00][..], &echo4()].concat();
    let p = vlan(0x8100, 0xa000 | 20, 0x8100, &inner);
    assert_eq!(one(LinkType::EN10MB, &p), ECHO);
    assert_eq!(
        with(link_header(), LinkType::EN10MB, &p),
        "66:77:88:99:aa:bb > 00:11:22:33:44:55, ethertype 802.1Q (0x8100), length 106: \
         vlan 20, p 5, ethertype 802.1Q (0x8100), vlan 30, p 0, ethertype IPv4 (0x0800), \
         10.0.0.1 > 10.0.0.2: ICMP echo request, id 1, seq 1, length 64"
    );
}

#[test]
fn unknown_ethertype() {
    let p = eth(0x88b5, &[1, 2, 3, 4].repeat(10));
    assert_eq!(
        one(LinkType::EN10MB, &p),
        "66:77:88:99:aa:bb > 00:11:22:33:44:55, ethertype Unknown (0x88b5), length 54: "
    );
}

#[test]
fn tcp_relative_and_absolute_sequence_numbers() {
    let pkts = [
        ipv4_between(
            6,
            A,
            B,
            &tcp_seg(52422, 80, 1000, 0, 0x02, &[2, 4, 5, 0xb4], b""),
        ),
        ipv4_between(6, B, A, &tcp_seg(80, 52422, 5000, 1001, 0x12, &[], b"")),
        ipv4_between(6, A, B, &tcp_seg(52422, 80, 1001, 5001, 0x10, &[], b"")),
        ipv4_between(
            6,
            A,
            B,
            &tcp_seg(52422, 80, 1001, 5001, 0x18, &[], b"hello"),
        ),
        ipv4_between(6, B, A, &tcp_seg(80, 52422, 5001, 1006, 0x11, &[], b"")),
    ];
    let relative = [
        "IP 10.0.0.1.52422 > 10.0.0.2.80: Flags [S], seq 1000, win 65535, options [mss 1460], length 0",
        "IP 10.0.0.2.80 > 10.0.0.1.52422: Flags [S.], seq 5000, ack 1001, win 65535, length 0",
        "IP 10.0.0.1.52422 > 10.0.0.2.80: Flags [.], ack 1, win 65535, length 0",
        "IP 10.0.0.1.52422 > 10.0.0.2.80: Flags [P.], seq 1:6, ack 1, win 65535, length 5: HTTP",
        "IP 10.0.0.2.80 > 10.0.0.1.52422: Flags [F.], seq 1, ack 6, win 65535, length 0",
    ];
    let mut s = Summarizer::new();
    for (p, want) in pkts.iter().zip(relative) {
        assert_eq!(s.summarize(LinkType::RAW, p, p.len() as u32), want);
    }
    // Stateless: absolute numbers, like tcpdump -S.
    assert_eq!(
        one(LinkType::RAW, &pkts[3]),
        "IP 10.0.0.1.52422 > 10.0.0.2.80: Flags [P.], seq 1001:1006, ack 5001, win 65535, length 5: HTTP"
    );
    // Forgetting the state brings absolute numbers back.
    s.reset();
    assert!(s
        .summarize(LinkType::RAW, &pkts[2], 40)
        .contains("ack 5001"));
}

#[test]
fn truncation_markers() {
    let seg = ipv4_between(
        6,
        A,
        B,
        &tcp_seg(52422, 80, 1001, 5001, 0x18, &[], b"hello"),
    );
    let p = eth(0x0800, &seg[..36]);
    assert_eq!(
        summarize(LinkType::EN10MB, &p, p.len() as u32),
        "IP truncated-ip - 9 bytes missing! 10.0.0.1.52422 > 10.0.0.2.80:  [|tcp]"
    );
    let p = eth(0x0800, &echo4()[..30]);
    assert_eq!(
        one(LinkType::EN10MB, &p),
        "IP truncated-ip - 54 bytes missing! 10.0.0.1 > 10.0.0.2: ICMP echo request, id 1, seq 1, length 64"
    );
    let arp = arp_packet(1, [0, 0x11, 0x22, 0x33, 0x44, 0x55], A, [0; 6], B);
    assert_eq!(one(LinkType::EN10MB, &eth(0x0806, &arp[..20])), " [|arp]");
    assert_eq!(one(LinkType::EN10MB, &eth(0x0800, &[0x45, 0])), "IP  [|ip]");
    assert_eq!(one(LinkType::EN10MB, &[0; 10]), " [|ether]");
    assert_eq!(
        summarize(LinkType::EN10MB, &[], 0),
        "[Invalid header: caplen==0, len==0]"
    );
    assert_eq!(
        summarize(LinkType::EN10MB, &[0; 20], 10),
        "[Invalid header: len(10) < caplen(20)]"
    );
    // An IPv6 header whose hop-by-hop header is not captured.
    let mut v6 = vec![0x60, 0, 0, 0, 0, 0, 0, 64];
    v6.extend_from_slice(&[0; 32]);
    assert_eq!(one(LinkType::RAW, &v6), "IP6 :: > :::  [|hbhopt]");
}

#[test]
fn udp_and_arp() {
    let p = ipv4_between(17, A, B, &udp(1234, 9999, &[b'z'; 12]));
    assert_eq!(
        one(LinkType::IPV4, &p),
        "IP 10.0.0.1.1234 > 10.0.0.2.9999: UDP, length 12"
    );
    let arp = arp_packet(1, [0, 0x11, 0x22, 0x33, 0x44, 0x55], A, [0; 6], B);
    assert_eq!(
        one(LinkType::EN10MB, &eth(0x0806, &arp)),
        "ARP, Request who-has 10.0.0.2 tell 10.0.0.1, length 28"
    );
    let reply = arp_packet(2, [0, 0x11, 0x22, 0x33, 0x44, 0x55], B, [0x66; 6], A);
    assert_eq!(
        one(LinkType::EN10MB, &eth(0x0806, &reply)),
        "ARP, Reply 10.0.0.2 is-at 00:11:22:33:44:55, length 28"
    );
}

#[test]
fn linux_cooked_headers() {
    let mut sll2 = vec![0x08, 0x00, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6];
    sll2.extend_from_slice(&[0, 0x11, 0x22, 0x33, 0x44, 0x55, 0, 0]);
    sll2.extend_from_slice(&echo4());
    assert_eq!(
        one(LinkType::LINUX_SLL2, &sll2),
        "?     In  IP 10.0.0.1 > 10.0.0.2: ICMP echo request, id 1, seq 1, length 64"
    );
    let named = SummaryOptions {
        interface_name: Some(|i| (i == 1).then(|| "lo".to_string())),
        ..SummaryOptions::default()
    };
    assert_eq!(
        with(named, LinkType::LINUX_SLL2, &sll2),
        "lo    In  IP 10.0.0.1 > 10.0.0.2: ICMP echo request, id 1, seq 1, length 64"
    );
    sll2[10] = 4;
    assert!(one(LinkType::LINUX_SLL2, &sll2).starts_with("?     Out IP "));

    let mut sll = vec![
        0, 4, 0, 1, 0, 6, 0, 0x11, 0x22, 0x33, 0x44, 0x55, 0, 0, 0x08, 0x00,
    ];
    sll.extend_from_slice(&echo4());
    assert_eq!(one(LinkType::LINUX_SLL, &sll), ECHO);
    assert_eq!(
        with(link_header(), LinkType::LINUX_SLL, &sll),
        "Out 00:11:22:33:44:55 ethertype IPv4 (0x0800), length 100: \
         10.0.0.1 > 10.0.0.2: ICMP echo request, id 1, seq 1, length 64"
    );
}

#[test]
fn bsd_loopback_in_both_byte_orders() {
    for lt in [LinkType::NULL, LinkType::LOOP] {
        for af in [[2, 0, 0, 0], [0, 0, 0, 2]] {
            let p = [&af[..], &echo4()].concat();
            assert_eq!(one(lt, &p), ECHO, "{lt} {af:?}");
        }
    }
    let p = [&[99, 0, 0, 0][..], &echo4()].concat();
    assert_eq!(one(LinkType::NULL, &p), "AF Unknown (99), length 88: ");
    let p = [&[0, 0, 0, 30][..], &ipv6(59, &[])].concat();
    assert_eq!(
        one(LinkType::NULL, &p),
        "IP6 fe80::1 > ff02::fb: no next header"
    );
}
