//! Arista's vendor EtherType 0xd28b, as tcpdump 4.99's
//! `arista_ethertype_print` prints it: the TapAgg timestamp header a switch
//! puts before the original EtherType.

use super::{g1, g2, g4, out, PResult, Printer};

fn timescale(v: u8) -> &'static str {
    match v {
        0 => "TAI",
        1 => "UTC",
        _ => "Unknown",
    }
}

fn format(v: u8) -> &'static str {
    match v {
        1 => "64-bit",
        2 => "48-bit",
        _ => "Unknown",
    }
}

fn hw_info(v: u8) -> &'static str {
    match v {
        0 => "R/R2",
        1 => "R3",
        _ => "Unknown",
    }
}

impl Printer<'_> {
    /// `arista_ethertype_print`: the bytes of the header it read (the
    /// original EtherType follows), or `None` for a subtype or format it
    /// does not know.
    pub(super) fn arista(&mut self, p: &[u8]) -> PResult<Option<usize>> {
        self.proto = "arista";
        let subtype = g2(p, 0)?;
        let name = if subtype == 1 { "Timestamp" } else { "Unknown" };
        out!(self, "SubType {name} (0x{subtype:04x}), ");
        if subtype != 1 {
            return Ok(None);
        }
        let scale = g1(p, 2)?;
        out!(self, "Timescale {} ({scale}), ", timescale(scale));
        let b = g1(p, 3)?;
        let (fmt, hw) = (b >> 4, b & 0x0f);
        out!(
            self,
            "Format {} ({fmt}), HwInfo {} ({hw}), Timestamp ",
            format(fmt),
            hw_info(hw)
        );
        let used = match fmt {
            1 => {
                let (secs, nanos) = (g4(p, 4)?, g4(p, 8)?);
                // The seconds since the epoch as a UTC date, as gmtime and
                // strftime give them; nanoseconds past a second carry over.
                let secs = i64::from(secs) + i64::from(nanos / 1_000_000_000);
                match jiff::Timestamp::from_second(secs) {
                    Ok(t) => out!(
                        self,
                        "{}.{:09}",
                        t.strftime("%Y-%m-%d %H:%M:%S"),
                        nanos % 1_000_000_000
                    ),
                    Err(_) => out!(self, "gmtime() error"),
                }
                12
            }
            2 => {
                let (secs, nanos) = (g2(p, 4)?, g4(p, 6)?);
                let secs = u64::from(secs) + u64::from(nanos / 1_000_000_000);
                out!(self, "{secs}.{:09}", nanos % 1_000_000_000);
                10
            }
            _ => return Ok(None),
        };
        out!(self, ": ");
        Ok(Some(used))
    }
}
