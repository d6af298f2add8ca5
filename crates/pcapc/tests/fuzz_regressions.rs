//! Inputs the `compile` fuzz target (fuzz/, docs/RELIABILITY.md) found, minimised. They
//! panicked on an arithmetic overflow, which only debug builds check: run these with
//! `cargo test -p netsift-pcapc --test fuzz_regressions` (the test profile keeps
//! overflow checks), where they fail on the old code.

use netsift_pcapc::compile;
use netsift_wire::LinkType;

/// Two negated equalities of one value where the second field lies *before* the first
/// (`dst` at 16, then `src` at 12): select.rs's src/dst pairing computed the offset
/// difference 12 - 16 before it knew the pair did not apply (`bool::then_some`
/// evaluates its argument eagerly).
#[test]
fn negated_pair_in_reverse_order() {
    for text in [
        "not dst host 10.0.0.1 and not src host 10.0.0.1",
        "not ip dst 10.0.0.1 and not ip src 10.0.0.1 and tcp",
        "not ether dst 02:00:00:00:00:01 and not ether src 02:00:00:00:00:01",
    ] {
        let set = compile(text, LinkType::EN10MB);
        assert!(set.is_ok(), "{text}: {:?}", set.err());
    }
}
