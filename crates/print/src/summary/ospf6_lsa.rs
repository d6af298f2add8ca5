//! OSPFv3's link-state lists at `-vv`, as tcpdump's `ospf6_decode_v3`
//! prints them: the LSA headers of Database Descriptions and
//! acknowledgments, the requests, and each advertisement of an update
//! (`ospf6_print_lsa`: router, network, inter-area prefix, external, link,
//! intra-area prefix, grace and TE).

use super::ospf::OPTIONS;
use super::ospf2::put;
use super::{bit_names, g1, g2, g4, gv4, gv6, need, tail, v6s, PResult, Printer, Trunc};

const LSA_HDR: usize = 20;

fn lsa_name(t: u16) -> &'static str {
    match t {
        1 => "Router",
        2 => "Network",
        3 => "Inter-Area Prefix",
        4 => "Inter-Area Router",
        5 => "External",
        6 => "Deprecated",
        7 => "NSSA",
        8 => "Link",
        9 => "Intra-Area Prefix",
        10 => "Intra-Area TE",
        11 => "Grace",
        12 => "Router Information",
        13 => "Inter-AS-TE",
        14 => "Layer 1 VPN",
        _ => "Unknown",
    }
}

impl Printer<'_> {
    /// The `-vv` lists after a DD, request, update or acknowledgment: `op`
    /// is the OSPF packet, `dataend` its length field.
    pub(super) fn ospf6_lists(&mut self, op: &[u8], dataend: usize) -> PResult {
        let mut at = 16;
        match g1(op, 1)? {
            2 | 5 => {
                if g1(op, 1)? == 2 {
                    at += 12;
                }
                while at < dataend {
                    self.ospf6_lshdr(op, at, dataend)?;
                    at += LSA_HDR;
                }
            }
            3 => {
                while at < dataend {
                    need(op, at, 12)?;
                    put!(
                        self,
                        "\n\t  Advertising Router {}",
                        self.host4(gv4(op, at + 8)?)
                    );
                    self.ospf6_ls_type(g2(op, at + 2)?, op, at + 4)?;
                    at += 12;
                }
            }
            4 => {
                let mut count = g4(op, at)?;
                at += 4;
                while at < dataend && count > 0 {
                    count -= 1;
                    self.ospf6_lsa(op, at, dataend)?;
                    at += g2(op, at + 18)? as usize;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// `ospf6_print_ls_type`: the type, scope and ID at `id_at`.
    fn ospf6_ls_type(&mut self, t: u16, b: &[u8], id_at: usize) -> PResult {
        let scope = match t & 0x6000 {
            0 => "Link Local",
            0x2000 => "Area Local",
            0x4000 => "Domain Wide",
            _ => "Unknown",
        };
        let u = if t & 0x8000 != 0 { ", transitive" } else { "" };
        put!(
            self,
            "\n\t    {} LSA ({}), {scope} Scope{u}, LSA-ID {}",
            lsa_name(t & 0x1fff),
            t & 0x1fff,
            self.host4(gv4(b, id_at)?)
        );
        Ok(())
    }

    /// `ospf6_print_lshdr` of the header at `at`.
    fn ospf6_lshdr(&mut self, op: &[u8], at: usize, dataend: usize) -> PResult {
        if at + LSA_HDR > dataend {
            return Err(Trunc);
        }
        // tcpdump subtracts the header size from the length as a `size_t`.
        let len = (g2(op, at + 18)? as u64).wrapping_sub(LSA_HDR as u64);
        put!(
            self,
            "\n\t  Advertising Router {}, seq 0x{:08x}, age {}s, length {len}",
            self.host4(gv4(op, at + 8)?),
            g4(op, at + 12)?,
            g2(op, at)?
        );
        self.ospf6_ls_type(g2(op, at + 2)?, op, at + 4)
    }

    /// `ospf6_print_lsaprefix` at `p`, `left` bytes of the LSA to go: the
    /// bytes it took, or `None` when tcpdump gives up on the packet.
    fn ospf6_prefix(&mut self, p: &[u8], left: usize) -> PResult<Option<usize>> {
        if left < 4 {
            return Ok(None);
        }
        need(p, 0, 4)?;
        let plen = g1(p, 0)?;
        let words = (plen as usize).div_ceil(32);
        if words * 4 > 16 {
            put!(self, " bogus prefixlen /{plen}");
            return Ok(None);
        }
        if left - 4 < words * 4 {
            return Ok(None);
        }
        need(p, 4, words * 4)?;
        let mut a = [0u8; 16];
        a[..words * 4].copy_from_slice(&p[4..4 + words * 4]);
        put!(self, "\n\t\t{}/{plen}", v6s(a.into()));
        let opt = g1(p, 1)?;
        if opt != 0 {
            let names = [
                (0x01, "No Unicast"),
                (0x02, "Local address"),
                (0x04, "Deprecated"),
                (0x08, "Propagate"),
                (0x10, "Down"),
                (0x20, "N-bit"),
            ];
            put!(self, ", Options [{}]", bit_names(opt as u32, &names));
        }
        put!(self, ", metric {}", g2(p, 2)?);
        Ok(Some(4 + words * 4))
    }

    /// `count` prefixes (or, with `None`, as many as fill the LSA) from `at`.
    fn ospf6_prefixes(
        &mut self,
        b: &[u8],
        mut at: usize,
        mut left: usize,
        count: Option<u32>,
    ) -> PResult {
        let mut count = count;
        loop {
            match count {
                Some(0) => return Ok(()),
                Some(ref mut n) => *n -= 1,
                None if left == 0 => return Ok(()),
                None => {}
            }
            let n = self.ospf6_prefix(tail(b, at), left)?.ok_or(Trunc)?;
            left -= n;
            at += n;
        }
    }

    /// `ospf6_print_lsa` of the advertisement at `at`.
    fn ospf6_lsa(&mut self, op: &[u8], at: usize, dataend: usize) -> PResult {
        self.ospf6_lshdr(op, at, dataend)?;
        let length = g2(op, at + 18)? as usize;
        if length < LSA_HDR || at + length > dataend {
            return Err(Trunc);
        }
        let mut left = length - LSA_HDR;
        let b = tail(op, at + LSA_HDR);
        let short = |left: usize, n: usize| if left < n { Err(Trunc) } else { Ok(left - n) };
        match g2(op, at + 2)? {
            0x2001 => {
                left = short(left, 4)?;
                put!(
                    self,
                    "\n\t      Options [{}]",
                    bit_names(g4(b, 0)?, &OPTIONS)
                );
                let flags = [
                    (0x01, "ABR"),
                    (0x02, "External"),
                    (0x04, "Virtual-Link Endpoint"),
                    (0x08, "Deprecated"),
                    (0x10, "NSSA Translator"),
                ];
                put!(
                    self,
                    ", RLA-Flags [{}]",
                    bit_names(g1(b, 0)? as u32, &flags)
                );
                let mut rl = 4;
                while left != 0 {
                    left = short(left, 16)?;
                    need(b, rl, 16)?;
                    let (nrtid, nifid, ifid) = (gv4(b, rl + 12)?, gv4(b, rl + 8)?, gv4(b, rl + 4)?);
                    let what = match g1(b, rl)? {
                        4 => "Virtual Link: Neighbor Router-ID",
                        1 => "Neighbor Router-ID",
                        2 => "Neighbor Network-ID",
                        t => {
                            put!(self, "\n\t      Unknown Router Links Type 0x{t:02x}");
                            return Ok(());
                        }
                    };
                    put!(
                        self,
                        "\n\t      {what} {}\n\t      Neighbor Interface-ID {}, Interface {}",
                        self.host4(nrtid),
                        self.host4(nifid),
                        self.host4(ifid)
                    );
                    put!(self, ", metric {}", g2(b, rl + 2)?);
                    rl += 16;
                }
            }
            0x2002 => {
                left = short(left, 4)?;
                put!(
                    self,
                    "\n\t      Options [{}]",
                    bit_names(g4(b, 0)?, &OPTIONS)
                );
                put!(self, "\n\t      Connected Routers:");
                let mut ap = 4;
                while left != 0 {
                    left = short(left, 4)?;
                    put!(self, "\n\t\t{}", self.host4(gv4(b, ap)?));
                    ap += 4;
                }
            }
            0x2003 => {
                left = short(left, 4)?;
                put!(self, ", metric {}", g4(b, 0)? & 0x00ff_ffff);
                self.ospf6_prefixes(b, 4, left, None)?;
            }
            0x4005 => {
                left = short(left, 4)?;
                let flags = g4(b, 0)?;
                let names = [
                    (0x8000_0000, "External Type 2"),
                    (0x0200_0000, "Forwarding"),
                    (0x0100_0000, "Tag"),
                ];
                put!(self, "\n\t     Flags [{}]", bit_names(flags, &names));
                put!(self, " metric {}", flags & 0x00ff_ffff);
                let n = self.ospf6_prefix(tail(b, 4), left)?.ok_or(Trunc)?;
                left -= n;
                let mut p = 4 + n;
                if flags & 0x0200_0000 != 0 {
                    left = short(left, 16)?;
                    put!(self, " forward {}", self.host6(gv6(b, p)?));
                    p += 16;
                }
                if flags & 0x0100_0000 != 0 {
                    left = short(left, 4)?;
                    put!(self, " tag {}", self.host4(gv4(b, p)?));
                    p += 4;
                }
                // tcpdump tests the first byte of the prefix's metric.
                if g1(b, 6)? != 0 {
                    short(left, 4)?;
                    put!(self, " RefLSID: {}", self.host4(gv4(b, p)?));
                }
            }
            0x0008 => {
                left = short(left, 4)?;
                need(b, 0, 4)?;
                put!(
                    self,
                    "\n\t      Options [{}]",
                    bit_names(g4(b, 0)?, &OPTIONS)
                );
                left = short(left, 20)?;
                let n = g4(b, 20)?;
                put!(
                    self,
                    "\n\t      Priority {}, Link-local address {}, Prefixes {n}:",
                    g1(b, 0)?,
                    self.host6(gv6(b, 4)?)
                );
                self.ospf6_prefixes(b, 24, left, Some(n))?;
            }
            0x2009 => {
                // tcpdump counts only the router ID and the prefix count
                // against the length, not the type and ID between them.
                left = short(left, 4)?;
                need(b, 8, 4)?;
                self.ospf6_ls_type(g2(b, 2)?, b, 4)?;
                left = short(left, 2)?;
                let n = g2(b, 0)?;
                put!(self, "\n\t      Prefixes {n}:");
                self.ospf6_prefixes(b, 12, left, Some(n as u32))?;
            }
            0x000b => {
                if !self.ospf_grace_tlvs(b, left)? {
                    return Err(Trunc);
                }
            }
            0x000a => {
                if !self.ospf_te_tlvs(b, left)? {
                    return Err(Trunc);
                }
            }
            _ => {
                self.unknown_data(b, 0, left, "\n\t      ");
            }
        }
        Ok(())
    }
}
