//! OSPFv2's packets after the common header, as tcpdump's `ospf_decode_v2`
//! prints them with `-v`: a Hello's fields, the LSA headers of Database
//! Descriptions and acknowledgments, the requests, and every link-state
//! advertisement of an update (router, network, summary, external, NSSA,
//! group and opaque; the opaque TLVs are in `ospf_te.rs`).

use super::{bit_names, g1, g2, g3, g4, gv4, tail, PResult, Printer, Trunc};

/// `out!` for text whose arguments borrow the printer (its host names):
/// formatted first, then appended.
macro_rules! put {
    ($p:expr, $($arg:tt)*) => {{
        let s = ::std::format!($($arg)*);
        $p.out.push_str(&s);
    }};
}
pub(super) use put;
use std::net::Ipv4Addr;

/// An LSA header's length.
const LSA_HDR: usize = 20;

pub(super) const OPTIONS_V2: [(u32, &str); 8] = [
    (0x01, "MultiTopology"),
    (0x02, "External"),
    (0x04, "Multicast"),
    (0x08, "NSSA"),
    (0x10, "LLS"),
    (0x20, "Demand Circuit"),
    (0x40, "Opaque"),
    (0x80, "Up/Down"),
];

/// tcpdump's `lsa_values`.
fn lsa_name(t: u32) -> &'static str {
    match t {
        1 => "Router",
        2 => "Network",
        3 => "Summary",
        4 => "ASBR Summary",
        5 => "External",
        6 => "Multicast Group",
        7 => "NSSA",
        9 => "Link Local Opaque",
        10 => "Area Local Opaque",
        11 => "Domain Wide Opaque",
        _ => "unknown",
    }
}

fn opaque_name(t: u8) -> &'static str {
    match t {
        1 => "Traffic Engineering",
        3 => "Graceful restart",
        4 => "Router Information",
        _ => "unknown",
    }
}

fn topology_name(t: u32) -> &'static str {
    match t {
        0 => "default",
        1 => "multicast",
        2 => "management",
        _ => "Unknown",
    }
}

fn is_opaque(t: u32) -> bool {
    (9..=11).contains(&t)
}

impl Printer<'_> {
    /// `ospf_decode_v2` for `op`, the OSPF packet, up to `dataend`.
    pub(super) fn ospf2_body(&mut self, op: &[u8], dataend: usize) -> PResult {
        let b = tail(op, 24);
        match g1(op, 1)? {
            1 => {
                let options = g1(b, 6)? as u32;
                put!(self, "\n\tOptions [{}]", bit_names(options, &OPTIONS_V2));
                put!(
                    self,
                    "\n\t  Hello Timer {}s, Dead Timer {}s, Mask {}, Priority {}",
                    g2(b, 4)?,
                    g4(b, 8)?,
                    self.host4(gv4(b, 0)?),
                    g1(b, 7)?
                );
                let dr = g4(b, 12)?;
                if dr != 0 {
                    put!(self, "\n\t  Designated Router {}", self.host4(dr.into()));
                }
                let bdr = g4(b, 16)?;
                if bdr != 0 {
                    put!(
                        self,
                        ", Backup Designated Router {}",
                        self.host4(bdr.into())
                    );
                }
                let mut at = 44;
                if at < dataend {
                    put!(self, "\n\t  Neighbor List:");
                }
                while at < dataend {
                    put!(self, "\n\t    {}", self.host4(gv4(op, at)?));
                    at += 4;
                }
            }
            2 => {
                let options = g1(b, 2)? as u32;
                put!(self, "\n\tOptions [{}]", bit_names(options, &OPTIONS_V2));
                let flags = [(4, "Init"), (2, "More"), (1, "Master"), (8, "OOBResync")];
                put!(self, ", DD Flags [{}]", bit_names(g1(b, 3)? as u32, &flags));
                let mtu = g2(b, 0)?;
                if mtu != 0 {
                    put!(self, ", MTU: {mtu}");
                }
                put!(self, ", Sequence: 0x{:08x}", g4(b, 4)?);
                let mut at = 32;
                while at < dataend && self.ospf2_lshdr(op, at)?.is_some() {
                    at += LSA_HDR;
                }
            }
            3 => {
                let mut at = 24;
                while at < dataend {
                    super::need(op, at, 12)?;
                    let t = g4(op, at)?;
                    put!(
                        self,
                        "\n\t  Advertising Router: {}, {} LSA ({t})",
                        self.host4(gv4(op, at + 8)?),
                        lsa_name(t)
                    );
                    if is_opaque(t) {
                        let ot = g1(op, at + 4)?;
                        put!(
                            self,
                            ", Opaque-Type: {} LSA ({ot}), Opaque-ID: {}",
                            opaque_name(ot),
                            g3(op, at + 5)?
                        );
                    } else {
                        put!(self, ", LSA-ID: {}", self.host4(gv4(op, at + 4)?));
                    }
                    at += 12;
                }
            }
            4 => {
                let count = g4(b, 0)?;
                put!(self, ", {count} LSA{}", if count == 1 { "" } else { "s" });
                let mut at = 28;
                for n in 1..=count {
                    put!(self, "\n\t  LSA #{n}");
                    at = self.ospf2_lsa(op, at)?.ok_or(Trunc)?;
                }
            }
            5 => {
                let mut at = 24;
                while self.ospf2_lshdr(op, at)?.is_some() {
                    at += LSA_HDR;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// `ospf_print_lshdr` of the LSA header at `at`: its length, or `None`
    /// when the length is shorter than the header.
    fn ospf2_lshdr(&mut self, op: &[u8], at: usize) -> PResult<Option<usize>> {
        let len = g2(op, at + 18)? as usize;
        if len < LSA_HDR {
            put!(self, "\n\t    Bogus length {len} < header ({LSA_HDR})");
            return Ok(None);
        }
        put!(
            self,
            "\n\t  Advertising Router {}, seq 0x{:08x}, age {}s, length {}",
            self.host4(gv4(op, at + 8)?),
            g4(op, at + 12)?,
            g2(op, at)?,
            len - LSA_HDR
        );
        let t = g1(op, at + 3)? as u32;
        if is_opaque(t) {
            let ot = g1(op, at + 4)?;
            put!(
                self,
                "\n\t    {} LSA ({t}), Opaque-Type {} LSA ({ot}), Opaque-ID {}",
                lsa_name(t),
                opaque_name(ot),
                g3(op, at + 5)?
            );
        } else {
            put!(
                self,
                "\n\t    {} LSA ({t}), LSA-ID: {}",
                lsa_name(t),
                self.host4(gv4(op, at + 4)?)
            );
        }
        let options = g1(op, at + 2)? as u32;
        put!(
            self,
            "\n\t    Options: [{}]",
            bit_names(options, &OPTIONS_V2)
        );
        Ok(Some(len))
    }

    /// `ospf_print_lsa` of the advertisement at `at`: where the next one
    /// starts, or `None` when tcpdump gives up on the packet.
    fn ospf2_lsa(&mut self, op: &[u8], at: usize) -> PResult<Option<usize>> {
        let Some(len) = self.ospf2_lshdr(op, at)? else {
            return Ok(None);
        };
        let end = at + len;
        let ls_length = len - LSA_HDR;
        let body = at + LSA_HDR;
        let t = g1(op, at + 3)?;
        // Whether tcpdump goes on to the `-vv` dump: it returns early after
        // an unknown router link type or an opaque LSA's bad TLV.
        let dump = match t {
            1 => self.ospf2_router_lsa(op, body)?,
            2 => {
                put!(
                    self,
                    "\n\t    Mask {}\n\t    Connected Routers:",
                    self.host4(gv4(op, body)?)
                );
                let mut ap = body + 4;
                while ap < end {
                    put!(self, "\n\t      {}", self.host4(gv4(op, ap)?));
                    ap += 4;
                }
                true
            }
            3 | 4 => {
                if t == 3 {
                    put!(self, "\n\t    Mask {}", self.host4(gv4(op, body)?));
                }
                super::need(op, body + 4, 4)?;
                let mut lp = body + 4;
                while lp < end {
                    let ul = g4(op, lp)?;
                    let topo = (ul & 0x7f00_0000) >> 24;
                    put!(
                        self,
                        "\n\t\ttopology {} ({topo}) metric {}",
                        topology_name(topo),
                        ul & 0x00ff_ffff
                    );
                    lp += 4;
                }
                true
            }
            5 | 7 => {
                self.ospf2_external_lsa(op, body, end)?;
                true
            }
            6 => {
                let mut mp = body;
                while mp < end {
                    let vid = self.host4(gv4(op, mp + 4)?);
                    match g4(op, mp)? {
                        1 => put!(self, "\n\t    Router Router-ID {vid}"),
                        2 => put!(self, "\n\t    Network Designated Router {vid}"),
                        v => put!(self, "\n\t    unknown VertexType ({v})"),
                    }
                    mp += 8;
                }
                true
            }
            9..=11 => self.ospf_opaque_lsa(g1(op, at + 4)?, tail(op, body), ls_length)?,
            _ => true,
        };
        if dump && self.opts.verbose > 1 {
            self.unknown_data(op, body, ls_length, "\n\t    ");
        }
        Ok(Some(end))
    }

    /// A router LSA's flags and links; false after a link of unknown type.
    fn ospf2_router_lsa(&mut self, op: &[u8], body: usize) -> PResult<bool> {
        const FLAGS: [(u32, &str); 6] = [
            (0x01, "ABR"),
            (0x02, "ASBR"),
            (0x04, "Virtual"),
            (0x08, "Wildcard"),
            (0x10, "Nt"),
            (0x80, "Host"),
        ];
        let flags = g1(op, body)? as u32;
        put!(
            self,
            "\n\t    Router LSA Options: [{}]",
            bit_names(flags, &FLAGS)
        );
        let count = g2(op, body + 2)?;
        super::need(op, body + 4, 12)?;
        let mut rl = body + 4;
        for _ in 0..count {
            super::need(op, rl, 12)?;
            let id = self.host4(gv4(op, rl)?);
            let data = self.host4(gv4(op, rl + 4)?);
            match g1(op, rl + 8)? {
                4 => put!(
                    self,
                    "\n\t      Virtual Link: Neighbor Router-ID: {id}, Interface Address: {data}"
                ),
                1 => put!(
                    self,
                    "\n\t      Neighbor Router-ID: {id}, Interface Address: {data}"
                ),
                2 => put!(
                    self,
                    "\n\t      Neighbor Network-ID: {id}, Interface Address: {data}"
                ),
                3 => put!(self, "\n\t      Stub Network: {id}, Mask: {data}"),
                lt => {
                    put!(self, "\n\t      Unknown Router Link Type ({lt})");
                    return Ok(false);
                }
            }
            // The link's own metric is topology 0's; the others follow it.
            let tos_count = g1(op, rl + 9)? as usize;
            for i in 0..=tos_count {
                let m = rl + 8 + 4 * i;
                let topo = if i == 0 { 0 } else { g1(op, m)? as u32 };
                put!(
                    self,
                    "\n\t\ttopology {} ({topo}), metric {}",
                    topology_name(topo),
                    g2(op, m + 2)?
                );
            }
            rl += 12 + 4 * tos_count;
        }
        Ok(true)
    }

    /// An external or NSSA LSA: the mask, then metrics, forwarding addresses
    /// and tags to the end of the LSA.
    fn ospf2_external_lsa(&mut self, op: &[u8], body: usize, end: usize) -> PResult {
        put!(self, "\n\t    Mask {}", self.host4(gv4(op, body)?));
        super::need(op, body + 4, 4)?;
        let mut m = body + 4;
        while m < end {
            let ul = g4(op, m)?;
            let topo = (ul & 0x7f00_0000) >> 24;
            let kind = if ul & 0x8000_0000 != 0 { 2 } else { 1 };
            put!(
                self,
                "\n\t\ttopology {} ({topo}), type {kind}, metric",
                topology_name(topo)
            );
            match ul & 0x00ff_ffff {
                0xff_ffff => put!(self, " infinite"),
                v => put!(self, " {v}"),
            }
            let fwd = g4(op, m + 4)?;
            if fwd != 0 {
                put!(self, ", forward {}", self.host4(Ipv4Addr::from(fwd)));
            }
            let tag = g4(op, m + 8)?;
            if tag != 0 {
                put!(self, ", tag {}", self.host4(Ipv4Addr::from(tag)));
            }
            m += 12;
        }
        Ok(())
    }
}
