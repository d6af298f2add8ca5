//! DHCP's option table (tcpdump's `tag2str`, with each option's print
//! format) and the options it prints its own way (`$` in the table).

use super::ospf2::put;
use super::{g1, gv4, PResult, Printer, Trunc};

/// tcpdump's `tag2str`: an option's print format and name.
pub(super) fn tag_info(tag: u8) -> (char, &'static str) {
    match tag {
        0 => (' ', "PAD"),
        1 => ('i', "Subnet-Mask"),
        2 => ('L', "Time-Zone"),
        3 => ('i', "Default-Gateway"),
        4 => ('i', "Time-Server"),
        5 => ('i', "IEN-Name-Server"),
        6 => ('i', "Domain-Name-Server"),
        7 => ('i', "LOG"),
        8 => ('i', "CS"),
        9 => ('i', "LPR-Server"),
        10 => ('i', "IM"),
        11 => ('i', "RL"),
        12 => ('a', "Hostname"),
        13 => ('s', "BS"),
        255 => (' ', "END"),
        14 => ('a', "DP"),
        15 => ('a', "Domain-Name"),
        16 => ('i', "SS"),
        17 => ('a', "RP"),
        18 => ('a', "EP"),
        19 => ('B', "IPF"),
        20 => ('B', "SRT"),
        21 => ('p', "PF"),
        22 => ('s', "RSZ"),
        23 => ('b', "TTL"),
        24 => ('l', "MTU-Timeout"),
        25 => ('s', "MTU-Table"),
        26 => ('s', "MTU"),
        27 => ('B', "LSN"),
        28 => ('i', "BR"),
        29 => ('B', "MD"),
        30 => ('B', "MS"),
        31 => ('B', "Router-Discovery"),
        32 => ('i', "RSA"),
        33 => ('p', "Static-Route"),
        34 => ('B', "UT"),
        35 => ('l', "AT"),
        36 => ('B', "IE"),
        37 => ('b', "TT"),
        38 => ('l', "KI"),
        39 => ('B', "KG"),
        40 => ('a', "YD"),
        41 => ('i', "YS"),
        42 => ('i', "NTP"),
        43 => ('b', "Vendor-Option"),
        44 => ('i', "Netbios-Name-Server"),
        45 => ('i', "WDD"),
        46 => ('$', "Netbios-Node"),
        47 => ('a', "Netbios-Scope"),
        48 => ('i', "XFS"),
        49 => ('i', "XDM"),
        64 => ('s', "N+D"),
        65 => ('i', "N+S"),
        68 => ('i', "MH"),
        69 => ('i', "SMTP"),
        70 => ('i', "POP3"),
        71 => ('i', "NNTP"),
        72 => ('i', "WWW"),
        73 => ('i', "FG"),
        74 => ('i', "IRC"),
        75 => ('i', "STS"),
        76 => ('i', "STDA"),
        50 => ('i', "Requested-IP"),
        51 => ('l', "Lease-Time"),
        52 => ('$', "OO"),
        66 => ('a', "TFTP"),
        67 => ('a', "BF"),
        53 => (' ', "DHCP-Message"),
        54 => ('i', "Server-ID"),
        55 => ('b', "Parameter-Request"),
        56 => ('a', "MSG"),
        57 => ('s', "MSZ"),
        58 => ('l', "RN"),
        59 => ('l', "RB"),
        60 => ('a', "Vendor-Class"),
        61 => ('$', "Client-ID"),
        98 => ('a', "UAP"),
        116 => ('B', "NOAUTO"),
        78 => ('b', "SLP-DA"),
        79 => ('b', "SLP-SCOPE"),
        117 => ('s', "NSSEARCH"),
        77 => ('$', "User-Class"),
        118 => ('i', "SUBNET"),
        121 => ('$', "Classless-Static-Route"),
        249 => ('$', "Classless-Static-Route-Microsoft"),
        150 => ('i', "TFTP-Server-Address"),
        80 => ('a', "SLP-NA"),
        81 => ('$', "FQDN"),
        82 => ('$', "Agent-Information"),
        83 => ('b', "ARMT"),
        88 => ('a', "TZSTR"),
        89 => ('b', "FQDNS"),
        90 => ('b', "AUTH"),
        91 => ('L', "Last-Transaction-Time"),
        92 => ('i', "Associated-IP"),
        93 => ('s', "ARCH"),
        94 => ('b', "NDI"),
        97 => ('b', "GUID"),
        95 => ('a', "LDAP"),
        100 => ('a', "POSIX-TZ"),
        101 => ('a', "TZ-Name"),
        112 => ('i', "NI"),
        113 => ('a', "NITAG"),
        114 => ('a', "URL"),
        161 => ('a', "MUD-URL"),
        _ => ('?', "Unknown"),
    }
}

pub(super) fn dhcp_msg_name(m: u8) -> Option<&'static str> {
    Some(match m {
        1 => "Discover",
        2 => "Offer",
        3 => "Request",
        4 => "Decline",
        5 => "ACK",
        6 => "NACK",
        7 => "Release",
        8 => "Inform",
        10 => "LeaseQuery",
        11 => "LeaseUnassigned",
        12 => "LeaseUnknown",
        13 => "LeaseActive",
        _ => return None,
    })
}

impl Printer<'_> {
    /// The options tcpdump's table marks `$`: `o` is the value, `len` long.
    /// Returns how much of it was printed (the rest is trailing data).
    pub(super) fn dhcp_special(&mut self, tag: u8, o: &[u8], len: usize) -> PResult<usize> {
        match tag {
            46 | 52 => {
                if len < 1 {
                    put!(self, "[ERROR: length < 1 bytes]");
                    return Ok(0);
                }
                let v = g1(o, 0)?;
                let name = if tag == 46 {
                    match v {
                        1 => "b-node",
                        2 => "p-node",
                        4 => "m-node",
                        8 => "h-node",
                        _ => "",
                    }
                } else {
                    match v {
                        1 => "file",
                        2 => "sname",
                        3 => "file+sname",
                        _ => "",
                    }
                };
                // tok2str with a NULL format prints "#%d"
                if name.is_empty() {
                    put!(self, "#{v}");
                } else {
                    put!(self, "{name}");
                }
                Ok(1)
            }
            81 => {
                if len < 3 {
                    put!(self, "[ERROR: length < 3 bytes]");
                    return Ok(len);
                }
                let f = g1(o, 0)?;
                if f & 0xf0 != 0 {
                    put!(self, "[ERROR: MBZ nibble 0x{:x} != 0] ", (f & 0xf0) >> 4);
                }
                if f & 0x0f != 0 {
                    let names: String = [(1, 'S'), (2, 'O'), (4, 'E'), (8, 'N')]
                        .iter()
                        .filter(|(b, _)| f & b != 0)
                        .map(|&(_, c)| c)
                        .collect();
                    put!(self, "[{names}] ");
                }
                let (r1, r2) = (g1(o, 1)?, g1(o, 2)?);
                if r1 != 0 || r2 != 0 {
                    put!(self, "{r1}/{r2} ");
                }
                self.quoted(o, 3, len - 3)?;
                Ok(len)
            }
            61 => {
                if len < 1 {
                    put!(self, "[ERROR: length < 1 bytes]");
                    return Ok(0);
                }
                let t = g1(o, 0)?;
                if t == 0 {
                    self.quoted(o, 1, len - 1)?;
                    return Ok(len);
                }
                let hw = match t {
                    1 => "ether".to_string(),
                    6 => "ieee802".to_string(),
                    7 => "arcnet".to_string(),
                    15 => "frelay".to_string(),
                    23 => "strip".to_string(),
                    24 => "ieee1394".to_string(),
                    _ => format!("hardware-type {t},"),
                };
                put!(self, "{hw} ");
                for k in 1..len {
                    if k > 1 {
                        put!(self, ":");
                    }
                    put!(self, "{:02x}", g1(o, k)?);
                }
                Ok(len)
            }
            82 => self.dhcp_agent(o, len),
            121 | 249 => self.dhcp_classless(o, len),
            77 => self.dhcp_user_class(o, len),
            _ => {
                put!(self, "[unknown special tag {tag}, size {len}]");
                Ok(len)
            }
        }
    }

    /// Relay agent information (RFC 3046) sub-options.
    fn dhcp_agent(&mut self, o: &[u8], len: usize) -> PResult<usize> {
        let mut at = 0;
        let mut left = len;
        while left >= 2 {
            let sub = g1(o, at)?;
            let slen = g1(o, at + 1)? as usize;
            at += 2;
            left -= 2;
            let name = match sub {
                1 => "Circuit-ID",
                2 => "Remote-ID",
                6 => "Subscriber-ID",
                _ => "Unknown",
            };
            if slen > left {
                put!(
                    self,
                    "\n\t      {name} SubOption {sub}, length {slen}: length goes past end of option"
                );
                return Ok(len);
            }
            put!(self, "\n\t      {name} SubOption {sub}, length {slen}: ");
            match sub {
                1 | 2 | 6 => {
                    if !self.printn(o, at, slen) {
                        return Err(Trunc);
                    }
                }
                _ => {
                    self.unknown_data(o, at, slen, "\n\t\t");
                }
            }
            left -= slen;
            at += slen;
        }
        Ok(len - left)
    }

    /// Classless static routes (RFC 3442).
    fn dhcp_classless(&mut self, o: &[u8], len: usize) -> PResult<usize> {
        if len < 5 {
            put!(self, "[ERROR: length < 5 bytes]");
            return Ok(len);
        }
        let mut at = 0;
        let mut left = len;
        while left > 0 {
            if at > 0 {
                put!(self, ",");
            }
            let width = g1(o, at)? as usize;
            at += 1;
            left -= 1;
            if width > 32 {
                put!(self, "[ERROR: Mask width ({width}) > 32]");
                return Ok(len);
            }
            let sig = width.div_ceil(8);
            if left < sig + 4 {
                put!(
                    self,
                    "[ERROR: Remaining length ({left}) < {} bytes]",
                    sig + 4
                );
                return Ok(len);
            }
            put!(self, "(");
            if width == 0 {
                put!(self, "default");
            } else {
                for i in 0..sig {
                    if i > 0 {
                        put!(self, ".");
                    }
                    put!(self, "{}", g1(o, at + i)?);
                }
                for _ in sig..4 {
                    put!(self, ".0");
                }
                put!(self, "/{width}");
            }
            at += sig;
            put!(self, ":{})", self.host4(gv4(o, at)?));
            at += 4;
            left -= sig + 4;
        }
        Ok(len)
    }

    /// User classes (RFC 3004).
    fn dhcp_user_class(&mut self, o: &[u8], len: usize) -> PResult<usize> {
        if len < 2 {
            put!(self, "[ERROR: length < 2 bytes]");
            return Ok(len);
        }
        let mut at = 0;
        let mut left = len;
        let mut n = 1;
        while left > 0 {
            let slen = g1(o, at)? as usize;
            at += 1;
            left -= 1;
            put!(self, "\n\t      instance#{n}: ");
            if slen == 0 {
                put!(self, "[ERROR: suboption length must be non-zero]");
                return Ok(len);
            }
            if left < slen {
                put!(self, "[ERROR: invalid option]");
                return Ok(len);
            }
            self.quoted(o, at, slen)?;
            put!(self, ", length {slen}");
            n += 1;
            left -= slen;
            at += slen;
        }
        Ok(len)
    }
}
