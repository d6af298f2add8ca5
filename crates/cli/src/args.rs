//! Command-line flags, tcpdump's letters where tcpdump has one.

use anyhow::{anyhow, bail, Context, Result};
use clap::Parser;
use netsift_wire::LinkType;
use std::path::PathBuf;

#[derive(Parser, Debug, Clone)]
#[command(
    name = "netsift",
    version,
    about = "Filter capture files with pcap filter expressions, like tcpdump",
    after_help = "EXPRESSION is a pcap-filter(7) expression; its words are joined with spaces."
)]
pub struct Args {
    /// Read packets from FILE (pcap or pcapng).
    #[arg(short = 'r', value_name = "FILE", conflicts_with = "interface")]
    pub read: Option<PathBuf>,
    /// Capture live from network interface IFACE (AF_PACKET, TPACKET_V3 ring).
    #[arg(short = 'i', value_name = "IFACE")]
    pub interface: Option<String>,
    /// Keep at most SNAPLEN bytes of each live packet (0: 262144, tcpdump's default).
    #[arg(short = 's', value_name = "SNAPLEN", value_parser = snaplen)]
    pub snaplen: Option<u32>,
    /// The capture ring's size in KiB (tcpdump's -B; 2048 by default).
    #[arg(short = 'B', value_name = "KIB", value_parser = clap::value_parser!(u32).range(1..))]
    pub buffer_kib: Option<u32>,
    /// Don't put the interface into promiscuous mode.
    #[arg(short = 'p')]
    pub no_promiscuous: bool,
    /// Capture only packets received (in), sent (out), or both (inout).
    #[arg(short = 'Q', value_name = "DIRECTION", value_parser = ["in", "out", "inout"])]
    pub direction: Option<String>,
    /// Capture with N worker threads, each with its own ring in one PACKET_FANOUT
    /// group (flow hash); the output is merged in time-stamp order.
    #[arg(long = "workers", value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub workers: Option<u16>,
    /// With --workers and -w FILE: each worker writes FILE.0, FILE.1, ... instead of
    /// one merged file.
    #[arg(long = "worker-files", requires = "workers")]
    pub worker_files: bool,
    /// List the interfaces live capture can open, and exit.
    #[arg(short = 'D', long = "list-interfaces")]
    pub list_interfaces: bool,
    /// List the data link types of the interface given with -i, and exit.
    #[arg(short = 'L', long = "list-data-link-types")]
    pub list_link_types: bool,
    /// Hand each packet over as soon as it arrives (a 1 ms ring block timeout).
    #[arg(long = "immediate-mode")]
    pub immediate: bool,
    /// Write the accepted packets to FILE as pcap, as tcpdump -w does ('-' for stdout).
    #[arg(short = 'w', value_name = "FILE")]
    pub write: Option<PathBuf>,
    /// Stop after N accepted packets.
    #[arg(short = 'c', value_name = "N", value_parser = packet_count, allow_negative_numbers = true)]
    pub count: Option<u64>,
    /// Print the compiled passes instead of filtering.
    #[arg(short = 'd')]
    pub dump: bool,
    /// Quiet: shorter per-packet lines (time, length and the network summary's first words).
    #[arg(short = 'q')]
    pub quiet: bool,
    /// Don't resolve addresses or ports (netsift never does; -n and -nn are accepted for
    /// tcpdump compatibility).
    #[arg(short = 'n', action = clap::ArgAction::Count)]
    pub numeric: u8,
    /// Read the filter expression from FILE, as tcpdump -F does: `#` starts a comment
    /// to the end of the line, and an expression on the command line is ignored.
    #[arg(short = 'F', value_name = "FILE")]
    pub filter_file: Option<PathBuf>,
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
    /// With -i: let other programs edit the filter while capturing, through a Unix
    /// socket at PATH (mode 0600). Commands, one per line: `add EXPR` (an OR-ed
    /// clause; replies `ok N`), `del N`, `list`. EXPRESSION, if given, is clause 0;
    /// without one nothing is captured until a clause is added.
    #[arg(
        long = "control",
        value_name = "PATH",
        requires = "interface",
        conflicts_with = "follow"
    )]
    pub control: Option<PathBuf>,
    // --follow's safety options (issue 15, docs/follow.md), kept together.
    /// With --follow: accept an FTP/SIP/RTSP announced address that is not the
    /// announcing side's own (conntrack's `loose`), and SIP/RTSP media from any host
    /// (its `sip_direct_media=0`). UNSAFE: any peer of a control connection can then
    /// point the capture at any host.
    #[arg(long = "follow-loose", requires = "follow")]
    pub follow_loose: bool,
    /// With --follow: at most N expectations and flows in all (default 1024; never
    /// more than the live filter can hold).
    #[arg(long = "follow-max-flows", value_name = "N", requires = "follow")]
    pub follow_max_flows: Option<usize>,
    /// With --follow: at most N expectations and flows per control connection, SIP
    /// dialog or RTSP session (default 16).
    #[arg(long = "follow-max-per-session", value_name = "N", requires = "follow")]
    pub follow_max_per_session: Option<usize>,
    /// With --follow: at most N control connections, and N dialogs and sessions,
    /// remembered (default 4096).
    #[arg(long = "follow-max-sessions", value_name = "N", requires = "follow")]
    pub follow_max_sessions: Option<usize>,
    /// The filter expression.
    #[arg(trailing_var_arg = true)]
    pub expression: Vec<String>,
}

/// The command line put in the order clap reads it, as GNU getopt permutes tcpdump's:
/// options (wherever they stand, `-nnr FILE` and `-c5` clusters included) first, then
/// the expression's words. `--` ends the options. Which letters take a value comes
/// from the flags' own definitions, so the two cannot disagree. A word of the form
/// `-` + a letter that is no option is left for clap to refuse; `-` + a digit is an
/// expression word (`ip[0] - -1`).
pub fn permute(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    use clap::CommandFactory;
    let cmd = Args::command();
    let takes_value = |c: char| {
        cmd.get_arguments()
            .find(|a| a.get_short() == Some(c))
            .map(|a| a.get_action().takes_values())
    };
    let long_takes_value = |name: &str| {
        cmd.get_arguments()
            .find(|a| a.get_long() == Some(name))
            .is_some_and(|a| a.get_action().takes_values())
    };
    let mut it = args.into_iter();
    let mut opts: Vec<std::ffi::OsString> = it.next().into_iter().collect();
    let mut words = Vec::new();
    while let Some(a) = it.next() {
        let Some(s) = a.to_str().map(str::to_string) else {
            words.push(a);
            continue;
        };
        if s == "--" {
            words.extend(it.by_ref());
            break;
        }
        if let Some(long) = s.strip_prefix("--") {
            opts.push(a);
            if !long.contains('=') && long_takes_value(long) {
                opts.extend(it.next());
            }
            continue;
        }
        let mut chars = s.chars().skip(1);
        match chars.next() {
            Some(c) if s.starts_with('-') && c.is_ascii_alphabetic() => {
                opts.push(a.clone());
                // The cluster's last letter that takes a value takes the next word
                // when nothing follows it in the cluster (`-nnr FILE`, not `-c5`).
                let mut needs = false;
                for (i, c) in s.char_indices().skip(1) {
                    if takes_value(c) == Some(true) {
                        needs = i + 1 == s.len();
                        break;
                    }
                }
                if needs {
                    opts.extend(it.next());
                }
            }
            _ => words.push(a),
        }
    }
    if !words.is_empty() {
        opts.push("--".into());
        opts.extend(words);
    }
    opts
}

/// `-s N`: a snap length; 0 means tcpdump's default, and larger ones are cut to it.
fn snaplen(s: &str) -> std::result::Result<u32, String> {
    match s.trim().parse::<i64>() {
        Ok(0) => Ok(262_144),
        Ok(n) if n > 0 => Ok(n.min(262_144) as u32),
        _ => Err(format!("invalid snaplen {s}")),
    }
}

/// `-c N`: a positive count, refused as tcpdump refuses 0 and negative ones.
fn packet_count(s: &str) -> std::result::Result<u64, String> {
    match s.trim().parse::<i64>() {
        Ok(n) if n > 0 => Ok(n as u64),
        Ok(_) => Err(format!("invalid packet count {s}")),
        Err(_) => Err(format!("invalid packet count {s} (not a number)")),
    }
}

impl Args {
    /// The filter expression: the file of `-F` (comments blanked out, as tcpdump's
    /// `read_infile` does), else the command line's words joined with spaces.
    pub fn expression_text(&self) -> Result<String> {
        // An option after the expression would otherwise be read as filter words
        // ('-v' as a syntax error at 'v'): a word that looks like an option is one.
        // No word of the filter language starts with '-' and a letter.
        if let Some(w) = self
            .expression
            .iter()
            .find(|w| w.starts_with('-') && w[1..].starts_with(|c: char| c.is_ascii_alphabetic()))
        {
            bail!(
                "unknown or misplaced option '{w}': netsift takes its options before the expression (see netsift --help)"
            );
        }
        let Some(path) = &self.filter_file else {
            return Ok(self.expression.join(" "));
        };
        let bytes =
            std::fs::read(path).with_context(|| format!("can't open {}", path.display()))?;
        if bytes.contains(&0) {
            bail!("{}: the filter file holds a NUL byte", path.display());
        }
        let text = String::from_utf8(bytes)
            .map_err(|e| anyhow!("{}: the filter file is not UTF-8 text: {e}", path.display()))?;
        if !self.expression.is_empty() {
            eprintln!(
                "netsift: warning: the expression on the command line is ignored, -F {} gives it",
                path.display()
            );
        }
        Ok(blank_comments(&text))
    }

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

/// `text` with every `#` comment (to the end of its line) replaced by spaces, so that
/// error columns still point into the file's text.
fn blank_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_comment = false;
    for c in text.chars() {
        match c {
            '\n' => {
                in_comment = false;
                out.push(c);
            }
            '#' => {
                in_comment = true;
                out.push(' ');
            }
            _ if in_comment => out.extend(std::iter::repeat_n(' ', c.len_utf8())),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::blank_comments;

    #[test]
    fn comments_become_spaces_to_the_end_of_their_line() {
        assert_eq!(
            blank_comments("udp # dns\n and port 53#x"),
            "udp      \n and port 53  "
        );
    }
}
