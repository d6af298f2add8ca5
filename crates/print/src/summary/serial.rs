//! Serial-line and firewall-log link layers: PPP (`ppp_if_print`), Cisco HDLC
//! (`chdlc_print`, with SLARP), SLIP (`sl_if_print`), OpenBSD pflog
//! (`pflog_if_print`) and Solaris ipnet (`ipnet_if_print`), as tcpdump 4.99 prints
//! them, `-e` included (but for SLIP's compressed TCP, which needs tcpdump's state of
//! earlier packets).

use super::{g1, g2, g4, gv4, need, out, print_char, tail, PResult, Printer, Trunc};
use netsift_wire::ethernet::EtherType;

/// Cisco HDLC's SLARP: a request, a reply, or a keepalive with an optional uptime.
const SLARP_MIN_LEN: u32 = 14;
const SLARP_MAX_LEN: u32 = 18;

/// The SLIP and ipnet headers' lengths.
const SLIP_HDRLEN: usize = 16;
const IPNET_HDRLEN: usize = 24;

/// pflog: the shortest header length tcpdump accepts, its `struct pfloghdr` (64
/// bytes on Linux), and the offsets and sizes it prints.
const PFLOG_MIN_HDRLEN: u8 = 45;
const PFLOG_STRUCT_LEN: usize = 64;
const PFLOG_NAME_LEN: usize = 16;

/// tcpdump's `pf_reasons` for Linux, quirk included: its entry for "3(short)" has
/// the number of "4(normalize)", so 3 is unknown and 4 prints as "3(short)".
fn pf_reason(r: u8) -> String {
    const NAMES: [&str; 15] = [
        "0(match)",
        "1(bad-offset)",
        "2(fragment)",
        "3(short)",
        "4(normalize)",
        "5(memory)",
        "6(bad-timestamp)",
        "7(congestion)",
        "8(ip-option)",
        "9(proto-cksum)",
        "10(state-mismatch)",
        "11(state-insert)",
        "12(state-limit)",
        "13(src-limit)",
        "14(synproxy)",
    ];
    match r {
        3 => format!("unkn({r})"),
        4 => NAMES[3].to_string(),
        r => NAMES
            .get(r as usize)
            .map_or_else(|| format!("unkn({r})"), |n| n.to_string()),
    }
}

/// tcpdump's `pf_actions` for Linux (no name for 3, `noscrub`).
fn pf_action(a: u8) -> String {
    const NAMES: [Option<&str>; 11] = [
        Some("pass"),
        Some("block"),
        Some("scrub"),
        None,
        Some("nat"),
        Some("nonat"),
        Some("binat"),
        Some("nobinat"),
        Some("rdr"),
        Some("nordr"),
        Some("synproxy-drop"),
    ];
    match NAMES.get(a as usize).copied().flatten() {
        Some(n) => n.to_string(),
        None => format!("unkn({a})"),
    }
}

impl Printer<'_> {
    /// DLT_PPP: at least the 4-byte header, then `ppp_print`.
    pub(super) fn ppp_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "ppp";
        if data.len() < 4 {
            return Err(Trunc);
        }
        self.ppp(data, length)
    }

    /// `chdlc_print`: address (unicast 0x0f, broadcast 0x8f), control, Ethertype.
    pub(super) fn chdlc_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "chdlc";
        if length < 4 {
            return Err(Trunc);
        }
        let proto = g2(data, 2)?;
        if self.opts.link_header {
            let cast = match g1(data, 0)? {
                0x0f => "unicast".to_string(),
                0x8f => "bcast".to_string(),
                b => format!("0x{b:02x}"),
            };
            let name = EtherType(proto).name().unwrap_or("Unknown");
            out!(
                self,
                "{cast}, ethertype {name} (0x{proto:04x}), length {length}: "
            );
        }
        let (p, length) = (tail(data, 4), length - 4);
        match EtherType(proto) {
            EtherType::IPV4 => self.ipv4(p, length),
            EtherType::IPV6 => self.ipv6(p, length),
            EtherType::MPLS_UNICAST | EtherType::MPLS_MULTICAST => self.mpls(p, length)?,
            EtherType(0xfefe) => self.chdlc_iso(p, length)?,
            // Cisco's SLARP reuses Reverse ARP's number.
            EtherType::RARP => {
                self.proto = "chdlc_slarp";
                self.slarp(p, length)?
            }
            _ if !self.opts.link_header => {
                out!(self, "unknown CHDLC protocol (0x{proto:04x})")
            }
            _ => {}
        }
        Ok(())
    }

    /// ISO over Cisco HDLC: tcpdump skips a padding byte when the next holds
    /// an NLPID.
    fn chdlc_iso(&mut self, p: &[u8], length: u32) -> PResult {
        if length < 2 {
            return Err(Trunc);
        }
        match g1(p, 1)? {
            0x81..=0x83 => self.isoclns(tail(p, 1), length - 1),
            _ => self.isoclns(p, length),
        }
    }

    fn slarp(&mut self, p: &[u8], length: u32) -> PResult {
        out!(self, "SLARP (length: {length}), ");
        if length < SLARP_MIN_LEN || p.len() < SLARP_MIN_LEN as usize {
            return Err(Trunc);
        }
        match g4(p, 0)? {
            0 => out!(self, "request"),
            1 => out!(self, "reply {}/{}", gv4(p, 4)?, gv4(p, 8)?),
            2 => {
                out!(
                    self,
                    "keepalive: mineseen=0x{:08x}, yourseen=0x{:08x}, reliability=0x{:04x}",
                    g4(p, 4)?,
                    g4(p, 8)?,
                    g2(p, 12)?
                );
                if length >= SLARP_MAX_LEN {
                    let mut sec = g4(p, 14)? / 1000;
                    let mut min = sec / 60;
                    sec -= min * 60;
                    let mut hrs = min / 60;
                    min -= hrs * 60;
                    let days = hrs / 24;
                    hrs -= days * 24;
                    out!(self, ", link uptime={days}d{hrs}h{min}m{sec}s");
                }
            }
            code => {
                out!(self, "0x{code:02x} unknown");
                if self.opts.verbose <= 1 {
                    self.unknown_data(p, 4, length as usize - 4, "\n\t");
                }
            }
        }
        if SLARP_MAX_LEN < length && self.opts.verbose > 0 {
            out!(self, ", (trailing junk: {} bytes)", length - SLARP_MAX_LEN);
        }
        if self.opts.verbose > 1 {
            // tcpdump's pointer has moved past the fixed part of a
            // keepalive with an uptime: its dump starts 14 bytes later.
            let moved = g4(p, 0)? == 2 && length >= SLARP_MAX_LEN;
            let at = if moved { 18 } else { 4 };
            self.unknown_data(p, at, length as usize - 4, "\n\t");
        }
        Ok(())
    }

    /// `pflog_if_print`: the header its length byte says (rounded up to 4), then IPv4
    /// or IPv6 by its address family; `-e` first prints the rule, reason, action,
    /// direction and interface.
    pub(super) fn pflog_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "pflog";
        let hlen = g1(data, 0)?;
        if hlen < PFLOG_MIN_HDRLEN {
            out!(self, "[pflog: invalid header length!]");
            return Ok(());
        }
        let hdrlen = (hlen as usize + 3) & !3;
        if data.len() < hdrlen || data.len() < PFLOG_STRUCT_LEN {
            return Err(Trunc);
        }
        if self.opts.link_header {
            self.pflog_hdr(data)?;
        }
        let (p, length) = (tail(data, hdrlen), length.wrapping_sub(hdrlen as u32));
        match g1(data, 1)? {
            2 => self.ipv4(p, length),
            24 | 28 | 30 => self.ipv6(p, length),
            _ if !self.opts.link_header => self.pflog_hdr(data)?,
            _ => {}
        }
        Ok(())
    }

    /// `pflog_print`.
    fn pflog_hdr(&mut self, h: &[u8]) -> PResult {
        let (rulenr, subrulenr) = (g4(h, 36)?, g4(h, 40)?);
        if subrulenr == u32::MAX {
            out!(self, "rule {rulenr}/");
        } else {
            out!(self, "rule {rulenr}.");
            self.pf_name(&h[20..20 + PFLOG_NAME_LEN]);
            out!(self, ".{subrulenr}/");
        }
        let dir = match g1(h, 60)? {
            0 => "in/out".to_string(),
            1 => "in".to_string(),
            2 => "out".to_string(),
            d => format!("unkn({d})"),
        };
        let (reason, action) = (pf_reason(g1(h, 3)?), pf_action(g1(h, 2)?));
        out!(self, "{reason}: {action} {dir} on ");
        self.pf_name(&h[4..4 + PFLOG_NAME_LEN]);
        out!(self, ": ");
        Ok(())
    }

    /// `nd_printjnp`: a NUL-terminated name of at most `b.len()` bytes.
    fn pf_name(&mut self, b: &[u8]) {
        for &c in b.iter().take_while(|&&c| c != 0) {
            print_char(&mut self.out, c);
        }
    }

    /// `sl_if_print`: a 16-byte header (direction, then the compression header), and
    /// IP by its version nibble.
    pub(super) fn slip_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "slip";
        if data.len() < SLIP_HDRLEN {
            return Err(Trunc);
        }
        let length = length.wrapping_sub(SLIP_HDRLEN as u32);
        let ip = tail(data, SLIP_HDRLEN);
        if self.opts.link_header {
            self.sliplink(data, length)?;
        }
        match g1(ip, 0)? >> 4 {
            4 => self.ipv4(ip, length),
            6 => self.ipv6(ip, length),
            v => out!(self, "ip v{v}"),
        }
        Ok(())
    }

    /// `sliplink_print`, but for compressed TCP (a link part left empty).
    fn sliplink(&mut self, h: &[u8], length: u32) -> PResult {
        let dir = g1(h, 0)?;
        match dir {
            0 => out!(self, "I "),
            1 => out!(self, "O "),
            d => out!(self, "Invalid direction {d} "),
        }
        let chdr = g1(h, 1)?;
        match chdr & 0xf0 {
            0x40 => out!(self, "ip {}: ", length.wrapping_add(SLIP_HDRLEN as u32)),
            // The connection id is in the IP protocol field of the saved header;
            // tcpdump then remembers the payload length for the compressed
            // packets that follow, if the direction is valid.
            0x70 => {
                let conn = g1(h, 1 + 9)?;
                self.tcp.slip.last_conn = conn;
                out!(self, "utcp {conn}: ");
                if dir <= 1 {
                    self.slip_payload_len(h, length, dir)?;
                }
            }
            _ if dir > 1 => {}
            _ if chdr & 0x80 != 0 => {
                self.compressed_sl(h, length, dir)?;
                out!(self, ": ");
            }
            _ => out!(self, "slip-{chdr}!: "),
        }
        Ok(())
    }

    /// `lastlen[dir][lastconn] = length - (hlen << 2)`: the TCP payload
    /// length of the packet after the header `h`, which a compressed packet
    /// of the connection prints next. The IP and TCP headers must be captured
    /// (`ND_TCHECK_SIZE`, a `longjmp` in tcpdump's SLIP printer).
    fn slip_payload_len(&mut self, h: &[u8], length: u32, dir: u8) -> PResult<u32> {
        let ip = tail(h, SLIP_HDRLEN);
        need(ip, 0, 20)?;
        let words = usize::from(g1(ip, 0)? & 0x0f);
        need(ip, 4 * words, 20)?;
        let words = words + usize::from(g1(ip, 4 * words + 12)? >> 4);
        let len = length.wrapping_sub((words as u32) << 2);
        let conn = usize::from(self.tcp.slip.last_conn);
        self.tcp.slip.last_len[usize::from(dir)][conn] = len;
        Ok(len)
    }

    /// `compressed_sl_print`: Van Jacobson's compressed TCP header, which
    /// starts with the change flags at `h[1]`: the connection (`*` for the
    /// last one), the fields that changed, then the payload length and the
    /// compressed header's length.
    fn compressed_sl(&mut self, h: &[u8], length: u32, dir: u8) -> PResult {
        const NEW_C: u8 = 0x40;
        const NEW_I: u8 = 0x20;
        const NEW_S: u8 = 0x08;
        const NEW_A: u8 = 0x04;
        const NEW_W: u8 = 0x02;
        const NEW_U: u8 = 0x01;
        const SPECIAL_I: u8 = NEW_S | NEW_W | NEW_U;
        const SPECIAL_D: u8 = NEW_S | NEW_A | NEW_W | NEW_U;
        let start = 1;
        let flags = g1(h, start)?;
        let mut cp = start + 1;
        if flags & NEW_C != 0 {
            let conn = g1(h, cp)?;
            self.tcp.slip.last_conn = conn;
            cp += 1;
            out!(self, "ctcp {conn}");
        } else {
            out!(self, "ctcp *");
        }
        // The TCP checksum.
        cp += 2;
        let last = self.tcp.slip.last_len[usize::from(dir)][usize::from(self.tcp.slip.last_conn)];
        // `print_sl_change`: one byte, or zero and two more. tcpdump 4.99.3
        // moves past the long form only: the next change reads the same byte
        // again after a short one (its `*cp++` became a `GET_U_1(cp)`).
        let change = |p: &mut Self, what: &str, cp: &mut usize| -> PResult {
            let mut v = u32::from(g1(h, *cp)?);
            if v == 0 {
                v = u32::from(g2(h, *cp + 1)?);
                *cp += 3;
            }
            out!(p, " {what}{v}");
            Ok(())
        };
        match flags & SPECIAL_D {
            SPECIAL_I => out!(self, " *SA+{last}"),
            SPECIAL_D => out!(self, " *S+{last}"),
            _ => {
                if flags & NEW_U != 0 {
                    change(self, "U=", &mut cp)?;
                }
                if flags & NEW_W != 0 {
                    // `print_sl_winchange`: the same, the long form signed.
                    let mut v = i32::from(g1(h, cp)?);
                    if v == 0 {
                        v = i32::from(g2(h, cp + 1)? as i16);
                        cp += 3;
                    }
                    out!(self, " W{}{v}", if v >= 0 { "+" } else { "" });
                }
                if flags & NEW_A != 0 {
                    change(self, "A+", &mut cp)?;
                }
                if flags & NEW_S != 0 {
                    change(self, "S+", &mut cp)?;
                }
            }
        }
        if flags & NEW_I != 0 {
            change(self, "I+", &mut cp)?;
        }
        let len = self.slip_payload_len(h, length, dir)?;
        out!(self, " {len} ({})", cp - start);
        Ok(())
    }
}

/// tcpdump's `lastconn` and `lastlen` (print-sl.c's statics): the connection
/// of the last compressed or uncompressed TCP packet on a SLIP link, and each
/// direction's last payload length per connection, which a compressed
/// packet's `*SA+`/`*S+` prints. Kept for the whole capture, as tcpdump does.
#[derive(Debug)]
pub(crate) struct SlipVj {
    last_conn: u8,
    last_len: Box<[[u32; 256]; 2]>,
}

impl Default for SlipVj {
    fn default() -> Self {
        // tcpdump starts from connection 255.
        SlipVj {
            last_conn: 255,
            last_len: Box::new([[0; 256]; 2]),
        }
    }
}

impl Printer<'_> {
    /// `ipnet_print`: a 24-byte header, then IPv4 or IPv6 by its family byte.
    pub(super) fn ipnet_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "ipnet";
        if data.len() < IPNET_HDRLEN {
            return Err(Trunc);
        }
        if self.opts.link_header {
            self.ipnet_hdr(data, length)?;
        }
        let (p, plen) = (
            tail(data, IPNET_HDRLEN),
            length.wrapping_sub(IPNET_HDRLEN as u32),
        );
        match g1(data, 1)? {
            2 => self.ipv4(p, plen),
            26 => self.ipv6(p, plen),
            _ if !self.opts.link_header => self.ipnet_hdr(data, length)?,
            _ => {}
        }
        Ok(())
    }

    /// `ipnet_hdr_print`: source and destination zones, the family, the length.
    fn ipnet_hdr(&mut self, h: &[u8], length: u32) -> PResult {
        out!(self, "{} > {}", g4(h, 16)?, g4(h, 20)?);
        let family = g1(h, 1)?;
        let name = match family {
            2 => Some("IPv4"),
            26 => Some("IPv6"),
            _ => None,
        };
        match (self.opts.quiet, name) {
            (false, n) => out!(self, ", family {} ({family})", n.unwrap_or("Unknown")),
            (true, Some(n)) => out!(self, ", {n}"),
            (true, None) => out!(self, ", Unknown Ethertype (0x{family:04x})"),
        }
        out!(self, ", length {length}: ");
        Ok(())
    }
}
