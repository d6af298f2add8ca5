//! Which loads stay before a part of the filter that libpcap's optimizer decides:
//! they decide the verdict on packets cut short (conformance/tests/random.rs checks
//! this against libpcap at large; these pin the two rules by example).

use netsift_isa::PassSet;
use netsift_pcapc::compile;
use netsift_wire::LinkType;

/// `(host or byte 13 > 48) and ip6 and vrrp` cannot hold, but `ip6`'s two branches
/// stop at different tests of `not dst ::1`, so libpcap keeps it and every test
/// before it: the host tests still load the IPv4 and ARP addresses.
#[test]
fn tests_before_a_false_conjunction_stay_when_their_branches_part() {
    let set = compile(
        "host 0.0.0.0 or (byte 13 > 48) && (ip6) && vrrp || not dst ::1",
        LinkType::EN10MB,
    )
    .expect("compiles");
    let listing = set.to_string();
    assert!(listing.contains("eq2 [26:4]"), "{listing}");
    assert!(listing.contains("eq2 [28:4]"), "{listing}");
}

/// Computed constants decide a comparison only in libpcap's second round; when they
/// decide the whole filter, `opt_root` leaves a bare return and nothing is loaded.
#[test]
fn a_filter_decided_by_computed_constants_loads_nothing() {
    let set = compile(
        "(vrrp) || (ip6 src and dst host 2001:db8:1::10) && (igmp[icmp6[icmp6code]:2] > 6) || (-243148308 <= (0 - 93141))",
        LinkType::LINUX_SLL2,
    )
    .expect("compiles");
    assert_eq!(set.to_string(), PassSet::accept_all().to_string());
}
