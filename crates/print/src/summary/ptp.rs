//! The Precision Time Protocol (IEEE 1588) over UDP ports 319/320 and EtherType
//! 0x88f7, as tcpdump 4.99.3's `ptp_print` prints it: version 2's common header
//! and each message type's fields on one line (the same with `-v`).

use super::{bit_names, g1, g2, g4, out, PResult, Printer};

const MSG_TYPES: [(u8, &str); 10] = [
    (0x0, "sync msg"),
    (0x1, "delay req msg"),
    (0x2, "peer delay req msg"),
    (0x3, "peer delay resp msg"),
    (0x8, "follow up msg"),
    (0x9, "delay resp msg"),
    (0xa, "pdelay resp fup msg"),
    (0xb, "announce msg"),
    (0xc, "signaling msg"),
    (0xd, "management msg"),
];

const CONTROL: [&str; 6] = [
    "Sync",
    "Delay_Req",
    "Follow_Up",
    "Delay_Resp",
    "Management",
    "Other",
];

const FLAGS: [(u32, &str); 13] = [
    (0x1, "l1 61"),
    (0x2, "l1 59"),
    (0x4, "utc reasonable"),
    (0x8, "timescale"),
    (0x10, "time tracable"),
    (0x20, "frequency tracable"),
    (0x100, "alternate master"),
    (0x200, "two step"),
    (0x400, "unicast"),
    (0x1000, "profile specific 1"),
    (0x2000, "profile specific 2"),
    (0x4000, "security mask"),
    (0x18c0, "unknown"),
];

/// A 48-bit big-endian field.
fn g6(p: &[u8], at: usize) -> PResult<u64> {
    Ok(u64::from(g2(p, at)?) << 32 | u64::from(g4(p, at + 2)?))
}

fn g8(p: &[u8], at: usize) -> PResult<u64> {
    Ok(u64::from(g4(p, at)?) << 32 | u64::from(g4(p, at + 4)?))
}

impl Printer<'_> {
    /// `ptp_print`: `PTPv` and the version byte, then version 2's message;
    /// `length` shorter than the common header is invalid (`ND_LCHECK_U`).
    pub(super) fn ptp(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "ptp";
        if length < 34 {
            out!(self, " [length {length} < 34] (invalid)");
            return Ok(());
        }
        // 4.99.3 masks the whole second byte: 2.1 prints as `PTPv18`.
        let version = g2(p, 0)? & 0xff;
        out!(self, "PTPv{version}");
        match version {
            1 => out!(self, " (not implemented)"),
            2 => self.ptp2(p)?,
            _ => {}
        }
        Ok(())
    }

    /// `ptp_print_2`: the common header, then the message's own fields.
    fn ptp2(&mut self, p: &[u8]) -> PResult {
        let first = g1(p, 0)?;
        let compat = if first & 0x10 != 0 { "yes" } else { "no" };
        let msg = first & 0x0f;
        let name = MSG_TYPES
            .iter()
            .find(|&&(t, _)| t == msg)
            .map_or("Reserved", |&(_, n)| n);
        out!(self, ", v1 compat : {compat}, msg type : {name}");
        out!(self, ", length : {}", g2(p, 2)?);
        out!(self, ", domain : {}", g1(p, 4)?);
        out!(self, ", reserved1 : {}", g1(p, 5)?);
        let flags = bit_names(u32::from(g2(p, 6)?), &FLAGS);
        out!(self, ", Flags [{flags}]");
        out!(self, ", NS correction : {}", g6(p, 8)?);
        out!(self, ", sub NS correction : {}", g2(p, 14)?);
        out!(self, ", reserved2 : {}", g4(p, 16)?);
        out!(self, ", clock identity : 0x{:x}", g8(p, 20)?);
        out!(self, ", port id : {}", g2(p, 28)?);
        out!(self, ", seq id : {}", g2(p, 30)?);
        let control = g1(p, 32)?;
        let cname = CONTROL.get(usize::from(control)).unwrap_or(&"Reserved");
        out!(self, ", control : {control} ({cname})");
        out!(self, ", log message interval : {}", g1(p, 33)?);
        const BODY: usize = 34;
        match msg {
            0x0 | 0x1 => self.ptp_timestamp(p, BODY, "originTimeStamp", ",")?,
            0x8 => self.ptp_timestamp(p, BODY, "preciseOriginTimeStamp", ",")?,
            0x2 | 0xa => {
                self.ptp_timestamp(p, BODY, "preciseOriginTimeStamp", ",")?;
                self.ptp_port_id(p, BODY + 10)?;
            }
            0x3 | 0x9 => {
                self.ptp_timestamp(p, BODY, "receiveTimeStamp", ",")?;
                self.ptp_port_id(p, BODY + 10)?;
            }
            0xb => self.ptp_announce(p, BODY)?,
            0xc => self.ptp_port_id(p, BODY)?,
            0xd => self.ptp_management(p, BODY)?,
            _ => {}
        }
        Ok(())
    }

    /// `ptp_print_timestamp`: 48 bits of seconds and 32 of nanoseconds; `sep`
    /// is what tcpdump puts after the seconds (nothing in an announce).
    fn ptp_timestamp(&mut self, p: &[u8], at: usize, name: &str, sep: &str) -> PResult {
        out!(self, ", {name} : {} seconds{sep}", g6(p, at)?);
        out!(self, " {} nanoseconds", g4(p, at + 6)?);
        Ok(())
    }

    /// `ptp_print_port_id`.
    fn ptp_port_id(&mut self, p: &[u8], at: usize) -> PResult {
        out!(self, ", port identity : 0x{:x}", g8(p, at)?);
        out!(self, ", port id : {}", g2(p, at + 8)?);
        Ok(())
    }

    /// `ptp_print_announce_msg`.
    fn ptp_announce(&mut self, p: &[u8], at: usize) -> PResult {
        self.ptp_timestamp(p, at, "originTimeStamp", "")?;
        out!(self, ", origin cur utc :{}", g2(p, at + 10)?);
        out!(self, ", rsvd : {}", g1(p, at + 12)?);
        out!(self, ", gm priority_1 : {}", g1(p, at + 13)?);
        out!(self, ", gm clock class : {}", g1(p, at + 14)?);
        out!(self, ", gm clock accuracy : {}", g1(p, at + 15)?);
        out!(self, ", gm clock variance : {}", g2(p, at + 16)?);
        out!(self, ", gm priority_2 : {}", g1(p, at + 18)?);
        out!(self, ", gm clock id : 0x{:x}", g8(p, at + 19)?);
        out!(self, ", steps removed : {}", g2(p, at + 27)?);
        out!(self, ", time source : 0x{:x}", g1(p, at + 29)?);
        Ok(())
    }

    /// `ptp_print_mgmt_msg`: tcpdump reads its four one-byte fields all from
    /// the first byte of the target port identity (it never advances its
    /// pointer), and so does this.
    fn ptp_management(&mut self, p: &[u8], at: usize) -> PResult {
        self.ptp_port_id(p, at)?;
        let b = g1(p, at)?;
        out!(self, ", , start boundary hops  {b}, , boundary hops  {b}");
        out!(self, ", , flags  0x{b:x}, , reserved  0x{b:x}");
        Ok(())
    }
}
