//! Transport printers: TCP (with tcpdump's relative sequence numbers), UDP and the
//! port-dispatched payloads we render, SCTP (DCCP is in `dccp.rs`); and the UDP tunnels VXLAN and
//! Geneve.

use super::{g1, g2, g3, g4, head, need, out, tail, IpAddrs, IpCtx, PResult, Printer, Trunc};
use netsift_wire::geneve::GENEVE_PORT;
use netsift_wire::tcp::{option as topt, TcpFlags};
use netsift_wire::vxlan::VXLAN_PORT;

impl Printer<'_> {
    /// `tcp_print`.
    pub(super) fn tcp(&mut self, bp: &[u8], length: u32, ctx: &IpCtx) -> PResult {
        self.proto = "tcp";
        let (src, dst) = self.addr_str(&ctx.addrs);
        if bp.len() < 4 {
            out!(self, "{src} > {dst}:");
            return Err(Trunc);
        }
        let sport = g2(bp, 0)?;
        let dport = g2(bp, 2)?;
        let (sp, dp) = (self.tcp_port(sport), self.tcp_port(dport));
        if ctx.first_nh == 6 {
            out!(self, "{src}.{sp} > {dst}.{dp}: ");
        } else {
            out!(self, "{sp} > {dp}: ");
        }
        need(bp, 0, 20)?;
        let hlen = (g1(bp, 12)? >> 4) as u32 * 4;
        if hlen < 20 {
            out!(
                self,
                " tcp {} [bad hdr length {} - too short, < 20]",
                length.wrapping_sub(hlen),
                hlen
            );
            return Ok(());
        }
        let mut seq = g4(bp, 4)?;
        let mut ack = g4(bp, 8)?;
        let win = g2(bp, 14)?;
        let urp = g2(bp, 18)?;
        if self.opts.quiet {
            // tcpdump returns before recording the connection's initial
            // sequence numbers, so quiet output keeps no TCP state either.
            out!(self, "tcp {}", length.wrapping_sub(hlen));
            if hlen > length {
                out!(self, " [bad hdr length {hlen} - too long, > {length}]");
            }
            return Ok(());
        }
        let flags = g1(bp, 13)?;
        out!(self, "Flags [{}]", TcpFlags(flags));
        let (mut thseq, mut thack, mut rev) = (0u32, 0u32, false);
        if !self.opts.absolute_tcp_seq && flags & TcpFlags::ACK != 0 {
            let r = self.tcp_relative(&ctx.addrs, sport, dport, flags, seq, ack);
            seq = r.0;
            ack = r.1;
            thseq = r.2;
            thack = r.3;
            rev = r.4;
        }
        if hlen > length {
            out!(self, " [bad hdr length {hlen} - too long, > {length}]");
            return Ok(());
        }
        if self.opts.verbose > 0 && !ctx.fragmented {
            if let Some(seg) = bp.get(..length as usize) {
                let field = g2(bp, 16)?;
                out!(self, ", cksum 0x{field:04x}");
                match ctx.transport_cksum(6, seg) {
                    0 => out!(self, " (correct)"),
                    sum => out!(
                        self,
                        " (incorrect -> 0x{:04x})",
                        super::cksum_shouldbe(field, sum)
                    ),
                }
            }
        }
        let length = length - hlen;
        if self.opts.verbose > 1
            || length > 0
            || flags & (TcpFlags::SYN | TcpFlags::FIN | TcpFlags::RST) != 0
        {
            out!(self, ", seq {seq}");
            if length > 0 {
                out!(self, ":{}", seq.wrapping_add(length));
            }
        }
        if flags & TcpFlags::ACK != 0 {
            out!(self, ", ack {ack}");
        }
        out!(self, ", win {win}");
        if flags & TcpFlags::URG != 0 {
            out!(self, ", urg {urp}");
        }
        if hlen > 20 {
            let whole = bp.len() as u64 >= u64::from(hlen) + u64::from(length);
            match self.tcp_options(bp, hlen as usize, flags, rev, thseq, thack, whole) {
                Ok(true) => {}
                Ok(false) => return Ok(()),
                Err(Trunc) => {
                    // The printer already wrote the marker.
                    return Ok(());
                }
            }
        }
        out!(self, ", length {length}");
        if length == 0 {
            return Ok(());
        }
        if bp.len() < hlen as usize {
            out!(
                self,
                " [remaining caplen({}) < header length({})]",
                bp.len(),
                hlen
            );
            return Err(Trunc);
        }
        let payload = tail(bp, hlen as usize);
        if flags & TcpFlags::RST != 0 && self.opts.verbose > 0 {
            self.tcp_rst_data(payload, length);
            return Ok(());
        }
        if let Some(t) = self.opts.packet_type {
            return self.tcp_forced(t, payload, length);
        }
        let is = |p: u16| sport == p || dport == p;
        if is(23) {
            self.telnet(payload, length)?;
        } else if is(25) {
            out!(self, ": ");
            self.txtproto(payload, length, "smtp", None)?;
        } else if is(43) {
            out!(self, ": ");
            self.txtproto(payload, length, "whois", None)?;
        } else if is(179) {
            self.bgp(payload)?;
        } else if is(1723) {
            self.pptp(payload)?;
        } else if is(6379) {
            self.resp(payload, length)?;
        } else if is(22) {
            self.ssh(payload, length)?;
        } else if is(139) || is(445) || is(10288) {
            // NetBIOS, SMB, BEEP: not rendered.
        } else if is(6633) || is(6653) {
            self.openflow(payload, length)?;
        } else if is(21) {
            out!(self, ": ");
            self.txtproto(payload, length, "ftp", None)?;
        } else if is(80) || is(8080) {
            out!(self, ": ");
            self.txtproto(payload, length, "http", Some(super::app::HTTP_METHODS))?;
        } else if is(554) || is(8554) {
            out!(self, ": ");
            self.txtproto(payload, length, "rtsp", Some(super::app::RTSP_METHODS))?;
        } else if is(53) {
            self.dns(payload, length, true, false)?;
        } else if is(639) {
            // MSDP: not rendered.
        } else if is(323) {
            self.rpki_rtr(payload, length)?;
        } else if is(646) {
            self.ldp(payload, length)?;
        } else if is(2049) {
            self.nfs_tcp(payload, length, (sport, dport), ctx)?;
        }
        Ok(())
    }

    /// `print_tcp_rst_data`: the text a reset may carry (RFC 1122 4.2.2.12),
    /// at most 30 bytes of it.
    fn tcp_rst_data(&mut self, p: &[u8], length: u32) {
        const MAX_RST_DATA_LEN: usize = 30;
        let mut length = length as usize;
        out!(
            self,
            "{}",
            if p.len() >= length { " [RST" } else { " [!RST" }
        );
        if length > MAX_RST_DATA_LEN {
            length = MAX_RST_DATA_LEN;
            out!(self, "+");
        }
        out!(self, " ");
        for &c in head(p, length) {
            super::print_char(&mut self.out, c);
        }
        out!(self, "]");
    }

    /// tcpdump's relative sequence numbers: returns the printed (seq, ack), the
    /// connection's base numbers and whether the segment goes in the "reverse"
    /// direction of the canonical key.
    fn tcp_relative(
        &mut self,
        addrs: &IpAddrs,
        sport: u16,
        dport: u16,
        flags: u8,
        seq: u32,
        ack: u32,
    ) -> (u32, u32, u32, u32, bool) {
        fn step<K: std::hash::Hash + Eq>(
            map: &mut std::collections::HashMap<K, (u32, u32)>,
            key: K,
            rev: bool,
            syn: bool,
            seq: u32,
            ack: u32,
        ) -> (u32, u32, u32, u32, bool) {
            let (mut seq, mut ack) = (seq, ack);
            let entry = match map.get(&key) {
                Some(&e) if !syn => {
                    if rev {
                        seq = seq.wrapping_sub(e.1);
                        ack = ack.wrapping_sub(e.0);
                    } else {
                        seq = seq.wrapping_sub(e.0);
                        ack = ack.wrapping_sub(e.1);
                    }
                    e
                }
                _ => {
                    let e = if rev {
                        (ack.wrapping_sub(1), seq)
                    } else {
                        (seq, ack.wrapping_sub(1))
                    };
                    map.insert(key, e);
                    e
                }
            };
            (seq, ack, entry.0, entry.1, rev)
        }
        let syn = flags & TcpFlags::SYN != 0;
        match addrs {
            IpAddrs::V4(s, d) => {
                let (s, d) = (s.octets(), d.octets());
                let rev = sport > dport || (sport == dport && s > d);
                let key = if rev {
                    (d, s, (dport as u32) << 16 | sport as u32)
                } else {
                    (s, d, (sport as u32) << 16 | dport as u32)
                };
                step(&mut self.tcp.v4, key, rev, syn, seq, ack)
            }
            IpAddrs::V6(s, d) => {
                let (s, d) = (s.octets(), d.octets());
                let rev = sport > dport || (sport == dport && s > d);
                let key = if rev {
                    (d, s, (dport as u32) << 16 | sport as u32)
                } else {
                    (s, d, (sport as u32) << 16 | dport as u32)
                };
                step(&mut self.tcp.v6, key, rev, syn, seq, ack)
            }
        }
    }

    /// The options list. `Ok(true)`: continue with the length; `Ok(false)`: the
    /// printer stopped (bad option); `Err`: truncated, marker written.
    /// `whole`: the segment is captured to its end (an MD5 signature could be
    /// checked).
    #[allow(clippy::too_many_arguments)]
    fn tcp_options(
        &mut self,
        bp: &[u8],
        hlen: usize,
        flags: u8,
        rev: bool,
        thseq: u32,
        thack: u32,
        whole: bool,
    ) -> PResult<bool> {
        let mut hl = hlen - 20;
        let mut cp = 20usize;
        let mut ch: Option<char> = None;
        out!(self, ", options [");
        enum Stop {
            Bad,
            Trunc,
            Jump,
        }
        let r: Result<(), Stop> = (|| {
            while hl > 0 {
                if let Some(c) = ch {
                    self.out.push(c);
                }
                let opt = g1(bp, cp).map_err(|_| Stop::Jump)?;
                cp += 1;
                let zerolen = opt == topt::EOL || opt == topt::NOP;
                let len: usize = if zerolen {
                    1
                } else {
                    let l = g1(bp, cp).map_err(|_| Stop::Jump)? as usize;
                    cp += 1;
                    if l < 2 || l > hl {
                        return Err(Stop::Bad);
                    }
                    hl -= 1;
                    l
                };
                hl -= 1;
                let mut datalen = 0usize;
                macro_rules! lencheck {
                    ($l:expr) => {{
                        let l: usize = $l;
                        if l > hl {
                            return Err(Stop::Bad);
                        }
                        if need(bp, cp, l).is_err() {
                            return Err(Stop::Trunc);
                        }
                    }};
                }
                let name = match opt {
                    topt::EOL => "eol".to_string(),
                    topt::NOP => "nop".to_string(),
                    topt::MSS => "mss".to_string(),
                    topt::WSCALE => "wscale".to_string(),
                    topt::SACK_PERMITTED => "sackOK".to_string(),
                    topt::SACK => "sack".to_string(),
                    topt::ECHO => "echo".to_string(),
                    topt::ECHO_REPLY => "echoreply".to_string(),
                    topt::TIMESTAMP => "TS".to_string(),
                    topt::CC => "cc".to_string(),
                    topt::CC_NEW => "ccnew".to_string(),
                    topt::CC_ECHO => String::new(),
                    topt::MD5 => "md5".to_string(),
                    topt::SCPS => "scps".to_string(),
                    topt::UTO => "uto".to_string(),
                    topt::TCP_AO => "tcp-ao".to_string(),
                    topt::MPTCP => "mptcp".to_string(),
                    topt::FASTOPEN => "tfo".to_string(),
                    topt::EXPERIMENT2 => "exp".to_string(),
                    o => format!("unknown-{o}"),
                };
                self.out.push_str(&name);
                let g2s = |at: usize| g2(bp, at).unwrap_or(0);
                let g4s = |at: usize| g4(bp, at).unwrap_or(0);
                match opt {
                    topt::MSS => {
                        datalen = 2;
                        lencheck!(2);
                        out!(self, " {}", g2s(cp));
                    }
                    topt::WSCALE => {
                        datalen = 1;
                        lencheck!(1);
                        out!(self, " {}", bp[cp]);
                    }
                    topt::SACK => {
                        datalen = len - 2;
                        if !datalen.is_multiple_of(8) {
                            out!(self, " invalid sack");
                        } else {
                            out!(self, " {} ", datalen / 8);
                            let mut i = 0;
                            while i < datalen {
                                lencheck!(i + 4);
                                let mut s = g4s(cp + i);
                                lencheck!(i + 8);
                                let mut e = g4s(cp + i + 4);
                                if rev {
                                    s = s.wrapping_sub(thseq);
                                    e = e.wrapping_sub(thseq);
                                } else {
                                    s = s.wrapping_sub(thack);
                                    e = e.wrapping_sub(thack);
                                }
                                out!(self, "{{{s}:{e}}}");
                                i += 8;
                            }
                        }
                    }
                    topt::CC | topt::CC_NEW | topt::CC_ECHO | topt::ECHO | topt::ECHO_REPLY => {
                        datalen = 4;
                        lencheck!(4);
                        out!(self, " {}", g4s(cp));
                    }
                    topt::TIMESTAMP => {
                        datalen = 8;
                        lencheck!(8);
                        out!(self, " val {} ecr {}", g4s(cp), g4s(cp + 4));
                    }
                    topt::MD5 => {
                        datalen = 16;
                        lencheck!(16);
                        if whole {
                            out!(self, " shared secret not supplied with -M, can't check - ");
                        } else {
                            out!(self, " snaplen too short, can't check - ");
                        }
                        for i in 0..16 {
                            out!(self, "{:02x}", bp[cp + i]);
                        }
                    }
                    topt::SCPS => {
                        datalen = 2;
                        lencheck!(2);
                        out!(self, " cap {:02x} id {}", bp[cp], bp[cp + 1]);
                    }
                    topt::TCP_AO => {
                        datalen = len - 2;
                        if datalen < 2 {
                            out!(self, " (invalid)");
                        } else {
                            lencheck!(1);
                            out!(self, " keyid {}", bp[cp]);
                            lencheck!(2);
                            out!(self, " rnextkeyid {}", bp[cp + 1]);
                            if datalen > 2 {
                                out!(self, " mac 0x");
                                for i in 2..datalen {
                                    lencheck!(i + 1);
                                    out!(self, "{:02x}", bp[cp + i]);
                                }
                            }
                        }
                    }
                    topt::EOL | topt::NOP | topt::SACK_PERMITTED => {}
                    topt::UTO => {
                        datalen = 2;
                        lencheck!(2);
                        let mut uto = g2s(cp) as u32;
                        out!(self, " 0x{uto:x}");
                        if uto & 1 != 0 {
                            uto = (uto >> 1) * 60;
                        } else {
                            uto >>= 1;
                        }
                        out!(self, " {uto}");
                    }
                    topt::MPTCP => {
                        datalen = len - 2;
                        lencheck!(datalen);
                        self.proto = "mptcp";
                        if !self.mptcp(&bp[cp - 2..cp + datalen], flags) {
                            return Err(Stop::Bad);
                        }
                    }
                    topt::FASTOPEN => {
                        datalen = len - 2;
                        lencheck!(datalen);
                        out!(self, " ");
                        self.fastopen(&bp[cp..cp + datalen], false);
                    }
                    topt::EXPERIMENT2 => {
                        datalen = len - 2;
                        lencheck!(datalen);
                        if datalen < 2 {
                            return Err(Stop::Bad);
                        }
                        let magic = g2s(cp);
                        out!(self, "-");
                        if magic == 0xf989 {
                            self.fastopen(&bp[cp + 2..cp + datalen], true);
                        } else {
                            out!(self, "{magic:04x}");
                        }
                    }
                    _ => {
                        datalen = len - 2;
                        if datalen > 0 {
                            out!(self, " 0x");
                        }
                        for i in 0..datalen {
                            lencheck!(i + 1);
                            out!(self, "{:02x}", bp[cp + i]);
                        }
                    }
                }
                cp += datalen;
                hl -= datalen;
                let mut spec = datalen + 1;
                if !zerolen {
                    spec += 1;
                }
                if spec != len {
                    out!(self, "[len {len}]");
                }
                ch = Some(',');
                if opt == topt::EOL {
                    break;
                }
            }
            Ok(())
        })();
        match r {
            Ok(()) => {
                out!(self, "]");
                Ok(true)
            }
            Err(Stop::Bad) => {
                out!(self, "[bad opt]");
                if ch.is_some() {
                    out!(self, "]");
                }
                Ok(false)
            }
            Err(Stop::Trunc) => {
                self.trunc();
                if ch.is_some() {
                    out!(self, ">");
                }
                Err(Trunc)
            }
            Err(Stop::Jump) => {
                self.trunc();
                Err(Trunc)
            }
        }
    }

    /// `mptcp_print`: one MPTCP option (kind and length included); `false` when
    /// tcpdump reports it as a bad option.
    fn mptcp(&mut self, o: &[u8], flags: u8) -> bool {
        let len = o.len();
        if len < 3 {
            return false;
        }
        let b8 = |at: usize| -> u64 {
            o.get(at..at + 8)
                .map(|s| u64::from_be_bytes(s.try_into().unwrap_or([0; 8])))
                .unwrap_or(0)
        };
        let b4 = |at: usize| g4(o, at).unwrap_or(0);
        let b2 = |at: usize| g2(o, at).unwrap_or(0);
        let b1 = |at: usize| o.get(at).copied().unwrap_or(0);
        let sub = (o[2] >> 4).min(8);
        const NAMES: [&str; 9] = [
            "capable",
            "join",
            "dss",
            "add-addr",
            "rem-addr",
            "prio",
            "fail",
            "fast-close",
            "unknown",
        ];
        out!(self, " {} {}", len, NAMES[sub as usize]);
        let syn = flags & TcpFlags::SYN != 0;
        let ack = flags & TcpFlags::ACK != 0;
        match sub {
            0 => {
                if !(((len == 12 || len == 4) && syn) || ((len == 20 || len == 22) && ack && !syn))
                {
                    return false;
                }
                let version = o[2] & 0xf;
                if version > 1 {
                    out!(self, " Unknown Version ({version})");
                    return true;
                }
                out!(self, " v{version}");
                if b1(3) & 0x80 != 0 {
                    out!(self, " csum");
                }
                if len == 12 || len >= 20 {
                    out!(self, " {{0x{:x}", b8(4));
                    if len >= 20 {
                        out!(self, ",0x{:x}", b8(12));
                    }
                    out!(self, "}}");
                }
                true
            }
            1 => {
                if !((len == 12 && syn) || (len == 16 && syn && ack) || (len == 24 && ack)) {
                    return false;
                }
                if len != 24 {
                    if o[2] & 1 != 0 {
                        out!(self, " backup");
                    }
                    out!(self, " id {}", b1(3));
                }
                match len {
                    12 => out!(self, " token 0x{:x} nonce 0x{:x}", b4(4), b4(8)),
                    16 => out!(self, " hmac 0x{:x} nonce 0x{:x}", b8(4), b4(12)),
                    _ => {
                        out!(self, " hmac 0x");
                        for i in 0..20 {
                            out!(self, "{:02x}", b1(4 + i));
                        }
                    }
                }
                true
            }
            2 => {
                if len < 4 || syn {
                    return false;
                }
                let f = b1(3);
                if f & 0x10 != 0 {
                    out!(self, " fin");
                }
                let mut at = 4usize;
                let mut left = len - 4;
                // A data ack or sequence number: 8 bytes when `wide`, else 4.
                let num = |wide: bool, at: &mut usize, left: &mut usize| -> Option<u64> {
                    let n = if wide { 8 } else { 4 };
                    if *left < n {
                        return None;
                    }
                    let v = if wide { b8(*at) } else { b4(*at) as u64 };
                    *at += n;
                    *left -= n;
                    Some(v)
                };
                if f & 0x01 != 0 {
                    let Some(v) = num(f & 0x02 != 0, &mut at, &mut left) else {
                        return false;
                    };
                    out!(self, " ack {v}");
                }
                if f & 0x04 != 0 {
                    let Some(v) = num(f & 0x08 != 0, &mut at, &mut left) else {
                        return false;
                    };
                    out!(self, " seq {v}");
                    if left < 4 {
                        return false;
                    }
                    out!(self, " subseq {}", b4(at));
                    at += 4;
                    left -= 4;
                    if left < 2 {
                        return false;
                    }
                    out!(self, " len {}", b2(at));
                    at += 2;
                    left -= 2;
                    if left >= 2 {
                        out!(self, " csum 0x{:x}", b2(at));
                        left -= 2;
                    }
                }
                left == 0
            }
            3 => {
                if ![8, 10, 16, 18, 20, 22, 28, 30].contains(&len) {
                    return false;
                }
                let v = match o[2] & 0xf {
                    0x6 => "v0-ip6",
                    0x4 => "v0-ip4",
                    0x1 => "v1-echo",
                    0x0 => "v1",
                    _ => "[bad version/echo]",
                };
                out!(self, " {v} id {}", b1(3));
                if [8, 10, 16, 18].contains(&len) {
                    out!(self, " {}", std::net::Ipv4Addr::from(b4(4)));
                    if len == 10 || len == 18 {
                        out!(self, ":{}", b2(8));
                    }
                    if len == 16 {
                        out!(self, " hmac 0x{:x}", b8(8));
                    }
                    if len == 18 {
                        out!(self, " hmac 0x{:x}", b8(10));
                    }
                } else {
                    let a = super::gv6(o, 4).map(super::v6s).unwrap_or_default();
                    out!(self, " {a}");
                    if len == 22 || len == 30 {
                        out!(self, ":{}", b2(20));
                    }
                    if len == 28 {
                        out!(self, " hmac 0x{:x}", b8(20));
                    }
                    if len == 30 {
                        out!(self, " hmac 0x{:x}", b8(22));
                    }
                }
                true
            }
            4 => {
                if len < 4 {
                    return false;
                }
                out!(self, " id");
                for i in 0..len - 3 {
                    out!(self, " {}", b1(3 + i));
                }
                true
            }
            5 => {
                if len != 3 && len != 4 {
                    return false;
                }
                if o[2] & 1 != 0 {
                    out!(self, " backup");
                } else {
                    out!(self, " non-backup");
                }
                if len == 4 {
                    out!(self, " id {}", b1(3));
                }
                true
            }
            6 => {
                if len != 12 {
                    return false;
                }
                out!(self, " seq {}", b8(4));
                true
            }
            7 => {
                if len != 12 {
                    return false;
                }
                out!(self, " key 0x{:x}", b8(4));
                true
            }
            _ => true,
        }
    }

    fn fastopen(&mut self, data: &[u8], exp: bool) {
        if exp {
            out!(self, "tfo");
        }
        if data.is_empty() {
            out!(self, " cookiereq");
        } else if !data.len().is_multiple_of(2) || data.len() < 4 || data.len() > 16 {
            out!(self, " (invalid)");
        } else {
            out!(self, " cookie ");
            for b in data {
                out!(self, "{b:02x}");
            }
        }
    }

    pub(super) fn udp_addrs(&mut self, ctx: &IpCtx, ports: Option<(u16, u16)>) {
        let (src, dst) = self.addr_str(&ctx.addrs);
        if ctx.first_nh == 17 {
            match ports {
                None => out!(self, "{src} > {dst}: "),
                Some((s, d)) => {
                    let (s, d) = (self.udp_port(s), self.udp_port(d));
                    out!(self, "{src}.{s} > {dst}.{d}: ")
                }
            }
        } else if let Some((s, d)) = ports {
            let (s, d) = (self.udp_port(s), self.udp_port(d));
            out!(self, "{s} > {d}: ");
        }
    }

    /// `udp_print`.
    pub(super) fn udp(&mut self, bp: &[u8], length: u32, ctx: &IpCtx) -> PResult {
        self.proto = "udp";
        if bp.len() < 4 {
            self.udp_addrs(ctx, None);
            return Err(Trunc);
        }
        let sport = g2(bp, 0)?;
        let dport = g2(bp, 2)?;
        if length < 8 {
            self.udp_addrs(ctx, Some((sport, dport)));
            out!(self, " truncated-udp {length}");
            return Ok(());
        }
        if bp.len() < 6 {
            self.udp_addrs(ctx, Some((sport, dport)));
            return Err(Trunc);
        }
        let mut ulen = g2(bp, 4)? as u32;
        if ulen == 0 && length > 65535 {
            ulen = length;
        }
        if ulen < 8 {
            self.udp_addrs(ctx, Some((sport, dport)));
            out!(self, "truncated-udplength {ulen}");
            return Ok(());
        }
        let ulen = ulen - 8;
        let mut length = length - 8;
        if ulen < length {
            length = ulen;
        }
        if bp.len() < 8 {
            self.udp_addrs(ctx, Some((sport, dport)));
            return Err(Trunc);
        }
        let cp = tail(bp, 8);
        if let Some(t) = self.opts.packet_type {
            return self.udp_forced(t, cp, length, ctx, (sport, dport));
        }
        self.udp_addrs(ctx, Some((sport, dport)));
        let generic = |p: &mut Self| {
            if ulen > length && !ctx.fragmented {
                out!(p, "UDP, bad length {ulen} > {length}");
            } else {
                out!(p, "UDP, length {ulen}");
            }
        };
        // NFS over UDP (port 2049) is tested before the table, except with -q.
        if !self.opts.quiet {
            if let Some(r) = self.nfs_udp(cp, length, (sport, dport), ctx) {
                return r;
            }
        }
        // `-v` checks only IPv6's mandatory checksum; IPv4's waits for `-vv`,
        // where a zero field means the sender computed none.
        if self.opts.verbose > 0 && !ctx.fragmented {
            let field = g2(bp, 6)?;
            if ctx.is_v6() || self.opts.verbose > 1 {
                if !ctx.is_v6() && field == 0 {
                    out!(self, "[no cksum] ");
                } else if let Some(seg) = bp.get(..length as usize + 8) {
                    self.cksum_verdict("udp", field, ctx.transport_cksum(17, seg));
                }
            }
        }
        // -q keeps the checksum verdict but decodes no payload.
        if self.opts.quiet {
            generic(self);
            return Ok(());
        }
        let app = udp_port_class(sport, dport, cp);
        match app {
            UdpApp::Dns => self.dns(cp, length, false, false),
            UdpApp::Mdns => self.dns(cp, length, false, true),
            UdpApp::Bootp => self.bootp(cp, length),
            UdpApp::Ntp => self.ntp(cp, length),
            UdpApp::Syslog => self.syslog(cp, length),
            UdpApp::Rip => self.rip(cp, length),
            UdpApp::Hsrp => self.hsrp(cp, length),
            UdpApp::Bfd(port) => self.bfd(cp, length, port),
            UdpApp::NatT => self.nat_t(cp, length, ctx),
            UdpApp::Otv => self.otv(cp, length),
            UdpApp::Vxlan => self.vxlan(cp, length),
            UdpApp::Geneve => self.geneve(cp, length),
            UdpApp::Mpls => self.mpls(cp, length),
            UdpApp::Ptp => self.ptp(cp, length),
            UdpApp::BcmLi => self.bcm_li(cp, length),
            UdpApp::Dhcp6 => self.dhcp6(cp, length),
            UdpApp::Babel => self.babel(cp, length),
            UdpApp::Sflow => self.sflow(cp, length),
            UdpApp::Sip => self.txtproto(cp, length, "sip", Some(super::app::SIP_METHODS)),
            UdpApp::Lisp => self.lisp(cp, length),
            UdpApp::NotRendered if self.apps_udp(cp, length, sport, dport, ctx) => Ok(()),
            UdpApp::Ldp => self.ldp(cp, length),
            UdpApp::Lspping => self.lspping(cp, length),
            UdpApp::Radius => self.radius(cp, length),
            UdpApp::NotRendered | UdpApp::Plain => {
                generic(self);
                Ok(())
            }
        }
    }

    fn syslog(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "syslog";
        // No `<pri>`: tcpdump's nd_print_invalid.
        if g1(p, 0)? != b'<' {
            out!(self, " (invalid)");
            return Ok(());
        }
        let mut off = 1usize;
        let mut pri: u32 = 0;
        while off <= 3 {
            let c = g1(p, off)?;
            if !c.is_ascii_digit() {
                break;
            }
            pri = pri * 10 + (c - b'0') as u32;
            off += 1;
        }
        if g1(p, off)? != b'>' {
            out!(self, " (invalid)");
            return Ok(());
        }
        const FAC: [&str; 24] = [
            "kernel", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron",
            "authpriv", "ftp", "ntp", "security", "console", "cron", "local0", "local1", "local2",
            "local3", "local4", "local5", "local6", "local7",
        ];
        const SEV: [&str; 8] = [
            "emergency",
            "alert",
            "critical",
            "error",
            "warning",
            "notice",
            "info",
            "debug",
        ];
        let fac = (pri & 0x3f8) >> 3;
        let sev = pri & 7;
        let f = FAC
            .get(fac as usize)
            .map(|s| s.to_string())
            .unwrap_or_else(|| format!("unknown ({fac})"));
        if self.opts.verbose == 0 {
            out!(self, "SYSLOG {}.{}, length: {}", f, SEV[sev as usize], len);
            return Ok(());
        }
        out!(
            self,
            "SYSLOG, length: {len}\n\tFacility {f} ({fac}), Severity {} ({sev})\n\tMsg: ",
            SEV[sev as usize]
        );
        // The whole message, control characters and all, as tcpdump prints it.
        for i in off + 1..len as usize {
            super::print_char(&mut self.out, g1(p, i)?);
        }
        if self.opts.verbose > 1 {
            crate::dump::unknown_data(&mut self.out, "\n\t", p, len as usize);
        }
        Ok(())
    }

    /// RIP: version, command and length.
    fn rip(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "rip";
        // What both the capture and the length hold.
        let avail = p.len().min(len as usize);
        if avail < 4 {
            out!(self, " [|rip]");
            return Ok(());
        }
        let vers = g1(p, 1)?;
        let verbose = self.opts.verbose > 0;
        out!(self, "{}RIPv{vers}", if verbose { "\n\t" } else { "" });
        let dump = |p2: &mut Self| crate::dump::unknown_data(&mut p2.out, "\n\t", p, len as usize);
        // RFC 1058's version 0 is dumped in hex.
        if vers == 0 {
            dump(self);
            return Ok(());
        }
        let cmd = g1(p, 0)?;
        let c = match cmd {
            1 => "Request".to_string(),
            2 => "Response".to_string(),
            3 => "Trace on".to_string(),
            4 => "Trace off".to_string(),
            5 => "Poll".to_string(),
            6 => "Poll Entry".to_string(),
            c => format!("unknown command ({c})"),
        };
        out!(self, ", {c}, length: {len}");
        if !verbose {
            return Ok(());
        }
        // Trace on and unknown commands are dumped with -v; with -vv every
        // message is, after what was decoded.
        if !matches!(cmd, 1 | 2) || vers > 2 {
            if vers > 2 && matches!(cmd, 1 | 2) {
                out!(self, ", unknown version");
            }
            if self.opts.verbose > 1 || !matches!(cmd, 1..=2 | 4..=6) {
                dump(self);
            }
            return Ok(());
        }
        out!(
            self,
            ", routes: {}{}",
            len / 20,
            if vers == 2 { " or less" } else { "" }
        );
        let mut left = avail - 4;
        let mut at = 4usize;
        while left != 0 {
            let e = tail(p, at);
            let size = if vers == 1 {
                self.rip_entry_v1(e, left)?
            } else {
                self.rip_entry_v2(e, left)?
            };
            if size == 0 {
                self.trunc();
                break;
            }
            if left < size {
                out!(
                    self,
                    " [remaining entries length {left} < {size}] (invalid)"
                );
                break;
            }
            at += size;
            left -= size;
        }
        if self.opts.verbose > 1 {
            dump(self);
        }
        Ok(())
    }

    /// `rip_entry_print_v1`: returns the entry's size, 0 when cut short.
    fn rip_entry_v1(&mut self, e: &[u8], left: usize) -> PResult<usize> {
        if left < 20 || e.len() < 20 {
            return Ok(0);
        }
        let family = g2(e, 0)?;
        if family != 2 && family != 0 {
            out!(self, "\n\t AFI {}, ", bsd_af_name(family));
            crate::dump::unknown_data(&mut self.out, "\n\t  ", tail(e, 4), 16);
            return Ok(20);
        }
        // Nonzero must-be-zero fields make tcpdump dump the entry in hex.
        if g2(e, 2)? != 0 || g4(e, 8)? != 0 || g4(e, 12)? != 0 {
            crate::dump::unknown_data(&mut self.out, "\n\t  ", e, 20);
            return Ok(20);
        }
        let afi = if family == 0 { "AFI 0, " } else { "" };
        out!(
            self,
            "\n\t  {afi}{}, metric: {}",
            super::gv4(e, 4)?,
            g4(e, 16)?
        );
        Ok(20)
    }

    /// `rip_entry_print_v2`: returns the entry's size, 0 when cut short.
    fn rip_entry_v2(&mut self, e: &[u8], left: usize) -> PResult<usize> {
        if left < 4 || e.len() < 4 {
            return Ok(0);
        }
        let family = g2(e, 0)?;
        if family == 0xffff {
            let auth = g2(e, 2)?;
            let a = tail(e, 4);
            match auth {
                2 => {
                    out!(self, "\n\t  Simple Text Authentication data: ");
                    self.jnp(a, 0, 16)?;
                }
                3 => {
                    if a.len() < 16 || left - 4 < 16 {
                        return Ok(0);
                    }
                    out!(
                        self,
                        "\n\t  Auth header: Packet Len {}, Key-ID {}, Auth Data Len {}, \
                         SeqNo {}, MBZ {}, MBZ {}",
                        g2(a, 0)?,
                        g1(a, 2)?,
                        g1(a, 3)?,
                        g4(a, 4)?,
                        g4(a, 8)?,
                        g4(a, 12)?
                    );
                }
                // The rest of the packet, in hex.
                1 => {
                    out!(self, "\n\t  Auth trailer:");
                    crate::dump::unknown_data(&mut self.out, "\n\t  ", a, left - 4);
                    return Ok(left);
                }
                t => {
                    out!(self, "\n\t  Unknown ({t}) Authentication data:");
                    crate::dump::unknown_data(&mut self.out, "\n\t  ", a, left - 4);
                    return Ok(left);
                }
            }
        } else if family != 2 && family != 0 {
            out!(self, "\n\t  AFI {}", bsd_af_name(family));
            crate::dump::unknown_data(&mut self.out, "\n\t  ", tail(e, 4), 16);
        } else {
            if e.len() < 20 || left < 20 {
                return Ok(0);
            }
            let afi = if family == 0 { "0" } else { "IPv4" };
            out!(
                self,
                "\n\t  AFI {afi}, {:>15}/{:<2}, tag 0x{:04x}, metric: {}, next-hop: ",
                super::gv4(e, 4)?.to_string(),
                mask2plen(g4(e, 8)?),
                g2(e, 2)?,
                g4(e, 16)?
            );
            match g4(e, 12)? {
                0 => out!(self, "self"),
                r => out!(self, "{}", std::net::Ipv4Addr::from(r)),
            }
        }
        Ok(20)
    }

    /// HSRP version 0.
    fn hsrp(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "hsrp";
        let version = g1(p, 0)?;
        out!(self, "HSRPv{version}");
        if version != 0 {
            return Ok(());
        }
        let op = g1(p, 1)?;
        let opn = match op {
            0 => "hello".to_string(),
            1 => "coup".to_string(),
            2 => "resign".to_string(),
            o => format!("unknown ({o})"),
        };
        out!(self, "-{opn} {len}: ");
        let st = g1(p, 2)?;
        let stn = match st {
            0 => "initial".to_string(),
            1 => "learn".to_string(),
            2 => "listen".to_string(),
            4 => "speak".to_string(),
            8 => "standby".to_string(),
            16 => "active".to_string(),
            s => format!("Unknown ({s})"),
        };
        out!(self, "state={stn} ");
        out!(self, "group={} ", g1(p, 6)?);
        let rsv = g1(p, 7)?;
        if rsv != 0 {
            out!(self, "[reserved={rsv}!] ");
        }
        out!(self, "addr={}", super::gv4(p, 16)?);
        if self.opts.verbose > 0 {
            out!(
                self,
                " hellotime={} holdtime={} priority={} auth=\"",
                super::relts(g1(p, 3)? as u32),
                super::relts(g1(p, 4)? as u32),
                g1(p, 5)?
            );
            self.jnp(p, 8, 8)?;
            out!(self, "\"");
        }
        Ok(())
    }

    /// BFD control and echo packets.
    fn bfd(&mut self, p: &[u8], len: u32, port: u16) -> PResult {
        self.proto = "bfd";
        let pname = match port {
            3784 => "Control".to_string(),
            4784 => "Multihop".to_string(),
            6784 => "Lag".to_string(),
            p => format!("unknown ({p})"),
        };
        if port == 3785 {
            out!(self, "BFD, Echo, length: {len}");
            return Ok(());
        }
        let vd = g1(p, 0)?;
        let flags = g1(p, 1)?;
        let version = vd >> 5;
        if version != 1 {
            out!(self, "BFDv{version}, {pname}, length: {len}");
            return Ok(());
        }
        let state = match flags >> 6 {
            0 => "AdminDown",
            1 => "Down",
            2 => "Init",
            _ => "Up",
        };
        let mut f: Vec<&str> = Vec::new();
        for (bit, n) in [
            (0x20, "Poll"),
            (0x10, "Final"),
            (0x08, "Control Plane Independent"),
            (0x04, "Authentication Present"),
            (0x02, "Demand"),
            (0x01, "Multipoint"),
        ] {
            if flags & bit != 0 {
                f.push(n);
            }
        }
        let fl = if f.is_empty() {
            "none".to_string()
        } else {
            f.join(", ")
        };
        if self.opts.verbose == 0 {
            out!(
                self,
                "BFDv{version}, {pname}, State {state}, Flags: [{fl}], length: {len}"
            );
            return Ok(());
        }
        need(p, 0, 24)?;
        let diag = vd & 0x1f;
        let dname = match diag {
            0 => "No Diagnostic",
            1 => "Control Detection Time Expired",
            2 => "Echo Function Failed",
            3 => "Neighbor Signaled Session Down",
            4 => "Forwarding Plane Reset",
            5 => "Path Down",
            6 => "Concatenated Path Down",
            7 => "Administratively Down",
            8 => "Reverse Concatenated Path Down",
            _ => "unknown",
        };
        out!(
            self,
            "BFDv{version}, length: {len}\n\t{pname}, State {state}, Flags: [{fl}], \
             Diagnostic: {dname} (0x{diag:02x})"
        );
        let mult = g1(p, 2)? as u32;
        let tx = g4(p, 12)?;
        out!(
            self,
            "\n\tDetection Timer Multiplier: {mult} ({} ms Detection time), BFD Length: {}",
            mult.wrapping_mul(tx) / 1000,
            g1(p, 3)?
        );
        out!(
            self,
            "\n\tMy Discriminator: 0x{:08x}, Your Discriminator: 0x{:08x}",
            g4(p, 4)?,
            g4(p, 8)?
        );
        out!(self, "\n\t  Desired min Tx Interval:    {:4} ms", tx / 1000);
        out!(
            self,
            "\n\t  Required min Rx Interval:   {:4} ms",
            g4(p, 16)? / 1000
        );
        out!(
            self,
            "\n\t  Required min Echo Interval: {:4} ms",
            g4(p, 20)? / 1000
        );
        if flags & 0x04 != 0 {
            self.bfd_auth(tail(p, 24))?;
        }
        Ok(())
    }

    /// BFD's authentication section (`auth_print`).
    fn bfd_auth(&mut self, a: &[u8]) -> PResult {
        let (t, alen) = (g1(a, 0)?, g1(a, 1)?);
        let tname = match t {
            1 => "Simple Password",
            2 => "Keyed MD5",
            3 => "Meticulous Keyed MD5",
            4 => "Keyed SHA1",
            5 => "Meticulous Keyed SHA1",
            _ => "Unknown",
        };
        out!(self, "\n\tAuthentication: {tname} ({t}), length: {alen}");
        out!(self, "\n\t  Auth Key ID: {}", g1(a, 2)?);
        let (want, label, hash) = match t {
            1 => {
                if !(4..=19).contains(&alen) {
                    out!(self, "[invalid length {alen}]");
                    return Ok(());
                }
                out!(self, ", Password: ");
                for i in 0..alen as usize - 3 {
                    super::print_char(&mut self.out, g1(a, 3 + i)?);
                }
                return Ok(());
            }
            2 | 3 => (24, "Digest", 16),
            4 | 5 => (28, "Hash", 20),
            _ => return Ok(()),
        };
        if alen != want {
            out!(self, "[invalid length {alen}]");
            return Ok(());
        }
        out!(self, ", Sequence Number: 0x{:08x}", g4(a, 4)?);
        need(a, 8, hash)?;
        out!(self, "\n\t  {label}: ");
        for b in &a[8..8 + hash] {
            out!(self, "{b:02x}");
        }
        Ok(())
    }

    /// UDP port 4500: NAT-traversal keep-alives, IKE, or ESP (RFC 3948).
    fn nat_t(&mut self, p: &[u8], len: u32, ctx: &IpCtx) -> PResult {
        self.proto = "isakmp_rfc3948";
        if len == 1 && g1(p, 0)? == 0xff {
            out!(self, "isakmp-nat-keep-alive");
            return Ok(());
        }
        if len < 4 {
            return Err(Trunc);
        }
        if g4(p, 0)? == 0 {
            out!(self, "NONESP-encap: ");
            return self.isakmp(tail(p, 4), len - 4, ctx);
        }
        out!(self, "UDP-encap: ");
        self.proto = "esp";
        out!(
            self,
            "ESP(spi=0x{:08x},seq=0x{:x}), length {}",
            g4(p, 0)?,
            g4(p, 4)?,
            len
        );
        Ok(())
    }

    fn otv(&mut self, bp: &[u8], length: u32) -> PResult {
        self.proto = "otv";
        if length < 8 {
            out!(self, "OTV [length {length} < 8] (invalid)");
            return Ok(());
        }
        let flags = g1(bp, 0)?;
        out!(
            self,
            "OTV, flags [{}] (0x{:02x}), ",
            if flags & 0x08 != 0 { "I" } else { "." },
            flags
        );
        out!(self, "overlay {}, ", g3(bp, 1)?);
        // tcpdump ends the line after the header: the inner frame has its own.
        out!(self, "instance {}\n", g3(bp, 4)?);
        self.ether(tail(bp, 8), length - 8)
    }

    pub(super) fn vxlan(&mut self, bp: &[u8], length: u32) -> PResult {
        self.proto = "vxlan";
        // 4.99.3 checks the length without saying it (later versions do).
        if length < 8 {
            out!(self, "VXLAN (invalid)");
            return Ok(());
        }
        out!(self, "VXLAN, ");
        let flags = g1(bp, 0)?;
        // `bittok2str_nosep(vxlan_flags, "invalid", flags)`: the I bit, or
        // "invalid" without it.
        out!(
            self,
            "flags [{}] (0x{:02x}), ",
            if flags & 0x08 != 0 { "I" } else { "invalid" },
            flags
        );
        let vni = g3(bp, 4)?;
        // tcpdump ends the line after the header: the inner frame has its own.
        out!(self, "vni {vni}\n");
        self.ether(tail(bp, 8), length - 8)
    }

    fn geneve(&mut self, bp: &[u8], length: u32) -> PResult {
        self.proto = "geneve";
        out!(self, "Geneve");
        need(bp, 0, 8)?;
        let vo = g1(bp, 0)?;
        let version = vo >> 6;
        if version != 0 {
            out!(self, " ERROR: unknown-version {version}");
            return Ok(());
        }
        let flags = g1(bp, 1)?;
        let prot = g2(bp, 2)?;
        let vni = g3(bp, 4)?;
        let reserved = g1(bp, 7)?;
        let mut fl = String::new();
        if flags & 0x80 != 0 {
            fl.push('O');
        }
        if flags & 0x40 != 0 {
            fl.push('C');
        }
        if fl.is_empty() {
            fl.push_str("none");
        }
        out!(self, ", Flags [{fl}], vni 0x{vni:x}");
        if reserved != 0 {
            out!(self, ", rsvd 0x{reserved:x}");
        }
        self.encap_proto(prot);
        let opts_len = (vo & 0x3f) as u32 * 4;
        let len = length.saturating_sub(8);
        if len < opts_len {
            out!(self, " truncated-geneve - {} bytes missing", opts_len - len);
            return Ok(());
        }
        need(bp, 8, opts_len as usize)?;
        if opts_len > 0 {
            out!(self, ", options [");
            if self.opts.verbose > 0 {
                self.geneve_opts(&bp[8..8 + opts_len as usize])?;
            } else {
                out!(self, "{opts_len} bytes");
            }
            out!(self, "]");
        }
        out!(
            self,
            "{}",
            if self.opts.verbose > 0 { "\n\t" } else { ": " }
        );
        let p = tail(bp, 8 + opts_len as usize);
        let len = len - opts_len;
        if !self.ethertype(prot, p, len, None)? {
            if prot == 0x6558 {
                self.ether(p, len)?;
            } else {
                out!(self, "geneve-proto-0x{prot:x}");
            }
        }
        Ok(())
    }

    /// `geneve_opts_print` with `-v`: class, type and length of each option.
    fn geneve_opts(&mut self, o: &[u8]) -> PResult {
        let mut at = 0usize;
        let mut sep = "";
        while at < o.len() {
            out!(self, "{sep}");
            sep = ", ";
            let class = g2(o, at)?;
            let t = g1(o, at + 2)?;
            let len = 4 + (g1(o, at + 3)? as usize & 0x1f) * 4;
            let cname = match class {
                0x0100 => "Linux",
                0x0101 => "Open vSwitch",
                0x0102 => "Open Virtual Networking (OVN)",
                0x0103 => "In-band Network Telemetry (INT)",
                0x0104 => "VMware",
                0..=0xff => "Standard",
                0xfff0.. => "Experimental",
                _ => "Unknown",
            };
            let crit = if t & 0x80 != 0 { "(C)" } else { "" };
            out!(
                self,
                "class {cname} (0x{class:x}) type 0x{t:x}{crit} len {len}"
            );
            if len > o.len() - at {
                out!(self, " [bad length]");
                return Ok(());
            }
            // -vv adds the option's data as 32-bit words.
            if self.opts.verbose > 1 && len > 4 {
                out!(self, " data");
                for i in (4..len).step_by(4) {
                    out!(self, " {:08x}", g4(o, at + i)?);
                }
            }
            at += len;
        }
        Ok(())
    }

    /// `sctp_print`; with `-vv` each chunk on a line of its own and M3UA
    /// decoded (other payloads are not dumped).
    pub(super) fn sctp(&mut self, bp: &[u8], length: u32, ctx: &IpCtx) -> PResult {
        self.proto = "sctp";
        if length < 12 {
            out!(self, "truncated-sctp - {} bytes missing!", 12 - length);
            return Ok(());
        }
        need(bp, 0, 12)?;
        let sport = g2(bp, 0)?;
        let dport = g2(bp, 2)?;
        let (src, dst) = self.addr_str(&ctx.addrs);
        out!(self, "{src}.{sport} > {dst}.{dport}: sctp");
        let forces = |p: u16| match p {
            6704 => Some("ForCES HP"),
            6705 => Some("ForCES MP"),
            6706 => Some("ForCES LP"),
            _ => None,
        };
        if let Some(n) = forces(sport) {
            out!(self, "[{n}]");
        }
        if let Some(n) = forces(dport) {
            out!(self, "[{n}]");
        }
        let mut isforces = forces(sport).is_some() || forces(dport).is_some();
        let mut remaining: u32 = length - 12;
        let mut off = 12usize;
        // With -vv each chunk starts a line of its own.
        let mut sep = if self.opts.verbose >= 2 { "\n\t" } else { " (" };
        let mut count = 0usize;
        while remaining != 0 {
            if count >= netsift_wire::sctp::MAX_SCTP_CHUNKS {
                out!(self, "{sep}{}) [too many chunks]", count + 1);
                break;
            }
            if remaining < 4 {
                out!(
                    self,
                    "{sep}{}) [chunk descriptor cut off at end of packet]",
                    count + 1
                );
                break;
            }
            need(bp, off, 4)?;
            let clen = g2(bp, off + 2)?;
            if clen < 4 {
                out!(
                    self,
                    "{sep}{}) [Bad chunk length {clen}, < size of chunk descriptor]",
                    count + 1
                );
                break;
            }
            let mut crem: u16 = clen;
            let align = (4 - clen % 4) % 4;
            if remaining < align as u32 {
                out!(
                    self,
                    "{sep}{}) [Bad chunk length {clen}, > remaining data in packet]",
                    count + 1
                );
                break;
            }
            need(bp, off, clen as usize)?;
            let id = g1(bp, off)?;
            let cflags = g1(bp, off + 1)?;
            off += 4;
            remaining = remaining.wrapping_sub(4);
            crem -= 4;
            out!(self, "{sep}{}) ", count + 1);
            out!(self, "[{}] ", sctp_chunk_name(id));
            match id {
                0 => {
                    if cflags & 4 != 0 {
                        out!(self, "(U)");
                    }
                    if cflags & 2 != 0 {
                        out!(self, "(B)");
                    }
                    if cflags & 1 != 0 {
                        out!(self, "(E)");
                    }
                    if cflags & 7 != 0 {
                        out!(self, " ");
                    }
                    if crem < 12 {
                        out!(self, "bogus chunk length {clen}]");
                        return Ok(());
                    }
                    let ppid = g4(bp, off + 8)?;
                    out!(self, "[TSN: {}] ", g4(bp, off)?);
                    out!(self, "[SID: {}] ", g2(bp, off + 4)?);
                    out!(self, "[SSEQ {}] ", g2(bp, off + 6)?);
                    match sctp_ppid_name(ppid) {
                        Some(n) => out!(self, "[PPID {n}] "),
                        None => out!(self, "[PPID 0x{ppid:x}] "),
                    }
                    off += 12;
                    remaining = remaining.wrapping_sub(12);
                    crem -= 12;
                    if crem == 0 {
                        out!(self, "bogus chunk length {clen}]");
                        return Ok(());
                    }
                    isforces |= (21..=23).contains(&ppid);
                    if isforces {
                        self.forces(tail(bp, off), crem.into())?;
                        self.proto = "sctp";
                    } else if self.opts.verbose >= 2 && ppid == 3 {
                        self.m3ua(tail(bp, off), crem.into())?;
                        self.proto = "sctp";
                    }
                    off += crem as usize;
                    remaining = remaining.wrapping_sub(crem as u32);
                    crem = 0;
                }
                1 | 2 => {
                    if crem < 16 {
                        out!(self, "bogus chunk length {clen}]");
                        return Ok(());
                    }
                    out!(self, "[init tag: {}] ", g4(bp, off)?);
                    out!(self, "[rwnd: {}] ", g4(bp, off + 4)?);
                    out!(self, "[OS: {}] ", g2(bp, off + 8)?);
                    out!(self, "[MIS: {}] ", g2(bp, off + 10)?);
                    out!(self, "[init TSN: {}] ", g4(bp, off + 12)?);
                    off += crem as usize;
                    remaining = remaining.wrapping_sub(crem as u32);
                    crem = 0;
                }
                3 => {
                    if crem < 12 {
                        out!(self, "bogus chunk length {clen}]");
                        return Ok(());
                    }
                    let cum = g4(bp, off)?;
                    let ngaps = g2(bp, off + 8)?;
                    let ndups = g2(bp, off + 10)?;
                    out!(self, "[cum ack {cum}] ");
                    out!(self, "[a_rwnd {}] ", g4(bp, off + 4)?);
                    out!(self, "[#gap acks {ngaps}] ");
                    out!(self, "[#dup tsns {ndups}] ");
                    off += 12;
                    remaining = remaining.wrapping_sub(12);
                    crem -= 12;
                    let mut i = 0u16;
                    while crem != 0 && i < ngaps {
                        if crem < 4 {
                            out!(self, "bogus chunk length {clen}]");
                            return Ok(());
                        }
                        out!(
                            self,
                            "[gap ack block #{}: start = {}, end = {}] ",
                            i + 1,
                            cum.wrapping_add(g2(bp, off)? as u32),
                            cum.wrapping_add(g2(bp, off + 2)? as u32)
                        );
                        off += 4;
                        remaining = remaining.wrapping_sub(4);
                        crem -= 4;
                        i += 1;
                    }
                    let mut i = 0u16;
                    while crem != 0 && i < ndups {
                        if crem < 4 {
                            out!(self, "bogus chunk length {clen}]");
                            return Ok(());
                        }
                        out!(self, "[dup TSN #{}: {}] ", i + 1, g4(bp, off)?);
                        off += 4;
                        remaining = remaining.wrapping_sub(4);
                        crem -= 4;
                        i += 1;
                    }
                }
                _ => {
                    off += crem as usize;
                    remaining = remaining.wrapping_sub(crem as u32);
                    crem = 0;
                }
            }
            off += crem as usize;
            remaining = remaining.wrapping_sub(crem as u32);
            if self.opts.verbose < 2 {
                sep = ", (";
            }
            if align != 0 {
                need(bp, off, align as usize)?;
                off += align as usize;
                remaining = remaining.wrapping_sub(align as u32);
            }
            count += 1;
        }
        Ok(())
    }

    fn ntp(&mut self, bp: &[u8], length: u32) -> PResult {
        self.proto = "ntp";
        let b0 = g1(bp, 0)?;
        let version = (b0 >> 3) & 7;
        let mode = b0 & 7;
        out!(self, "NTPv{version}");
        let mname = match mode {
            0 => "unspecified",
            1 => "symmetric active",
            2 => "symmetric passive",
            3 => "Client",
            4 => "Server",
            5 => "Broadcast",
            6 => "Control Message",
            _ => "Reserved",
        };
        out!(self, ", {mname}, length {length}");
        if self.opts.verbose > 0 {
            self.ntp_verbose(bp, length, mode)?;
        }
        Ok(())
    }
}

/// What tcpdump's `udp_print` hands a datagram to, in its order of port tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum UdpApp {
    Dns,
    Mdns,
    Bootp,
    Ntp,
    Syslog,
    Rip,
    Hsrp,
    Bfd(u16),
    NatT,
    Otv,
    Vxlan,
    Geneve,
    Mpls,
    Ptp,
    BcmLi,
    Dhcp6,
    Babel,
    Sflow,
    /// SIP's first line (`sip_print`, a `txtproto_print`).
    Sip,
    Lisp,
    Ldp,
    Lspping,
    Radius,
    /// A protocol tcpdump dissects and this crate does not: `UDP, length N`.
    NotRendered,
    /// No dissector: `UDP, length N`.
    Plain,
}

fn udp_port_class(sport: u16, dport: u16, cp: &[u8]) -> UdpApp {
    use UdpApp::*;
    let is = |p: u16| sport == p || dport == p;
    let any = |ps: &[u16]| ps.iter().any(|&p| is(p));
    if is(53) {
        Dns
    } else if is(525) && !is(5353) {
        // timed comes third in tcpdump's list.
        NotRendered
    } else if any(&[67, 68]) {
        Bootp
    } else if any(&[69, 88]) {
        NotRendered
    } else if any(&[161, 162]) && !any(&[5353, 520, 4500]) {
        // SNMP, which udp_print tests after these and before NTP.
        NotRendered
    } else if is(123) {
        Ntp
    } else if any(&[137, 138]) {
        NotRendered
    } else if (dport == 3456 || any(&[2103, 2104])) && !any(&[500, 520, 654, 4500]) {
        // vat and zephyr, which udp_print tests before all below but RIP,
        // AODV and ISAKMP's.
        NotRendered
    } else if any(&[319, 320]) {
        Ptp
    } else if any(&[496, 500]) {
        NotRendered
    } else if is(514) {
        Syslog
    } else if is(520) {
        Rip
    } else if any(&[521, 525]) {
        NotRendered
    } else if any(&[546, 547]) {
        Dhcp6
    } else if is(646) {
        Ldp
    } else if any(&[654, 698, 701, 750, 921]) {
        NotRendered
    } else if is(5353) {
        Mdns
    } else if is(4500) {
        NatT
    } else if any(&[7500, 8500, 1701])
        || dport == 3456
        || any(&[2103, 2104])
        || (7000..=7009).contains(&sport)
        || (7000..=7009).contains(&dport)
        || is(5359)
    {
        NotRendered
    } else if any(&[6696, 6697]) {
        Babel
    } else if is(8231) || dport == 4567 {
        NotRendered
    } else if any(&[1645, 1812, 1646, 1813, 1700, 3799]) {
        Radius
    } else if dport == 1985 {
        Hsrp
    } else if is(3503) {
        Lspping
    } else if sport == 49152 {
        // udp_print tests BCM-LI's source port before BFD's ports.
        BcmLi
    } else if matches!(dport, 3784 | 4784 | 6784 | 3785) {
        Bfd(dport)
    } else if is(1589) {
        NotRendered
    } else if is(6343) {
        Sflow
    } else if dport == 12223 || sport == 12223 || is(12222) {
        NotRendered
    } else if is(5060) {
        Sip
    } else if is(8472) {
        Otv
    } else if is(VXLAN_PORT) {
        Vxlan
    } else if dport == GENEVE_PORT {
        Geneve
    } else if is(4342) {
        Lisp
    } else if any(&[4790, 17754]) {
        NotRendered
    } else if is(6635) {
        Mpls
    } else if (cp.get(2) == Some(&2) && (atalk_port(sport) || atalk_port(dport))) || is(30490) {
        // AppleTalk in UDP, SOME/IP.
        NotRendered
    } else {
        Plain
    }
}

/// tcpdump's `bsd_af_values`, with its `Unknown (N)` fallback.
fn bsd_af_name(af: u16) -> String {
    match af {
        2 => "IPv4".to_string(),
        6 => "NS".to_string(),
        7 => "ISO".to_string(),
        16 => "Appletalk".to_string(),
        23 => "IPX".to_string(),
        24 | 28 | 30 => "IPv6".to_string(),
        a => format!("Unknown ({a})"),
    }
}

/// tcpdump's `mask2plen`: the prefix length of a contiguous netmask, or -1.
pub(super) fn mask2plen(mask: u32) -> i32 {
    match mask.leading_ones() {
        n if mask.checked_shl(n).unwrap_or(0) == 0 => n as i32,
        _ => -1,
    }
}

pub(super) fn atalk_port(p: u16) -> bool {
    (16512..16640).contains(&p) || (200..328).contains(&p) || (768..896).contains(&p)
}

fn sctp_chunk_name(id: u8) -> String {
    match netsift_wire::sctp::chunk::name(id) {
        Some(n) => n.to_string(),
        None => format!("Unknown chunk type: 0x{id:x}"),
    }
}

fn sctp_ppid_name(ppid: u32) -> Option<&'static str> {
    Some(match ppid {
        1 => "ISDN Q.921",
        2 => "M2UA",
        3 => "M3UA",
        4 => "SUA",
        5 => "M2PA",
        6 => "V5.2",
        7 => "H.248",
        8 => "BICC",
        9 => "TALI",
        10 => "DUA",
        11 => "ASAP",
        12 => "ENRP",
        13 => "H.323",
        14 => "Q.IPC",
        15 => "SIMCO",
        16 => "DDPSC",
        17 => "DDPSSC",
        18 => "S1AP",
        19 => "RUA",
        20 => "HNBAP",
        21 => "ForCES HP",
        22 => "ForCES MP",
        23 => "ForCES LP",
        24 => "SBc-AP",
        25 => "NBAP",
        27 => "X2AP",
        _ => return None,
    })
}
