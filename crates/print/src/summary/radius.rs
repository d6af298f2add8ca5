//! RADIUS (RFC 2865 and its extensions) as tcpdump's `radius_print` prints
//! it: a line without `-v`; with it the authenticator and each attribute's
//! value as the attribute table (`radius_attrs.rs`) says, EAP messages
//! decoded as `eap_print` does.

use super::ntp::ntp_time;
use super::ospf2::put;
use super::radius_attrs::{Fmt, ATTR_TYPES};
use super::{bit_names, g1, g2, g3, g4, gv6, need, tail, v6s, PResult, Printer};

const MIN_LEN: usize = 20;

fn command_name(c: u8) -> &'static str {
    match c {
        1 => "Access-Request",
        2 => "Access-Accept",
        3 => "Access-Reject",
        4 => "Accounting-Request",
        5 => "Accounting-Response",
        11 => "Access-Challenge",
        12 => "Status-Server",
        13 => "Status-Client",
        40 => "Disconnect-Request",
        41 => "Disconnect-ACK",
        42 => "Disconnect-NAK",
        43 => "CoA-Request",
        44 => "CoA-ACK",
        45 => "CoA-NAK",
        255 => "Reserved",
        _ => "Unknown Command",
    }
}

fn error_cause(v: u32) -> Option<&'static str> {
    Some(match v {
        201 => "Residual Session Context Removed",
        202 => "Invalid EAP Packet (Ignored)",
        401 => "Unsupported Attribute",
        402 => "Missing Attribute",
        403 => "NAS Identification Mismatch",
        404 => "Invalid Request",
        405 => "Unsupported Service",
        406 => "Unsupported Extension",
        407 => "Invalid Attribute Value",
        501 => "Administratively Prohibited",
        502 => "Request Not Routable (Proxy)",
        503 => "Session Context Not Found",
        504 => "Session Context Not Removable",
        505 => "Other Proxy Processing Error",
        506 => "Resources Unavailable",
        507 => "Request Initiated",
        508 => "Multiple Session Selection Unsupported",
        509 => "Location Info Required",
        _ => return None,
    })
}

fn tagged_name(t: u8) -> &'static str {
    match t {
        0x31 => "Tagged",
        0x32 => "Untagged",
        _ => "Unknown tag",
    }
}

/// A printable ASCII byte or `.`.
fn dot(c: u8) -> char {
    if super::is_print(c) {
        c as char
    } else {
        '.'
    }
}

impl Printer<'_> {
    /// `radius_print`: `bp` is the UDP payload, `length` its length.
    pub(super) fn radius(&mut self, bp: &[u8], length: u32) -> PResult {
        self.proto = "radius";
        need(bp, 0, MIN_LEN)?;
        let mut len = g2(bp, 2)? as usize;
        if len < MIN_LEN {
            self.trunc();
            return Ok(());
        }
        len = len.min(length as usize);
        let code = g1(bp, 0)?;
        let id = g1(bp, 1)?;
        let cname = command_name(code);
        if self.opts.verbose < 1 {
            put!(
                self,
                "RADIUS, {cname} ({code}), id: 0x{id:02x} length: {len}"
            );
            return Ok(());
        }
        put!(
            self,
            "RADIUS, length: {len}\n\t{cname} ({code}), id: 0x{id:02x}, Authenticator: "
        );
        for &b in &bp[4..20] {
            put!(self, "{b:02x}");
        }
        if len > MIN_LEN {
            self.radius_attrs(tail(bp, MIN_LEN), len - MIN_LEN)?;
        }
        Ok(())
    }

    fn radius_attrs(&mut self, a: &[u8], length: usize) -> PResult {
        let (mut at, mut left) = (0, length);
        while left > 0 {
            if left < 2 || need(a, at, 2).is_err() {
                self.trunc();
                return Ok(());
            }
            let t = g1(a, at)?;
            let len = g1(a, at + 1)? as usize;
            let entry = ATTR_TYPES.get(t as usize).filter(|_| t != 0);
            let name = entry.map_or("Unknown", |e| e.0);
            put!(self, "\n\t  {name} Attribute ({t}), length: {len}");
            if len < 2 {
                put!(self, " (bogus, must be >= 2)");
                return Ok(());
            }
            if len > left {
                put!(self, " (bogus, goes past end of packet)");
                return Ok(());
            }
            put!(self, ", Value: ");
            if let Some(e) = ATTR_TYPES.get(t as usize) {
                if len > 2 {
                    self.radius_value(e.4, tail(a, at + 2), len - 2, t)?;
                }
            }
            if self.opts.verbose > 1 {
                self.unknown_data(a, at + 2, len - 2, "\n\t    ");
            }
            left -= len;
            at += len;
        }
        Ok(())
    }

    fn radius_value(&mut self, fmt: Fmt, d: &[u8], len: usize, t: u8) -> PResult {
        match fmt {
            Fmt::None => Ok(()),
            Fmt::Str => self.radius_string(d, len, t),
            Fmt::Num => self.radius_num(d, len, t),
            Fmt::Vendor => self.radius_vendor(d, len),
            Fmt::Addr => {
                if len != 4 {
                    put!(self, "ERROR: length {len} != 4");
                    return Ok(());
                }
                match g4(d, 0)? {
                    0xffff_ffff if t == 8 || t == 14 => put!(self, "User Selected"),
                    0xffff_fffe if t == 8 || t == 14 => put!(self, "NAS Select"),
                    v => put!(self, "{}", self.host4(v.into())),
                }
                Ok(())
            }
            Fmt::Addr6 => {
                if len != 16 {
                    put!(self, "ERROR: length {len} != 16");
                    return Ok(());
                }
                put!(self, "{}", self.host6(gv6(d, 0)?));
                Ok(())
            }
            Fmt::Netmask6 => {
                if !(2..=18).contains(&len) {
                    put!(self, "ERROR: length {len} not in range (2..18)");
                    return Ok(());
                }
                if need(d, 0, len).is_err() {
                    self.trunc();
                    return Ok(());
                }
                let plen = d[1];
                if plen > 128 {
                    put!(self, "ERROR: netmask {plen} not in range (0..128)");
                    return Ok(());
                }
                let mut a = [0u8; 16];
                a[..len - 2].copy_from_slice(&d[2..len]);
                put!(self, "{}/{plen}", v6s(a.into()));
                if plen as usize > 8 * (len - 2) {
                    put!(self, " (inconsistent prefix length)");
                }
                Ok(())
            }
            Fmt::HomeLinkPrefix => {
                if len != 17 {
                    put!(self, "ERROR: length {len} != 17");
                    return Ok(());
                }
                if need(d, 0, len).is_err() {
                    self.trunc();
                    return Ok(());
                }
                if d[0] > 128 {
                    put!(self, "ERROR: netmask {} not in range (0..128)", d[0]);
                    return Ok(());
                }
                put!(self, "{}/{}", self.host6(gv6(d, 1)?), d[0]);
                Ok(())
            }
            Fmt::Time => {
                if len != 4 {
                    put!(self, "ERROR: length {len} != 4");
                    return Ok(());
                }
                put!(self, "{}", ctime(g4(d, 0)?));
                Ok(())
            }
            Fmt::Vector64 => {
                if len != 8 {
                    put!(self, "ERROR: length {len} != 8");
                    return Ok(());
                }
                let v = (g4(d, 0)? as u64) << 32 | g4(d, 4)? as u64;
                const BITS: [(u64, &str); 12] = [
                    (0x1, "MIP6_INTEGRATED"),
                    (0x2, "LOCAL_HOME_AGENT_ASSIGNMENT"),
                    (0x0000_0100_0000_0000, "PMIP6_SUPPORTED"),
                    (0x0000_0200_0000_0000, "IP4_HOA_SUPPORTED"),
                    (0x0000_0400_0000_0000, "LOCAL_MAG_ROUTING_SUPPORTED"),
                    (0x0000_0800_0000_0000, "ASSIGN_LOCAL_IP"),
                    (0x0000_1000_0000_0000, "MIP4_SUPPORTED"),
                    (0x0000_2000_0000_0000, "OPTIMIZED_IDLE_MODE_MOBILITY"),
                    (0x0000_4000_0000_0000, "GTPv2_SUPPORTED"),
                    (0x0000_8000_0000_0000, "IP4_TRANSPORT_SUPPORTED"),
                    (0x0001_0000_0000_0000, "IP4_HOA_ONLY_SUPPORTED"),
                    (0x0002_0000_0000_0000, "INTER_MAG_ROUTING_SUPPORTED"),
                ];
                let set: Vec<&str> = BITS.iter().filter(|b| v & b.0 != 0).map(|b| b.1).collect();
                put!(self, "[{}]", set.join(", "));
                Ok(())
            }
            Fmt::OperatorName => {
                if need(d, 0, len).is_err() {
                    self.trunc();
                    return Ok(());
                }
                if len < 2 {
                    put!(self, "ERROR: length {len} < 2");
                    return Ok(());
                }
                match d[0] {
                    0x30 => put!(self, "[TADIG] "),
                    0x31 => put!(self, "[REALM] "),
                    0x32 => put!(self, "[E212] "),
                    0x33 => put!(self, "[ICC] "),
                    n => put!(self, "[unknown namespace {n}] "),
                }
                for &c in &d[1..len] {
                    super::print_char(&mut self.out, c);
                }
                Ok(())
            }
            Fmt::LocationInfo => self.radius_location_info(d, len),
            Fmt::LocationData => {
                if need(d, 0, len).is_err() {
                    self.trunc();
                    return Ok(());
                }
                if len < 3 {
                    put!(self, "ERROR: length {len} < 3");
                    return Ok(());
                }
                put!(self, "index {}, location", g2(d, 0)?);
                crate::dump::hex_and_ascii_ident(&mut self.out, "\n\t    ", &d[2..len]);
                Ok(())
            }
            Fmt::PolicyRules => {
                if need(d, 0, len).is_err() {
                    self.trunc();
                    return Ok(());
                }
                if len < 10 {
                    put!(self, "ERROR: length {len} < 10");
                    return Ok(());
                }
                let flags = g2(d, 0)? as u32;
                let mut names: Vec<(u32, String)> = (1..=15)
                    .map(|i| (1u32 << (i - 1), format!("MBZ-{}", 16 - i)))
                    .collect();
                names.push((0x8000, "Retransmission Allowed".to_string()));
                let refs: Vec<(u32, &str)> = names.iter().map(|(b, n)| (*b, n.as_str())).collect();
                put!(self, "flags [{}], ", bit_names(flags, &refs));
                put!(self, "retention expires {}", ntp_time(d, 2)?);
                if len > 10 {
                    put!(self, ", note well \"");
                    for &c in &d[10..len] {
                        super::print_char(&mut self.out, c);
                    }
                    put!(self, "\"");
                }
                Ok(())
            }
            Fmt::Strange => self.radius_strange(d, len, t),
        }
    }

    fn radius_string(&mut self, d: &[u8], len: usize, t: u8) -> PResult {
        if need(d, 0, len).is_err() {
            self.trunc();
            return Ok(());
        }
        let mut s = 0;
        match t {
            69 => {
                if len < 3 {
                    self.trunc();
                    return Ok(());
                }
                match d[0] {
                    tag @ 1..=0x1f => put!(self, "Tag[{tag}] "),
                    _ => put!(self, "Tag[Unused] "),
                }
                put!(self, "Salt {} ", g2(d, 1)?);
                s = 3;
            }
            66 | 67 | 81 | 82 | 90 | 91 if d[0] <= 0x1f => {
                match d[0] {
                    0 => put!(self, "Tag[Unused] "),
                    tag => put!(self, "Tag[{tag}] "),
                }
                s = 1;
            }
            58 => {
                put!(self, "{} (0x{:02x}) ", tagged_name(d[0]), d[0]);
                s = 1;
            }
            79 => return self.eap(d, len),
            _ => {}
        }
        for &c in d[s..len].iter().take_while(|&&c| c != 0) {
            put!(self, "{}", dot(c));
        }
        Ok(())
    }

    fn radius_num(&mut self, d: &[u8], len: usize, t: u8) -> PResult {
        if len != 4 {
            put!(self, "ERROR: length {len} != 4");
            return Ok(());
        }
        let (_, table, siz, first, _) = ATTR_TYPES[t as usize];
        if siz > 0 {
            let v = if t == 64 || t == 65 {
                match g1(d, 0)? {
                    0 => put!(self, "Tag[Unused] "),
                    tag => put!(self, "Tag[{tag}] "),
                }
                g3(d, 1)?
            } else {
                g4(d, 0)?
            };
            let (siz, first) = (siz as u32, first as u32);
            if v <= siz - 1 + first && v >= first {
                put!(self, "{}", table[v as usize]);
            } else {
                put!(self, "#{v}");
            }
            return Ok(());
        }
        let v = g4(d, 0)?;
        match t {
            23 if v == 0xffff_fffe => put!(self, "NAS Select"),
            27 | 28 | 41 | 46 | 85 => {
                if v < 60 {
                    put!(self, "{v:02} secs");
                } else if v < 3600 {
                    put!(self, "{:02}:{:02} min", v / 60, v % 60);
                } else {
                    put!(
                        self,
                        "{:02}:{:02}:{:02} hours",
                        v / 3600,
                        v % 3600 / 60,
                        v % 60
                    );
                }
            }
            37 if v == 0 => put!(self, "Unnumbered"),
            38 if v == 0 => put!(self, "NAS assigned"),
            83 => {
                match d[0] {
                    0 => put!(self, "Tag[Unused] "),
                    tag => put!(self, "Tag[{tag}] "),
                }
                put!(self, "{}", g3(d, 1)?);
            }
            56 => put!(self, "{} (0x{:02x}) {}", tagged_name(d[0]), d[0], g3(d, 1)?),
            _ => put!(self, "{v}"),
        }
        Ok(())
    }

    fn radius_vendor(&mut self, d: &[u8], len: usize) -> PResult {
        if len < 4 {
            self.trunc();
            return Ok(());
        }
        let id = g4(d, 0)?;
        let name = super::smi::smi_name(id).unwrap_or("Unknown");
        put!(self, "Vendor: {name} ({id})");
        let (mut at, mut left) = (4, len - 4);
        while left >= 2 {
            let vt = g1(d, at)?;
            let vl = g1(d, at + 1)? as usize;
            if vl < 2 {
                put!(
                    self,
                    "\n\t    Vendor Attribute: {vt}, Length: {vl} (bogus, must be >= 2)"
                );
                return Ok(());
            }
            if vl > left {
                put!(
                    self,
                    "\n\t    Vendor Attribute: {vt}, Length: {vl} (bogus, goes past end of vendor-specific attribute)"
                );
                return Ok(());
            }
            at += 2;
            left -= 2;
            let vl = vl - 2;
            if need(d, at, vl).is_err() {
                self.trunc();
                return Ok(());
            }
            put!(
                self,
                "\n\t    Vendor Attribute: {vt}, Length: {vl}, Value: "
            );
            for &c in &d[at..at + vl] {
                put!(self, "{}", dot(c));
            }
            at += vl;
            left -= vl;
        }
        Ok(())
    }

    fn radius_location_info(&mut self, d: &[u8], len: usize) -> PResult {
        if need(d, 0, len).is_err() {
            self.trunc();
            return Ok(());
        }
        if len < 21 {
            put!(self, "ERROR: length {len} < 21");
            return Ok(());
        }
        let code = match d[2] {
            0 => "Civic".to_string(),
            1 => "Geospatial".to_string(),
            c => format!("Unknown ({c})"),
        };
        let entity = match d[3] {
            0 => "User".to_string(),
            1 => "RADIUS".to_string(),
            e => format!("Unknown ({e})"),
        };
        put!(self, "index {}, code {code}, entity {entity}, ", g2(d, 0)?);
        put!(self, "sighting time {}, ", ntp_time(d, 4)?);
        put!(self, "time to live {}, ", ntp_time(d, 12)?);
        put!(self, "method \"");
        for &c in &d[20..len] {
            super::print_char(&mut self.out, c);
        }
        put!(self, "\"");
        Ok(())
    }

    fn radius_strange(&mut self, d: &[u8], len: usize, t: u8) -> PResult {
        let hex = |p: &mut Self, from: usize, n: usize| -> PResult {
            for i in 0..n {
                put!(p, "{:02X}", g1(d, from + i)?);
            }
            Ok(())
        };
        match t {
            70 => {
                if len != 16 {
                    put!(self, "ERROR: length {len} != 16");
                    return Ok(());
                }
                put!(self, "User_challenge (");
                hex(self, 0, 8)?;
                put!(self, ") User_resp(");
                hex(self, 8, 8)?;
                put!(self, ")");
            }
            71 => {
                if len != 14 {
                    put!(self, "ERROR: length {len} != 14");
                    return Ok(());
                }
                if g1(d, 0)? != 0 {
                    put!(self, "User can change password");
                } else {
                    put!(self, "User cannot change password");
                }
                put!(self, ", Min password length: {}", g1(d, 1)?);
                put!(self, ", created at: ");
                hex(self, 2, 4)?;
                put!(self, ", expires in: ");
                hex(self, 6, 4)?;
                put!(self, ", Current Time: ");
                hex(self, 10, 4)?;
            }
            84 => {
                if len < 8 {
                    put!(self, "ERROR: length {len} != 8");
                    return Ok(());
                }
                hex(self, 0, 8)?;
            }
            101 => {
                if len != 4 {
                    put!(self, "Error: length {len} != 4");
                    return Ok(());
                }
                let v = g4(d, 0)?;
                match error_cause(v) {
                    Some(n) => put!(self, "Error cause {v}: {n}"),
                    None => put!(self, "Error cause {v}: Error-Cause {v} not known"),
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// `ctime`'s text of Unix seconds, in UTC (the tests run tcpdump with
/// `TZ=UTC`), without the newline: `Thu Jan  1 00:00:00 1970`.
fn ctime(secs: u32) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (y, m, d, hh, mm, ss) = super::ntp::civil(secs as i64);
    let days = secs as i64 / 86_400;
    format!(
        "{} {} {:2} {hh:02}:{mm:02}:{ss:02} {y}",
        DAYS[(days % 7) as usize],
        MONTHS[(m - 1) as usize],
        d,
    )
}

#[cfg(test)]
mod tests {
    use super::ctime;

    #[test]
    fn ctime_is_asctime_in_utc() {
        // Python's time.asctime(time.gmtime(n)) for the same seconds.
        assert_eq!(ctime(0), "Thu Jan  1 00:00:00 1970");
        assert_eq!(ctime(951_782_400), "Tue Feb 29 00:00:00 2000");
        assert_eq!(ctime(1_087_208_228), "Mon Jun 14 10:17:08 2004");
        assert_eq!(ctime(u32::MAX), "Sun Feb  7 06:28:15 2106");
    }
}
