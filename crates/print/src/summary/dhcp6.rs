//! DHCPv6 (UDP ports 546 and 547), as tcpdump 4.99's `dhcp6_print` prints it
//! without `-v`: the message type. The options `-v` lists are not decoded yet
//! (with `-v` the line stays `UDP, length N`).

use super::{g1, out, PResult, Printer};

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

impl Printer<'_> {
    /// `dhcp6_print` without `-v`: `p` captured from the message type on.
    pub(super) fn dhcp6(&mut self, p: &[u8]) -> PResult {
        self.proto = "dhcp6";
        let t = g1(p, 0)?;
        match usize::from(t).checked_sub(1).and_then(|i| TYPES.get(i)) {
            Some(name) => out!(self, "dhcp6 {name}"),
            None => out!(self, "dhcp6 msgtype-{t}"),
        }
        Ok(())
    }
}
