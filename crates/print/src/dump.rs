//! `-x`, `-X` and `-A`: the packet's bytes after its line, in tcpdump 4.99's
//! formats (print-ascii.c), and where the link-level header that `-x`, `-X` and
//! `-A` leave out ends (the length each link type's printer reports to
//! `pretty_print_packet`).

use netsift_wire::LinkType;
use std::fmt::Write;

mod links;
pub(crate) mod ppi_header;
mod wlan;

/// Which dump follows each line; tcpdump checks `-X`, then `-x`, then `-A`.
///
/// In each, `link` says whether the dump starts at the link-level header (the
/// letter given twice) rather than after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dump {
    /// `-x`: hexadecimal, 16 bytes a line in groups of two.
    Hex {
        /// Dump the link-level header too (`-xx`).
        link: bool,
    },
    /// `-X`: hexadecimal as `-x`, then the same bytes as printable text.
    HexAscii {
        /// Dump the link-level header too (`-XX`).
        link: bool,
    },
    /// `-A`: the bytes as text, non-printable ones as `.`.
    Ascii {
        /// Dump the link-level header too (`-AA`).
        link: bool,
    },
}

impl Dump {
    /// The dump for the counts of `-x`, `-X` and `-A` (two of one letter: with
    /// the link-level header), if any.
    pub fn from_counts(x: u8, big_x: u8, a: u8) -> Option<Dump> {
        if big_x > 0 {
            Some(Dump::HexAscii { link: big_x > 1 })
        } else if x > 0 {
            Some(Dump::Hex { link: x > 1 })
        } else if a > 0 {
            Some(Dump::Ascii { link: a > 1 })
        } else {
            None
        }
    }

    /// Appends the dump of `data` (the captured bytes), given the length of the
    /// link-level header tcpdump's printer reported. Without the link-level
    /// header, a packet with nothing past it gets no dump.
    pub(crate) fn append(self, out: &mut String, data: &[u8], link_len: usize) {
        let (link, f): (bool, fn(&mut String, &[u8])) = match self {
            Dump::Hex { link } => (link, hex),
            Dump::HexAscii { link } => (link, hex_and_ascii),
            Dump::Ascii { link } => (link, ascii),
        };
        if link {
            f(out, data);
        } else if data.len() > link_len {
            f(out, &data[link_len..]);
        }
    }
}

/// `hex_print(ndo, "\n\t", ...)`: eight groups of two bytes a line.
pub(crate) fn hex(out: &mut String, data: &[u8]) {
    hex_print(out, "\n\t", data);
}

/// tcpdump's `print_unknown_data(ndo, cp, ident, len)`, which printers call for
/// what they do not decode (often only with `-vv`): the `len` bytes of `data`
/// that were captured, in hex, each line starting with `ident`. The caller ends
/// the line with the truncation marker when bytes are missing.
pub(crate) fn unknown_data(out: &mut String, ident: &str, data: &[u8], len: usize) {
    hex_print(out, ident, &data[..len.min(data.len())]);
}

/// tcpdump's `hex_print(ndo, ident, ...)`: eight groups of two bytes a line,
/// each line starting with `ident` and the offset.
pub(crate) fn hex_print(out: &mut String, ident: &str, data: &[u8]) {
    hex_print_with_offset(out, ident, data, 0);
}

/// tcpdump's `hex_print_with_offset`: [`hex_print`] whose first line is
/// numbered `offset`.
pub(crate) fn hex_print_with_offset(out: &mut String, ident: &str, data: &[u8], offset: usize) {
    for (line, chunk) in data.chunks(16).enumerate() {
        let _ = write!(out, "{ident}0x{:04x}: ", offset + line * 16);
        for pair in chunk.chunks(2) {
            match pair {
                [a, b] => {
                    let _ = write!(out, " {a:02x}{b:02x}");
                }
                [a] => {
                    let _ = write!(out, " {a:02x}");
                }
                _ => {}
            }
        }
    }
}

/// `hex_and_ascii_print(ndo, "\n\t", ...)`: the hex column padded to 40
/// characters, two spaces, then the printable bytes (`.` for the others).
pub(crate) fn hex_and_ascii(out: &mut String, data: &[u8]) {
    hex_and_ascii_ident(out, "\n\t", data);
}

/// `hex_and_ascii_print` with its `ident` before each line.
pub(crate) fn hex_and_ascii_ident(out: &mut String, ident: &str, data: &[u8]) {
    let mut hexes = String::with_capacity(40);
    for (line, chunk) in data.chunks(16).enumerate() {
        hexes.clear();
        for pair in chunk.chunks(2) {
            for b in pair.iter().take(1) {
                let _ = write!(hexes, " {b:02x}");
            }
            for b in pair.iter().skip(1) {
                let _ = write!(hexes, "{b:02x}");
            }
        }
        let text: String = chunk.iter().map(|&b| graphic(b)).collect();
        let _ = write!(out, "{ident}0x{:04x}: {hexes:<40}  {text}", line * 16);
    }
}

/// `ascii_print`: a newline, then the bytes, printable ones and newlines, tabs and
/// spaces as they are and others as `.`; a CR is dropped before LF and at the end.
fn ascii(out: &mut String, data: &[u8]) {
    out.push('\n');
    for (i, &b) in data.iter().enumerate() {
        let left = data.len() - i - 1;
        if b == b'\r' {
            if left > 1 && data[i + 1] != b'\n' {
                out.push('.');
            }
        } else if b.is_ascii_graphic() || matches!(b, b'\t' | b' ' | b'\n') {
            out.push(char::from(b));
        } else {
            out.push('.');
        }
    }
}

fn graphic(b: u8) -> char {
    if b.is_ascii_graphic() {
        char::from(b)
    } else {
        '.'
    }
}

/// The length of the link-level header tcpdump 4.99's printer for `linktype`
/// reports for this packet (`hdrlen` in `pretty_print_packet`): what `-x`, `-X`
/// and `-A` leave out. `data` is the captured bytes, `wire_len` the length on the
/// wire and `summary` the packet's line.
///
/// A packet cut short inside a higher layer ends its line with a `[|proto]`
/// marker, printed one of two ways. Most of tcpdump 4.99's printers read with
/// `GET_` macros, which `longjmp` out of the printer; `pretty_print_packet`
/// then prints the marker and dumps the whole packet (a length of 0). The
/// printers in [`CATCHING_PRINTERS`] test the lengths of their own headers first
/// (`ND_TCHECK`, `goto trunc`), print the marker themselves and return, so the
/// link-level header is still left out. Where the link layer itself is cut short,
/// the link printers return what they consumed.
///
/// The marker is what the summary line tells; which of the two ended it is
/// known inside the summary's printers, and reporting it from there would
/// replace the table.
pub(crate) fn link_header_len(
    linktype: LinkType,
    data: &[u8],
    wire_len: u32,
    summary: &str,
    mesh: bool,
) -> usize {
    let truncated = summary
        .rfind("[|")
        .and_then(|i| summary[i + 2..].split(']').next())
        .is_some_and(|proto| !CATCHING_PRINTERS.contains(&proto));
    let (len, early) = layer_len(linktype, data, wire_len as usize, mesh);
    if truncated && !early {
        0
    } else {
        len
    }
}

/// `chdlc_print`'s `hdrlen`: the 4-byte header, or what was captured where
/// it returns early (a frame, or ISO inside it, shorter than its header).
fn chdlc(data: &[u8], wire_len: usize) -> (usize, bool) {
    match be16(data, 2) {
        _ if wire_len < 4 => (data.len(), true),
        Some(0xfefe) if wire_len < 6 => (data.len(), true),
        Some(_) => (4, false),
        // GET_BE_U_2 on a header cut short: a longjmp.
        None => (0, true),
    }
}

/// The link-level header length of `linktype`'s printer, and whether it
/// returned early (cut short in the link layer, with no `longjmp`); `mesh`:
/// 802.11's mesh control field is part of the header (`-H`).
fn layer_len(linktype: LinkType, data: &[u8], wire_len: usize, mesh: bool) -> (usize, bool) {
    match linktype {
        LinkType::EN10MB => ethernet(data, wire_len),
        LinkType::LINUX_SLL => sll(data, 16, 14),
        LinkType::LINUX_SLL2 => sll(data, 20, 0),
        LinkType::C_HDLC => chdlc(data, wire_len),
        LinkType::NULL | LinkType::LOOP => match data.len() >= 4 {
            true => (4, false),
            // ND_TCHECK_LEN on the 4-byte header: a longjmp.
            false => (0, true),
        },
        lt => links::header_len(lt, data, wire_len, mesh)
            .or_else(|| wlan::header_len(lt, data, wire_len, mesh).map(|l| (l, false)))
            .unwrap_or((0, false)),
    }
}

/// The protocols (by their `[|name]`) whose tcpdump 4.99.3 printers catch a
/// truncation of their header themselves instead of ending with a `longjmp`.
/// The ISO printers (isis, clnp, esis) test most lengths before reading, but
/// not all: on the corpus only ES-IS's options with `-v` end with a `longjmp`.
/// HNCP, LLDP, AFS's protection server (`pt`) and TFTP print their marker and
/// return too (`cli/tests/display.rs` compares the dumps); Kerberos and RESP
/// do on some paths only, and say so per packet (`Printer::caught`).
const CATCHING_PRINTERS: [&str; 18] = [
    "tcp",
    "udp",
    "ip",
    "ip6",
    "gre",
    "esp",
    "domain",
    "clnp",
    "esis",
    "isis",
    "802.11",
    "802.11_radio",
    "802.11_radio_avs",
    "prism",
    "hncp",
    "lldp",
    "pt",
    "tftp",
];

/// The big-endian 16-bit field at `at`, if captured.
fn be16(data: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*data.get(at)?, *data.get(at + 1)?]))
}

const VLAN_TYPES: [u16; 4] = [0x8100, 0x9100, 0x9200, 0x88a8];

/// `ether_common_print`'s `hdrlen`, and whether it returned early (the frame cut
/// short in the link layer, with no `longjmp`).
pub(super) fn ethernet(data: &[u8], wire_len: usize) -> (usize, bool) {
    let caplen = data.len();
    if wire_len < caplen {
        return (wire_len, true);
    }
    if caplen < 14 {
        return (caplen, true);
    }
    let mut hdr = 14;
    let Some(mut ty) = be16(data, 12) else {
        return (caplen, true);
    };
    loop {
        if ty == 0x88e5 {
            // 802.1AE MACsec: the SecTAG (6 bytes, 14 with the SCI) is part of the
            // link-level header; an encrypted payload ends it there, an integrity-only
            // one goes on with the type field inside.
            let Some(&tci) = data.get(hdr) else {
                return (0, true);
            };
            let Some(&sl) = data.get(hdr + 1) else {
                return (0, true);
            };
            let sectag = if tci & 0x20 != 0 { 14 } else { 6 };
            if sl & !0x3f != 0 || tci & 0x80 != 0 {
                return (caplen, true);
            }
            if tci & 0x0c != 0 {
                return (hdr + sectag, false);
            }
            if caplen < hdr + sectag + 16 || wire_len < hdr + sectag + 16 {
                return (caplen, true);
            }
            // The short length, when given, must fit before the 16-byte ICV.
            let sl = usize::from(sl & 0x3f);
            if sl > wire_len - hdr - sectag - 16 || sl > caplen - hdr - sectag - 16 {
                return (caplen, true);
            }
            let Some(inner) = be16(data, hdr + sectag) else {
                return (0, true);
            };
            ty = inner;
            hdr += sectag + 2;
        }
        while VLAN_TYPES.contains(&ty) {
            if caplen - hdr < 4 {
                return (caplen, true);
            }
            if wire_len - hdr < 4 {
                return (wire_len, true);
            }
            let Some(inner) = be16(data, hdr + 2) else {
                return (caplen, true);
            };
            ty = inner;
            hdr += 4;
        }
        let (mut length, mut cap) = (wire_len - hdr, caplen - hdr);
        return if ty <= 1500 {
            // A length field: the payload is cut to it.
            if usize::from(ty) < length {
                length = usize::from(ty);
                cap = cap.min(length);
            }
            let (llc, early) = llc(&data[hdr..hdr + cap], length);
            (hdr + llc, early)
        } else if ty == 0x8870 {
            // Alteon jumbo frames: an LLC header follows the type.
            let (llc, early) = llc(&data[hdr..], length);
            (hdr + llc, early)
        } else if ty == 0xd28b {
            // Arista's vendor header: with a subtype and format it knows, tcpdump
            // counts it in the link-level header and goes back to the type after
            // it (`goto recurse`); otherwise the rest is dumped from here.
            if cap < 2 || length < 2 {
                return (hdr + cap.min(length), true);
            }
            match arista_len(&data[hdr..]) {
                Some(n) => match be16(data, hdr + n) {
                    Some(next) => {
                        ty = next;
                        hdr += n + 2;
                        continue;
                    }
                    None => (0, false),
                },
                None => (hdr, false),
            }
        } else {
            (hdr, false)
        };
    }
}

/// The bytes `arista_ethertype_print` consumes: the timestamp subtype with a
/// 64- or 48-bit timestamp; `None` where it returns -1.
fn arista_len(p: &[u8]) -> Option<usize> {
    let subtype = be16(p, 0)?;
    let format = p.get(3)? >> 4;
    match (subtype, format) {
        (1, 1) => Some(12),
        (1, 2) => Some(10),
        _ => None,
    }
}

/// The absolute value of `llc_print`'s result: 3 bytes of LLC header (4 for an
/// I or S frame), 5 more for SNAP; what it consumed when cut short.
pub(super) fn llc(p: &[u8], length: usize) -> (usize, bool) {
    if p.len() < 3 {
        return (p.len(), true);
    }
    if length < 3 {
        return (length, true);
    }
    if p[0] == 0xff && p[1] == 0xff {
        // Novell's raw 802.3: IPX with no LLC header at all.
        return (0, false);
    }
    let (dsap, ssap, ctrl) = (p[0] & !1, p[1] & !1, p[2]);
    let unnumbered = ctrl & 3 == 3;
    let hdr = if unnumbered {
        3
    } else if p.len() < 4 {
        return (p.len(), true);
    } else if length < 4 {
        return (length, true);
    } else {
        4
    };
    if dsap == 0xaa && ssap == 0xaa && ctrl == 0x03 {
        (hdr + 5, false)
    } else {
        (hdr, false)
    }
}

/// `sll_if_print` / `sll2_if_print`: the cooked header of `hdr` bytes with the
/// protocol at `proto_at`, any 802.1Q tags after it, and an 802.2 LLC header the
/// printer knows.
fn sll(data: &[u8], hdr: usize, proto_at: usize) -> (usize, bool) {
    if data.len() < hdr {
        // ND_TCHECK_LEN on the cooked header: a longjmp.
        return (0, true);
    }
    let Some(mut proto) = be16(data, proto_at) else {
        return (0, true);
    };
    let mut len = hdr;
    loop {
        if proto <= 1500 {
            // LINUX_SLL_P_802_2: the LLC header counts when its type is known.
            if proto == 4 {
                let (l, early) = llc(&data[len..], data.len() - len);
                if early || known_llc(&data[len..]) {
                    len += l;
                }
            }
            return (len, false);
        }
        if proto != 0x8100 {
            return (len, false);
        }
        if data.len() - len < 4 {
            return (data.len(), true);
        }
        let Some(inner) = be16(data, len + 2) else {
            return (data.len(), true);
        };
        proto = if inner <= 1500 { 4 } else { inner };
        len += 4;
    }
}

/// Whether `llc_print` hands this LLC frame to a printer (a positive result):
/// SNAP, spanning tree, IP, IPX, NetBEUI or OSI UI frames, and XID.
fn known_llc(p: &[u8]) -> bool {
    let (dsap, ssap, ctrl) = (p[0] & !1, p[1] & !1, p[2]);
    let ui = ctrl == 0x03;
    (dsap == ssap && ui && matches!(dsap, 0xaa | 0x42 | 0x06 | 0xe0 | 0xfe))
        || (dsap == 0xf0 && ssap == 0xf0)
        || (ctrl & 3 == 3 && ctrl & !0x10 == 0xaf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_match_tcpdumps_own_example() {
        // print-ascii.c's MAIN: hex_print and hex_and_ascii_print of "Hello, World!\n".
        let mut out = String::new();
        hex(&mut out, b"Hello, World!\n");
        assert_eq!(out, "\n\t0x0000:  4865 6c6c 6f2c 2057 6f72 6c64 210a");
        out.clear();
        hex_and_ascii(&mut out, b"Hello, World!\n");
        assert_eq!(
            out,
            "\n\t0x0000:  4865 6c6c 6f2c 2057 6f72 6c64 210a       Hello,.World!."
        );
        out.clear();
        hex(&mut out, &[1, 2, 3]);
        assert_eq!(out, "\n\t0x0000:  0102 03");
        out.clear();
        ascii(&mut out, b"a\r\nb\rc\r");
        assert_eq!(out, "\na\nb.c");
    }

    #[test]
    fn ethernet_headers_count_tags_and_llc() {
        let mut f = vec![0u8; 60];
        f[12..14].copy_from_slice(&[0x81, 0x00]);
        f[16..18].copy_from_slice(&[0x08, 0x00]);
        assert_eq!(link_header_len(LinkType::EN10MB, &f, 60, "", false), 18);
        f[16..18].copy_from_slice(&[0x00, 0x20]);
        f[18..21].copy_from_slice(&[0xaa, 0xaa, 0x03]);
        assert_eq!(link_header_len(LinkType::EN10MB, &f, 60, "", false), 26);
        assert_eq!(
            link_header_len(LinkType::EN10MB, &f[..10], 60, "", false),
            10
        );
        assert_eq!(
            link_header_len(LinkType::EN10MB, &f, 60, "ARP, [|arp]", false),
            0
        );
        assert_eq!(
            link_header_len(LinkType::EN10MB, &f, 60, "IP  [|ip]", false),
            26
        );
    }
}
