//! BSD's time synchronization protocol (UDP port 525), as tcpdump 4.99's
//! `timed_print` prints it: the message type, version, sequence, the hop
//! count or the time, and the sender's name.

use super::{g1, g2, g4, out, PResult, Printer};

const TYPES: [&str; 25] = [
    "TSP_ANY",
    "TSP_ADJTIME",
    "TSP_ACK",
    "TSP_MASTERREQ",
    "TSP_MASTERACK",
    "TSP_SETTIME",
    "TSP_MASTERUP",
    "TSP_SLAVEUP",
    "TSP_ELECTION",
    "TSP_ACCEPT",
    "TSP_REFUSE",
    "TSP_CONFLICT",
    "TSP_RESOLVE",
    "TSP_QUIT",
    "TSP_DATE",
    "TSP_DATEREQ",
    "TSP_DATEACK",
    "TSP_TRACEON",
    "TSP_TRACEOFF",
    "TSP_MSITE",
    "TSP_MSITEREQ",
    "TSP_TEST",
    "TSP_SETDATE",
    "TSP_SETDATEREQ",
    "TSP_LOOP",
];

impl Printer<'_> {
    /// `timed_print`.
    pub(super) fn timed(&mut self, p: &[u8]) -> PResult {
        self.proto = "timed";
        let t = g1(p, 0)?;
        match TYPES.get(t as usize) {
            Some(n) => out!(self, "{n}"),
            None => out!(self, "(tsp_type {t:#x})"),
        }
        out!(self, " vers {}", g1(p, 1)?);
        out!(self, " seq {}", g2(p, 2)?);
        match t {
            24 => out!(self, " hopcnt {}", g1(p, 4)?),
            1 | 5 | 22 | 23 => {
                let mut sec = g4(p, 4)? as i32;
                let mut usec = g4(p, 8)? as i32;
                if usec < 0 {
                    return Ok(());
                }
                out!(self, " time ");
                if sec < 0 && usec != 0 {
                    sec += 1;
                    if sec == 0 {
                        out!(self, "-");
                    }
                    usec = 1_000_000 - usec;
                }
                out!(self, "{sec}.{usec:06}");
            }
            _ => {}
        }
        out!(self, " name ");
        self.jnp(p, 12, 256)
    }
}
