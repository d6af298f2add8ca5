//! Where UDP payloads go to the application printers of `rx/` (AFS) and the
//! others of that group, in tcpdump 4.99's `udp_print` order.

use super::{IpCtx, Printer};

/// Ports `udp_print` tests before Rx's whose payloads are not decoded here:
/// a datagram on one of them is not Rx's even on an Rx port.
const BEFORE_RX: [u16; 17] = [
    525, 69, 654, 500, 4500, 7500, 8500, 161, 162, 123, 88, 750, 1701, 137, 138, 2103, 2104,
];

impl Printer<'_> {
    /// Prints the payload of a datagram the port table leaves undecoded when
    /// one of these printers takes it; `false` leaves it to `UDP, length N`.
    pub(super) fn apps_udp(
        &mut self,
        cp: &[u8],
        length: u32,
        sport: u16,
        dport: u16,
        ctx: &IpCtx,
    ) -> bool {
        let is = |p: u16| sport == p || dport == p;
        if BEFORE_RX.iter().any(|&p| is(p)) || dport == 3456 {
            return false;
        }
        let rx_port = |p: u16| (7000..=7009).contains(&p);
        if rx_port(sport) || rx_port(dport) {
            let r = self.rx(cp, length, sport, dport, ctx);
            self.catch(r);
            return true;
        }
        false
    }
}
