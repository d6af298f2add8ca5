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
