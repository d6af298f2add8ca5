//! LMP, the link management protocol (UDP port 701), as tcpdump 4.99's
//! `lmp_print` prints it without `-v`: the version and message type. Its
//! objects (`-v`) are not decoded yet.

use super::{g1, g2, need, out, PResult, Printer};

const MSGS: [&str; 20] = [
    "Config",
    "Config ACK",
    "Config NACK",
    "Hello",
    "Begin Verify",
    "Begin Verify ACK",
    "Begin Verify NACK",
    "End Verify",
    "End Verify ACK",
    "Test",
    "Test Status Success",
    "Test Status Failure",
    "Test Status ACK",
    "Link Summary",
    "Link Summary ACK",
    "Link Summary NACK",
    "Channel Status",
    "Channel Status ACK",
    "Channel Status Request",
    "Channel Status Response",
];

fn msg_name(t: u8) -> String {
    match t {
        1..=20 => MSGS[t as usize - 1].to_string(),
        50 => "Service Config".to_string(),
        51 => "Service Config ACK".to_string(),
        52 => "Service Config NACK".to_string(),
        _ => format!("unknown ({t})"),
    }
}

impl Printer<'_> {
    /// `lmp_print` without `-v`: `len` bytes of UDP payload, `p` captured.
    pub(super) fn lmp(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "lmp";
        // The common header: version, flags, type, length, reserved.
        need(p, 0, 8).map_err(|_| self.caught())?;
        let version = (g2(p, 0)? & 0xf000) >> 12;
        if version != 1 {
            out!(self, "LMP version {version} packet not supported");
            return Ok(());
        }
        out!(
            self,
            "LMPv{version} {} Message, length: {len}",
            msg_name(g1(p, 3)?)
        );
        Ok(())
    }
}
