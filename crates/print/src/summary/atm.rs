//! LLC-encapsulated ATM: RFC 1483 (tcpdump's `atm_if_print`) and Linux Classical IP
//! over ATM (`cip_if_print`). Both start with an 802.2 LLC header, printed as for
//! 802.3 without addresses; Classical IP may also carry bare IPv4, and RFC 1483 a
//! Fore driver's 20-byte 802.6 header before the LLC. RFC 1483's Cisco-style NLPID
//! frames go to the ISO printer (`isis/`).

use super::{g1, g4, out, tail, PResult, Printer, Trunc};

/// LLC UI headers with the SNAP, OSI and IP SAPs (`LLC_UI_HDR`).
const UI_SNAP: u32 = 0xaaaa03;
const UI_ISONS: u32 = 0xfefe03;
const UI_IP: u32 = 0x060603;

impl Printer<'_> {
    /// `atm_if_print`.
    pub(super) fn atm_rfc1483_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "atm";
        if g1(data, 0)? == 0x03 {
            if self.opts.link_header {
                self.out.push_str("CNLPID ");
            }
            return self.isoclns(tail(data, 1), length - 1);
        }
        let hdr = u32::from_be_bytes([0, g1(data, 0)?, g1(data, 1)?, g1(data, 2)?]);
        let (p, length) = if ![UI_SNAP, UI_ISONS, UI_IP].contains(&hdr) {
            if self.opts.link_header {
                let w = |i: usize| g4(data, 4 * i);
                out!(
                    self,
                    "{:08x}{:08x} {:08x}{:08x} ",
                    w(0)?,
                    w(1)?,
                    w(2)?,
                    w(3)?
                );
            }
            if data.len() < 20 {
                return Err(Trunc);
            }
            (tail(data, 20), length.saturating_sub(20))
        } else {
            (data, length)
        };
        self.llc(p, length, None)?;
        Ok(())
    }

    /// `cip_if_print`.
    pub(super) fn atm_clip_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "cip";
        if self.opts.link_header {
            out!(self, "{length}: ");
        }
        if data.len() < 6 {
            return Err(Trunc);
        }
        if data[..6] == [0xaa, 0xaa, 0x03, 0, 0, 0] {
            self.llc(data, length, None)?;
        } else {
            self.ipv4(data, length);
        }
        Ok(())
    }
}
