//! Cisco's SNAP protocols other than CDP (OUI 00:00:0c): UDLD (PID 0x0111)
//! and DTP (PID 0x2004) as tcpdump 4.99's `udld_print` and `dtp_print` print
//! them, and the dispatch to CDP and VTP.

use super::{bit_names, g1, g2, g4, need, out, print_char, PResult, Printer};

/// `udld_flags_bitmap_str`.
const UDLD_FLAGS: [(u32, &str); 8] = [
    (1 << 0, "RT"),
    (1 << 1, "RSY"),
    (1 << 2, "MBZ-2"),
    (1 << 3, "MBZ-3"),
    (1 << 4, "MBZ-4"),
    (1 << 5, "MBZ-5"),
    (1 << 6, "MBZ-6"),
    (1 << 7, "MBZ-7"),
];

/// What ends a printer early: ` (invalid)` and a truncation check of the
/// bytes left, or only that check.
enum End {
    Invalid,
    Check,
}

impl Printer<'_> {
    /// The Cisco SNAP PIDs tcpdump's `snap_print` decodes (not STP's).
    pub(crate) fn cisco_snap(&mut self, pid: u16, p: &[u8], length: u32) -> PResult {
        match pid {
            0x2000 => self.cdp(p, length),
            0x2003 => self.vtp(p, length),
            0x2004 => self.dtp(p, length),
            _ => self.udld(p, length),
        }
    }

    /// tcpdump's `invalid:` labels: ` (invalid)` when asked, then a check that
    /// `n` bytes from `at` are captured.
    fn end(&mut self, how: End, p: &[u8], at: usize, n: usize) -> PResult {
        if let End::Invalid = how {
            out!(self, " (invalid)");
        }
        need(p, at, n)
    }

    /// `udld_print`.
    fn udld(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "udld";
        let mut left = length as usize;
        if left < 4 {
            return self.end(End::Invalid, p, 0, left);
        }
        let (b0, flags) = (g1(p, 0)?, g1(p, 1)?);
        let (ver, code) = (b0 >> 5, b0 & 0x1f);
        let cname = match code {
            1 => "Probe message",
            2 => "Echo message",
            3 => "Flush message",
            _ => "Reserved",
        };
        out!(
            self,
            "UDLDv{ver}, Code {cname} ({code:x}), Flags [{}] (0x{flags:02x}), length {left}",
            bit_names(flags as u32, &UDLD_FLAGS)
        );
        let mut at = 2;
        left -= 2;
        if self.opts.verbose < 1 {
            return self.end(End::Check, p, at, left);
        }
        out!(self, "\n\tChecksum 0x{:04x} (unverified)", g2(p, at)?);
        at += 2;
        left -= 2;
        while left > 0 {
            if left < 4 {
                return self.end(End::Invalid, p, at, left);
            }
            let (t, l) = (g2(p, at)?, g2(p, at + 2)? as usize);
            at += 4;
            left -= 4;
            let name = match t {
                1 => "Device-ID TLV",
                2 => "Port-ID TLV",
                3 => "Echo TLV",
                4 => "Message Interval TLV",
                5 => "Timeout Interval TLV",
                6 => "Device Name TLV",
                7 => "Sequence Number TLV",
                _ => "Unknown",
            };
            out!(self, "\n\t{name} (0x{t:04x}) TLV, length {l}");
            if l <= 4 || left < l - 4 {
                return self.end(End::Invalid, p, at, left);
            }
            let l = l - 4;
            match t {
                1 | 2 | 6 => {
                    out!(self, ", ");
                    self.jnp(p, at, l)?;
                }
                3 => {
                    out!(self, ", ");
                    for i in 0..l {
                        print_char(&mut self.out, g1(p, at + i)?);
                    }
                }
                4 | 5 => {
                    if l != 1 {
                        return self.end(End::Invalid, p, at, left);
                    }
                    out!(self, ", {}s", g1(p, at)?);
                }
                7 => {
                    if l != 4 {
                        return self.end(End::Invalid, p, at, left);
                    }
                    out!(self, ", {}", g4(p, at)?);
                }
                _ => need(p, at, l)?,
            }
            at += l;
            left -= l;
        }
        Ok(())
    }

    /// `dtp_print`.
    fn dtp(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "dtp";
        let mut left = length as usize;
        if left < 1 {
            out!(self, "[zero packet length]");
            return self.end(End::Invalid, p, 0, left);
        }
        out!(self, "DTPv{}, length {left}", g1(p, 0)?);
        if self.opts.verbose < 1 {
            return Ok(());
        }
        let mut at = 1;
        left -= 1;
        while left > 0 {
            if left < 4 {
                out!(self, "[{left} bytes remaining]");
                return self.end(End::Invalid, p, at, left);
            }
            let (t, l) = (g2(p, at)?, g2(p, at + 2)? as usize);
            if t == 0 {
                return Ok(());
            }
            let name = match t {
                1 => "Domain",
                2 => "Status",
                3 => "DTP type",
                4 => "Neighbor",
                _ => "Unknown",
            };
            out!(self, "\n\t{name} (0x{t:04x}) TLV, length {l}");
            if l < 4 || l > left {
                out!(self, "[invalid TLV length {l}]");
                return self.end(End::Invalid, p, at, left);
            }
            match t {
                1 => {
                    out!(self, ", ");
                    self.jnp(p, at + 4, l - 4)?;
                }
                2 | 3 => {
                    if l != 5 {
                        return self.end(End::Invalid, p, at, left);
                    }
                    out!(self, ", 0x{:x}", g1(p, at + 4)?);
                }
                4 => {
                    if l != 10 {
                        return self.end(End::Invalid, p, at, left);
                    }
                    need(p, at + 4, 6)?;
                    let mut m = [0u8; 6];
                    m.copy_from_slice(&p[at + 4..at + 10]);
                    let s = self.ether_str(m);
                    out!(self, ", {s}");
                }
                _ => need(p, at, l)?,
            }
            at += l;
            left -= l;
        }
        Ok(())
    }
}
