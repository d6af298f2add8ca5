//! 802.1X EAP over LAN (EtherType 0x888e), as tcpdump 4.99's `eapol_print`
//! prints it: the frame type, version and length. The EAP packets and keys
//! `-v` decodes after that line are not decoded yet.

use super::{g1, g2, out, PResult, Printer};

impl Printer<'_> {
    /// `eapol_print`: `p` captured from the EAPOL header on.
    pub(super) fn eapol(&mut self, p: &[u8]) -> PResult {
        self.proto = "eap";
        let (version, kind, len) = (g1(p, 0)?, g1(p, 1)?, g2(p, 2)?);
        let name = match kind {
            0 => "EAP packet",
            1 => "EAPOL start",
            2 => "EAPOL logoff",
            3 => "EAPOL key",
            4 => "Encapsulated ASF alert",
            _ => "unknown",
        };
        out!(self, "{name} ({kind}) v{version}, len {len}");
        Ok(())
    }
}
