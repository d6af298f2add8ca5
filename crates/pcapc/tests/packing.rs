//! The shape of what the compiler emits for the seeds' filters: SIMD packing and
//! gathering keep programs as small as libpcap's optimiser makes them. (Their
//! verdicts are checked against libpcap by the conformance tests; this pins the size,
//! which is what the speed depends on.)

use netsift_isa::Opcode;
use netsift_pcapc::compile;
use netsift_wire::LinkType;

fn shape(expr: &str) -> (usize, usize) {
    let set = compile(expr, LinkType::EN10MB).expect("compiles");
    (set.passes().len(), set.instruction_count())
}

#[test]
fn a_port_list_is_one_instruction() {
    assert_eq!(
        shape("ip and tcp port (ssh or http or imap or smtp or pop3 or ftp)"),
        (1, 4)
    );
}

#[test]
fn negated_host_lists_are_gathered() {
    let hosts: Vec<String> = (1..=38).map(|i| format!("10.9.{}.{}", i / 7, i)).collect();
    let expr = format!(
        "ip and (not tcp port (80 or 25 or 143) and not ip host ({}))",
        hosts.join(" or ")
    );
    let set = compile(&expr, LinkType::EN10MB).unwrap();
    // 38 addresses, 5 to a negated EQ2: 8 instructions; the port list is one more.
    let neg_eq2 = set
        .passes()
        .iter()
        .flat_map(|p| p.instructions())
        .filter(|i| i.decode().opcode == Some(Opcode::Eq2) && i.negated())
        .count();
    assert_eq!(neg_eq2, 9, "{set}");
    assert!(set.instruction_count() <= 14, "{set}");
}

#[test]
fn a_shared_protocol_test_is_factored_out_of_negated_ports() {
    // Without factoring this is three groups, each testing the protocol again.
    let (passes, insns) = shape("ip and not tcp port (80 or 25 or 143)");
    assert!(
        passes <= 4 && insns <= 6,
        "{passes} passes, {insns} instructions"
    );
}

/// A small negative constant (a negative index, `x - -5`) is a PUSH and a NEG, or
/// flips ADD and SUB, instead of taking one of the ARITH's seven words for the pool:
/// without that, this relation (11 micro-ops) did not fit in one instruction.
#[test]
fn small_negative_constants_take_no_pool_word() {
    let set = compile(
        "(link[0x1] * (sctp[11] - 240)) != (ether[-20:2] + sctp[-016:2])",
        LinkType::IPV6,
    )
    .expect("fits one ARITH");
    let text = set.to_string();
    assert!(text.contains("push 20; neg;"), "{text}");
    assert!(!text.contains("0xffff"), "{text}");
    let sub = compile("ip[0] - -5 > 7", LinkType::EN10MB)
        .unwrap()
        .to_string();
    assert!(sub.contains("add 5;"), "{sub}");
}

/// libpcap keeps a copy of the port tests behind each protocol test (threading gave
/// each its own facts); where the later protocol tests are decided false once an
/// earlier one held, the copies are one test in the order they run: one protocol
/// test of three values, then one EQ2 of the ports (`opt::to_tree::shared_tails`).
#[test]
fn port_tests_behind_each_protocol_are_one() {
    assert_eq!(shape("port 20 or 23"), (2, 7));
}
