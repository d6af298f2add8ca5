//! Command-line flags, tcpdump's letters where tcpdump has one.

use anyhow::{anyhow, bail, Context, Result};
use clap::Parser;
use netsift_wire::LinkType;
use std::path::PathBuf;

#[derive(Parser, Debug, Clone)]
#[command(
    name = "netsift",
    version,
    // tcpdump's -V reads a list of files; the version is --version only, as there.
    disable_version_flag = true,
    // As GNU getopt for tcpdump: a flag given again overrides (`-c 1 -c 2`).
    args_override_self = true,
    about = "Filter packets from capture files and interfaces with pcap filter expressions, like tcpdump",
    after_help = "EXPRESSION is a pcap-filter(7) expression; its words are joined with spaces.\n\n\
                  `netsift flow [--socket PATH] -i SOURCE [-w FILE] [-c N] [display flags] [EXPRESSION]` \
                  reads a flow of netsiftd instead (`netsift flow -D` lists its sources)."
)]
pub(crate) struct Args {
    /// Read packets from FILE (pcap or pcapng).
    #[arg(short = 'r', value_name = "FILE", conflicts_with = "interface")]
    pub read: Option<PathBuf>,
    /// Read the capture files named in FILE, one a line ('-' for standard input),
    /// one after the other, as tcpdump -V does.
    #[arg(short = 'V', value_name = "FILE", conflicts_with_all = ["read", "interface"])]
    pub read_list: Option<PathBuf>,
    /// Capture live from network interface IFACE (AF_PACKET, TPACKET_V3 ring).
    #[arg(short = 'i', long = "interface", value_name = "IFACE")]
    pub interface: Option<String>,
    /// Keep at most SNAPLEN bytes of each live packet (0: 262144, tcpdump's default).
    #[arg(short = 's', long = "snapshot-length", value_name = "SNAPLEN", value_parser = snaplen)]
    pub snaplen: Option<u32>,
    /// The capture ring's size in KiB (tcpdump's -B; 2048 by default).
    #[arg(short = 'B', long = "buffer-size", value_name = "KIB", value_parser = clap::value_parser!(u32).range(1..))]
    pub buffer_kib: Option<u32>,
    /// Don't put the interface into promiscuous mode.
    #[arg(short = 'p', long = "no-promiscuous-mode")]
    pub no_promiscuous: bool,
    /// Capture only packets received (in), sent (out), or both (inout).
    #[arg(short = 'Q', long = "direction", value_name = "DIRECTION", value_parser = ["in", "out", "inout"])]
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
    /// With -w: before writing a packet, start a new file if the current one holds
    /// more than SIZE million bytes (FILE, FILE1, FILE2, ...).
    #[arg(short = 'C', value_name = "SIZE", value_parser = file_size, allow_negative_numbers = true)]
    pub rotate_size: Option<u64>,
    /// With -w: start a new file every SECONDS seconds of wall-clock time; FILE is
    /// a strftime(3) format in local time.
    #[arg(short = 'G', value_name = "SECONDS", value_parser = rotate_seconds, allow_negative_numbers = true)]
    pub rotate_seconds: Option<u32>,
    /// With -C: reuse N files in a ring (FILE0 ... FILE(N-1)); with -G alone: stop
    /// after N files.
    #[arg(short = 'W', value_name = "N", value_parser = file_count, allow_negative_numbers = true)]
    pub rotate_files: Option<u32>,
    /// With -w: flush the file after each packet rather than when the buffer fills.
    #[arg(short = 'U', long = "packet-buffered")]
    pub packet_buffered: bool,
    /// Stop after N accepted packets.
    #[arg(short = 'c', value_name = "N", value_parser = packet_count, allow_negative_numbers = true)]
    pub count: Option<u64>,
    /// Print the compiled passes instead of filtering (netsift's program); -dd:
    /// the classic BPF program libpcap makes for the same filter, as a C array
    /// (tcpdump -dd); -ddd: the same in decimal, after its length (tcpdump -ddd).
    ///
    /// How to read the listing (docs/isa.md, section 7). A packet is accepted
    /// when every instruction of some `pass N` holds. `anchors:` names the places
    /// a field may be read from: `@1 = ipv4-payload(@0 + 14)` is the transport
    /// header of the IPv4 header that starts 14 bytes into the packet (`@0`, its
    /// start); a chain of equal constant steps (how an offset past 64 KiB is
    /// built) is one line, `@1..@16 = const(@previous + 65535)`. A field is
    /// `[offset:size]` from the packet's start or `[@k+offset:size]` from anchor
    /// k. `eq F in {...}` holds when F is one of the values, `meq F & M in {...}`
    /// masks it first, `range F & M in [lo, hi]` tests a range, and `eq2 F or [+4]
    /// & M in {...}` tests F and the field 4 bytes further on, either of them
    /// (`or`) or both (`and`): that is how `host` tests source and destination at
    /// once. `not` negates. `len in [lo, hi]` tests the length on the wire, `arith`
    /// an expression on loaded values. `group subs a..b` holds when one of the
    /// sub-passes `sub a` to `sub b-1` does. `pass N (child of P)` begins with
    /// P's instructions, each marked `[copied]`: their result is P's, computed
    /// once. Values are written as tcpdump writes them where the field is known:
    /// IPv4 addresses as dotted quads, IPv6 addresses by groups of 16 bits, ports
    /// and VLAN IDs in decimal, EtherTypes and IP protocols by name and number
    /// (`IPv4 (0x0800)`, `tcp (6)`); other values in hexadecimal. With --place
    /// kernel or xdp, the generated eBPF program instead, in bpftool's notation
    /// (`r0 = *(u16 *)skb[12]`).
    #[arg(short = 'd', action = clap::ArgAction::Count)]
    pub dump: u8,
    /// Quiet: tcpdump's shorter lines (`tcp 0`, `UDP, length 12`: less protocol
    /// detail).
    #[arg(short = 'q')]
    pub quiet: bool,
    /// Verbose: tcpdump -v's output (IP TTL, id, offset, flags, length and
    /// options; checksums; TCP options; more of each protocol). -vv and -vvv print
    /// as -v.
    #[arg(short = 'v', action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Print the link-level header on each line (MAC addresses, EtherType, VLAN tags).
    #[arg(short = 'e')]
    pub link_header: bool,
    /// Print absolute TCP sequence numbers rather than relative ones.
    #[arg(short = 'S', long = "absolute-tcp-sequence-numbers")]
    pub absolute_seq: bool,
    /// Time stamps: -t none, -tt seconds since the epoch, -ttt time since the
    /// previous packet, -tttt date and time, -ttttt time since the first packet.
    /// Dates and times are in local time (TZ).
    #[arg(short = 't', action = clap::ArgAction::Count)]
    pub time_format: u8,
    /// Print and write time stamps in microseconds or nanoseconds.
    #[arg(long = "time-stamp-precision", value_name = "PRECISION", value_parser = ["micro", "nano"], overrides_with_all = ["nano", "micro"])]
    pub ts_precision: Option<String>,
    /// Short for --time-stamp-precision=nano.
    #[arg(long = "nano", overrides_with_all = ["micro", "ts_precision"])]
    pub nano: bool,
    /// Short for --time-stamp-precision=micro.
    #[arg(long = "micro", overrides_with_all = ["nano", "ts_precision"])]
    pub micro: bool,
    /// Print each packet's bytes in hex after its line, without the link-level
    /// header (-xx: with it).
    #[arg(short = 'x', action = clap::ArgAction::Count)]
    pub hex: u8,
    /// Print each packet's bytes in hex and ASCII, without the link-level header
    /// (-XX: with it).
    #[arg(short = 'X', action = clap::ArgAction::Count)]
    pub hex_ascii: u8,
    /// Print each packet's bytes in ASCII, without the link-level header (-AA: with it).
    #[arg(short = 'A', action = clap::ArgAction::Count)]
    pub ascii: u8,
    /// Start each line with the packet's number.
    #[arg(short = '#', long = "number")]
    pub number: bool,
    /// Flush standard output after each line.
    #[arg(short = 'l')]
    pub line_buffered: bool,
    /// Print only the number of accepted packets, at the end (with -r or -V).
    #[arg(long = "count")]
    pub count_only: bool,
    /// Print the version and exit.
    #[arg(long = "version", action = clap::ArgAction::Version)]
    pub version: Option<bool>,
    /// Print the manual page or a shell's completion script, made from these
    /// flags, and exit.
    #[arg(long = "generate", value_name = "WHAT", hide = true, value_parser = ["man", "bash", "zsh", "fish", "elvish", "powershell"])]
    pub generate: Option<String>,
    /// Don't convert addresses, ports and protocols to names (without it, names come
    /// from /etc/services, /etc/hosts, /etc/ethers and tcpdump's tables, never from
    /// DNS). -nn is the same, as in tcpdump 4.99.
    #[arg(short = 'n', action = clap::ArgAction::Count)]
    pub numeric: u8,
    /// Read the filter expression from FILE, as tcpdump -F does: `#` starts a comment
    /// to the end of the line, and an expression on the command line is ignored.
    #[arg(short = 'F', value_name = "FILE")]
    pub filter_file: Option<PathBuf>,
    /// Link type for -d without -r (EN10MB, RAW, IPV4, IPV6, NULL, LOOP, LINUX_SLL, LINUX_SLL2).
    #[arg(short = 'y', long = "linktype", value_name = "LINKTYPE")]
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
    /// clause; replies `ok N`), `del N`, `list`, `param N +VALUE|-VALUE` (one more or
    /// one fewer address or port in clause N's values, as Swift's add_param and
    /// del_param: no compiling). EXPRESSION, if given, is clause 0;
    /// without one nothing is captured until a clause is added.
    #[arg(
        long = "control",
        value_name = "PATH",
        requires = "interface",
        conflicts_with = "follow"
    )]
    pub control: Option<PathBuf>,
    /// Where the filter runs: `user` (in the capture ring), `kernel` (also an eBPF
    /// socket filter generated from it drops what it rejects before the ring, and
    /// where it is decisive user space does not filter again), `auto` (the kernel
    /// where the program loads, else user space, saying which), or `xdp` (an XDP
    /// program on the interface copies what it accepts to user space, before the
    /// kernel builds a socket buffer; received frames only). Without --place, as
    /// `auto` but saying nothing, as tcpdump filters in the kernel. Static filters,
    /// --control's clauses and --follow's first stage (listeners, and FTP
    /// announcements read in the kernel), on Ethernet interfaces; with -d, shows the
    /// generated program.
    #[arg(long = "place", value_name = "WHERE", value_parser = ["user", "kernel", "auto", "xdp"])]
    pub place: Option<String>,
    // Live VLAN traffic (docs/status.md), its own block.
    /// With -i: filter a frame whose VLAN tag the kernel took out with the tag in
    /// place, as a capture file holds it (and as -r filters it), instead of as
    /// tcpdump -i does: without the tag, `vlan` testing the tag the kernel kept
    /// beside the frame, so that `ip` and `host` also match tagged traffic. Written
    /// frames hold their tags either way. Static filters, the clauses of
    /// --control and --follow alike.
    #[arg(long = "vlan-as-file", requires = "interface")]
    pub vlan_as_file: bool,
    // --follow's safety options (docs/follow.md), kept together.
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
    /// `netsift flow`: the socket of netsiftd (default: $NETSIFT_SOCKET, else
    /// /run/netsift.sock).
    #[arg(long = "socket", value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// `netsift flow --daemon-stats`: print the daemon's accounting (per
    /// source: batches, packets, filter runs, distinct filters, kernel
    /// clauses, groups, flows, stored copies) and exit.
    #[arg(long = "daemon-stats")]
    pub daemon_stats: bool,
    /// `netsift flow --graph TEXT`: the flow is a filter graph in FFPF's
    /// ffpf-flow syntax, e.g. '(device,eth0) -> (pcap,"udp") -> (sampler,2,4)',
    /// run by netsiftd (sharing every prefix with the graphs it runs), instead
    /// of an expression. With -d: print each instance and where it runs, and
    /// exit.
    #[arg(long = "graph", value_name = "TEXT")]
    pub graph: Option<String>,
    /// With --graph: write the daemon's running graph (the flows your rights
    /// see, their filter instances, the classes) as Graphviz DOT to FILE.
    #[arg(long = "graph-dot", value_name = "FILE", requires = "graph")]
    pub graph_dot: Option<PathBuf>,
    /// With --graph: write the same as SVG to FILE (needs Graphviz's `dot`).
    #[arg(long = "graph-svg", value_name = "FILE", requires = "graph")]
    pub graph_svg: Option<PathBuf>,
    /// With --graph: deliver what element N (0-based, in written order)
    /// passes, instead of what the graph's last elements pass.
    #[arg(long = "element", value_name = "N", requires = "graph")]
    pub element: Option<u32>,
    /// `netsift flow --instance ID`: deliver what the running filter
    /// instance ID of the source's graph passes (one a flow of your class of
    /// rights uses; `netsift flow -d --graph` lists them), instead of an
    /// expression or a graph.
    #[arg(long = "instance", value_name = "ID", conflicts_with = "graph")]
    pub instance: Option<u64>,
    // tcpdump's remaining flags (issue 27), kept together: each works as
    // tcpdump's or is refused with its reason (`crate::tcpdump_flags`).
    /// With -w: also print each packet's line on stdout, as without -w.
    #[arg(long = "print")]
    pub print: bool,
    /// Don't verify IP, TCP and UDP checksums. netsift prints no checksum
    /// verdict without -v; with -v it is refused, for now.
    #[arg(short = 'K', long = "dont-verify-checksums")]
    pub dont_verify_checksums: bool,
    /// Interpret the packets the filter selects as TYPE: every UDP payload
    /// is read as `aodv`, `cnfp`, `domain`, `lmp`, `pgm`, `pgm_zmtp1`, `ptp`,
    /// `radius`, `rpc` (calls as the portmapper's, the rest as NFS replies),
    /// `rtcp`, `rtp`, `snmp`, `someip`, `tftp`, `vat`, `vxlan` or `wb`, every
    /// TCP payload as `resp`, `domain` or `zmtp1`, whatever the ports, and
    /// IP protocol 112 as `carp` instead of VRRP.
    #[arg(short = 'T', value_name = "TYPE")]
    pub packet_type: Option<String>,
    /// After opening the capture (and the output file), run as USER and its
    /// group. Without -Z, root runs as `tcpdump` when that user exists, as
    /// tcpdump does; `-Z root` keeps root.
    #[arg(short = 'Z', long = "relinquish-privileges", value_name = "USER")]
    pub user: Option<String>,
    /// With -C or -G: run COMMAND FILE on each file once it is closed (in the
    /// background, as tcpdump does; not for the last file).
    #[arg(short = 'z', value_name = "COMMAND")]
    pub postrotate: Option<String>,
    /// IPsec ESP decryption (tcpdump -E): refused, netsift does not decrypt ESP.
    #[arg(short = 'E', value_name = "SPI@IPADDR ALGO:SECRET")]
    pub esp_secret: Option<String>,
    /// TCP-MD5 signature checking (tcpdump -M): refused, netsift does not
    /// check TCP signatures.
    #[arg(short = 'M', value_name = "SECRET")]
    pub tcp_secret: Option<String>,
    /// Load an SNMP MIB module (tcpdump -m): refused, netsift does not use
    /// libsmi.
    #[arg(short = 'm', value_name = "MODULE")]
    pub mib_module: Option<String>,
    /// Put the interface in monitor mode (802.11 only): refused on interfaces
    /// that cannot, with tcpdump's message, and not implemented on those that can.
    #[arg(short = 'I', long = "monitor-mode")]
    pub monitor: bool,
    /// Time stamps of type TYPE: `host` (the kernel's, the only type an
    /// AF_PACKET ring gives); another known type is warned about and the host's
    /// used, as tcpdump does.
    #[arg(short = 'j', long = "time-stamp-type", value_name = "TYPE")]
    pub ts_type: Option<String>,
    /// List the time stamp types of the interface (-i, or the default one), and exit.
    #[arg(short = 'J', long = "list-time-stamp-types")]
    pub list_ts_types: bool,
    /// Don't optimise the classic program of -dd/-ddd (tcpdump's -O). netsift's
    /// own program (-d) and what is captured do not change.
    #[arg(short = 'O', long = "no-optimize")]
    pub no_optimize: bool,
    /// Print BGP AS numbers above 65535 in ASDOT notation (x.y).
    #[arg(short = 'b')]
    pub asdot: bool,
    /// Detect 802.11s mesh headers: a QoS data frame's mesh control field is
    /// read as part of its header (and printed with -e).
    #[arg(short = 'H')]
    pub mesh_headers: bool,
    /// Print undecoded NFS handles: each file handle as its 32-bit words in
    /// hex (`fh[...]`), not the file system and file number guessed from it.
    #[arg(short = 'u')]
    pub nfs_handles: bool,
    /// Print foreign IPv4 addresses numerically: on a live interface, addresses
    /// outside its IPv4 network print as numbers without -n. Refused with -r
    /// and -V, as tcpdump refuses it: a file has no local network.
    #[arg(short = 'f')]
    pub foreign_numeric: bool,
    /// Don't print the domain of host names (`host.example.org` as `host`).
    #[arg(short = 'N')]
    pub no_domain: bool,
    // End of tcpdump's remaining flags.
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
pub(crate) fn permute(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
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
            Some(c) if s.starts_with('-') && (c.is_ascii_alphabetic() || c == '#') => {
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

/// `-C SIZE`: millions of bytes, a positive whole number, as tcpdump 4.99 reads it.
fn file_size(s: &str) -> std::result::Result<u64, String> {
    match s.parse::<i64>() {
        Ok(n) if n > 0 => u64::try_from(n)
            .ok()
            .and_then(|n| n.checked_mul(1_000_000))
            .filter(|&b| b <= i64::MAX as u64)
            .ok_or_else(|| format!("file size {s} is too large")),
        _ => Err(format!("invalid file size {s}")),
    }
}

/// `-G SECONDS`: tcpdump reads it with atoi (so words are 0, no rotation) and
/// refuses a negative number.
fn rotate_seconds(s: &str) -> std::result::Result<u32, String> {
    let n = atoi(s);
    u32::try_from(n).map_err(|_| format!("invalid number of seconds {s}"))
}

/// `-W N`: a positive number (atoi, as tcpdump).
fn file_count(s: &str) -> std::result::Result<u32, String> {
    match u32::try_from(atoi(s)) {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("invalid number of output files {s}")),
    }
}

/// C's atoi: leading blanks, a sign and the digits that follow; 0 without digits.
fn atoi(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let n = digits
        .bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0i64, |n, d| {
            n.saturating_mul(10).saturating_add(i64::from(d - b'0'))
        });
    if neg {
        -n
    } else {
        n
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
    pub(crate) fn expression_text(&self) -> Result<String> {
        // `permute` took every option out of the words, wherever it stood; what
        // is left is expression text, even a word that starts with '-' after `--`
        // (`-- '-len < 0xc1'`), as tcpdump reads it.
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

    /// Whether time stamps are printed and written in nanoseconds.
    pub(crate) fn nano(&self) -> bool {
        self.nano || self.ts_precision.as_deref() == Some("nano")
    }

    pub(crate) fn linktype(&self) -> Result<LinkType> {
        match &self.linktype {
            None => Ok(LinkType::EN10MB),
            Some(name) => match LinkType::from_name(name) {
                Some(lt) => Ok(lt),
                None => {
                    // Every name -y accepts, as from_name looks them up.
                    let names: Vec<&str> = LinkType::SUPPORTED
                        .into_iter()
                        .chain(LinkType::filtered_more())
                        .filter_map(LinkType::name)
                        .collect();
                    bail!(
                        "unknown link type '{name}' (use one of: {})",
                        names.join(", ")
                    )
                }
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
    use super::{atoi, blank_comments, file_size};

    #[test]
    fn sizes_and_counts_read_as_tcpdump_reads_them() {
        assert_eq!(file_size("1"), Ok(1_000_000));
        assert!(file_size("0").is_err());
        assert!(file_size("1k").is_err());
        assert!(file_size("99999999999999").is_err());
        assert_eq!(atoi(" 12x"), 12);
        assert_eq!(atoi("-3"), -3);
        assert_eq!(atoi("x"), 0);
    }

    #[test]
    fn comments_become_spaces_to_the_end_of_their_line() {
        assert_eq!(
            blank_comments("udp # dns\n and port 53#x"),
            "udp      \n and port 53  "
        );
    }
}
