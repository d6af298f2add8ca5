//! `-dd` and `-ddd`: the classic BPF program that libpcap (the installed
//! 1.10, through `netsift_oracle`) makes for the same filter, link type and
//! snapshot length, in tcpdump's two formats, so that a user can compare it
//! with tcpdump's or load it where a classic program is wanted. netsift itself
//! never runs it: its own program is `-d`'s listing.

use crate::args::Args;
use anyhow::{anyhow, bail, Result};
use netsift_wire::LinkType;
use std::fmt::Write;

/// The program of `expr` for link type `lt` and snapshot length `snaplen`,
/// as `tcpdump -dd` (a C array's initialisers) or `-ddd` (the count, then one
/// instruction a line in decimal) prints it: libpcap's `bpf_dump`.
pub(crate) fn dump(args: &Args, expr: &str, lt: LinkType, snaplen: u32) -> Result<String> {
    if args.follow.is_some() || args.control.is_some() {
        bail!("-dd: --follow and --control change the filter while capturing; there is no one classic program");
    }
    // libpcap wants LINKTYPE values as its DLTs; the oracle maps them.
    let f = netsift_oracle::Filter::compile_with(lt, expr, snaplen, !args.no_optimize)
        .map_err(|e| anyhow!("-dd: libpcap refuses the filter: {e}"))?;
    let insns = f.insns();
    let mut out = String::new();
    if args.dump > 2 {
        let _ = writeln!(out, "{}", insns.len());
    }
    for i in insns {
        let _ = if args.dump > 2 {
            writeln!(out, "{} {} {} {}", i.code, i.jt, i.jf, i.k)
        } else {
            writeln!(
                out,
                "{{ {:#x}, {}, {}, {:#010x} }},",
                i.code, i.jt, i.jf, i.k
            )
        };
    }
    Ok(out)
}
