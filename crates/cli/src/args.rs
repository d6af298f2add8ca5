//! Command-line flags, tcpdump's letters where tcpdump has one.

use anyhow::{bail, Result};
use clap::Parser;
use netsift_wire::LinkType;
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "netsift",
    version,
    about = "Filter capture files with pcap filter expressions, like tcpdump",
    after_help = "EXPRESSION is a pcap-filter(7) expression; its words are joined with spaces."
)]
pub struct Args {
    /// Read packets from FILE (pcap or pcapng).
    #[arg(short = 'r', value_name = "FILE")]
    pub read: Option<PathBuf>,
    /// Write the accepted packets to FILE as pcap, as tcpdump -w does ('-' for stdout).
    #[arg(short = 'w', value_name = "FILE")]
    pub write: Option<PathBuf>,
    /// Stop after N accepted packets.
    #[arg(short = 'c', value_name = "N")]
    pub count: Option<u64>,
    /// Print the compiled passes instead of filtering.
    #[arg(short = 'd')]
    pub dump: bool,
    /// Quiet: shorter per-packet lines (time, length and the network summary's first words).
    #[arg(short = 'q')]
    pub quiet: bool,
    /// Don't resolve addresses (netsift never does; accepted for tcpdump compatibility).
    #[arg(short = 'n')]
    pub numeric: bool,
    /// Link type for -d without -r (EN10MB, RAW, IPV4, IPV6, NULL, LOOP, LINUX_SLL, LINUX_SLL2).
    #[arg(short = 'y', value_name = "LINKTYPE")]
    pub linktype: Option<String>,
    /// Follow control protocols (comma-separated: ftp, sip, rtsp) and capture the data
    /// flows they announce, updating the filter while reading. EXPRESSION, if given,
    /// replaces the default base filter (the protocols' control ports).
    #[arg(long = "follow", value_name = "PROTOCOLS")]
    pub follow: Option<String>,
    /// With --follow: track flows in a hash-table (SET) instruction instead of one pass
    /// per server; O(1) per flow for any number of flows.
    #[arg(long = "follow-set", requires = "follow")]
    pub follow_set: bool,
    /// The filter expression.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub expression: Vec<String>,
}

impl Args {
    pub fn linktype(&self) -> Result<LinkType> {
        match &self.linktype {
            None => Ok(LinkType::EN10MB),
            Some(name) => match LinkType::from_name(name) {
                Some(lt) => Ok(lt),
                None => bail!("unknown link type '{name}' (use EN10MB, RAW, IPV4, IPV6, NULL, LOOP, LINUX_SLL or LINUX_SLL2)"),
            },
        }
    }
}
