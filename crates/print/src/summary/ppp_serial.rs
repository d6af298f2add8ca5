//! PPP in HDLC-like framing (`DLT_PPP_SERIAL`, tcpdump's `ppp_hdlc_if_print`):
//! address and control bytes, then the protocol; Cisco HDLC frames on the
//! same link go to the C-HDLC printer. A protocol in the escape range
//! (`0x7exx`) means the frame was captured still byte-stuffed: it is
//! unescaped into a copy bounded by the captured length (`ppp_hdlc`) and
//! printed from there.

use super::{g1, g2, out, tail, PResult, Printer, Trunc};
use netsift_wire::pppoe::PppProtocol;

const PPP_ADDRESS: u8 = 0xff;
const PPP_CONTROL: u8 = 0x03;
const PPP_IP: u8 = 0x21;
const PPP_IPV6: u8 = 0x57;

impl Printer<'_> {
    /// `ppp_hdlc_if_print`.
    pub(super) fn ppp_serial_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "ppp_hdlc";
        if data.len() < 2 {
            return Err(Trunc);
        }
        let (a, c) = (data[0], data[1]);
        if a == 0x0f || a == 0x8f {
            return self.chdlc_if(data, length);
        }
        if data.len() < 4 {
            return Err(Trunc);
        }
        if self.opts.link_header {
            out!(self, "{a:02x} {c:02x} {length} ");
        }
        if a != PPP_ADDRESS {
            out!(self, "unknown addr {:02x}; ctrl {:02x}", data[2], data[3]);
            return Ok(());
        }
        let proto = g2(data, 2)?;
        match PppProtocol(proto).name() {
            Some(n) => out!(self, "{n}: "),
            None => out!(self, "unknown PPP protocol (0x{proto:04x}): "),
        }
        let length = length.saturating_sub(4);
        if proto & 0xff00 == 0x7e00 {
            // handle_ppp's escape case: from the protocol's second byte.
            return self.ppp_hdlc(&data[3..], length);
        }
        self.handle_ppp(proto, tail(data, 4), length)
    }

    /// `ppp_hdlc`: unescapes `p` and guesses where the protocol is.
    pub(super) fn ppp_hdlc(&mut self, p: &[u8], length: u32) -> PResult {
        if p.is_empty() || length == 0 {
            return Ok(());
        }
        let mut b = Vec::with_capacity(p.len());
        let mut it = p.iter();
        while let Some(&c) = it.next() {
            if c == 0x7d {
                match it.next() {
                    Some(&n) => b.push(n ^ 0x20),
                    None => break,
                }
            } else {
                b.push(c);
            }
        }
        let length = b.len() as u32;
        let first = g1(&b, 0)?;
        if first == PPP_IP {
            self.ipv4(&b[1..], length - 1);
            return Ok(());
        }
        if first == PPP_IPV6 {
            self.ipv6(&b[1..], length - 1);
            return Ok(());
        }
        let two = g2(&b, 0)?;
        let (proto, at) = if two == u16::from_be_bytes([PPP_ADDRESS, PPP_CONTROL]) {
            (g2(&b, 2)?, 4)
        } else {
            (two, 2)
        };
        if proto & 0xff00 == 0x7e00 {
            out!(self, "(protocol 0x{proto:04x} invalid)");
            return Ok(());
        }
        self.handle_ppp(proto, &b[at..], length - at as u32)
    }
}
