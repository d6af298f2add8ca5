//! SOME/IP (UDP port 30490), as tcpdump 4.99's `someip_print` prints its
//! header, ending with the empty line tcpdump's trailing newline makes.

use super::{g1, g4, out, PResult, Printer};

impl Printer<'_> {
    /// `someip_print`: `len` bytes of UDP payload, `p` captured.
    pub(super) fn someip(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "someip";
        out!(self, "SOMEIP");
        if len < 16 {
            out!(self, " (invalid)");
            return Ok(());
        }
        let id = g4(p, 0)?;
        let kind = if id & 0x8000 != 0 { "event" } else { "method" };
        out!(self, ", service {}, {kind} {}", id >> 16, id & 0x7fff);
        out!(self, ", len {}", g4(p, 4)?);
        let req = g4(p, 8)?;
        out!(self, ", client {}, session {}", req >> 16, req & 0xffff);
        out!(self, ", pver {}", g1(p, 12)?);
        out!(self, ", iver {}", g1(p, 13)?);
        let t = g1(p, 14)?;
        let ty = match t {
            0x00 => "REQUEST",
            0x01 => "REQUEST_NO_RETURN",
            0x02 => "NOTIFICATION",
            0x80 => "RESPONSE",
            0x81 => "ERROR",
            0x20 => "TP_REQUEST",
            0x21 => "TP_REQUEST_NO_RETURN",
            0x22 => "TP_NOTIFICATION",
            0xa0 => "TP_RESPONSE",
            0xa1 => "TP_ERROR",
            _ => "Unknown",
        };
        out!(self, ", msgtype {ty}");
        const RET: [&str; 16] = [
            "E_OK",
            "E_NOT_OK",
            "E_UNKNOWN_SERVICE",
            "E_UNKNOWN_METHOD",
            "E_NOT_READY",
            "E_NOT_REACHABLE",
            "E_TIMEOUT",
            "E_WRONG_PROTOCOL_VERSION",
            "E_WRONG_INTERFACE_VERSION",
            "E_MALFORMED_MESSAGE",
            "E_WRONG_MESSAGE_TYPE",
            "E_E2E_REPEATED",
            "E_E2E_WRONG_SEQUENCE",
            "E_E2E",
            "E_E2E_NOT_AVAILABLE",
            "E_E2E_NO_NEW_DATA",
        ];
        let r = g1(p, 15)?;
        out!(
            self,
            ", retcode {}\n",
            RET.get(r as usize).unwrap_or(&"Unknown")
        );
        Ok(())
    }
}
