//! `netsift-bench live --quick --json` on a real veth pair: the JSON line has the
//! issue's fields, and netsift's live set neither lost nor leaked a packet around
//! the edits.
//!
//! Needs CAP_NET_ADMIN (root here and in CI) and the `netsift` binary beside
//! `netsift-bench` (`cargo build --release`, as scripts/test.sh does first).
//! Without them the test is skipped with a message, unless `CI=true`, where a skip
//! is a failure.

use netsift_testkit::{require, Need};
use std::path::Path;
use std::process::Command;

#[test]
fn quick_json_reports_the_fields_and_no_edit_loses_or_leaks() {
    let exe = Path::new(env!("CARGO_BIN_EXE_netsift-bench"));
    let netsift = exe.with_file_name("netsift");
    let why = format!(
        "no netsift binary beside {} (cargo build --release -p netsift)",
        exe.display()
    );
    require!(Need::Netns, Need::That(&why, netsift.exists()));
    let t = std::time::Instant::now();
    let out = Command::new(exe)
        .args(["live", "--quick", "--json"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    eprintln!("{stdout}");
    let last = stdout.lines().last().expect("some output");
    let j: serde_json::Value = serde_json::from_str(last).expect("the last line is JSON");
    let num = |k: &str| {
        j[k].as_f64()
            .unwrap_or_else(|| panic!("field {k} missing or not a number: {last}"))
    };
    for k in [
        "packets",
        "netsift_dropped",
        "tcpdump_dropped",
        "netsift_cpu_s_per_mpkt",
        "tcpdump_cpu_s_per_mpkt",
        "edits",
        "netsift_edit_lost",
        "netsift_edit_leaked",
        "libpcap_edit_lost",
        "libpcap_edit_leaked",
    ] {
        assert!(num(k) >= 0.0, "{k} is negative: {last}");
    }
    assert!(num("packets") > 0.0);
    assert!(num("netsift_cpu_s_per_mpkt") > 0.0 && num("tcpdump_cpu_s_per_mpkt") > 0.0);
    // Every 2 ms over a replay of about two seconds.
    assert!(num("edits") >= 100.0, "too few edits: {last}");
    assert_eq!(
        num("netsift_edit_lost"),
        0.0,
        "netsift lost packets around edits"
    );
    assert_eq!(
        num("netsift_edit_leaked"),
        0.0,
        "netsift leaked packets around edits"
    );
    // Where the kernel dropped nothing, netsift captured exactly what the filter
    // accepts in the trace as a file, once for each time the replay played it
    // (three times at top speed).
    let (expected, packets) = (num("expected"), num("packets"));
    for row in j["rows"].as_array().expect("rows") {
        if row["contender"]
            .as_str()
            .is_some_and(|c| c.starts_with("netsift"))
            && row["dropped"].as_f64() == Some(0.0)
        {
            let sent = row["sent"].as_f64().expect("sent");
            let plays = (sent / packets).round();
            assert_eq!(plays * packets, sent, "a replay of whole traces: {row}");
            assert_eq!(row["captured"].as_f64(), Some(expected * plays), "{row}");
        }
    }
    assert!(t.elapsed().as_secs() < 60, "--quick took {:?}", t.elapsed());
}
