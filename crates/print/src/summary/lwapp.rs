//! LWAPP (UDP ports 12222 for data, 12223 for control), as tcpdump 4.99's
//! `lwapp_control_print` and `lwapp_data_print` print it: the transport
//! header, with `-v` each control message's header or the data in hex.

use super::{bit_names_or, g1, g2, g4, gmac, need, out, PResult, Printer};

const FLAGS: [(u32, &str); 3] = [
    (0x01, "Last Fragment Bit"),
    (0x02, "Fragment Bit"),
    (0x04, "Control Bit"),
];

fn msg_name(t: u8) -> &'static str {
    match t {
        1 => "Discovery req",
        2 => "Discovery resp",
        3 => "Join req",
        4 => "Join resp",
        5 => "Join ack",
        6 => "Join confirm",
        10 => "Configure req",
        11 => "Configure resp",
        12 => "Update req",
        13 => "Update resp",
        14 => "WTP event req",
        15 => "WTP event resp",
        16 => "Change state event req",
        17 => "Change state event resp",
        22 => "Echo req",
        23 => "Echo resp",
        24 => "Image data req",
        25 => "Image data resp",
        26 => "Channel status req",
        27 => "Channel status resp",
        30 => "Key update req",
        31 => "Key update resp",
        32 => "Primary discovery req",
        33 => "Primary discovery resp",
        34 => "Data transfer req",
        35 => "Data transfer resp",
        36 => "Clear config ind",
        37 => "Wlan config req",
        38 => "Wlan config resp",
        39 => "Mobile config req",
        40 => "Mobile config resp",
        _ => "Unknown",
    }
}

/// The transport header is 6 bytes: version/flags, fragment id, length,
/// status; a control message's header 8: type, sequence, length, session.
const TRANSPORT: usize = 6;
const CONTROL: usize = 8;

impl Printer<'_> {
    /// The first byte's version and, without `-v`, the whole line; `None`
    /// when that was all.
    fn lwapp_start(&mut self, v: u8, len: u32) -> Option<(u8, &'static str, String)> {
        let version = (v & 0xc0) >> 6;
        if version != 0 {
            out!(self, "LWAPP version {version} packet not supported");
            return None;
        }
        let kind = if v & 0x04 != 0 { "Control" } else { "Data" };
        let flags = bit_names_or(u32::from(v & 7), &FLAGS, "none");
        if self.opts.verbose == 0 {
            out!(
                self,
                "LWAPPv{version}, {kind} frame, Flags [{flags}], length {len}"
            );
            return None;
        }
        Some((version, kind, flags))
    }

    /// `lwapp_control_print`; `ap_ident`: the AP's MAC address comes first
    /// (sent to the control port).
    pub(super) fn lwapp_control(&mut self, p: &[u8], len: u32, ap_ident: bool) -> PResult {
        self.proto = "lwapp_control";
        let th = if ap_ident { 6 } else { 0 };
        need(p, 0, th + TRANSPORT).map_err(|_| self.caught())?;
        let v = g1(p, th)?;
        let Some((version, kind, flags)) = self.lwapp_start(v, len) else {
            return Ok(());
        };
        let mut tlen = g2(p, th + 2)? as usize;
        out!(
            self,
            "LWAPPv{version}, {kind} frame, Radio-id {}, Flags [{flags}], Frag-id {}, length {tlen}",
            (v & 0x38) >> 3,
            g1(p, th + 1)?
        );
        if ap_ident {
            let mac = self.ether_str(gmac(p, 0)?);
            out!(self, "\n\tAP identity: {mac}");
        }
        let mut at = th + TRANSPORT;
        while tlen != 0 {
            need(p, at, CONTROL).map_err(|_| self.caught())?;
            let msg_len = g2(p, at + 2)? as usize;
            if tlen < CONTROL || tlen < CONTROL + msg_len {
                out!(self, "\n\t  Msg goes past end of PDU");
                break;
            }
            let t = g1(p, at)?;
            out!(
                self,
                "\n\t  Msg type: {} ({t}), Seqnum: {}, Msg len: {msg_len}, Session: 0x{:08x}",
                msg_name(t),
                g1(p, at + 1)?,
                g4(p, at + 4)?
            );
            // tcpdump checks the message's length from its header's start.
            need(p, at, msg_len).map_err(|_| self.caught())?;
            at += CONTROL + msg_len;
            tlen -= CONTROL + msg_len;
        }
        Ok(())
    }

    /// `lwapp_data_print`.
    pub(super) fn lwapp_data(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "lwapp_data";
        need(p, 0, TRANSPORT).map_err(|_| self.caught())?;
        let v = g1(p, 0)?;
        let Some((version, kind, flags)) = self.lwapp_start(v, len) else {
            return Ok(());
        };
        let rid = (v & 0x38) >> 3;
        let tlen = g2(p, 2)? as usize;
        if tlen < TRANSPORT {
            out!(
                self,
                "LWAPPv{version}, {kind} frame, Radio-id  {rid}, Flags [{flags}], length {tlen} < transport header length"
            );
            return Ok(());
        }
        out!(
            self,
            "LWAPPv{version}, {kind} frame, Radio-id  {rid}, Flags [{flags}], Frag-id  {}, length {tlen}",
            g1(p, 1)?
        );
        // An 802.11 frame follows, which tcpdump dumps in hex.
        self.unknown_data(p, TRANSPORT, tlen - TRANSPORT, "\n\t");
        Ok(())
    }
}
