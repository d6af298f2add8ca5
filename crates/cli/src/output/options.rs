//! The printer's options from the command line: `netsift_print` takes plain
//! values, and the names of this machine's interfaces come from `netsift_capture`.

use anyhow::{bail, Result};
use netsift_print::{Dump, PrintOptions, SummaryOptions, TimeFormat};
use std::collections::HashMap;
use std::sync::OnceLock;

/// The options of `-#`, `-t`..., `-e`, `-S`, `-v`, `-q`, `-x`, `-X`, `-A` and
/// `--time-stamp-precision`.
pub(super) fn print_options(args: &crate::args::Args) -> Result<PrintOptions> {
    let Some(time) = TimeFormat::from_count(args.time_format) else {
        bail!("only -t, -tt, -ttt, -tttt and -ttttt are supported");
    };
    Ok(PrintOptions {
        summary: SummaryOptions {
            absolute_tcp_seq: args.absolute_seq,
            link_header: args.link_header,
            interface_name: Some(interface_name),
            verbose: args.verbose,
            quiet: args.quiet,
            udp_as_vxlan: args.packet_type.as_deref() == Some("vxlan"),
        },
        time,
        nano: args.nano(),
        dump: Dump::from_counts(args.hex, args.hex_ascii, args.ascii),
        number: args.number,
    })
}

/// The name of this machine's interface `index`, as tcpdump's `if_indextoname`
/// gives it for an SLL2 header (read once from /sys/class/net).
fn interface_name(index: u32) -> Option<String> {
    static NAMES: OnceLock<HashMap<u32, String>> = OnceLock::new();
    NAMES
        .get_or_init(|| {
            netsift_capture::interfaces()
                .map(|v| v.into_iter().map(|i| (i.index, i.name)).collect())
                .unwrap_or_default()
        })
        .get(&index)
        .cloned()
}
