//! Clients attach and detach a thousand times, in every way a flow can end:
//! closed cleanly, its connection dropped with the flow open, its process
//! SIGKILLed while it reads. Afterwards the daemon holds what it held before:
//! the same descriptors, memfds, memfd mappings and kernel programs, and a
//! resident size within a bound.
//!
//! The daemon runs in a namespace the test makes, with both kinds of source:
//! one end of a veth pair (a ring and an eBPF socket filter whose clauses
//! come and go with the flows' filters) and a capture file played in a loop
//! at a packet a millisecond (packets arrive while clients read). One flow
//! on each source stays open throughout, so the rings stay open and the
//! kernel program is swapped, not just dropped, as clauses come and go; once
//! they close too, the daemon is back to its descriptors before any flow.

mod common;

use common::{active_flow, daemon, side, until_ready, Connect, Daemon};
use netsift_ffpf::{Client, FlowSpec};
use netsift_testkit::held::Held;
use netsift_testkit::netns::{Side, VethPair};
use netsift_testkit::{require, Need};
use std::io::BufReader;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const ENV: &str = "NETSIFTD_SOAK_SOCKET";

/// Filters the clients pick from: each distinct text is a kernel clause on
/// the interface while a flow runs it (the empty one, every packet, too).
const FILTERS: [&str; 6] = [
    "",
    "udp",
    "udp port 1234",
    "host 10.0.0.1",
    "udp and src port 12345",
    "ip and not tcp",
];

/// The killed client's side: runs only when the parent set the variable.
/// It holds a flow on each source and reads until it is killed.
#[test]
fn killed_side() {
    let Ok(sock) = std::env::var(ENV) else { return };
    let iface = std::env::var("NETSIFTD_SOAK_IFACE").unwrap();
    let k: usize = std::env::var("NETSIFTD_SOAK_K").unwrap().parse().unwrap();
    let c = Client::connect(&sock).unwrap();
    let mut a = active_flow(&c, "numbered", FILTERS[k % FILTERS.len()]);
    let _b = active_flow(&c, &iface, FILTERS[(k + 1) % FILTERS.len()]);
    println!("ready");
    loop {
        let r = a.reader().unwrap();
        r.wait_for(1, Duration::from_millis(5)).unwrap();
        while r.getnext().unwrap().is_some() {}
    }
}

/// Waits until the daemon holds `want` again (a connection's end is seen by
/// its thread a moment after the client's).
fn back_to(d: &Daemon, want: &Held, what: &str) {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let now = d.held();
        if now == *want {
            return;
        }
        assert!(
            Instant::now() < until,
            "{what}: the daemon holds {now:?}, not {want:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// What the daemon holds once it stops changing (the warm-up's last
/// connections are closed by their threads a moment after the clients go).
fn settled(d: &Daemon) -> Held {
    let mut last = d.held();
    loop {
        std::thread::sleep(Duration::from_millis(300));
        let now = d.held();
        if now == last {
            return now;
        }
        last = now;
    }
}

fn soak(cycles: u64, killed: u64) {
    require!(Need::Netns);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("numbered.pcap");
    common::numbered_file(&file, 1000);
    let pair = VethPair::new();
    let (ns, dev) = pair.end(Side::A);
    let (ns, dev) = (ns.to_string(), dev.to_string());
    let src = format!("numbered={}", file.display());
    // A small PBuf per group: a group left behind would still show, in the
    // memfds and mappings, and little in RSS, which then bounds the heap.
    let d = daemon(
        Some(&ns),
        &[
            "--iface",
            &dev,
            "--file",
            &src,
            "--play",
            "loop",
            "--pbuf-size",
            "262144",
            "--ibuf-entries",
            "256",
        ],
    );
    let stats = d.client();
    let before_any = d.held();

    // The keepers: one flow on each source throughout.
    let keep_file = active_flow(&stats, "numbered", "udp");
    let keep_iface = active_flow(&stats, &dev, "udp");
    // Frames on the wire from the other end, now and then, for the ring.
    let frames: Vec<Vec<u8>> = (0..20u32)
        .map(|i| netsift_testkit::frames::numbered_udp(i, None, 64))
        .collect();
    pair.send(Side::B, &frames);
    std::thread::sleep(Duration::from_millis(200));
    // A few rounds of every kind first, so that what the allocator keeps
    // after a first use is in the baseline's RSS.
    run(&d.socket, &dev, 3, 10, 3);
    let baseline = settled(&d);
    // The ring's program is held by the socket it is attached to, not by a
    // descriptor (the kernel frees a program with its last reference: its
    // fd or its socket), so sockets, program fds and map fds together
    // account for every kernel program the daemon keeps alive.
    assert!(
        baseline.bpf_maps >= 1,
        "no kernel map: {baseline:?} {:#?}",
        d.fd_list()
    );
    let s = stats.daemon_stats().unwrap();
    assert!(
        s.sources.iter().any(|s| s.kernel_clauses >= 1),
        "no kernel clause: {s:?}"
    );
    assert!(baseline.memfds + baseline.memfd_maps > before_any.memfds);
    let rss_before = d.rss_kib();

    let n = run(&d.socket, &dev, 3, (cycles - killed) / 3, killed);
    back_to(&d, &baseline, "after the soak, keepers open");
    let s = stats.daemon_stats().unwrap();
    assert_eq!((s.connections, s.flows), (1, 2), "{s:?}");
    for src in &s.sources {
        assert_eq!((src.groups, src.flows), (1, 1), "{src:?}");
    }
    // The resident size. The groups' buffers come and go as shared memory
    // (a group left behind shows in the memfds and mappings above); what
    // remains is the heap, where the allocator keeps some of what the
    // connection threads freed. Measured: it grows by about 6 MiB after the
    // warm-up and then stays there, the same after 1000 cycles as after
    // 10 000 (the ignored variant), so it is not per cycle. 16 MiB leaves
    // room for a busier machine while a leak of 16 KiB a cycle (one flow's
    // bookkeeping) would cross it within the thousand.
    let rss_after = d.rss_kib();
    assert!(
        rss_after <= rss_before + 16 * 1024,
        "VmRSS {rss_before} KiB -> {rss_after} KiB"
    );

    // The keepers go too: back to before any flow.
    keep_file.close().unwrap();
    keep_iface.close().unwrap();
    back_to(&d, &before_any, "after the keepers closed");
    eprintln!(
        "soak: {} cycles ({killed} killed); VmRSS {rss_before} -> {rss_after} KiB; held {:?}",
        n,
        d.held()
    );
}

/// `workers` threads of `per` cycles each with the client library, and
/// `killed` client processes SIGKILLed while they read; how many cycles ran.
fn run(sock: &Path, dev: &str, workers: u64, per: u64, killed: u64) -> u64 {
    let done = AtomicU64::new(0);
    std::thread::scope(|s| {
        for w in 0..workers {
            let done = &done;
            s.spawn(move || {
                for i in 0..per {
                    let k = (w * per + i) as usize;
                    let c = Client::connect(sock).unwrap();
                    let source = if k.is_multiple_of(2) { "numbered" } else { dev };
                    let mut f = c
                        .create(&FlowSpec {
                            source: source.into(),
                            filter: FILTERS[k % FILTERS.len()].into(),
                            ..FlowSpec::default()
                        })
                        .unwrap();
                    f.instantiate().unwrap();
                    // Some never activate; the rest read a little.
                    if k % 5 != 4 {
                        f.activate().unwrap();
                        let r = f.reader().unwrap();
                        r.wait_for(1, Duration::from_millis(2)).unwrap();
                        while r.getnext().unwrap().is_some() {}
                    }
                    match k % 3 {
                        // Closed cleanly, then the connection.
                        0 => f.close().unwrap(),
                        // The connection dropped with the flow open.
                        1 => drop((f, c)),
                        // The flow dropped (unmapped) but not closed; then
                        // the connection.
                        _ => {
                            drop(f);
                            drop(c);
                        }
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        // SIGKILLed while reading: this test binary, run again.
        let done = &done;
        s.spawn(move || {
            for k in 0..killed {
                let mut child = side("killed_side")
                    .env(ENV, sock)
                    .env("NETSIFTD_SOAK_IFACE", dev)
                    .env("NETSIFTD_SOAK_K", k.to_string())
                    .spawn()
                    .unwrap();
                let mut out = BufReader::new(child.stdout.take().unwrap());
                until_ready(&mut out, "killed_side");
                std::thread::sleep(Duration::from_millis(k % 10));
                child.kill().unwrap();
                child.wait().unwrap();
                done.fetch_add(1, Ordering::Relaxed);
            }
        });
    });
    done.into_inner()
}

#[test]
fn a_thousand_attaches_and_detaches_leave_nothing_behind() {
    soak(1000, 100);
}

#[test]
#[ignore = "long: ten thousand cycles"]
fn ten_thousand_attaches_and_detaches_leave_nothing_behind() {
    soak(10_000, 400);
}
