//! ISO CLNS as tcpdump 4.99 prints it (print-isoclns.c): `isoclns_print`'s
//! dispatch on the NLPID, and IS-IS: the common header and the fixed part of
//! each PDU (LAN and point-to-point Hellos, LSPs, CSNPs, PSNPs) on the summary
//! line, and with `-v` their fields and every TLV on lines of their own
//! (`tlv.rs`, `reach.rs`, `spb.rs`); `-vv` adds hex dumps of the headers and
//! of each TLV.

mod clnp;
mod esis;
mod reach;
mod spb;
mod te;
mod tlv;

use super::{g1, g2, g4, name_or, need, out, tail, PResult, Printer, Trunc};
use std::fmt::Write;

const SYSTEM_ID_LEN: usize = 6;
const NODE_ID_LEN: usize = 7;
const LSP_ID_LEN: usize = 8;
const COMMON_HEADER: u32 = 8;

/// `nlpid_values`.
pub(super) fn nlpid_name(n: u8) -> Option<&'static str> {
    Some(match n {
        0x00 => "NULL",
        0x08 => "Q.933",
        0x09 => "LMI",
        0x80 => "SNAP",
        0x81 => "CLNP",
        0x82 => "ES-IS",
        0x83 => "IS-IS",
        0x84 => "CONS",
        0x85 => "IDRP",
        0xc1 => "ISIS_SPB",
        0xb1 => "FRF.15",
        0xcc => "IPv4",
        0xcf => "PPP",
        0x8a => "X25 ES-IS",
        0x8e => "IPv6",
        _ => return None,
    })
}

fn pdu_name(t: u8) -> Option<&'static str> {
    Some(match t {
        15 => "L1 Lan IIH",
        16 => "L2 Lan IIH",
        17 => "p2p IIH",
        18 => "L1 LSP",
        20 => "L2 LSP",
        24 => "L1 CSNP",
        25 => "L2 CSNP",
        26 => "L1 PSNP",
        27 => "L2 PSNP",
        _ => return None,
    })
}

fn circuit_type(t: u8) -> String {
    name_or(
        match t {
            1 => Some("Level 1 only"),
            2 => Some("Level 2 only"),
            3 => Some("Level 1, Level 2"),
            _ => None,
        },
        || format!("unknown circuit type 0x{t:02x}"),
    )
}

/// `isis_print_id`: a system ID (`xxxx.xxxx.xxxx`), node ID (`.yy` more) or
/// LSP ID (`-zz` more) of `id_len` bytes at `at`.
fn isis_id(p: &[u8], at: usize, id_len: usize) -> PResult<String> {
    let mut s = String::with_capacity(20);
    for i in 0..SYSTEM_ID_LEN.min(id_len) {
        let _ = write!(s, "{:02x}", g1(p, at + i)?);
        if i == 1 || i == 3 {
            s.push('.');
        }
    }
    if id_len >= NODE_ID_LEN {
        let _ = write!(s, ".{:02x}", g1(p, at + SYSTEM_ID_LEN)?);
    }
    if id_len == LSP_ID_LEN {
        let _ = write!(s, "-{:02x}", g1(p, at + NODE_ID_LEN)?);
    }
    Ok(s)
}

/// `GET_ISONSAP_STRING`: an NSAP as dotted hex (`49.000a`).
fn isonsap(p: &[u8], at: usize, len: usize) -> PResult<String> {
    need(p, at, len)?;
    if !(1..=20).contains(&len) {
        return Ok("isonsap_string: illegal length".to_string());
    }
    let mut s = String::with_capacity(len * 3);
    for i in 0..len {
        let _ = write!(s, "{:02x}", p[at + i]);
        if i & 1 == 0 && i + 1 < len {
            s.push('.');
        }
    }
    Ok(s)
}

/// `create_osi_cksum`: the Fletcher checksum ISO 8473 puts in the field at
/// `off` of `data`, computed with that field taken as zero.
fn osi_cksum(data: &[u8], off: usize) -> u16 {
    let (mut c0, mut c1) = (0u32, 0u32);
    for (i, &b) in data.iter().enumerate() {
        if i != off && i != off + 1 {
            c0 = c0.wrapping_add(b as u32);
        }
        c1 = c1.wrapping_add(c0);
    }
    c0 %= 255;
    c1 %= 255;
    let mul = ((data.len() - off) as u32).wrapping_mul(c0);
    let mut x = mul.wrapping_sub(c0).wrapping_sub(c1) as i32;
    let mut y = c1.wrapping_sub(mul).wrapping_sub(1) as i32;
    if y >= 0 {
        y += 1;
    }
    if x < 0 {
        x -= 1;
    }
    x %= 255;
    y %= 255;
    if x == 0 {
        x = 255;
    }
    if y == 0 {
        y = 255;
    }
    (((x << 8) | (y & 0xff)) & 0xffff) as u16
}

/// What the TLV loop does after one TLV.
enum Next {
    Tlv,
    /// `isis_print` returns this.
    Return(bool),
}

impl Printer<'_> {
    /// `isoclns_print`: `p` starts with the NLPID.
    pub(in crate::summary) fn isoclns(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "isoclns";
        let nlpid = g1(p, 0)?;
        let e = self.opts.link_header;
        if e {
            let n = nlpid_name(nlpid).unwrap_or("Unknown");
            out!(self, "OSI NLPID {n} (0x{nlpid:02x}): ");
        }
        let sep = if e { "" } else { ", " };
        match nlpid {
            0x83 => {
                if !self.isis(p, length)? {
                    self.unknown_data(p, 0, length as usize, "\n\t");
                }
            }
            0x81 => {
                if !self.clnp(p, length)? {
                    self.unknown_data(p, 0, length as usize, "\n\t");
                }
            }
            0x82 => self.esis(p, length)?,
            0x00 => out!(self, "{sep}length: {length}"),
            0xcc => self.ipv4(tail(p, 1), length.saturating_sub(1)),
            0x8e => self.ipv6(tail(p, 1), length.saturating_sub(1)),
            0xcf => self.ppp(tail(p, 1), length.saturating_sub(1))?,
            0x08 => self.q933(tail(p, 1), length.saturating_sub(1))?,
            _ => {
                if !e {
                    out!(self, "OSI NLPID 0x{nlpid:02x} unknown");
                }
                out!(self, "{sep}length: {length}");
                if length > 1 {
                    self.unknown_data(p, 0, length as usize, "\n\t");
                }
            }
        }
        Ok(())
    }

    /// ISO over the EtherType 0xfefe: tcpdump skips one byte first.
    pub(in crate::summary) fn ether_iso(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "isoclns";
        if length == 0 || p.is_empty() {
            return Err(Trunc);
        }
        self.isoclns(tail(p, 1), length - 1)
    }

    /// `osi_print_cksum`: the verdict on the checksum `sum` at `off` of the
    /// `len` bytes of `p` from `base`.
    fn osi_cksum_verdict(&mut self, p: &[u8], base: usize, sum: u16, off: usize, len: usize) {
        let ok =
            sum != 0 && need(p, base + off, 2).is_ok() && off <= len && need(p, base, len).is_ok();
        if !ok {
            out!(self, " (unverified)");
            return;
        }
        let c = osi_cksum(&p[base..base + len], off);
        if c == sum {
            out!(self, " (correct)");
        } else {
            out!(self, " (incorrect should be 0x{c:04x})");
        }
    }

    /// `isis_print`: false where tcpdump's returns 0 (the caller dumps the PDU).
    fn isis(&mut self, p: &[u8], length: u32) -> PResult<bool> {
        self.proto = "isis";
        need(p, 0, COMMON_HEADER as usize)?;
        if length < COMMON_HEADER {
            return Err(Trunc);
        }
        let e = self.opts.link_header;
        let v = self.opts.verbose;
        if !e {
            out!(self, "IS-IS");
        }
        let version = g1(p, 2)?;
        if version != 1 {
            out!(self, "version {version} packet not supported");
            return Ok(false);
        }
        let pdu_id_length = g1(p, 3)?;
        if pdu_id_length != 6 && pdu_id_length != 0 {
            out!(self, "system ID length of {pdu_id_length} is not supported");
            return Ok(false);
        }
        let pdu_version = g1(p, 5)?;
        if pdu_version != 1 {
            out!(self, "version {pdu_version} packet not supported");
            return Ok(false);
        }
        let fixed_len = g1(p, 1)?;
        if length < fixed_len as u32 {
            out!(
                self,
                "fixed header length {fixed_len} > packet length {length}"
            );
            return Ok(false);
        }
        if (fixed_len as u32) < COMMON_HEADER {
            out!(
                self,
                "fixed header length {fixed_len} < minimum header size {COMMON_HEADER}"
            );
            return Ok(false);
        }
        let pdu_max_area = g1(p, 7)?;
        let max_area = match pdu_max_area {
            0 => 3,
            255 => {
                out!(self, "bad packet -- 255 areas");
                return Ok(false);
            }
            m => m,
        };
        // A length of 0 means 6; only 6 gets this far.
        let id_length = 6;
        let pdu_type = g1(p, 4)?;
        let sep = if e { "" } else { ", " };
        if v == 0 {
            let n = name_or(pdu_name(pdu_type), || {
                format!("unknown PDU-Type {pdu_type}")
            });
            out!(self, "{sep}{n}");
        } else {
            out!(self, "{sep}length {length}");
            let n = name_or(pdu_name(pdu_type), || format!("unknown, type {pdu_type}"));
            out!(
                self,
                "\n\t{n}, hlen: {fixed_len}, v: {version}, pdu-v: {pdu_version}, sys-id-len: {id_length} ({pdu_id_length}), max-area: {max_area} ({pdu_max_area})"
            );
            if v > 1 && !self.unknown_data(p, 0, 8, "\n\t") {
                return Ok(false);
            }
        }
        let hdr = match self.isis_pdu_header(p, length, pdu_type, fixed_len)? {
            Ok(h) => h,
            Err(r) => return Ok(r),
        };
        let (hdr_size, pdu_len) = hdr;
        let (mut packet_len, length) = if length > pdu_len as u32 {
            (pdu_len as u32, pdu_len as u32)
        } else {
            (length, length)
        };
        if v > 1 && !self.unknown_data(p, 8, hdr_size - 8, "\n\t  ") {
            return Ok(false);
        }
        if packet_len < hdr_size as u32 {
            out!(self, " [packet length {packet_len} < {hdr_size}] (invalid)");
            return Ok(true);
        }
        packet_len -= hdr_size as u32;
        let mut pptr = hdr_size;
        while packet_len > 0 {
            need(p, pptr, 2)?;
            if packet_len < 2 {
                return Err(Trunc);
            }
            let tlv_type = p[pptr];
            let tlv_len = p[pptr + 1];
            pptr += 2;
            packet_len -= 2;
            out!(
                self,
                "\n\t    {} TLV #{tlv_type}, length: {tlv_len}",
                tlv::tlv_name(tlv_type).unwrap_or("unknown")
            );
            if packet_len < tlv_len as u32 {
                return Err(Trunc);
            }
            if let Next::Return(r) = self.isis_tlv(p, pptr, tlv_type, tlv_len, length)? {
                return Ok(r);
            }
            if v > 1 && !self.unknown_data(p, pptr, tlv_len as usize, "\n\t      ") {
                return Ok(false);
            }
            pptr += tlv_len as usize;
            packet_len -= tlv_len as u32;
        }
        Ok(true)
    }

    /// The fixed header of each PDU type: its size and PDU length, or what
    /// `isis_print` returns when it stops there (with `-v` off, after the
    /// summary).
    fn isis_pdu_header(
        &mut self,
        p: &[u8],
        length: u32,
        pdu_type: u8,
        fixed_len: u8,
    ) -> PResult<Result<(usize, u16), bool>> {
        let v = self.opts.verbose;
        let size: usize = match pdu_type {
            15 | 16 => 27,
            17 => 20,
            18 | 20 => 27,
            24 | 25 => 33,
            26 | 27 => 17,
            _ => {
                if v == 0 {
                    out!(self, ", length {length}");
                    return Ok(Err(true));
                }
                self.unknown_data(p, 8, length as usize, "\n\t  ");
                return Ok(Err(false));
            }
        };
        if fixed_len as usize != size {
            let (lead, should) = match pdu_type {
                18 | 20 => (", ", size - 8),
                26 | 27 => ("- ", size),
                _ => (", ", size),
            };
            out!(
                self,
                "{lead}bogus fixed header length {fixed_len} should be {should}"
            );
            return Ok(Err(false));
        }
        need(p, 8, size - 8)?;
        if (length as usize) < size {
            return Err(Trunc);
        }
        let pdu_len = g2(p, if pdu_type <= 17 { 17 } else { 8 })?;
        if v == 0 {
            match pdu_type {
                15 | 16 => {
                    let (s, l) = (isis_id(p, 9, 6)?, isis_id(p, 20, 7)?);
                    let prio = g1(p, 19)?;
                    out!(self, ", src-id {s}, lan-id {l}, prio {prio}");
                }
                17 => out!(self, ", src-id {}", isis_id(p, 9, 6)?),
                18 | 20 => out!(
                    self,
                    ", lsp-id {}, seq 0x{:08x}, lifetime {:>5}s",
                    isis_id(p, 12, 8)?,
                    g4(p, 20)?,
                    g2(p, 10)?
                ),
                _ => out!(self, ", src-id {}", isis_id(p, 10, 7)?),
            }
            out!(self, ", length {length}");
            return Ok(Err(true));
        }
        let length = length.min(pdu_len as u32);
        match pdu_type {
            15..=17 => {
                // tcpdump's LAN Hello line has two spaces after the source.
                let gap = if pdu_type == 17 { " " } else { "  " };
                out!(
                    self,
                    "\n\t  source-id: {},{gap}holding time: {}s, Flags: [{}]",
                    isis_id(p, 9, 6)?,
                    g2(p, 15)?,
                    circuit_type(g1(p, 8)?)
                );
                if pdu_type == 17 {
                    let c = g1(p, 19)?;
                    out!(self, "\n\t  circuit-id: 0x{c:02x}, PDU length: {pdu_len}");
                } else {
                    let (l, prio) = (isis_id(p, 20, 7)?, g1(p, 19)? & 0x7f);
                    out!(
                        self,
                        "\n\t  lan-id:    {l}, Priority: {prio}, PDU length: {pdu_len}"
                    );
                }
            }
            18 | 20 => self.lsp_header(p, length, pdu_len)?,
            24 | 25 => {
                out!(
                    self,
                    "\n\t  source-id:    {}, PDU length: {pdu_len}",
                    isis_id(p, 10, 7)?
                );
                out!(self, "\n\t  start lsp-id: {}", isis_id(p, 17, 8)?);
                out!(self, "\n\t  end lsp-id:   {}", isis_id(p, 25, 8)?);
            }
            _ => out!(
                self,
                "\n\t  source-id:    {}, PDU length: {pdu_len}",
                isis_id(p, 10, 7)?
            ),
        }
        Ok(Ok((size, pdu_len)))
    }

    fn lsp_header(&mut self, p: &[u8], length: u32, pdu_len: u16) -> PResult {
        let cksum = g2(p, 24)?;
        out!(
            self,
            "\n\t  lsp-id: {}, seq: 0x{:08x}, lifetime: {:>5}s\n\t  chksum: 0x{cksum:04x}",
            isis_id(p, 12, 8)?,
            g4(p, 20)?,
            g2(p, 10)?
        );
        // A PDU length under 12 wraps, as tcpdump's unsigned one does, and
        // leaves the checksum unverified.
        let len = (length as usize).wrapping_sub(12);
        self.osi_cksum_verdict(p, 12, cksum, 12, len);
        let tb = g1(p, 26)?;
        out!(self, ", PDU length: {pdu_len}, Flags: [ ");
        if tb & 0x4 != 0 {
            out!(self, "Overload bit set, ");
        }
        if tb & 0x78 != 0 {
            for (bit, n) in [
                (0x8, "default "),
                (0x10, "delay "),
                (0x20, "expense "),
                (0x40, "error "),
            ] {
                if tb & bit != 0 {
                    out!(self, "{n}");
                }
            }
            out!(self, "ATT bit set, ");
        }
        if tb & 0x80 != 0 {
            out!(self, "P bit set, ");
        }
        let t = match tb & 3 {
            0 => "Unused 0x0 (invalid)",
            1 => "L1 IS",
            2 => "Unused 0x2 (invalid)",
            _ => "L2 IS",
        };
        out!(self, "{t} ]");
        Ok(())
    }
}
