//! LMP, the link management protocol (UDP port 701), as tcpdump 4.99's
//! `lmp_print` prints it: without `-v` the version and message type, with
//! `-v` the header and every object (`obj.rs`), dumped in hex with `-vv`.

mod obj;

use super::{bit_names, g1, g2, need, out, tail, PResult, Printer};

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
        let t = g1(p, 3)?;
        if self.opts.verbose == 0 {
            out!(self, "LMPv{version} {} Message, length: {len}", msg_name(t));
            return Ok(());
        }
        let mut tlen = u32::from(g2(p, 4)?);
        let name = match t {
            1..=20 | 50..=52 => msg_name(t),
            _ => format!("unknown, type: {t}"),
        };
        out!(
            self,
            "\n\tLMPv{version}, msg-type: {name}, Flags: [{}], length: {tlen}",
            bit_names(u32::from(g1(p, 2)?), HEADER_FLAGS)
        );
        if tlen < 8 {
            out!(self, " (too short)");
            return Ok(());
        }
        if tlen > len {
            out!(self, " (too long)");
            tlen = len;
        }
        let mut at = 8usize;
        tlen -= 8;
        while tlen > 0 {
            let obj_len = u32::from(g2(p, at + 2)?);
            let ctype = g1(p, at)?;
            let class = g1(p, at + 1)?;
            out!(
                self,
                "\n\t  {} Object ({class}), Class-Type: {} ({}) Flags: [{}negotiable], length: {obj_len}",
                obj::class_name(class),
                obj::ctype_name(class, ctype & 0x7f),
                ctype & 0x7f,
                if ctype & 0x80 != 0 { "" } else { "non-" }
            );
            if obj_len < 4 {
                out!(self, " (too short)");
                return Ok(());
            }
            if obj_len % 4 != 0 {
                out!(self, " (not a multiple of 4)");
                return Ok(());
            }
            // The whole object must be captured.
            need(p, at, obj_len as usize)?;
            let body = tail(p, at + 4);
            let hexdump = self.lmp_object(class, ctype & 0x7f, body, obj_len as usize - 4)?;
            if self.opts.verbose > 1 || hexdump {
                self.unknown_data(body, 0, obj_len as usize - 4, "\n\t    ");
            }
            if tlen < obj_len {
                out!(
                    self,
                    " [remaining objects length {tlen} < {obj_len}] (invalid)"
                );
                break;
            }
            at += obj_len as usize;
            tlen -= obj_len;
        }
        Ok(())
    }
}

/// `lmp_header_flag_values`.
const HEADER_FLAGS: &[(u32, &str)] = &[(0x01, "Control Channel Down"), (0x02, "LMP restart")];
