//! `netsift-bench multi --quick --json` on a real veth pair, with a short
//! trace: the JSON line has the fields, one value per number of
//! applications in each list, and the slow-reader accounting held.
//!
//! Needs CAP_NET_ADMIN (root here and in CI), tcpreplay and tcpdump, and the
//! drop-in libpcap beside `netsift-bench` (`cargo build --release -p
//! netsift-libpcap`). Without them the test is skipped with a message, unless
//! `CI=true`, where a skip is a failure.

use netsift_testkit::{require, Need};
use std::path::Path;
use std::process::Command;

#[test]
fn quick_json_has_one_value_per_application_count() {
    let exe = Path::new(env!("CARGO_BIN_EXE_netsift-bench"));
    let shim = exe.with_file_name("libpcap").join("libpcap.so.0.8");
    let why = format!(
        "no {} (cargo build --release -p netsift-libpcap)",
        shim.display()
    );
    require!(
        Need::Netns,
        Need::Command("tcpreplay"),
        Need::Command("tcpdump"),
        Need::That(&why, shim.exists())
    );
    let out = Command::new(exe)
        .args(["multi", "--quick", "--json", "--packets", "20000"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let last = stdout.lines().last().expect("some output");
    let j: serde_json::Value = serde_json::from_str(last).expect("the last line is JSON");
    let apps: Vec<u64> = j["apps"]
        .as_array()
        .expect("apps")
        .iter()
        .map(|a| a.as_u64().expect("a count"))
        .collect();
    assert_eq!(apps, [1, 6], "{last}");
    for key in [
        "stock_cpu_s_per_mpkt",
        "netsift_cpu_s_per_mpkt",
        "stock_shared_cpu_s_per_mpkt",
        "netsift_shared_cpu_s_per_mpkt",
        "stock_sender_pps",
        "netsift_sender_pps",
        "stock_drop_ratio",
        "netsift_drop_ratio",
    ] {
        let v = j[key]
            .as_array()
            .unwrap_or_else(|| panic!("{key} missing: {last}"));
        assert_eq!(v.len(), apps.len(), "{key}: {last}");
        for x in v {
            let x = x
                .as_f64()
                .unwrap_or_else(|| panic!("{key}: {x} is not a number"));
            assert!(x >= 0.0, "{key}: {x}");
        }
    }
    assert!(j["sender_pps_alone"].as_f64().expect("sender_pps_alone") > 0.0);
    assert_eq!(j["slow_reader_exact"], true, "{last}");
    // The copy modes through the daemon: each mode, one value per count
    // (quick: N = 6 only) for each measure.
    let copy = &j["copy_modes"];
    let counts = copy["apps"].as_array().expect("copy_modes.apps").len();
    assert!(counts >= 1, "{last}");
    for mode in ["once", "per-flow", "zero"] {
        for key in [
            "cpu_s_per_mpkt",
            "shared_cpu_s_per_mpkt",
            "sender_pps",
            "drop_ratio",
        ] {
            let v = copy[mode][key]
                .as_array()
                .unwrap_or_else(|| panic!("copy_modes.{mode}.{key} missing: {last}"));
            assert_eq!(v.len(), counts, "copy_modes.{mode}.{key}: {last}");
        }
    }
}
