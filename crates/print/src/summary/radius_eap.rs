//! EAP messages inside RADIUS attributes: tcpdump's `eap_print`, which EAPOL
//! uses too (`eapol.rs`'s `eap_packet`). A message cut short there ends with
//! RADIUS's marker and the attribute loop stops.

use super::{PResult, Printer};

impl Printer<'_> {
    /// `eap_print` of an EAP-Message attribute's `len` bytes.
    pub(super) fn eap(&mut self, d: &[u8], len: usize) -> PResult {
        if self.eap_packet(d, len).is_err() {
            self.trunc();
        }
        Ok(())
    }
}
