//! NTP as `tcpdump -v` prints it (`ntp_print`): the leap indicator, then for a
//! time message the stratum, poll, precision, root delay and dispersion,
//! reference ID, the four timestamps (with their UTC dates) and two of their
//! differences; for a control message its header. The one-line form is in
//! `transport.rs`.

use super::{g1, g2, g4, gv4, need, out, print_char, PResult, Printer};

/// Seconds from the NTP epoch (1900) to the Unix epoch (1970).
const JAN_1970: i64 = 2_208_988_800;
const TIMEMSG_MINLEN: usize = 48;
const CTRLMSG_MINLEN: usize = 12;

impl Printer<'_> {
    /// The lines after `NTPv4, Client, length 48`; `mode` is the header's.
    pub(super) fn ntp_verbose(&mut self, bp: &[u8], length: u32, mode: u8) -> PResult {
        let leap = g1(bp, 0)? & 0xc0;
        let lname = match leap {
            0x00 => "",
            0x40 => "+1s",
            0x80 => "-1s",
            _ => "clock unsynchronized",
        };
        out!(self, "\n\tLeap indicator: {lname} ({leap})");
        match mode {
            0..=5 => self.ntp_time(bp, length as usize),
            6 => self.ntp_control(bp, length as usize),
            _ => Ok(()),
        }
    }

    /// `ntp_time_print`.
    fn ntp_time(&mut self, bp: &[u8], length: usize) -> PResult {
        if length < TIMEMSG_MINLEN {
            out!(self, " (invalid)");
            return need(bp, 0, length);
        }
        let stratum = g1(bp, 1)?;
        let sname = match stratum {
            0 => "unspecified",
            1 => "primary reference",
            2..=15 => "secondary reference",
            _ => "reserved",
        };
        let poll = g1(bp, 2)? as i8;
        out!(self, ", Stratum {stratum} ({sname}), poll {poll}");
        if (-31..=31).contains(&poll) {
            if poll >= 0 {
                out!(self, " ({}s)", 1u32 << poll);
            } else {
                out!(self, " (1/{}s)", 1u32 << -poll);
            }
        }
        out!(self, ", precision {}", g1(bp, 3)? as i8);
        out!(self, "\n\tRoot Delay: {}", sfix(bp, 4)?);
        out!(self, ", Root dispersion: {}", sfix(bp, 8)?);
        out!(self, ", Reference-ID: ");
        need(bp, 12, 4)?;
        match stratum {
            0 => out!(self, "(unspec)"),
            1 => {
                for &c in &bp[12..16] {
                    print_char(&mut self.out, c);
                }
            }
            62 => {
                out!(self, "{} INFO_QUERY", gv4(bp, 12)?);
                return Ok(());
            }
            63 => {
                out!(self, "{} INFO_REPLY", gv4(bp, 12)?);
                return Ok(());
            }
            _ => out!(self, "0x{:08x}", g4(bp, 12)?),
        }
        for (label, at) in [
            ("Reference Timestamp:  ", 16),
            ("Originator Timestamp: ", 24),
            ("Receive Timestamp:    ", 32),
            ("Transmit Timestamp:   ", 40),
        ] {
            out!(self, "\n\t  {label}{}", ntp_time(bp, at)?);
        }
        out!(
            self,
            "\n\t    Originator - Receive Timestamp:  {}",
            ntp_delta(bp, 24, 32)?
        );
        out!(
            self,
            "\n\t    Originator - Transmit Timestamp: {}",
            ntp_delta(bp, 24, 40)?
        );
        // Extension fields are not decoded; a key ID and digest are.
        let digest = match length - TIMEMSG_MINLEN {
            0 => return Ok(()),
            4 => 0,
            20 => 16,
            24 => 20,
            more => {
                out!(self, "\n\t({more} more bytes after the header)");
                return Ok(());
            }
        };
        out!(self, "\n\tKey id: {}", g4(bp, 48)?);
        if digest > 0 {
            need(bp, 52, digest)?;
            out!(self, "\n\tAuthentication: ");
            for i in (0..digest).step_by(4) {
                out!(self, "{:08x}", g4(bp, 52 + i)?);
            }
        }
        Ok(())
    }

    /// `ntp_control_print`.
    fn ntp_control(&mut self, bp: &[u8], length: usize) -> PResult {
        if length < CTRLMSG_MINLEN {
            out!(self, " (invalid)");
            return need(bp, 0, length);
        }
        let c = g1(bp, 1)?;
        out!(
            self,
            ", {}, {}, {}, OpCode={}\n",
            if c & 0x80 != 0 { "Response" } else { "Request" },
            if c & 0x40 != 0 { "Error" } else { "OK" },
            if c & 0x20 != 0 { "More" } else { "Last" },
            c & 0x1f
        );
        let status = g2(bp, 4)?;
        // C's `%#hx`: no 0x before a zero.
        let status = if status == 0 {
            "0".to_string()
        } else {
            format!("{status:#x}")
        };
        let count = g2(bp, 10)? as usize;
        out!(
            self,
            "\tSequence={}, Status={status}, Assoc.={}, Offset={}, Count={count}",
            g2(bp, 2)?,
            g2(bp, 6)?,
            g2(bp, 8)?
        );
        if CTRLMSG_MINLEN + count > length {
            out!(self, " (invalid)");
            return need(bp, 0, length);
        }
        if count != 0 {
            need(bp, CTRLMSG_MINLEN, count)?;
            out!(self, "\n\tTO-BE-DONE: data not interpreted");
        }
        Ok(())
    }
}

/// `p_sfix`: a 16.16 fixed-point number, to millionths.
fn sfix(bp: &[u8], at: usize) -> PResult<String> {
    let i = g2(bp, at)?;
    let f = (g2(bp, at + 2)? as f64 / 65536.0 * 1_000_000.0) as i32;
    Ok(format!("{i}.{f:06}"))
}

/// A 32-bit binary fraction in billionths, computed as tcpdump does.
fn billionths(frac: u32) -> u32 {
    (frac as f64 / 4_294_967_296.0 * 1_000_000_000.0) as u32
}

/// `p_ntp_time`: seconds and billionths, and the UTC date when nonzero.
pub(super) fn ntp_time(bp: &[u8], at: usize) -> PResult<String> {
    let i = g4(bp, at)?;
    let mut s = format!("{i}.{:09}", billionths(g4(bp, at + 4)?));
    if i != 0 {
        s.push_str(&format!(" ({})", utc(i as i64 - JAN_1970)));
    }
    Ok(s)
}

/// `p_ntp_delta`: the signed difference of the timestamp at `at` from the one
/// at `origin` (the timestamp itself when the origin is zero).
fn ntp_delta(bp: &[u8], origin: usize, at: usize) -> PResult<String> {
    let (ou, ouf) = (g4(bp, origin)?, g4(bp, origin + 4)?);
    let (u, uf) = (g4(bp, at)?, g4(bp, at + 4)?);
    if ou == 0 && ouf == 0 {
        return ntp_time(bp, at);
    }
    let (neg, i, f) = if u > ou {
        (
            false,
            (u - ou).wrapping_sub((ouf > uf) as u32),
            uf.wrapping_sub(ouf),
        )
    } else if u < ou {
        (
            true,
            (ou - u).wrapping_sub((uf > ouf) as u32),
            ouf.wrapping_sub(uf),
        )
    } else if uf > ouf {
        (false, 0, uf - ouf)
    } else {
        (true, 0, ouf - uf)
    };
    let sign = if neg { '-' } else { '+' };
    Ok(format!("{sign}{i}.{:09}", billionths(f)))
}

/// `gmtime` and `strftime("%Y-%m-%dT%H:%M:%SZ")` of Unix seconds.
fn utc(secs: i64) -> String {
    let (y, m, d, hh, mm, ss) = civil(secs);
    format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z")
}

/// `gmtime` of Unix seconds: year, month, day, hours, minutes, seconds.
pub(super) fn civil(secs: i64) -> (i64, i64, i64, i64, i64, i64) {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d, rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::utc;

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(2_763_234_513 - super::JAN_1970), "1987-07-25T21:08:33Z");
        assert_eq!(utc(-1), "1969-12-31T23:59:59Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
    }
}
