//! `--generate man|bash|zsh|fish|elvish|powershell`: the manual page and shell
//! completions, made from the same clap definitions as `--help`, so the three
//! cannot disagree. docs/netsift.1 and docs/completions/ are this output, checked
//! in; a test fails when they are stale.
//!
//! The manual's SYNOPSIS is written here from the flags (tcpdump's shape: the
//! letters without a value in one bracket, then each option with its value's
//! name), as clap_mangen's lists every flag without its value; the sections a
//! manual page has and clap knows nothing of (EXAMPLES, EXIT STATUS,
//! ENVIRONMENT, FILES, SEE ALSO) follow the options.

use anyhow::{bail, Context, Result};
use clap::{Arg, CommandFactory};
use clap_complete::Shell;
use roff::{bold, italic, roman, Inline, Roff};

/// The text of the manual page or of a shell's completion script.
pub(crate) fn generate(what: &str) -> Result<String> {
    let mut cmd = crate::args::Args::command();
    if what == "man" {
        return manual(cmd);
    }
    let Ok(shell) = what.parse::<Shell>() else {
        bail!("--generate: unknown shell '{what}'");
    };
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "netsift", &mut buf);
    String::from_utf8(buf).context("the generated text is not UTF-8")
}

/// Flags of `netsift flow` only, shown on its own synopsis line.
const FLOW_ONLY: &[&str] = &[
    "socket",
    "daemon-stats",
    "graph",
    "graph-dot",
    "graph-svg",
    "element",
    "instance",
];

fn manual(mut cmd: clap::Command) -> Result<String> {
    cmd.build();
    let man = clap_mangen::Man::new(cmd.clone());
    let mut out = Vec::new();
    man.render_title(&mut out)
        .and_then(|()| man.render_name_section(&mut out))
        .context("rendering the manual page")?;
    synopsis(&cmd).to_writer(&mut out)?;
    man.render_description_section(&mut out)
        .and_then(|()| man.render_options_section(&mut out))
        .context("rendering the manual page")?;
    sections().to_writer(&mut out)?;
    man.render_version_section(&mut out)
        .context("rendering the manual page")?;
    let text = String::from_utf8(out).context("the generated text is not UTF-8")?;
    // Each part starts with roff's apostrophe preamble; once is enough.
    let preamble = Roff::new().render();
    let body = text.replace(&preamble, "");
    Ok(format!("{preamble}{body}"))
}

/// How an option's value is named: `<FILE>` → `FILE`.
fn value_name(a: &Arg) -> Option<String> {
    if !a.get_action().takes_values() {
        return None;
    }
    let names = a.get_value_names()?;
    Some(
        names
            .iter()
            .map(|n| n.as_str())
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// The order tcpdump's synopsis has: by letter, lower case first, `#` last.
fn order(a: &Arg) -> (bool, String, bool) {
    match a.get_short() {
        Some('#') => (true, String::new(), false),
        Some(c) => (false, c.to_ascii_lowercase().to_string(), c.is_uppercase()),
        None => (false, a.get_long().unwrap_or_default().to_string(), false),
    }
}

/// `[-B KIB]`, `[--workers N]`, `[--print]`.
fn option(a: &Arg) -> Vec<Inline> {
    let name = match (a.get_short(), a.get_long()) {
        (Some(c), _) => format!("-{c}"),
        (None, Some(l)) => format!("--{l}"),
        (None, None) => return Vec::new(),
    };
    let mut v = vec![roman("["), bold(name)];
    if let Some(value) = value_name(a) {
        v.extend([roman(" "), italic(value)]);
    }
    v.push(roman("] "));
    v
}

fn synopsis(cmd: &clap::Command) -> Roff {
    let mut args: Vec<&Arg> = cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !a.is_positional())
        .collect();
    args.sort_by_key(|a| order(a));
    let flow_only = |a: &Arg| a.get_long().is_some_and(|l| FLOW_ONLY.contains(&l));
    let letters: String = args
        .iter()
        .filter(|a| value_name(a).is_none() && !flow_only(a))
        .filter_map(|a| a.get_short())
        .collect();
    let mut line = vec![bold("netsift"), roman(" [")];
    line.push(bold(format!("-{letters}")));
    line.push(roman("] "));
    for a in args.iter().filter(|a| !flow_only(a)) {
        // Letters without a value are in the bracket above.
        if a.get_short().is_none() || value_name(a).is_some() {
            line.extend(option(a));
        }
    }
    line.extend([roman("["), italic("EXPRESSION"), roman("]")]);
    let mut flow = vec![bold("netsift flow"), roman(" ")];
    for a in args.iter().filter(|a| flow_only(a)) {
        flow.extend(option(a));
    }
    flow.extend([
        roman("[display flags] ["),
        bold("-i"),
        roman(" "),
        italic("SOURCE"),
        roman("] ["),
        bold("-w"),
        roman(" "),
        italic("FILE"),
        roman("] ["),
        italic("EXPRESSION"),
        roman("]"),
    ]);
    let mut r = Roff::new();
    r.control("SH", ["SYNOPSIS"])
        .text(line)
        .control("br", [])
        .text(flow);
    r
}

/// A section of paragraphs, each either text or an indented example.
fn section(r: &mut Roff, name: &str, items: &[(&str, &str)]) {
    r.control("SH", [name]);
    for (head, body) in items {
        r.control("TP", []);
        r.text([bold(*head)]);
        r.text([roman(*body)]);
    }
}

/// EXAMPLES, EXIT STATUS, ENVIRONMENT, FILES and SEE ALSO.
fn sections() -> Roff {
    let mut r = Roff::new();
    section(
        &mut r,
        "EXAMPLES",
        &[
            (
                "netsift -nn -r trace.pcap 'udp port 53'",
                "Print the DNS packets of a capture file, addresses and ports as numbers.",
            ),
            (
                "netsift -i eth0 -w web.pcap 'tcp port 80 or tcp port 443'",
                "Write the web traffic of eth0 to a file until interrupted (Ctrl-C); the closing lines say how many packets were captured and dropped.",
            ),
            (
                "netsift -i eth0 -w trace-%Y%m%d-%H%M.pcap -G 3600 -W 24 -z gzip",
                "One file an hour for a day, each compressed by gzip once it is closed.",
            ),
            (
                "netsift -w ring.pcap -C 100 -W 10 -Z nobody",
                "On the default interface, a ring of ten files of 100 MB, created by user nobody.",
            ),
            (
                "netsift -d 'tcp[tcpflags] & tcp-syn != 0'",
                "Print netsift's program for a filter; -dd and -ddd print the classic BPF program libpcap makes for it, as tcpdump -dd and -ddd do.",
            ),
            (
                "netsift -i eth0 --follow ftp -w ftp.pcap",
                "Capture FTP control connections and the data connections they announce.",
            ),
            (
                "netsift -i eth0 --control /run/netsift.ctl 'tcp port 21'",
                "Capture with a filter other programs edit while it runs, e.g. echo 'add udp port 53' | socat - UNIX-CONNECT:/run/netsift.ctl.",
            ),
        ],
    );
    section(
        &mut r,
        "EXIT STATUS",
        &[
            ("0", "The run ended normally: the file was read, -c or -W was reached, or a signal (SIGINT, SIGTERM, SIGHUP) ended a live capture."),
            ("1", "An error, said on standard error after \"netsift: \": a bad flag or filter, a file that cannot be read or written, an interface that cannot be opened."),
            ("14", "Standard output could not be written (\"Unable to write output: Broken pipe\" when a reader such as head(1) went away), as tcpdump."),
        ],
    );
    section(
        &mut r,
        "ENVIRONMENT",
        &[
            ("TZ", "The time zone of the printed time stamps, and of the file names -G makes with strftime(3)."),
            ("NETSIFT_SOCKET", "The socket of netsiftd for netsift flow, when --socket is not given."),
            ("PATH", "Where the command of -z is looked for."),
        ],
    );
    section(
        &mut r,
        "FILES",
        &[
            ("/sys/class/net", "The interfaces -D lists, and the one captured on without -i: the first that is up and not a loopback."),
            ("/etc/passwd, /etc/group", "The user of -Z and its groups; without -Z, root becomes user tcpdump when it exists, once the capture is open."),
            ("/run/netsift.sock", "The socket of netsiftd that netsift flow connects to by default."),
        ],
    );
    r.control("SH", ["SEE ALSO"]);
    r.text([roman(
        "tcpdump(1), pcap-filter(7), pcap-savefile(5), pcap-linktype(7), pcap-tstamp(7), strftime(3); the README and docs/daemon.md (netsiftd) in netsift's sources.",
    )]);
    r
}
