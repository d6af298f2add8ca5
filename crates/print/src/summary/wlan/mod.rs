//! IEEE 802.11 and its capture headers, as tcpdump 4.99.3's `print-802_11.c`
//! prints them: the radiotap (`radiotap.rs`), AVS and Prism headers, then the
//! 802.11 frame: management frames with the elements tcpdump shows (`mgmt.rs`),
//! control frames, and data frames through 802.2 LLC to the packet inside.
//! With `-e` the MAC header's addresses come first (`BSSID:… DA:… SA:…`), and
//! with `-e -v` its flags and duration too.

mod mgmt;
mod radiotap;
mod text;

use super::{g4, out, tail, PResult, Printer, Trunc};
use netsift_wire::ethernet::EthernetAddress;

const T_MGMT: u16 = 0;
const T_CTRL: u16 = 1;
const T_DATA: u16 = 2;

const CTRL_CONTROL_WRAPPER: u16 = 0x7;
const CTRL_BAR: u16 = 0x8;
const CTRL_BA: u16 = 0x9;
const CTRL_PS_POLL: u16 = 0xa;
const CTRL_RTS: u16 = 0xb;
const CTRL_CTS: u16 = 0xc;
const CTRL_ACK: u16 = 0xd;
const CTRL_CF_END: u16 = 0xe;
const CTRL_END_ACK: u16 = 0xf;

/// Frame control bits.
const FC_TO_DS: u16 = 0x0100;
const FC_FROM_DS: u16 = 0x0200;
const FC_MORE_FLAG: u16 = 0x0400;
const FC_RETRY: u16 = 0x0800;
const FC_POWER_MGMT: u16 = 0x1000;
const FC_MORE_DATA: u16 = 0x2000;
const FC_PROTECTED: u16 = 0x4000;
const FC_ORDER: u16 = 0x8000;

/// The Prism header's length, and the AVS header's cookies (a Prism link may
/// carry either).
const PRISM_HDR_LEN: usize = 144;
const WLANCAP_MAGIC_V1: u32 = 0x8021_1001;
const WLANCAP_MAGIC_V2: u32 = 0x8021_1002;

fn fc_type(fc: u16) -> u16 {
    (fc >> 2) & 3
}

fn fc_subtype(fc: u16) -> u16 {
    (fc >> 4) & 0xf
}

/// The 6-byte address at `at` (the caller has checked it is captured).
fn mac_at(p: &[u8], at: usize) -> [u8; 6] {
    let mut m = [0u8; 6];
    m.copy_from_slice(&p[at..at + 6]);
    m
}

fn ctrl_name(subtype: u16) -> &'static str {
    match subtype {
        CTRL_CONTROL_WRAPPER => "Control Wrapper",
        CTRL_BAR => "BAR",
        CTRL_BA => "BA",
        CTRL_PS_POLL => "Power Save-Poll",
        CTRL_RTS => "Request-To-Send",
        CTRL_CTS => "Clear-To-Send",
        CTRL_ACK => "Acknowledgment",
        CTRL_CF_END => "CF-End",
        CTRL_END_ACK => "CF-End+CF-Ack",
        _ => "Unknown Ctrl Subtype",
    }
}

impl Printer<'_> {
    /// `ieee802_11_if_print`.
    pub(super) fn wlan_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.wlan_frame(data, length, false, 0);
        Ok(())
    }

    /// `ieee802_11_radio_if_print`: radiotap, then the frame (its FCS and
    /// Atheros padding as the Flags field says).
    pub(super) fn wlan_radio_if(&mut self, data: &[u8], length: u32) -> PResult {
        if let Some(rt) = self.radiotap(data) {
            let pad = rt.flags & radiotap::F_DATAPAD != 0;
            let fcslen = if rt.flags & radiotap::F_FCS != 0 {
                4
            } else {
                0
            };
            let rest = length.saturating_sub(rt.len as u32);
            self.wlan_frame(tail(data, rt.len), rest, pad, fcslen);
        }
        Ok(())
    }

    /// `ieee802_11_radio_avs_if_print`.
    pub(super) fn wlan_avs_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "802.11_radio_avs";
        if data.len() < 8 {
            return Err(Trunc);
        }
        let hdr = g4(data, 4)? as usize;
        if hdr < 8 || data.len() < hdr {
            return Err(Trunc);
        }
        self.wlan_frame(tail(data, hdr), length.saturating_sub(hdr as u32), false, 0);
        Ok(())
    }

    /// `prism_if_print`: a Prism header, or an AVS one by its cookie.
    pub(super) fn prism_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "prism";
        let code = g4(data, 0)?;
        if code == WLANCAP_MAGIC_V1 || code == WLANCAP_MAGIC_V2 {
            return self.wlan_avs_if(data, length);
        }
        if data.len() < PRISM_HDR_LEN {
            return Err(Trunc);
        }
        let rest = length.saturating_sub(PRISM_HDR_LEN as u32);
        self.wlan_frame(tail(data, PRISM_HDR_LEN), rest, false, 0);
        Ok(())
    }

    /// `ieee802_11_print`: one 802.11 frame, `length` long on the wire with
    /// `fcslen` bytes of FCS at its end; `pad` rounds the header up to 4
    /// bytes. A truncation ends the line with its marker here.
    fn wlan_frame(&mut self, p: &[u8], length: u32, pad: bool, fcslen: u32) {
        self.proto = "802.11";
        // A frame with nothing to show (a no-data frame) prints nothing.
        self.printed_nothing = true;
        let Some(length) = length.checked_sub(fcslen) else {
            self.trunc();
            return;
        };
        // The FCS is not part of the frame's bytes either.
        let p = &p[..p.len().min(length as usize)];
        if p.len() < 2 {
            self.trunc();
            return;
        }
        let fc = u16::from_le_bytes([p[0], p[1]]);
        let Some(mut hdrlen) = self.wlan_hdrlen(fc) else {
            return;
        };
        if pad {
            hdrlen = hdrlen.div_ceil(4) * 4;
        }
        // `-H`: a QoS data frame's mesh control field, 6, 12 or 18 bytes as its
        // address extension mode says (0 when its reserved bits are set).
        let mut mesh = 0;
        if self.opts.mesh_headers && fc_type(fc) == T_DATA && fc_subtype(fc) & 8 != 0 {
            let Some(&flags) = p.get(hdrlen) else {
                self.trunc();
                return;
            };
            if flags & !3 == 0 {
                mesh = 6 * (1 + usize::from(flags & 3));
            }
            hdrlen += mesh;
        }
        if p.len() < hdrlen {
            self.trunc();
            return;
        }
        if self.opts.link_header {
            self.wlan_hdr(fc, p, (mesh != 0).then(|| &p[hdrlen - mesh..hdrlen]));
        }
        let body = &p[hdrlen..];
        let blen = length - hdrlen as u32;
        let r = match fc_type(fc) {
            T_MGMT => {
                // Management frames: DA at 4, SA at 10.
                self.mgmt_body(fc, mac_at(p, 10), body, blen)
            }
            T_CTRL => {
                self.ctrl_body(fc, p);
                Ok(())
            }
            _ => self.data_body(fc, p, body, blen),
        };
        if r.is_err() {
            self.trunc();
        }
    }

    /// `extract_header_length`: `None` (with tcpdump's note) for a control
    /// subtype or frame type it does not know.
    fn wlan_hdrlen(&mut self, fc: u16) -> Option<usize> {
        let sub = fc_subtype(fc);
        match fc_type(fc) {
            T_MGMT => Some(24),
            T_CTRL => match sub {
                CTRL_CONTROL_WRAPPER => Some(16),
                CTRL_BAR => Some(20),
                CTRL_PS_POLL | CTRL_RTS | CTRL_CF_END | CTRL_END_ACK => Some(16),
                CTRL_BA | CTRL_CTS | CTRL_ACK => Some(10),
                _ => {
                    out!(self, "unknown 802.11 ctrl frame subtype ({sub})");
                    None
                }
            },
            T_DATA => {
                let four = fc & FC_TO_DS != 0 && fc & FC_FROM_DS != 0;
                Some(if four { 30 } else { 24 } + if sub & 8 != 0 { 2 } else { 0 })
            }
            t => {
                out!(self, "unknown 802.11 frame type ({t})");
                None
            }
        }
    }

    /// The addresses at the given offsets of `p`, each followed by its label
    /// and a space, as tcpdump's `-e` header prints them.
    fn wlan_addrs(&mut self, p: &[u8], fields: &[(&str, usize)]) {
        for &(label, at) in fields {
            let a = self.ether_str(mac_at(p, at));
            out!(self, "{label}:{a} ");
        }
    }

    /// `ieee_802_11_hdr_print`: `-e`'s MAC header (`p` holds all of it), and
    /// under `-H` the mesh control field `mesh` after it.
    fn wlan_hdr(&mut self, fc: u16, p: &[u8], mesh: Option<&[u8]>) {
        let sub = fc_subtype(fc);
        if self.opts.verbose > 0 {
            for (bit, name) in [
                (FC_MORE_DATA, "More Data "),
                (FC_MORE_FLAG, "More Fragments "),
                (FC_POWER_MGMT, "Pwr Mgmt "),
                (FC_RETRY, "Retry "),
                (FC_ORDER, "Strictly Ordered "),
                (FC_PROTECTED, "Protected "),
            ] {
                if fc & bit != 0 {
                    self.out.push_str(name);
                }
            }
            if fc_type(fc) != T_CTRL || sub != CTRL_PS_POLL {
                out!(self, "{}us ", u16::from_le_bytes([p[2], p[3]]));
            }
        }
        if let Some(m) = mesh {
            let ae = m[0] & 3;
            let seq = u32::from_le_bytes([m[2], m[3], m[4], m[5]]);
            out!(self, "MeshData (AE {ae} TTL {} seq {seq}", m[1]);
            for (k, name) in ["A4", "A5", "A6"].into_iter().enumerate().take(ae.into()) {
                let a = self.ether_str(mac_at(m, 6 + 6 * k));
                out!(self, " {name}:{a}");
            }
            self.out.push_str(") ");
        }
        match fc_type(fc) {
            T_MGMT => self.wlan_addrs(p, &[("BSSID", 16), ("DA", 4), ("SA", 10)]),
            T_CTRL => match sub {
                CTRL_BAR => {
                    self.out.push(' ');
                    self.wlan_addrs(p, &[("RA", 4), ("TA", 10)]);
                    let ctl = u16::from_le_bytes([p[16], p[17]]);
                    let seq = u16::from_le_bytes([p[18], p[19]]);
                    out!(self, "CTL({ctl:x}) SEQ({seq}) ");
                }
                CTRL_BA | CTRL_CTS | CTRL_ACK => self.wlan_addrs(p, &[("RA", 4)]),
                CTRL_PS_POLL => self.wlan_addrs(p, &[("BSSID", 4), ("TA", 10)]),
                CTRL_RTS => self.wlan_addrs(p, &[("RA", 4), ("TA", 10)]),
                CTRL_CF_END | CTRL_END_ACK => self.wlan_addrs(p, &[("RA", 4), ("BSSID", 10)]),
                _ => {}
            },
            _ => {
                let (ack, poll, qos) = (sub & 1 != 0, sub & 2 != 0, sub & 8 != 0);
                if ack || poll || qos {
                    self.out.push_str("CF ");
                    self.out.push_str(match (ack, poll) {
                        (true, true) => "Ack/Poll",
                        (true, false) => "Ack",
                        (false, true) => "Poll",
                        _ => "",
                    });
                    if qos {
                        self.out.push_str("+QoS");
                    }
                    self.out.push(' ');
                }
                let labels: &[(&str, usize)] = match (fc & FC_TO_DS != 0, fc & FC_FROM_DS != 0) {
                    (false, false) => &[("DA", 4), ("SA", 10), ("BSSID", 16)],
                    (false, true) => &[("DA", 4), ("BSSID", 10), ("SA", 16)],
                    (true, false) => &[("BSSID", 4), ("SA", 10), ("DA", 16)],
                    (true, true) => &[("RA", 4), ("TA", 10), ("DA", 16), ("SA", 24)],
                };
                self.wlan_addrs(p, labels);
            }
        }
    }

    /// `ctrl_body_print`: the name, and without `-e` the address that matters.
    fn ctrl_body(&mut self, fc: u16, p: &[u8]) {
        let sub = fc_subtype(fc);
        self.out.push_str(ctrl_name(sub));
        let e = self.opts.link_header;
        match sub {
            CTRL_BAR if !e => {
                self.out.push(' ');
                self.wlan_addrs(p, &[("RA", 4), ("TA", 10)]);
                let ctl = u16::from_le_bytes([p[16], p[17]]);
                let seq = u16::from_le_bytes([p[18], p[19]]);
                out!(self, "CTL({ctl:x}) SEQ({seq}) ");
            }
            CTRL_PS_POLL => out!(self, " AID({:x})", u16::from_le_bytes([p[2], p[3]])),
            CTRL_RTS if !e => {
                self.out.push(' ');
                self.wlan_addrs(p, &[("TA", 10)]);
            }
            CTRL_BA | CTRL_CTS | CTRL_ACK | CTRL_CF_END | CTRL_END_ACK if !e => {
                self.out.push(' ');
                self.wlan_addrs(p, &[("RA", 4)]);
            }
            _ => {}
        }
    }

    /// A data frame's body: nothing for the no-data subtypes, the WEP header
    /// of a protected one, else LLC and what it carries.
    fn data_body(&mut self, fc: u16, hdr: &[u8], body: &[u8], length: u32) -> PResult {
        let sub = fc_subtype(fc);
        if sub & 4 != 0 {
            return Ok(());
        }
        if fc & FC_PROTECTED != 0 {
            self.out.push_str("Data");
            return self.wep(body);
        }
        let (src, dst) = match (fc & FC_TO_DS != 0, fc & FC_FROM_DS != 0) {
            (false, false) => (10, 4),
            (false, true) => (16, 4),
            (true, false) => (10, 16),
            (true, true) => (24, 16),
        };
        let src = EthernetAddress(mac_at(hdr, src));
        let dst = EthernetAddress(mac_at(hdr, dst));
        if !self.llc(body, length, Some((src, dst)))? {
            self.default_print(body, true);
        }
        Ok(())
    }

    /// `wep_print`: the IV, pad and key ID of a protected frame.
    fn wep(&mut self, p: &[u8]) -> PResult {
        let iv = u32::from_le_bytes(p.get(..4).ok_or(Trunc)?.try_into().map_err(|_| Trunc)?);
        out!(
            self,
            " IV:{:3x} Pad {:x} KeyID {:x}",
            iv & 0xff_ffff,
            (iv >> 24) & 0x3f,
            (iv >> 30) & 3
        );
        Ok(())
    }
}
