//! `netsift-bench dynamic` on a small workload: the harness runs both contenders,
//! follows every announcement, and reports what the issue asks for. (No timing is
//! asserted: performance targets live in the benchmark's own report.)

use netsift_bench::dynamic::{self, DynamicConfig};
use netsift_bench::FtpConfig;

#[test]
fn a_small_experiment_reports_every_field() {
    let cfg = DynamicConfig {
        workload: FtpConfig {
            servers: 2,
            transfers: 3,
            duration_ns: 1_000_000_000,
            ..FtpConfig::default()
        },
        rates: vec![50_000],
        backgrounds: vec![0, 20_000],
        runs: 1,
        counts: vec![1, 4],
        set_counts: vec![1, 1000],
        follow_counts: vec![1, 4],
        follow_set_counts: vec![1, 20],
        reps: (20, 2),
    };
    let r = dynamic::run(&cfg, |_| {}).expect("the experiment runs");
    assert_eq!(r.connections, 6);
    assert_eq!(r.netsift.len(), 2);
    assert_eq!(r.libpcap.len(), 2);
    assert_eq!(r.netsift_set.last().map(|p| p.connections), Some(1000));
    assert_eq!(r.replays.len(), 4);
    // Each timed announcement through the follower is one listener's edit: a
    // port on each side's pass, or one SET entry.
    assert_eq!(r.follow.len(), 2);
    assert!(r.follow.iter().all(|p| p.edits_per_announcement == 2.0));
    assert!(r.follow_set.iter().all(|p| p.edits_per_announcement == 1.0));
    for x in &r.replays {
        assert!(x.errors.is_empty(), "{}: {:?}", x.contender, x.errors);
        // The base filter captures every control packet, whatever the updates do.
        assert_eq!(x.control_captured, x.control_total, "{}", x.contender);
        assert_eq!(x.background_accepted, 0, "{}", x.contender);
        assert!(x.data_total > 0);
    }
    let j = r.json();
    for key in [
        "\"netsift_update_ns_p50\":",
        "\"netsift_update_ns_p99\":",
        "\"libpcap_update_ns_p50\":",
        "\"netsift_missed_per_conn\":",
        "\"libpcap_missed_per_conn\":",
        "\"series\":[{\"connections\":1,",
        "\"netsift_edit_ns_p50\":",
        "\"netsift_bookkeeping_ns_p50\":",
        "\"netsift_set_edit_ns_p50\":",
        "\"netsift_set_bookkeeping_ns_p50\":",
        "\"follow_series\":[{\"mode\":\"pass\",\"connections\":1,",
    ] {
        assert!(j.contains(key), "{key} missing from {j}");
    }
    assert!(!j.contains('\n'));
    let svg = dynamic::svg::latency(&r);
    assert!(svg.starts_with("<svg") && svg.contains("<polyline"));
}
