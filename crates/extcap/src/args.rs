//! The extcap command line (Wireshark's `doc/extcap.adoc`): what Wireshark and
//! tshark pass, parsed by hand because they may pass options a newer version
//! adds, which an extcap program ignores rather than fails on.

use std::path::PathBuf;

/// What the program is asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// `--extcap-interfaces`: list the interfaces.
    Interfaces,
    /// `--extcap-dlts`: the link types of one interface.
    Dlts(String),
    /// `--extcap-config`: the options Wireshark shows for one interface.
    Config(String),
    /// `--extcap-capture-filter F` without `--capture`: is F valid there?
    Validate(String, String),
    /// `--capture`: capture from an interface into a FIFO (pcap).
    Capture {
        /// `netsift:SOURCE`.
        interface: String,
        /// Where Wireshark reads.
        fifo: PathBuf,
        /// The capture filter, if any.
        filter: String,
    },
}

/// The parsed command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Args {
    /// The step.
    pub(crate) step: Step,
    /// The daemon's socket (`--socket`, else `NETSIFT_SOCKET`, else the default).
    pub(crate) socket: Option<PathBuf>,
    /// `--snaplen`, if given.
    pub(crate) snaplen: Option<u32>,
    /// Options not known here, ignored (said on stderr).
    pub(crate) ignored: Vec<String>,
}

/// Options that take a value.
const VALUED: &[&str] = &[
    "--extcap-interface",
    "--fifo",
    "--extcap-capture-filter",
    "--extcap-version",
    "--socket",
    "--snaplen",
    "--extcap-control-in",
    "--extcap-control-out",
    "--log-level",
    "--log-file",
];

/// Parses `args` (without the program's name).
pub(crate) fn parse(args: &[String]) -> Result<Args, String> {
    let mut flags: Vec<&str> = Vec::new();
    let mut values: Vec<(&str, String)> = Vec::new();
    let mut ignored = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        if VALUED.contains(&name) {
            let v = match inline {
                Some(v) => v,
                None => it
                    .next()
                    .cloned()
                    .ok_or_else(|| format!("{name} needs a value"))?,
            };
            values.push((name, v));
        } else if matches!(
            name,
            "--extcap-interfaces" | "--extcap-dlts" | "--extcap-config" | "--capture"
        ) {
            flags.push(name);
        } else {
            ignored.push(a.clone());
        }
    }
    let value = |n: &str| {
        values
            .iter()
            .rev()
            .find(|(k, _)| *k == n)
            .map(|(_, v)| v.clone())
    };
    let has = |n: &str| flags.contains(&n);
    let interface = value("--extcap-interface");
    let need_interface = |what: &str| {
        interface
            .clone()
            .ok_or_else(|| format!("{what} needs --extcap-interface"))
    };
    let step = if has("--extcap-interfaces") {
        Step::Interfaces
    } else if has("--capture") {
        Step::Capture {
            interface: need_interface("--capture")?,
            fifo: value("--fifo")
                .map(PathBuf::from)
                .ok_or("--capture needs --fifo")?,
            filter: value("--extcap-capture-filter").unwrap_or_default(),
        }
    } else if has("--extcap-dlts") {
        Step::Dlts(need_interface("--extcap-dlts")?)
    } else if has("--extcap-config") {
        Step::Config(need_interface("--extcap-config")?)
    } else if let Some(f) = value("--extcap-capture-filter") {
        Step::Validate(need_interface("--extcap-capture-filter")?, f)
    } else {
        return Err(
            "nothing to do: --extcap-interfaces, --extcap-dlts, --extcap-config or --capture"
                .to_string(),
        );
    };
    let snaplen = match value("--snaplen") {
        None => None,
        Some(s) => Some(
            s.parse::<u32>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("--snaplen {s:?}: a positive number"))?,
        ),
    };
    Ok(Args {
        step,
        socket: value("--socket")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from),
        snaplen,
        ignored,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Args, String> {
        parse(&s.split(' ').map(String::from).collect::<Vec<_>>())
    }

    #[test]
    fn what_wireshark_passes() {
        let a = p("--extcap-interfaces --extcap-version=4.0").unwrap();
        assert_eq!(a.step, Step::Interfaces);
        let a = p("--extcap-dlts --extcap-interface netsift:eth0").unwrap();
        assert_eq!(a.step, Step::Dlts("netsift:eth0".into()));
        let a = p("--capture --extcap-interface netsift:eth0 --fifo /tmp/f --extcap-capture-filter=tcp --socket /s --snaplen 96").unwrap();
        assert_eq!(
            a.step,
            Step::Capture {
                interface: "netsift:eth0".into(),
                fifo: "/tmp/f".into(),
                filter: "tcp".into()
            }
        );
        assert_eq!((a.socket, a.snaplen), (Some("/s".into()), Some(96)));
        let a = p("--extcap-interface netsift:x --extcap-capture-filter udp --new-thing").unwrap();
        assert_eq!(a.step, Step::Validate("netsift:x".into(), "udp".into()));
        assert_eq!(a.ignored, ["--new-thing"]);
    }

    #[test]
    fn what_is_missing_is_said() {
        assert_eq!(
            p("--capture --fifo /f").unwrap_err(),
            "--capture needs --extcap-interface"
        );
        assert_eq!(
            p("--capture --extcap-interface i").unwrap_err(),
            "--capture needs --fifo"
        );
        assert!(p("--extcap-dlts --extcap-interface")
            .unwrap_err()
            .contains("needs a value"));
        assert!(p("--extcap-interfaces --snaplen 0")
            .unwrap_err()
            .contains("--snaplen"));
        assert!(p("").unwrap_err().starts_with("nothing to do"));
    }
}
