//! What the placement tests share (`placement.rs`, `xdp_placement.rs`):
//! where a running graph's instances run, and a flow read until it has its
//! frames.

use netsift_ffpf::{Flow, GraphView};
use std::time::{Duration, Instant};

/// Each instance's class and where it runs.
pub fn runs(v: &GraphView) -> Vec<(&str, &str)> {
    v.instances
        .iter()
        .map(|i| (i.class.as_str(), i.runs.as_str()))
        .collect()
}

/// What `f` delivers until it has `n` frames (10 s at most), and what
/// comes in the 200 ms after.
pub fn receive(f: &mut Flow, n: usize) -> Vec<Vec<u8>> {
    let mut got = Vec::new();
    let end = Instant::now() + Duration::from_secs(10);
    while got.len() < n && Instant::now() < end {
        let r = f.reader().unwrap();
        r.wait_for(1, Duration::from_millis(100)).unwrap();
        got.extend(super::veth::drain(f));
    }
    std::thread::sleep(Duration::from_millis(200));
    got.extend(super::veth::drain(f));
    got
}
