//! Divisions, moduli and shifts libpcap refuses, and the ones it compiles: netsift
//! must refuse exactly the same filters with the same message.
//!
//! `gen_arth` looks at the right operand's *first statement* (its leftmost leaf),
//! not its value, so `x << (40 - 10)` is refused and `x << (10 + 30)` is left to
//! the optimizer, which refuses it once value numbering knows the shift is 40; the
//! optimizer does not run with `geneve`, so that one compiles there.

use netsift_oracle::Filter;
use netsift_pcapc::compile;
use netsift_wire::LinkType;

/// libpcap's verdict on compiling `text` (checked against the oracle), then
/// netsift's, which must agree: `Some(message)` for a refusal.
fn agree(text: &str, want: Option<&str>) {
    let lt = LinkType::EN10MB;
    let libpcap = Filter::compile(lt, text).err();
    assert_eq!(
        libpcap.as_deref().map(|m| m.contains(want.unwrap_or("-"))),
        want.map(|_| true),
        "libpcap on {text}: {libpcap:?}"
    );
    match (compile(text, lt), want) {
        (Ok(_), None) => {}
        (Err(e), Some(m)) => assert!(e.to_string().contains(m), "{text}: {e}"),
        (got, _) => panic!("{text}: netsift {:?}, libpcap {libpcap:?}", got.err()),
    }
}

#[test]
fn refused_by_the_right_operands_first_statement() {
    agree("tcp[0] << ip[40] = 0", Some("shift by more than 31 bits"));
    agree(
        "tcp[0] << (40 - 10) = 0",
        Some("shift by more than 31 bits"),
    );
    agree("tcp[0] << -(40) = 0", Some("shift by more than 31 bits"));
    agree("tcp[0] / (0 + 5) = 0", Some("division by zero"));
    agree("tcp[0] % (0 * 3) = 1", Some("modulus by zero"));
    agree("tcp[0] << ip[4] = 0", None);
}

#[test]
fn refused_by_the_optimizer_once_the_value_is_known() {
    agree(
        "tcp[0] << (10 + 30) = 0",
        Some("shift by more than 31 bits"),
    );
    agree("tcp[0] >> (3 + 40) = 0", Some("shift by more than 31 bits"));
    agree("tcp[0] / (ip[0] & 0) = 1", Some("division by zero"));
    agree("tcp[0] % (1 - 1) = 1", Some("modulus by zero"));
    // A known value shifted out folds to 0; a shift by a known 0 is no shift.
    agree("(4 << (10 + 30)) = 0", None);
    agree("tcp[0] << (ip[0] & 0) = 1", None);
    // No optimizer, no refusal.
    agree("geneve and tcp[0] << (10 + 30) = 0", None);
    agree("tcp[0] << (10 + 30) = 0 or geneve", None);
}

#[test]
fn raised_only_where_the_first_round_leaves_the_relation() {
    // The optimizer raises these in its second round, in blocks the first round's
    // jump threading left reachable. After `ip`, `ip6` is decided false, so the
    // relation goes, and with it the shift; alone, the filter rejects every packet.
    agree(
        "ip[8] >> 4 - 0x7e != ip6[41]",
        Some("expression rejects all packets"),
    );
    agree("ip[0] << (4 - 0x7e) != ip6[41] or udp", None);
    agree("arp and ip[0] / (1 - 1) = 0 or tcp", None);
    agree("arp and ip[0] >> (1 - 2) = 0 or tcp", None);
    // `%` has no precedence in libpcap's grammar: `x % 74 % 1` is `x % (74 % 1)`,
    // a modulus by a computed 0, refused where the relation stays.
    agree("ip[0] % 74 % 0x1 = 0", Some("modulus by zero"));
    agree("ip6 and ip[0] % 74 % 0x1 = 0 or tcp", None);
    agree(
        "ip[0] >> (1 - 2) = 0 or tcp",
        Some("shift by more than 31 bits"),
    );
    // A modulus of a load by a computed 0 is `mod #0` after one pass and refused in
    // the next; by then `255 > (511279 + 0)` is decided and the relation is gone.
    agree("255 > (511279 + 0) and ip[0] % (59 * 0) > 1 or tcp", None);
    agree("ip[0] % (59 * 0) > 1 or tcp", Some("modulus by zero"));
    // A shift is refused in the pass that makes it `lsh #k`.
    agree(
        "255 > (511279 + 0) and ip[0] << (40 + 0) > 1 or tcp",
        Some("shift by more than 31 bits"),
    );
}

/// `ip[0] + (ip[1] + (... + ip[n]))`: every pending left value holds one of
/// libpcap's 16 scratch registers while the right side is computed.
fn right_nested(n: usize) -> String {
    let mut s = format!("ip[{n}]");
    for i in (0..n).rev() {
        s = format!("ip[{i}] + ({s})");
    }
    s
}

#[test]
fn refused_past_libpcaps_sixteen_registers() {
    // Fifteen loads nested to the right take all 16 (the last load's value register
    // is taken before its index's is freed); sixteen take 17.
    agree(&format!("{} > 0", right_nested(14)), None);
    agree(
        &format!("{} > 0", right_nested(15)),
        Some("too many registers needed to evaluate expression"),
    );
    // Numbers and `len` hold registers too: no folding happens in gencode.
    agree(
        "1+(2+(3+(4+(5+(6+(7+(8+(9+(10+(11+(12+(13+(14+(15+len))))))))))))))>0",
        None,
    );
    agree(
        "1+(2+(3+(4+(5+(6+(7+(8+(9+(10+(11+(12+(13+(14+(15+(16+len)))))))))))))))>0",
        Some("too many registers needed to evaluate expression"),
    );
    // The left side's value is held while the right side is computed.
    agree(&format!("ip[20] = {}", right_nested(13)), None);
    agree(
        &format!("ip[20] = {}", right_nested(14)),
        Some("too many registers needed to evaluate expression"),
    );
    // A left-nested chain needs few registers however long it is.
    let chain: Vec<String> = (0..40).map(|i| format!("ip[{i}]")).collect();
    agree(&format!("{} > 0", chain.join(" + ")), None);
}

#[test]
fn geneve_holds_three_registers_for_the_rest_of_the_filter() {
    let g = |n: usize| vec!["geneve"; n].join(" and ");
    agree(&g(5), None);
    agree(
        &g(6),
        Some("too many registers needed to evaluate expression"),
    );
    // Four hold 12, leaving 4: a load and a pending value at most.
    agree(&format!("{} and ip[0] + (ip[1] + (ip[2])) > 0", g(4)), None);
    agree(
        &format!("{} and ip[0] + (ip[1] + (ip[2] + (ip[3]))) > 0", g(4)),
        Some("too many registers needed to evaluate expression"),
    );
    agree(
        &format!("{} and len > 0", g(5)),
        Some("too many registers needed to evaluate expression"),
    );
    // Registers are held from `geneve` on, in the order of the text.
    agree(&format!("{} > 0 and geneve", right_nested(14)), None);
}

/// gen_protochain takes a register first and frees it at the end, but `protochain`
/// without `ip`/`ip6` returns early after calling itself for both, and never frees
/// its own: one more register held for the rest of the filter.
#[test]
fn protochain_without_ip_or_ip6_keeps_a_register() {
    let g = |n: usize| vec!["geneve"; n].join(" and ");
    let rel = "(3 | (15304 % 79 % 2)) >= 0x1d";
    agree(
        &format!("protochain 1 or {} or {rel}", g(4)),
        Some("too many registers needed to evaluate expression"),
    );
    agree(&format!("ip protochain 1 or {} or {rel}", g(4)), None);
    agree(
        &format!("{} and protochain 1", g(5)),
        Some("too many registers needed to evaluate expression"),
    );
}
