//! What the program prints for Wireshark's three questions: its interfaces,
//! an interface's link types and its options (`doc/extcap.adoc`). Pure text,
//! so the tests read exactly what tshark reads.

use netsift_ffpf::proto::SourceInfo;
use netsift_wire::LinkType;

/// The prefix of every interface this program offers, so Wireshark's list
/// tells them from its own (`netsift:eth0` beside `eth0`).
pub(crate) const PREFIX: &str = "netsift:";

/// The source an interface name stands for (`netsift:eth0` → `eth0`).
pub(crate) fn source_of(interface: &str) -> Result<&str, String> {
    interface
        .strip_prefix(PREFIX)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| format!("{interface:?} is not a netsift interface ({PREFIX}SOURCE)"))
}

/// Escapes a value for an extcap `{key=value}` field (its syntax has no
/// escapes: braces would end the field, so they are replaced).
fn field(v: &str) -> String {
    v.replace(['{', '}'], "_").replace('\n', " ")
}

/// `--extcap-interfaces`: the program's line, then one line per source the
/// daemon owns (none when it cannot be reached: Wireshark then lists none).
pub(crate) fn interfaces(sources: &[SourceInfo]) -> String {
    let mut out = format!(
        "extcap {{version={}}}{{help=https://github.com/netsift/netsift/blob/main/docs/daemon.md}}\n",
        env!("CARGO_PKG_VERSION")
    );
    for s in sources {
        out.push_str(&format!(
            "interface {{value={PREFIX}{}}}{{display=netsift shared capture: {} ({})}}\n",
            field(&s.name),
            field(&s.name),
            field(&s.kind)
        ));
    }
    out
}

/// `--extcap-dlts`: the source's one link type.
pub(crate) fn dlts(source: &SourceInfo) -> String {
    let lt = LinkType(source.linktype);
    format!(
        "dlt {{number={}}}{{name={}}}{{display={}}}\n",
        lt.0,
        field(&lt.to_string()),
        field(&lt.with_description())
    )
}

/// `--extcap-config`: the options Wireshark offers for an interface.
pub(crate) fn config(default_socket: &str) -> String {
    format!(
        "arg {{number=0}}{{call=--socket}}{{display=netsiftd socket}}{{type=string}}{{default={}}}{{tooltip=The daemon's control socket (NETSIFT_SOCKET)}}\n\
         arg {{number=1}}{{call=--snaplen}}{{display=Snap length}}{{type=integer}}{{range=1,262144}}{{default=262144}}{{tooltip=Bytes kept of each packet}}\n",
        field(default_socket)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(name: &str) -> SourceInfo {
        SourceInfo {
            name: name.into(),
            kind: "ring".into(),
            linktype: 1,
            snaplen: 262_144,
        }
    }

    #[test]
    fn the_lines_wireshark_reads() {
        let text = interfaces(&[src("eth0"), src("we{ird}")]);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("extcap {version="));
        assert_eq!(
            lines[1],
            "interface {value=netsift:eth0}{display=netsift shared capture: eth0 (ring)}"
        );
        assert!(lines[2].starts_with("interface {value=netsift:we_ird_}"));
        assert_eq!(
            dlts(&src("eth0")),
            "dlt {number=1}{name=EN10MB}{display=EN10MB (Ethernet)}\n"
        );
        assert!(config("/run/netsift.sock").contains("{call=--socket}"));
        assert_eq!(source_of("netsift:eth0"), Ok("eth0"));
        assert!(source_of("eth0").is_err() && source_of("netsift:").is_err());
    }
}
