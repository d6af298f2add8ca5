//! EDNS(0) options of a DNS OPT record, as tcpdump's `eopt_print`.

use super::{g1, g2, g4, gv4, gv6, need, out, v6s, PResult, Printer};

fn opt_name(code: u16) -> String {
    let n = match code {
        1 => "LLQ",
        2 => "UL",
        3 => "NSID",
        5 => "DAU",
        6 => "DHU",
        7 => "N3U",
        8 => "ECS",
        9 => "EXPIRE",
        10 => "COOKIE",
        11 => "KEEPALIVE",
        12 => "PADDING",
        13 => "CHAIN",
        14 => "KEY-TAG",
        16 => "CLIENT-TAG",
        17 => "SERVER-TAG",
        c => return format!("Opt{c}"),
    };
    n.to_string()
}

/// The algorithm names of DAU (DNSSEC), DHU (DS hashes) and N3U (NSEC3).
fn alg_name(opt: u16, a: u8) -> String {
    let n = match (opt, a) {
        (5, 0) => "DELETE",
        (5, 1) => "RSAMD5",
        (5, 2) => "DH",
        (5, 3) => "DS",
        (5, 5) => "RSASHA1",
        (5, 6) => "DSA-NSEC3-SHA1",
        (5, 7) => "RSASHA1-NSEC3-SHA1",
        (5, 8) => "RSASHA256",
        (5, 10) => "RSASHA512",
        (5, 12) => "ECC-GOST",
        (5, 13) => "ECDSAP256SHA256",
        (5, 14) => "ECDSAP384SHA384",
        (5, 15) => "ED25519",
        (5, 16) => "ED448",
        (5, 252) => "INDIRECT",
        (5, 253) => "PRIVATEDNS",
        (5, 254) => "PRIVATEOID",
        (6, 1) | (7, 1) => "SHA-1",
        (6, 2) => "SHA-256",
        (6, 3) => "GOST_R_34.11-94",
        (6, 4) => "SHA-384",
        _ => return format!("Alg_{a}"),
    };
    n.to_string()
}

impl Printer<'_> {
    /// One option at `p` of the DNS message `bp`; returns where it ends.
    pub(super) fn edns_opt(&mut self, bp: &[u8], p: usize) -> PResult<usize> {
        let opt = g2(bp, p)?;
        out!(self, "{}", opt_name(opt));
        let len = g2(bp, p + 2)? as usize;
        let d = p + 4;
        need(bp, d, len)?;
        let data = &bp[d..d + len];
        if len == 0 {
            return Ok(d);
        }
        out!(self, " ");
        let list = |p2: &mut Self, items: Vec<String>| out!(p2, "{}", items.join(" "));
        match opt {
            8 => self.edns_ecs(data)?,
            10 => {
                if len < 8 || (len > 8 && len < 16) || len > 40 {
                    out!(self, " (invalid)");
                } else {
                    for (i, b) in data.iter().enumerate() {
                        if i == 8 {
                            out!(self, " ");
                        }
                        out!(self, "{b:02x}");
                    }
                }
            }
            11 if len == 2 => out!(self, "{:.1} sec", g2(data, 0)? as f64 / 10.0),
            9 if len == 4 => out!(self, "{} sec", g4(data, 0)?),
            9 | 11 => out!(self, " (invalid)"),
            12 => out!(self, "({len})"),
            14 if !len.is_multiple_of(2) => out!(self, " (invalid)"),
            14 => list(
                self,
                data.chunks(2)
                    .map(|c| u16::from_be_bytes([c[0], c[1]]).to_string())
                    .collect(),
            ),
            5..=7 => list(self, data.iter().map(|&a| alg_name(opt, a)).collect()),
            13 => {
                self.fqdn(bp, d)?;
            }
            _ => {
                for b in data {
                    out!(self, "{b:02x}");
                }
            }
        }
        Ok(d + len)
    }

    /// `print_eopt_ecs`: family, source and scope prefix lengths, and the
    /// address cut to the source prefix.
    fn edns_ecs(&mut self, data: &[u8]) -> PResult {
        let len = data.len();
        if len < 4 {
            out!(self, " (invalid)");
            return Ok(());
        }
        let (family, src, scope) = (g2(data, 0)?, g1(data, 2)? as usize, g1(data, 3)?);
        let bits = match family {
            1 => 32,
            2 => 128,
            _ => {
                out!(self, " (invalid)");
                return Ok(());
            }
        };
        if len - 4 > bits / 8 || src > bits || scope as usize > bits || src.div_ceil(8) != len - 4 {
            out!(self, " (invalid)");
            return Ok(());
        }
        let mut padded = [0u8; 16];
        padded[..len - 4].copy_from_slice(&data[4..]);
        let addr = if family == 1 {
            gv4(&padded, 0)?.to_string()
        } else {
            v6s(gv6(&padded, 0)?)
        };
        out!(self, "{addr}/{src}/{scope}");
        Ok(())
    }
}
