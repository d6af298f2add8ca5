//! Network-layer printers: IPv4, IPv6 and its extension headers, the IP protocol
//! demultiplexer, and the protocols carried straight over IP that are not
//! transports: ICMP, ICMPv6, IGMP, GRE, AH/ESP, and the first line of OSPF, PIM and
//! VRRP.

use super::{
    g1, g2, g4, gv4, gv6, head, name_or, need, out, tail, v6s, IpAddrs, IpCtx, PResult, Printer,
    Trunc,
};
use crate::icmpv4::Icmpv4Packet;
use crate::icmpv6::msg_type as icmp6;
use crate::ipv4::Ipv4Packet;
use crate::ipv6::{Ipv6Packet, MAX_EXT_HEADERS};
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
        if !self.opts.link_header {
            out!(self, "IP");
        }
        let vhl = g1(data, 0)?;
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
        let len = len - hlen;
        let nh = ip.protocol().0;
        let (src, dst) = (ip.src_addr(), ip.dst_addr());
        let ctx = IpCtx {
            addrs: IpAddrs::V4(src, dst),
            first_nh: nh,
            fragmented: ip.more_frags(),
            ttl: ip.ttl(),
        };
        if ip.frag_offset_units() == 0 {
            if !matches!(nh, 6 | 17 | 132 | 33) {
                out!(self, "{src} > {dst}: ");
            }
            self.ip_demux(payload, len, &ctx, nh)
        } else {
            out!(self, "{src} > {dst}: ip-proto-{nh}");
            Ok(())
        }
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
        let mut ctx = IpCtx {
            addrs: IpAddrs::V6(src, dst),
            first_nh: ip6.next_header().0,
            fragmented: false,
            ttl: ip6.hop_limit(),
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
                out!(self, "{} > {}: ", v6s(src), v6s(dst));
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
                    let (adv, jumbo) = match self.hbh(cp, hl, payload_len) {
                        Ok(r) => (Some(r.0), r.1),
                        Err(Trunc) => {
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
                    need(cp, 0, hl)?;
                    out!(self, "DSTOPT ");
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
                    out!(self, "frag ({}|{})", fragoff, flen);
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
                    self.proto = "mobility";
                    let mh = g1(cp, 2)?;
                    out!(self, "mobility: {}", mobility_name(mh));
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
        let opts = &cp[2..hl];
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
                0 => {}
                1 => {
                    if n - i < 2 {
                        out!(self, "(padn: trunc)");
                        return Err(Trunc);
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
                    if !found {
                        found = true;
                        if payload_len == 0 && j >= 65536 {
                            jumbo = Some(j);
                        }
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
                }
                _ => {
                    if n - i < 2 {
                        out!(self, "(type {t}: trunc)");
                        return Err(Trunc);
                    }
                }
            }
            i += optlen;
        }
        Ok((hl, jumbo))
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
                if rsv != 0 {
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
                if flags != 0 {
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
                        self.icmp6(bp, length)?;
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
                103 => self.pim(bp, length)?,
                112 => self.vrrp(bp, length, ctx.ttl)?,
                88 => {
                    self.proto = "eigrp";
                    let op = g1(bp, 1)?;
                    out!(self, "EIGRP {}, length: {}", eigrp_op(op), length);
                }
                143 => {
                    if ctx.is_v6() {
                        self.ether(bp, length)?;
                    } else {
                        out!(self, "[ethernet requires IPv6] (invalid)");
                    }
                }
                59 => out!(self, "no next header"),
                _ => out!(self, " ip-proto-{nh} {length}"),
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
    fn icmp(&mut self, bp: &[u8], plen: u32, _ctx: &IpCtx) -> PResult {
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
                let odst = || gv4(bp, 24);
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
                            6 => format!("{} tcp port {} unreachable", odst()?, dport),
                            17 => format!("{} udp port {} unreachable", odst()?, dport),
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
        Ok(())
    }

    /// `icmp6_print` (non-verbose).
    fn icmp6(&mut self, bp: &[u8], length: u32) -> PResult {
        self.proto = "icmp6";
        if length == 0 {
            out!(self, "ICMP6, length 0 (invalid)");
            return Ok(());
        }
        let t = g1(bp, 0)?;
        out!(
            self,
            "ICMP6, {}",
            name_or(icmp6::name(t), || format!("unknown icmp6 type ({t})"))
        );
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
                    _ => return Ok(()),
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
                        out!(self, " [gaddr {}", v6s(gv6(bp, 8)?));
                        let nsrcs = g2(bp, 26)? as u32;
                        if nsrcs > 0 {
                            if length < 28 + nsrcs * 16 {
                                out!(self, " [invalid number of sources]");
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
            icmp6::ROUTER_SOLICIT | icmp6::ROUTER_ADVERT => {}
            icmp6::NEIGHBOR_SOLICIT => out!(self, ", who has {}", v6s(gv6(bp, 8)?)),
            icmp6::NEIGHBOR_ADVERT => out!(self, ", tgt is {}", v6s(gv6(bp, 8)?)),
            icmp6::REDIRECT => {
                out!(self, ", {}", v6s(gv6(bp, 24)?));
                out!(self, " to {}", v6s(gv6(bp, 8)?));
            }
            icmp6::INV_NEIGHBOR_SOLICIT | icmp6::INV_NEIGHBOR_ADVERT => {}
            icmp6::MLDV2_REPORT => {
                if length < 8 {
                    out!(self, " [invalid len {length}]");
                } else {
                    out!(self, ", {} group record(s)", g2(bp, 6)?);
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
                        2 => out!(self, "Destination Advertisement Object"),
                        3 => out!(self, "Destination Advertisement Object Ack"),
                        _ => out!(self, "RPL message, unknown code {code}"),
                    }
                }
            }
            icmp6::ROUTER_RENUMBERING | icmp6::NODE_INFO_QUERY | icmp6::NODE_INFO_REPLY => {}
            _ => {
                out!(self, ", length {length}");
                return Ok(());
            }
        }
        out!(self, ", length {length}");
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
        let t = g1(bp, 0)?;
        match t {
            0x11 => {
                out!(self, "igmp query");
                if len >= 12 {
                    out!(self, " v3");
                    if len % 4 > 0 {
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
                if len < 8 || len % 4 > 0 {
                    out!(self, " [invalid len {len}]");
                } else {
                    out!(self, ", {} group record(s)", g2(bp, 6)?);
                }
            }
            0x17 => out!(self, "igmp leave {}", gv4(bp, 4)?),
            0x13 => {
                out!(self, "igmp dvmrp");
                if len < 8 {
                    out!(self, " [len {len}]");
                }
            }
            0x14 => out!(self, "igmp pimv1"),
            0x1e => out!(self, "mresp"),
            0x1f => out!(self, "mtrace"),
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
                    let _ = take!(2);
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
                                let ok = if sreoff % unit != 0 {
                                    out!(self, ", badoffset={sreoff}");
                                    false
                                } else if srelen % unit != 0 {
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
                if self.opts.link_header {
                    out!(
                        self,
                        ", proto {} (0x{:04x})",
                        crate::ethernet::EtherType(prot).name().unwrap_or("unknown"),
                        prot
                    );
                }
                out!(self, ", length {length}: ");
                let p = tail(bp, off);
                let len = len as u32;
                match prot {
                    0x0800 => self.ipv4(p, len),
                    0x86dd => self.ipv6(p, len),
                    0x8847 => self.mpls(p, len)?,
                    0x6558 => self.ether(p, len)?,
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
                out!(self, ", length {length}");
                if flags & 0x1000 == 0 {
                    return Ok(());
                }
                out!(self, ": ");
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
        self.proto = "ospf";
        let v = g1(bp, 0)?;
        let t = g1(bp, 1)?;
        let _ = ctx;
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
        Ok(())
    }

    fn pim(&mut self, bp: &[u8], length: u32) -> PResult {
        self.proto = "pim";
        let vt = g1(bp, 0)?;
        let (v, t) = (vt >> 4, vt & 0xf);
        if v != 2 {
            out!(self, "PIMv{v}, length {length}");
            return Ok(());
        }
        let tn = match t {
            0 => "Hello".to_string(),
            1 => "Register".to_string(),
            2 => "Register Stop".to_string(),
            3 => "Join / Prune".to_string(),
            4 => "Bootstrap".to_string(),
            5 => "Assert".to_string(),
            6 => "Graft".to_string(),
            7 => "Graft ACK".to_string(),
            8 => "Candidate RP Advertisement".to_string(),
            9 => "State Refresh".to_string(),
            10 => "DF Election".to_string(),
            11 => "ECMP Redirect".to_string(),
            t => format!("unknown ({t})"),
        };
        out!(self, "PIMv2, {tn}, length {length}");
        Ok(())
    }

    fn vrrp(&mut self, bp: &[u8], length: u32, ttl: u8) -> PResult {
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

fn ms_since_midnight(t: u32) -> String {
    let msec = t % 1000;
    let sec = t / 1000;
    let (min, sec) = (sec / 60, sec % 60);
    let (hrs, min) = (min / 60, min % 60);
    format!("{hrs:02}:{min:02}:{sec:02}.{msec:03}")
}

/// tcpdump's `unsigned_relts_print`.
pub(super) fn relts(secs: u32) -> String {
    if secs == 0 {
        return "0s".to_string();
    }
    const UNITS: [(u32, &str); 6] = [
        (31_536_000, "y"),
        (604_800, "w"),
        (86_400, "d"),
        (3_600, "h"),
        (60, "m"),
        (1, "s"),
    ];
    let mut s = String::new();
    let mut secs = secs;
    for (n, u) in UNITS {
        if secs >= n {
            s.push_str(&format!("{}{}", secs / n, u));
            secs %= n;
        }
    }
    s
}

fn eigrp_op(op: u8) -> String {
    match op {
        1 => "Update".to_string(),
        3 => "Query".to_string(),
        4 => "Reply".to_string(),
        5 => "Hello".to_string(),
        6 => "IPX SAP".to_string(),
        10 => "SIA Query".to_string(),
        11 => "SIA Reply".to_string(),
        o => format!("unknown ({o})"),
    }
}

fn mobility_name(t: u8) -> &'static str {
    match t {
        0 => "BRR",
        1 => "HoTI",
        2 => "CoTI",
        3 => "HoT",
        4 => "CoT",
        5 => "BU",
        6 => "BA",
        7 => "BE",
        _ => "type-#",
    }
}
