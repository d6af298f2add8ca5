//! Where netsift refuses a filter as "expression rejects all packets": exactly where
//! libpcap 1.10.3's optimizer reduces it to `ret #0` (pcapc's `rejects` module), not
//! wherever netsift can prove that no packet matches. Each case records what the
//! installed libpcap does (seen with `tcpdump -y LINKTYPE -d`) and checks it through
//! the oracle, so a different libpcap shows up here rather than as a netsift bug;
//! then netsift must do the same. Where libpcap compiles a filter that no packet can
//! pass, netsift compiles a program that accepts nothing.

use netsift_oracle::Filter;
use netsift_pcapc::compile;
use netsift_pcapc::reject_all;
use netsift_wire::LinkType;

const REFUSED: &str = "expression rejects all packets";

/// `libpcap_refuses`: what libpcap 1.10.3 does with `text` on `lt`.
fn check(lt: LinkType, text: &str, libpcap_refuses: bool) {
    match Filter::compile(lt, text) {
        Err(m) if libpcap_refuses => assert_eq!(m, REFUSED, "libpcap [{lt}] {text}"),
        Ok(_) if !libpcap_refuses => {}
        other => panic!(
            "[{lt}] {text}: the installed libpcap {} (libpcap 1.10.3 {})",
            match other {
                Ok(_) => "compiles it".to_string(),
                Err(m) => format!("refuses it: {m}"),
            },
            if libpcap_refuses {
                "refuses it"
            } else {
                "compiles it"
            }
        ),
    }
    match compile(text, lt) {
        Err(e) if libpcap_refuses => assert_eq!(e.message(), REFUSED, "netsift [{lt}] {text}"),
        Ok(_) if !libpcap_refuses => {}
        Ok(set) => panic!("[{lt}] {text}: libpcap refuses it, netsift compiles\n{set}"),
        Err(e) => panic!("[{lt}] {text}: libpcap compiles it, netsift refuses: {e}"),
    }
}

/// `text`, which libpcap compiles although no packet passes, and which netsift's
/// normal form folds to nothing at all: netsift compiles the one always-false test
/// (no load, so short packets are rejected too, as libpcap's program rejects them).
fn accepts_nothing(lt: LinkType, text: &str) {
    check(lt, text, false);
    let set = compile(text, lt).expect("compiles");
    assert_eq!(set.to_string(), reject_all().to_string(), "[{lt}] {text}");
}

/// The alternatives of an OR lose what they learnt where they meet again: after
/// `(A or B)`, the tests of `vrrp` are reached from IPv6 and IPv4 paths alike, so
/// libpcap cannot decide `ip proto 112` against B's `sctp` (the random test's seed 2
/// found this one). netsift sees it, and accepts nothing either.
#[test]
fn facts_are_lost_where_alternatives_meet() {
    accepts_nothing(
        LinkType::EN10MB,
        "(src and dst net ::/16) or (017 = 65535) or (sctp src portrange 68-0 and not ether src 01:00:5e:7f:ff:fa) && (vrrp)",
    );
    // `ip6 proto 1` is `nh 1 or (nh 44 and fragment nh 1)`: its two ways meet before
    // the host tests, and `not ip6 proto 1` after them is not decided.
    accepts_nothing(
        LinkType::EN10MB,
        "(ip6 proto 1) and (ip6 src or dst host ff05::1:3) && (host 2001:db8::1) && (! ip6 proto 1)",
    );
    // Adjacent, every way out of the first test decides the second one.
    check(LinkType::EN10MB, "ip6 proto 1 and not ip6 proto 1", true);
}

/// Threading runs in passes, lowest blocks first, with the dominators of the graph
/// as it was when the pass began: before `ip[2] = 3`'s edge is moved past `ip`, the
/// edge of `ip` still dominates `ip[1] = 1` and decides `ip6` after it.
#[test]
fn facts_from_the_graph_as_generated_stick() {
    check(
        LinkType::LOOP,
        "(ip[2] = 3 or greater 1500) and ip and ip[1] = 1 and ip6",
        true,
    );
    check(
        LinkType::LOOP,
        "((host 172.16.5.4 or 10.0.0.4) or (greater 1500)) and ((icmp) and (pim))",
        true,
    );
    // Without the second test of the same value the merge stays.
    check(
        LinkType::LOOP,
        "(src host 172.16.5.4 or greater 1500) and icmp and (ip or ip6)",
        false,
    );
}

/// `and_pullup` moves `dport 6081` up in front of `sport 6081`, where the edges of
/// `dport 137` and `dport 25` (which `or_pullup` has gathered) decide it.
#[test]
fn pullups_move_tests_under_new_dominators() {
    check(
        LinkType::IPV6,
        "(ip6[40:2] = 137 or ip6[42:2] = 137 or ip6[40:2] = 25 or ip6[42:2] = 25) and ip6[40:2] = 6081 and ip6[42:2] = 6081",
        true,
    );
    check(
        LinkType::IPV6,
        "(udp port 137 or 25) && (src and dst port 6081)",
        true,
    );
    check(LinkType::EN10MB, "port 22 and src and dst port 123", true);
    check(
        LinkType::EN10MB,
        "(host 10.1.2.3) && (src and dst host 192.168.1.255)",
        true,
    );
    // A third test in between keeps them apart.
    check(
        LinkType::IPV6,
        "(ip6[40:2] = 137 or ip6[42:2] = 137 or ip6[40:2] = 25 or ip6[42:2] = 25) and ip6[0] = 6 and ip6[40:2] = 6081 and ip6[42:2] = 6081",
        false,
    );
}

/// `inbound`, `outbound` and `ifindex N` where the link has no such field are tests
/// of the kernel's ancillary data (`ldh [type]; jeq #4`, negated for `inbound`, and
/// `ld [ifidx]; jeq #N`): threading decides one from another on the same field.
#[test]
fn ancillary_tests_decide_each_other() {
    check(LinkType::LOOP, "inbound and outbound", true);
    check(LinkType::EN10MB, "outbound and not outbound", true);
    check(LinkType::LOOP, "ifindex 3 and ifindex 4", true);
    check(LinkType::LOOP, "ifindex 3 and inbound", false);
    check(LinkType::IPV4, "inbound and tcp and outbound", true);
}

/// On IPV4 every `ip` check is a constant block: it goes in the first pass, but
/// until then it counts for levels and dominators.
#[test]
fn constant_blocks_count_until_removed() {
    check(
        LinkType::IPV4,
        "port 65534 && (host 10.0.0.1) and ((not host 239.255.255.250 and 224.0.0.1) && (ip host 10.0.1.1))",
        true,
    );
    check(
        LinkType::IPV4,
        "(udp[2:2] < 65535 || udp port 0x14) && ((ip net 0.0.0.0 mask 255.255.0.0) and (tcp))",
        true,
    );
}

/// Both branches of a constant count in the first pass: opt_peep sends them one way
/// only after that pass's levels and dominators are computed. On IPV4 the `ip6`
/// alternatives of `port 80` (behind the constant `ip6`) still reach the checks of
/// `udp[0]` then, so the relation's false edge learns nothing of the protocol and
/// `tcp` after it stays; libpcap compiles the filter.
#[test]
fn dead_branches_of_constants_count_in_the_first_pass() {
    check(
        LinkType::IPV4,
        "(port 80 or host 10.0.1.1) and udp[0] < 161 and tcp",
        false,
    );
    check(
        LinkType::IPV4,
        "(port 80 or host 10.0.1.1) and udp and tcp",
        true,
    );
}

/// A constant the text does not give as a number (`1 + 1`, `32768 << 8`) is known
/// only in the second round: in the first, the jump compares with X, which only an
/// identical relation decides.
#[test]
fn computed_constants_do_not_decide_equalities() {
    check(LinkType::LOOP, "len == 1 and len == 2", true);
    check(LinkType::LOOP, "len == (32768 << 8) and len = 0x64", false);
    check(LinkType::LOOP, "ip[0] == (1 + 0) and ip[0] == 2", false);
    check(
        LinkType::LOOP,
        "len == (1 + 1) and not len == (1 + 1)",
        true,
    );
}

/// Which jumps value numbering lets one test decide another.
#[test]
fn jumps_that_decide_each_other() {
    // `f & 1 == 0` is `jset #1`, never decided by `f & 1 == 1` (the second `mpls`
    // tests the bottom-of-stack bit of the first label again).
    check(
        LinkType::EN10MB,
        "mpls and (sctp src or dst portrange 22-7) && (mpls)",
        false,
    );
    // `len rel k` is the jump `greater`/`less` make on the length.
    check(LinkType::LINUX_SLL, "(greater 1500) and (len < 1500)", true);
    check(LinkType::EN10MB, "len = 100 and len = 200", true);
    check(LinkType::EN10MB, "len > 100 and less 100", true);
    // A relation's `x & k` is still `and x` when threading runs: `== 0` is an
    // equality like `== 1`.
    check(
        LinkType::EN10MB,
        "ether[0] & 1 = 0 and ether[1] = 3 and ether[0] & 1 = 1",
        true,
    );
}

/// Comparisons of computed constants are decided in the second round, which moves
/// no edge: they decide "rejects all" only on the way down from the root.
#[test]
fn computed_constants_decide_only_from_the_root() {
    check(LinkType::EN10MB, "0 / 1 = 1", true);
    check(LinkType::EN10MB, "tcp and 0/1 = 1", false);
    // Two numbers are decided at once, wherever they are.
    check(LinkType::EN10MB, "tcp and 2 = 1", true);
}

/// libpcap does not optimize a filter with `geneve` or `protochain`, so it never
/// refuses one this way.
#[test]
fn unoptimized_filters_compile() {
    check(LinkType::EN10MB, "geneve and ip and arp", false);
}
