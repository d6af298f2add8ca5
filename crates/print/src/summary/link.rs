//! Link-layer printers: Ethernet (VLAN tags, 802.3/LLC/SNAP, STP), Linux SLL and
//! SLL2, BSD NULL/LOOP, raw IP; and the EtherType-dispatched protocols that are not
//! IP: ARP/RARP, PPPoE, PPP, MPLS.

use super::{g1, g2, g3, g4, name_or, need, out, tail, PResult, Printer, Trunc};
use netsift_wire::arp::{hardware, ArpOperation};
use netsift_wire::ethernet::{EtherType, EthernetAddress, EthernetFrame, MAX_8023_LENGTH};
use netsift_wire::loopback::{family, LoopbackHeader};
use netsift_wire::pppoe::{tag, PppProtocol, PppoeCode};
use netsift_wire::sll::{packet_type, pseudo_protocol, Sll2Header, SllHeader};
use netsift_wire::vlan::MAX_VLAN_TAGS;
use netsift_wire::LinkType;

/// `ethertype IPv4 (0x0800)`.
/// tcpdump's `ether_type_print`: `ethertype IPv4 (0x0800)`, or with `-q` only
/// the name (`Unknown Ethertype (0x88b5)` for an unnamed type).
pub(super) fn ethertype_str(t: u16, quiet: bool) -> String {
    match (EtherType(t).name(), quiet) {
        (Some(n), true) => n.to_string(),
        (None, true) => format!("Unknown Ethertype (0x{t:04x})"),
        (n, false) => format!("ethertype {} (0x{:04x})", n.unwrap_or("Unknown"), t),
    }
}

/// EtherTypes tcpdump 4.99's `ethertype_print` decodes and this crate does not
/// yet (AppleTalk, MPCP, RRCP): no default print after them, which tcpdump
/// would not print either.
const TCPDUMP_DECODES: [u16; 4] = [0x809b, 0x80f3, 0x8808, 0x8899];

/// tcpdump's `linkaddr_string`: colon-separated hex bytes.
pub(crate) fn linkaddr(b: &[u8]) -> String {
    if b.is_empty() {
        return "<empty>".to_string();
    }
    let mut s = String::with_capacity(b.len() * 3);
    for (i, x) in b.iter().enumerate() {
        if i > 0 {
            s.push(':');
        }
        s.push_str(&format!("{x:02x}"));
    }
    s
}

/// A switch tag inside an Ethernet header: its length and its printer.
pub(super) type SwitchTag = (usize, fn(&mut Printer<'_>, &[u8]));

impl Printer<'_> {
    pub(super) fn ether_if(&mut self, data: &[u8], wire_len: u32) -> PResult {
        self.proto = "ether";
        self.ether(data, wire_len)
    }

    /// `ether_print`: an Ethernet frame of `length` bytes on the wire, `data`
    /// captured.
    pub(super) fn ether(&mut self, data: &[u8], length: u32) -> PResult {
        self.ether_tagged(data, length, None)
    }

    /// `ether_common_print`: an Ethernet frame, with a switch tag of the
    /// given length between the addresses and the type, printed by its
    /// function (tcpdump's `print_switch_tag`).
    pub(super) fn ether_tagged(
        &mut self,
        data: &[u8],
        length: u32,
        tag: Option<SwitchTag>,
    ) -> PResult {
        self.proto = "ether";
        let taglen = tag.map_or(0, |(n, _)| n);
        if (length as u64) < data.len() as u64 {
            out!(
                self,
                "[length {} < caplen {}] (invalid)",
                length,
                data.len()
            );
            return Ok(());
        }
        let frame = match EthernetFrame::new_checked(data) {
            Ok(f) if data.len() >= 14 + taglen => f,
            _ => return Err(Trunc),
        };
        if length < (EthernetFrame::<&[u8]>::HEADER_LEN + taglen) as u32 {
            return Err(Trunc);
        }
        let orig_length = length;
        let (src, dst) = (frame.src_addr(), frame.dst_addr());
        let mut lt = g2(data, 12 + taglen)?;
        let mut length = length - 14 - taglen as u32;
        let mut p = tail(data, 14 + taglen);
        if self.opts.link_header {
            let (s, d) = (self.ether_str(src.0), self.ether_str(dst.0));
            out!(self, "{s} > {d}, ");
        }
        if let Some((n, print_tag)) = tag {
            print_tag(self, &data[12..12 + n]);
        }
        // Arista's header comes before the original type, printed again.
        while lt == 0xd28b {
            match self.arista_header(p, length, orig_length, src, dst)? {
                Some((inner, body, blen)) => (lt, p, length) = (inner, body, blen),
                None => return Ok(()),
            }
        }
        if self.opts.link_header {
            if lt <= MAX_8023_LENGTH {
                out!(self, "802.3, length {}: ", lt.min(length as u16));
            } else {
                out!(
                    self,
                    "{}, length {}: ",
                    ethertype_str(lt, self.opts.quiet),
                    orig_length
                );
            }
        }
        if lt == EtherType::MACSEC.0 {
            match self.macsec(p, length, src, dst)? {
                Some((inner, body, blen)) => {
                    lt = inner;
                    p = body;
                    length = blen;
                    if self.opts.link_header && lt > MAX_8023_LENGTH {
                        out!(self, "{}, ", ethertype_str(lt, self.opts.quiet));
                    }
                }
                None => return Ok(()),
            }
        }
        let mut tags = 0;
        while EtherType(lt).is_vlan() {
            if p.len() < 4 || length < 4 {
                self.proto = "vlan";
                return Err(Trunc);
            }
            if tags >= MAX_VLAN_TAGS {
                out!(self, "[too many VLAN tags]");
                return Ok(());
            }
            tags += 1;
            let tci = g2(p, 0)?;
            lt = g2(p, 2)?;
            if self.opts.link_header {
                out!(
                    self,
                    "vlan {}, p {}{}, ",
                    tci & 0xfff,
                    tci >> 13,
                    if tci & 0x1000 != 0 { ", DEI" } else { "" }
                );
                if lt > MAX_8023_LENGTH {
                    out!(self, "{}, ", ethertype_str(lt, self.opts.quiet));
                } else {
                    out!(self, "802.3");
                }
            }
            p = tail(p, 4);
            length -= 4;
        }
        if lt <= MAX_8023_LENGTH {
            if (lt as u32) < length {
                length = lt as u32;
            }
            let p = super::head(p, length as usize);
            if !self.llc(p, length, Some((src, dst)))? {
                self.default_print(p, true);
            }
            return Ok(());
        }
        if !self.ethertype(lt, p, length, Some((src, dst)))? {
            if !self.opts.link_header {
                let (src, dst) = (self.ether_str(src.0), self.ether_str(dst.0));
                out!(
                    self,
                    "{src} > {dst}, {}, length {}: ",
                    ethertype_str(lt, self.opts.quiet),
                    orig_length
                );
            }
            // tcpdump dumps only what it has no printer for.
            if !TCPDUMP_DECODES.contains(&lt) {
                self.default_print(p, true);
            }
        }
        Ok(())
    }

    /// `ether_common_print`'s Arista branch: the type, the header, and the
    /// type after it with the rest of the frame; `None` when done (tcpdump's
    /// raw print of an unknown subtype).
    fn arista_header<'d>(
        &mut self,
        p: &'d [u8],
        length: u32,
        orig_length: u32,
        src: EthernetAddress,
        dst: EthernetAddress,
    ) -> PResult<Option<(u16, &'d [u8], u32)>> {
        if p.len() < 2 || length < 2 {
            out!(self, "[|arista]");
            return Ok(None);
        }
        let lt = 0xd28b;
        out!(
            self,
            "{}, length {orig_length}: ",
            ethertype_str(lt, self.opts.quiet)
        );
        let Some(n) = self.arista(p)? else {
            if !self.opts.link_header {
                let (s, d) = (self.ether_str(src.0), self.ether_str(dst.0));
                let t = ethertype_str(lt, self.opts.quiet);
                out!(self, "{s} > {d}, {t}, length {orig_length}: ");
            }
            self.default_print(p, true);
            return Ok(None);
        };
        let inner = g2(p, n)?;
        let used = n as u32 + 2;
        Ok(Some((inner, tail(p, n + 2), length.saturating_sub(used))))
    }

    /// 802.1AE MACsec (`macsec_print`): prints the SecTAG when the payload is
    /// encrypted (and returns `None`), else returns the inner EtherType and the
    /// payload without SecTAG and ICV.
    fn macsec<'d>(
        &mut self,
        p: &'d [u8],
        length: u32,
        src: EthernetAddress,
        dst: EthernetAddress,
    ) -> PResult<Option<(u16, &'d [u8], u32)>> {
        let saved = self.proto;
        self.proto = "macsec";
        if p.len() < 6 || length < 6 {
            return Err(Trunc);
        }
        let tci = g1(p, 0)?;
        let sectag_len = if tci & 0x20 != 0 { 14 } else { 6 };
        if p.len() < sectag_len || (length as usize) < sectag_len {
            return Err(Trunc);
        }
        let short_len = (g1(p, 1)? & 0x3f) as u32;
        let header = |pr: &mut Self| -> PResult {
            let mut flags = String::new();
            for (bit, c) in [
                (0x08, "E"),
                (0x04, "C"),
                (0x40, "S"),
                (0x10, "B"),
                (0x20, "I"),
            ] {
                if tci & bit != 0 {
                    flags.push_str(c);
                }
            }
            if flags.is_empty() {
                flags.push_str("none");
            }
            out!(pr, "an {}, pn {}, flags {}", tci & 3, g4(p, 2)?, flags);
            if short_len != 0 {
                out!(pr, ", sl {short_len}");
            }
            if tci & 0x20 != 0 {
                out!(pr, ", sci {:08x}{:08x}", g4(p, 6)?, g4(p, 10)?);
            }
            out!(pr, ", ");
            Ok(())
        };
        if self.opts.link_header {
            header(self)?;
        }
        let mut body = tail(p, sectag_len);
        let mut blen = length - sectag_len as u32;
        if tci & 0x0c != 0 {
            if !self.opts.link_header {
                let (s, d) = (self.ether_str(src.0), self.ether_str(dst.0));
                out!(self, "{s} > {d} 802.1AE MACsec, ");
                header(self)?;
            }
            // Encrypted or changed: nothing to decode.
            self.default_print(body, true);
            return Ok(None);
        }
        if short_len != 0 {
            if blen < short_len + 16 {
                return Err(Trunc);
            }
            blen = short_len + 16;
            body = super::head(body, blen as usize);
        }
        if blen < 16 || body.len() < 16 {
            return Err(Trunc);
        }
        blen -= 16;
        body = &body[..body.len() - 16];
        let inner = g2(body, 0)?;
        self.proto = saved;
        Ok(Some((inner, tail(body, 2), blen.saturating_sub(2))))
    }

    /// `ethertype_print`: returns whether the type is known.
    pub(super) fn ethertype(
        &mut self,
        t: u16,
        p: &[u8],
        length: u32,
        addrs: Option<(EthernetAddress, EthernetAddress)>,
    ) -> PResult<bool> {
        let src = addrs.map(|(s, _)| s.0);
        match EtherType(t) {
            EtherType::IPV4 => self.ipv4(p, length),
            EtherType::IPV6 => self.ipv6(p, length),
            EtherType::ARP | EtherType::RARP => self.arp(p, length)?,
            EtherType::PPPOE_DISCOVERY | EtherType::PPPOE_SESSION => self.pppoe(p, length)?,
            EtherType(0x3c12) | EtherType(0x3c13) => self.pppoe(p, length)?,
            EtherType::PPP => {
                if length > 0 {
                    self.out.push_str(": ");
                    self.ppp(p, length)?;
                }
            }
            EtherType::MPLS_UNICAST | EtherType::MPLS_MULTICAST => self.mpls(p, length)?,
            EtherType::LLDP => self.lldp(p, length)?,
            EtherType::LOOPBACK => self.loopback_proto(p, length)?,
            EtherType(0x88f7) => self.ptp(p, length)?,
            EtherType(0x88a2) => self.aoe(p, length)?,
            EtherType(0x88ca) => self.tipc(p)?,
            EtherType(0x888e) => self.eapol(p)?,
            EtherType(0x8809) => self.slow(p, length)?,
            EtherType(0x886f) => self.msnlb(p)?,
            EtherType(0x894f) => self.nsh(p, length)?,
            EtherType(0x8902) | EtherType(0xabcd) => self.cfm(p, length)?,
            EtherType(0xfefe) => self.ether_iso(p, length)?,
            EtherType(0x8947) | EtherType(0x0707) => self.geonet(p, length, src)?,
            EtherType(0x1111) => self.calm_fast(p, length, src)?,
            EtherType(0x6003) => self.decnet(p, length)?,
            EtherType(0x8137) => {
                out!(self, "(NOV-ETHII) ");
                self.ipx(p, length)?
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// An XID's format and types (`llc_print`): always printed, no dump
    /// after but of a short one.
    fn llc_xid(&mut self, body: &[u8], blen: u32) -> PResult<bool> {
        if blen == 0 {
            return Ok(true);
        }
        match *body {
            [] => self.trunc(),
            [0x81, a, b, ..] if blen >= 3 => out!(self, ": {a:02x} {b:02x}"),
            [0x81, ..] => {
                self.trunc();
                self.default_print(body, false);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `llc_print` for an 802.3 frame: returns whether the payload was understood.
    pub(super) fn llc(
        &mut self,
        p: &[u8],
        length: u32,
        addrs: Option<(EthernetAddress, EthernetAddress)>,
    ) -> PResult<bool> {
        self.proto = "llc";
        if p.len() < 3 || length < 3 {
            return Err(Trunc);
        }
        let dsap_field = g1(p, 0)?;
        let ssap_field = g1(p, 1)?;
        let c0 = g1(p, 2)?;
        let (control, is_u, hdrlen) = if c0 & 3 == 3 {
            (c0 as u16, true, 3usize)
        } else {
            if p.len() < 4 || length < 4 {
                return Err(Trunc);
            }
            (u16::from_le_bytes([c0, g1(p, 3)?]), false, 4usize)
        };
        if dsap_field == 0xff && ssap_field == 0xff {
            self.ipx_llc(p, length, "802.3")?;
            return Ok(true);
        }
        let dsap = dsap_field & !1;
        let ssap = ssap_field & !1;
        if self.opts.link_header {
            out!(
                self,
                "LLC, dsap {} (0x{:02x}) {}, ssap {} (0x{:02x}) {}",
                llc_sap_name(dsap).unwrap_or("Unknown"),
                dsap,
                if dsap_field & 1 != 0 {
                    "Group"
                } else {
                    "Individual"
                },
                llc_sap_name(ssap).unwrap_or("Unknown"),
                ssap,
                if ssap_field & 1 != 0 {
                    "Response"
                } else {
                    "Command"
                },
            );
            if is_u {
                out!(self, ", ctrl 0x{control:02x}: ");
            } else {
                out!(self, ", ctrl 0x{control:04x}: ");
            }
        }
        let body = tail(p, hdrlen);
        let blen = length - hdrlen as u32;
        if ssap == 0xaa && dsap == 0xaa && control == 3 {
            return self.snap(body, blen, addrs);
        }
        if ssap == 0x42 && dsap == 0x42 && control == 3 {
            self.stp(body, blen)?;
            return Ok(true);
        }
        if ssap == 0x06 && dsap == 0x06 && control == 3 {
            self.ipv4(body, blen);
            return Ok(true);
        }
        if ssap == 0xe0 && dsap == 0xe0 && control == 3 {
            self.ipx_llc(body, blen, "802.2")?;
            return Ok(true);
        }
        if ssap == 0xfe && dsap == 0xfe && control == 3 {
            self.isoclns(body, blen)?;
            return Ok(true);
        }
        if !self.opts.link_header {
            let dn = name_or(llc_sap_name(dsap), || format!("Unknown DSAP 0x{dsap:02x}"));
            if ssap == dsap {
                match addrs {
                    Some((s, d)) => {
                        let (s, d) = (self.ether_str(s.0), self.ether_str(d.0));
                        out!(self, "{s} > {d} {dn} ")
                    }
                    None => out!(self, "{dn} "),
                }
            } else {
                let sn = name_or(llc_sap_name(ssap), || format!("Unknown SSAP 0x{ssap:02x}"));
                match addrs {
                    Some((s, d)) => {
                        let (s, d) = (self.ether_str(s.0), self.ether_str(d.0));
                        out!(self, "{s} {sn} > {d} {dn} ")
                    }
                    None => out!(self, "{sn} > {dn} "),
                }
            }
        }
        let flags = |poll: u16| -> &'static str {
            match (ssap_field & 1) as u16 | poll {
                0 => "Command",
                1 => "Response",
                0x10 | 0x100 => "Poll",
                0x11 | 0x101 => "Final",
                _ => "?",
            }
        };
        if is_u {
            let cmd = control & !0x10 & 0xef;
            out!(
                self,
                "Unnumbered, {}, Flags [{}], length {}",
                name_or(llc_u_cmd(cmd as u8), || format!("{cmd:02x}")),
                flags(control & 0x10),
                length
            );
            if cmd == 0xaf {
                return self.llc_xid(body, blen);
            }
        } else if control & 3 == 1 {
            out!(
                self,
                "Supervisory, {}, rcv seq {}, Flags [{}], length {}",
                match (control >> 2) & 3 {
                    0 => "Receiver Ready",
                    1 => "Receiver not Ready",
                    2 => "Reject",
                    _ => "?",
                },
                control >> 9,
                flags(control & 0x100),
                length
            );
            return Ok(true);
        } else {
            out!(
                self,
                "Information, send seq {}, rcv seq {}, Flags [{}], length {}",
                (control >> 1) & 0x7f,
                control >> 9,
                flags(control & 0x100),
                length
            );
        }
        Ok(false)
    }

    pub(super) fn snap(
        &mut self,
        p: &[u8],
        length: u32,
        addrs: Option<(EthernetAddress, EthernetAddress)>,
    ) -> PResult<bool> {
        self.proto = "snap";
        // snap_print catches both (`goto trunc`), so `-x` leaves the link header out.
        if p.len() < 5 || length < 5 {
            return Err(self.caught());
        }
        let oui = g3(p, 0)?;
        let et = g2(p, 3)?;
        if self.opts.link_header {
            out!(
                self,
                "oui {} (0x{:06x}), {} {} (0x{:04x}), length {}: ",
                oui_name(oui).unwrap_or("Unknown"),
                oui,
                if oui == 0 { "ethertype" } else { "pid" },
                if oui == 0 {
                    EtherType(et).name().unwrap_or("Unknown")
                } else {
                    cisco_pid_name(oui, et).unwrap_or("Unknown")
                },
                et,
                length - 5
            );
        }
        let body = tail(p, 5);
        let blen = length - 5;
        let encapsulated = oui == 0x000000 || oui == 0x0000f8 || (oui == 0x080007 && et == 0x809b);
        if encapsulated && self.ethertype(et, body, blen, addrs)? {
            return Ok(true);
        }
        if oui == 0x00000c {
            match et {
                0x2000 | 0x2003 | 0x2004 | 0x0111 => {
                    self.cisco_snap(et, body, blen)?;
                    return Ok(true);
                }
                0x010b | 0x010c => {
                    self.stp(body, blen)?;
                    return Ok(true);
                }
                _ => {}
            }
        }
        if !self.opts.link_header {
            if let Some((s, d)) = addrs {
                let (s, d) = (self.ether_str(s.0), self.ether_str(d.0));
                out!(self, "{s} > {d} ");
            }
            if oui == 0 {
                out!(
                    self,
                    "SNAP, ethertype {} (0x{:04x}), length {}: ",
                    EtherType(et).name().unwrap_or("Unknown"),
                    et,
                    blen
                );
            } else {
                out!(
                    self,
                    "SNAP, oui {} (0x{:06x}), pid {} (0x{:04x}), length {}: ",
                    oui_name(oui).unwrap_or("Unknown"),
                    oui,
                    cisco_pid_name(oui, et).unwrap_or("Unknown"),
                    et,
                    blen
                );
            }
        }
        Ok(false)
    }

    /// Spanning tree BPDUs (the non-verbose line only).
    fn stp(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "stp";
        if length < 4 {
            out!(self, " (invalid)");
            return Ok(());
        }
        let proto_id = g2(p, 0)?;
        if proto_id != 0 {
            out!(self, "unknown STP version, length {length}");
            return Ok(());
        }
        let version = g1(p, 2)?;
        let vname = match version {
            0 => "802.1d",
            2 => "802.1w",
            3 => "802.1s",
            4 => "802.1aq",
            _ => {
                out!(self, "STP Unknown STP protocol (0x{version:02x})");
                return Ok(());
            }
        };
        out!(self, "STP {vname}");
        let bpdu_type = g1(p, 3)?;
        match bpdu_type {
            0x00 => out!(self, ", Config"),
            0x02 => out!(self, ", Rapid STP"),
            0x80 => out!(self, ", Topology Change"),
            t => out!(self, ", Unknown BPDU Type (0x{t:02x})"),
        }
        let config = |pr: &mut Self| -> PResult {
            out!(pr, ", Flags [{}]", stp_flags(g1(p, 4)?));
            need(p, 17, 8)?;
            let prio = g2(p, 17)?;
            let bmac = EthernetAddress::from_bytes(&p[19..]);
            out!(
                pr,
                ", bridge-id {prio:04x}.{bmac}.{:04x}, length {length}",
                g2(p, 25)?
            );
            if pr.opts.verbose > 0 {
                pr.stp_config_verbose(p, version)?;
            }
            Ok(())
        };
        match bpdu_type {
            0x00 => {
                if length < 35 {
                    out!(self, " (invalid)");
                    return Ok(());
                }
                config(self)?;
            }
            0x02 if version == 2 => {
                if length < 36 {
                    out!(self, " (invalid)");
                    return Ok(());
                }
                config(self)?;
            }
            0x02 if version >= 3 => self.mstp(p, length, version)?,
            _ => {}
        }
        Ok(())
    }

    /// Cisco Discovery Protocol: version, TTL and the Device-ID TLV.
    /// An 802.1s (MSTP) or 802.1aq (SPB) BPDU: the CIST flags, and with `-v`
    /// the CIST, its configuration and every MSTI (`stp_print_mstp_bpdu`).
    fn mstp(&mut self, p: &[u8], length: u32, version: u8) -> PResult {
        const BPDU_LEN: u32 = 36;
        const V3_LEN_AT: usize = 36;
        // The version 1 length must be 0 and the version 3 part must fit.
        let mstp_len = if length < 102 || g1(p, 35)? != 0 {
            None
        } else {
            Some(g2(p, V3_LEN_AT)? as u32 + 2).filter(|&l| length >= BPDU_LEN + l)
        };
        let Some(mstp_len) = mstp_len else {
            out!(self, " (invalid)");
            return Ok(());
        };
        let flags = g1(p, 4)?;
        out!(self, ", CIST Flags [{}], length {length}", stp_flags(flags));
        if self.opts.verbose > 0 {
            self.mstp_verbose(p, flags)?;
        }
        if version == 4 {
            let spb_at = (BPDU_LEN + mstp_len) as usize;
            let spb_len = g2(p, spb_at)? as u32 + 2;
            if length < BPDU_LEN + mstp_len + spb_len || spb_len < 87 {
                out!(self, " (invalid)");
            } else if self.opts.verbose > 0 {
                self.spb_verbose(p, spb_at)?;
            }
        }
        Ok(())
    }

    fn mstp_verbose(&mut self, p: &[u8], flags: u8) -> PResult {
        const ROLES: [&str; 4] = ["Unknown", "Alternate", "Root", "Designated"];
        out!(
            self,
            "\n\tport-role {}, CIST root-id {}, CIST ext-pathcost {}",
            ROLES[((flags & 0x0c) >> 2) as usize],
            stp_bridge_id(p, 5)?,
            g4(p, 13)?
        );
        out!(
            self,
            "\n\tCIST regional-root-id {}, CIST port-id {:04x},",
            stp_bridge_id(p, 17)?,
            g2(p, 25)?
        );
        self.stp_timers(p)?;
        out!(self, "\n\tv3len {}, MCID Name ", g2(p, 36)?);
        self.jnp(p, 39, 32)?;
        out!(
            self,
            ", rev {},\n\t\tdigest {:08x}{:08x}{:08x}{:08x}, CIST int-root-pathcost {},",
            g2(p, 71)?,
            g4(p, 73)?,
            g4(p, 77)?,
            g4(p, 81)?,
            g4(p, 85)?,
            g4(p, 89)?
        );
        out!(
            self,
            "\n\tCIST bridge-id {}, CIST remaining-hops {}",
            stp_bridge_id(p, 93)?,
            g1(p, 101)?
        );
        let v3len = g2(p, 36)? as usize;
        if v3len > 64 {
            let mut left = v3len - 64;
            let mut at = 102usize;
            while left >= 16 {
                let f = g1(p, at)?;
                out!(
                    self,
                    "\n\tMSTI {}, Flags [{}], port-role {}",
                    g2(p, at + 1)? & 0x0fff,
                    stp_flags(f),
                    ROLES[((f & 0x0c) >> 2) as usize]
                );
                out!(
                    self,
                    "\n\t\tMSTI regional-root-id {}, pathcost {}",
                    stp_bridge_id(p, at + 1)?,
                    g4(p, at + 9)?
                );
                out!(
                    self,
                    "\n\t\tMSTI bridge-prio {}, port-prio {}, hops {}",
                    g1(p, at + 13)? >> 4,
                    g1(p, at + 14)? >> 4,
                    g1(p, at + 15)?
                );
                left -= 16;
                at += 16;
            }
        }
        Ok(())
    }

    /// `stp_print_spb_bpdu`: the 802.1aq part at `at`.
    fn spb_verbose(&mut self, p: &[u8], at: usize) -> PResult {
        out!(self, "\n\tv4len {}, AUXMCID Name ", g2(p, at)?);
        self.jnp(p, at + 3, 32)?;
        let d = at + 37;
        out!(
            self,
            ", Rev {},\n\t\tdigest {:08x}{:08x}{:08x}{:08x}",
            g2(p, at + 35)?,
            g4(p, d)?,
            g4(p, d + 4)?,
            g4(p, d + 8)?,
            g4(p, d + 12)?
        );
        let a = at + 53;
        let (agree, format, conv) = (g1(p, a)?, g1(p, a + 2)?, g1(p, a + 3)?);
        out!(
            self,
            "\n\tAgreement num {}, Discarded Agreement num {}, Agreement valid-flag {},\
             \n\tRestricted role-flag: {}, Format id {} cap {}, Convention id {} cap {},\
             \n\tEdge count {}, Agreement digest {:08x}{:08x}{:08x}{:08x}{:08x}",
            agree >> 6,
            (agree >> 4) & 3,
            (agree >> 3) & 1,
            (agree >> 2) & 1,
            format >> 4,
            format,
            conv >> 4,
            conv,
            g2(p, a + 4)?,
            g4(p, a + 14)?,
            g4(p, a + 18)?,
            g4(p, a + 22)?,
            g4(p, a + 26)?,
            g4(p, a + 30)?
        );
        Ok(())
    }

    /// What `stp_print_config_bpdu` adds with `-v`: the timers, the root
    /// bridge and path cost, and (802.1w) the port role.
    fn stp_config_verbose(&mut self, p: &[u8], version: u8) -> PResult {
        self.stp_timers(p)?;
        out!(
            self,
            "\n\troot-id {}, root-pathcost {}",
            stp_bridge_id(p, 5)?,
            g4(p, 13)?
        );
        if version == 2 {
            let role = ["Unknown", "Alternate", "Root", "Designated"];
            out!(
                self,
                ", port-role {}",
                role[((g1(p, 4)? & 0x0c) >> 2) as usize]
            );
        }
        Ok(())
    }

    /// The four timers of a BPDU, in 1/256 seconds.
    fn stp_timers(&mut self, p: &[u8]) -> PResult {
        let t = |at: usize| -> PResult<f64> { Ok(g2(p, at)? as f64 / 256.0) };
        out!(
            self,
            "\n\tmessage-age {:.2}s, max-age {:.2}s, hello-time {:.2}s, forwarding-delay {:.2}s",
            t(27)?,
            t(29)?,
            t(31)?,
            t(33)?
        );
        Ok(())
    }

    fn loopback_proto(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "loopback";
        out!(self, "Loopback");
        if length < 2 {
            out!(self, " (invalid)");
            return Ok(());
        }
        let skip = u16::from_le_bytes([g1(p, 0)?, g1(p, 1)?]);
        out!(self, ", skipCount {skip}");
        if skip % 8 != 0 {
            out!(self, " (bogus)");
        }
        let at = 2 + skip as usize;
        if (length as usize) < at + 2 {
            out!(self, " (invalid)");
            return Ok(());
        }
        let function = u16::from_le_bytes([g1(p, at)?, g1(p, at + 1)?]);
        match function {
            1 => {
                out!(self, ", Reply");
                if (length as usize) < at + 4 {
                    out!(self, " (invalid)");
                    return Ok(());
                }
                let rn = u16::from_le_bytes([g1(p, at + 2)?, g1(p, at + 3)?]);
                out!(
                    self,
                    ", receipt number {rn}, data ({} octets)",
                    length as usize - at - 4
                );
            }
            2 => {
                out!(self, ", Forward Data");
                if (length as usize) < at + 8 {
                    out!(self, " (invalid)");
                    return Ok(());
                }
                need(p, at + 2, 6)?;
                let a = self.ether_str(EthernetAddress::from_bytes(tail(p, at + 2)).0);
                out!(
                    self,
                    ", forwarding address {a}, data ({} octets)",
                    length as usize - at - 8
                );
            }
            f => {
                out!(self, ", Unknown function {f}");
            }
        }
        Ok(())
    }

    pub(super) fn sll_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "sll";
        let h = SllHeader::new_checked(data).map_err(|_| Trunc)?;
        if length < 16 {
            out!(self, "[|sll]");
            return Ok(());
        }
        let mut lt = h.protocol().0;
        if self.opts.link_header {
            self.sll_header(h.packet_type(), h.hardware_type(), h.addr(), lt, length);
        }
        let mut p = tail(data, 16);
        let mut length = length - 16;
        let mut tags = 0;
        loop {
            if lt <= MAX_8023_LENGTH {
                match lt {
                    pseudo_protocol::P_802_3 => {
                        out!(self, "IPX 802.3, length {length}");
                    }
                    pseudo_protocol::P_802_2 => {
                        self.llc(p, length, None)?;
                    }
                    _ => {
                        // tcpdump prints only a hex dump here; a summary line
                        // needs at least the cooked header.
                        if !self.opts.link_header {
                            self.sll_header(
                                h.packet_type(),
                                h.hardware_type(),
                                h.addr(),
                                lt,
                                length + 16,
                            );
                        }
                    }
                }
                return Ok(());
            }
            if lt == EtherType::VLAN.0 && tags < MAX_VLAN_TAGS {
                if p.len() < 4 || length < 4 {
                    self.proto = "vlan";
                    return Err(Trunc);
                }
                tags += 1;
                let tci = g2(p, 0)?;
                lt = g2(p, 2)?;
                if self.opts.link_header {
                    out!(
                        self,
                        "vlan {}, p {}{}, ",
                        tci & 0xfff,
                        tci >> 13,
                        if tci & 0x1000 != 0 { ", DEI" } else { "" }
                    );
                }
                if lt <= MAX_8023_LENGTH {
                    lt = pseudo_protocol::P_802_2;
                } else if self.opts.link_header {
                    out!(self, "{}, ", ethertype_str(lt, self.opts.quiet));
                }
                p = tail(p, 4);
                length -= 4;
                continue;
            }
            if !self.ethertype(lt, p, length, None)? && !self.opts.link_header {
                self.sll_header(
                    h.packet_type(),
                    h.hardware_type(),
                    h.addr(),
                    lt,
                    length + 16,
                );
            }
            return Ok(());
        }
    }

    fn sll_header(&mut self, pkttype: u16, _hatype: u16, addr: &[u8], proto: u16, length: u32) {
        out!(self, "{:>3} ", packet_type::name(pkttype).unwrap_or("?"));
        if addr.len() == 6 {
            out!(self, "{} ", EthernetAddress::from_bytes(addr));
        }
        // `-q` leaves out the protocol and the length.
        if self.opts.quiet {
            return;
        }
        if proto <= MAX_8023_LENGTH {
            match proto {
                pseudo_protocol::P_802_3 => out!(self, "802.3"),
                pseudo_protocol::P_802_2 => out!(self, "802.2"),
                x => out!(self, "ethertype Unknown (0x{x:04x})"),
            }
        } else {
            out!(self, "{}", ethertype_str(proto, false));
        }
        out!(self, ", length {length}: ");
    }

    /// `sll2_print`, the `-e` header of Linux SLL2: interface index and address,
    /// then (but for `-q`) the protocol and the length.
    fn sll2_print(&mut self, if_index: u32, addr: &[u8], proto: u16, length: u32) {
        out!(self, "ifindex {if_index} ");
        if addr.len() == 6 {
            out!(self, "{} ", EthernetAddress::from_bytes(addr));
        }
        if self.opts.quiet {
            return;
        }
        match proto {
            pseudo_protocol::P_802_3 => out!(self, "802.3"),
            pseudo_protocol::P_802_2 => out!(self, "802.2"),
            p if p <= MAX_8023_LENGTH => out!(self, "ethertype Unknown (0x{p:04x})"),
            p => out!(self, "{}", ethertype_str(p, false)),
        }
        out!(self, ", length {length}: ");
    }

    pub(super) fn sll2_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "sll2";
        let h = Sll2Header::new_checked(data).map_err(|_| Trunc)?;
        if length < 20 {
            out!(self, "[|sll2]");
            return Ok(());
        }
        let ifname = self
            .opts
            .interface_name
            .and_then(|f| f(h.if_index()))
            .unwrap_or_else(|| "?".to_string());
        out!(self, "{ifname:<5} ");
        out!(
            self,
            "{:<3} ",
            packet_type::name(h.packet_type()).unwrap_or("?")
        );
        let lt = h.protocol().0;
        if self.opts.link_header {
            self.sll2_print(h.if_index(), h.addr(), lt, length);
        }
        let p = tail(data, 20);
        let length = length - 20;
        if lt <= MAX_8023_LENGTH {
            if lt == pseudo_protocol::P_802_2 {
                self.llc(p, length, None)?;
            } else if lt == pseudo_protocol::P_802_3 {
                out!(self, "IPX 802.3, length {length}");
            } else if !self.opts.link_header {
                if h.addr().len() == 6 {
                    out!(self, "{} ", EthernetAddress::from_bytes(h.addr()));
                }
                out!(
                    self,
                    "ethertype Unknown (0x{lt:04x}), length {}: ",
                    length + 20
                );
            }
            return Ok(());
        }
        if !self.ethertype(lt, p, length, None)? && !self.opts.link_header {
            if h.addr().len() == 6 {
                out!(self, "{} ", EthernetAddress::from_bytes(h.addr()));
            }
            out!(
                self,
                "{}, length {}: ",
                ethertype_str(lt, self.opts.quiet),
                length + 20
            );
        }
        Ok(())
    }

    pub(super) fn null_if(&mut self, lt: LinkType, data: &[u8], length: u32) -> PResult {
        self.proto = if lt == LinkType::LOOP { "loop" } else { "null" };
        let h = LoopbackHeader::new_checked(data).map_err(|_| Trunc)?;
        // tcpdump decodes LOOP like NULL, accepting either byte order.
        let af = h.family_null();
        let p = tail(data, 4);
        let length = length.saturating_sub(4);
        let hdr = |pr: &mut Self, len: u32| {
            // `null_hdr_print`: -q names the family alone.
            match (family::name(af), pr.opts.quiet) {
                (Some(n), true) => out!(pr, "{n}"),
                (None, true) => out!(pr, "Unknown AF {af}"),
                (n, false) => out!(pr, "AF {} ({af})", n.unwrap_or("Unknown")),
            }
            out!(pr, ", length {len}: ");
        };
        if self.opts.link_header {
            hdr(self, length + 4);
        }
        match af {
            family::INET => self.ipv4(p, length),
            a if family::is_inet6(a) => self.ipv6(p, length),
            family::ISO => out!(self, "OSI, length {length}"),
            family::APPLETALK => out!(self, "AT, length {length}"),
            family::IPX => out!(self, "IPX, length {length}"),
            _ => {
                if !self.opts.link_header {
                    hdr(self, length + 4);
                }
            }
        }
        Ok(())
    }

    /// `ipN_print`, used for LINKTYPE_RAW, LINKTYPE_IPV4 and LINKTYPE_IPV6 alike:
    /// the version nibble decides.
    pub(super) fn raw_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "ipn";
        if self.opts.link_header {
            out!(self, "ip: ");
        }
        if length < 1 {
            out!(self, "truncated-ip {length}");
            return Ok(());
        }
        match g1(data, 0)? & 0xf0 {
            0x40 => self.ipv4(data, length),
            0x60 => self.ipv6(data, length),
            v => out!(self, "unknown ip {}", v >> 4),
        }
        Ok(())
    }

    /// ARP and RARP (`arp_print`).
    pub(super) fn arp(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "arp";
        need(p, 0, 8)?;
        let hrd = g2(p, 0)?;
        let pro = g2(p, 2)?;
        let hln = g1(p, 4)? as usize;
        let pln = g1(p, 5)? as usize;
        let op = g2(p, 6)?;
        if hrd == hardware::ATM {
            out!(self, "ARP, ATM (RFC 2225), length {length}");
            return Ok(());
        }
        let (sha, spa, tha, tpa) = (8, 8 + hln, 8 + hln + pln, 8 + 2 * hln + pln);
        need(p, tpa, pln)?;
        if !self.opts.link_header {
            out!(self, "ARP, ");
        }
        let ip_pro = pro == 0x0800 || pro == 0x1000;
        let verbose = self.opts.verbose > 0;
        if !ip_pro || pln != 4 || hln == 0 || verbose {
            out!(
                self,
                "{} (len {}), {} (len {})",
                name_or(arphrd_name(hrd), || format!("Unknown Hardware ({hrd})")),
                hln,
                name_or(EtherType(pro).name(), || format!(
                    "Unknown Protocol (0x{pro:04x})"
                )),
                pln,
            );
            // Without -v tcpdump does not guess at the address formats.
            if !verbose {
                out!(self, ", length {length}");
                return Ok(());
            }
            out!(self, ", ");
        }
        // `tpaddr_print_ip`/`spaddr_print_ip`: only IPv4 addresses are printed.
        let names = self.opts.names;
        let ip = |at: usize| -> String {
            if !ip_pro {
                "<wrong proto type>".to_string()
            } else if pln != 4 {
                "<wrong len>".to_string()
            } else {
                let a = std::net::Ipv4Addr::new(p[at], p[at + 1], p[at + 2], p[at + 3]);
                super::host4_name(names, a)
            }
        };
        let hw = |at: usize| -> String {
            let b = &p[at..at + hln];
            if hrd != hardware::FRAME_RELAY && hln == 6 {
                super::ether_name(names, EthernetAddress::from_bytes(b).0)
            } else {
                linkaddr(b)
            }
        };
        out!(
            self,
            "{} ",
            name_or(ArpOperation(op).name(), || format!("Unknown ({op})"))
        );
        match op {
            1 => {
                out!(self, "who-has {}", ip(tpa));
                if p[tha..tha + hln].iter().any(|&b| b != 0) {
                    out!(self, " ({})", hw(tha));
                }
                out!(self, " tell {}", ip(spa));
            }
            2 => out!(self, "{} is-at {}", ip(spa), hw(sha)),
            3 => out!(self, "who-is {} tell {}", hw(tha), hw(sha)),
            4 => out!(self, "{} at {}", hw(tha), ip(tpa)),
            8 => out!(self, "who-is {} tell {}", hw(tha), hw(sha)),
            9 => out!(self, "{} at {}", hw(sha), ip(spa)),
            _ => {
                self.default_print(p, false);
                return Ok(());
            }
        }
        out!(self, ", length {length}");
        Ok(())
    }

    /// PPPoE discovery and session (`pppoe_print`).
    pub(super) fn pppoe(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "pppoe";
        if length < 6 {
            out!(self, " (length {length} < 6) (invalid)");
            return Ok(());
        }
        let length = length - 6;
        need(p, 0, 6)?;
        let vt = g1(p, 0)?;
        let code = g1(p, 1)?;
        let sid = g2(p, 2)?;
        let mut plen = g2(p, 4)? as u32;
        if vt >> 4 != 1 {
            out!(self, " [ver {}]", vt >> 4);
        }
        if vt & 0xf != 1 {
            out!(self, " [type {}]", vt & 0xf);
        }
        let cname = match PppoeCode(code) {
            PppoeCode::SESSION => String::new(),
            c => name_or(c.name(), || format!("PAD-{code:x}")),
        };
        out!(self, "PPPoE {cname}");
        if code == PppoeCode::PADI.0 && plen > 1484 - 6 {
            out!(self, " [len {plen}!]");
        }
        if plen > length {
            out!(self, " [len {plen} > {length}!]");
            plen = length;
        }
        if sid != 0 {
            out!(self, " [ses 0x{sid:x}]");
        }
        let payload = tail(p, 6);
        if code != 0 {
            let mut off = 0usize;
            let mut tag_type = 0xffffu16;
            let mut n = 0;
            while tag_type != 0 && (off as u32) < plen && n < netsift_wire::pppoe::MAX_PPPOE_TAGS {
                n += 1;
                tag_type = g2(payload, off)?;
                let tag_len = g2(payload, off + 2)? as usize;
                off += 4;
                let tname = name_or(tag::name(tag_type), || format!("TAG-0x{tag_type:x}"));
                if tag_len > 0 {
                    need(payload, off, tag_len)?;
                    let v = &payload[off..off + tag_len];
                    let shown = &v[..v.len().min(79)];
                    let ascii = shown.iter().filter(|&&c| super::is_print(c)).count();
                    if ascii > shown.len() - ascii {
                        let s: String = shown
                            .iter()
                            .map(|&c| if super::is_print(c) { c as char } else { '.' })
                            .collect();
                        out!(self, " [{tname} \"{s}\"]");
                    } else {
                        out!(self, " [{tname} 0x");
                        for b in v {
                            out!(self, "{b:02X}");
                        }
                        out!(self, "]");
                    }
                } else {
                    out!(self, " [{tname}]");
                }
                off += tag_len;
            }
            Ok(())
        } else {
            out!(self, " ");
            self.ppp(super::head(payload, plen as usize), plen)
        }
    }

    /// A PPP frame, with or without address and control bytes (`ppp_print`).
    pub(super) fn ppp(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "ppp";
        if length < 2 {
            return Err(Trunc);
        }
        let mut p = p;
        let mut length = length;
        // tcpdump's `-e` length is the frame's, address and control bytes included.
        let olen = length;
        let hdr = g2(p, 0)?;
        if hdr == 0xff03 || hdr == 0x0003 || hdr == 0x0103 {
            if self.opts.link_header && hdr != 0xff03 {
                out!(self, "{}", if hdr == 0x0003 { "In  " } else { "Out " });
            }
            p = tail(p, 2);
            length -= 2;
        }
        if length < 2 {
            return Err(Trunc);
        }
        let first = g1(p, 0)?;
        // Where `handle_ppp`'s escape case starts unescaping: the protocol's
        // second byte (its `p - 1`).
        let escaped = tail(p, 1);
        let proto = if first % 2 == 1 {
            p = tail(p, 1);
            length -= 1;
            first as u16
        } else {
            let v = g2(p, 0)?;
            p = tail(p, 2);
            length -= 2;
            v
        };
        if self.opts.link_header {
            // tcpdump's `ppptype2str` calls multilink `MLPPP`.
            let n = if proto == 0x003d {
                Some("MLPPP")
            } else {
                PppProtocol(proto).name()
            };
            out!(
                self,
                "{} (0x{:04x}), length {}",
                n.unwrap_or("unknown"),
                proto,
                olen
            );
            if n.is_none() {
                return Ok(());
            }
            out!(self, ": ");
        }
        if proto & 0xff00 == 0x7e00 {
            // `handle_ppp`: an escape code, so HDLC framing left in.
            return self.ppp_hdlc(escaped, length);
        }
        self.handle_ppp(proto, p, length)
    }

    pub(super) fn handle_ppp(&mut self, proto: u16, p: &[u8], length: u32) -> PResult {
        match PppProtocol(proto) {
            PppProtocol::LCP
            | PppProtocol::IPCP
            | PppProtocol::OSICP
            | PppProtocol::MPLSCP
            | PppProtocol::IPV6CP
            | PppProtocol::CCP
            | PppProtocol::BACP => self.ppp_ctrl(proto, p, length)?,
            PppProtocol::PAP => self.pap(p, length)?,
            PppProtocol(0x003d) => self.mlppp(p, length)?,
            PppProtocol::CHAP => {
                out!(self, "CHAP, ");
                let code = g1(p, 0)?;
                let id = g1(p, 1)?;
                let name = match code {
                    1 => "Challenge",
                    2 => "Response",
                    3 => "Success",
                    4 => "Failure",
                    _ => "unknown",
                };
                out!(self, "{} (0x{:02x}), id {}", name, code, id);
            }
            PppProtocol::IPV4 | PppProtocol::VJNC => self.ipv4(p, length),
            PppProtocol(0x0800) => self.ipv4(p, length),
            PppProtocol::IPV6 | PppProtocol(0x86dd) => self.ipv6(p, length),
            PppProtocol::MPLS_UNICAST | PppProtocol::MPLS_MULTICAST => self.mpls(p, length)?,
            PppProtocol::OSI => self.isoclns(p, length)?,
            PppProtocol::COMP => out!(self, "compressed PPP data"),
            PppProtocol(x) => {
                out!(
                    self,
                    "{} ",
                    name_or(PppProtocol(x).name(), || format!(
                        "unknown PPP protocol (0x{x:04x})"
                    ))
                );
            }
        }
        Ok(())
    }

    /// An MPLS label stack and the packet under it (`mpls_print`).
    pub(super) fn mpls(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "mpls";
        out!(self, "MPLS");
        let mut p = p;
        let mut length = length;
        let mut last;
        let mut depth = 0;
        loop {
            if length < 4 {
                out!(self, " (invalid)");
                return Ok(());
            }
            let e = g4(p, 0)?;
            last = e >> 12;
            let verbose = self.opts.verbose > 0;
            let sep = if depth > 0 && verbose { "\n\t" } else { " " };
            out!(self, "{sep}(label {last}");
            if verbose && last < 16 {
                const RESERVED: [&str; 4] = [
                    "IPv4 explicit NULL",
                    "router alert",
                    "IPv6 explicit NULL",
                    "implicit NULL",
                ];
                out!(
                    self,
                    " ({})",
                    RESERVED.get(last as usize).unwrap_or(&"rsvd")
                );
            }
            out!(self, ", tc {}", (e >> 9) & 7);
            if e & 0x100 != 0 {
                out!(self, ", [S]");
            }
            out!(self, ", ttl {})", e & 0xff);
            p = tail(p, 4);
            length -= 4;
            depth += 1;
            if e & 0x100 != 0 {
                break;
            }
            if depth >= netsift_wire::mpls::MAX_MPLS_LABELS {
                out!(self, " [label stack too deep]");
                return Ok(());
            }
        }
        let pt = match last {
            0 | 3 => 4,
            2 => 6,
            _ => {
                if length < 1 {
                    return Ok(());
                }
                match g1(p, 0)? {
                    0x45..=0x4f => 4,
                    0x60..=0x6f => 6,
                    0x81..=0x83 => 1,
                    _ => 0,
                }
            }
        };
        let sep = if self.opts.verbose > 0 { "\n\t" } else { " " };
        match pt {
            4 => {
                out!(self, "{sep}");
                self.ipv4(p, length);
            }
            6 => {
                out!(self, "{sep}");
                self.ipv6(p, length);
            }
            1 => out!(self, "{sep}OSI, length {length}"),
            _ => {}
        }
        Ok(())
    }
}

/// tcpdump's `arphrd_values`, which names fewer hardware types than IANA, and
/// differently.
fn arphrd_name(h: u16) -> Option<&'static str> {
    Some(match h {
        1 => "Ethernet",
        6 => "TokenRing",
        7 => "ArcNet",
        15 => "FrameRelay",
        23 => "Strip",
        24 => "IEEE 1394",
        19 => "ATM",
        32 => "InfiniBand",
        _ => return None,
    })
}

/// `stp_print_bridge_id`: the priority and MAC address of the 8 bytes at `at`.
fn stp_bridge_id(p: &[u8], at: usize) -> PResult<String> {
    need(p, at, 8)?;
    Ok(format!(
        "{:04x}.{}",
        g2(p, at)?,
        EthernetAddress::from_bytes(&p[at + 2..at + 8])
    ))
}

fn stp_flags(f: u8) -> String {
    const NAMES: [(u8, &str); 6] = [
        (0x01, "Topology change"),
        (0x02, "Proposal"),
        (0x10, "Learn"),
        (0x20, "Forward"),
        (0x40, "Agreement"),
        (0x80, "Topology change ACK"),
    ];
    let v: Vec<&str> = NAMES
        .iter()
        .filter(|(b, _)| f & b != 0)
        .map(|(_, n)| *n)
        .collect();
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}

/// tcpdump's `llc_values`: the SAPs it names.
fn llc_sap_name(sap: u8) -> Option<&'static str> {
    Some(match sap {
        0x00 => "Null",
        0xff => "Global",
        0x02 => "802.1B I",
        0x03 => "802.1B G",
        0x06 => "IP",
        0x04 => "SNA",
        0x0e => "ProWay NM",
        0x42 => "STP",
        0x4e => "RS511",
        0x7e => "ISO8208",
        0x8e => "ProWay",
        0xaa => "SNAP",
        0xe0 => "IPX",
        0xf0 => "NetBeui",
        0xfe => "OSI",
        _ => return None,
    })
}

fn llc_u_cmd(cmd: u8) -> Option<&'static str> {
    Some(match cmd {
        0x03 => "ui",
        0x43 => "disc",
        0x63 => "ua",
        0x6f => "sabme",
        0x87 => "frmr",
        0xaf => "xid",
        0xe3 => "test",
        0x0f => "dm",
        _ => return None,
    })
}

pub(super) fn oui_name(oui: u32) -> Option<&'static str> {
    Some(match oui {
        0x000000 => "Ethernet",
        0x00000c => "Cisco",
        0x0000f8 => "Cisco bridged",
        0x080007 => "Appletalk",
        0x0080c2 => "IEEE 802.1 Private",
        0x00120f => "IEEE 802.3 Private",
        0x0019a7 => "Juniper",
        0x00907f => "Watchguard",
        0x00e02b => "Extreme",
        _ => return None,
    })
}

fn cisco_pid_name(oui: u32, pid: u16) -> Option<&'static str> {
    if oui != 0x00000c {
        return None;
    }
    Some(match pid {
        0x2000 => "CDP",
        0x2003 => "VTP",
        0x2004 => "DTP",
        0x0111 => "UDLD",
        0x010b => "PVST",
        0x010c => "VLAN Bridge",
        _ => return None,
    })
}
