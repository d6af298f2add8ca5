//! RSVP's ERO/RRO and generalized UNI subobjects (tcpdump 4.99.3's
//! `rsvp_obj_print` cases for them), the C-Type names, and how an
//! object's decoding stops early.

use super::{g1, g2, g4, gv4, gv6, host4_name, need, out, PResult, Printer};

/// `rsvp_ctype_values`, keyed by class and C-Type.
pub(super) fn ctype_name(class: u8, ct: u8) -> &'static str {
    match (class, ct) {
        (3, 1) | (195, 1) | (15, 1) | (10, 1) | (1, 1) | (11, 1) | (20, 1) | (21, 1) | (6, 1) => {
            "IPv4"
        }
        (3, 2) | (195, 2) | (15, 2) | (10, 2) | (1, 2) | (11, 2) | (6, 2) => "IPv6",
        (3, 3) | (6, 3) => "IPv4 plus opt. TLVs",
        (3, 4) | (6, 4) => "IPv6 plus opt. TLVs",
        (9, 1) => "obsolete",
        (9 | 12 | 13, 2) => "IntServ",
        (10, 3) => "IPv6 Flow-label",
        (10 | 1 | 11 | 207 | 205 | 63, 7) => "Tunnel IPv4",
        (10 | 11, 12) | (1, 13) => "IPv4 P2MP LSP Tunnel",
        (10 | 11, 13) | (1, 14) => "IPv6 P2MP LSP Tunnel",
        (1, 11) => "UNI IPv4",
        (24, 1) => "Message id ack",
        (24, 2) => "Message id nack",
        (22, 1) => "Hello Request",
        (22, 2) => "Hello Ack",
        (19, 1) => "without label range",
        (19, 2) => "with ATM label range",
        (19, 3) => "with FR label range",
        (19, 4) | (16 | 129 | 35 | 34, 2) => "Generalized Label",
        (16 | 129 | 35 | 34, 1) => "Label",
        (16 | 129 | 35 | 34, 3) => "Waveband Switching",
        (131, 1) => "IPv4",
        (5 | 23 | 25 | 8 | 134 | 205 | 204 | 196 | 66 | 125 | 36 | 229, 1) => "1",
        (50, 1) => "IPv4 sub-LSP",
        (50, 2) => "IPv6 sub-LSP",
        _ => "Unknown",
    }
}

/// How an object's decoding ended early (tcpdump's labels that return -1).
pub(super) enum Stop {
    TooShort,
    SubTooShort,
    Invalid,
}

impl Printer<'_> {
    /// ERO and RRO subobjects.
    pub(super) fn rsvp_xro(&mut self, o: &[u8], ind: &str) -> PResult<Result<bool, Stop>> {
        let (mut at, mut left) = (0usize, o.len());
        while left >= 4 {
            need(o, at, 4)?;
            let b0 = g1(o, at)?;
            let len = usize::from(g1(o, at + 1)?);
            let st = b0 & 0x7f;
            let name = match st {
                0 => "Reserved".to_string(),
                1 => "IPv4 prefix".to_string(),
                2 => "IPv6 prefix".to_string(),
                3 => "Label".to_string(),
                32 => "Autonomous system number".to_string(),
                64 => "MPLS label switched path termination".to_string(),
                _ => format!("Unknown {st}"),
            };
            out!(self, "{ind}  Subobject Type: {name}, length {len}");
            if left < len {
                out!(self, "{ind}  ERROR: ERO subobject length > object length");
                break;
            }
            if len == 0 {
                out!(self, "{ind}  ERROR: zero length ERO subtype");
                break;
            }
            match st {
                1 => {
                    if len != 8 {
                        self.out.push_str(" ERROR: length != 8");
                        return Ok(Err(Stop::Invalid));
                    }
                    need(o, at, 8)?;
                    let pl = g1(o, at + 6)?;
                    if pl != 32 {
                        out!(self, " ERROR: Prefix length {pl} != 32");
                        return Ok(Err(Stop::Invalid));
                    }
                    let names = [
                        (0x01, "Local protection available"),
                        (0x02, "Local protection in use"),
                        (0x04, "Bandwidth protection"),
                        (0x08, "Node protection"),
                    ];
                    let a = host4_name(self.opts.names, gv4(o, at + 2)?);
                    out!(
                        self,
                        ", {}, {a}/{pl}, Flags: [{}]",
                        if b0 & 0x80 != 0 { "Loose" } else { "Strict" },
                        super::bit_names(u32::from(g1(o, at + 7)?), &names)
                    );
                }
                3 => {
                    if len != 8 {
                        self.out.push_str(" ERROR: length != 8");
                        return Ok(Err(Stop::Invalid));
                    }
                    need(o, at, 8)?;
                    let f = g1(o, at + 2)?;
                    let ct = g1(o, at + 3)?;
                    let fl = if f & 1 != 0 { "Global" } else { "none" };
                    out!(
                        self,
                        ", Flags: [{fl}] ({:#x}), Class-Type: {} ({ct}), {}",
                        f,
                        ctype_name(21, ct),
                        g4(o, at + 4)?
                    );
                }
                _ => {}
            }
            left -= len;
            at += len;
        }
        Ok(Ok(false))
    }

    /// The generalized UNI object's subobjects.
    pub(super) fn rsvp_uni(&mut self, o: &[u8], ind: &str) -> PResult<Result<bool, Stop>> {
        let mut obj_tlen = o.len();
        if obj_tlen < 4 {
            return Ok(Err(Stop::TooShort));
        }
        let mut total = obj_tlen;
        let mut at = 0usize;
        let mut hexdump = false;
        while total > 0 {
            if total < 4 {
                return Ok(Err(Stop::Invalid));
            }
            let sl = usize::from(g2(o, at)?);
            let w = g2(o, at + 2)?;
            let (st, af) = (w >> 8, w & 0xff);
            let sname = match st {
                1 => "Source TNA address",
                2 => "Destination TNA address",
                3 => "Diversity",
                4 => "Egress label",
                5 => "Service level",
                _ => "Unknown",
            };
            let afname = super::ldp::af_name(af).unwrap_or("Unknown");
            out!(
                self,
                "{ind}  Subobject Type: {sname} ({st}), AF: {afname} ({af}), length: {sl}"
            );
            if sl < 4 || sl > total || obj_tlen < sl {
                return Ok(Err(Stop::Invalid));
            }
            match st {
                1 | 2 => match af {
                    1 if sl < 8 => return Ok(Err(Stop::SubTooShort)),
                    1 => {
                        let a = host4_name(self.opts.names, gv4(o, at + 4)?);
                        out!(self, "{ind}    UNI IPv4 TNA address: {a}");
                    }
                    2 if sl < 20 => return Ok(Err(Stop::SubTooShort)),
                    2 => {
                        let a = self.host6(gv6(o, at + 4)?);
                        out!(self, "{ind}    UNI IPv6 TNA address: {a}");
                    }
                    3 => hexdump = true,
                    _ => {}
                },
                3 => hexdump |= sl > 4,
                4 => {
                    if sl < 16 {
                        return Ok(Err(Stop::SubTooShort));
                    }
                    let v = g4(o, at + 4)?;
                    out!(
                        self,
                        "{ind}    U-bit: {:x}, Label type: {}, Logical port id: {}, Label: {}",
                        v >> 31,
                        v & 0xff,
                        g4(o, at + 8)?,
                        g4(o, at + 12)?
                    );
                }
                5 => {
                    if sl < 8 {
                        return Ok(Err(Stop::SubTooShort));
                    }
                    out!(self, "{ind}    Service level: {}", g4(o, at + 4)? >> 24);
                }
                _ => hexdump = true,
            }
            total -= sl;
            at += sl;
            // tcpdump adds where it means to subtract.
            obj_tlen += sl;
        }
        Ok(Ok(hexdump))
    }
}
