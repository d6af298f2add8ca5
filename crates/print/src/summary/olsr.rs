//! OLSR (UDP port 698), as tcpdump 4.99's `olsr_print` prints it: the
//! packet header, with `-v` every message (hello and TC neighbors, MID
//! addresses, HNA networks and smart gateways, name service entries).

use super::transport::mask2plen;
use super::{g1, g2, gv4, gv6, need, out, print_char, PResult, Printer};

fn msg_name(t: u8) -> &'static str {
    match t {
        1 => "Hello",
        2 => "TC",
        3 => "MID",
        4 => "HNA",
        128 => "Powerinfo",
        130 => "Nameservice",
        201 => "Hello-LQ",
        202 => "TC-LQ",
        _ => "Unknown",
    }
}

/// olsr.org's mantissa/exponent time in seconds.
fn me_to_secs(me: u8) -> f64 {
    0.0625 * (1.0 + f64::from(me >> 4) / 16.0) * f64::from(1u32 << (me & 0x0f))
}

/// A smart gateway's encoded link speed (5 bits mantissa, 3 exponent) in
/// kbit/s.
fn gw_speed(v: u8) -> u32 {
    match v {
        0 => 0,
        0xff => 320_000_000,
        _ => (u32::from(v >> 3) + 1) * 10u32.pow(u32::from(v & 7)),
    }
}

/// tcpdump's `mask62plen`: the leading one bits, up to the first byte that
/// is not all ones.
fn mask6_plen(m: &[u8]) -> u32 {
    let mut len = 0;
    for &b in m {
        if let Some(bits) = (0..=8u32).find(|&i| b == (0xff00u16 >> i) as u8) {
            len += bits;
        }
        if b != 0xff {
            break;
        }
    }
    len
}

impl Printer<'_> {
    /// `olsr_print`: `len` bytes of UDP payload, `p` captured.
    pub(super) fn olsr(&mut self, p: &[u8], len: u32, v6: bool) -> PResult {
        self.proto = "olsr";
        out!(self, "OLSRv{}", if v6 { 6 } else { 4 });
        if len < 4 {
            return Err(self.caught());
        }
        need(p, 0, 4).map_err(|_| self.caught())?;
        let length = (len as usize).min(g2(p, 0)? as usize);
        out!(self, ", seq 0x{:04x}, length {length}", g2(p, 2)?);
        if self.opts.verbose == 0 {
            return Ok(());
        }
        let (asz, hsz) = if v6 { (16, 24) } else { (4, 12) };
        let mut at = 4;
        while at < length {
            need(p, at, hsz).map_err(|_| self.caught())?;
            let t = g1(p, at)?;
            let msg_len = g2(p, at + 2)? as usize;
            let valid = msg_len >= hsz && msg_len <= length;
            if t == 0 || msg_len == 0 {
                return Ok(());
            }
            let orig = if v6 {
                self.host6(gv6(p, at + 4)?)
            } else {
                self.host4(gv4(p, at + 4)?)
            };
            let o = at + 4 + asz;
            out!(
                self,
                "\n\t{} Message (0x{t:02x}), originator {orig}, ttl {}, hop {}\n\t  vtime {:.3}s, msg-seq 0x{:04x}, length {msg_len}{}",
                msg_name(t),
                g1(p, o)?,
                g1(p, o + 1)?,
                me_to_secs(g1(p, at + 1)?),
                g2(p, o + 2)?,
                if valid { "" } else { " (invalid)" }
            );
            if !valid {
                return Ok(());
            }
            let body = at + hsz;
            let tlen = msg_len - hsz;
            match t {
                1 | 201 => self.olsr_hello(p, body, tlen, t == 1, v6)?,
                2 | 202 => {
                    if tlen < 4 {
                        return Err(self.caught());
                    }
                    need(p, body, 4).map_err(|_| self.caught())?;
                    out!(
                        self,
                        "\n\t    advertised neighbor seq 0x{:04x}",
                        g2(p, body)?
                    );
                    if t == 2 {
                        self.olsr_neighbors(p, body + 4, tlen - 4)?;
                    } else {
                        self.olsr_lq_neighbors(p, body + 4, tlen - 4, v6)?;
                    }
                }
                3 => {
                    let mut a = body;
                    while a + asz <= body + tlen {
                        need(p, a, asz).map_err(|_| self.caught())?;
                        let s = self.olsr_addr(p, a, v6)?;
                        out!(self, "\n\t  interface address {s}");
                        a += asz;
                    }
                }
                4 => self.olsr_hna(p, body, tlen, v6)?,
                130 => self.olsr_names(p, body, tlen, asz)?,
                _ => {
                    self.unknown_data(p, body, tlen, "\n\t    ");
                }
            }
            at += msg_len;
        }
        Ok(())
    }

    fn olsr_addr(&self, p: &[u8], at: usize, v6: bool) -> PResult<String> {
        Ok(if v6 {
            self.host6(gv6(p, at)?)
        } else {
            self.host4(gv4(p, at)?)
        })
    }

    fn olsr_hello(&mut self, p: &[u8], at: usize, tlen: usize, plain: bool, v6: bool) -> PResult {
        if tlen < 4 {
            return Err(self.caught());
        }
        need(p, at, 4).map_err(|_| self.caught())?;
        out!(
            self,
            "\n\t  hello-time {:.3}s, MPR willingness {}",
            me_to_secs(g1(p, at + 2)?),
            g1(p, at + 3)?
        );
        let (mut at, mut tlen) = (at + 4, tlen - 4);
        while tlen >= 4 {
            need(p, at, 4).map_err(|_| self.caught())?;
            let hello_len = g2(p, at + 2)? as usize;
            let code = g1(p, at)?;
            let valid = hello_len <= tlen && hello_len >= 4;
            let link = ["Unspecified", "Asymmetric", "Symmetric", "Lost"][(code & 3) as usize];
            let nb = match code >> 2 {
                0 => "Not-Neighbor",
                1 => "Symmetric",
                2 => "Symmetric-MPR",
                _ => "Unknown",
            };
            out!(
                self,
                "\n\t    link-type {link}, neighbor-type {nb}, len {hello_len}{}",
                if valid { "" } else { " (invalid)" }
            );
            if !valid {
                break;
            }
            at += 4;
            tlen -= 4;
            let n = hello_len - 4;
            need(p, at, n).map_err(|_| self.caught())?;
            if plain {
                self.olsr_neighbors(p, at, n)?;
            } else {
                self.olsr_lq_neighbors(p, at, n, v6)?;
            }
            at += n;
            tlen -= n;
        }
        Ok(())
    }

    /// `olsr_print_neighbor`: IPv4 addresses, each followed by a space
    /// (tcpdump's count for four a line never moves).
    fn olsr_neighbors(&mut self, p: &[u8], at: usize, n: usize) -> PResult {
        out!(self, "\n\t      neighbor\n\t\t");
        for i in 0..n / 4 {
            let a = self.host4(gv4(p, at + 4 * i)?);
            out!(self, "{a} ");
        }
        Ok(())
    }

    /// `olsr_print_lq_neighbor4`/`6`.
    fn olsr_lq_neighbors(&mut self, p: &[u8], at: usize, n: usize, v6: bool) -> PResult {
        let size = if v6 { 20 } else { 8 };
        for i in 0..n / size {
            let a = at + size * i;
            need(p, a, size).map_err(|_| self.caught())?;
            let s = self.olsr_addr(p, a, v6)?;
            let q = size - 4;
            out!(
                self,
                "\n\t      neighbor {s}, link-quality {:.2}%, neighbor-link-quality {:.2}%",
                f64::from(g1(p, a + q)?) / 2.55,
                f64::from(g1(p, a + q + 1)?) / 2.55
            );
        }
        Ok(())
    }

    fn olsr_hna(&mut self, p: &[u8], at: usize, tlen: usize, v6: bool) -> PResult {
        let size = if v6 { 32 } else { 8 };
        out!(self, "\n\t  Advertised networks (total {})", tlen / size);
        for i in 0..tlen / size {
            let a = at + size * i;
            need(p, a, size).map_err(|_| self.caught())?;
            if v6 {
                // tcpdump's index never moves from 0.
                let net = self.host6(gv6(p, a)?);
                out!(self, "\n\t    #0: {net}/{}", mask6_plen(&p[a + 16..a + 32]));
                continue;
            }
            let sep = if i % 4 == 0 { "\n\t    " } else { ", " };
            let (net, m) = (&p[a..a + 4], &p[a + 4..a + 8]);
            if net == [0, 0, 0, 0] && m[0] == 0 && m[1] != 0 {
                let f = m[1];
                out!(self, "{sep}Smart-Gateway:");
                for (bit, name) in [
                    (1, " LINKSPEED"),
                    (2, " IPV4"),
                    (4, " IPV4-NAT"),
                    (8, " IPV6"),
                    (16, " IPv6-PREFIX"),
                ] {
                    if f & bit != 0 {
                        out!(self, "{name}");
                    }
                }
                let (up, down) = if f & 1 != 0 {
                    (gw_speed(m[2]), gw_speed(m[3]))
                } else {
                    (0, 0)
                };
                out!(self, " {up}/{down}");
            } else {
                let s = self.host4(gv4(p, a)?);
                let plen = mask2plen(super::g4(p, a + 4)?) as u32;
                out!(self, "{sep}{s}/{plen}");
            }
        }
        Ok(())
    }

    fn olsr_names(&mut self, p: &[u8], at: usize, tlen: usize, asz: usize) -> PResult {
        if tlen < 4 {
            return Err(self.caught());
        }
        let entries = g2(p, at + 2)? as usize;
        let valid = entries > 0 && entries * (4 + asz) <= tlen;
        out!(
            self,
            "\n\t  Version {}, Entries {entries}{}",
            g2(p, at)?,
            if valid { "" } else { " (invalid)" }
        );
        if !valid {
            return Ok(());
        }
        let (mut at, mut tlen) = (at + 4, tlen - 4);
        for i in 0..entries {
            if tlen < 4 {
                break;
            }
            let t = g2(p, at)?;
            let n = g2(p, at + 2)? as usize;
            at += 4;
            tlen -= 4;
            let ok = n > 0 && asz + n <= tlen;
            let ty = if t == 0 {
                "000000".to_string()
            } else {
                format!("{t:#06x}")
            };
            out!(
                self,
                "\n\t    #{i}: type {ty}, length {n}{}",
                if ok { "" } else { " (invalid)" }
            );
            if !ok {
                break;
            }
            let pad = (4 - n % 4) % 4;
            let total = asz + n + pad;
            if tlen < total {
                return Err(self.caught());
            }
            need(p, at, total).map_err(|_| self.caught())?;
            let s = self.olsr_addr(p, at, asz == 16)?;
            out!(self, ", address {s}, name \"");
            for &c in &p[at + asz..at + asz + n] {
                print_char(&mut self.out, c);
            }
            out!(self, "\"");
            at += total;
            tlen -= total;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gateway_speeds_and_masks() {
        assert_eq!(gw_speed(0), 0);
        assert_eq!(gw_speed(0xff), 320_000_000);
        assert_eq!(gw_speed(0x0a), 2 * 100);
        assert_eq!(mask6_plen(&[0xff, 0xff, 0xe0, 0, 0, 0, 0, 0]), 19);
        assert_eq!(mask6_plen(&[0xff, 0x12, 0xff]), 8);
        assert!((me_to_secs(0x01) - 0.125).abs() < 1e-12);
    }
}
