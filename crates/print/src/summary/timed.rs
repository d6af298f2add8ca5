//! The BSD time synchronisation protocol, timed (UDP port 525), as
//! tcpdump 4.99.3's `timed_print` prints it: the message type, version,
//! sequence number, a loop's hop count or a time, and the host name.

use super::{g1, g2, g4, out, PResult, Printer};

/// `tsptype_str`.
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
        match TYPES.get(usize::from(t)) {
            Some(name) => self.out.push_str(name),
            None => out!(self, "(tsp_type {t:#x})"),
        }
        out!(self, " vers {} seq {}", g1(p, 1)?, g2(p, 2)?);
        match t {
            24 => out!(self, " hopcnt {}", g1(p, 4)?),
            1 | 5 | 22 | 23 => {
                let mut sec = g4(p, 4)? as i32;
                let mut usec = g4(p, 8)? as i32;
                if usec < 0 {
                    return Ok(());
                }
                self.out.push_str(" time ");
                if sec < 0 && usec != 0 {
                    sec += 1;
                    if sec == 0 {
                        self.out.push('-');
                    }
                    usec = 1_000_000 - usec;
                }
                out!(self, "{sec}.{usec:06}");
            }
            _ => {}
        }
        self.out.push_str(" name ");
        self.jnp(p, 12, 256)
    }
}
