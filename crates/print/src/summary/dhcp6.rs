//! DHCPv6 (UDP ports 546 and 547), as tcpdump 4.99's `dhcp6_print` prints it:
//! the message type, and with `-v` the transaction id or the relay's
//! addresses and the options (`dhcp6_opts.rs`).

use super::{g1, need, out, PResult, Printer};

const TYPES: [&str; 15] = [
    "solicit",
    "advertise",
    "request",
    "confirm",
    "renew",
    "rebind",
    "reply",
    "release",
    "decline",
    "reconfigure",
    "inf-req",
    "relay-fwd",
    "relay-reply",
    "leasequery",
    "leasequery-reply",
];

/// `dh6_msgtype_str`, or `msgtype-N`.
pub(super) fn type_name(t: u8) -> String {
    match usize::from(t).checked_sub(1).and_then(|i| TYPES.get(i)) {
        Some(name) => (*name).to_string(),
        None => format!("msgtype-{t}"),
    }
}

impl Printer<'_> {
    /// `dhcp6_print`: `p` captured from the message type on, `length` the
    /// datagram's payload length.
    pub(super) fn dhcp6(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "dhcp6";
        out!(self, "dhcp6");
        if need(p, 0, 4).is_err() {
            self.trunc();
            return Ok(());
        }
        let name = type_name(g1(p, 0)?);
        if self.opts.verbose == 0 {
            out!(self, " {name}");
            return Ok(());
        }
        self.dhcp6_verbose(p, length, &name, 0)
    }
}
