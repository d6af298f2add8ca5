//! The time stamp at the start of a printed line, as tcpdump 4.99's `ts_print`
//! writes it for each `-t` count, in local time (the `TZ` variable, else
//! /etc/localtime) where tcpdump uses `localtime`.

use jiff::tz::TimeZone;
use jiff::Timestamp;
use std::fmt::Write;

/// Which time stamp the line starts with: the number of `-t` flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimeFormat {
    /// `HH:MM:SS.frac` of the local day: tcpdump's default.
    #[default]
    TimeOfDay,
    /// `-t`: none.
    None,
    /// `-tt`: seconds since the epoch, `SECS.frac`.
    Epoch,
    /// `-ttt`: the time since the previous packet, as `HH:MM:SS.frac`.
    SincePrevious,
    /// `-tttt`: `YYYY-MM-DD HH:MM:SS.frac`, local.
    DateTime,
    /// `-ttttt`: the time since the first packet.
    SinceFirst,
}

impl TimeFormat {
    /// The format for `count` `-t` flags; tcpdump refuses six or more.
    pub fn from_count(count: u8) -> Option<TimeFormat> {
        Some(match count {
            0 => TimeFormat::TimeOfDay,
            1 => TimeFormat::None,
            2 => TimeFormat::Epoch,
            3 => TimeFormat::SincePrevious,
            4 => TimeFormat::DateTime,
            5 => TimeFormat::SinceFirst,
            _ => return None,
        })
    }
}

/// Writes time stamps, keeping the reference packet of `-ttt` and `-ttttt`.
pub(crate) struct Clock {
    format: TimeFormat,
    /// Fractions are nanoseconds (9 digits) rather than microseconds (6).
    nano: bool,
    tz: TimeZone,
    /// tcpdump's `tv_ref`; (0, 0) counts as unset, as there.
    reference: (i64, i64),
}

const ERROR: &str = "[Error converting time]";

impl Clock {
    pub(crate) fn new(format: TimeFormat, nano: bool) -> Clock {
        let tz = match format {
            TimeFormat::TimeOfDay | TimeFormat::DateTime => TimeZone::system(),
            _ => TimeZone::UTC,
        };
        Clock {
            format,
            nano,
            tz,
            reference: (0, 0),
        }
    }

    /// Appends the time stamp of a packet whose libpcap `struct timeval` is
    /// `(sec, frac)` (frac in µs, or ns with `nano`), and the space after it.
    pub(crate) fn stamp(&mut self, out: &mut String, sec: i64, frac: i64) {
        match self.format {
            TimeFormat::None => return,
            TimeFormat::TimeOfDay => self.date_time(out, sec, frac, false),
            TimeFormat::DateTime => self.date_time(out, sec, frac, true),
            TimeFormat::Epoch => {
                if sec as u32 & 0x8000_0000 != 0 {
                    out.push_str(ERROR);
                } else {
                    let _ = write!(out, "{}", sec as u32);
                    self.fraction(out, frac);
                }
            }
            TimeFormat::SincePrevious | TimeFormat::SinceFirst => {
                let now = (sec, frac);
                if self.reference == (0, 0) {
                    self.reference = now;
                }
                // tcpdump's netdissect_timevalcmp and netdissect_timevalsub.
                let (a, b, sign) = if now < self.reference {
                    (self.reference, now, '-')
                } else {
                    (now, self.reference, ' ')
                };
                // Wrapping, as C's long arithmetic does on the 64-bit seconds a
                // malformed pcapng time stamp can give; never a panic.
                let mut d = (a.0.wrapping_sub(b.0), a.1.wrapping_sub(b.1));
                if d.1 < 0 {
                    d.0 = d.0.wrapping_sub(1);
                    d.1 =
                        d.1.wrapping_add(if self.nano { 1_000_000_000 } else { 1_000_000 });
                }
                out.push(sign);
                if utc_time_of_day(out, d.0) {
                    self.fraction(out, d.1);
                }
                if self.format == TimeFormat::SincePrevious {
                    self.reference = now;
                }
            }
        }
        out.push(' ');
    }

    /// `ts_date_hmsfrac_print` in local time.
    fn date_time(&self, out: &mut String, sec: i64, frac: i64, date: bool) {
        if sec as u32 & 0x8000_0000 != 0 {
            out.push_str(ERROR);
            return;
        }
        let Ok(ts) = Timestamp::from_second(sec) else {
            out.push_str(ERROR);
            return;
        };
        let local = sec + i64::from(self.tz.to_offset(ts).seconds());
        if date {
            let Ok(day) = Timestamp::from_second(local.div_euclid(86_400) * 86_400) else {
                out.push_str(ERROR);
                return;
            };
            let d = day.to_zoned_datetime(TimeZone::UTC).date();
            let _ = write!(out, "{:04}-{:02}-{:02} ", d.year(), d.month(), d.day());
        }
        let s = local.rem_euclid(86_400);
        let _ = write!(out, "{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
        self.fraction(out, frac);
    }

    /// `ts_frac_print`: the fraction as C's `%06u` / `%09u` of `(unsigned)usec`.
    fn fraction(&self, out: &mut String, frac: i64) {
        let f = frac as u32;
        let _ = if self.nano {
            write!(out, ".{f:09}")
        } else {
            write!(out, ".{f:06}")
        };
    }
}

/// `HH:MM:SS` of the UTC day of `sec` (gmtime's), or the error text (then
/// false: tcpdump prints no fraction after it).
fn utc_time_of_day(out: &mut String, sec: i64) -> bool {
    if sec as u32 & 0x8000_0000 != 0 {
        out.push_str(ERROR);
        return false;
    }
    let s = sec.rem_euclid(86_400);
    let _ = write!(out, "{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamps(format: TimeFormat, nano: bool, ts: &[(i64, i64)]) -> Vec<String> {
        let mut c = Clock::new(format, nano);
        ts.iter()
            .map(|&(s, f)| {
                let mut out = String::new();
                c.stamp(&mut out, s, f);
                out
            })
            .collect()
    }

    #[test]
    fn deltas_borrow_and_go_negative_as_tcpdump() {
        let ts = [(100, 900_000), (101, 100_000), (100, 0)];
        assert_eq!(
            stamps(TimeFormat::SincePrevious, false, &ts),
            [
                " 00:00:00.000000 ",
                " 00:00:00.200000 ",
                "-00:00:01.100000 "
            ]
        );
        assert_eq!(
            stamps(TimeFormat::SinceFirst, false, &ts),
            [
                " 00:00:00.000000 ",
                " 00:00:00.200000 ",
                "-00:00:00.900000 "
            ]
        );
    }

    #[test]
    fn epoch_and_errors() {
        assert_eq!(stamps(TimeFormat::Epoch, true, &[(1, 5)]), ["1.000000005 "]);
        assert_eq!(
            stamps(TimeFormat::Epoch, false, &[(-1, 5)]),
            ["[Error converting time] "]
        );
        assert_eq!(stamps(TimeFormat::None, false, &[(1, 5)]), [""]);
        // Extreme seconds (a malformed pcapng file) print an error, never panic.
        for f in [
            TimeFormat::TimeOfDay,
            TimeFormat::DateTime,
            TimeFormat::SincePrevious,
        ] {
            stamps(f, false, &[(i64::MAX, -1), (i64::MIN, i64::MIN), (0, 0)]);
        }
    }
}
