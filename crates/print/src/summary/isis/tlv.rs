//! The IS-IS TLVs `isis_print` decodes itself (the reachability ones are in
//! `reach.rs`, SPB's in `spb.rs`).

use super::{isis_id, isonsap, nlpid_name, Next, NODE_ID_LEN, SYSTEM_ID_LEN};
use crate::summary::{bit_names, g1, g2, g3, g4, gv4, gv6, name_or, need, out, PResult, Printer};

const IDENT: &str = "\n\t      ";

/// `isis_tlv_values`.
pub(super) fn tlv_name(t: u8) -> Option<&'static str> {
    Some(match t {
        1 => "Area address(es)",
        2 => "IS Reachability",
        3 => "ES Neighbor(s)",
        4 => "Partition DIS",
        5 => "Prefix Neighbors",
        6 => "IS Neighbor(s)",
        7 => "Instance Identifier",
        8 => "Padding",
        9 => "LSP entries",
        10 => "Authentication",
        12 => "Checksum",
        13 => "Purge Originator Identifier",
        14 => "LSP Buffersize",
        22 => "Extended IS Reachability",
        24 => "IS Alias ID",
        42 => "DECnet Phase IV",
        66 => "Lucent Proprietary",
        128 => "IPv4 Internal Reachability",
        129 => "Protocols supported",
        130 => "IPv4 External Reachability",
        131 => "Inter-Domain Information Type",
        132 => "IPv4 Interface address(es)",
        133 => "IPv4 authentication (deprecated)",
        134 => "Traffic Engineering Router ID",
        135 => "Extended IPv4 Reachability",
        137 => "Hostname",
        138 => "Shared Risk Link Group",
        143 => "Multi-Topology-Aware Port Capability",
        144 => "Multi-Topology Capability",
        176 | 177 => "Nortel Proprietary",
        211 => "Restart Signaling",
        222 => "Multi Topology IS Reachability",
        229 => "Multi Topology",
        232 => "IPv6 Interface address(es)",
        235 => "Multi-Topology IPv4 Reachability",
        236 => "IPv6 reachability",
        237 => "Multi-Topology IP6 Reachability",
        240 => "Point-to-point Adjacency State",
        241 => "Hello PDU Sequence Number",
        242 => "IS-IS Router Capability",
        250 => "Vendor Private",
        _ => return None,
    })
}

fn auth_name(t: u8) -> String {
    name_or(
        match t {
            1 => Some("simple text password"),
            3 => Some("Generic Crypto key-id"),
            54 => Some("HMAC-MD5 password"),
            255 => Some("Routing Domain private password"),
            _ => None,
        },
        || format!("unknown Authentication type 0x{t:02x}"),
    )
}

impl Printer<'_> {
    /// One TLV's value: `t` is where it starts in the PDU `p`, `length` the
    /// PDU's length (for the checksum TLV).
    pub(super) fn isis_tlv(
        &mut self,
        p: &[u8],
        t: usize,
        tlv_type: u8,
        tlv_len: u8,
        length: u32,
    ) -> PResult<Next> {
        let mut tptr = t;
        let mut tlen = tlv_len as usize;
        match tlv_type {
            1 => {
                while tlen != 0 {
                    let alen = g1(p, tptr)? as usize;
                    tptr += 1;
                    tlen -= 1;
                    if tlen < alen {
                        break;
                    }
                    let a = isonsap(p, tptr, alen)?;
                    out!(self, "{IDENT}Area address (length: {alen}): {a}");
                    tptr += alen;
                    tlen -= alen;
                }
            }
            6 => {
                while tlen >= 6 {
                    out!(self, "{IDENT}SNPA: {}", isis_id(p, tptr, 6)?);
                    tlen -= 6;
                    tptr += 6;
                }
            }
            7 => {
                if tlen >= 4 {
                    let n = (tlen - 2) / 2;
                    let colon = if n > 0 { ":" } else { "" };
                    out!(
                        self,
                        "{IDENT}Instance ID: {}, ITIDs({n}){colon} ",
                        g2(p, tptr)?
                    );
                    for i in 0..n {
                        out!(self, "{}", g2(p, tptr + 2 + 2 * i)?);
                        if i + 1 < n {
                            out!(self, ", ");
                        }
                    }
                }
            }
            8 => {}
            22 | 24 | 222 => self.isis_entries(p, tptr, tlen, tlv_type == 222, |s, t, rem| {
                s.isis_ext_is_reach(p, t, IDENT, tlv_type, rem)
            })?,
            2 => {
                if tlen >= 1 {
                    let vf = g1(p, tptr)?;
                    match vf {
                        0 => out!(self, "{IDENT}IsNotVirtual"),
                        1 => out!(self, "{IDENT}IsVirtual"),
                        _ => out!(self, "{IDENT}bogus virtual flag 0x{vf:02x}"),
                    }
                    tptr += 1;
                    tlen -= 1;
                    while tlen >= 11 {
                        need(p, tptr, 11)?;
                        out!(self, "{IDENT}IS Neighbor: {}", isis_id(p, tptr + 4, 7)?);
                        self.isis_metric_block(p, tptr)?;
                        tlen -= 11;
                        tptr += 11;
                    }
                }
            }
            3 => {
                while tlen >= 10 {
                    need(p, tptr, 10)?;
                    out!(self, "{IDENT}ES Neighbor: {}", isis_id(p, tptr + 4, 6)?);
                    self.isis_metric_block(p, tptr)?;
                    tlen -= 10;
                    tptr += 10;
                }
            }
            128 | 130 => {
                if !self.isis_tlv_ip_reach(p, tptr, IDENT, tlen)? {
                    return Ok(Next::Return(true));
                }
            }
            135 | 235 | 236 | 237 => {
                let (mt, v6) = (tlv_type == 235 || tlv_type == 237, tlv_type >= 236);
                self.isis_entries(p, tptr, tlen, mt, |s, t, _| {
                    s.isis_extd_ip_reach(p, t, IDENT, v6)
                })?
            }
            232 => {
                while tlen >= 16 {
                    let a = self.host6(gv6(p, tptr)?);
                    out!(self, "{IDENT}IPv6 interface address: {a}");
                    tptr += 16;
                    tlen -= 16;
                }
            }
            10 => return self.isis_auth(p, tptr, tlen),
            240 => self.isis_ptp_adj(p, tptr, tlen)?,
            129 => {
                out!(self, "{IDENT}NLPID(s): ");
                while tlen != 0 {
                    let n = g1(p, tptr)?;
                    out!(self, "{} (0x{n:02x})", nlpid_name(n).unwrap_or("unknown"));
                    if tlen > 1 {
                        out!(self, ", ");
                    }
                    tptr += 1;
                    tlen -= 1;
                }
            }
            143 => {
                if tlen >= 2 {
                    let w = g2(p, tptr)?;
                    out!(self, "\n\t       RES: {}, MTID(s): {}", w >> 12, w & 0x0fff);
                    if tlen > 2 {
                        self.isis_mt_port_cap_subtlv(p, tptr + 2, tlen - 2)?;
                    }
                }
            }
            144 => {
                if tlen >= 2 {
                    let w = g2(p, tptr)?;
                    out!(
                        self,
                        "{IDENT}O: {}, RES: {}, MTID(s): {}",
                        (w >> 15) & 1,
                        (w >> 12) & 7,
                        w & 0x0fff
                    );
                    if tlen > 2 {
                        self.isis_mt_capability_subtlv(p, tptr + 2, tlen - 2)?;
                    }
                }
            }
            134 => {
                if tlen >= 4 {
                    let a = self.host4(gv4(p, tptr)?);
                    out!(self, "{IDENT}Traffic Engineering Router ID: {a}");
                }
            }
            132 => {
                while tlen >= 4 {
                    let a = self.host4(gv4(p, tptr)?);
                    out!(self, "{IDENT}IPv4 interface address: {a}");
                    tptr += 4;
                    tlen -= 4;
                }
            }
            137 => {
                out!(self, "{IDENT}Hostname: ");
                self.jnp(p, tptr, tlen)?;
            }
            138 => self.isis_srlg(p, tptr, tlen)?,
            9 => {
                while tlen >= 16 {
                    g1(p, tptr + 9)?;
                    out!(self, "{IDENT}lsp-id: {}", isis_id(p, tptr + 2, 8)?);
                    out!(self, ", seq: 0x{:08x}", g4(p, tptr + 10)?);
                    out!(self, ", lifetime: {:>5}s", g2(p, tptr)?);
                    out!(self, ", chksum: 0x{:04x}", g2(p, tptr + 14)?);
                    tlen -= 16;
                    tptr += 16;
                }
            }
            12 => {
                if tlen >= 2 {
                    let sum = g2(p, tptr)?;
                    out!(self, "{IDENT}checksum: 0x{sum:04x} ");
                    self.osi_cksum_verdict(p, 0, sum, tptr, length as usize);
                }
            }
            13 => {
                if tlen >= 1 {
                    let n = g1(p, tptr)?;
                    tptr += 1;
                    tlen -= 1;
                    if n == 0 {
                        out!(self, " No system IDs supplied");
                    } else if tlen >= SYSTEM_ID_LEN {
                        let id = isis_id(p, tptr, 6)?;
                        out!(self, "{IDENT}Purge Originator System-ID: {id}");
                        tptr += 6;
                        tlen -= 6;
                        if n > 1 && tlen >= SYSTEM_ID_LEN {
                            need(p, tptr, 2 * SYSTEM_ID_LEN + 1)?;
                            let id = isis_id(p, tptr, 6)?;
                            out!(self, "{IDENT}Received from System-ID: {id}");
                        }
                    }
                }
            }
            229 => {
                while tlen != 0 {
                    if tlen == 1 {
                        out!(self, "{IDENT}invalid MT-ID");
                        break;
                    }
                    let mt = self.isis_mtid(p, tptr, IDENT, tlen)?;
                    tptr += mt;
                    tlen -= mt;
                }
            }
            211 => self.isis_restart(p, tptr, tlen)?,
            131 => {
                if tlen >= 1 {
                    let sub = g1(p, tptr)?;
                    let n = name_or(
                        match sub {
                            0 => Some("Reserved"),
                            1 => Some("Routing-Domain Specific"),
                            2 => Some("AS Number Tag"),
                            _ => None,
                        },
                        || format!("Unknown (0x{sub:02x})"),
                    );
                    out!(self, "{IDENT}Inter-Domain Information Type: {n}");
                    tptr += 1;
                    tlen -= 1;
                    if sub == 2 {
                        if tlen >= 2 {
                            out!(self, "AS Number: {}", g2(p, tptr)?);
                        }
                    } else if !self.unknown_data(p, tptr, tlen, IDENT) {
                        return Ok(Next::Return(false));
                    }
                }
            }
            14 => {
                if tlen >= 2 {
                    out!(self, "{IDENT}LSP Buffersize: {}", g2(p, tptr)?);
                }
            }
            4 => {
                while tlen >= SYSTEM_ID_LEN {
                    out!(self, "{IDENT}{}", isis_id(p, tptr, 6)?);
                    tptr += 6;
                    tlen -= 6;
                }
            }
            5 => self.isis_prefix_neigh(p, tptr, tlen)?,
            241 => {
                if tlen >= 4 {
                    out!(self, "{IDENT}Sequence number: {}", g4(p, tptr)?);
                }
            }
            242 => {
                if tlen < 5 {
                    out!(self, " [object length {tlen} < 5] (invalid)");
                } else {
                    let id = self.host4(gv4(p, tptr)?);
                    out!(self, "{IDENT}Router-ID {id}");
                    let f = bit_names(g1(p, tptr + 4)? as u32, &[(1, "S bit"), (2, "D bit")]);
                    out!(self, ", Flags [{f}]");
                    if tlen > 5 {
                        self.isis_router_cap_subtlv(p, tptr + 5, (tlen - 5) as u8)?;
                    }
                }
            }
            250 => {
                if tlen >= 3 {
                    let vendor = g3(p, tptr)?;
                    let n = crate::summary::link::oui_name(vendor).unwrap_or("Unknown");
                    out!(self, "{IDENT}Vendor: {n} ({vendor})");
                    if tlen > 3 && !self.unknown_data(p, tptr + 3, tlen - 3, "\n\t\t") {
                        return Ok(Next::Return(false));
                    }
                }
            }
            _ => {
                if self.opts.verbose <= 1 && !self.unknown_data(p, tptr, tlen, "\n\t\t") {
                    return Ok(Next::Return(false));
                }
            }
        }
        Ok(Next::Tlv)
    }

    /// The entries of a reachability TLV from `t`, after its topology when
    /// `mt`: `entry` prints one and says how many bytes it took.
    fn isis_entries(
        &mut self,
        p: &[u8],
        mut t: usize,
        mut tlen: usize,
        mt: bool,
        entry: impl Fn(&mut Self, usize, usize) -> PResult<usize>,
    ) -> PResult {
        if mt {
            let n = self.isis_mtid(p, t, IDENT, tlen)?;
            t += n;
            tlen -= n;
        }
        while tlen != 0 {
            let n = entry(self, t, tlen)?;
            if tlen < n {
                out!(self, " [remaining tlv length {tlen} < {n}] (invalid)");
                break;
            }
            tlen -= n;
            t += n;
        }
        Ok(())
    }

    fn isis_auth(&mut self, p: &[u8], t: usize, tlen: usize) -> PResult<Next> {
        if tlen < 1 {
            return Ok(Next::Tlv);
        }
        let auth_type = g1(p, t)?;
        let (t, tlen) = (t + 1, tlen - 1);
        out!(self, "{IDENT}{}: ", auth_name(auth_type));
        match auth_type {
            1 => self.jnp(p, t, tlen)?,
            54 => {
                for i in 0..tlen {
                    out!(self, "{:02x}", g1(p, t + i)?);
                }
                if tlen != 16 {
                    out!(self, ", (invalid subTLV) ");
                }
                // tcpdump checks the HMAC only with a secret (-M), never given.
                out!(self, " (unchecked)");
            }
            3 => {
                if tlen >= 2 {
                    out!(self, "{}, password: ", g2(p, t)?);
                    for i in 2..tlen {
                        out!(self, "{:02x}", g1(p, t + i)?);
                    }
                }
            }
            _ => {
                if !self.unknown_data(p, t, tlen, "\n\t\t  ") {
                    return Ok(Next::Return(false));
                }
            }
        }
        Ok(Next::Tlv)
    }

    /// The point-to-point adjacency TLV: its fields are at fixed offsets,
    /// printed while the TLV is long enough.
    fn isis_ptp_adj(&mut self, p: &[u8], t: usize, mut tlen: usize) -> PResult {
        if tlen >= 1 {
            let s = g1(p, t)?;
            let n = match s {
                0 => "Up",
                1 => "Initializing",
                2 => "Down",
                _ => "unknown",
            };
            out!(self, "{IDENT}Adjacency State: {n} ({s})");
            tlen -= 1;
        }
        if tlen > 4 {
            out!(
                self,
                "{IDENT}Extended Local circuit-ID: 0x{:08x}",
                g4(p, t + 1)?
            );
            tlen -= 4;
        }
        if tlen >= SYSTEM_ID_LEN {
            need(p, t + 5, SYSTEM_ID_LEN)?;
            out!(self, "{IDENT}Neighbor System-ID: {}", isis_id(p, t + 5, 6)?);
            tlen -= SYSTEM_ID_LEN;
        }
        if tlen >= 4 {
            out!(
                self,
                "{IDENT}Neighbor Extended Local circuit-ID: 0x{:08x}",
                g4(p, t + 11)?
            );
        }
        Ok(())
    }

    fn isis_srlg(&mut self, p: &[u8], mut t: usize, mut tlen: usize) -> PResult {
        if tlen < NODE_ID_LEN {
            return Ok(());
        }
        need(p, t, NODE_ID_LEN)?;
        out!(self, "{IDENT}IS Neighbor: {}", isis_id(p, t, 7)?);
        t += NODE_ID_LEN;
        tlen -= NODE_ID_LEN;
        if tlen < 1 {
            return Ok(());
        }
        let numbered = if g1(p, t)? & 1 != 0 {
            "numbered"
        } else {
            "unnumbered"
        };
        out!(self, ", Flags: [{numbered}]");
        t += 1;
        tlen -= 1;
        for what in ["interface", "neighbor"] {
            if tlen < 4 {
                return Ok(());
            }
            let a = self.host4(gv4(p, t)?);
            out!(self, "{IDENT}IPv4 {what} address: {a}");
            t += 4;
            tlen -= 4;
        }
        while tlen >= 4 {
            out!(self, "{IDENT}Link-ID: 0x{:08x}", g4(p, t)?);
            t += 4;
            tlen -= 4;
        }
        Ok(())
    }

    fn isis_restart(&mut self, p: &[u8], t: usize, tlen: usize) -> PResult {
        if tlen < 1 {
            return Ok(());
        }
        let f = bit_names(
            g1(p, t)? as u32,
            &[
                (1, "Restart Request"),
                (2, "Restart Acknowledgement"),
                (4, "Suppress adjacency advertisement"),
            ],
        );
        out!(self, "{IDENT}Flags [{f}]");
        if tlen < 3 {
            return Ok(());
        }
        out!(self, ", Remaining holding time {}s", g2(p, t + 1)?);
        if tlen - 3 == SYSTEM_ID_LEN {
            out!(self, ", for {}", isis_id(p, t + 3, 6)?);
        }
        Ok(())
    }

    fn isis_prefix_neigh(&mut self, p: &[u8], mut t: usize, mut tlen: usize) -> PResult {
        if tlen < 4 {
            return Ok(());
        }
        need(p, t, 4)?;
        out!(self, "{IDENT}Metric Block");
        self.isis_metric_block(p, t)?;
        t += 4;
        tlen -= 4;
        while tlen != 0 {
            let plen = g1(p, t)? as usize;
            t += 1;
            tlen -= 1;
            if plen < 2 {
                out!(self, "\n\t\tAddress: prefix length {plen} < 2");
                break;
            }
            if tlen < plen / 2 {
                break;
            }
            let a = isonsap(p, t, plen / 2)?;
            out!(self, "\n\t\tAddress: {a}/{}", plen * 4);
            t += plen / 2;
            tlen -= plen / 2;
        }
        Ok(())
    }
}
