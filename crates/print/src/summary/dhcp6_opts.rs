//! DHCPv6's options with `-v`, as tcpdump 4.99.3's `dhcp6opt_print`
//! prints them: each ` (name ...)`, the IA options and a relayed message
//! with what they hold nested inside.

use super::{g1, g2, g4, gv6, need, out, PResult, Printer, Trunc};

/// Relayed messages and IA options nest; deeper than this a hostile packet
/// is cut short (tcpdump recurses without a bound).
const MAX_NEST: usize = 16;

/// `dh6opt_str`.
pub(super) fn opt_name(t: u16) -> String {
    let n = match t {
        1 => "client-ID",
        2 => "server-ID",
        3 => "IA_NA",
        4 => "IA_TA",
        5 => "IA_ADDR",
        6 => "option-request",
        7 => "preference",
        8 => "elapsed-time",
        9 => "relay-message",
        11 => "authentication",
        12 => "server-unicast",
        13 => "status-code",
        14 => "rapid-commit",
        15 => "user-class",
        16 => "vendor-class",
        17 => "vendor-specific-info",
        18 => "interface-ID",
        19 => "reconfigure-message",
        20 => "reconfigure-accept",
        21 => "SIP-servers-domain",
        22 => "SIP-servers-address",
        23 => "DNS-server",
        24 => "DNS-search-list",
        25 => "IA_PD",
        26 => "IA_PD-prefix",
        27 => "NIS-server",
        28 => "NIS+-server",
        29 => "NIS-domain-name",
        30 => "NIS+-domain-name",
        31 => "SNTP-servers",
        32 => "lifetime",
        33 => "BCMCS-domain-name",
        34 => "BCMCS-server",
        36 => "Geoconf-Civic",
        37 => "Remote-ID",
        38 => "Subscriber-ID",
        39 => "Client-FQDN",
        40 => "PANA-agent",
        41 => "POSIX-timezone",
        42 => "POSIX-tz-database",
        43 => "Echo-request-option",
        44 => "Lease-query",
        45 => "LQ-client-data",
        46 => "Clt-time",
        47 => "LQ-relay-data",
        48 => "LQ-client-link",
        56 => "NTP-server",
        64 => "AFTR-Name",
        112 => "MUD-URL",
        _ => return format!("opt_{t}"),
    };
    n.to_string()
}

/// `dhcp6stcode`.
fn status_name(c: u16) -> String {
    const NAMES: [&str; 11] = [
        "Success",
        "UnspecFail",
        "NoAddrsAvail",
        "NoBinding",
        "NotOnLink",
        "UseMulticast",
        "NoPrefixAvail",
        "UnknownQueryType",
        "MalformedQuery",
        "NotConfigured",
        "NotAllowed",
    ];
    match NAMES.get(usize::from(c)) {
        _ if c > 255 => "INVALID code".to_string(),
        Some(n) => (*n).to_string(),
        None => format!("code{c}"),
    }
}

impl Printer<'_> {
    /// `dhcp6_print` with `-v`: the message type, then the transaction id
    /// or the relay's addresses, and the options, in parentheses.
    pub(super) fn dhcp6_verbose(
        &mut self,
        p: &[u8],
        length: u32,
        name: &str,
        nest: usize,
    ) -> PResult {
        let ep = p.len().min(length as usize);
        let t = g1(p, 0)?;
        out!(self, " {name} (");
        if t != 12 && t != 13 {
            out!(self, "xid={:x}", g4(p, 0)? & 0x00ff_ffff);
            self.dhcp6_opts(p, 4, ep, nest)?;
        } else {
            let link = self.host6(gv6(p, 2)?);
            let peer = self.host6(gv6(p, 18)?);
            out!(self, "linkaddr={link} peeraddr={peer}");
            self.dhcp6_opts(p, 34, ep, nest)?;
        }
        self.out.push(')');
        Ok(())
    }

    /// `dhcp6opt_print`: the options of `p` from `cp` to `ep`. A
    /// truncation it finds itself ends the list with its marker and
    /// returns `Ok`; one a read finds ends the packet.
    fn dhcp6_opts(&mut self, p: &[u8], mut cp: usize, ep: usize, nest: usize) -> PResult {
        if nest > MAX_NEST {
            self.trunc();
            return Ok(());
        }
        while cp < ep {
            if ep < cp + 4 {
                self.trunc();
                return Ok(());
            }
            let optlen = usize::from(g2(p, cp + 2)?);
            if ep < cp + 4 + optlen {
                self.trunc();
                return Ok(());
            }
            let ty = g2(p, cp)?;
            out!(self, " ({}", opt_name(ty));
            if need(p, cp + 4, optlen).is_err() {
                self.trunc();
                return Ok(());
            }
            let tp = cp + 4;
            let end = tp + optlen;
            if self.dhcp6_opt(p, ty, tp, optlen, nest).is_err() {
                // tcpdump's `goto trunc` inside an option (a name cut
                // short): the marker, and the list ends.
                self.trunc();
                return Ok(());
            }
            cp = end;
        }
        Ok(())
    }

    /// One option's value (after its name) and its `)`.
    fn dhcp6_opt(&mut self, p: &[u8], ty: u16, tp: usize, optlen: usize, nest: usize) -> PResult {
        let bad = |s: &mut Self| {
            s.out.push_str(" ?)");
            Ok(())
        };
        let hex = |s: &mut Self, from: usize, to: usize| {
            for i in from..to {
                out!(s, "{:02x}", p[tp + i]);
            }
        };
        match ty {
            1 | 2 => {
                if optlen < 2 {
                    return bad(self);
                }
                match g2(p, tp)? {
                    1 if optlen >= 8 => {
                        out!(
                            self,
                            " hwaddr/time type {} time {} ",
                            g2(p, tp + 2)?,
                            g4(p, tp + 4)?
                        );
                        hex(self, 8, optlen);
                        self.out.push(')');
                    }
                    2 if optlen >= 10 => {
                        self.out.push_str(" vid ");
                        hex(self, 2, 10);
                        self.out.push(')');
                    }
                    3 if optlen >= 4 => {
                        out!(self, " hwaddr type {} ", g2(p, tp + 2)?);
                        hex(self, 4, optlen);
                        self.out.push(')');
                    }
                    1..=3 => return bad(self),
                    t => out!(self, " type {t})"),
                }
            }
            5 => {
                if optlen < 24 {
                    return bad(self);
                }
                let a = self.host6(gv6(p, tp)?);
                out!(
                    self,
                    " {a} pltime:{} vltime:{}",
                    g4(p, tp + 16)?,
                    g4(p, tp + 20)?
                );
                self.dhcp6_sub(p, tp, optlen, 24, nest)?;
            }
            6 | 43 => {
                if !optlen.is_multiple_of(2) {
                    return bad(self);
                }
                for i in (0..optlen).step_by(2) {
                    out!(self, " {}", opt_name(g2(p, tp + i)?));
                }
                self.out.push(')');
            }
            7 if optlen != 1 => return bad(self),
            7 => out!(self, " {})", g1(p, tp)?),
            8 if optlen != 2 => return bad(self),
            8 => out!(self, " {})", g2(p, tp)?),
            9 => {
                // The nested message ends with the option (tcpdump moves
                // its snapend there).
                self.out.push_str(" (");
                self.dhcp6_nested(&p[tp..tp + optlen], optlen as u32, nest + 1)?;
                self.out.push(')');
            }
            11 => self.dhcp6_auth(p, tp, optlen)?,
            14 | 20 => self.out.push(')'),
            18 | 38 => {
                self.out.push(' ');
                hex(self, 0, optlen.min(10));
                self.out.push_str("...)");
            }
            19 if optlen != 1 => return bad(self),
            19 => match g1(p, tp)? {
                5 => self.out.push_str(" for renew)"),
                11 => self.out.push_str(" for inf-req)"),
                t => out!(self, " for ???({t:02x}))"),
            },
            22 | 23 | 27 | 28 | 31 | 34 | 40 | 48 => {
                if !optlen.is_multiple_of(16) {
                    return bad(self);
                }
                for i in (0..optlen).step_by(16) {
                    let a = self.host6(gv6(p, tp + i)?);
                    out!(self, " {a}");
                }
                self.out.push(')');
            }
            21 | 24 => {
                let end = tp + optlen;
                let mut t = tp;
                while t < end {
                    self.out.push(' ');
                    t = self.fqdn(&p[..end], t)?;
                }
                self.out.push(')');
            }
            13 if optlen < 2 => return bad(self),
            13 => out!(self, " {})", status_name(g2(p, tp)?)),
            3 | 25 => {
                if optlen < 12 {
                    return bad(self);
                }
                out!(
                    self,
                    " IAID:{} T1:{} T2:{}",
                    g4(p, tp)?,
                    g4(p, tp + 4)?,
                    g4(p, tp + 8)?
                );
                self.dhcp6_sub(p, tp, optlen, 12, nest)?;
            }
            4 => {
                if optlen < 4 {
                    return bad(self);
                }
                out!(self, " IAID:{}", g4(p, tp)?);
                self.dhcp6_sub(p, tp, optlen, 4, nest)?;
            }
            26 => {
                if optlen < 25 {
                    return bad(self);
                }
                let a = self.host6(gv6(p, tp + 9)?);
                out!(self, " {a}/{}", g1(p, tp + 8)?);
                out!(self, " pltime:{} vltime:{}", g4(p, tp)?, g4(p, tp + 4)?);
                self.dhcp6_sub(p, tp, optlen, 25, nest)?;
            }
            32 | 46 if optlen != 4 => return bad(self),
            32 | 46 => out!(self, " {})", g4(p, tp)?),
            37 => {
                if optlen < 4 {
                    return bad(self);
                }
                out!(self, " {} ", g4(p, tp)?);
                hex(self, 4, optlen.min(14));
                self.out.push_str("...)");
            }
            44 => {
                if optlen < 17 {
                    return bad(self);
                }
                match g1(p, tp)? {
                    1 => self.out.push_str(" by-address"),
                    2 => self.out.push_str(" by-clientID"),
                    t => out!(self, " type_{t}"),
                }
                let a = self.host6(gv6(p, tp + 1)?);
                out!(self, " {a}");
                self.dhcp6_sub(p, tp, optlen, 17, nest)?;
            }
            45 => self.dhcp6_sub(p, tp, optlen, 0, nest)?,
            47 => {
                if optlen < 16 {
                    return bad(self);
                }
                let a = self.host6(gv6(p, tp)?);
                out!(self, " {a} ");
                hex(self, 16, optlen.min(26));
                self.out.push_str("...)");
            }
            56 => self.dhcp6_ntp(p, tp, optlen)?,
            64 => self.dhcp6_aftr(p, tp, optlen)?,
            41 | 42 | 112 => {
                if optlen < 5 {
                    return bad(self);
                }
                self.out.push(' ');
                self.jnp(p, tp, optlen)?;
                self.out.push(')');
            }
            _ => self.out.push(')'),
        }
        Ok(())
    }

    /// The options inside an option, after its `fixed` bytes, and its `)`.
    fn dhcp6_sub(
        &mut self,
        p: &[u8],
        tp: usize,
        optlen: usize,
        fixed: usize,
        nest: usize,
    ) -> PResult {
        if optlen > fixed {
            self.dhcp6_opts(p, tp + fixed, tp + optlen, nest + 1)?;
        }
        self.out.push(')');
        Ok(())
    }

    /// A relayed message: `dhcp6_print` on the option's bytes.
    fn dhcp6_nested(&mut self, p: &[u8], length: u32, nest: usize) -> PResult {
        self.out.push_str("dhcp6");
        if need(p, 0, 4).is_err() {
            self.trunc();
            return Ok(());
        }
        let name = super::dhcp6::type_name(g1(p, 0)?);
        self.dhcp6_verbose(p, length, &name, nest)
    }

    /// The authentication option.
    fn dhcp6_auth(&mut self, p: &[u8], tp: usize, optlen: usize) -> PResult {
        if optlen < 11 {
            self.out.push_str(" ?)");
            return Ok(());
        }
        let proto = g1(p, tp)?;
        match proto {
            2 => self.out.push_str(" proto: delayed"),
            3 => self.out.push_str(" proto: reconfigure"),
            _ => out!(self, " proto: {proto}"),
        }
        match g1(p, tp + 1)? {
            1 => self.out.push_str(", alg: HMAC-MD5"),
            a => out!(self, ", alg: {a}"),
        }
        match g1(p, tp + 2)? {
            0 => self.out.push_str(", RDM: mono"),
            r => out!(self, ", RDM: {r}"),
        }
        self.out.push_str(", RD:");
        let mut t = tp + 3;
        for _ in 0..4 {
            out!(self, " {:04x}", g2(p, t)?);
            t += 2;
        }
        let info = optlen - 11;
        match proto {
            2 if info == 0 => {}
            2 if info < 20 => self.out.push_str(" ??"),
            2 => {
                let realm = info - 20;
                if realm > 0 {
                    self.out.push_str(", realm: ");
                }
                for _ in 0..realm {
                    out!(self, "{:02x}", g1(p, t)?);
                    t += 1;
                }
                out!(self, ", key ID: {:08x}", g4(p, t)?);
                t += 4;
                self.out.push_str(", HMAC-MD5:");
                for _ in 0..4 {
                    out!(self, " {:08x}", g4(p, t)?);
                    t += 4;
                }
            }
            3 if info != 17 => self.out.push_str(" ??"),
            3 => {
                match g1(p, t)? {
                    1 => self.out.push_str(" reconfig-key"),
                    2 => self.out.push_str(" type: HMAC-MD5"),
                    _ => self.out.push_str(" type: ??"),
                }
                t += 1;
                self.out.push_str(" value:");
                for _ in 0..4 {
                    out!(self, " {:08x}", g4(p, t)?);
                    t += 4;
                }
            }
            _ => self.out.push_str(" ??"),
        }
        self.out.push(')');
        Ok(())
    }

    /// The NTP server option's suboptions.
    fn dhcp6_ntp(&mut self, p: &[u8], tp: usize, optlen: usize) -> PResult {
        if optlen < 4 {
            self.out.push_str(" ?)");
            return Ok(());
        }
        let end = tp + optlen;
        let mut t = tp;
        while t < end - 4 {
            let code = g2(p, t)?;
            let len = usize::from(g2(p, t + 2)?);
            t += 4;
            if t + len > end {
                return Err(Trunc);
            }
            out!(self, " subopt:{code}");
            match code {
                1 | 2 if len != 16 => self.out.push_str(" ?"),
                1 | 2 => {
                    let a = self.host6(gv6(p, t)?);
                    out!(self, " {a}");
                }
                3 => {
                    self.out.push(' ');
                    self.fqdn(&p[..t + len], t)?;
                }
                _ => self.out.push_str(" ?"),
            }
            t += len;
        }
        self.out.push(')');
        Ok(())
    }

    /// The AFTR name option: a name in DNS labels.
    fn dhcp6_aftr(&mut self, p: &[u8], tp: usize, optlen: usize) -> PResult {
        if optlen < 3 {
            self.out.push_str(" ?)");
            return Ok(());
        }
        let mut t = tp;
        let mut remain = optlen;
        self.out.push(' ');
        while remain != 0 && g1(p, t)? != 0 {
            let l = usize::from(g1(p, t)?);
            t += 1;
            if l < remain - 1 {
                self.jnp(p, t, l)?;
                t += l;
                remain -= l + 1;
                if g1(p, t)? != 0 {
                    self.out.push('.');
                }
            } else {
                self.out.push_str(" ?");
                break;
            }
        }
        self.out.push(')');
        Ok(())
    }
}
