//! The printer's options from the command line: `netsift_print` takes plain
//! values, the names of this machine's interfaces come from `netsift_capture`,
//! and the names of its ports and hosts from its files in /etc.

use anyhow::{bail, Result};
use netsift_print::{
    DefaultPrint, Dump, Names, PacketType, PrintOptions, SummaryOptions, TimeFormat,
};
use std::collections::HashMap;
use std::net::Ipv4Addr;
use std::sync::OnceLock;

/// The options of `-#`, `-t`..., `-e`, `-S`, `-v`, `-q`, `-x`, `-X`, `-A` and
/// `--time-stamp-precision`.
pub(super) fn print_options(args: &crate::args::Args) -> Result<PrintOptions> {
    let Some(time) = TimeFormat::from_count(args.time_format) else {
        bail!("only -t, -tt, -ttt, -tttt and -ttttt are supported");
    };
    let dump = Dump::from_counts(args.hex, args.hex_ascii, args.ascii);
    Ok(PrintOptions {
        summary: SummaryOptions {
            absolute_tcp_seq: args.absolute_seq,
            link_header: args.link_header,
            interface_name: Some(interface_name),
            verbose: args.verbose,
            quiet: args.quiet,
            packet_type: args.packet_type.as_deref().and_then(PacketType::from_name),
            asdot: args.asdot,
            mesh_headers: args.mesh_headers,
            nfs_handles: args.nfs_handles,
            hex_ascii: args.hex_ascii > 0,
            names: (args.numeric == 0).then(|| system_names(args)),
            // tcpdump's -q, -x and -X (not -A) suppress most of its default print.
            default_print: if args.quiet
                || matches!(dump, Some(Dump::Hex { .. } | Dump::HexAscii { .. }))
            {
                DefaultPrint::Suppressed
            } else {
                DefaultPrint::On
            },
        },
        time,
        nano: args.nano(),
        dump,
        number: args.number,
    })
}

/// The names tcpdump prints without -n, from this machine's services, hosts and
/// ethers files, read once (a missing file names nothing). Host names
/// come from the hosts file only: no DNS query per address. `-N` cuts their
/// domains; `-f` on a live interface keeps addresses outside its IPv4 network
/// numeric (the network of tcpdump's `pcap_lookupnet`; `-f` with a file is
/// refused before this).
fn system_names(args: &crate::args::Args) -> &'static Names {
    static NAMES: OnceLock<Names> = OnceLock::new();
    NAMES.get_or_init(|| {
        let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
        let mut names = Names::new()
            .with_services(&read("/etc/services"))
            .with_hosts(&read("/etc/hosts"))
            .with_ethers(&read("/etc/ethers"));
        if args.no_domain {
            names = names.without_domains();
        }
        let local = args.interface.as_deref().and_then(ipv4_network);
        if let (true, Some((net, mask))) = (args.foreign_numeric, local) {
            names = names.foreign_numeric(net, mask);
        }
        names
    })
}

/// The network and mask of interface `name`'s first IPv4 address, as libpcap's
/// `pcap_lookupnet` gives them; `None` if it has none (tcpdump then names every
/// address under `-f`).
fn ipv4_network(name: &str) -> Option<(Ipv4Addr, Ipv4Addr)> {
    let addrs = nix::ifaddrs::getifaddrs().ok()?;
    addrs.filter(|a| a.interface_name == name).find_map(|a| {
        let addr = a.address?.as_sockaddr_in()?.ip();
        let mask = a.netmask?.as_sockaddr_in()?.ip();
        Some((Ipv4Addr::from(addr.to_bits() & mask.to_bits()), mask))
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
