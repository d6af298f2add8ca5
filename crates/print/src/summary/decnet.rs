//! DECnet Phase IV (EtherType 0x6003), as tcpdump 4.99's `decnet_print`
//! prints it: the routing layer's control messages (hellos, routing, init) and,
//! over a short or long data header, the NSP message (data, acks, link
//! service, connect and disconnect). `-v` adds the padding, the routing flags
//! and the hop count. Addresses print as `area.node`.

use super::{g1, head, need, out, tail, PResult, Printer};

/// Sizes of the structures tcpdump checks lengths against.
const SHORT_HDR: usize = 6;
const LONG_HDR: usize = 21;

/// Routing flags (`RMF_*`).
const RMF_PAD: u8 = 0o200;
const RMF_FVER: u8 = 0o100;
const RMF_CTLMSG: u8 = 0o1;

fn le2(p: &[u8], at: usize) -> PResult<u16> {
    Ok(u16::from_le_bytes([g1(p, at)?, g1(p, at + 1)?]))
}

/// `dnnum_string`: `area.node`.
fn dnaddr(a: u16) -> String {
    format!("{}.{}", a >> 10, a & 0o1777)
}

impl Printer<'_> {
    /// `decnet_print`: `length` bytes of frame payload, `p` captured.
    pub(super) fn decnet(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "decnet";
        if self.decnet_body(p, length)? {
            out!(self, " (invalid)");
        }
        Ok(())
    }

    /// The message; `true` when tcpdump calls it invalid.
    fn decnet_body(&mut self, p: &[u8], length: u32) -> PResult<bool> {
        let mut length = length as usize;
        if length < SHORT_HDR {
            out!(self, " (length {length} < {SHORT_HDR})");
            return Ok(true);
        }
        let pktlen = le2(p, 0)? as usize;
        if pktlen < SHORT_HDR {
            out!(self, " (pktlen {pktlen} < {SHORT_HDR})");
            return Ok(true);
        }
        if pktlen > length {
            out!(self, " (pktlen {pktlen} > {length})");
            return Ok(true);
        }
        length = pktlen;
        let mut ap = p;
        let mut mflags = g1(ap, 2)?;
        if mflags & RMF_PAD != 0 {
            let padlen = (mflags & 0o177) as usize;
            if self.opts.verbose > 0 {
                out!(self, "[pad:{padlen}] ");
            }
            if length < padlen + 2 {
                out!(self, " (length {length} < {})", padlen + 2);
                return Ok(true);
            }
            need(ap, 2, padlen)?;
            ap = tail(ap, padlen);
            length -= padlen;
            mflags = g1(ap, 2)?;
        }
        if mflags & RMF_FVER != 0 {
            out!(self, "future-version-decnet");
            self.default_print(head(ap, length), false);
            return Ok(false);
        }
        let rh = tail(ap, 2);
        if mflags & RMF_CTLMSG != 0 {
            return self.decnet_ctlmsg(rh, mflags, length);
        }
        let (dst, src, hops, nsp_at, nsplen) = match mflags & 7 {
            6 => {
                if length < LONG_HDR {
                    out!(self, " (length {length} < {LONG_HDR})");
                    return Ok(true);
                }
                need(rh, 0, LONG_HDR)?;
                let hops = g1(rh, 18)? as u32;
                (le2(rh, 7)?, le2(rh, 15)?, hops, LONG_HDR, length - LONG_HDR)
            }
            2 => {
                let hops = (g1(rh, 5)? & 0o77) as u32 + 1;
                // tcpdump's unsigned length wraps when the padding left less
                // than a header; the reads past the capture then truncate.
                let nsplen = length.wrapping_sub(SHORT_HDR);
                (le2(rh, 1)?, le2(rh, 3)?, hops, SHORT_HDR, nsplen)
            }
            _ => {
                out!(self, "unknown message flags under mask");
                self.default_print(head(ap, length), false);
                return Ok(false);
            }
        };
        out!(self, "{} > {} {pktlen} ", dnaddr(src), dnaddr(dst));
        if self.opts.verbose > 0 {
            for (bit, name) in [(0o10, "RQR"), (0o20, "RTS"), (0o40, "IE")] {
                if mflags & bit != 0 {
                    out!(self, "{name} ");
                }
            }
            out!(self, "{hops} hops ");
        }
        self.nsp(tail(rh, nsp_at), nsplen)
    }

    /// `print_decnet_ctlmsg`: a routing-layer control message at `c`.
    fn decnet_ctlmsg(&mut self, c: &[u8], mflags: u8, length: usize) -> PResult<bool> {
        match mflags & 0o17 {
            0o1 => {
                out!(self, "init ");
                if length < 12 {
                    return Ok(true);
                }
                need(c, 0, 12)?;
                let info = g1(c, 3)?;
                self.decnet_t_info(info);
                out!(
                    self,
                    "src {}blksize {} vers {} eco {} ueco {} hello {}",
                    dnaddr(le2(c, 1)?),
                    le2(c, 4)?,
                    g1(c, 6)?,
                    g1(c, 7)?,
                    g1(c, 8)?,
                    le2(c, 9)?
                );
            }
            0o3 | 0o5 => {
                let (name, field) = if mflags & 0o17 == 0o3 {
                    ("verification", "fcnval")
                } else {
                    ("test", "data")
                };
                out!(self, "{name} ");
                if length < 4 {
                    return Ok(true);
                }
                let src = le2(c, 1)?;
                let other = g1(c, 3)?;
                out!(self, "src {} {field} {other:o}", dnaddr(src));
            }
            0o7 | 0o11 => {
                let (name, what) = if mflags & 0o17 == 0o7 {
                    ("lev-1-routing", "ids")
                } else {
                    ("lev-2-routing", "areas")
                };
                out!(self, "{name} ");
                if length < 4 {
                    return Ok(true);
                }
                need(c, 0, 4)?;
                out!(self, "src {} ", dnaddr(le2(c, 1)?));
                self.decnet_routes(tail(c, 4), length - 4, what)?;
            }
            0o13 => {
                out!(self, "router-hello ");
                if length < 18 {
                    return Ok(true);
                }
                need(c, 0, 18)?;
                self.decnet_i_info(g1(c, 10)?);
                out!(
                    self,
                    "vers {} eco {} ueco {} src {} blksize {} pri {} hello {}",
                    g1(c, 1)?,
                    g1(c, 2)?,
                    g1(c, 3)?,
                    dnaddr(le2(c, 8)?),
                    le2(c, 11)?,
                    g1(c, 13)?,
                    le2(c, 15)?
                );
                // tcpdump's print_elist prints nothing.
            }
            0o15 => {
                out!(self, "endnode-hello ");
                if length < 32 {
                    return Ok(true);
                }
                let (vers, eco, ueco) = (g1(c, 1)?, g1(c, 2)?, g1(c, 3)?);
                let src = le2(c, 8)?;
                let info = g1(c, 10)?;
                let blksize = le2(c, 11)?;
                let rtr = le2(c, 26)?;
                let hello = le2(c, 28)?;
                let data = g1(c, 31)?;
                self.decnet_i_info(info);
                out!(
                    self,
                    "vers {vers} eco {eco} ueco {ueco} src {} blksize {blksize} rtr {} hello {hello} data {data:o}",
                    dnaddr(src),
                    dnaddr(rtr)
                );
            }
            _ => {
                out!(self, "unknown control message");
                self.default_print(head(c, length), false);
            }
        }
        Ok(false)
    }

    /// `print_t_info`.
    fn decnet_t_info(&mut self, info: u8) {
        let t = ["reserved-ntype? ", "l2rout ", "l1rout ", "endnode "];
        out!(self, "{}", t[(info & 3) as usize]);
        if info & 0o4 != 0 {
            out!(self, "verif ");
        }
        if info & 0o10 != 0 {
            out!(self, "blo ");
        }
    }

    /// `print_i_info`.
    fn decnet_i_info(&mut self, info: u8) {
        let t = ["reserved-ntype? ", "l2rout ", "l1rout ", "endnode "];
        out!(self, "{}", t[(info & 3) as usize]);
        for (bit, name) in [(0o4, "verif "), (0o40, "nomcast "), (0o100, "blo ")] {
            if info & bit != 0 {
                out!(self, "{name}");
            }
        }
    }

    /// `print_l1_routes`/`print_l2_routes`: `{ids A-B cost C hops H}` per
    /// entry; the last short is a checksum.
    fn decnet_routes(&mut self, r: &[u8], mut len: usize, what: &str) -> PResult {
        let mut at = 0;
        while len > 6 {
            need(r, at, 6)?;
            let count = le2(r, at)? as u32;
            if count > 1024 {
                return Ok(());
            }
            let id = le2(r, at + 2)? as u32;
            let info = le2(r, at + 4)?;
            out!(
                self,
                "{{{what} {id}-{} cost {} hops {}}} ",
                id + count,
                info & 0o777,
                (info >> 10) & 0o37
            );
            at += 6;
            len -= 6;
        }
        Ok(())
    }

    /// `print_nsp`: the NSP message at `n`, `nsplen` bytes; `true` when
    /// invalid.
    fn nsp(&mut self, n: &[u8], nsplen: usize) -> PResult<bool> {
        if nsplen < 5 {
            out!(self, " (nsplen {nsplen} < 5)");
            return Ok(true);
        }
        let flags = g1(n, 0)?;
        let dst = le2(n, 1)?;
        let src = le2(n, 3)?;
        let sub = flags & 0o160;
        match flags & 0o14 {
            0 => match sub {
                0o40 | 0 | 0o100 | 0o140 => {
                    out!(self, "data {src}>{dst} ");
                    return self.nsp_seq(n, nsplen, "oack", "onak");
                }
                0o60 => {
                    out!(self, "intr ");
                    return self.nsp_seq(n, nsplen, "ackdat", "nakdat");
                }
                0o20 => {
                    out!(self, "link-service {src}>{dst} ");
                    if nsplen < 13 {
                        return Ok(true);
                    }
                    let mut ack = le2(n, 5)?;
                    if ack & 0o100000 != 0 {
                        self.nsp_ack(ack, "ack", "nak");
                        ack = le2(n, 7)?;
                        if ack & 0o120000 != 0 {
                            self.nsp_ack(ack, "ackdat", "nakdat");
                            ack = le2(n, 9)?;
                        }
                    }
                    out!(self, "seg {} ", ack & 0o7777);
                    let lsflags = g1(n, 11)?;
                    let fcval = g1(n, 12)?;
                    match lsflags & 0o14 {
                        0 => {
                            out!(self, "dat seg count {fcval} ");
                            match lsflags & 3 {
                                0 => {}
                                1 => out!(self, "donotsend-data "),
                                2 => out!(self, "send-data "),
                                _ => out!(self, "reserved-fcmod? {lsflags:x}"),
                            }
                        }
                        4 => out!(self, "intr req count {fcval} "),
                        _ => out!(self, "reserved-fcval-int? {lsflags:x}"),
                    }
                }
                _ => out!(self, "reserved-subtype? {flags:x} {src} > {dst}"),
            },
            0o4 => match sub {
                0 | 0o20 => {
                    let (name, oack, onak) = if sub == 0 {
                        ("data-ack", "oack", "onak")
                    } else {
                        ("ils-ack", "ackdat", "nakdat")
                    };
                    out!(self, "{name} {src}>{dst} ");
                    if nsplen < 9 {
                        return Ok(true);
                    }
                    need(n, 0, 9)?;
                    let ack = le2(n, 5)?;
                    if ack & 0o100000 != 0 {
                        self.nsp_ack(ack, "ack", "nak");
                        let ack = le2(n, 7)?;
                        if ack & 0o120000 != 0 {
                            self.nsp_ack(ack, oack, onak);
                        }
                    }
                }
                0o40 => out!(self, "conn-ack {dst}"),
                _ => out!(self, "reserved-acktype? {flags:x} {src} > {dst}"),
            },
            0o10 => match sub {
                0o20 | 0o140 | 0o40 => {
                    let confirm = sub == 0o40;
                    match sub {
                        0o20 => out!(self, "conn-initiate "),
                        0o140 => out!(self, "retrans-conn-initiate "),
                        _ => out!(self, "conn-confirm "),
                    }
                    out!(self, "{src}>{dst} ");
                    if nsplen < if confirm { 10 } else { 9 } {
                        return Ok(true);
                    }
                    let services = g1(n, 5)?;
                    let info = g1(n, 6)?;
                    let segsize = le2(n, 7)?;
                    let optlen = if confirm { g1(n, 9)? } else { 0 };
                    match services & 0o14 {
                        0o4 => out!(self, "seg "),
                        0o10 => out!(self, "msg "),
                        _ => {}
                    }
                    let ver = ["3.2", "3.1", "4.0", "4.1"][(info & 3) as usize];
                    out!(self, "ver {ver} segsize {segsize} ");
                    if optlen != 0 {
                        out!(self, "optlen {optlen} ");
                    }
                }
                0o60 => {
                    out!(self, "disconn-initiate {src}>{dst} ");
                    if nsplen < 8 {
                        return Ok(true);
                    }
                    let reason = le2(n, 5)?;
                    let optlen = g1(n, 7)?;
                    self.nsp_reason(reason);
                    if optlen != 0 {
                        out!(self, "optlen {optlen} ");
                    }
                }
                0o100 => {
                    out!(self, "disconn-confirm {src}>{dst} ");
                    let reason = le2(n, 5)?;
                    self.nsp_reason(reason);
                }
                _ => out!(self, "reserved-ctltype? {flags:x} {src} > {dst}"),
            },
            _ => out!(self, "reserved-type? {flags:x} {src} > {dst}"),
        }
        Ok(false)
    }

    /// The sequence fields of a data or interrupt message: an ack, an ack of
    /// the other channel (named `oack`/`onak`), then the segment number.
    fn nsp_seq(&mut self, n: &[u8], nsplen: usize, oack: &str, onak: &str) -> PResult<bool> {
        let mut off = 7;
        if nsplen < off {
            return Ok(true);
        }
        let mut ack = le2(n, 5)?;
        if ack & 0o100000 != 0 {
            self.nsp_ack(ack, "ack", "nak");
            off += 2;
            if nsplen < off {
                return Ok(true);
            }
            ack = le2(n, 7)?;
            if ack & 0o120000 != 0 {
                self.nsp_ack(ack, oack, onak);
                off += 2;
                if nsplen < off {
                    return Ok(true);
                }
                ack = le2(n, 9)?;
            }
        }
        out!(self, "seg {} ", ack & 0o7777);
        Ok(false)
    }

    /// An acknowledgement number: `ack N` or, with the NAK bits, `nak N`.
    fn nsp_ack(&mut self, ack: u16, yes: &str, no: &str) {
        let name = if ack & 0o110000 == 0o110000 { no } else { yes };
        out!(self, "{name} {} ", ack & 0o7777);
    }

    /// `print_reason`.
    fn nsp_reason(&mut self, reason: u16) {
        let s = match reason {
            0 => "object rejected connect",
            1 => "insufficient resources",
            2 => "unrecognized node name",
            3 => "node is shutting down",
            4 => "unrecognized object",
            5 => "invalid object name format",
            6 => "object too busy",
            7 => "protocol error discovered",
            8 => "third party abort",
            9 => "user abort",
            10 => "invalid node name format",
            11 => "local node shutting down",
            32 => "insufficient local resources",
            33 => "insufficient remote user resources",
            34 => "invalid access control information",
            36 => "bad ACCOUNT information",
            38 => "no response from object",
            39 => "node unreachable",
            41 => "no link terminate",
            42 => "disconnect complete",
            43 => "bad image data in connect",
            54 => "cryptographic service mismatch",
            _ => {
                out!(self, "reason-{reason} ");
                return;
            }
        };
        out!(self, "{s} ");
    }
}
