//! EIGRP as tcpdump 4.99 prints it (`eigrp_print`): the opcode on the summary
//! line, and with `-v` the common header and each TLV (parameters, software
//! version, IPv4 and AppleTalk routes) on lines of their own.

use super::{bit_names, g1, g2, g3, g4, gv4, need, out, tail, PResult, Printer};
use std::net::Ipv4Addr;

const HEADER_LEN: usize = 20;

fn opcode_name(op: u8) -> Option<&'static str> {
    Some(match op {
        1 => "Update",
        3 => "Query",
        4 => "Reply",
        5 => "Hello",
        6 => "IPX SAP",
        7 => "Probe",
        _ => return None,
    })
}

fn tlv_name(t: u16) -> &'static str {
    match t {
        0x0001 => "General Parameters",
        0x0002 => "Authentication",
        0x0003 => "Sequence",
        0x0004 => "Software Version",
        0x0005 => "Next Multicast Sequence",
        0x0102 => "IP Internal routes",
        0x0103 => "IP External routes",
        0x0202 => "AppleTalk Internal routes",
        0x0203 => "AppleTalk External routes",
        0x0204 => "AppleTalk Cable setup",
        0x0302 => "IPX Internal routes",
        0x0303 => "IPX External routes",
        _ => "Unknown",
    }
}

fn ext_proto_name(p: u8) -> &'static str {
    match p {
        0x01 => "IGRP",
        0x02 => "EIGRP",
        0x03 => "Static",
        0x04 => "RIP",
        0x05 => "Hello",
        0x06 => "OSPF",
        0x07 => "IS-IS",
        0x08 => "EGP",
        0x09 => "BGP",
        0x0a => "IDRP",
        0x0b => "Connected",
        _ => "unknown",
    }
}

impl Printer<'_> {
    /// `eigrp_print`: `bp` is the EIGRP packet, `len` its length.
    pub(super) fn eigrp(&mut self, bp: &[u8], len: u32) -> PResult {
        self.proto = "eigrp";
        need(bp, 0, HEADER_LEN)?;
        let version = g1(bp, 0)?;
        if version != 2 {
            out!(self, "EIGRP version {version} packet not supported");
            return Ok(());
        }
        let op = g1(bp, 1)?;
        if self.opts.verbose == 0 {
            match opcode_name(op) {
                Some(n) => out!(self, "EIGRP {n}, length: {len}"),
                None => out!(self, "EIGRP unknown ({op}), length: {len}"),
            }
            return Ok(());
        }
        let len = len as usize;
        if len < HEADER_LEN {
            match opcode_name(op) {
                Some(n) => out!(self, "EIGRP {n}"),
                None => out!(self, "EIGRP unknown ({op})"),
            }
            out!(self, ", length: {len} (too short, < {HEADER_LEN})");
            return Ok(());
        }
        let fnames = bit_names(
            g4(bp, 4)?,
            &[
                (0x01, "Init"),
                (0x02, "Conditionally Received"),
                (0x04, "Restart"),
                (0x08, "End-of-Table"),
            ],
        );
        let opname = match opcode_name(op) {
            Some(n) => n.to_string(),
            None => format!("unknown, type: {op}"),
        };
        out!(
            self,
            "\n\tEIGRP v{version}, opcode: {opname} ({op}), chksum: 0x{:04x}, Flags: [{fnames}]\
             \n\tseq: 0x{:08x}, ack: 0x{:08x}, VRID: {}, AS: {}, length: {}",
            g2(bp, 2)?,
            g4(bp, 8)?,
            g4(bp, 12)?,
            g2(bp, 16)?,
            g2(bp, 18)?,
            len - HEADER_LEN
        );
        self.eigrp_tlvs(tail(bp, HEADER_LEN), len - HEADER_LEN)
    }

    fn eigrp_tlvs(&mut self, bp: &[u8], len: usize) -> PResult {
        let mut at = 0usize;
        let mut left = len;
        while left > 0 {
            need(bp, at, 4)?;
            let t = g2(bp, at)?;
            let tlen = g2(bp, at + 2)? as usize;
            // A TLV that does not fit ends the decode with a dump of the
            // rest (from past the TLV header, tcpdump's own reckoning).
            if tlen < 4 || tlen > left {
                crate::dump::unknown_data(&mut self.out, "\n\t    ", tail(bp, at + 4), left);
                return Ok(());
            }
            out!(
                self,
                "\n\t  {} TLV (0x{t:04x}), length: {tlen}",
                tlv_name(t)
            );
            need(bp, at, tlen)?;
            let v = tail(bp, at + 4);
            let vlen = tlen - 4;
            let min = match t {
                0x0001 => 8,
                0x0004 => 4,
                0x0102 => 22,
                0x0103 => 42,
                0x0204 => 8,
                0x0202 => 24,
                0x0203 => 40,
                _ => 0,
            };
            if vlen < min {
                out!(self, " (too short, < {})", 4 + min);
            } else {
                match t {
                    0x0001 => out!(
                        self,
                        "\n\t    holdtime: {}s, k1 {}, k2 {}, k3 {}, k4 {}, k5 {}",
                        g2(v, 6)?,
                        g1(v, 0)?,
                        g1(v, 1)?,
                        g1(v, 2)?,
                        g1(v, 3)?,
                        g1(v, 4)?
                    ),
                    0x0004 => out!(
                        self,
                        "\n\t    IOS version: {}.{}, EIGRP version {}.{}",
                        g1(v, 0)?,
                        g1(v, 1)?,
                        g1(v, 2)?,
                        g1(v, 3)?
                    ),
                    0x0102 => self.eigrp_ip_route(v, false)?,
                    0x0103 => self.eigrp_ip_route(v, true)?,
                    0x0204 => out!(
                        self,
                        "\n\t    Cable-range: {}-{}, Router-ID {}",
                        g2(v, 0)?,
                        g2(v, 2)?,
                        g4(v, 4)?
                    ),
                    0x0202 => self.eigrp_at_route(v, false)?,
                    0x0203 => self.eigrp_at_route(v, true)?,
                    _ if self.opts.verbose <= 1 => {
                        crate::dump::unknown_data(&mut self.out, "\n\t    ", v, vlen)
                    }
                    _ => {}
                }
            }
            // -vv dumps every TLV's value after decoding it.
            if self.opts.verbose > 1 {
                crate::dump::unknown_data(&mut self.out, "\n\t    ", v, vlen);
            }
            at += tlen;
            left -= tlen;
        }
        Ok(())
    }

    /// The IPv4 internal (22 bytes and a prefix) or external (42 and a prefix)
    /// route of an EIGRP TLV.
    fn eigrp_ip_route(&mut self, v: &[u8], ext: bool) -> PResult {
        let base = if ext { 24 } else { 4 };
        let plen_at = if ext { 40 } else { 20 };
        let bits = g1(v, plen_at)?;
        if bits > 32 {
            out!(self, "\n\t    illegal prefix length {bits}");
            return Ok(());
        }
        // The prefix carries only the bytes its length needs.
        let bytes = (bits as usize).div_ceil(8);
        need(v, plen_at + 1, bytes)?;
        let mut prefix = [0u8; 4];
        prefix[..bytes].copy_from_slice(&v[plen_at + 1..plen_at + 1 + bytes]);
        out!(
            self,
            "\n\t    IPv4 prefix: {:>15}/{bits}, nexthop: ",
            Ipv4Addr::from(prefix).to_string()
        );
        match g4(v, 0)? {
            0 => out!(self, "self"),
            n => out!(self, "{}", Ipv4Addr::from(n)),
        }
        if ext {
            out!(
                self,
                "\n\t      origin-router {}, origin-as {}, origin-proto {}, flags [0x{:02x}], \
                 tag 0x{:08x}, metric {}",
                gv4(v, 4)?,
                g4(v, 8)?,
                ext_proto_name(g1(v, 22)?),
                g1(v, 23)?,
                g4(v, 12)?,
                g4(v, 16)?
            );
        }
        self.eigrp_metrics(v, base)
    }

    /// An AppleTalk internal (24 bytes) or external (40) route.
    fn eigrp_at_route(&mut self, v: &[u8], ext: bool) -> PResult {
        let cable = if ext { 36 } else { 20 };
        out!(
            self,
            "\n\t     Cable-Range: {}-{}, nexthop: ",
            g2(v, cable)?,
            g2(v, cable + 2)?
        );
        match g4(v, 0)? {
            0 => out!(self, "self"),
            _ => out!(self, "{}.{}", g2(v, 0)?, g2(v, 2)?),
        }
        if ext {
            out!(
                self,
                "\n\t      origin-router {}, origin-as {}, origin-proto {}, flags [0x{:02x}], \
                 tag 0x{:08x}, metric {}",
                g4(v, 4)?,
                g4(v, 8)?,
                ext_proto_name(g1(v, 16)?),
                g1(v, 17)?,
                g4(v, 12)?,
                g2(v, 18)?
            );
        }
        self.eigrp_metrics(v, if ext { 20 } else { 4 })
    }

    /// Delay, bandwidth, MTU, hop count, reliability and load from `at`.
    fn eigrp_metrics(&mut self, v: &[u8], at: usize) -> PResult {
        out!(
            self,
            "\n\t      delay {} ms, bandwidth {} Kbps, mtu {}, hop {}, reliability {}, load {}",
            g4(v, at)? / 100,
            g4(v, at + 4)?,
            g3(v, at + 8)?,
            g1(v, at + 11)?,
            g1(v, at + 12)?,
            g1(v, at + 13)?
        );
        Ok(())
    }
}
