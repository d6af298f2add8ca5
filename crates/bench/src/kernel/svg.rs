//! The kernel benchmark's plots for docs/BENCHMARKS.md, drawn with the dynamic
//! benchmark's line plots.

use super::{FilterRow, Latency};
use crate::dynamic::svg::{plot, Series};

/// Per-packet cost of each static filter (x: the filter's number, 1-6), one line
/// per contender.
pub fn per_packet(filters: &[FilterRow]) -> String {
    let line = |name, color, f: fn(&FilterRow) -> f64| Series {
        name,
        color,
        points: filters.iter().map(|r| (f64::from(r.id), f(r))).collect(),
    };
    let series = [
        line("netsift eBPF", "#2471a3", |r| r.ebpf.median),
        line("libpcap BPF", "#c0392b", |r| r.bpf.median),
        line("eBPF, 1 run/test", "#5dade2", |r| r.ebpf_once.median),
        line("XDP (+copy)", "#8e44ad", |r| r.xdp.median),
        line("netsift batch (user)", "#27ae60", |r| r.batch.median),
    ];
    plot(
        "Per packet, in the kernel (BPF_PROG_TEST_RUN) and in user space",
        "static filter (Swift Table 5)",
        "ns per packet (median)",
        &series,
        false,
        true,
    )
}

/// Update latency (p50) against the keys already in the map: a map write through
/// `bpf(2)` and an insert into a shared table (no system call), beside the flat
/// costs of a program swap and of libpcap's `pcap_setfilter`.
pub fn updates(
    curve: &[(u32, Latency)],
    mapped: &[(u32, Latency)],
    swap: Latency,
    setfilter: Latency,
) -> String {
    let flat = |y: f64| -> Vec<(f64, f64)> {
        curve
            .iter()
            .map(|&(n, _)| (f64::from(n.max(1)), y))
            .collect()
    };
    let series = [
        Series {
            name: "bpf(2) map write p50",
            color: "#2471a3",
            points: curve
                .iter()
                .map(|&(n, l)| (f64::from(n.max(1)), l.p50))
                .collect(),
        },
        Series {
            name: "bpf(2) map write p99",
            color: "#5dade2",
            points: curve
                .iter()
                .map(|&(n, l)| (f64::from(n.max(1)), l.p99))
                .collect(),
        },
        Series {
            name: "shared table p50",
            color: "#27ae60",
            points: mapped
                .iter()
                .map(|&(n, l)| (f64::from(n.max(1)), l.p50))
                .collect(),
        },
        Series {
            name: "program swap p50",
            color: "#8e44ad",
            points: flat(swap.p50),
        },
        Series {
            name: "pcap_setfilter p50",
            color: "#c0392b",
            points: flat(setfilter.p50),
        },
    ];
    plot(
        "Filter update in the kernel against followed connections",
        "keys in the map (connections)",
        "ns per update",
        &series,
        true,
        true,
    )
}
