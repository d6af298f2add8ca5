//! What a run says on stderr besides its packets: tcpdump's three closing lines
//! and netsift's own accounting after them, and the session's events as lines.

use netsift_session::{Event, Events, FollowReport, Placed, Report};
use std::sync::Arc;

/// tcpdump's closing lines of a live capture on stderr, with `more`
/// (netsift's own accounting) after them. A file gets none, as in tcpdump.
fn print_stats(captured: u64, received: u64, dropped: u64, more: &str) {
    eprintln!("{captured} packets captured");
    eprintln!("{received} packets received by filter");
    eprintln!("{dropped} packets dropped by kernel");
    if !more.is_empty() {
        eprintln!("{more}");
    }
}

/// netsift's account of a ring, after tcpdump's lines: where the packets went.
fn ring_line(s: &netsift_capture::Stats, copied: u64) -> String {
    format!(
        "ring: {} blocks read, {} packets filtered in place, {copied} copied out, full {} times",
        s.blocks, s.frames, s.frozen
    )
}

/// The closing line of a follower: what was followed.
pub(crate) fn follow_line(r: &FollowReport) -> String {
    let s = &r.stats;
    let mut failed = if r.failed > 0 {
        format!(", {} updates failed", r.failed)
    } else {
        String::new()
    };
    if r.kernel_swaps > 0 {
        failed.push_str(&format!(
            ", kernel listener table grown {} times",
            r.kernel_swaps
        ));
    }
    let refused = s.refused.nonzero();
    let refused = if refused.is_empty() {
        String::new()
    } else {
        let parts: Vec<String> = refused.iter().map(|(k, n)| format!("{n} {k}")).collect();
        format!("; {} refused ({})", s.refused.total(), parts.join(", "))
    };
    let evicted = if s.table.evicted > 0 {
        format!(", {} unused expectations evicted", s.table.evicted)
    } else {
        String::new()
    };
    format!(
        "followed: {} announcements, {} flows added, {} removed, {} filter updates{evicted}{failed}{refused}",
        s.announced, s.table.flows, s.table.flows_removed, s.tracker.edits
    )
}

/// A live capture's closing lines: per worker where there are several, then
/// tcpdump's three (with `captured`, the packets the output took) and
/// netsift's accounting.
pub(crate) fn print_report(r: &Report, captured: u64) {
    let follow = r.follow.as_ref().map(follow_line);
    if let Some(x) = &r.xdp {
        let more = format!(
            "xdp: {} frames seen, {} accepted by the program, {} lost to a full ring buffer",
            x.seen, x.accepted, x.full
        );
        return print_stats(captured, r.received, r.dropped, &more);
    }
    if let [one] = &r.rings[..] {
        let mut more = one
            .stats
            .as_ref()
            .map(|s| ring_line(s, one.accepted))
            .unwrap_or_default();
        if let Some(f) = follow {
            more = format!("{more}\n{f}");
        }
        return print_stats(captured, r.received, r.dropped, &more);
    }
    for (i, w) in r.rings.iter().enumerate() {
        match (&w.stats, &w.failure) {
            (_, Some(e)) => eprintln!("worker {i}: failed: {e}"),
            (Some(s), None) => eprintln!(
                "worker {i}: {} packets captured, {} received by filter, {} dropped by kernel; {}",
                w.accepted,
                s.received,
                s.dropped,
                ring_line(s, w.accepted)
            ),
            (None, None) => eprintln!("worker {i}: no statistics"),
        }
    }
    print_stats(captured, r.received, r.dropped, &follow.unwrap_or_default());
}

/// What to say of a filter placed in the kernel or at the XDP hook of `iface`.
fn placed_line(p: &Placed, iface: &str) -> String {
    match p {
        Placed::Socket {
            insns,
            decisive: true,
            ..
        } => format!(
            "filtering in the kernel (eBPF, {insns} instructions); it decides every frame up to 64 KiB"
        ),
        Placed::Socket {
            insns, exact: true, ..
        } => format!(
            "filtering in the kernel (eBPF, {insns} instructions); user space checks what it passes"
        ),
        Placed::Socket {
            insns,
            unsure_passes,
            ..
        } => format!(
            "filtering in the kernel (eBPF, {insns} instructions; passes {unsure_passes:?} are decided in user space)"
        ),
        Placed::Follow { insns, ftp } => format!(
            "filtering in the kernel (eBPF, {insns} instructions): the follower's base filter and listeners{}; user space decides each packet it passes",
            if *ftp { ", FTP announcements read in the kernel" } else { "" }
        ),
        Placed::Clauses => {
            "filtering in the kernel: the control socket's clauses, regenerated at each edit".into()
        }
        Placed::Xdp {
            insns,
            decisive,
            cap,
        } => format!(
            "capturing at the XDP hook of {iface} (eBPF, {insns} instructions{}): received frames only, up to {cap} bytes each",
            if *decisive { "" } else { "; user space decides what it passes" }
        ),
    }
}

/// The session's events as stderr lines; where the filter runs only if `says`
/// (`--place` given), as tcpdump says nothing of its kernel filter.
pub(crate) fn events(says: bool, iface: &str) -> Events {
    let iface = iface.to_string();
    Arc::new(move |e| match e {
        Event::Placed(p) if says || matches!(p, Placed::Xdp { .. }) => {
            eprintln!("{}", placed_line(&p, &iface));
        }
        Event::UserSpace { why } if says => eprintln!("netsift: filtering in user space: {why}"),
        Event::FollowUpdateFailed { packet, error } => {
            let at = packet.map_or_else(|| "live packet".to_string(), |n| format!("packet {n}"));
            eprintln!("netsift: follow: {at}: {error}; continuing without this update");
        }
        Event::KernelKeepsClause { clause, error } => {
            eprintln!("netsift: the kernel keeps clause {clause} after all: {error}");
        }
        _ => {}
    })
}
