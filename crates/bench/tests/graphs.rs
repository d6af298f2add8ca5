//! `netsift-bench graphs --quick --json` (shortened: one round, a thousandth of
//! the operations, 2,000 packets, as this build may be unoptimised): its last
//! line is one JSON object with the issue's fields, each a positive number, or
//! null where the figure cannot be measured here (the JIT until it is merged;
//! eBPF without CAP_BPF, with the reason beside it). No timing is asserted.

use std::process::Command;

#[test]
fn graphs_quick_json_has_every_field() {
    let out = Command::new(env!("CARGO_BIN_EXE_netsift-bench"))
        .args([
            "graphs", "--quick", "--json", "--runs", "1", "--scale", "0.001",
        ])
        .args(["--packets", "2000"])
        .output()
        .expect("netsift-bench runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last = text.lines().last().unwrap_or_default();
    let v: serde_json::Value = serde_json::from_str(last).expect("the last line is JSON");
    let positive = |k: &str| {
        let x = v[k].as_f64().unwrap_or_else(|| panic!("{k} in {last}"));
        assert!(x > 0.0, "{k} = {x}");
    };
    for k in [
        "fpl_interp_ns",
        "bpf_ns",
        "pcap_ns",
        "aho_match_ns",
        "aho_nomatch_ns",
        "shared_prefix_ratio",
    ] {
        positive(k);
    }
    // Null with a reason, or measured.
    for (k, why) in [
        ("fpl_jit_ns", "jit_missing"),
        ("fpl_ebpf_ns", "ebpf_missing"),
    ] {
        assert!(v.get(k).is_some(), "{k} missing from {last}");
        if v[k].is_null() {
            assert!(
                v[why].as_str().is_some_and(|s| !s.is_empty()),
                "{why} in {last}"
            );
        } else {
            assert!(v[k].as_f64().is_some_and(|x| x >= 0.0), "{k} in {last}");
            assert!(v[why].is_null(), "{why} in {last}");
        }
    }
    assert!(text.contains("| six flows, prefix shared |"), "{text}");
}
