//! ISAKMP/IKE (UDP ports 500, 7500, 8500, and 4500 after a zero non-ESP
//! marker), as tcpdump 4.99's `isakmp_print` prints the message header: the
//! phase, the initiator or responder (from a bounded cache of initiator
//! cookies, as tcpdump's), the exchange type and flags; with `-v` the
//! version and message id and whether the payloads are encrypted, with `-vv`
//! the cookies, and the payloads, one a line (`payload.rs` walks them,
//! `v1.rs` and `v2.rs` print IKEv1's and IKEv2's, `tables.rs` names).

mod payload;
mod tables;
mod v1;
mod v2;

use super::{g1, g4, need, out, IpAddrs, IpCtx, PResult, Printer, Trunc};
use payload::Walk;

/// tcpdump's `MAXINITIATORS`.
const MAX_INITIATORS: usize = 20;
/// The ISAKMP header's size.
const HDR: usize = 28;

/// One exchange seen from its first packet: the initiator's cookie and the
/// addresses of initiator and responder.
#[derive(Clone, Copy, Debug, Default)]
struct Initiator {
    cookie: [u8; 8],
    /// 0 (an empty slot), 4 or 6.
    version: u8,
    iaddr: [u8; 16],
    raddr: [u8; 16],
}

/// The last [`MAX_INITIATORS`] exchanges, a ring as tcpdump's `cookiecache`.
#[derive(Debug, Default)]
pub(crate) struct Cookies {
    slots: [Initiator; MAX_INITIATORS],
    next: usize,
}

/// `(version, source, destination)` of the IP header, padded to 16 bytes.
fn ip_of(addrs: &IpAddrs) -> (u8, [u8; 16], [u8; 16]) {
    let mut s = [0u8; 16];
    let mut d = [0u8; 16];
    match *addrs {
        IpAddrs::V4(a, b) => {
            s[..4].copy_from_slice(&a.octets());
            d[..4].copy_from_slice(&b.octets());
            (4, s, d)
        }
        IpAddrs::V6(a, b) => (6, a.octets(), b.octets()),
    }
}

impl Cookies {
    fn find(&self, ck: &[u8; 8]) -> Option<usize> {
        self.slots.iter().position(|s| &s.cookie == ck)
    }

    fn record(&mut self, ck: &[u8; 8], addrs: &IpAddrs) {
        if let Some(i) = self.find(ck) {
            self.next = (i + 1) % MAX_INITIATORS;
            return;
        }
        let (version, iaddr, raddr) = ip_of(addrs);
        self.slots[self.next] = Initiator {
            cookie: *ck,
            version,
            iaddr,
            raddr,
        };
        self.next = (self.next + 1) % MAX_INITIATORS;
    }

    /// `cookie_sidecheck`: whether the packet's source is the initiator's
    /// (`initiator`) or the responder's address of slot `i`.
    fn side(&self, i: usize, addrs: &IpAddrs, initiator: bool) -> bool {
        let (version, src, _) = ip_of(addrs);
        let s = &self.slots[i];
        s.version == version && src == if initiator { s.iaddr } else { s.raddr }
    }
}

/// `STR_OR_ID` of `etypestr`.
fn etype_name(t: u8) -> String {
    match t {
        0 => "none",
        1 => "base",
        2 => "ident",
        3 => "auth",
        4 => "agg",
        5 => "inf",
        32 => "oakley-quick",
        33 => "oakley-newgroup",
        34 => "ikev2_init",
        35 => "ikev2_auth",
        36 => "child_sa",
        37 => "inf2",
        _ => return format!("#{t}"),
    }
    .to_string()
}

impl Printer<'_> {
    /// `isakmp_print`: `length` bytes of ISAKMP message, `p` captured.
    pub(super) fn isakmp(&mut self, p: &[u8], length: u32, ctx: &IpCtx) -> PResult {
        self.proto = "isakmp";
        need(p, 0, HDR)?;
        out!(self, "isakmp");
        let vers = g1(p, 17)?;
        let (major, minor) = (vers >> 4, vers & 0xf);
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        if self.opts.verbose > 0 {
            out!(self, " {major}.{minor} msgid {}", hex(&p[20..24]));
        }
        if self.opts.verbose > 1 {
            out!(self, " cookie {}->{}", hex(&p[0..8]), hex(&p[8..16]));
        }
        out!(self, ":");
        let phase1 = g4(p, 20)? == 0;
        let etype = etype_name(g1(p, 18)?);
        let flags = g1(p, 19)?;
        match major {
            1 => {
                out!(
                    self,
                    "{}",
                    if phase1 {
                        " phase 1"
                    } else {
                        " phase 2/others"
                    }
                );
                let ck: [u8; 8] = p[0..8].try_into().map_err(|_| Trunc)?;
                let cookies = &mut self.tcp.isakmp;
                let side = match cookies.find(&ck) {
                    None if p[8..16].iter().all(|&b| b == 0) => {
                        cookies.record(&ck, &ctx.addrs);
                        "I"
                    }
                    None => "?",
                    Some(i) if cookies.side(i, &ctx.addrs, true) => "I",
                    Some(i) if cookies.side(i, &ctx.addrs, false) => "R",
                    Some(_) => "?",
                };
                out!(self, " {side} {etype}");
                if flags != 0 {
                    let e = if flags & 1 != 0 { "E" } else { "" };
                    let c = if flags & 2 != 0 { "C" } else { "" };
                    out!(self, "[{e}{c}]");
                }
            }
            2 => {
                out!(self, "{}", if phase1 { " parent_sa" } else { " child_sa " });
                out!(self, " {etype}");
                if flags != 0 {
                    let i = if flags & 0x08 != 0 { "I" } else { "" };
                    let v = if flags & 0x10 != 0 { "V" } else { "" };
                    let r = if flags & 0x20 != 0 { "R" } else { "" };
                    out!(self, "[{i}{v}{r}]");
                }
            }
            _ => return Ok(()),
        }
        if self.opts.verbose > 0 {
            out!(self, ":");
            let np = g1(p, 16)?;
            if flags & 1 != 0 {
                out!(self, " [encrypted {}]", tables::np_name(np));
            } else {
                let walk = Walk {
                    proto: 0,
                    depth: 0,
                    v2: major == 2,
                };
                self.ike_sub(p, np, HDR, walk)?;
            }
            let len = g4(p, 24)?;
            if len != length {
                out!(self, " (len mismatch: isakmp {len}/ip {length})");
            }
        }
        Ok(())
    }
}
