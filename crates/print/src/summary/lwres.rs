//! BIND 9's lightweight resolver protocol (UDP port 921), as tcpdump
//! 4.99's `lwres_print` prints it: the opcode, and a query's or a
//! response's names and addresses.

use super::app::{known_class, type_name};
use super::{g1, g2, g4, gv4, gv6, need, out, print_char, relts, PResult, Printer};

/// The packet header's size.
const HDR: usize = 28;

/// `ns_class2str`.
fn class_name(c: u16) -> String {
    known_class(c).map_or_else(|| format!("Class{c}"), str::to_string)
}

impl Printer<'_> {
    /// `lwres_printname`: ` ` and `l` bytes as text at `at`, then a
    /// complaint when no NUL follows; what it read.
    fn lwres_name(&mut self, b: &[u8], l: usize, at: usize) -> PResult<usize> {
        out!(self, " ");
        for i in 0..l {
            print_char(&mut self.out, g1(b, at + i)?);
        }
        if g1(b, at + l)? != 0 {
            out!(self, " (not NUL-terminated!)");
        }
        Ok(l + 1)
    }

    /// `lwres_printnamelen`: a 16-bit length, then the name.
    fn lwres_namelen(&mut self, b: &[u8], at: usize) -> PResult<usize> {
        let l = usize::from(g2(b, at)?);
        Ok(2 + self.lwres_name(b, l, at + 2)?)
    }

    /// `lwres_printbinlen`: a 16-bit length, then the bytes in hex.
    fn lwres_binlen(&mut self, b: &[u8], at: usize) -> PResult<usize> {
        let l = usize::from(g2(b, at)?);
        for i in 0..l {
            out!(self, "{:02x}", g1(b, at + 2 + i)?);
        }
        Ok(2 + l)
    }

    /// `lwres_printaddr`: family, length, address; `None` for an address
    /// shorter than its family's.
    fn lwres_addr(&mut self, b: &[u8], at: usize) -> PResult<Option<usize>> {
        let l = usize::from(g2(b, at + 4)?);
        let p = at + 6;
        need(b, p, l)?;
        let family = g4(b, at)?;
        let n = match family {
            1 if l < 4 => return Ok(None),
            1 => {
                let a = self.host4(gv4(b, p)?);
                out!(self, " {a}");
                4
            }
            2 if l < 16 => return Ok(None),
            2 => {
                let a = self.host6(gv6(b, p)?);
                out!(self, " {a}");
                16
            }
            f => {
                out!(self, " {f}/");
                for i in 0..l {
                    out!(self, "{:02x}", g1(b, p + i)?);
                }
                l
            }
        };
        Ok(Some(6 + n))
    }

    /// `lwres_print` of `length` bytes of UDP payload.
    pub(super) fn lwres(&mut self, bp: &[u8], length: u32) -> PResult {
        self.proto = "lwres";
        need(bp, 0, HDR)?;
        out!(self, " lwres");
        let version = g2(bp, 4)?;
        if self.opts.verbose > 0 || version != 0 {
            out!(self, " v{version}");
        }
        let plen = g4(bp, 0)?;
        // Where the decoded part ends, when it was decoded.
        let mut end = None;
        if version == 0 {
            let flags = g2(bp, 6)?;
            let response = flags & 1 != 0;
            let op = g4(bp, 12)?;
            let name = match op {
                0 => "noop".to_string(),
                0x0001_0001 => "getaddrsbyname".to_string(),
                0x0001_0002 => "getnamebyaddr".to_string(),
                0x0001_0003 => "getrdatabyname".to_string(),
                v => format!("#0x{v:x}"),
            };
            out!(self, " {name}{}", if response { "" } else { "?" });
            if flags & !1 != 0 {
                out!(self, "[0x{flags:x}]");
            }
            if self.opts.verbose > 1 {
                out!(
                    self,
                    " (serial:0x{:x} result:0x{:x} recvlen:{}",
                    g4(bp, 8)?,
                    g4(bp, 16)?,
                    g4(bp, 20)?
                );
                if self.opts.verbose > 2 {
                    out!(
                        self,
                        " authtype:0x{:x} authlen:{}",
                        g2(bp, 24)?,
                        g2(bp, 26)?
                    );
                }
                out!(self, ")");
            }
            // Each known body's fixed part: checked, then its flags word.
            let fixed = match (response, op) {
                (_, 0x0001_0001) | (false, 0x0001_0003) => Some(10),
                (false, 0x0001_0002) => Some(4),
                (true, 0x0001_0002) => Some(8),
                (true, 0x0001_0003) => Some(16),
                _ => None,
            };
            if let Some(n) = fixed {
                need(bp, HDR, n)?;
                if self.opts.verbose > 2 {
                    out!(self, " flags:0x{:x}", g4(bp, HDR)?);
                }
            }
            let r = if response {
                self.lwres_response(bp, op)?
            } else {
                self.lwres_query(bp, op)?
            };
            match r {
                Body::Invalid => {
                    out!(self, " (invalid)");
                    return Ok(());
                }
                Body::End(s) => end = Some(s),
                Body::Unsupported => {}
            }
        } else {
            end = Some(plen as usize);
        }
        if plen != length {
            out!(self, " [len: {plen} != {length}]");
        }
        if end.is_some_and(|s| (s as u64) < u64::from(plen)) {
            out!(self, "[extra]");
        }
        Ok(())
    }

    /// A query's body.
    fn lwres_query(&mut self, bp: &[u8], op: u32) -> PResult<Body> {
        let p = HDR;
        Ok(match op {
            0 => Body::End(p),
            0x0001_0001 => {
                let v = g4(bp, p + 4)?;
                match v & 3 {
                    1 => out!(self, " IPv4"),
                    2 => out!(self, " IPv6"),
                    3 => out!(self, " IPv4/6"),
                    _ => {}
                }
                if v & !3 != 0 {
                    out!(self, "[0x{v:x}]");
                }
                let l = usize::from(g2(bp, p + 8)?);
                Body::End(p + 10 + self.lwres_name(bp, l, p + 10)?)
            }
            0x0001_0002 => match self.lwres_addr(bp, p + 4)? {
                Some(n) => Body::End(p + 4 + n),
                None => Body::Invalid,
            },
            0x0001_0003 => {
                self.lwres_rdtype(bp, p)?;
                let l = usize::from(g2(bp, p + 8)?);
                Body::End(p + 10 + self.lwres_name(bp, l, p + 10)?)
            }
            _ => Body::Unsupported,
        })
    }

    /// The type, and the class unless IN, of a getrdatabyname at `p`.
    fn lwres_rdtype(&mut self, bp: &[u8], p: usize) -> PResult {
        out!(self, " {}", type_name(g2(bp, p + 6)?));
        let class = g2(bp, p + 4)?;
        if class != 1 {
            out!(self, " {}", class_name(class));
        }
        Ok(())
    }

    /// A response's body.
    fn lwres_response(&mut self, bp: &[u8], op: u32) -> PResult<Body> {
        let p = HDR;
        Ok(match op {
            0 => Body::End(p),
            0x0001_0001 => {
                let (naliases, naddrs) = (g2(bp, p + 4)?, g2(bp, p + 6)?);
                out!(self, " {naliases}/{naddrs}");
                let l = usize::from(g2(bp, p + 8)?);
                let mut s = p + 10;
                s += self.lwres_name(bp, l, s)?;
                for _ in 0..naliases {
                    s += self.lwres_namelen(bp, s)?;
                }
                for _ in 0..naddrs {
                    match self.lwres_addr(bp, s)? {
                        Some(n) => s += n,
                        None => return Ok(Body::Invalid),
                    }
                }
                Body::End(s)
            }
            0x0001_0002 => {
                let naliases = g2(bp, p + 4)?;
                out!(self, " {naliases}");
                let l = usize::from(g2(bp, p + 6)?);
                let mut s = p + 8;
                s += self.lwres_name(bp, l, s)?;
                for _ in 0..naliases {
                    s += self.lwres_namelen(bp, s)?;
                }
                Body::End(s)
            }
            0x0001_0003 => {
                self.lwres_rdtype(bp, p)?;
                out!(self, " TTL {}", relts(g4(bp, p + 8)?));
                let (nrdatas, nsigs) = (g2(bp, p + 12)?, g2(bp, p + 14)?);
                out!(self, " {nrdatas}/{nsigs}");
                let mut s = p + 16;
                s += self.lwres_namelen(bp, s)?;
                for _ in 0..u32::from(nrdatas) + u32::from(nsigs) {
                    s += self.lwres_binlen(bp, s)?;
                }
                Body::End(s)
            }
            _ => Body::Unsupported,
        })
    }
}

/// What a body's decoding ended with.
enum Body {
    /// Where it ended.
    End(usize),
    /// An opcode tcpdump does not decode.
    Unsupported,
    /// An address shorter than its family's (`nd_print_invalid`).
    Invalid,
}
