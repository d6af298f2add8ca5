//! Network-layer printers: IPv4, IPv6 and its extension headers (with the `-v`
//! header fields), the IP protocol demultiplexer, and the protocols carried
//! straight over IP that are not transports: ICMP, ICMPv6 (with neighbor
//! discovery options), IGMP, GRE, AH/ESP, VRRP, the first line of OSPF and PIM.
//! PIMv2's and EIGRP's `-v` details live in `pim.rs` and `eigrp.rs`.

use super::{
    bit_names, g1, g2, g4, gv4, gv6, head, name_or, need, out, relts, tail, v6s, IpAddrs, IpCtx,
    PResult, Printer, Trunc,
};
use netsift_wire::icmpv4::Icmpv4Packet;
use netsift_wire::icmpv6::msg_type as icmp6;
use netsift_wire::ipv4::Ipv4Packet;
use netsift_wire::ipv6::{Ipv6Packet, MAX_EXT_HEADERS};
use std::net::Ipv4Addr;

impl Printer<'_> {
    /// `ip_print`: an IPv4 packet of `length` bytes (as far as the layer below
    /// knows), `data` captured. Truncation is reported inside.
    pub(super) fn ipv4(&mut self, data: &[u8], length: u32) {
        let r = self.ipv4_inner(data, length);
        self.catch(r);
    }

    fn ipv4_inner(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "ip";
        // tcpdump checks the version byte before it prints anything.
        let vhl = g1(data, 0)?;
        if !self.opts.link_header {
            out!(self, "IP");
        }
        if vhl >> 4 != 4 {
            if self.opts.link_header {
                out!(self, "IP");
            }
            if vhl >> 4 == 6 {
                out!(self, "6, wrong link-layer encapsulation (invalid)");
            } else {
                out!(self, "{} (invalid)", vhl >> 4);
            }
            return Ok(());
        }
        if !self.opts.link_header {
            out!(self, " ");
        }
        // The fixed header must be captured; options may be cut (the payload
        // printers then report the truncation), as in tcpdump.
        need(data, 0, Ipv4Packet::<&[u8]>::MIN_HEADER_LEN)?;
        let ip = Ipv4Packet::new_unchecked(data);
        if length < 20 {
            out!(self, "truncated-ip {length}");
            return Ok(());
        }
        let hlen = ip.header_len() as u32;
        if hlen < 20 {
            out!(self, "bad-hlen {hlen}");
            return Ok(());
        }
        let len = ip.total_len() as u32;
        if len > length {
            out!(self, "truncated-ip - {} bytes missing! ", len - length);
        }
        if len < hlen {
            out!(self, "bad-len {len}");
            return Ok(());
        }
        let visible = head(data, len.min(length) as usize);
        let payload = tail(visible, hlen as usize);
        let nh = ip.protocol().0;
        let (src_a, dst_a) = (ip.src_addr(), ip.dst_addr());
        let (src, dst) = (self.host4(src_a), self.host4(dst_a));
        if self.opts.verbose > 0 && self.ipv4_fields(visible, hlen as usize, len)? {
            out!(self, "{src} > {dst}: ");
            return Err(Trunc);
        }
        let len = len - hlen;
        let ctx = IpCtx {
            addrs: IpAddrs::V4(src_a, dst_a),
            first_nh: nh,
            fragmented: ip.more_frags(),
            ttl: ip.ttl(),
            pseudo: IpAddrs::V4(
                src_a,
                ipv4_final_dst(visible, hlen as usize).unwrap_or(dst_a),
            ),
        };
        if ip.frag_offset_units() == 0 {
            if !matches!(nh, 6 | 17 | 132 | 33) {
                out!(self, "{src} > {dst}: ");
            }
            self.ip_demux(payload, len, &ctx, nh)
        } else {
            let proto = self.proto_name(nh);
            out!(self, "{src} > {dst}: {proto}");
            Ok(())
        }
    }

    /// The parenthesis `tcpdump -v` prints after `IP `, up to the line break;
    /// `h` is the datagram as far as captured and its length field allows.
    /// `Ok(true)` when an option was cut short (the caller ends the line).
    fn ipv4_fields(&mut self, h: &[u8], hlen: usize, total_len: u32) -> PResult<bool> {
        let tos = g1(h, 1)?;
        out!(self, "(tos 0x{tos:x}");
        match tos & 3 {
            1 => out!(self, ",ECT(1)"),
            2 => out!(self, ",ECT(0)"),
            3 => out!(self, ",CE"),
            _ => {}
        }
        let ttl = g1(h, 8)?;
        if ttl >= 1 {
            out!(self, ", ttl {ttl}");
        }
        let off = g2(h, 6)?;
        let flags = bit_names(
            off as u32,
            &[(0x2000, "+"), (0x4000, "DF"), (0x8000, "rsvd")],
        );
        let proto = g1(h, 9)?;
        out!(
            self,
            ", id {}, offset {}, flags [{}], proto {} ({}), length {}",
            g2(h, 4)?,
            (off & 0x1fff) as u32 * 8,
            flags,
            ipproto_name(proto).unwrap_or("unknown"),
            proto,
            total_len
        );
        let mut truncated = false;
        if hlen > 20 {
            out!(self, ", options (");
            if self.ip_options(tail(h, 20), hlen - 20).is_err() {
                out!(self, " [truncated-option]");
                truncated = true;
            }
            out!(self, ")");
        }
        if let Some(hdr) = h.get(..hlen) {
            if netsift_wire::checksum::internet(hdr) != 0 {
                let field = g2(h, 10)?;
                let should = super::cksum_shouldbe(field, netsift_wire::checksum::internet(hdr));
                out!(self, ", bad cksum {field:x} (->{should:x})!");
            }
        }
        out!(self, ")\n    ");
        Ok(truncated)
    }

    /// `ip_optprint`: the options area `cp` of `length` bytes.
    fn ip_options(&mut self, cp: &[u8], length: usize) -> PResult {
        let mut at = 0usize;
        let mut left = length;
        let mut sep = "";
        while left > 0 {
            out!(self, "{sep}");
            sep = ",";
            let code = g1(cp, at)?;
            match ip_option_name(code) {
                Some(n) => out!(self, "{n}"),
                None => out!(self, "unknown {code}"),
            }
            let olen = if code == 0 || code == 1 {
                1
            } else {
                let l = g1(cp, at + 1)? as usize;
                if l < 2 {
                    out!(self, " [bad length {l}]");
                    return Ok(());
                }
                l
            };
            if olen > left {
                out!(self, " [bad length {olen}]");
                return Ok(());
            }
            need(cp, at, olen)?;
            let o = &cp[at..at + olen];
            match code {
                0 => return Ok(()),
                68 => self.ip_opt_ts(o)?,
                7 | 137 | 131 => self.ip_opt_route(o)?,
                148 => {
                    if olen < 4 {
                        out!(self, " [bad length {olen}]");
                    } else {
                        let v = g2(o, 2)?;
                        if v != 0 {
                            out!(self, " value {v}");
                        }
                    }
                }
                _ => {}
            }
            at += olen;
            left -= olen;
        }
        Ok(())
    }

    /// `ip_printroute`: record route and source routes.
    fn ip_opt_route(&mut self, o: &[u8]) -> PResult {
        let length = o.len();
        if length < 3 {
            out!(self, " [bad length {length}]");
            return Ok(());
        }
        if (length + 1) & 3 != 0 {
            out!(self, " [bad length {length}]");
        }
        let ptr = (g1(o, 2)? as usize).wrapping_sub(1);
        if ptr < 3 || ptr.wrapping_add(1) & 3 != 0 || ptr > length + 1 {
            out!(self, " [bad ptr {}]", g1(o, 2)?);
        }
        let mut len = 3;
        while len < length {
            out!(self, " {}", gv4(o, len)?);
            if ptr > len {
                out!(self, ",");
            }
            len += 4;
        }
        Ok(())
    }

    /// `ip_printts`: the timestamp option.
    fn ip_opt_ts(&mut self, o: &[u8]) -> PResult {
        let length = o.len();
        if length < 4 {
            out!(self, "[bad length {length}]");
            return Ok(());
        }
        out!(self, " TS{{");
        let flags = g1(o, 3)?;
        // Only TSONLY (type 0) records bare timestamps.
        let hoplen = if flags & 0xf != 0 { 8 } else { 4 };
        if (length - 4) & (hoplen - 1) != 0 {
            out!(self, "[bad length {length}]");
        }
        let ptr = (g1(o, 2)? as usize).wrapping_sub(1);
        let mut len = 0usize;
        if ptr < 4 || (ptr.wrapping_sub(4)) & (hoplen - 1) != 0 || ptr > length + 1 {
            out!(self, "[bad ptr {}]", g1(o, 2)?);
        }
        let known = match flags & 0xf {
            0 => {
                out!(self, "TSONLY");
                true
            }
            1 => {
                out!(self, "TS+ADDR");
                true
            }
            3 => {
                out!(self, "PRESPEC");
                true
            }
            t => {
                out!(self, "[bad ts type {t}]");
                false
            }
        };
        if known {
            let mut ty = " ";
            len = 4;
            while len < length {
                if ptr == len {
                    ty = " ^ ";
                }
                need(o, len, hoplen)?;
                let ts = g4(o, len + hoplen - 4)?;
                if hoplen == 8 {
                    out!(self, "{ty}{ts}@{}", gv4(o, len)?);
                } else {
                    out!(self, "{ty}{ts}@");
                }
                ty = " ";
                len += hoplen;
            }
        }
        if ptr == len {
            out!(self, " ^ ");
        }
        if flags >> 4 != 0 {
            out!(self, " [{} hops not recorded]}} ", flags >> 4);
        } else {
            out!(self, "}}");
        }
        Ok(())
    }

    /// `ip6_print`.
    pub(super) fn ipv6(&mut self, data: &[u8], length: u32) {
        let r = self.ipv6_inner(data, length);
        self.catch(r);
    }

    fn ipv6_inner(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "ip6";
        let ip6 = Ipv6Packet::new_checked(data).map_err(|_| Trunc)?;
        if !self.opts.link_header {
            out!(self, "IP6 ");
        }
        if length < 40 {
            out!(self, "truncated-ip6 {length}");
            return Ok(());
        }
        if ip6.version() != 6 {
            out!(self, "version error: {} != 6", ip6.version());
            return Ok(());
        }
        let mut payload_len = ip6.payload_len() as u32;
        let (src, dst) = (ip6.src_addr(), ip6.dst_addr());
        // `len` counts from `off`, like tcpdump's `len` from `cp`. Extension
        // headers are read up to the end of the payload (the end of the capture for
        // a jumbogram, whose length is in the hop-by-hop header); the upper layer
        // gets `len` bytes.
        let mut len: u64 = payload_len as u64 + 40;
        let mut visible = if payload_len != 0 {
            if len > length as u64 {
                out!(
                    self,
                    "truncated-ip6 - {} bytes missing!",
                    len - length as u64
                );
            }
            head(data, len.min(length as u64) as usize)
        } else {
            data
        };
        if self.opts.verbose > 0 {
            let flow = g4(data, 0)?;
            out!(self, "(");
            if flow & 0x0ff0_0000 != 0 {
                out!(self, "class 0x{:02x}, ", (flow & 0x0ff0_0000) >> 20);
            }
            if flow & 0x000f_ffff != 0 {
                out!(self, "flowlabel 0x{:05x}, ", flow & 0x000f_ffff);
            }
            let nh = ip6.next_header().0;
            out!(
                self,
                "hlim {}, next-header {} ({}) payload length: {}) ",
                ip6.hop_limit(),
                ipproto_name(nh).unwrap_or("unknown"),
                nh,
                payload_len
            );
        }
        let pseudo_dst = match ip6.next_header().0 {
            0 | 60 | 62 | 135 | 44 | 43 => ipv6_final_dst(visible).unwrap_or(dst),
            _ => dst,
        };
        let mut ctx = IpCtx {
            addrs: IpAddrs::V6(src, dst),
            first_nh: ip6.next_header().0,
            fragmented: false,
            ttl: ip6.hop_limit(),
            pseudo: IpAddrs::V6(src, pseudo_dst),
        };
        let mut nh = ip6.next_header().0;
        let mut off = 0usize;
        let mut advance = 40usize;
        let mut found_hbh = false;
        let mut steps = 0usize;
        while off < visible.len() && advance > 0 {
            steps += 1;
            if steps > MAX_EXT_HEADERS + 1 {
                out!(self, "[too many extension headers]");
                return Ok(());
            }
            if len < advance as u64 {
                return Err(Trunc);
            }
            off += advance;
            len -= advance as u64;
            let first = off == 40;
            if first && !matches!(nh, 6 | 17 | 33 | 132) {
                let (s, d) = (self.host6(src), self.host6(dst));
                out!(self, "{s} > {d}: ");
            }
            let cp = tail(visible, off);
            match nh {
                0 => {
                    if found_hbh {
                        out!(
                            self,
                            "[The Hop-by-Hop Options header was already found] (invalid)"
                        );
                        return Ok(());
                    }
                    if !first {
                        out!(self, "[The Hop-by-Hop Options header don't follow the IPv6 header] (invalid)");
                        return Ok(());
                    }
                    self.proto = "hbhopt";
                    // A missing length byte aborts the packet; a header or an
                    // option cut short is reported and the checks below still run.
                    let hl = (g1(cp, 1)? as usize + 1) * 8;
                    // Every truncation `hbhopt_process` finds is its own `goto
                    // trunc`: the marker, and no `longjmp` (`-x` leaves the
                    // link-level header out).
                    let (adv, jumbo) = match self.hbh(cp, hl, payload_len) {
                        Ok(r) => (Some(r.0), r.1),
                        Err(Trunc) => {
                            self.caught();
                            self.trunc();
                            (None, None)
                        }
                    };
                    if payload_len == 0 && jumbo.is_none() {
                        out!(
                            self,
                            "[No valid Jumbo Payload Hop-by-Hop option found] (invalid)"
                        );
                        return Ok(());
                    }
                    let Some(adv) = adv else { return Ok(()) };
                    if let Some(j) = jumbo {
                        payload_len = j;
                        let total = j as u64 + 40;
                        if total > length as u64 {
                            out!(
                                self,
                                "truncated-ip6 - {} bytes missing!",
                                total - length as u64
                            );
                        }
                        visible = head(data, total.min(length as u64) as usize);
                        len = total - 40;
                    }
                    found_hbh = true;
                    nh = g1(cp, 0)?;
                    advance = adv;
                }
                60 => {
                    self.proto = "dstopt";
                    let hl = (g1(cp, 1)? as usize + 1) * 8;
                    // As `hbhopt_process`, `dstopt_process` catches its own
                    // truncations.
                    let opts = match need(cp, 0, hl) {
                        Ok(()) => {
                            out!(self, "DSTOPT ");
                            if self.opts.verbose > 0 {
                                self.ip6_opts(&cp[2..hl], None).map(|_| ())
                            } else {
                                Ok(())
                            }
                        }
                        Err(e) => Err(e),
                    };
                    if opts.is_err() {
                        self.caught();
                        self.trunc();
                        return Ok(());
                    }
                    nh = g1(cp, 0)?;
                    advance = hl;
                }
                44 => {
                    self.proto = "frag6";
                    let offlg = g2(cp, 2)?;
                    let fragoff = offlg & 0xfff8;
                    let flen = (40u64 + payload_len as u64)
                        .wrapping_sub(off as u64)
                        .wrapping_sub(8);
                    if self.opts.verbose > 0 {
                        out!(self, "frag (0x{:08x}:{}|{})", g4(cp, 4)?, fragoff, flen);
                    } else {
                        out!(self, "frag ({}|{})", fragoff, flen);
                    }
                    if fragoff != 0 {
                        return Ok(());
                    }
                    out!(self, " ");
                    if visible.len() <= off + 8 {
                        return Ok(());
                    }
                    ctx.fragmented = true;
                    nh = g1(cp, 0)?;
                    advance = 8;
                }
                43 => {
                    self.proto = "rt6";
                    g1(cp, 0)?;
                    match self.rt6(cp) {
                        Ok(Some(adv)) => {
                            nh = g1(cp, 0)?;
                            advance = adv;
                        }
                        Ok(None) => return Ok(()),
                        Err(Trunc) => {
                            self.trunc();
                            return Ok(());
                        }
                    }
                }
                135 | 62 => {
                    self.mobility(cp);
                    return Ok(());
                }
                _ => {
                    let l = len.min(u32::MAX as u64) as u32;
                    return self.ip_demux(head(cp, l as usize), l, &ctx, nh);
                }
            }
            self.proto = "ip6";
        }
        Ok(())
    }

    /// `hbhopt_process`: prints `HBH `, validates the options; returns the header
    /// length and a valid Jumbo Payload length.
    fn hbh(&mut self, cp: &[u8], hl: usize, payload_len: u32) -> PResult<(usize, Option<u32>)> {
        need(cp, 0, hl)?;
        out!(self, "HBH ");
        let jumbo = self.ip6_opts(&cp[2..hl], Some(payload_len))?;
        Ok((hl, jumbo))
    }

    /// `ip6_opt_process`: validates (and with `-v` prints) the options of a
    /// hop-by-hop (`payload_len` given) or destination options header; returns
    /// a valid Jumbo Payload length.
    fn ip6_opts(&mut self, opts: &[u8], payload_len: Option<u32>) -> PResult<Option<u32>> {
        let v = self.opts.verbose > 0;
        let n = opts.len();
        let mut i = 0usize;
        let mut found = false;
        let mut jumbo = None;
        while i < n {
            let t = opts[i];
            let optlen = if t == 0 {
                1
            } else if i + 1 < n {
                opts[i + 1] as usize + 2
            } else {
                return Err(Trunc);
            };
            if i + optlen > n {
                return Err(Trunc);
            }
            match t {
                0 => {
                    if v {
                        out!(self, "(pad1)");
                    }
                }
                1 => {
                    if n - i < 2 {
                        out!(self, "(padn: trunc)");
                        return Err(Trunc);
                    }
                    if v {
                        out!(self, "(padn)");
                    }
                }
                5 => {
                    if n - i < 4 {
                        out!(self, "(rtalert: trunc)");
                        return Err(Trunc);
                    }
                    if opts[i + 1] != 2 {
                        out!(self, "(rtalert: invalid len {})", opts[i + 1]);
                        return Err(Trunc);
                    }
                    if v {
                        out!(self, "(rtalert: 0x{:04x}) ", g2(opts, i + 2)?);
                    }
                }
                0xc2 => {
                    if n - i < 6 {
                        out!(self, "(jumbo: trunc)");
                        return Err(Trunc);
                    }
                    if opts[i + 1] != 4 {
                        out!(self, "(jumbo: invalid len {})", opts[i + 1]);
                        return Err(Trunc);
                    }
                    let j = g4(opts, i + 2)?;
                    let verdict = if found {
                        " - already seen"
                    } else {
                        found = true;
                        match payload_len {
                            None => " - not a hop-by-hop option",
                            Some(p) if p != 0 => " - payload len != 0",
                            Some(_) if j < 65536 => " - < 65536",
                            Some(_) => {
                                jumbo = Some(j);
                                ""
                            }
                        }
                    };
                    if v {
                        out!(self, "(jumbo: {j}{verdict}) ");
                    }
                }
                0xc9 => {
                    if n - i < 18 {
                        out!(self, "(homeaddr: trunc)");
                        return Err(Trunc);
                    }
                    if opts[i + 1] < 16 {
                        out!(self, "(homeaddr: invalid len {})", opts[i + 1]);
                        return Err(Trunc);
                    }
                    if v {
                        // Sub-options after the address are not printed.
                        out!(self, "(homeaddr: {})", v6s(gv6(opts, i + 2)?));
                    }
                }
                _ => {
                    if n - i < 2 {
                        out!(self, "(type {t}: trunc)");
                        return Err(Trunc);
                    }
                    if v {
                        out!(self, "(opt_type 0x{t:02x}: len={})", opts[i + 1]);
                    }
                }
            }
            i += optlen;
        }
        if v {
            out!(self, " ");
        }
        Ok(jumbo)
    }

    /// Routing header (`rt6_print`); returns its length, or `None` when invalid.
    fn rt6(&mut self, cp: &[u8]) -> PResult<Option<usize>> {
        out!(self, "RT6");
        let len = g1(cp, 1)?;
        out!(self, " (len={len}");
        let rtype = g1(cp, 2)?;
        out!(self, ", type={rtype}");
        if rtype == 0 {
            out!(self, " [Deprecated]");
        }
        out!(self, ", segleft={}", g1(cp, 3)?);
        match rtype {
            0 | 2 => {
                let rsv = g4(cp, 4)?;
                if rsv != 0 || self.opts.verbose > 0 {
                    out!(self, ", rsv=0x{rsv:x}");
                }
                if len % 2 == 1 {
                    out!(self, " [invalid length {len}] (invalid)");
                    return Ok(None);
                }
                for i in 0..(len as usize / 2) {
                    out!(self, ", [{}]{}", i, v6s(gv6(cp, 8 + 16 * i)?));
                }
            }
            4 => {
                let last = g1(cp, 4)?;
                out!(self, ", last-entry={last}");
                let flags = g1(cp, 5)?;
                if flags != 0 || self.opts.verbose > 0 {
                    out!(self, ", flags=0x{flags:x}");
                }
                out!(self, ", tag={:x}", g2(cp, 6)?);
                if len % 2 == 1 {
                    out!(self, " (invalid length {len}) (invalid)");
                    return Ok(None);
                }
                for i in 0..=last as usize {
                    out!(self, ", [{}]{}", i, v6s(gv6(cp, 8 + 16 * i)?));
                }
            }
            _ => {
                out!(self, " (unknown type) (invalid)");
                return Ok(None);
            }
        }
        out!(self, ") ");
        Ok(Some((len as usize + 1) * 8))
    }

    /// `ip_demux_print`: the payload of an IP header with protocol `nh`.
    pub(super) fn ip_demux(&mut self, bp: &[u8], length: u32, ctx: &IpCtx, nh: u8) -> PResult {
        let mut bp = bp;
        let mut length = length;
        let mut nh = nh;
        for _ in 0..MAX_EXT_HEADERS {
            match nh {
                51 => {
                    self.proto = "ah";
                    let adv = self.ah(bp)?;
                    nh = g1(bp, 0)?;
                    if adv as u32 > length {
                        return Ok(());
                    }
                    bp = tail(bp, adv);
                    length -= adv as u32;
                    continue;
                }
                50 => {
                    self.proto = "esp";
                    out!(
                        self,
                        "ESP(spi=0x{:08x},seq=0x{:x}), length {}",
                        g4(bp, 0)?,
                        g4(bp, 4)?,
                        length
                    );
                }
                108 => {
                    self.proto = "ipcomp";
                    out!(self, "IPComp(cpi=0x{:04x})", g2(bp, 2)?);
                }
                132 => self.sctp(bp, length, ctx)?,
                33 => self.dccp(bp, length, ctx)?,
                113 => self.pgm(bp, length, ctx)?,
                6 => self.tcp(bp, length, ctx)?,
                17 => self.udp(bp, length, ctx)?,
                1 => {
                    if ctx.is_v6() {
                        out!(self, "[icmp requires IPv4] (invalid)");
                    } else {
                        self.icmp(bp, length, ctx)?;
                    }
                }
                58 => {
                    if ctx.is_v6() {
                        self.icmp6(bp, length, ctx)?;
                    } else {
                        out!(self, "[ipv6-icmp requires IPv6] (invalid)");
                    }
                }
                2 => {
                    if ctx.is_v6() {
                        out!(self, "[igmp requires IPv4] (invalid)");
                    } else {
                        self.igmp(bp, length)?;
                    }
                }
                4 => self.ipv4(bp, length),
                41 => self.ipv6(bp, length),
                47 => self.gre(bp, length)?,
                89 => self.ospf(bp, length, ctx)?,
                46 => self.rsvp(bp, length)?,
                103 => self.pim(bp, length, ctx)?,
                112 if self.opts.packet_type == Some(super::PacketType::Carp) => {
                    self.carp(bp, length, ctx.ttl)?
                }
                112 => self.vrrp(bp, length, ctx)?,
                88 => self.eigrp(bp, length)?,
                9 => self.igrp(bp, length)?,
                143 => {
                    if ctx.is_v6() {
                        self.ether(bp, length)?;
                    } else {
                        out!(self, "[ethernet requires IPv6] (invalid)");
                    }
                }
                59 => out!(self, "no next header"),
                _ => {
                    let proto = self.proto_name(nh);
                    out!(self, " {proto} {length}")
                }
            }
            return Ok(());
        }
        Ok(())
    }

    fn ah(&mut self, bp: &[u8]) -> PResult<usize> {
        out!(self, "AH");
        let ah_len = g1(bp, 1)? as usize;
        let hl = (ah_len + 2) * 4;
        out!(self, "(");
        if self.opts.verbose > 0 {
            out!(self, "length={ah_len}({hl}-bytes),");
        }
        let reserved = g2(bp, 2)?;
        if reserved != 0 {
            out!(self, "reserved=0x{reserved:x}[MustBeZero],");
        }
        out!(self, "spi=0x{:08x},", g4(bp, 4)?);
        out!(self, "seq=0x{:x},", g4(bp, 8)?);
        out!(self, "icv=0x");
        for i in 12..hl {
            out!(self, "{:02x}", g1(bp, i)?);
        }
        out!(self, "): ");
        Ok(hl)
    }

    /// `icmp_print`.
    fn icmp(&mut self, bp: &[u8], plen: u32, ctx: &IpCtx) -> PResult {
        self.proto = "icmp";
        let t = g1(bp, 0)?;
        let code = g1(bp, 1)?;
        let pkt = Icmpv4Packet::new_unchecked(bp);
        let _ = &pkt;
        let s: String = match t {
            0 | 8 => format!(
                "echo {}, id {}, seq {}",
                if t == 8 { "request" } else { "reply" },
                g2(bp, 4)?,
                g2(bp, 6)?
            ),
            3 => {
                let odst = || gv4(bp, 24).map(|a| self.host4(a));
                match code {
                    0 => format!("net {} unreachable", odst()?),
                    1 => format!("host {} unreachable", odst()?),
                    2 => format!("{} protocol {} unreachable", odst()?, g1(bp, 17)?),
                    3 => {
                        let _ = g1(bp, 17)?;
                        let ohl = (g1(bp, 8)? & 0xf) as usize * 4;
                        let dport = g2(bp, 8 + ohl + 2)?;
                        let op = g1(bp, 17)?;
                        match op {
                            6 => {
                                let port = self.tcp_port(dport);
                                format!("{} tcp port {port} unreachable", odst()?)
                            }
                            17 => {
                                let port = self.udp_port(dport);
                                format!("{} udp port {port} unreachable", odst()?)
                            }
                            _ => format!("{} protocol {} port {} unreachable", odst()?, op, dport),
                        }
                    }
                    4 => {
                        let mtu = g2(bp, 6)?;
                        if mtu != 0 {
                            format!("{} unreachable - need to frag (mtu {})", odst()?, mtu)
                        } else {
                            format!("{} unreachable - need to frag", odst()?)
                        }
                    }
                    5 => format!("{} unreachable - source route failed", odst()?),
                    6 => format!("net {} unreachable - unknown", odst()?),
                    7 => format!("host {} unreachable - unknown", odst()?),
                    8 => format!("{} unreachable - source host isolated", odst()?),
                    9 => format!("net {} unreachable - admin prohibited", odst()?),
                    10 => format!("host {} unreachable - admin prohibited", odst()?),
                    11 => format!("net {} unreachable - tos prohibited", odst()?),
                    12 => format!("host {} unreachable - tos prohibited", odst()?),
                    13 => format!("host {} unreachable - admin prohibited filter", odst()?),
                    14 => format!("host {} unreachable - host precedence violation", odst()?),
                    15 => format!("host {} unreachable - precedence cutoff", odst()?),
                    c => format!("{} unreachable - #{}", odst()?, c),
                }
            }
            5 => {
                let (d, gw) = (gv4(bp, 24)?, gv4(bp, 4)?);
                match code {
                    0 => format!("redirect {d} to net {gw}"),
                    1 => format!("redirect {d} to host {gw}"),
                    2 => format!("redirect-tos {d} to net {gw}"),
                    3 => format!("redirect-tos {d} to host {gw}"),
                    c => format!("redirect-#{c} {d} to {gw}"),
                }
            }
            9 => {
                let mut s = String::from("router advertisement");
                need(bp, 4, 4)?;
                let lifetime = g2(bp, 6)? as u32;
                s.push_str(" lifetime ");
                if lifetime < 60 {
                    s.push_str(&lifetime.to_string());
                } else if lifetime < 3600 {
                    s.push_str(&format!("{}:{:02}", lifetime / 60, lifetime % 60));
                } else {
                    s.push_str(&format!(
                        "{}:{:02}:{:02}",
                        lifetime / 3600,
                        (lifetime % 3600) / 60,
                        lifetime % 60
                    ));
                }
                let num = g1(bp, 4)?;
                s.push_str(&format!(" {num}:"));
                let size = g1(bp, 5)?;
                if size != 2 {
                    s.push_str(&format!(" [size {size}]"));
                } else {
                    for i in 0..num as usize {
                        need(bp, 8 + 8 * i, 8)?;
                        s.push_str(&format!(
                            " {{{} {}}}",
                            gv4(bp, 8 + 8 * i)?,
                            g4(bp, 12 + 8 * i)?
                        ));
                    }
                }
                s
            }
            11 => {
                need(bp, 24, 4)?;
                match code {
                    0 => "time exceeded in-transit".to_string(),
                    1 => "ip reassembly time exceeded".to_string(),
                    c => format!("time exceeded-#{c}"),
                }
            }
            12 => {
                if code != 0 {
                    format!("parameter problem - code {code}")
                } else {
                    format!("parameter problem - octet {}", g1(bp, 4)?)
                }
            }
            18 => format!("address mask is 0x{:08x}", g4(bp, 8)?),
            13 => format!("time stamp query id {} seq {}", g2(bp, 4)?, g2(bp, 6)?),
            14 => {
                need(bp, 16, 4)?;
                format!(
                    "time stamp reply id {} seq {}: org {}, recv {}, xmit {}",
                    g2(bp, 4)?,
                    g2(bp, 6)?,
                    ms_since_midnight(g4(bp, 8)?),
                    ms_since_midnight(g4(bp, 12)?),
                    ms_since_midnight(g4(bp, 16)?)
                )
            }
            4 => "source quench".to_string(),
            10 => "router solicitation".to_string(),
            15 => "information request".to_string(),
            16 => "information reply".to_string(),
            17 => "address mask request".to_string(),
            t => format!("type-#{t}"),
        };
        out!(self, "ICMP {s}, length {plen}");
        if self.opts.verbose > 0 {
            self.icmp_verbose(bp, plen, t, ctx.fragmented)?;
        }
        Ok(())
    }

    /// What `icmp_print` adds with `-v`: a wrong checksum, and the datagram an
    /// error message quotes, printed as an IP packet on a line of its own.
    fn icmp_verbose(&mut self, bp: &[u8], plen: u32, t: u8, fragmented: bool) -> PResult {
        if !fragmented {
            if let Some(msg) = bp.get(..plen as usize) {
                let sum = netsift_wire::checksum::internet(msg);
                if sum != 0 {
                    let field = g2(bp, 2)?;
                    let should = super::cksum_shouldbe(field, sum);
                    out!(self, " (wrong icmp cksum {field:x} (->{should:x})!)");
                }
            }
        }
        if matches!(t, 3 | 4 | 5 | 11 | 12) {
            out!(self, "\n\t");
            let inner = tail(bp, 8);
            let ip_len = g2(inner, 2)?;
            // tcpdump ends the quoted datagram at its own length, so that
            // extensions after it are not taken for its payload.
            self.ipv4(head(inner, ip_len as usize), ip_len as u32);
            self.proto = "icmp";
        }
        if plen > ICMP_EXTD_MINLEN && matches!(t, 3 | 11 | 12) {
            self.icmp_extensions(bp, plen)?;
        }
        Ok(())
    }

    /// RFC 4884 multi-part extensions after the 128 bytes of a quoted datagram.
    ///
    /// tcpdump's two checks on what was captured here (the extension header,
    /// `ND_TCHECK_SIZE(ext_dp)` of its 141-byte struct, and each object's
    /// header) are `goto trunc`: the marker without a `longjmp`, so `-x` still
    /// leaves the link-level header out (`Printer::caught`).
    fn icmp_extensions(&mut self, bp: &[u8], plen: u32) -> PResult {
        let at = ICMP_EXTD_MINLEN as usize;
        let hlen = plen as usize - at;
        need(bp, 0, at + 5).map_err(|_| self.caught())?;
        // A length of zero may still hide an extension; its checksum decides.
        if g1(bp, 5)? == 0 {
            if let Some(ext) = bp.get(at..plen as usize) {
                if netsift_wire::checksum::internet(ext) != 0 {
                    return Ok(());
                }
            }
        }
        let version = g1(bp, at)? >> 4;
        out!(self, "\n\tICMP Multi-Part extension v{version}");
        if version != 2 {
            out!(self, " packet not supported");
            return Ok(());
        }
        if let Some(ext) = bp.get(at..at + hlen) {
            let ok = netsift_wire::checksum::internet(ext) == 0;
            out!(
                self,
                ", checksum 0x{:04x} ({}correct), length {}",
                g2(bp, at + 2)?,
                if ok { "" } else { "in" },
                hlen
            );
        }
        let mut left = hlen.saturating_sub(4);
        let mut o = at + 4;
        while left > 4 {
            need(bp, o, 4).map_err(|_| self.caught())?;
            let olen = g2(bp, o)? as usize;
            let class = g1(bp, o + 2)?;
            let ctype = g1(bp, o + 3)?;
            let name = match class {
                1 => "MPLS Stack Entry",
                2 => "Interface Identification",
                _ => "unknown",
            };
            out!(
                self,
                "\n\t  {name} Object ({class}), Class-Type: {ctype}, length {olen}"
            );
            o += 4;
            left -= 4;
            if class == 0 || olen < 4 {
                return Ok(());
            }
            let olen = olen - 4;
            if class == 1 && ctype == 1 {
                let e = g4(bp, o)?;
                out!(self, "\n\t    label {}, tc {}", e >> 12, (e >> 9) & 7);
                if e & 0x100 != 0 {
                    out!(self, ", [S]");
                }
                out!(self, ", ttl {}", e & 0xff);
            } else {
                self.unknown_data(bp, o, olen, "\n\t    ");
            }
            if left < olen {
                break;
            }
            left -= olen;
            o += olen;
        }
        Ok(())
    }

    /// `icmp6_print` (non-verbose).
    fn icmp6(&mut self, bp: &[u8], length: u32, ctx: &IpCtx) -> PResult {
        self.proto = "icmp6";
        if length == 0 {
            out!(self, "ICMP6, length 0 (invalid)");
            return Ok(());
        }
        if self.opts.verbose > 0 && !ctx.fragmented {
            if let Some(msg) = bp.get(..length as usize) {
                self.cksum_verdict("icmp6", g2(bp, 2)?, ctx.transport_cksum(58, msg));
            }
        }
        let t = g1(bp, 0)?;
        out!(
            self,
            "ICMP6, {}",
            name_or(icmp6::name(t), || format!("unknown icmp6 type ({t})"))
        );
        if self.opts.verbose > 0
            && matches!(
                t,
                icmp6::ROUTER_SOLICIT
                    | icmp6::ROUTER_ADVERT
                    | icmp6::NEIGHBOR_ADVERT
                    | icmp6::NEIGHBOR_SOLICIT
                    | icmp6::REDIRECT
                    | icmp6::HA_DISCOVERY_REPLY
                    | icmp6::MOBILE_PREFIX_ADVERT
            )
        {
            out!(self, ", length {length}");
        }
        let code = g1(bp, 1)?;
        let oip = tail(bp, 8);
        match t {
            icmp6::DST_UNREACH => {
                let cname = match code {
                    0 => "unreachable route".to_string(),
                    1 => " unreachable prohibited".to_string(),
                    2 => "beyond scope".to_string(),
                    3 => "unreachable address".to_string(),
                    4 => "unreachable port".to_string(),
                    c => format!("unknown unreach code ({c})"),
                };
                out!(self, ", {cname}");
                match code {
                    0 | 1 | 3 => out!(self, " {}", v6s(gv6(oip, 24)?)),
                    2 => out!(
                        self,
                        " {}, source address {}",
                        v6s(gv6(oip, 24)?),
                        v6s(gv6(oip, 8)?)
                    ),
                    4 => {
                        let (prot, uh) = icmp6_upper_layer(oip).ok_or(Trunc)?;
                        let dport = g2(uh, 2)?;
                        let d = v6s(gv6(oip, 24)?);
                        match prot {
                            6 => out!(self, ", {d} tcp port {dport}"),
                            17 => out!(self, ", {d} udp port {dport}"),
                            _ => out!(self, ", {d} protocol {prot} port {dport} unreachable"),
                        }
                    }
                    _ if self.opts.verbose <= 1 => {
                        crate::dump::unknown_data(&mut self.out, "\n\t", bp, length as usize);
                        return Ok(());
                    }
                    _ => {}
                }
            }
            icmp6::PACKET_TOO_BIG => out!(self, ", mtu {}", g4(bp, 4)?),
            icmp6::TIME_EXCEEDED => match code {
                0 => out!(self, " for {}", v6s(gv6(oip, 24)?)),
                1 => out!(self, " (reassembly)"),
                c => out!(self, ", unknown code ({c})"),
            },
            icmp6::PARAM_PROBLEM => {
                need(oip, 24, 16)?;
                let ptr = g4(bp, 4)?;
                match code {
                    0 => out!(self, ", erroneous - octet {ptr}"),
                    1 => out!(self, ", next header - octet {ptr}"),
                    2 => out!(self, ", option - octet {ptr}"),
                    3 => out!(self, ", incomplete header chain - octet {ptr}"),
                    c => out!(self, ", code-#{c}"),
                }
            }
            icmp6::ECHO_REQUEST | icmp6::ECHO_REPLY => {
                out!(self, ", id {}, seq {}", g2(bp, 4)?, g2(bp, 6)?)
            }
            icmp6::MLD_QUERY => {
                if length == 24 {
                    self.mld6(bp);
                } else if length >= 28 {
                    out!(self, " v2");
                    if length < 28 {
                        out!(self, " [invalid len {length}]");
                    } else {
                        let v = self.opts.verbose > 0;
                        if v {
                            let mrc = g2(bp, 4)? as u32;
                            let mrt = if mrc < 32768 {
                                mrc
                            } else {
                                ((mrc & 0x0fff) | 0x1000) << (((mrc & 0x7000) >> 12) + 3)
                            };
                            out!(self, " [max resp delay={mrt}]");
                        }
                        out!(self, " [gaddr {}", v6s(gv6(bp, 8)?));
                        if v {
                            let (sq, qqic) = (g1(bp, 24)?, g1(bp, 25)? as u32);
                            if sq & 0x08 != 0 {
                                out!(self, " sflag");
                            }
                            if sq & 0x07 != 0 {
                                out!(self, " robustness={}", sq & 0x07);
                            }
                            let qqi = if qqic < 128 {
                                qqic
                            } else {
                                ((qqic & 0x0f) | 0x10) << (((qqic & 0x70) >> 4) + 3)
                            };
                            out!(self, " qqi={qqi}");
                        }
                        let nsrcs = g2(bp, 26)? as u32;
                        if nsrcs > 0 {
                            if length < 28 + nsrcs * 16 {
                                out!(self, " [invalid number of sources]");
                            } else if self.opts.verbose > 1 {
                                self.mcast_sources(bp, 28, nsrcs as usize, true)?;
                            } else {
                                out!(self, ", {nsrcs} source(s)");
                            }
                        }
                        out!(self, "]");
                    }
                } else {
                    out!(self, " unknown-version (len {length}) ");
                }
            }
            icmp6::MLD_REPORT | icmp6::MLD_DONE => self.mld6(bp),
            icmp6::ROUTER_SOLICIT => {
                if self.opts.verbose > 0 {
                    self.icmp6_nd_opts(bp, 8, length)?;
                }
            }
            icmp6::ROUTER_ADVERT => {
                if self.opts.verbose > 0 {
                    let f = g1(bp, 5)?;
                    let names = [
                        (0x80, "managed"),
                        (0x40, "other stateful"),
                        (0x20, "home agent"),
                        (0x02, "ipv6 only"),
                    ];
                    out!(
                        self,
                        "\n\thop limit {}, Flags [{}], pref {}, router lifetime {}s, \
                         reachable time {}ms, retrans timer {}ms",
                        g1(bp, 4)?,
                        bit_names(f as u32, &names),
                        rtpref(f),
                        g2(bp, 6)?,
                        g4(bp, 8)?,
                        g4(bp, 12)?
                    );
                    self.icmp6_nd_opts(bp, 16, length)?;
                }
            }
            icmp6::NEIGHBOR_SOLICIT => {
                out!(self, ", who has {}", v6s(gv6(bp, 8)?));
                if self.opts.verbose > 0 {
                    self.icmp6_nd_opts(bp, 24, length)?;
                }
            }
            icmp6::NEIGHBOR_ADVERT => {
                out!(self, ", tgt is {}", v6s(gv6(bp, 8)?));
                if self.opts.verbose > 0 {
                    let names = [
                        (0x8000_0000, "router"),
                        (0x4000_0000, "solicited"),
                        (0x2000_0000, "override"),
                    ];
                    out!(self, ", Flags [{}]", bit_names(g4(bp, 4)?, &names));
                    self.icmp6_nd_opts(bp, 24, length)?;
                }
            }
            icmp6::REDIRECT => {
                out!(self, ", {}", v6s(gv6(bp, 24)?));
                out!(self, " to {}", v6s(gv6(bp, 8)?));
                if self.opts.verbose > 0 {
                    self.icmp6_nd_opts(bp, 40, length)?;
                }
            }
            icmp6::INV_NEIGHBOR_SOLICIT | icmp6::INV_NEIGHBOR_ADVERT => {}
            icmp6::MLDV2_REPORT => {
                if length < 8 {
                    out!(self, " [invalid len {length}]");
                } else {
                    out!(self, ", {} group record(s)", g2(bp, 6)?);
                    if self.opts.verbose > 0 {
                        self.group_records(bp, length, true)?;
                    }
                }
            }
            icmp6::MOBILE_PREFIX_SOLICIT | icmp6::HA_DISCOVERY_REQUEST => {
                out!(self, ", id 0x{:04x}", g2(bp, 4)?)
            }
            icmp6::HA_DISCOVERY_REPLY | icmp6::MOBILE_PREFIX_ADVERT => {}
            icmp6::RPL => {
                if code & 0x80 != 0 {
                    out!(self, ", (SEC) [worktodo]");
                } else {
                    out!(self, ", (CLR)");
                    match code & 0x7f {
                        0 => out!(self, "DODAG Information Solicitation"),
                        1 => out!(self, "DODAG Information Object"),
                        2 => {
                            out!(self, "Destination Advertisement Object");
                            if self.opts.verbose > 0 {
                                self.rpl_dao(tail(bp, 4), length.saturating_sub(4))?;
                            }
                        }
                        3 => {
                            out!(self, "Destination Advertisement Object Ack");
                            if self.opts.verbose > 0 {
                                self.rpl_daoack(tail(bp, 4), length.saturating_sub(4))?;
                            }
                        }
                        _ => out!(self, "RPL message, unknown code {code}"),
                    }
                }
            }
            icmp6::ROUTER_RENUMBERING => self.icmp6_rrenum(bp),
            icmp6::NODE_INFO_QUERY | icmp6::NODE_INFO_REPLY => self.icmp6_nodeinfo(bp, length),
            _ => {
                out!(self, ", length {length}");
                if self.opts.verbose <= 1 {
                    crate::dump::unknown_data(&mut self.out, "\n\t", bp, length as usize);
                }
                return Ok(());
            }
        }
        // With -v the length went after the type name, where it was printed.
        if self.opts.verbose == 0 {
            out!(self, ", length {length}");
        }
        Ok(())
    }

    /// `icmp6_opt_print`: the neighbor discovery options from `start` on, one
    /// `\n\t  ` line each. An unknown option is dumped in hex and, with `-v`,
    /// ends the list; `-vv` dumps every option's body.
    fn icmp6_nd_opts(&mut self, bp: &[u8], start: usize, length: u32) -> PResult {
        let mut cp = start;
        let mut resid = length as i64 - start as i64;
        while cp < bp.len() {
            g1(bp, cp + 1)?;
            if resid <= 0 {
                return Ok(());
            }
            let t = g1(bp, cp)?;
            let ol = g1(bp, cp + 1)? as usize;
            if ol == 0 {
                return Err(Trunc);
            }
            let olen = ol * 8;
            need(bp, cp, olen)?;
            let o = &bp[cp..cp + olen];
            let name = match t {
                1 => "source link-address",
                2 => "destination link-address",
                3 => "prefix info",
                4 => "redirected header",
                5 => "mtu",
                25 => "rdnss",
                31 => "dnssl",
                7 => "advertisement interval",
                8 => "homeagent information",
                24 => "route info",
                _ => "unknown",
            };
            out!(self, "\n\t  {name} option ({t}), length {olen} ({ol}): ");
            match t {
                1 | 2 => {
                    let hex: Vec<String> = o[2..].iter().map(|b| format!("{b:02x}")).collect();
                    out!(self, "{}", hex.join(":"));
                }
                3 => {
                    let names = [(0x80, "onlink"), (0x40, "auto"), (0x20, "router")];
                    out!(
                        self,
                        "{}/{}{}, Flags [{}], valid time {}",
                        v6s(gv6(o, 16)?),
                        g1(o, 2)?,
                        if ol != 4 { "badlen" } else { "" },
                        bit_names(g1(o, 3)? as u32, &names),
                        nd_lifetime(g4(o, 4)?)
                    );
                    out!(self, ", pref. time {}", nd_lifetime(g4(o, 8)?));
                }
                // tcpdump dumps from the first option, not this one.
                4 => crate::dump::unknown_data(&mut self.out, "\n\t    ", tail(bp, start), olen),
                5 => out!(
                    self,
                    " {}{}",
                    g4(o, 4)?,
                    if ol != 1 { "bad option length" } else { "" }
                ),
                25 => {
                    out!(self, " lifetime {}s,", g4(o, 4)?);
                    for i in 0..(ol - 1) / 2 {
                        out!(self, " addr: {}", v6s(gv6(o, 8 + 16 * i)?));
                    }
                }
                31 => {
                    out!(self, " lifetime {}s, domain(s):", g4(o, 4)?);
                    let mut d = 8usize;
                    while d < olen && g1(o, d)? != 0 {
                        out!(self, " ");
                        d = self.fqdn(o, d)?;
                    }
                }
                7 => out!(self, " {}ms", g4(o, 4)?),
                8 => out!(self, " preference {}, lifetime {}", g2(o, 4)?, g2(o, 6)?),
                24 => {
                    let mut a = [0u8; 16];
                    match ol {
                        1 => {}
                        2 => a[..8].copy_from_slice(&o[8..16]),
                        3 => a.copy_from_slice(&o[8..24]),
                        _ => return Err(Trunc),
                    }
                    out!(
                        self,
                        " {}/{}, pref={}, lifetime={}",
                        v6s(std::net::Ipv6Addr::from(a)),
                        g1(o, 2)?,
                        rtpref(g1(o, 3)?),
                        nd_lifetime(g4(o, 4)?)
                    );
                }
                _ if self.opts.verbose <= 1 => {
                    crate::dump::unknown_data(&mut self.out, "\n\t  ", &o[2..], olen - 2);
                    return Ok(());
                }
                _ => {}
            }
            // -vv dumps every option's body after decoding it.
            if self.opts.verbose > 1 {
                crate::dump::unknown_data(&mut self.out, "\n\t    ", &o[2..], olen - 2);
            }
            cp += olen;
            resid -= olen as i64;
        }
        Ok(())
    }

    /// `rpl_dao_print` with `-v`: the DODAG of a Destination Advertisement.
    fn rpl_dao(&mut self, bp: &[u8], length: u32) -> PResult {
        let flags = g1(bp, 1)?;
        let Some(dagid) = self.rpl_dagid(bp, length, flags & 0x40 != 0, "length")? else {
            return Ok(());
        };
        out!(
            self,
            " [dagid:{dagid},seq:{},instance:{}{}{},{flags:02x}]",
            g1(bp, 3)?,
            g1(bp, 0)?,
            if flags & 0x80 != 0 { ",acK" } else { "" },
            if flags & 0x40 != 0 { ",Dagid" } else { "" }
        );
        Ok(())
    }

    /// `rpl_daoack_print` with `-v`.
    fn rpl_daoack(&mut self, bp: &[u8], length: u32) -> PResult {
        let present = g1(bp, 1)? & 0x80 != 0;
        let Some(dagid) = self.rpl_dagid(bp, length, present, "dao-length")? else {
            return Ok(());
        };
        out!(
            self,
            " [dagid:{dagid},seq:{},instance:{},status:{}]",
            g1(bp, 2)?,
            g1(bp, 0)?,
            g1(bp, 3)?
        );
        Ok(())
    }

    /// The DODAG id after the 4 fixed bytes of a DAO or DAO-ACK, `<elided>`
    /// when absent; `None` (with tcpdump's `[|what too short]`) when `length`
    /// cannot hold it.
    fn rpl_dagid(
        &mut self,
        bp: &[u8],
        length: u32,
        present: bool,
        what: &str,
    ) -> PResult<Option<String>> {
        need(bp, 0, 4)?;
        let min = if present { 20 } else { 4 };
        if present {
            need(bp, 4, 16)?;
        }
        if length < min {
            out!(self, " [|{what} too short]");
            return Ok(None);
        }
        Ok(Some(if present {
            v6s(gv6(bp, 4)?)
        } else {
            "<elided>".to_string()
        }))
    }

    /// The group records of an MLDv2 (`v6`) or IGMPv3 report, as
    /// `mldv2_report_print` and `print_igmpv3_report` show them with `-v`: the
    /// source count, not the sources.
    fn group_records(&mut self, bp: &[u8], len: u32, v6: bool) -> PResult {
        let len = len as usize;
        let alen = if v6 { 16 } else { 4 };
        let ngroups = g2(bp, 6)?;
        let mut group = 8usize;
        for _ in 0..ngroups {
            if len < group + 4 + alen {
                out!(self, " [invalid number of groups]");
                return Ok(());
            }
            let gaddr = if v6 {
                v6s(gv6(bp, group + 4)?)
            } else {
                gv4(bp, group + 4)?.to_string()
            };
            out!(self, " [gaddr {gaddr}");
            match g1(bp, group)? {
                1 => out!(self, " is_in"),
                2 => out!(self, " is_ex"),
                3 => out!(self, " to_in"),
                4 => out!(self, " to_ex"),
                5 => out!(self, " allow"),
                6 => out!(self, " block"),
                t => out!(self, "  [v{}-report-#{t}]", if v6 { 2 } else { 3 }),
            }
            let nsrcs = g2(bp, group + 2)? as usize;
            if len < group + 4 + alen + nsrcs * alen {
                out!(self, " [invalid number of sources {nsrcs}]");
                return Ok(());
            }
            if self.opts.verbose > 1 {
                self.mcast_sources(bp, group + 4 + alen, nsrcs, v6)?;
                out!(self, "]");
            } else {
                out!(self, ", {nsrcs} source(s)]");
            }
            group += 4 + alen + nsrcs * alen;
        }
        Ok(())
    }

    /// The `n` source addresses from `at` that MLDv2 and IGMPv3 list with
    /// `-vv`: ` { a b }`.
    fn mcast_sources(&mut self, bp: &[u8], at: usize, n: usize, v6: bool) -> PResult {
        out!(self, " {{");
        for j in 0..n {
            if v6 {
                out!(self, " {}", v6s(gv6(bp, at + 16 * j)?));
            } else {
                out!(self, " {}", gv4(bp, at + 4 * j)?);
            }
        }
        out!(self, " }}");
        Ok(())
    }

    fn mld6(&mut self, bp: &[u8]) {
        if bp.len() < 24 {
            return;
        }
        let delay = u16::from_be_bytes([bp[4], bp[5]]);
        let mut a = [0u8; 16];
        a.copy_from_slice(&bp[8..24]);
        out!(
            self,
            "max resp delay: {} addr: {}",
            delay,
            v6s(std::net::Ipv6Addr::from(a))
        );
    }

    /// `igmp_print`.
    fn igmp(&mut self, bp: &[u8], len: u32) -> PResult {
        self.proto = "igmp";
        if self.opts.quiet {
            out!(self, "igmp");
            return Ok(());
        }
        self.igmp_message(bp, len)?;
        if self.opts.verbose > 0 && len >= 4 {
            if let Some(msg) = bp.get(..len as usize) {
                if netsift_wire::checksum::internet(msg) != 0 {
                    out!(self, " bad igmp cksum {:x}!", g2(bp, 2)?);
                }
            }
        }
        Ok(())
    }

    /// The message part of `igmp_print`.
    fn igmp_message(&mut self, bp: &[u8], len: u32) -> PResult {
        let t = g1(bp, 0)?;
        match t {
            0x11 => {
                out!(self, "igmp query");
                if len >= 12 {
                    out!(self, " v3");
                    if !len.is_multiple_of(4) {
                        out!(self, " [invalid len {len}]");
                        return Ok(());
                    }
                    let mrc = g1(bp, 1)? as u32;
                    let mrt = if mrc < 128 {
                        mrc
                    } else {
                        ((mrc & 0x0f) | 0x10) << (((mrc & 0x70) >> 4) + 3)
                    };
                    if mrc != 100 {
                        out!(self, " [max resp time ");
                        if mrt < 600 {
                            out!(self, "{:.1}s", mrt as f64 * 0.1);
                        } else {
                            out!(self, "{}", relts(mrt / 10));
                        }
                        out!(self, "]");
                    }
                    let g = g4(bp, 4)?;
                    if g == 0 {
                        return Ok(());
                    }
                    out!(self, " [gaddr {}", Ipv4Addr::from(g));
                    let nsrcs = g2(bp, 10)? as u32;
                    if nsrcs > 0 {
                        if len < 12 + (nsrcs << 2) {
                            out!(self, " [invalid number of sources {nsrcs}]");
                        } else if self.opts.verbose > 1 {
                            self.mcast_sources(bp, 12, nsrcs as usize, false)?;
                        } else {
                            out!(self, ", {nsrcs} source(s)");
                        }
                    }
                    out!(self, "]");
                } else {
                    let mrt = g1(bp, 1)?;
                    if mrt != 0 {
                        out!(self, " v2");
                        if mrt != 100 {
                            out!(self, " [max resp time {mrt}]");
                        }
                    } else {
                        out!(self, " v1");
                    }
                    let g = g4(bp, 4)?;
                    if g != 0 {
                        out!(self, " [gaddr {}]", Ipv4Addr::from(g));
                    }
                    if len != 8 {
                        out!(self, " [len {len}]");
                    }
                }
            }
            0x12 => {
                out!(self, "igmp v1 report {}", gv4(bp, 4)?);
                if len != 8 {
                    out!(self, " [len {len}]");
                }
            }
            0x16 => out!(self, "igmp v2 report {}", gv4(bp, 4)?),
            0x22 => {
                out!(self, "igmp v3 report");
                if len < 16 || !len.is_multiple_of(4) {
                    out!(self, " [invalid len {len}]");
                } else {
                    out!(self, ", {} group record(s)", g2(bp, 6)?);
                    if self.opts.verbose > 0 {
                        self.group_records(bp, len, false)?;
                    }
                }
            }
            0x17 => out!(self, "igmp leave {}", gv4(bp, 4)?),
            0x13 => {
                out!(self, "igmp dvmrp");
                if len < 8 {
                    out!(self, " [len {len}]");
                } else {
                    self.dvmrp(bp, len)?;
                }
            }
            0x14 => {
                out!(self, "igmp pimv1");
                self.pimv1(bp, len)?;
            }
            0x1e => self.mtrace("mresp", bp, len)?,
            0x1f => self.mtrace("mtrace", bp, len)?,
            t => out!(self, "igmp-{t}"),
        }
        Ok(())
    }

    /// `gre_print`.
    fn gre(&mut self, bp: &[u8], length: u32) -> PResult {
        self.proto = "gre";
        need(bp, 0, 2)?;
        if length < 2 {
            out!(self, " (invalid)");
            return Ok(());
        }
        let flags = g2(bp, 0)?;
        let vers = flags & 7;
        out!(self, "GREv{vers}");
        let verbose = self.opts.verbose > 0;
        if verbose && vers <= 1 {
            let names = [
                (0x8000, "checksum present"),
                (0x4000, "routing present"),
                (0x2000, "key present"),
                (0x1000, "sequence# present"),
                (0x0800, "source routing present"),
                (0x0080, "ack present"),
            ];
            out!(self, ", Flags [{}]", bit_names(flags as u32, &names));
        }
        // tcpdump -v puts the payload on a line of its own.
        let demarc = if verbose { "\n\t" } else { ": " };
        let mut len = length as i64 - 2;
        let mut off = 2usize;
        macro_rules! take {
            ($n:expr) => {{
                if len < $n {
                    out!(self, " (invalid)");
                    return Ok(());
                }
                let at = off;
                off += $n;
                len -= $n;
                at
            }};
        }
        let prot = {
            if len < 2 {
                return Err(Trunc);
            }
            g2(bp, take!(2))?
        };
        match vers {
            0 => {
                if flags & 0xc000 != 0 {
                    let at = take!(2);
                    if verbose {
                        out!(self, ", sum 0x{:x}", g2(bp, at)?);
                    }
                    let at = take!(2);
                    out!(self, ", off 0x{:x}", g2(bp, at)?);
                }
                if flags & 0x2000 != 0 {
                    let at = take!(4);
                    out!(self, ", key=0x{:x}", g4(bp, at)?);
                }
                if flags & 0x1000 != 0 {
                    let at = take!(4);
                    out!(self, ", seq {}", g4(bp, at)?);
                }
                if flags & 0x4000 != 0 {
                    // Source routing entries, up to the null entry.
                    for _ in 0..64 {
                        let at = take!(4);
                        let af = g2(bp, at)?;
                        let sreoff = g1(bp, at + 2)? as usize;
                        let srelen = g1(bp, at + 3)? as usize;
                        if af == 0 && srelen == 0 {
                            break;
                        }
                        let sre = tail(bp, off);
                        let ok = match af {
                            0x0800 | 0xfffe => {
                                let (unit, asn) = if af == 0x0800 { (4, false) } else { (2, true) };
                                out!(self, ", (rtaf={}", if asn { "asn" } else { "ip" });
                                let ok = if !sreoff.is_multiple_of(unit) {
                                    out!(self, ", badoffset={sreoff}");
                                    false
                                } else if !srelen.is_multiple_of(unit) {
                                    out!(self, ", badlength={srelen}");
                                    false
                                } else if sreoff >= srelen {
                                    out!(self, ", badoff/len={sreoff}/{srelen}");
                                    false
                                } else {
                                    let mut o = 0;
                                    while o < srelen {
                                        let mark = if o == sreoff { "*" } else { "" };
                                        if asn {
                                            out!(self, " {mark}{:x}", g2(sre, o)?);
                                        } else {
                                            out!(self, " {mark}{}", gv4(sre, o)?);
                                        }
                                        o += unit;
                                    }
                                    true
                                };
                                out!(self, ")");
                                ok
                            }
                            _ => {
                                out!(self, ", (rtaf=0x{af:x})");
                                true
                            }
                        };
                        if !ok || (len as usize) < srelen {
                            out!(self, " (invalid)");
                            return Ok(());
                        }
                        off += srelen;
                        len -= srelen as i64;
                    }
                }
                self.encap_proto(prot);
                out!(self, ", length {length}{demarc}");
                let p = tail(bp, off);
                let len = len as u32;
                match prot {
                    0x0800 => self.ipv4(p, len),
                    0x86dd => self.ipv6(p, len),
                    0x8847 => self.mpls(p, len)?,
                    0x6558 => self.ether(p, len)?,
                    0x00fe => self.isoclns(p, len)?,
                    _ => out!(self, "gre-proto-0x{prot:x}"),
                }
            }
            1 => {
                if flags & 0x2000 != 0 {
                    let at = take!(4);
                    out!(self, ", call {}", g4(bp, at)? & 0xffff);
                }
                if flags & 0x1000 != 0 {
                    let at = take!(4);
                    out!(self, ", seq {}", g4(bp, at)?);
                }
                if flags & 0x0080 != 0 {
                    let at = take!(4);
                    out!(self, ", ack {}", g4(bp, at)?);
                }
                if flags & 0x1000 == 0 {
                    out!(self, ", no-payload");
                }
                self.encap_proto(prot);
                out!(self, ", length {length}");
                if flags & 0x1000 == 0 {
                    return Ok(());
                }
                out!(self, "{demarc}");
                let p = tail(bp, off);
                match prot {
                    0x880b => self.ppp(p, len as u32)?,
                    _ => out!(self, "gre-proto-0x{prot:x}"),
                }
            }
            _ => out!(self, " ERROR: unknown-version"),
        }
        Ok(())
    }

    fn ospf(&mut self, bp: &[u8], length: u32, ctx: &IpCtx) -> PResult {
        // Over IPv6 tcpdump's OSPFv3 printer runs, which names itself `ospf3`.
        self.proto = if ctx.is_v6() { "ospf3" } else { "ospf2" };
        let v = g1(bp, 0)?;
        let t = g1(bp, 1)?;
        // Over IPv4 tcpdump leaves an MD5 digest out of the length.
        let mut length = length;
        if !ctx.is_v6() && g2(bp, 14)? == 2 {
            length = length.wrapping_sub(16);
        }
        out!(self, "OSPFv{v}, ");
        let tn = match t {
            1 => "Hello".to_string(),
            2 => "Database Description".to_string(),
            3 => "LS-Request".to_string(),
            4 => "LS-Update".to_string(),
            5 => "LS-Ack".to_string(),
            t => format!("unknown packet type ({t})"),
        };
        out!(self, "{tn}, length {length}");
        if self.opts.verbose > 0 && ctx.is_v6() && (1..=5).contains(&t) {
            self.ospf6_verbose(bp, length)?;
        } else if self.opts.verbose > 0 && !ctx.is_v6() && (1..=5).contains(&t) {
            self.ospf2_verbose(bp, length)?;
        }
        Ok(())
    }

    fn pim(&mut self, bp: &[u8], length: u32, ctx: &IpCtx) -> PResult {
        self.proto = "pim";
        let vt = g1(bp, 0)?;
        let (v, t) = (vt >> 4, vt & 0xf);
        if v != 2 {
            out!(self, "PIMv{v}, length {length}");
            return Ok(());
        }
        let tn = super::pim::pimv2_type_name(t);
        if self.opts.verbose == 0 {
            out!(self, "PIMv2, {tn}, length {length}");
            return Ok(());
        }
        out!(self, "PIMv2, length {length}\n\t{tn}");
        self.pimv2_verbose(bp, length, ctx)
    }

    fn vrrp(&mut self, bp: &[u8], length: u32, ctx: &IpCtx) -> PResult {
        let ttl = ctx.ttl;
        self.proto = "vrrp";
        let vt = g1(bp, 0)?;
        let (v, t) = (vt >> 4, vt & 0xf);
        out!(self, "VRRPv{v}, ");
        match t {
            1 => out!(self, "Advertisement"),
            t => out!(self, "unknown type ({t})"),
        }
        if ttl != 255 {
            out!(self, ", (ttl {ttl})");
        }
        if !(2..=3).contains(&v) || t != 1 {
            return Ok(());
        }
        let vrid = g1(bp, 1)?;
        let prio = g1(bp, 2)?;
        out!(self, ", vrid {vrid}, prio {prio}");
        if v == 2 {
            let auth = g1(bp, 4)?;
            let an = match auth {
                0 => "none".to_string(),
                1 => "simple".to_string(),
                2 => "md5".to_string(),
                _ => "(null)".to_string(),
            };
            out!(self, ", authtype {an}");
            out!(self, ", intvl {}s, length {}", g1(bp, 5)?, length);
        } else {
            let intvl = g2(bp, 4)? & 0x0fff;
            out!(self, ", intvl {intvl}cs, length {length}");
        }
        if self.opts.verbose > 0 {
            self.vrrp_verbose(bp, length, v, ctx)?;
        }
        Ok(())
    }

    /// What `vrrp_print` adds with `-v`: a bad checksum, the addresses and a
    /// simple-text password.
    fn vrrp_verbose(&mut self, bp: &[u8], length: u32, v: u8, ctx: &IpCtx) -> PResult {
        let naddrs = g1(bp, 3)? as usize;
        if let Some(msg) = bp.get(..length as usize) {
            let bad = if v == 2 {
                netsift_wire::checksum::internet(msg) != 0
            } else {
                ctx.transport_cksum(112, msg) != 0
            };
            if bad {
                out!(self, ", (bad vrrp cksum {:x})", g2(bp, 6)?);
            }
        }
        out!(self, ", addrs");
        if naddrs > 1 {
            out!(self, "({naddrs})");
        }
        out!(self, ":");
        let mut at = 8usize;
        let mut sep = ' ';
        for _ in 0..naddrs {
            if ctx.is_v6() {
                out!(self, "{sep}{}", v6s(gv6(bp, at)?));
                at += 16;
            } else {
                out!(self, "{sep}{}", gv4(bp, at)?);
                at += 4;
            }
            sep = ',';
        }
        if v == 2 && g1(bp, 4)? == 1 {
            out!(self, " auth \"");
            self.jnp(bp, at, 8)?;
            out!(self, "\"");
        }
        Ok(())
    }
}

/// Walks the IPv6 header at the start of `b` (the packet quoted by an ICMPv6
/// error) to its TCP or UDP header, like tcpdump's `get_upperlayer`.
fn icmp6_upper_layer(b: &[u8]) -> Option<(u8, &[u8])> {
    let mut nh = *b.get(6)?;
    let mut off = 40usize;
    for _ in 0..MAX_EXT_HEADERS {
        let cp = b.get(off..)?;
        match nh {
            6 | 17 => {
                cp.get(..4)?;
                return Some((nh, cp));
            }
            0 | 60 | 43 => {
                nh = *cp.first()?;
                off += (*cp.get(1)? as usize + 1) * 8;
            }
            44 => {
                let offlg = u16::from_be_bytes([*cp.get(2)?, *cp.get(3)?]);
                if offlg & 0xfff8 != 0 {
                    return None;
                }
                nh = *cp.first()?;
                off += 8;
            }
            51 => {
                nh = *cp.first()?;
                off += (*cp.get(1)? as usize + 2) * 4;
            }
            _ => return None,
        }
    }
    None
}

/// tcpdump's `ICMP_EXTD_MINLEN`: where RFC 4884 extensions may start.
const ICMP_EXTD_MINLEN: u32 = 156 - 20;

/// `get_rtpref`: a router preference.
fn rtpref(v: u8) -> &'static str {
    ["medium", "high", "rsv", "low"][((v & 0x18) >> 3) as usize]
}

/// `get_lifetime`: seconds, or `infinity`.
fn nd_lifetime(v: u32) -> String {
    if v == u32::MAX {
        "infinity".to_string()
    } else {
        format!("{v}s")
    }
}

/// tcpdump's `ipproto_values`: the protocol names of `-v` IP headers.
pub(super) fn ipproto_name(p: u8) -> Option<&'static str> {
    Some(match p {
        0 => "Options",
        1 => "ICMP",
        2 => "IGMP",
        4 => "IPIP",
        6 => "TCP",
        8 => "EGP",
        9 => "IGRP",
        17 => "UDP",
        33 => "DCCP",
        41 => "IPv6",
        43 => "Routing",
        44 => "Fragment",
        46 => "RSVP",
        47 => "GRE",
        50 => "ESP",
        51 => "AH",
        55 => "Mobile IP",
        58 => "ICMPv6",
        62 => "Mobile IP (old)",
        88 => "EIGRP",
        89 => "OSPF",
        103 => "PIM",
        108 => "Compressed IP",
        112 => "VRRP",
        113 => "PGM",
        132 => "SCTP",
        135 => "Mobility",
        143 => "Ethernet",
        _ => return None,
    })
}

/// tcpdump's `ip_option_values`.
fn ip_option_name(code: u8) -> Option<&'static str> {
    Some(match code {
        0 => "EOL",
        1 => "NOP",
        68 => "timestamp",
        130 => "security",
        7 => "RR",
        137 => "SSRR",
        131 => "LSRR",
        148 => "RA",
        82 => "traceroute",
        _ => return None,
    })
}

/// tcpdump's `ip_finddst`: the last address of a source-route option of the
/// IPv4 header `h` (`hlen` bytes), which a transport checksum's pseudo-header
/// holds instead of the destination. `None` when there is none (or the options
/// are cut short, where tcpdump also falls back to the destination).
fn ipv4_final_dst(h: &[u8], hlen: usize) -> Option<Ipv4Addr> {
    let opts = h.get(20..hlen)?;
    let mut at = 0usize;
    while at < opts.len() {
        let t = opts[at];
        let len = match t {
            0 => break,
            1 => 1,
            _ => {
                let l = *opts.get(at + 1)? as usize;
                if l < 2 {
                    break;
                }
                l
            }
        };
        let o = opts.get(at..at + len)?;
        if (t == 137 || t == 131) && len >= 7 {
            return gv4(o, len - 4).ok();
        }
        at += len;
    }
    None
}

/// tcpdump's `ip6_finddst`: the final destination named by the first routing
/// header of the IPv6 packet `b`, for a transport checksum's pseudo-header.
fn ipv6_final_dst(b: &[u8]) -> Option<std::net::Ipv6Addr> {
    let mut nh = *b.get(6)?;
    let mut off = 40usize;
    for _ in 0..MAX_EXT_HEADERS {
        let cp = b.get(off..)?;
        match nh {
            0 | 60 | 62 | 135 => {
                nh = *cp.first()?;
                off += (*cp.get(1)? as usize + 1) * 8;
            }
            44 => {
                nh = *cp.first()?;
                off += 8;
            }
            43 => {
                let len = *cp.get(1)? as usize;
                return match cp.get(2)? {
                    0 | 2 if len.is_multiple_of(2) && len > 0 => {
                        gv6(cp, 8 + 16 * (len / 2 - 1)).ok()
                    }
                    4 if len.is_multiple_of(2) => gv6(cp, 8).ok(),
                    _ => None,
                };
            }
            _ => return None,
        }
    }
    None
}

fn ms_since_midnight(t: u32) -> String {
    let msec = t % 1000;
    let sec = t / 1000;
    let (min, sec) = (sec / 60, sec % 60);
    let (hrs, min) = (min / 60, min % 60);
    format!("{hrs:02}:{min:02}:{sec:02}.{msec:03}")
}
