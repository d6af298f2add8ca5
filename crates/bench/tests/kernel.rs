//! `netsift-bench kernel --quick --json`: it runs (as root), checks every verdict of
//! both kernel programs against libpcap before timing (an error otherwise), and its
//! last line is one JSON object with the documented fields, the live FTP
//! experiment's missed packets per connection among them. No timing is asserted.

use netsift_testkit::{require, Need};
use std::process::Command;

#[test]
fn kernel_quick_json_reports_every_field() {
    require!(Need::Root);
    let out = Command::new(env!("CARGO_BIN_EXE_netsift-bench"))
        .args(["kernel", "--quick", "--json"])
        .output()
        .expect("netsift-bench runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last = text.lines().last().unwrap_or_default();
    for field in [
        "\"kernel_update_ns_p50_at_1\":",
        "\"kernel_update_ns_p99_at_1\":",
        "\"kernel_update_ns_p50_at_100000\":",
        "\"kernel_update_ns_p99_at_100000\":",
        "\"swap_ns_p50\":",
        "\"libpcap_setfilter_ns_p50\":",
        "\"filters\":[",
    ] {
        assert!(last.contains(field), "{field} missing from {last}");
    }
    // The live FTP experiment: numbers where it could run (root, and the netsift
    // binary beside netsift-bench), else null with the reason in the table.
    let exe = std::path::Path::new(env!("CARGO_BIN_EXE_netsift-bench"));
    let ran = exe.with_file_name("netsift").exists();
    // Each contender's missed data packets per connection, and beside it the
    // rate the sender reached (which must be positive where the run ran).
    for (field, positive) in [
        ("kernel_missed_per_conn", false),
        ("user_missed_per_conn", false),
        ("libpcap_missed_per_conn", false),
        ("kernel_ftp_pps", true),
        ("user_ftp_pps", true),
        ("libpcap_ftp_pps", true),
    ] {
        let v = value(last, field);
        if ran {
            let v: f64 = v.parse().unwrap_or_else(|_| panic!("{field} = {v}"));
            assert!(if positive { v > 0.0 } else { v >= 0.0 }, "{field} = {v}");
        } else {
            assert_eq!(v, "null", "{field}");
        }
    }
    for id in 1..=6 {
        let at = last
            .find(&format!("{{\"id\":{id},\"ebpf_ns\":"))
            .unwrap_or_else(|| panic!("filter {id} missing from {last}"));
        let rest = &last[at..];
        for f in ["ebpf_ns", "batch_ns", "bpf_ns", "xdp_ns", "ebpf_once_ns"] {
            let v: f64 = rest
                .split(&format!("\"{f}\":"))
                .nth(1)
                .and_then(|s| s.split([',', '}']).next())
                .and_then(|s| s.parse().ok())
                .unwrap_or_else(|| panic!("filter {id}: {f} in {rest}"));
            assert!(v > 0.0, "filter {id}: {f} = {v}");
        }
    }
}

/// The text of JSON field `field` in the object `json` (up to the next `,` or `}`).
fn value<'a>(json: &'a str, field: &str) -> &'a str {
    json.split(&format!("\"{field}\":"))
        .nth(1)
        .and_then(|s| s.split([',', '}']).next())
        .unwrap_or_else(|| panic!("{field} missing from {json}"))
}
