//! Every refusal says what kind of fault it is, beside libpcap's message.

use netsift_pcapc::{compile, ErrorKind};
use netsift_wire::LinkType;

fn kind(text: &str) -> ErrorKind {
    match compile(text, LinkType::EN10MB) {
        Ok(_) => panic!("{text:?} compiled"),
        Err(e) => e.kind(),
    }
}

#[test]
fn refusals_have_kinds() {
    assert_eq!(kind("tcp and"), ErrorKind::Syntax);
    assert_eq!(kind("(tcp"), ErrorKind::Syntax);
    assert_eq!(kind("port 70000"), ErrorKind::Invalid);
    assert_eq!(kind("frobnicate"), ErrorKind::Syntax);
    assert_eq!(kind("host frobnicate.invalid"), ErrorKind::Invalid);
    assert_eq!(kind("ip[0] / 0 = 1"), ErrorKind::Invalid);
    assert_eq!(kind("ip and ip6"), ErrorKind::RejectsAll);
    assert_eq!(kind("gateway somehost"), ErrorKind::Unsupported);
    // A left-nested sum of 145 loads: libpcap compiles it; netsift's ARITH chain
    // holds 434 micro-ops and this needs 435.
    let sum = vec!["ip[0]"; 145].join(" + ");
    assert_eq!(kind(&format!("{sum} > 1")), ErrorKind::TooLarge);
    assert!(compile(
        &format!("{} > 1", vec!["ip[0]"; 144].join(" + ")),
        LinkType::EN10MB
    )
    .is_ok());
}
