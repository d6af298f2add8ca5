//! 802.1ag connectivity fault management (EtherTypes 0x8902 and the old
//! 0xabcd), as tcpdump 4.99's `cfm_print` prints it: the common header,
//! with `-v` each message's fields and its TLVs, with `-vv` their bytes.

use super::ldp::af_name;
use super::link::oui_name;
use super::lldp::chassis_subtype;
use super::{bit_names, g1, g2, g3, g4, gmac, gv4, gv6, need, out, PResult, Printer};

fn opcode_name(op: u8) -> Option<&'static str> {
    Some(match op {
        1 => "Continuity Check Message",
        2 => "Loopback Reply",
        3 => "Loopback Message",
        4 => "Linktrace Reply",
        5 => "Linktrace Message",
        _ => return None,
    })
}

fn md_format(f: u8) -> &'static str {
    match f {
        0 => "IEEE 802.1",
        1 => "No MD Name present",
        2 => "DNS string",
        3 => "MAC + 16Bit Integer",
        4 => "Character string",
        _ => "Unknown",
    }
}

fn ma_format(f: u8) -> &'static str {
    match f {
        0 => "IEEE 802.1",
        1 => "Primary VID",
        2 => "Character string",
        3 => "16Bit Integer",
        4 => "RFC2685 VPN-ID",
        _ => "Unknown",
    }
}

fn tlv_name(t: u8) -> &'static str {
    match t {
        0 => "End",
        1 => "Sender ID",
        2 => "Port status",
        3 => "Interface status",
        4 => "Data",
        5 => "Reply Ingress",
        6 => "Reply Egress",
        31 => "Organization Specific",
        _ => "Unknown",
    }
}

fn chassis_name(t: u8) -> &'static str {
    // LLDP's names but for two.
    match t {
        0 => "Reserved",
        7 => "Locally assigned",
        _ => chassis_subtype(t),
    }
}

/// The CCM interval's base in seconds, as tcpdump's floats hold them.
const CCM_BASE: [f32; 8] = [0.0, 0.003333, 0.01, 0.1, 1.0, 10.0, 60.0, 600.0];

/// What ends the TLV loop early.
enum Stop {
    /// Printed what it had to; the packet is done.
    Done,
    /// `packet is too short`.
    Short,
}

impl Printer<'_> {
    /// `cfm_print`: `len` bytes, `p` captured.
    pub(super) fn cfm(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "cfm";
        if len < 4 {
            return self.cfm_short();
        }
        need(p, 0, 4).map_err(|_| self.caught())?;
        let mv = g1(p, 0)?;
        let version = mv & 0x1f;
        if version != 0 {
            out!(self, "CFMv{version} not supported, length {len}");
            return Ok(());
        }
        let op = g1(p, 1)?;
        let name = super::name_or(opcode_name(op), || format!("unknown ({op})"));
        out!(
            self,
            "CFMv{version} {name}, MD Level {}, length {len}",
            (mv & 0xe0) >> 5
        );
        if self.opts.verbose < 1 {
            return Ok(());
        }
        let flags = g1(p, 2)?;
        let first = g1(p, 3)? as usize;
        out!(self, "\n\tFirst TLV offset {first}");
        let tlen = len as usize - 4;
        if first > tlen {
            out!(self, " (too large, must be <= {tlen})");
            return Ok(());
        }
        let done = match op {
            1 => self.cfm_ccm(p, flags, first, tlen)?,
            5 | 4 => self.cfm_linktrace(p, op, flags, first, tlen)?,
            _ => {
                self.unknown_data(p, 4, tlen - first, "\n\t  ");
                None
            }
        };
        match done {
            Some(Stop::Short) => return self.cfm_short(),
            Some(Stop::Done) => return Ok(()),
            None => {}
        }
        match self.cfm_tlvs(p, 4 + first, tlen - first)? {
            Some(Stop::Short) => self.cfm_short(),
            _ => Ok(()),
        }
    }

    fn cfm_short(&mut self) -> PResult {
        out!(self, "\n\t\t packet is too short");
        Ok(())
    }

    /// A message's fixed part was smaller than its type needs.
    fn cfm_fixed(
        &mut self,
        p: &[u8],
        first: usize,
        tlen: usize,
        n: usize,
        which: u8,
    ) -> PResult<Option<Stop>> {
        if first < n {
            out!(self, " (too small {which}, must be >= {n})");
            return Ok(Some(Stop::Done));
        }
        if tlen < n {
            return Ok(Some(Stop::Short));
        }
        need(p, 4, n).map_err(|_| self.caught())?;
        Ok(None)
    }

    fn cfm_ccm(&mut self, p: &[u8], flags: u8, first: usize, tlen: usize) -> PResult<Option<Stop>> {
        if let Some(s) = self.cfm_fixed(p, first, tlen, 70, 1)? {
            return Ok(Some(s));
        }
        let iv = (flags & 7) as usize;
        let rdi = if flags & 0x80 != 0 { ", RDI" } else { "" };
        out!(self, ", Flags [CCM Interval {iv}{rdi}]");
        if iv != 0 {
            let b = CCM_BASE[iv];
            out!(
                self,
                "\n\t  CCM Interval {:.3}s, min CCM Lifetime {:.3}s, max CCM Lifetime {:.3}s",
                f64::from(b),
                f64::from(b) * 3.25,
                f64::from(b) * 3.5
            );
        }
        out!(
            self,
            "\n\t  Sequence Number 0x{:08x}, MA-End-Point-ID 0x{:04x}",
            g4(p, 4)?,
            g2(p, 8)?
        );
        // 48 bytes of names from 10.
        let mut at = 10;
        let mut left = 48usize;
        let mdf = g1(p, at)?;
        at += 1;
        left -= 1;
        if mdf != 1 {
            let mdl = g1(p, at)? as usize;
            at += 1;
            left -= 1;
            out!(
                self,
                "\n\t  MD Name Format {} ({mdf}), MD Name length {mdl}",
                md_format(mdf)
            );
            if mdl > left - 3 {
                out!(self, " (too large, must be <= {})", left - 2);
                return Ok(Some(Stop::Done));
            }
            out!(self, "\n\t  MD Name: ");
            match mdf {
                2 | 4 => self.jnp(p, at, mdl)?,
                3 if mdl == 6 => {
                    let m = self.ether_str(gmac(p, at)?);
                    out!(self, "\n\t  MAC {m}");
                }
                3 => out!(self, "\n\t  MAC (length invalid)"),
                _ => {
                    self.unknown_data(p, at, mdl, "\n\t    ");
                }
            }
            at += mdl;
            left -= mdl;
        } else {
            out!(self, "\n\t  MD Name Format {} ({mdf})", md_format(mdf));
        }
        let maf = g1(p, at)?;
        let mal = g1(p, at + 1)? as usize;
        at += 2;
        left -= 2;
        out!(
            self,
            "\n\t  MA Name-Format {} ({maf}), MA name length {mal}",
            ma_format(maf)
        );
        if mal > left {
            out!(self, " (too large, must be <= {left})");
            return Ok(Some(Stop::Done));
        }
        out!(self, "\n\t  MA Name: ");
        if maf == 2 {
            self.jnp(p, at, mal)?;
        } else {
            self.unknown_data(p, at, mal, "\n\t    ");
        }
        Ok(None)
    }

    fn cfm_linktrace(
        &mut self,
        p: &[u8],
        op: u8,
        flags: u8,
        first: usize,
        tlen: usize,
    ) -> PResult<Option<Stop>> {
        let (n, which) = if op == 5 { (17, 4) } else { (6, 5) };
        if let Some(s) = self.cfm_fixed(p, first, tlen, n, which)? {
            return Ok(Some(s));
        }
        let names: &[(u32, &str)] = if op == 5 {
            &[(0x80, "Use Forwarding-DB only")]
        } else {
            &[
                (0x80, "UseFDB Only"),
                (0x40, "FwdYes"),
                (0x20, "Terminal MEP"),
            ]
        };
        out!(self, ", Flags [{}]", bit_names(u32::from(flags), names));
        out!(
            self,
            "\n\t  Transaction-ID 0x{:08x}, ttl {}",
            g4(p, 4)?,
            g1(p, 8)?
        );
        if op == 5 {
            let (o, t) = (self.ether_str(gmac(p, 9)?), self.ether_str(gmac(p, 15)?));
            out!(self, "\n\t  Original-MAC {o}, Target-MAC {t}");
        } else {
            let a = g1(p, 9)?;
            let s = match a {
                1 => "Exact Match",
                2 => "Filtering DB",
                3 => "MIP CCM DB",
                _ => "Unknown",
            };
            out!(self, "\n\t  Replay-Action {s} ({a})");
        }
        Ok(None)
    }

    /// The TLVs from `at`, `tlen` bytes of the message left.
    fn cfm_tlvs(&mut self, p: &[u8], mut at: usize, mut tlen: usize) -> PResult<Option<Stop>> {
        while tlen > 0 {
            let t = g1(p, at)?;
            out!(self, "\n\t{} TLV (0x{t:02x})", tlv_name(t));
            if t == 0 {
                return Ok(Some(Stop::Done));
            }
            if tlen < 3 {
                return Ok(Some(Stop::Short));
            }
            need(p, at, 3).map_err(|_| self.caught())?;
            let mut tl = g2(p, at + 1)? as usize;
            out!(self, ", length {tl}");
            at += 3;
            tlen -= 3;
            let start = at;
            if tlen < tl {
                return Ok(Some(Stop::Short));
            }
            need(p, at, tl).map_err(|_| self.caught())?;
            let mut hexdump = false;
            match t {
                2 | 3 => {
                    if tl < 1 {
                        out!(self, " (too short, must be >= 1)");
                        return Ok(Some(Stop::Done));
                    }
                    let v = g1(p, at)?;
                    let s = match (t, v) {
                        (2, 1) => "Blocked",
                        (2, 2) | (3, 1) => "Up",
                        (3, 2) => "Down",
                        (3, 3) => "Testing",
                        (3, 5) => "Dormant",
                        (3, 6) => "not present",
                        (3, 7) => "lower Layer down",
                        _ => "Unknown",
                    };
                    out!(self, ", Status: {s} ({v})");
                }
                31 => {
                    if tl < 4 {
                        out!(self, " (too short, must be >= 4)");
                        return Ok(Some(Stop::Done));
                    }
                    let oui = g3(p, at)?;
                    out!(
                        self,
                        ", Vendor: {} ({oui}), Sub-Type {}",
                        oui_name(oui).unwrap_or("Unknown"),
                        g1(p, at + 3)?
                    );
                    hexdump = true;
                }
                1 => match self.cfm_sender_id(p, &mut at, &mut tlen, &mut tl)? {
                    SenderId::Skip => {
                        at += tl;
                        tlen -= tl;
                        continue;
                    }
                    SenderId::Stop => return Ok(Some(Stop::Done)),
                    SenderId::Hex(h) => hexdump = h,
                },
                _ => hexdump = true,
            }
            if hexdump || self.opts.verbose > 1 {
                self.unknown_data(p, start, tl, "\n\t  ");
            }
            at += tl;
            tlen -= tl;
        }
        Ok(None)
    }

    /// The Sender ID TLV; moves `at`, `tlen` and the TLV's length `tl`
    /// along as tcpdump's pointers move, one of them short of the others
    /// where tcpdump's is.
    fn cfm_sender_id(
        &mut self,
        p: &[u8],
        at: &mut usize,
        tlen: &mut usize,
        tl: &mut usize,
    ) -> PResult<SenderId> {
        if *tl < 1 {
            out!(self, " (too short, must be >= 1)");
            return Ok(SenderId::Skip);
        }
        let mut hexdump = false;
        let cl = g1(p, *at)? as usize;
        *at += 1;
        *tlen -= 1;
        *tl -= 1;
        if cl != 0 {
            if *tl < 1 {
                out!(self, "\n\t  (TLV too short)");
                return Ok(SenderId::Skip);
            }
            let ct = g1(p, *at)?;
            *tl -= 1;
            out!(
                self,
                "\n\t  Chassis-ID Type {} ({ct}), Chassis-ID length {cl}",
                chassis_name(ct)
            );
            if *tl < cl {
                out!(self, "\n\t  (TLV too short)");
                return Ok(SenderId::Skip);
            }
            match ct {
                4 if cl != 6 => {
                    out!(self, " (invalid MAC address length)");
                    hexdump = true;
                }
                4 => {
                    let m = self.ether_str(gmac(p, *at + 1)?);
                    out!(self, "\n\t  MAC {m}");
                }
                5 => hexdump |= self.cfm_network_addr(p, *at + 1, cl)?,
                1 | 2 | 3 | 6 | 7 => self.jnp(p, *at + 1, cl)?,
                _ => hexdump = true,
            }
            *tl -= cl;
            *at += 1 + cl;
            *tlen -= 1 + cl;
        }
        if *tl == 0 {
            return Ok(SenderId::Hex(hexdump));
        }
        let Some(dl) = self.cfm_mgmt_field(p, at, tlen, tl, "Management Address Domain")? else {
            return Ok(SenderId::Skip);
        };
        if dl != 0 {
            if *tl < 1 {
                out!(self, " (Management Address Length is missing)");
                return Ok(SenderId::Hex(true));
            }
            if self
                .cfm_mgmt_field(p, at, tlen, tl, "Management Address")?
                .is_none()
            {
                return Ok(SenderId::Stop);
            }
        }
        Ok(SenderId::Hex(hexdump))
    }

    /// A length byte and that many bytes in hex (the management address
    /// domain or address); `None` when the TLV is too short for them.
    fn cfm_mgmt_field(
        &mut self,
        p: &[u8],
        at: &mut usize,
        tlen: &mut usize,
        tl: &mut usize,
        name: &str,
    ) -> PResult<Option<usize>> {
        let n = g1(p, *at)? as usize;
        *at += 1;
        *tlen -= 1;
        *tl -= 1;
        out!(self, "\n\t  {name} Length {n}");
        if n != 0 {
            if *tl < n {
                out!(self, "\n\t  (TLV too short)");
                return Ok(None);
            }
            *tl -= n;
            let ident = format!("\n\t  {name}: ");
            self.hex_print(super::head(super::tail(p, *at), n), &ident);
            *at += n;
            *tlen -= n;
        }
        Ok(Some(n))
    }

    /// `cfm_network_addr_print`: whether the address wants a hex dump.
    fn cfm_network_addr(&mut self, p: &[u8], at: usize, len: usize) -> PResult<bool> {
        if len < 1 {
            out!(self, "\n\t  Network Address Type (invalid, no data");
            return Ok(false);
        }
        let t = g1(p, at)?;
        out!(
            self,
            "\n\t  Network Address Type {} ({t})",
            af_name(u16::from(t)).unwrap_or("Unknown")
        );
        match (t, len) {
            (1, 5) => {
                let a = self.host4(gv4(p, at + 1)?);
                out!(self, ", {a}");
            }
            (2, 17) => {
                let a = self.host6(gv6(p, at + 1)?);
                out!(self, ", {a}");
            }
            (1, _) => {
                out!(self, "(invalid IPv4 address length {})", len - 1);
                return Ok(true);
            }
            (2, _) => {
                out!(self, "(invalid IPv6 address length {})", len - 1);
                return Ok(true);
            }
            _ => return Ok(true),
        }
        Ok(false)
    }
}

/// How the Sender ID TLV ended.
enum SenderId {
    /// tcpdump's `goto next_tlv`: no dump.
    Skip,
    /// tcpdump's `return`.
    Stop,
    /// The TLV's end, dumped when true or with `-vv`.
    Hex(bool),
}
